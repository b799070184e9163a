/*
 * The timing modes against SimGrid, without SimGrid: each peer case of
 * tests/peer/cases.txt run by the library and held to SimGrid 3.32's time
 * for it (tests/unit/peer_ref.h, written by make peer-check on the
 * platforms tests/peer/<spec>.xml): maxmin within 0.5 %, events within 2 %
 * (issue 30's bounds).  And the flow simulation by hand.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../routing/internal.h"
#include "helpers.h"

typedef struct peer_case {
	const char *name, *spec, *pattern, *algo;
	double size;
	int64_t ranks;
	const char *tie, *mode;
	double simgrid_s;
} peer_case;

#define PEER_CASE(n, s, p, a, sz, r, t, m, sg) {n, s, p, a, sz, r, t, m, sg},
static const peer_case cases[] = {
#include "peer_ref.h"
};
#undef PEER_CASE

/* The case's collective under the spec's own collective: keys (its
 * routing policy), timed by `timing`. */
static double run(fixture *fx, const peer_case *c, fx_timing timing, fx_sharing sharing)
{
	const fx_fabric *f = &fx->f;
	int64_t *ranks = malloc((size_t)c->ranks * sizeof *ranks);
	for (int64_t i = 0; i < c->ranks; i++)
		ranks[i] = i;
	fx_coll_req q = {c->pattern, c->algo, ranks, c->ranks, c->size, 0};
	fx_coll_time tm;
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_coll_time_parse(&d, &fx->s, &tm), 0);
	tm.timing = timing;
	tm.sharing = sharing;
	fx_router *r = fx_router_new(f, strcmp(c->tie, "plus") == 0);
	fx_coll_result res;
	ck_assert_int_eq(fx_coll_run(f, r, &q, &tm, &res, &d), 0);
	double t = res.time;
	ck_assert_int_eq(res.timing, timing);
	fx_coll_result_release(&res);
	fx_router_free(r);
	fx_diag_release(&d);
	free(ranks);
	return t;
}

START_TEST(peer_cases)
{
	ck_assert_str_eq(PEER_SIMGRID_VERSION, "3.32");
	ck_assert(sizeof cases / sizeof cases[0] >= 15);
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		const peer_case *c = &cases[k];
		char path[256];
		snprintf(path, sizeof path, "tests/peer/%s.yaml", c->spec);
		fixture fx;
		load_ok(&fx, path, NULL);
		int events = strcmp(c->mode, "events") == 0;
		fx_timing timing = events ? FX_TIMING_EVENTS
				   : strcmp(c->mode, "bound") == 0 ? FX_TIMING_BOUND : FX_TIMING_MAXMIN;
		double t = run(&fx, c, timing, FX_SHARING_RTT);
		double tol = events ? 0.02 : 0.005;
		ck_assert_msg(fabs(t / c->simgrid_s - 1) <= tol, "%s: fabricx %s %.9g s, SimGrid %.9g s",
			      c->name, c->mode, t, c->simgrid_s);
		fixture_release(&fx);
	}
}
END_TEST

/*
 * Max-min by hand: a 3-device line, 1 GB/s, 1 us a hop; A = 0 -> 2 (2
 * hops) and B = 1 -> 2 (1 hop), 10 kB each, share link 1 -> 2.  B starts
 * at 1 us and is alone until A starts at 2 us (1 kB sent).  Fair: half
 * each, B's 9 kB take 18 us (in at 20 us), A then has 1 kB left: 21 us.
 * SimGrid's weights (1 / route latency, 2:1 for B): B's 9 kB at 2/3 GB/s
 * take 13.5 us (15.5 us), A has sent 4.5 kB and takes 5.5 us more: 21 us.
 */
START_TEST(maxmin_by_hand)
{
	fixture fx;
	ck_assert_msg(fixture_load(&fx, "l.yaml", "name: l\nfabric:\n  kind: mesh\n  dims: [3]\n"
				   "  link: {bandwidth: 1 GB/s, latency: 1 us}\n", NULL) == 0, "%s", fx.msg);
	for (int w = 0; w < 2; w++) {
		fx_router *r = fx_router_new(&fx.f, 0);
		fx_paths P;
		fx_paths_init(&P, &fx.f);
		int32_t pa = fx_paths_get(&P, r, 0, 2, &fx.d), pb = fx_paths_get(&P, r, 1, 2, &fx.d);
		ck_assert_double_eq_tol(P.lat[pa], 2e-6, 1e-18);
		fx_fsim *sim = fx_fsim_new(&fx.f, &P, w);
		int32_t a = fx_fsim_add(sim, pa, 1e4, P.lat[pa]), b = fx_fsim_add(sim, pb, 1e4, P.lat[pb]);
		fx_fsim_release(sim, a, 0);
		fx_fsim_release(sim, b, 0);
		while (fx_fsim_step(sim) >= 0)
			;
		ck_assert_double_eq_tol(fx_fsim_finish(sim, b), w ? 15.5e-6 : 20e-6, 1e-15);
		ck_assert_double_eq_tol(fx_fsim_finish(sim, a), 21e-6, 1e-15);
		fx_fsim_free(sim);
		fx_paths_release(&P);
		fx_router_free(r);
	}
	fixture_release(&fx);
}
END_TEST

/*
 * Eager rounds by hand: a ring allreduce over the first 8 devices of a
 * 3x3 torus (500 ns a hop, 50 GB/s), 64 KiB: 14 steps of 8 KiB.  The ring
 * edges in device order are 1, 1, 2, 1, 1, 2, 1, 2 hops (2 -> 3 and 5 -> 6
 * wrap a row, 7 -> 0 goes back a row and round the column).  bound pays
 * the 2-hop edge every step: 14 x (1 us + 8192 / 50e9) = 16.29376 us.
 * events: a step's send waits for the step before's block from the left,
 * so the last block has crossed 14 consecutive ring edges: all 8 (11
 * hops) and the heaviest 6 more (9 hops: the ring minus its lightest
 * pair), 20 x 500 ns, plus 14 transfers of 0.16384 us: 12.29376 us.
 */
START_TEST(events_ring_by_hand)
{
	fixture fx;
	load_ok(&fx, "tests/peer/torus-3x3-500ns.yaml", NULL);
	peer_case c = {"h", "", "allreduce", "ring", 65536, 8, "split", "events", 0};
	ck_assert_double_eq_tol(run(&fx, &c, FX_TIMING_BOUND, FX_SHARING_RTT), 16.29376e-6, 1e-15);
	ck_assert_double_eq_tol(run(&fx, &c, FX_TIMING_MAXMIN, FX_SHARING_RTT), 16.29376e-6, 1e-15);
	ck_assert_double_eq_tol(run(&fx, &c, FX_TIMING_EVENTS, FX_SHARING_RTT), 12.29376e-6, 1e-15);
	ck_assert_double_eq_tol(run(&fx, &c, FX_TIMING_EVENTS, FX_SHARING_FAIR), 12.29376e-6, 1e-15);
	fixture_release(&fx);
}
END_TEST

Suite *suite_peer(void)
{
	Suite *s = suite_create("peer");
	TCase *tc = tcase_create("simgrid");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, peer_cases);
	tcase_add_test(tc, maxmin_by_hand);
	tcase_add_test(tc, events_ring_by_hand);
	suite_add_tcase(s, tc);
	return s;
}
