/* Collectives on real fabrics against the "Supernodes" chapter's worked numbers, and
 * properties every algorithm must keep on every shipped spec. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/xalloc.h"
#include "../../routing/internal.h"
#include "helpers.h"

typedef struct run {
	fx_coll_result res;
	int rc;
} run;

/* Runs pattern/algo over the first n devices of a spec (with --set
 * overrides); alpha < 0 means the spec's own model, else the chapter's alpha
 * replacing path latency. */
static run coll_chunks(const char *spec, const char *const *sets, const char *pattern,
		       const char *algo, int64_t n, double size, double alpha, int64_t chunks);

static run coll(const char *spec, const char *const *sets, const char *pattern, const char *algo,
		int64_t n, double size, double alpha)
{
	return coll_chunks(spec, sets, pattern, algo, n, size, alpha, 0);
}

/* The same with --chunks (0: the algorithm's default). */
static run coll_chunks(const char *spec, const char *const *sets, const char *pattern,
		       const char *algo, int64_t n, double size, double alpha, int64_t chunks)
{
	fixture fx;
	load_ok(&fx, spec, sets);
	run out;
	int64_t *ranks = malloc((size_t)fx.f.ndev * sizeof *ranks);
	for (int64_t i = 0; i < fx.f.ndev; i++)
		ranks[i] = i;
	fx_coll_req q = {pattern, algo, ranks, n > 0 ? n : fx.f.ndev, size, chunks};
	fx_coll_time tm = {.alpha = alpha < 0 ? 0 : alpha, .alpha_replaces_latency = alpha >= 0,
			   .policy = FX_ROUTE_SPLIT};
	fx_router *r = fx_router_new(&fx.f, 0);
	out.rc = fx_coll_run(&fx.f, r, &q, &tm, &out.res, &fx.d);
	ck_assert_msg(out.rc == 0, "%s %s/%s failed", spec, pattern, algo);
	fx_router_free(r);
	free(ranks);
	fixture_release(&fx);
	return out;
}

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)
#define NVLINK_ALPHA 0.822e-6  /* the chapter, §6.4.2: MSCCL++ measured NVLink one-way latency */

/* the chapter, §6.4.2 worked example: "TP8 requires fourteen rounds total, with
 * startup overhead summing to 11.51 us; each card sends 17.5 KiB ... for a
 * single reduction of about 11.55 us", B = 450 GB/s per direction over
 * NVSwitch, M = 10 KiB; and the table's 128 reductions: 0.21, 0.64, 1.48 ms. */
START_TEST(book_ring_tp)
{
	run r = coll("specs/hgx-h100.yaml", NULL, "allreduce", "ring", 8, 10 * KIB, NVLINK_ALPHA);
	ck_assert_int_eq(r.res.rounds, 14);
	ck_assert_double_eq_tol(r.res.time * 1e6, 11.55, 0.005);
	ck_assert_double_eq_tol(r.res.sent_bytes / 8, 17.5 * KIB, 1e-6);
	fx_coll_result_release(&r.res);
	static const struct { int64_t n; double ms; } tp[] = {{2, 0.21}, {4, 0.64}, {8, 1.48}};
	for (int i = 0; i < 3; i++) {
		r = coll("specs/hgx-h100.yaml", NULL, "allreduce", "ring", tp[i].n, 10 * KIB, NVLINK_ALPHA);
		ck_assert_double_eq_tol(128 * r.res.time * 1e3, tp[i].ms, 0.005);
		fx_coll_result_release(&r.res);
	}
}
END_TEST

/* the chapter, §6.4.2: tree (Eq. 6-10) "for eight cards and 10 KiB ... about 5.07
 * us"; at 80 MiB "the ring algorithm needs about 0.34 ms while the tree
 * needs about 1.12 ms"; "a crossover around 680 KiB".  The chapter's tree is
 * unpipelined: --chunks 1 (10 KiB is one chunk by NCCL's rule anyway). */
START_TEST(book_ring_vs_tree)
{
	run t = coll("specs/hgx-h100.yaml", NULL, "allreduce", "tree", 8, 10 * KIB, NVLINK_ALPHA);
	ck_assert_int_eq(t.res.rounds, 6);
	ck_assert_int_eq(t.res.chunks, 1);
	ck_assert_double_eq_tol(t.res.time * 1e6, 5.07, 0.005);
	fx_coll_result_release(&t.res);
	run r = coll("specs/hgx-h100.yaml", NULL, "allreduce", "ring", 8, 80 * MIB, NVLINK_ALPHA);
	t = coll_chunks("specs/hgx-h100.yaml", NULL, "allreduce", "tree", 8, 80 * MIB, NVLINK_ALPHA, 1);
	ck_assert_double_eq_tol(r.res.time * 1e3, 0.34, 0.005);
	ck_assert_double_eq_tol(t.res.time * 1e3, 1.12, 0.005);
	fx_coll_result_release(&r.res);
	fx_coll_result_release(&t.res);

	fixture fx;
	load_ok(&fx, "specs/hgx-h100.yaml", NULL);
	int64_t ranks[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	fx_coll_req q = {"allreduce", "ring", ranks, 8, 0, 1};
	fx_coll_time tm = {.alpha = NVLINK_ALPHA, .alpha_replaces_latency = 1, .policy = FX_ROUTE_SPLIT};
	fx_router *rt = fx_router_new(&fx.f, 0);
	double x = fx_coll_crossover(&fx.f, rt, &q, "ring", "tree", &tm, 1, 1e9, &fx.d);
	/* 8 alpha = (6 - 14/8) M / B  ->  M = 696,282 B = 680 KiB */
	ck_assert_double_eq_tol(x / KIB, 680, 0.5);
	fx_router_free(rt);
	fixture_release(&fx);
}
END_TEST

/* the chapter, §6.5.1 table: 16 cards on a bidirectional ring, first three rounds
 * of an 8 MiB reduce-scatter: hops 1,2,4 (recursive) vs 1,1,3 (Swing),
 * busiest directed link 4,4,4 vs 4,2,2 MiB, all links 64,64,64 vs
 * 64,32,48 MiB, "approximately 252 and 168 us" at 50 GB/s. */
START_TEST(book_swing_vs_recursive)
{
	const char *ring16[] = {"fabric.dims=[16]", "packaging.devices_per_node=1", NULL};
	static const double hops[2][3] = {{1, 2, 4}, {1, 1, 3}};
	static const double busiest[2][3] = {{4, 4, 4}, {4, 2, 2}};
	static const double all[2][3] = {{64, 64, 64}, {64, 32, 48}};
	static const double us[2] = {252, 168};
	const char *algo[2] = {"recursive", "swing"};
	for (int a = 0; a < 2; a++) {
		run r = coll("specs/torus-8x8x8.yaml", ring16, "reduce-scatter", algo[a], 16, 8 * MIB, 0);
		ck_assert_uint_eq(r.res.nround, 4);
		double t = 0;
		for (int s = 0; s < 3; s++) {
			const fx_round_result *rr = &r.res.per_round[s];
			ck_assert_int_eq(rr->max_hops, hops[a][s]);
			ck_assert_double_eq_tol(rr->max_link_bytes / MIB, busiest[a][s], 1e-9);
			ck_assert_double_eq_tol(rr->total_link_bytes / MIB, all[a][s], 1e-9);
			t += rr->time;
		}
		ck_assert_double_eq_tol(t * 1e6, us[a], 0.5);
		fx_coll_result_release(&r.res);
	}
}
END_TEST

/* the chapter, §6.5.1: uniform all-to-all of M = 32 MiB on 64 cards: "the torus
 * needs at least about 336 us and the switched network about 112 us"; the
 * the chapter counts 64 shares of M/64 where there are 63 of M/63, so the exact
 * torus figure is 64/63 above it; "at 512 cards ... the gap sixfold". */
START_TEST(book_alltoall_torus_vs_switched)
{
	run t = coll("specs/tpu-v4-cube.yaml", NULL, "all-to-all", "direct", 0, 32 * MIB, 0);
	run s = coll("specs/switched-64.yaml", NULL, "all-to-all", "direct", 0, 32 * MIB, 0);
	/* exact: every directed link carries 64 x M x (192/63) / 384 bytes */
	double exact = 64 * 32 * MIB * (192.0 / 63) / 384 / 50e9;
	ck_assert_double_eq_tol(t.res.time, exact, 1e-12);
	ck_assert_double_eq_tol(t.res.time * 1e6, 340.87, 0.005);
	ck_assert_double_eq_tol(t.res.time * 63 / 64 * 1e6, 336, 0.5);  /* the chapter's rounding */
	ck_assert_double_eq_tol(s.res.time * 1e6, 112, 0.5);  /* M/6 per port at 50 GB/s */
	ck_assert_double_eq_tol(t.res.time / s.res.time, 3.0, 0.05);
	fx_coll_result_release(&t.res);
	fx_coll_result_release(&s.res);

	/* 512 cards: an 8^3 torus against six non-blocking switch planes */
	const char *sw512[] = {"fabric.devices=512", "fabric.switch_ports=512", NULL};
	t = coll("specs/torus-8x8x8.yaml", NULL, "all-to-all", "direct", 0, 32 * MIB, 0);
	s = coll("specs/switched-64.yaml", sw512, "all-to-all", "direct", 0, 32 * MIB, 0);
	ck_assert_double_eq_tol(t.res.time / s.res.time, 6.0, 0.05);
	fx_coll_result_release(&t.res);
	fx_coll_result_release(&s.res);
}
END_TEST

/* the chapter, §6.5.4: eight TPU v4 chips, ring allreduce of 8 MiB (14 MiB sent
 * per chip): "the transfer term drops from about 293.6 us to about 97.9 us"
 * going from one 50 GB/s ICI link to three. */
START_TEST(book_ocs_links)
{
	const char *one[] = {"fabric.dims=[8]", "packaging.devices_per_node=1", NULL};
	const char *three[] = {"fabric.dims=[8]", "fabric.links_per_neighbor=3",
			       "packaging.devices_per_node=1", NULL};
	run a = coll("specs/torus-8x8x8.yaml", one, "allreduce", "ring", 8, 8 * MIB, 0);
	run b = coll("specs/torus-8x8x8.yaml", three, "allreduce", "ring", 8, 8 * MIB, 0);
	ck_assert_double_eq_tol(a.res.sent_bytes / 8 / MIB, 14, 1e-9);
	ck_assert_double_eq_tol(a.res.time * 1e6, 293.6, 0.05);
	ck_assert_double_eq_tol(b.res.time * 1e6, 97.9, 0.05);
	fx_coll_result_release(&a.res);
	fx_coll_result_release(&b.res);
}
END_TEST

/* nccl-tests PERFORMANCE.md; the chapter, §6.4.3: 16 ranks, busbw is 1.875 algbw. */
START_TEST(bus_bandwidth)
{
	ck_assert_double_eq(200 * fx_coll_bus_factor("allreduce", 8), 350);
	ck_assert_double_eq(200 * fx_coll_bus_factor("all-gather", 8), 175);
	ck_assert_double_eq(fx_coll_bus_factor("allreduce", 16), 1.875);
	ck_assert_double_eq(fx_coll_bus_factor("broadcast", 16), 1);
	ck_assert_double_eq_tol(143.99 * fx_coll_bus_factor("allreduce", 16), 269.98, 0.01);
}
END_TEST

/* The torus algorithm uses all 2D ports: on a cube each round moves along
 * one dimension in both directions, and it sends 2(n-1)M/n per rank. */
START_TEST(torus_dimensionwise)
{
	run r = coll("specs/tpu-v4-cube.yaml", NULL, "allreduce", "torus", 0, 6 * MIB, 0);
	ck_assert_int_eq(r.res.rounds, 2 * 3 * 3);
	ck_assert_double_eq_tol(r.res.sent_bytes, 64 * 2 * 63.0 / 64 * 6 * MIB, 1);
	/* all 384 directed links busy in the first round, one part each: 6 MiB
	 * in 6 parts of 1 MiB, reduce-scattered over 4 then 4 then 4 (3 steps
	 * each of 256, 64, 16 KiB) and gathered back: 2 x 3 x 336 KiB per link
	 * at 50 GB/s = 41.28768 us by hand (alpha 0 here stands for the path
	 * latency).  The repeated steps run as 6 rounds of 3
	 * (routing/coll_torus.c). */
	ck_assert_double_eq_tol(r.res.per_round[0].total_link_bytes, 384 * 262144.0, 1e-3);
	ck_assert_int_eq((int)r.res.nround, 6);
	ck_assert_double_eq_tol(r.res.time, 2 * 3 * 336 * 1024 / 50e9, 1e-15);
	fx_coll_result_release(&r.res);
}
END_TEST

/* NCCL's tree chunk (src/enqueue.cc): 512 KiB, halved while fewer than
 * 8 x depth chunks (not below 128 KiB), 4 x depth (64 KiB), depth (32 KiB).
 * 40 MiB over depth 3: 80 chunks of 512 KiB; 680 KiB: 1 < 24 -> 256 KiB,
 * 2 -> 128 KiB (floor), 5 < 12 -> 64 KiB: 10.6 -> 11 chunks; 10 KiB: one. */
START_TEST(tree_chunk_rule)
{
	ck_assert_int_eq(fx_coll_tree_chunks(40 * MIB, 3), 80);
	ck_assert_int_eq(fx_coll_tree_chunks(680 * KIB, 3), 11);
	ck_assert_int_eq(fx_coll_tree_chunks(10 * KIB, 3), 1);
	ck_assert_int_eq(fx_coll_tree_chunks(1024 * MIB, 6), 2048);
	/* 1 MiB at depth 6: 2 < 48 -> 256 KiB, 4 -> 128 KiB; 8 < 24 -> 64 KiB:
	 * 16 chunks */
	ck_assert_int_eq(fx_coll_tree_chunks(1 * MIB, 6), 16);
}
END_TEST

/*
 * Pipelined double binary tree on HGX H100, 80 MiB (issue 14: NCCL's
 * pipelined tree approaches 2M/B = 2 x 80 MiB / 450 GB/s = 372.8 us where
 * the unpipelined one took 937 us).  Each tree has 40 MiB: 80 chunks of
 * 512 KiB; depth D = 3 (0 -> 4 -> 2 -> 1 on 8 ranks), so 80 + 2D - 1 = 85
 * steps.  In the 75 steps where every edge is busy a rank sends 4 chunks
 * (up 1 + down 2 where it is interior, up 1 where it is a leaf): 2 MiB
 * over its 450 GB/s, 4.660 us, + alpha 0.822 us.  The 10 filling and
 * draining steps send less, so the whole lies between 2M/B + 85 alpha and
 * that + 10 full steps.
 */
START_TEST(dbtree_pipelined)
{
	run t = coll("specs/hgx-h100.yaml", NULL, "allreduce", "dbtree", 8, 80 * MIB, NVLINK_ALPHA);
	ck_assert_int_eq(t.res.chunks, 80);
	ck_assert_double_eq_tol(t.res.chunk_bytes, 512 * KIB, 1e-9);
	ck_assert_int_eq(t.res.rounds, 85);
	double step = 2 * MIB / 450e9;
	int found = 0;
	for (size_t i = 0; i < t.res.nround; i++)
		if (t.res.per_round[i].repeat == 75) {
			found = 1;
			ck_assert_double_eq_tol(t.res.per_round[i].time, NVLINK_ALPHA + step, 1e-12);
		}
	ck_assert(found);
	double bound = 2 * 80 * MIB / 450e9;
	ck_assert_double_eq_tol(bound * 1e6, 372.83, 0.01);
	ck_assert(t.res.time >= bound + 85 * NVLINK_ALPHA - 1e-12);
	ck_assert(t.res.time <= bound + 85 * NVLINK_ALPHA + 10 * step);
	ck_assert_double_eq_tol(t.res.time * 1e6, 449.69, 0.01);
	fx_coll_result_release(&t.res);
	/* --chunks 1: 2D = 6 rounds of 40 MiB per tree edge, as before */
	t = coll_chunks("specs/hgx-h100.yaml", NULL, "allreduce", "dbtree", 8, 80 * MIB, NVLINK_ALPHA, 1);
	ck_assert_int_eq(t.res.rounds, 6);
	ck_assert_double_eq_tol(t.res.time * 1e6, 937.0, 0.01);
	fx_coll_result_release(&t.res);
}
END_TEST

/*
 * Pipelined binomial tree on HGX, 80 MiB: 160 chunks of 512 KiB (depth
 * log2 8 = 3), 160 + 2 x 3 - 1 = 165 steps.  Rank 0 (the root) takes a
 * chunk from each of its 3 children and sends one to each every step, and
 * rank 4 sends 1 up + 2 down: 3 chunks = 1.5 MiB per step, 3.495 us + the
 * alpha, so the tree approaches 3M/B (log2 n x M / B) rather than 6M/B.
 */
START_TEST(tree_pipelined)
{
	run t = coll("specs/hgx-h100.yaml", NULL, "allreduce", "tree", 8, 80 * MIB, NVLINK_ALPHA);
	ck_assert_int_eq(t.res.chunks, 160);
	ck_assert_int_eq(t.res.rounds, 165);
	double step = 1.5 * MIB / 450e9;
	for (size_t i = 0; i < t.res.nround; i++)
		if (t.res.per_round[i].repeat > 1)
			ck_assert_double_eq_tol(t.res.per_round[i].time, NVLINK_ALPHA + step, 1e-12);
	double bound = 3 * 80 * MIB / 450e9;
	ck_assert(t.res.time >= bound + 165 * NVLINK_ALPHA - 1e-12);
	ck_assert(t.res.time <= bound + 165 * NVLINK_ALPHA + 10 * step);
	fx_coll_result_release(&t.res);
}
END_TEST

/* Property: however they are chunked, the trees move each rank's data up
 * every tree edge once and down once: 2 (n - 1) M in all (both halves of
 * the double tree together), and the round count is C + 2D - 1. */
START_TEST(trees_send_everything)
{
	static const int64_t chunks[] = {0, 1, 2, 7, 1000};
	static const int64_t ns[] = {2, 5, 8, 13, 64};
	for (size_t a = 0; a < 2; a++)
		for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++)
			for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
				const char *algo = a ? "dbtree" : "tree";
				run t = coll_chunks("specs/cm384.yaml", NULL, "allreduce", algo, ns[k], 3 * MIB,
						    -1, chunks[i]);
				ck_assert_msg(fabs(t.res.sent_bytes - 2.0 * (double)(ns[k] - 1) * 3 * MIB) <=
					      1e-6 * t.res.sent_bytes, "%s n=%lld chunks=%lld sent %g", algo,
					      (long long)ns[k], (long long)chunks[i], t.res.sent_bytes);
				if (chunks[i] > 0)
					ck_assert_int_eq(t.res.chunks, chunks[i]);
				fx_coll_result_release(&t.res);
			}
}
END_TEST

/* Congestion deficiency of a reduce-scatter on a torus (Swing, NSDI'24,
 * Table 2): the busiest link's bytes summed over the steps, over what a
 * port would carry without congestion (M / ports used: 2D for Swing's 2D
 * collectives, 1 for recursive doubling's one).  tie_plus counts the two
 * ways round at distance d/2 as one path, as the paper does. */
static double xi(const char *dims, const char *algo, double ports)
{
	const char *sets[] = {dims, "packaging.devices_per_node=1", "fabric.link.latency=0ns", NULL};
	fixture fx;
	load_ok(&fx, "specs/torus-8x8x8.yaml", sets);
	int64_t *ranks = malloc((size_t)fx.f.ndev * sizeof *ranks);
	for (int64_t i = 0; i < fx.f.ndev; i++)
		ranks[i] = i;
	fx_coll_req q = {"reduce-scatter", algo, ranks, fx.f.ndev, 4 * MIB, 0};
	fx_coll_time tm = {.alpha = 0, .alpha_replaces_latency = 0, .policy = FX_ROUTE_SPLIT};
	fx_router *r = fx_router_new(&fx.f, 1);
	fx_coll_result res;
	ck_assert_int_eq(fx_coll_run(&fx.f, r, &q, &tm, &res, &fx.d), 0);
	double sum = 0;
	for (size_t i = 0; i < res.nround; i++)
		sum += res.per_round[i].max_link_bytes * (double)res.per_round[i].repeat;
	fx_coll_result_release(&res);
	fx_router_free(r);
	free(ranks);
	fixture_release(&fx);
	return sum / (4 * MIB / ports);
}

/*
 * collectives.md §2: Xi = sum_{s < log2 p} delta(sigma(s)) / 2^(s+1), with
 * sigma(s) = floor(s / D) and delta = |rho| = 1, 1, 3, 5, 11, 21.  64x64
 * (12 steps): 1/2 + 1/4 + 1/8 + 1/16 + 3/32 + 3/64 + 5/128 + 5/256 +
 * 11/512 + 11/1024 + 21/2048 + 21/4096 = 1.184326171875 (paper Table 2
 * prints 1.19); 16^3: 1.033935546875 (Table 2: 1.03; 1.037 as p grows).
 * Recursive doubling, distance 2^sigma: 0.75 (2 - 2^-5) = 1.4765625 on
 * 64x64 and 0.875 (1 + 1/4 + 1/16 + 1/64) = 1.162109375 on 16^3 (1.5 and
 * 1.167 as p grows).  The loads come from routing every step on the torus.
 */
START_TEST(swing_congestion_deficiency)
{
	ck_assert_double_eq_tol(xi("fabric.dims=[64,64]", "swing-torus", 4), 1.184326171875, 1e-12);
	ck_assert_double_eq_tol(xi("fabric.dims=[16,16,16]", "swing-torus", 6), 1.033935546875, 1e-12);
	ck_assert_double_eq_tol(xi("fabric.dims=[64,64]", "rec-torus", 1), 1.4765625, 1e-12);
	ck_assert_double_eq_tol(xi("fabric.dims=[16,16,16]", "rec-torus", 1), 1.162109375, 1e-12);
	/* the 1-D Swing on rank numbers is not the paper's algorithm on a torus */
	ck_assert(xi("fabric.dims=[64,64]", "swing", 4) > 2);
}
END_TEST

/*
 * Swing beats recursive halving-doubling on an 8x8 torus at large sizes
 * (NSDI'24 §6; issue 14 had 1-D Swing behind).  64 MiB allreduce, 50 GB/s,
 * 200 ns per hop: steps s = 0..5 on dimensions 0,1,0,1,0,1 with delta 1,
 * 1, 1, 1, 3, 3; the busiest link carries delta x (M/4) / 2^(s+1) = 8, 4,
 * 2, 1, 1.5, 0.75 MiB: 17.25 MiB per phase, 34.5 MiB in all, / 50 GB/s =
 * 723.52 us, + 2 x (1+1+1+1+3+3) hops x 200 ns = 4 us: 727.52 us.
 */
START_TEST(swing_torus_8x8)
{
	const char *sets[] = {"fabric.dims=[8,8]", "packaging.devices_per_node=1", NULL};
	run sw = coll("specs/torus-8x8x8.yaml", sets, "allreduce", "swing-torus", 0, 64 * MIB, -1);
	run rd = coll("specs/torus-8x8x8.yaml", sets, "allreduce", "rhd", 0, 64 * MIB, -1);
	run rt = coll("specs/torus-8x8x8.yaml", sets, "allreduce", "rec-torus", 0, 64 * MIB, -1);
	ck_assert_double_eq_tol(sw.res.time * 1e6, (34.5 * MIB / 50e9 + 20 * 200e-9) * 1e6, 1e-6);
	ck_assert_double_eq_tol(sw.res.time * 1e6, 727.52, 0.005);
	ck_assert_double_eq_tol(sw.res.sent_bytes, 64 * 2 * 63.0 / 64 * 64 * MIB, 1);
	ck_assert(sw.res.time < rd.res.time / 4);
	ck_assert(sw.res.time < rt.res.time / 4);
	fx_coll_result_release(&sw.res);
	fx_coll_result_release(&rd.res);
	fx_coll_result_release(&rt.res);
	/* the 4x4x4 at 64 MiB: 1-D Swing 2,650 us against a ~444 us
	 * bound; multi-D Swing reaches it */
	sw = coll("specs/tpu-v4-cube.yaml", NULL, "allreduce", "swing-torus", 0, 64 * MIB, -1);
	ck_assert(sw.res.time * 1e6 < 450);
	fx_coll_result_release(&sw.res);
}
END_TEST

/*
 * Latency-optimal Swing against recursive doubling at 32 B on 64x64 (the
 * paper's SST runs: 400 Gb/s links, 100 ns latency + 300 ns per hop, so
 * 400 ns a hop here; it reports Swing 40 us and recursive doubling 57 us).
 * 12 steps, the whole vector each: Swing's peers are delta(sigma) = 1, 1,
 * 1, 1, 3, 3, 5, 5, 11, 11, 21, 21 hops away (84), recursive doubling's
 * 2^sigma (126): 33.6 us against 50.4 us, plus the busiest links' bytes:
 * (delta + 1)/2 messages of 32 B for Swing (48 in all), 2^sigma for RD
 * with the d/2 step split both ways (94): 33.63072 and 50.46016 us.
 */
START_TEST(swing_latency_optimal)
{
	const char *sets[] = {"fabric.dims=[64,64]", "packaging.devices_per_node=1",
			      "fabric.link.latency=400ns", NULL};
	run sw = coll("specs/torus-8x8x8.yaml", sets, "allreduce", "swing-torus-lat", 0, 32, -1);
	run rd = coll("specs/torus-8x8x8.yaml", sets, "allreduce", "rec-torus-lat", 0, 32, -1);
	ck_assert_double_eq_tol(sw.res.time, 84 * 400e-9 + 48 * 32 / 50e9, 1e-15);
	ck_assert_double_eq_tol(rd.res.time, 126 * 400e-9 + 94 * 32 / 50e9, 1e-15);
	ck_assert_double_eq_tol(sw.res.time * 1e6, 33.63072, 1e-6);
	ck_assert_double_eq_tol(rd.res.time * 1e6, 50.46016, 1e-6);
	ck_assert_double_eq_tol(sw.res.sent_bytes, 4096 * 12 * 32.0, 1e-6);
	fx_coll_result_release(&sw.res);
	fx_coll_result_release(&rd.res);
}
END_TEST

/* A collective with nothing to move does nothing and costs nothing, by
 * every algorithm (routing/collective.c nothing_to_move): one rank (the
 * tree and dbtree had cost 2 and 1 overheads of 0.822 us on HGX H100, the
 * ring 0), or 0 bytes (a ring on the 4x4x4 torus cost 0 s where 1 B paid
 * every round's latency).  What an algorithm refuses it still refuses. */
START_TEST(nothing_to_move_costs_nothing)
{
	static const char *const where[] = {"specs/hgx-h100.yaml", "specs/tpu-v4-cube.yaml",
					    "specs/fat-tree-k8.yaml", "specs/wse2.yaml", NULL};
	static const char *const small[] = {"fabric.grid=[8,4]", NULL};
	for (const char *const *sp = where; *sp; sp++) {
		fixture fx;
		load_ok(&fx, *sp, strstr(*sp, "wse2") ? small : NULL);
		int64_t *ranks = malloc((size_t)fx.f.ndev * sizeof *ranks);
		for (int64_t i = 0; i < fx.f.ndev; i++)
			ranks[i] = i;
		fx_coll_time tm = {.alpha = 0.822e-6, .alpha_replaces_latency = 1, .policy = FX_ROUTE_SPLIT};
		fx_router *r = fx_router_new(&fx.f, 0);
		int ran = 0;
		for (const fx_coll_algo *const *a = fx_coll_algos; *a; a++)
			for (int k = 0; k < 2; k++) {
				int64_t n = strstr((*a)->name, "torus") || (*a)->plmr ? fx.f.ndev : 8;
				fx_coll_req q = {(*a)->pattern, (*a)->name, ranks, k ? 1 : n,
						 k ? 1 * MIB : 0, 0};
				fx_diag d;
				fx_diag_init(&d);
				d.out = fopen("/dev/null", "w");
				fx_coll_result res;
				int rc = fx_coll_run(&fx.f, r, &q, &tm, &res, &d);
				fclose(d.out);
				fx_diag_release(&d);
				if (rc == 0) {
					ck_assert_msg(res.time == 0 && res.rounds == 0 && res.sent_bytes == 0,
						      "%s %s/%s, %lld ranks of %g B: %g s, %lld rounds",
						      *sp, (*a)->pattern, (*a)->name, (long long)q.n,
						      q.size, res.time, (long long)res.rounds);
					ran++;
				}
				fx_coll_result_release(&res);
			}
		ck_assert_msg(ran >= 10, "%s: only %d runs", *sp, ran);
		fx_router_free(r);
		free(ranks);
		fixture_release(&fx);
	}
	/* by hand, the repro's numbers: one rank, 0 s; 1 B still pays */
	run t = coll("specs/hgx-h100.yaml", NULL, "allreduce", "tree", 1, 1 * MIB, NVLINK_ALPHA);
	ck_assert_double_eq(t.res.time, 0);
	fx_coll_result_release(&t.res);
	t = coll("specs/tpu-v4-cube.yaml", NULL, "allreduce", "ring", 0, 1, -1);
	ck_assert(t.res.time > 0);
	fx_coll_result_release(&t.res);
}
END_TEST

/* ---- properties on every shipped spec ---- */

static const char *specs[] = {"specs/cm384.yaml", "specs/nvl72.yaml", "specs/hgx-h100.yaml",
			      "specs/dgx-h100-256.yaml", "specs/tpu-v4-cube.yaml",
			      "specs/torus-8x8x8.yaml", "specs/fat-tree-k8.yaml", "specs/wse2.yaml",
			      "specs/switched-64.yaml", "specs/dgx1.yaml"};

/* Every algorithm on every spec: the bytes its rounds send equal what the
 * pattern must move, and in every round the link loads are conserved at
 * every vertex (out - in = sent - received). */
START_TEST(every_algorithm_everywhere)
{
	for (size_t si = 0; si < sizeof specs / sizeof specs[0]; si++) {
		const char *small[] = {"fabric.grid=[8,4]", NULL};
		fixture fx;
		load_ok(&fx, specs[si], strstr(specs[si], "wse2") ? small : NULL);
		const fx_fabric *f = &fx.f;
		fx_router *rt = fx_router_new(f, 0);
		int64_t n = f->ndev > 64 ? 64 : f->ndev;
		int64_t *ranks = malloc((size_t)f->ndev * sizeof *ranks);
		for (int64_t i = 0; i < f->ndev; i++)
			ranks[i] = i;
		double *load = malloc((size_t)(2 * f->ne) * sizeof *load);
		double *net = malloc((size_t)f->nv * sizeof *net);
		for (const fx_coll_algo *const *a = fx_coll_algos; *a; a++) {
			fx_coll_req q = {(*a)->pattern, (*a)->name, ranks, n, 1 * MIB, 0};
			if (strstr((*a)->name, "torus") || (*a)->plmr)
				q.n = f->ndev;  /* these take every device */
			fx_sched s = {0};
			fx_diag d;
			fx_diag_init(&d);
			d.out = fopen("/dev/null", "w");
			int rc = (*a)->gen(f, &q, &s, &d);
			fclose(d.out);
			fx_diag_release(&d);
			if (rc) {  /* only documented preconditions may refuse */
				int ok = strstr((*a)->name, "torus") || (*a)->plmr ||
					 !fx_coll_find((*a)->pattern, (*a)->name)->sent_per_rank ||
					 strcmp((*a)->name, "hier") == 0;
				ck_assert_msg(ok, "%s: %s/%s refused", specs[si], (*a)->pattern, (*a)->name);
				fx_sched_release(&s);
				continue;
			}
			/* the size estimate (the memory check) bounds what gen listed,
			 * and not by so much that it refuses what would fit; shift
			 * rounds are listed one at a time, when routed */
			double listed = 0, shift = 0;  /* rank sets count as their pairs where listed */
			for (size_t i = 0; i < s.n; i++) {
				listed += (double)s.r[i].n;
				if (s.r[i].shift_ranks && (double)s.r[i].shift_n > shift)
					shift = (double)s.r[i].shift_n;
				for (size_t k = 0; k < s.r[i].namong && !fx_route_among_aggregated(f); k++)
					listed += (double)s.r[i].among[k].n * (double)(s.r[i].among[k].n - 1);
			}
			listed += shift;
			double est = (*a)->flows(f, &q);
			ck_assert_msg(listed <= est && est <= 6 * listed + 16, "%s %s/%s lists %g flows, "
				      "estimated %g", specs[si], (*a)->pattern, (*a)->name, listed, est);
			double sent = 0;
			fx_flow *buf = NULL;
			size_t cap = 0;
			for (size_t i = 0; i < s.n; i++) {
				fx_path_stats st;
				size_t nf;
				const fx_flow *flows = fx_round_flows(&s.r[i], &buf, &cap, &nf);
				memset(load, 0, (size_t)(2 * f->ne) * sizeof *load);
				memset(net, 0, (size_t)f->nv * sizeof *net);
				ck_assert_int_eq(fx_router_add(rt, flows, nf, load, &st, &fx.d), 0);
				double round = 0;
				if (s.r[i].all_pairs > 0) {  /* every device sends to every other */
					ck_assert_int_eq(fx_router_add_all_pairs(rt, s.r[i].all_pairs, load, &st,
										 &fx.d), 0);
					round += s.r[i].all_pairs * (double)f->ndev * (double)(f->ndev - 1);
				}
				for (size_t k = 0; k < s.r[i].namong; k++) {  /* a rank set */
					const fx_among *am = &s.r[i].among[k];
					fx_path_stats st2;
					ck_assert_int_eq(fx_router_add_among(rt, am, load, &st2, &fx.d), 0);
					/* distinct ranks each inject and take (n-1) x bytes,
					 * so the links alone must balance at every vertex */
					round += am->bytes * (double)am->n * (double)(am->n - 1);
				}
				for (size_t k = 0; k < nf; k++) {
					const fx_flow *fl = &flows[k];
					round += fl->bytes;
					net[fl->src] -= fl->bytes;  /* injected */
					net[fl->dst] += fl->bytes;  /* delivered */
				}
				for (int64_t l = 0; l < 2 * f->ne; l++) {
					int64_t e = l / 2, from = f->ends[2 * e + (l & 1)], to = f->ends[2 * e + 1 - (l & 1)];
					net[from] += load[l];
					net[to] -= load[l];
				}
				for (int64_t v = 0; v < f->nv; v++)
					ck_assert_msg(fabs(net[v]) <= 1e-6 * (1 + round), "%s %s/%s round %zu: "
						      "vertex %lld unbalanced by %g", specs[si], (*a)->pattern,
						      (*a)->name, i, (long long)v, net[v]);
				sent += round * (double)s.r[i].repeat;
			}
			if ((*a)->sent_per_rank)
				ck_assert_msg(fabs(sent - (*a)->sent_per_rank(&q) * (double)q.n) <= 1e-6 * (1 + sent),
					      "%s %s/%s sends %g, expected %g", specs[si], (*a)->pattern,
					      (*a)->name, sent, (*a)->sent_per_rank(&q) * (double)q.n);
			free(buf);
			fx_sched_release(&s);
		}
		free(load);
		free(net);
		free(ranks);
		fx_router_free(rt);
		fixture_release(&fx);
	}
}
END_TEST

/* The aggregated all-pairs loads (per-dimension line loads on lattices, one
 * destination at a time elsewhere) equal routing the n(n-1) flows one by
 * one. */
START_TEST(all_pairs_equals_flows)
{
	static const struct { const char *spec; const char *set[3]; } cases[] = {
		{"specs/tpu-v4-cube.yaml", {NULL}},
		{"specs/tpu-v4-cube.yaml", {"fabric.dims=[5,3]", "packaging.devices_per_node=1", NULL}},
		{"specs/tpu-v4-cube.yaml", {"fabric.dims=[4,3,2]", "fabric.wrap=[true,false,true]", NULL}},
		{"specs/wse2.yaml", {"fabric.grid=[7,6]", NULL}},
		{"specs/cm384.yaml", {NULL}},
		{"specs/fat-tree-k8.yaml", {NULL}},
		{"specs/dgx1.yaml", {NULL}},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		fixture fx;
		load_ok(&fx, cases[c].spec, cases[c].set[0] ? cases[c].set : NULL);
		const fx_fabric *f = &fx.f;
		size_t nl = (size_t)(2 * f->ne), nf = 0;
		double *a = calloc(nl, sizeof *a), *b = calloc(nl, sizeof *b);
		fx_flow *fl = malloc((size_t)(f->ndev * f->ndev) * sizeof *fl);
		for (int64_t s = 0; s < f->ndev; s++)
			for (int64_t t = 0; t < f->ndev; t++)
				if (s != t)
					fl[nf++] = (fx_flow){s, t, 3.0};
		fx_router *r = fx_router_new(f, 0);
		fx_path_stats sa, sb;
		ck_assert_int_eq(fx_router_add_all_pairs(r, 3.0, a, &sa, &fx.d), 0);
		ck_assert_int_eq(fx_router_add(r, fl, nf, b, &sb, &fx.d), 0);
		for (size_t l = 0; l < nl; l++)
			ck_assert_msg(fabs(a[l] - b[l]) <= 1e-9 * (1 + b[l]), "%s: link %zu: %g vs %g",
				      cases[c].spec, l, a[l], b[l]);
		ck_assert_int_eq(sa.max_hops, sb.max_hops);
		ck_assert_double_eq_tol(sa.max_latency, sb.max_latency, 1e-15);
		fx_router_free(r);
		free(a);
		free(b);
		free(fl);
		fixture_release(&fx);
	}
}
END_TEST

/* A ring allreduce moves 2(n-1)M/n per rank (the chapter, §6.4.2), on any fabric. */
START_TEST(ring_volume)
{
	run r = coll("specs/cm384.yaml", NULL, "allreduce", "ring", 0, 384 * KIB, -1);
	ck_assert_double_eq_tol(r.res.sent_bytes, 384 * 2 * 383.0 / 384 * 384 * KIB, 1e-3);
	fx_coll_result_release(&r.res);
}
END_TEST

/* explore's collectives table shows all-to-all under both ECMP policies
 * and reuses the first run where fx_router_policy_matters says no policy
 * can change the routes: there the two runs agree exactly, figure for
 * figure and link for link; on an even ring the hash policy pins the ties
 * and the loads differ (the predicate is not vacuous). */
static void both_policies(const fx_fabric *f, const char *pattern, const char *algo,
			  fx_coll_result res[2])
{
	int64_t *ranks = malloc((size_t)f->ndev * sizeof *ranks);
	for (int64_t i = 0; i < f->ndev; i++)
		ranks[i] = i;
	fx_coll_req q = {pattern, algo, ranks, f->ndev, 3e6, 0};
	fx_router *r = fx_router_new(f, 0);
	for (int pol = 0; pol < 2; pol++) {
		fx_coll_time tm = {.alpha = 1e-6, .alpha_replaces_latency = 0,
				   .policy = pol ? FX_ROUTE_HASH : FX_ROUTE_SPLIT};
		fx_diag d;
		fx_diag_init(&d);
		ck_assert_int_eq(fx_coll_run(f, r, &q, &tm, &res[pol], &d), 0);
		fx_diag_release(&d);
	}
	fx_router_free(r);
	free(ranks);
}

START_TEST(policy_matters_only_with_ties)
{
	static const struct {
		const char *spec;
		const char *set[3];
		int matters;
	} cases[] = {
		{"specs/wse2.yaml", {"fabric.grid=[9,7]", NULL}, 0},
		{"specs/tpu-v4-cube.yaml", {"fabric.dims=[5,3,7]", "packaging.devices_per_node=1", NULL}, 0},
		{"specs/tpu-v4-cube.yaml", {"fabric.dims=[4,3,2]", "fabric.wrap=[false,true,true]", NULL}, 0},
		{"specs/tpu-v4-cube.yaml", {"fabric.dims=[6,3]", "packaging.devices_per_node=1", NULL}, 1},
		{"specs/fat-tree-k8.yaml", {NULL}, 1},
	};
	static const char *const algos[][2] = {
		{"all-to-all", "direct"}, {"all-to-all", "pairwise"}, {"allreduce", "ring"},
		{"allreduce", "tree"},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		fixture fx;
		load_ok(&fx, cases[c].spec, cases[c].set[0] ? cases[c].set : NULL);
		const fx_fabric *f = &fx.f;
		fx_router *r = fx_router_new(f, 0);
		ck_assert_int_eq(fx_router_policy_matters(r), cases[c].matters);
		fx_router_free(r);
		int differ = 0;
		for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
			fx_coll_result res[2];
			both_policies(f, algos[a][0], algos[a][1], res);
			size_t nl = (size_t)(2 * f->ne);
			int same = res[0].rounds == res[1].rounds && res[0].time == res[1].time &&
				   res[0].busbw == res[1].busbw &&
				   res[0].max_link_bytes == res[1].max_link_bytes &&
				   res[0].total_link_bytes == res[1].total_link_bytes &&
				   res[0].nround == res[1].nround &&
				   memcmp(res[0].link_bytes, res[1].link_bytes, nl * sizeof(double)) == 0 &&
				   memcmp(res[0].link_busy, res[1].link_busy, nl * sizeof(double)) == 0;
			for (size_t i = 0; same && i < res[0].nround; i++)
				same = res[0].per_round[i].max_link_bytes == res[1].per_round[i].max_link_bytes &&
				       res[0].per_round[i].time == res[1].per_round[i].time;
			if (!cases[c].matters)
				ck_assert_msg(same, "%s %s: %s/%s differs between split and hash",
					      cases[c].spec, cases[c].set[0] ? cases[c].set[0] : "",
					      algos[a][0], algos[a][1]);
			differ |= !same;
			fx_coll_result_release(&res[0]);
			fx_coll_result_release(&res[1]);
		}
		if (strstr(cases[c].set[0] ? cases[c].set[0] : "", "[6,3]"))
			ck_assert_msg(differ, "an even ring: the policies should differ somewhere");
		fixture_release(&fx);
	}
}
END_TEST

/* Pairwise all-to-all lists each round when it is routed (shift rounds,
 * fx_sched_shift) instead of holding all n(n-1) flows.  The reference is
 * the old materialised path: fx_coll_run_groups with one group merges the
 * rounds into listed flows (in the generator's order) and routes those,
 * so the two runs differ only in how the flows are held; every figure
 * must be the same bit for bit (one router each): time, rounds, each
 * round's figures, every link's bytes and busy time.  And each shift
 * round's flows are what the old generator listed (fx_sched_flow over
 * i -> (i + k) mod n), byte for byte.  Rank sets: every device, every
 * third device backwards, two ranks, and devices 0,1 repeated (rounds 1
 * and n-1 are then equal, so round_twin.c reuses one: both paths). */
static void pairwise_same(const fx_fabric *f, const int64_t *ranks, int64_t n, double size,
			  const char *what)
{
	fx_coll_req q = {"all-to-all", "pairwise", ranks, n, size, 0};
	fx_coll_time tm = {.alpha = 1e-6, .alpha_replaces_latency = 0, .policy = FX_ROUTE_SPLIT};
	fx_coll_result res[2];
	for (int listed = 0; listed < 2; listed++) {
		fx_router *r = fx_router_new(f, 0);
		fx_diag d;
		fx_diag_init(&d);
		int rc = listed ? fx_coll_run_groups(f, r, &q, 1, &tm, &res[1], &d)
				: fx_coll_run(f, r, &q, &tm, &res[0], &d);
		ck_assert_msg(rc == 0, "%s: %s", what, d.last ? d.last : "");
		fx_diag_release(&d);
		fx_router_free(r);
	}
	fx_coll_result *a = &res[0], *b = &res[1];
	ck_assert_msg(a->nround == b->nround && a->rounds == b->rounds, "%s: rounds", what);
	ck_assert_msg(a->time == b->time, "%s: time %.17g vs %.17g", what, a->time, b->time);
	ck_assert_msg(a->max_link_bytes == b->max_link_bytes && a->total_link_bytes ==
		      b->total_link_bytes && a->sent_bytes == b->sent_bytes && a->algbw == b->algbw &&
		      a->busbw == b->busbw, "%s: totals", what);
	for (size_t i = 0; i < a->nround; i++) {
		const fx_round_result *x = &a->per_round[i], *y = &b->per_round[i];
		ck_assert_msg(x->repeat == y->repeat && strcmp(x->label, y->label) == 0 &&
			      x->max_link_bytes == y->max_link_bytes &&
			      x->total_link_bytes == y->total_link_bytes && x->max_hops == y->max_hops &&
			      x->stages == y->stages && x->latency == y->latency && x->time == y->time,
			      "%s: round %zu", what, i);
	}
	for (int64_t l = 0; l < 2 * f->ne; l++)
		ck_assert_msg(a->link_bytes[l] == b->link_bytes[l] && a->link_busy[l] == b->link_busy[l],
			      "%s: link %lld", what, (long long)l);
	fx_coll_result_release(a);
	fx_coll_result_release(b);
	/* the rounds themselves against the old generator's listing */
	fx_sched s = {0};
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_a2a_pairwise.gen(f, &q, &s, &d), 0);
	fx_diag_release(&d);
	ck_assert_uint_eq(s.n, (size_t)(n > 1 ? n - 1 : 0));
	fx_flow *buf = NULL;
	size_t cap = 0;
	for (int64_t k = 1; k < n; k++) {
		fx_round old = {0};
		for (int64_t i = 0; i < n; i++)
			fx_sched_flow(&old, &q, i, (i + k) % n, size / (double)(n - 1));
		size_t nf;
		const fx_flow *fl = fx_round_flows(&s.r[k - 1], &buf, &cap, &nf);
		ck_assert_msg(s.r[k - 1].n == 0 && s.r[k - 1].shift_ranks, "%s: held", what);
		ck_assert_msg(nf == old.n && (nf == 0 || memcmp(fl, old.flows, nf * sizeof *fl) == 0),
			      "%s: round %lld's flows", what, (long long)k);
		free(old.flows);
	}
	free(buf);
	fx_sched_release(&s);
}

static char *hypercube_text(int dim)
{
	size_t cap = 1 << 16, len = 0;
	char *t = fx_xmalloc(cap);
	len += (size_t)snprintf(t + len, cap - len, "name: hc\nfabric:\n  kind: custom\n"
				"  link: {bandwidth: 50 GB/s, latency: 200 ns}\n  nodes:\n");
	for (int i = 0; i < (1 << dim); i++)
		len += (size_t)snprintf(t + len, cap - len, "    - {name: v%d, type: device}\n", i);
	len += (size_t)snprintf(t + len, cap - len, "  links:\n");
	for (int i = 0; i < (1 << dim); i++)
		for (int b = 0; b < dim; b++)
			if (!(i & (1 << b)))
				len += (size_t)snprintf(t + len, cap - len, "    - {a: v%d, b: v%d}\n",
							i, i | (1 << b));
	return t;
}

START_TEST(pairwise_on_demand_equals_listed)
{
	static const char *const k4[] = {"fabric.k=4", NULL};
	static const char *const t444[] = {"fabric.dims=[4,4,3]", "packaging.devices_per_node=1", NULL};
	static const char *const grid[] = {"fabric.grid=[6,4]", NULL};
	struct {
		const char *spec;
		const char *const *sets;
	} cases[] = {
		{"specs/fat-tree-k8.yaml", k4}, {"specs/fat-tree-k8.yaml", NULL},
		{"specs/torus-8x8x8.yaml", t444}, {"specs/cm384.yaml", NULL},
		{"specs/nvl72.yaml", NULL}, {"specs/switched-64.yaml", NULL},
		{"specs/wse2.yaml", grid}, {"specs/dgx1.yaml", NULL}, {NULL, NULL},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		fixture fx;
		char *text = NULL;
		if (cases[c].spec) {
			load_ok(&fx, cases[c].spec, cases[c].sets);
		} else {  /* a custom graph: the distance table's path */
			text = hypercube_text(5);
			ck_assert_msg(fixture_load(&fx, "hc.yaml", text, NULL) == 0, "%s", fx.msg);
		}
		const fx_fabric *f = &fx.f;
		const char *name = cases[c].spec ? cases[c].spec : "hypercube 2^5";
		int64_t nd = f->ndev, *ranks = fx_xmalloc((size_t)(nd + 8) * sizeof *ranks);
		for (int64_t i = 0; i < nd; i++)
			ranks[i] = i;
		pairwise_same(f, ranks, nd, 32.0 * 1024 * 1024, name);
		int64_t m = 0;
		for (int64_t i = nd - 1; i >= 0; i -= 3)
			ranks[m++] = i;
		pairwise_same(f, ranks, m, 7e6, name);
		pairwise_same(f, ranks, 2, 1e6, name);
		for (int64_t i = 0; i < 6; i++)
			ranks[i] = i % 2;
		pairwise_same(f, ranks, 6, 5e6, name);
		free(ranks);
		free(text);
		fixture_release(&fx);
	}
}
END_TEST

Suite *suite_collective(void)
{
	Suite *s = suite_create("collective");
	TCase *tc = tcase_create("book");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, book_ring_tp);
	tcase_add_test(tc, book_ring_vs_tree);
	tcase_add_test(tc, book_swing_vs_recursive);
	tcase_add_test(tc, book_alltoall_torus_vs_switched);
	tcase_add_test(tc, book_ocs_links);
	tcase_add_test(tc, bus_bandwidth);
	tcase_add_test(tc, torus_dimensionwise);
	tcase_add_test(tc, tree_chunk_rule);
	tcase_add_test(tc, dbtree_pipelined);
	tcase_add_test(tc, tree_pipelined);
	tcase_add_test(tc, trees_send_everything);
	tcase_add_test(tc, swing_congestion_deficiency);
	tcase_add_test(tc, swing_torus_8x8);
	tcase_add_test(tc, swing_latency_optimal);
	suite_add_tcase(s, tc);
	tc = tcase_create("properties");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, every_algorithm_everywhere);
	tcase_add_test(tc, nothing_to_move_costs_nothing);
	tcase_add_test(tc, ring_volume);
	tcase_add_test(tc, all_pairs_equals_flows);
	tcase_add_test(tc, pairwise_on_demand_equals_listed);
	tcase_add_test(tc, policy_matters_only_with_ties);
	suite_add_tcase(s, tc);
	return s;
}
