/* The rail-clos kind: its closed-form hop counts against igraph's all-pairs
 * distances, its bisection against every balanced split's max-flow on
 * small builds, its counts against a hand count, and its shrink rule. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../routing/routing.h"
#include "helpers.h"

/* A rail-clos spec of the given keys (YAML flow text, e.g. "servers: 8"). */
static int load_rc(fixture *fx, const char *keys)
{
	char text[1024];
	snprintf(text, sizeof text, "name: rc\nfabric: {kind: rail-clos, %s, "
		 "link: {bandwidth: 50 GB/s, latency: 100 ns}}\n", keys);
	return fixture_load(fx, "rc.yaml", text, NULL);
}

/* The closed form (topo_railclos.c): same rail and SU 2 hops; otherwise 4
 * within a pod (every endpoint, with two tiers) and 6 across pods. */
static void closed_form(const fx_railclos_state *s, double hist[8])
{
	double n = (double)(s->servers * s->rails), m = (double)s->per_leaf;
	double pod = s->tiers == 3 ? m * (double)s->sus_per_pod * (double)s->rails : n;
	memset(hist, 0, 8 * sizeof *hist);
	hist[2] = n * (m - 1);
	hist[4] = n * (pod - m);
	hist[6] = n * (n - pod);
}

static const char *const builds[] = {
	"servers: 8, rails: 4, servers_per_leaf: 4, radix: 8",
	"servers: 12, rails: 2, servers_per_leaf: 3, taper: 3, radix: 8, spines: 1",
	"servers: 8, rails: 2, servers_per_leaf: 2, planes: 2, radix: 8",
	"servers: 16, rails: 2, servers_per_leaf: 2, tiers: 3, sus_per_pod: 2, radix: 8",
	"servers: 8, rails: 3, servers_per_leaf: 2, tiers: 3, sus_per_pod: 2, taper: 2, "
	"spine_taper: 2, planes: 2, radix: 16",
};

START_TEST(hops_match_igraph)
{
	for (size_t i = 0; i < sizeof builds / sizeof builds[0]; i++) {
		fixture fx;
		ck_assert_msg(load_rc(&fx, builds[i]) == 0, "%s: %s", builds[i], fx.msg);
		fx_hops h;
		fx_diag d;
		fx_diag_init(&d);
		ck_assert_int_eq(fx_route_hops(&fx.f, &h, &d), 0);
		igraph_matrix_t m;
		igraph_matrix_init(&m, 0, 0);
		igraph_distances(&fx.f.g, &m, igraph_vss_all(), igraph_vss_all(), IGRAPH_ALL);
		double ig[8] = {0}, cf[8];
		for (int64_t a = 0; a < fx.f.ndev; a++)
			for (int64_t b = 0; b < fx.f.ndev; b++)
				if (a != b)
					ig[(int)MATRIX(m, a, b)]++;
		closed_form(&fx.f.state.railclos, cf);
		for (int k = 1; k < 8; k++) {
			double got = k < h.nhist ? h.hist[k] : 0;
			ck_assert_msg(ig[k] == cf[k] && got == cf[k], "%s: %d hops: igraph %g, closed form "
				      "%g, fabricx %g", builds[i], k, ig[k], cf[k], got);
		}
		igraph_matrix_destroy(&m);
		fx_hops_release(&h);
		fx_diag_release(&d);
		fixture_release(&fx);
	}
}
END_TEST

/* The closed-form bisection is the least max-flow over every balanced
 * split of the endpoints (device 0 on side 0: each split counted once). */
START_TEST(bisection_exhaustive)
{
	static const char *const small[] = {
		"servers: 4, rails: 2, servers_per_leaf: 2, radix: 8",
		"servers: 6, rails: 2, servers_per_leaf: 2, taper: 2, radix: 8, spines: 1",
		"servers: 4, rails: 2, servers_per_leaf: 1, planes: 2, radix: 8",
		"servers: 8, rails: 2, servers_per_leaf: 1, tiers: 3, sus_per_pod: 2, spine_taper: 2, radix: 8",
		"servers: 4, rails: 4, servers_per_leaf: 2, taper: 2, radix: 8",
	};
	for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
		fixture fx;
		ck_assert_msg(load_rc(&fx, small[i]) == 0, "%s: %s", small[i], fx.msg);
		const fx_fabric *f = &fx.f;
		int n = (int)f->ndev;
		ck_assert_int_le(n, 20);
		fx_cut b;
		fx_diag d;
		fx_diag_init(&d);
		ck_assert_int_eq(fx_route_bisection(f, &b, &d), 0);
		uint8_t *side = calloc((size_t)f->nv, 1);
		double best = INFINITY;
		for (uint32_t s = 0; s < (1u << n); s += 2) {  /* device 0 stays on side 0 */
			if (__builtin_popcount(s) != n / 2)
				continue;
			for (int v = 0; v < n; v++)
				side[v] = (s >> v) & 1;
			for (int64_t v = n; v < f->nv; v++)
				side[v] = 2;
			fx_cut c;
			ck_assert_int_eq(fx_route_cut(f, side, &c, &d), 0);
			if (c.bandwidth < best)
				best = c.bandwidth;
		}
		int units_even = !strstr(small[i], "servers: 6");
		if (units_even) {
			ck_assert_str_eq(b.method, "exact");
			ck_assert_msg(b.confirmed, "%s: closed form not confirmed", small[i]);
		}
		ck_assert_msg(fabs(b.bandwidth - best) <= 1e-9 * best || !units_even,
			      "%s: fabricx %g, least balanced split %g", small[i], b.bandwidth, best);
		ck_assert(b.bandwidth >= best - 1e-9 * best);
		free(side);
		fx_diag_release(&d);
		fixture_release(&fx);
	}
}
END_TEST

/* The 2,048-GPU two-tier rail Clos of issue 27 in nine lines of YAML, by
 * hand: 256 servers x 8 rails; 8 SUs of 32 servers, one leaf per rail of
 * each SU = 64 leaves of 32 down + 32 up; 32 spines (one link from every
 * leaf), each 64 ports; 2,048 + 64 x 32 = 4,096 links.  Bisection: 4 SUs
 * x 8 leaves x 32 uplinks = 1,024 links of 50 GB/s = 51.2 TB/s, full
 * (1,024 endpoint links).  Mean hops (31 x 2 + 2,016 x 4) / 2,047. */
START_TEST(rail_clos_2048)
{
	fixture fx;
	load_ok(&fx, "specs/rail-clos-2048.yaml", NULL);
	const fx_fabric *f = &fx.f;
	ck_assert_int_eq(f->ndev, 2048);
	ck_assert_int_eq(f->nsw, 96);
	ck_assert_int_eq(fx_fabric_links(f), 4096);
	ck_assert_int_eq(f->nnodes, 256);
	fx_role_stat rs[FX_MAX_ROLES];
	fx_fabric_role_stats(f, rs);
	ck_assert_str_eq(f->roles[0].name, "leaf");
	ck_assert_int_eq(rs[0].chips, 64);
	ck_assert_int_eq(rs[0].down, 32);
	ck_assert_int_eq(rs[0].up, 32);
	ck_assert_int_eq(rs[1].chips, 32);
	ck_assert_int_eq(rs[1].max_ports, 64);
	fx_diag d;
	fx_diag_init(&d);
	fx_cut b;
	ck_assert_int_eq(fx_route_bisection(f, &b, &d), 0);
	ck_assert_double_eq_tol(b.bandwidth, 51.2e12, 1);
	ck_assert_double_eq(b.links, 1024);
	fx_hops h;
	ck_assert_int_eq(fx_route_hops(f, &h, &d), 0);
	ck_assert_double_eq_tol(h.mean, (31 * 2 + 2016 * 4) / 2047.0, 1e-12);
	ck_assert_int_eq(h.diameter, 4);
	/* endpoint 5 of server 3 is rail 5: its leaf is rail 5 of SU 0 */
	char name[64];
	int64_t e = f->nic_edge0 + 3 * 8 + 5;
	ck_assert_str_eq(fx_fabric_vertex_name(f, f->ends[2 * e + 1], name, sizeof name), "leaf.r5.s0");
	fx_hops_release(&h);
	fx_diag_release(&d);
	fixture_release(&fx);
}
END_TEST

/* Shrinks by whole scalable units, the spines staying. */
START_TEST(shrink_by_units)
{
	fixture fx;
	load_ok(&fx, "specs/rail-clos-2048.yaml", NULL);
	fx_shrink s;
	ck_assert_int_eq(fx_fabric_shrink(&fx.f, &fx.s, 1000, &s), 0);
	ck_assert_int_eq(s.devices, 768);  /* 3 SUs of 256 GPUs */
	ck_assert_int_eq(s.nsets, 1);
	ck_assert_str_eq(s.set[0], "fabric.servers=96");
	fixture_release(&fx);
}
END_TEST

/* Every bad value is refused at its key. */
START_TEST(bad_values)
{
	static const struct { const char *keys, *msg; } bad[] = {
		{"servers: 10, rails: 2, servers_per_leaf: 4, radix: 8", "must be a multiple of"},
		{"servers: 8, rails: 2, servers_per_leaf: 4, taper: 3, radix: 8", "must divide the 4 servers"},
		{"servers: 8, rails: 2, servers_per_leaf: 4, radix: 6", "is less than a leaf's 4 down + 4 up"},
		{"servers: 8, rails: 2, servers_per_leaf: 4, spines: 3, radix: 8", "must divide the 4 uplinks"},
		{"servers: 8, rails: 2, servers_per_leaf: 4, sus_per_pod: 2, radix: 8", "applies to three tiers"},
		{"servers: 8, rails: 2, servers_per_leaf: 4, tiers: 3, sus_per_pod: 3, radix: 8",
		 "must divide the 2 scalable units"},
		{"servers: 8, rails: 2, servers_per_leaf: 4, taper: 2, leaf_uplinks: 2, radix: 8", "not both"},
		{"servers: 8, rails: 2, servers_per_leaf: 4, radix: 8, spines: 4, planes: 0", "'fabric.planes'"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		fixture fx;
		ck_assert_int_ne(load_rc(&fx, bad[i].keys), 0);
		ck_assert_msg(strstr(fx.msg, bad[i].msg) && strstr(fx.msg, "rc.yaml:"), "%s: %s",
			      bad[i].keys, fx.msg);
		fixture_release(&fx);
	}
}
END_TEST

Suite *suite_railclos(void)
{
	Suite *s = suite_create("railclos");
	TCase *tc = tcase_create("railclos");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, hops_match_igraph);
	tcase_add_test(tc, bisection_exhaustive);
	tcase_add_test(tc, rail_clos_2048);
	tcase_add_test(tc, shrink_by_units);
	tcase_add_test(tc, bad_values);
	suite_add_tcase(s, tc);
	return s;
}
