/* Failed elements (fabric/fail.c): the mask every router, hop count and
 * cut honours.  Numbers by hand on an 8-ring: one link failed makes it an
 * 8-path (diameter 4 -> 7, mean hops 2 x sum_{d=1..7} d(8-d) / 56 = 3,
 * bisection 2 links -> 1); a flow across the failed link goes the long way
 * round (7 hops); clearing the mask gives the intact ring back. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/xalloc.h"
#include "../../routing/routing.h"
#include "helpers.h"

static const char ring8[] = "name: ring8\n"
			    "fabric: {kind: torus, dims: [8], link: {bandwidth: 50 GB/s, latency: 1 us}}\n";

START_TEST(test_ring_path)
{
	fixture fx;
	ck_assert_int_eq(fixture_load(&fx, "ring8.yaml", ring8, NULL), 0);
	fx_hops h;
	fx_cut c;
	ck_assert_int_eq(fx_route_hops(&fx.f, &h, &fx.d), 0);
	ck_assert_int_eq(h.diameter, 4);
	fx_hops_release(&h);
	ck_assert_int_eq(fx_fabric_fail(&fx.f, "device=3~device=4", "--fail", &fx.d), 0);
	ck_assert(fx_fabric_degraded(&fx.f));
	int64_t nv, nl;
	fx_fabric_fail_counts(&fx.f, &nv, &nl);
	ck_assert_int_eq(nv, 0);
	ck_assert_int_eq(nl, 1);
	ck_assert_int_eq(fx_route_hops(&fx.f, &h, &fx.d), 0);
	ck_assert_int_eq(h.diameter, 7);
	ck_assert_double_eq_tol(h.mean, 3.0, 1e-12);
	ck_assert_int_eq(h.devices_cut_off, 0);
	fx_hops_release(&h);
	ck_assert_int_eq(fx_route_bisection(&fx.f, &c, &fx.d), 0);
	ck_assert_double_eq(c.links, 1);
	ck_assert_double_eq(c.bandwidth, 50e9);
	ck_assert_str_eq(c.method, "bound");
	/* chip 3 to chip 4: 7 hops the other way round, 1 MiB on each link */
	fx_router *r = fx_router_new(&fx.f, 0);
	ck_assert(strstr(fx_router_name(r), "degraded") != NULL);
	double *load = fx_xcalloc((size_t)(2 * fx.f.ne), sizeof *load);
	fx_flow fl = {3, 4, 1048576};
	fx_path_stats st;
	ck_assert_int_eq(fx_router_add(r, &fl, 1, load, &st, &fx.d), 0);
	ck_assert_int_eq(st.max_hops, 7);
	double total = 0;
	for (int64_t l = 0; l < 2 * fx.f.ne; l++) {
		ck_assert(load[l] == 0 || load[l] == 1048576);
		total += load[l];
	}
	ck_assert_double_eq(total, 7 * 1048576.0);
	free(load);
	fx_router_free(r);
	/* back to the intact ring: exact again */
	fx_fabric_fail_clear(&fx.f);
	ck_assert_int_eq(fx_route_bisection(&fx.f, &c, &fx.d), 0);
	ck_assert_double_eq(c.links, 2);
	ck_assert_str_eq(c.method, "exact");
	fixture_release(&fx);
}
END_TEST

/* Two failed links split the ring into chips 4-6 and 7, 0-3: the larger
 * piece (5) is what stays joined; save/restore brings back one failure. */
START_TEST(test_reachable)
{
	fixture fx;
	ck_assert_int_eq(fixture_load(&fx, "ring8.yaml", ring8, NULL), 0);
	uint8_t reach[8];
	ck_assert_int_eq(fx_fabric_reachable(&fx.f, reach), 8);
	ck_assert_int_eq(fx_fabric_fail(&fx.f, "device=3~device=4", "--fail", &fx.d), 0);
	fx_fail_saved s;
	fx_fabric_fail_save(&fx.f, &s);
	ck_assert_int_eq(fx_fabric_fail(&fx.f, "device=6~device=7", "--fail", &fx.d), 0);
	ck_assert_int_eq(fx_fabric_reachable(&fx.f, reach), 5);
	static const uint8_t want[8] = {1, 1, 1, 1, 0, 0, 0, 1};
	ck_assert_mem_eq(reach, want, 8);
	fx_fabric_fail_restore(&fx.f, &s);
	ck_assert_int_eq(fx_fabric_reachable(&fx.f, reach), 8);
	/* a failed chip is not joined, and fails its two links: with 3-4
	 * down, chip 0 leaves pieces 1-3 and 4-7, the larger joined */
	ck_assert_int_eq(fx_fabric_fail(&fx.f, "device=0", "--fail", &fx.d), 0);
	ck_assert_int_eq(fx_fabric_reachable(&fx.f, reach), 4);
	ck_assert_int_eq(reach[4] + reach[5] + reach[6] + reach[7], 4);
	int64_t nv, nl;
	fx_fabric_fail_counts(&fx.f, &nv, &nl);
	ck_assert_int_eq(nv, 1);
	ck_assert_int_eq(nl, 3);
	fixture_release(&fx);
}
END_TEST

/* Selectors: A~B naming no link, and power domains. */
START_TEST(test_selectors)
{
	fixture fx;
	ck_assert_int_eq(fixture_load(&fx, "ring8.yaml", ring8, NULL), 0);
	ck_assert_int_eq(fx_fabric_fail(&fx.f, "device=0~device=2", "--fail", &fx.d), -1);
	ck_assert(!fx_fabric_degraded(&fx.f));
	ck_assert_int_eq(fx_fabric_fail(&fx.f, "power=0", "--fail", &fx.d), -1);
	fixture_release(&fx);
	static const char *const sets[] = {"packaging={devices_per_node: 2, nodes_per_power_domain: 2}",
					   NULL};
	ck_assert_int_eq(fixture_load(&fx, "ring8.yaml", ring8, sets), 0);
	/* 4 nodes of 2 chips, 2 nodes per domain: power=1 is chips 4-7 */
	ck_assert_int_eq(fx_fabric_fail(&fx.f, "power=1", "--fail", &fx.d), 0);
	uint8_t reach[8];
	ck_assert_int_eq(fx_fabric_reachable(&fx.f, reach), 4);
	for (int v = 0; v < 8; v++)
		ck_assert_int_eq(fx_fabric_vertex_up(&fx.f, v), v < 4);
	fixture_release(&fx);
}
END_TEST

Suite *suite_fail(void)
{
	Suite *s = suite_create("fail");
	TCase *tc = tcase_create("mask");
	tcase_add_test(tc, test_ring_path);
	tcase_add_test(tc, test_reachable);
	tcase_add_test(tc, test_selectors);
	suite_add_tcase(s, tc);
	return s;
}
