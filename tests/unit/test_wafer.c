/* Wafer-mesh collectives and GEMM shifts (routing/coll_wafer.c) against
 * WaferLLM's numbers: a Chinese-language write-up of the work ("the
 * write-up") §3.1-3.2 and collectives.md §5 and §6 checks 6-7.  specs/wse2.yaml
 * gives alpha = 1 ns per hop, beta = 20 ns per software routing stage, 24
 * routes per PE, 48 KB per PE and 4.4 GB/s links. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../routing/routing.h"
#include "helpers.h"

#define KIB 1024.0
#define ALPHA 1e-9  /* specs/wse2.yaml hop_latency */
#define BETA 20e-9  /* specs/wse2.yaml routing_latency */

typedef struct wrun {
	fx_coll_result res;
	fx_plmr p;
	int64_t routes;   /* the fabric's routes_per_pe */
	double bw;        /* link bandwidth */
} wrun;

/* Loads specs/wse2.yaml as a W x H grid. */
static void load_grid(fixture *fx, int64_t W, int64_t H)
{
	char grid[64];
	snprintf(grid, sizeof grid, "fabric.grid=[%lld,%lld]", (long long)W, (long long)H);
	const char *sets[] = {grid, NULL};
	load_ok(fx, "specs/wse2.yaml", sets);
}

static int64_t *all_ranks(const fx_fabric *f)
{
	int64_t *r = malloc((size_t)f->ndev * sizeof *r);
	for (int64_t i = 0; i < f->ndev; i++)
		r[i] = i;
	return r;
}

/* Runs pattern/algo on every PE of a W x H wafer, with its PLMR figures;
 * the spec's time model (no overhead, path latency added). */
static wrun wafer(int64_t W, int64_t H, const char *pattern, const char *algo, double size,
		  int64_t chunks)
{
	fixture fx;
	load_grid(&fx, W, H);
	int64_t *ranks = all_ranks(&fx.f);
	fx_coll_req q = {pattern, algo, ranks, fx.f.ndev, size, chunks};
	fx_coll_time tm = {.alpha = 0, .alpha_replaces_latency = 0, .policy = FX_ROUTE_SPLIT};
	fx_router *r = fx_router_new(&fx.f, 0);
	wrun out;
	ck_assert_msg(fx_coll_run(&fx.f, r, &q, &tm, &out.res, &fx.d) == 0, "%s/%s on %lldx%lld failed",
		      pattern, algo, (long long)W, (long long)H);
	const fx_coll_algo *a = fx_coll_find(pattern, algo);
	ck_assert_ptr_nonnull(a->plmr);
	ck_assert_int_eq(a->plmr(&fx.f, &q, &out.p, &fx.d), 0);
	out.routes = fx.f.state.wafer.routes_per_pe;
	out.bw = fx.f.e[0].bw;
	fx_router_free(r);
	free(ranks);
	fixture_release(&fx);
	return out;
}

/* The sum of max_hops over the rounds, repetitions counted once. */
static int64_t round_hops(const fx_coll_result *res)
{
	int64_t h = 0;
	for (size_t i = 0; i < res->nround; i++)
		h += res->per_round[i].max_hops;
	return h;
}

/* ---- gemm-shift: MeshGEMM against Cannon ---- */

/* The write-up §3.1: Cannon's longest path per step is the head-to-tail
 * wrap-around, O(N) = P-1 hops; MeshGEMM "limits the critical path to 2
 * hops"; collectives.md §5: "Critical path per step: MeshGEMM O(alpha), two
 * hops. Cannon O(alpha N), because of the wrap-around".  Both run P
 * identical shift steps (collectives.md §5: "runs P steps of two_hop_comm"). */
START_TEST(meshgemm_two_hops_cannon_p_minus_1)
{
	static const int64_t sides[] = {8, 64};
	for (int i = 0; i < 2; i++) {
		int64_t P = sides[i];
		wrun c = wafer(P, P, "gemm-shift", "cannon", 4 * KIB, 0);
		wrun m = wafer(P, P, "gemm-shift", "meshgemm", 4 * KIB, 0);
		ck_assert_int_eq(c.p.critical_hops, P - 1);
		ck_assert_int_eq(m.p.critical_hops, 2);
		ck_assert_int_eq(c.res.nround, 1);
		ck_assert_int_eq(m.res.nround, 1);
		ck_assert_int_eq(c.res.per_round[0].repeat, P);
		ck_assert_int_eq(m.res.per_round[0].repeat, P);
		ck_assert_int_eq(c.res.per_round[0].max_hops, P - 1);
		ck_assert_int_eq(m.res.per_round[0].max_hops, 2);
		ck_assert_int_eq(c.res.rounds, P);
		/* one software stage per step: latency alpha * hops + beta */
		ck_assert_int_eq(m.p.routing_stages, 1);
		ck_assert_double_eq_tol(m.p.latency, 2 * ALPHA + BETA, 1e-15);
		ck_assert_double_eq_tol(c.p.latency, (double)(P - 1) * ALPHA + BETA, 1e-15);
		/* the shared model: a step costs its slowest path + one 2 KiB tile
		 * over a 4.4 GB/s link + one software stage, for both; Cannon pays
		 * P-1 hops, MeshGEMM 2 */
		double tile = 2 * KIB / m.bw;
		ck_assert_double_eq_tol(m.res.time, (double)P * (2 * ALPHA + tile + BETA), 1e-12);
		ck_assert_double_eq_tol(c.res.time, (double)P * ((double)(P - 1) * ALPHA + tile + BETA), 1e-12);
		fx_coll_result_release(&c.res);
		fx_coll_result_release(&m.res);
	}
}
END_TEST

/* collectives.md §5 INTERLEAVE checks and §6 check 6: "Interleave ring,
 * P=64: max distance 2, total 126 hops, link load 1" (sum of distances 2P-2;
 * every directed link carries exactly one shift).  Also P=6 (§5: "order
 * 0,2,4,5,3,1 and total 10") and an odd P. */
START_TEST(interleave_ring)
{
	static const struct { int64_t P, total; } cases[] = {{64, 126}, {6, 10}, {7, 12}};
	for (int c = 0; c < 3; c++) {
		int64_t P = cases[c].P;
		fixture fx;
		load_grid(&fx, P, P);
		int64_t *ranks = all_ranks(&fx.f);
		fx_coll_req q = {"gemm-shift", "meshgemm", ranks, fx.f.ndev, 4 * KIB, 0};
		fx_sched s = {0};
		ck_assert_int_eq(fx_coll_find("gemm-shift", "meshgemm")->gen(&fx.f, &q, &s, &fx.d), 0);
		ck_assert_int_eq(s.n, 1);
		/* row 0's A shifts: a ring through every PE of the row */
		int64_t total = 0, far = 0, *in = calloc((size_t)P, sizeof *in), *out = calloc((size_t)P, sizeof *out);
		for (size_t k = 0; k < s.r[0].n; k++) {
			const fx_flow *fl = &s.r[0].flows[k];
			if (fl->src >= P || fl->dst >= P)
				continue;
			int64_t h = llabs(fl->dst - fl->src);
			total += h;
			far = h > far ? h : far;
			out[fl->src]++;
			in[fl->dst]++;
		}
		ck_assert_int_eq(total, cases[c].total);
		ck_assert_int_eq(total, 2 * P - 2);
		ck_assert_int_eq(far, 2);
		for (int64_t x = 0; x < P; x++) {
			ck_assert_int_eq(in[x], 1);
			ck_assert_int_eq(out[x], 1);
		}
		if (P == 6) {  /* 0 -> 2 -> 4 -> 5 -> 3 -> 1 -> 0 */
			static const int64_t next6[] = {2, 0, 4, 1, 5, 3};
			for (size_t k = 0; k < s.r[0].n; k++)
				if (s.r[0].flows[k].src < 6 && s.r[0].flows[k].dst < 6)
					ck_assert_int_eq(s.r[0].flows[k].dst, next6[s.r[0].flows[k].src]);
		}
		/* every directed link of the grid carries exactly one tile per step */
		double *load = calloc((size_t)(2 * fx.f.ne), sizeof *load);
		fx_router *r = fx_router_new(&fx.f, 0);
		fx_path_stats st;
		ck_assert_int_eq(fx_router_add(r, s.r[0].flows, s.r[0].n, load, &st, &fx.d), 0);
		for (int64_t l = 0; l < 2 * fx.f.ne; l++)
			ck_assert_double_eq(load[l], 2 * KIB);
		ck_assert_int_eq(st.max_hops, 2);
		fx_router_free(r);
		free(load);
		free(in);
		free(out);
		fx_sched_release(&s);
		free(ranks);
		fixture_release(&fx);
	}
}
END_TEST

/* SUMMA (write-up §3.1 item 2): step k's longest path is max(k, P-1-k)
 * hops, P-1 at worst; mirror steps share a round (coll_wafer.c), which must
 * leave every figure of the P separate steps unchanged: the per-step hops,
 * the time, and each link's total (east link p -> p+1 carries the A tiles
 * of steps k <= p, west link p+1 -> p those of steps k > p). */
START_TEST(summa_steps)
{
	static const int64_t sides[] = {7, 8};
	for (int i = 0; i < 2; i++) {
		int64_t P = sides[i];
		wrun w = wafer(P, P, "gemm-shift", "summa", 4 * KIB, 0);
		double tile = 2 * KIB;
		ck_assert_int_eq(w.res.rounds, P);
		ck_assert_int_eq(w.p.critical_hops, P - 1);
		double want = 0;
		for (int64_t k = 0; k < P; k++)
			want += (double)(k > P - 1 - k ? k : P - 1 - k) * ALPHA + tile / w.bw + BETA;
		ck_assert_double_eq_tol(w.res.time, want, 1e-12);
		int64_t *seen = calloc((size_t)P, sizeof *seen);  /* steps per longest path */
		for (size_t r = 0; r < w.res.nround; r++) {
			ck_assert_double_eq(w.res.per_round[r].max_link_bytes, tile);
			ck_assert_double_eq_tol(w.res.per_round[r].total_link_bytes, 2 * P * (P - 1) * tile, 1e-6);
			seen[w.res.per_round[r].max_hops] += w.res.per_round[r].repeat;
		}
		for (int64_t k = 0; k < P; k++)
			seen[k > P - 1 - k ? k : P - 1 - k]--;
		for (int64_t h = 0; h < P; h++)
			ck_assert_int_eq(seen[h], 0);
		free(seen);
		/* per-link totals along row 0 (devices 0 .. P-1) */
		fixture fx;
		load_grid(&fx, P, P);
		for (int64_t e = 0; e < fx.f.ne; e++) {
			int64_t a = fx.f.ends[2 * e], b = fx.f.ends[2 * e + 1];
			if (b >= P)
				continue;  /* not a row-0 link */
			ck_assert_int_eq(b, a + 1);
			ck_assert_double_eq_tol(w.res.link_bytes[2 * e], (double)(a + 1) * tile, 1e-6);
			ck_assert_double_eq_tol(w.res.link_bytes[2 * e + 1], (double)(P - 1 - a) * tile, 1e-6);
		}
		fixture_release(&fx);
		fx_coll_result_release(&w.res);
	}
}
END_TEST

/* ---- allreduce: the two-way K-tree ---- */

/* collectives.md §6 check 7: (P, G) -> (hops, beta-stages), with g = P/G,
 * root1 = floor(g/2), root2 = floor(G/2) g + root1 (collectives.md §5, from
 * WaferLLM's run_sim.sh and comm_pe.csl two_tree_allreduce_y). */
static const struct { int64_t P, G, hops, stages; } ktree_table[] = {
	{8, 2, 12, 4}, {64, 8, 72, 9}, {360, 18, 380, 20}, {660, 22, 690, 27}, {720, 24, 750, 28},
};

START_TEST(ktree_table_check7)
{
	for (size_t i = 0; i < sizeof ktree_table / sizeof ktree_table[0]; i++) {
		int64_t P = ktree_table[i].P;
		wrun w = wafer(P, 1, "allreduce", "ktree", 4 * KIB, ktree_table[i].G);
		ck_assert_int_eq(w.p.critical_hops, ktree_table[i].hops);
		ck_assert_int_eq(w.p.routing_stages, ktree_table[i].stages);
		ck_assert_double_eq_tol(w.p.latency, (double)ktree_table[i].hops * ALPHA +
				       (double)ktree_table[i].stages * BETA, 1e-15);
		/* the routed phases (reduce in groups, across roots, multicast) have
		 * the same longest paths: their sum is the critical path */
		ck_assert_int_eq(w.res.nround, 3);
		ck_assert_int_eq(round_hops(&w.res), ktree_table[i].hops);
		/* O(K) routes: two chain ends per level plus the multicast at root2
		 * (G = 2 has no group roots right of root2: 4) */
		ck_assert_int_eq(w.p.paths_per_pe, ktree_table[i].G >= 3 ? 2 * 2 + 1 : 4);
		fx_coll_result_release(&w.res);
	}
}
END_TEST

/* WaferLLM's prefill grid (the write-up §4; collectives.md §5: 660 x 660)
 * with the decode config 660/22: every row runs the same tree. */
START_TEST(ktree_660_grid)
{
	wrun w = wafer(660, 660, "allreduce", "ktree", 4 * KIB, 22);
	ck_assert_int_eq(w.p.critical_hops, 690);
	ck_assert_int_eq(w.p.routing_stages, 27);
	ck_assert_int_eq(round_hops(&w.res), 690);
	ck_assert_int_eq(w.res.per_round[0].max_hops, 15);   /* max(r1, g-1-r1), r1 = 15 */
	ck_assert_int_eq(w.res.per_round[1].max_hops, 330);  /* root2 345 - root 15 */
	ck_assert_int_eq(w.res.per_round[2].max_hops, 345);  /* max(r2, P-1-r2) */
	/* each link of a row carries the vector at most once per phase */
	for (size_t r = 0; r < 3; r++)
		ck_assert_double_eq(w.res.per_round[r].max_link_bytes, 4 * KIB);
	fx_coll_result_release(&w.res);
}
END_TEST

/* The write-up §3.2: pipeline and ring allreduce cross O(N) on the critical
 * path; the K-tree's is O(N^(1/K) K) in software stages.  On a 660-PE row:
 *   pipeline: tail to head and back, 2 (P-1) = 1318 hops, P-1 adds + one
 *             multicast = 660 stages, 1318 ns + 13.2 us;
 *   mesh-ring: a block's 2 (P-1) ring edges, two of them the 659-hop wrap:
 *             4P - 6 = 2634 hops, 2 (P-1) = 1318 stages;
 *   ktree, default G (fewest stages, then fewest hops, then nearest
 *             sqrt(660) = 25.7: G = 25, groups of 26-27): 13 + 317 + 330 =
 *             660 hops, 13 + 12 + 1 = 26 stages.
 * The K-tree's hops stay O(N) (about P + g, collectives.md §5), half the
 * pipeline's; its latency is an order of magnitude below both. */
START_TEST(ktree_far_below_pipeline_and_ring)
{
	wrun k = wafer(660, 1, "allreduce", "ktree", 4 * KIB, 0);
	wrun p = wafer(660, 1, "allreduce", "pipeline", 4 * KIB, 0);
	wrun r = wafer(660, 1, "allreduce", "mesh-ring", 4 * KIB, 0);
	ck_assert_int_eq(p.p.critical_hops, 1318);
	ck_assert_int_eq(p.p.routing_stages, 660);
	ck_assert_int_eq(r.p.critical_hops, 2634);
	ck_assert_int_eq(r.p.routing_stages, 1318);
	ck_assert_int_eq(k.p.critical_hops, 660);
	ck_assert_int_eq(k.p.routing_stages, 26);
	ck_assert_double_eq_tol(p.p.latency, 1318 * ALPHA + 660 * BETA, 1e-15);
	ck_assert_double_eq_tol(k.p.latency, 660 * ALPHA + 26 * BETA, 1e-15);
	ck_assert(2 * k.p.critical_hops <= p.p.critical_hops + 2);
	ck_assert(4 * k.p.critical_hops <= r.p.critical_hops + 6);
	ck_assert(10 * k.p.latency < p.p.latency);
	ck_assert(20 * k.p.latency < r.p.latency);
	/* routed: the pipeline's two phases each cross the row (659 hops); the
	 * ring's every step waits for its 659-hop wrap-around */
	ck_assert_int_eq(round_hops(&p.res), 1318);
	ck_assert_int_eq(round_hops(&k.res), 660);
	ck_assert_int_eq(r.res.per_round[0].max_hops, 659);
	ck_assert_int_eq(r.res.rounds, 2 * 659);
	/* the path-latency part of the routed time: the ring's 1318 steps of
	 * 659 hops dwarf both */
	double lat[3] = {0, 0, 0};
	const fx_coll_result *res[3] = {&k.res, &p.res, &r.res};
	for (int i = 0; i < 3; i++)
		for (size_t j = 0; j < res[i]->nround; j++)
			lat[i] += res[i]->per_round[j].latency * (double)res[i]->per_round[j].repeat;
	ck_assert_double_eq_tol(lat[0], 660 * ALPHA, 1e-15);
	ck_assert_double_eq_tol(lat[1], 1318 * ALPHA, 1e-15);
	ck_assert_double_eq_tol(lat[2], 1318.0 * 659 * ALPHA, 1e-12);
	fx_coll_result_release(&k.res);
	fx_coll_result_release(&p.res);
	fx_coll_result_release(&r.res);
}
END_TEST

/* SUMMA past the router table (issue 14): at P = 16 a PE needs 2P = 32
 * multicast paths against the WSE-2's 24 routes, so the multicasts are
 * relayed in software at every PE: step k costs max(k, P-1-k) hops of
 * alpha + beta (PLMR, collectives.md §5: "Allgather/SUMMA O((alpha+beta)
 * N)") plus one tile: sum_k max(k, 15-k) = 2 (8 + ... + 15) = 184, so
 * 184 x 21 ns + 16 x 2 KiB / 4.4 GB/s = 3.864 + 7.447 = 11.311 us.  At
 * P = 8 (16 paths) one stage a step, as before. */
START_TEST(summa_overflow)
{
	wrun w = wafer(16, 16, "gemm-shift", "summa", 4 * KIB, 0);
	ck_assert_int_gt(w.p.paths_per_pe, w.routes);
	ck_assert_int_eq(w.p.routing_stages, 15);
	double want = 184 * (ALPHA + BETA) + 16 * (2 * KIB) / w.bw;
	ck_assert_double_eq_tol(w.res.time, want, 1e-12);
	ck_assert_double_eq_tol(w.res.time * 1e6, 11.311, 0.001);
	fx_coll_result_release(&w.res);
	w = wafer(8, 8, "gemm-shift", "summa", 4 * KIB, 0);
	ck_assert_int_le(w.p.paths_per_pe, w.routes);
	ck_assert_int_eq(w.p.routing_stages, 1);
	fx_coll_result_release(&w.res);
}
END_TEST

/* ---- R: routing paths per PE ---- */

/* The write-up §3.1-3.2: Cannon, MeshGEMM, pipeline and ring need O(1)
 * paths per PE, the K-tree O(K), SUMMA O(N) ("each core creates N
 * communication paths").  Counted as streams starting, ending or passing
 * at a PE (coll_wafer.c): Cannon and MeshGEMM 3 per dimension (receive,
 * send, one passing shift), pipeline 2 (stream + multicast), ring 3, K-tree
 * 2K + 1 = 5, SUMMA one multicast per PE of the row and of the column, 2P. */
START_TEST(paths_per_pe)
{
	static const int64_t sides[] = {8, 64};
	int64_t summa[2];
	for (int i = 0; i < 2; i++) {
		int64_t P = sides[i];
		wrun w;
		w = wafer(P, P, "gemm-shift", "cannon", 4 * KIB, 0);
		ck_assert_int_eq(w.p.paths_per_pe, 6);
		fx_coll_result_release(&w.res);
		w = wafer(P, P, "gemm-shift", "meshgemm", 4 * KIB, 0);
		ck_assert_int_eq(w.p.paths_per_pe, 6);
		fx_coll_result_release(&w.res);
		w = wafer(P, P, "allreduce", "pipeline", 4 * KIB, 0);
		ck_assert_int_eq(w.p.paths_per_pe, 2);
		fx_coll_result_release(&w.res);
		w = wafer(P, P, "allreduce", "mesh-ring", 4 * KIB, 0);
		ck_assert_int_eq(w.p.paths_per_pe, 3);
		fx_coll_result_release(&w.res);
		w = wafer(P, P, "allreduce", "ktree", 4 * KIB, 0);
		ck_assert_int_eq(w.p.paths_per_pe, 5);
		ck_assert(w.p.paths_per_pe <= w.routes);
		fx_coll_result_release(&w.res);
		w = wafer(P, P, "gemm-shift", "summa", 4 * KIB, 0);
		summa[i] = w.p.paths_per_pe;
		ck_assert_int_eq(w.p.paths_per_pe, 2 * P);
		fx_coll_result_release(&w.res);
	}
	/* only SUMMA grows with N, past the WSE-2's 24 routes at P = 64 */
	ck_assert_int_eq(summa[1], 8 * summa[0]);
	ck_assert(summa[0] <= 24 && summa[1] > 24);
}
END_TEST

/* ---- M: memory per PE ---- */

/* coll_wafer.c's accounting: allreduce holds the vector and one receive
 * buffer (the ring's holds one block of size / W).  The write-up §3.1:
 * Cannon and MeshGEMM are memory-optimal, A_sub, B_sub and C_sub (3 tiles
 * of size / 2); SUMMA's memory "is still twice the local sub-matrix": its
 * A_sub and B_sub plus the two tiles broadcast to it, plus C_sub (5
 * tiles), its inputs twice theirs.  The 720 x 720 grid at 4 KiB of the
 * issue (#28 item 7): 10,240 B for SUMMA, 6,144 B for the other two. */
START_TEST(memory_per_pe)
{
	wrun w = wafer(8, 8, "allreduce", "ktree", 4 * KIB, 0);
	ck_assert_double_eq(w.p.memory_per_pe, 8 * KIB);
	fx_coll_result_release(&w.res);
	w = wafer(8, 8, "allreduce", "mesh-ring", 4 * KIB, 0);
	ck_assert_double_eq(w.p.memory_per_pe, 4 * KIB + 512);
	fx_coll_result_release(&w.res);
	w = wafer(8, 8, "gemm-shift", "meshgemm", 4 * KIB, 0);
	ck_assert_double_eq(w.p.memory_per_pe, 6 * KIB);
	fx_coll_result_release(&w.res);
	w = wafer(8, 8, "gemm-shift", "cannon", 4 * KIB, 0);
	ck_assert_double_eq(w.p.memory_per_pe, 6 * KIB);
	fx_coll_result_release(&w.res);
	w = wafer(8, 8, "gemm-shift", "summa", 4 * KIB, 0);
	ck_assert_double_eq(w.p.memory_per_pe, 10 * KIB);
	/* twice the input sub-matrices: (10 - 2) KiB of A and B against (6 - 2) */
	ck_assert_double_eq(w.p.memory_per_pe - 2 * KIB, 2 * (6 * KIB - 2 * KIB));
	fx_coll_result_release(&w.res);
}
END_TEST

/* ---- properties ---- */

static const char *const wafer_algos[][2] = {
	{"allreduce", "pipeline"}, {"allreduce", "mesh-ring"}, {"allreduce", "ktree"},
	{"gemm-shift", "cannon"}, {"gemm-shift", "summa"}, {"gemm-shift", "meshgemm"},
};

/* For every wafer algorithm on small grids: the bytes of its flows equal
 * sent_per_rank x ranks where it is defined (Cannon, MeshGEMM: P steps of
 * both tiles, the write-up §3.1), the ring's 2 (W-1) size / W per rank
 * (collectives.md §1), and the streams' link loads: every link of a row
 * carries the vector once per pipeline phase. */
START_TEST(volumes)
{
	static const int64_t grids[][2] = {{6, 6}, {7, 7}, {8, 5}, {2, 2}, {1, 1}};
	const double size = 3 * KIB;
	for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; gi++) {
		int64_t W = grids[gi][0], H = grids[gi][1];
		fixture fx;
		load_grid(&fx, W, H);
		int64_t *ranks = all_ranks(&fx.f);
		for (size_t ai = 0; ai < sizeof wafer_algos / sizeof wafer_algos[0]; ai++) {
			const fx_coll_algo *a = fx_coll_find(wafer_algos[ai][0], wafer_algos[ai][1]);
			ck_assert_ptr_nonnull(a);
			ck_assert_ptr_nonnull(a->plmr);
			fx_coll_req q = {a->pattern, a->name, ranks, fx.f.ndev, size, 0};
			fx_sched s = {0};
			int square = strcmp(a->pattern, "gemm-shift") == 0;
			FILE *null = fopen("/dev/null", "w");
			FILE *keep = fx.d.out;
			fx.d.out = null;
			int rc = a->gen(&fx.f, &q, &s, &fx.d);
			fx.d.out = keep;
			fclose(null);
			if (square && W != H) {
				ck_assert_int_eq(rc, -1);  /* gemm-shift needs P x P */
				fx_sched_release(&s);
				continue;
			}
			ck_assert_int_eq(rc, 0);
			double sent = 0;
			for (size_t i = 0; i < s.n; i++)
				for (size_t k = 0; k < s.r[i].n; k++) {
					const fx_flow *fl = &s.r[i].flows[k];
					ck_assert(fl->src >= 0 && fl->src < fx.f.ndev);
					ck_assert(fl->dst >= 0 && fl->dst < fx.f.ndev && fl->dst != fl->src);
					sent += fl->bytes * (double)s.r[i].repeat;
				}
			if (a->sent_per_rank)
				ck_assert_msg(fabs(sent - a->sent_per_rank(&q) * (double)q.n) <= 1e-9 * (1 + sent),
					      "%s/%s on %lldx%lld sends %g, expected %g", a->pattern, a->name,
					      (long long)W, (long long)H, sent, a->sent_per_rank(&q) * (double)q.n);
			if (strcmp(a->name, "mesh-ring") == 0)
				ck_assert_double_eq_tol(sent, (double)q.n * 2 * (double)(W - 1) * size / (double)W, 1e-6);
			if (strcmp(a->name, "pipeline") == 0 && W > 1) {
				fx_router *r = fx_router_new(&fx.f, 0);
				double *load = calloc((size_t)(2 * fx.f.ne), sizeof *load);
				fx_path_stats st;
				ck_assert_int_eq(s.n, 2);
				for (size_t i = 0; i < s.n; i++) {
					memset(load, 0, (size_t)(2 * fx.f.ne) * sizeof *load);
					ck_assert_int_eq(fx_router_add(r, s.r[i].flows, s.r[i].n, load, &st, &fx.d), 0);
					double total = 0;
					for (int64_t l = 0; l < 2 * fx.f.ne; l++) {
						ck_assert(load[l] == 0 || load[l] == size);
						total += load[l];
					}
					ck_assert_double_eq(total, (double)(W - 1) * (double)H * size);
				}
				free(load);
				fx_router_free(r);
			}
			fx_sched_release(&s);
		}
		free(ranks);
		fixture_release(&fx);
	}
}
END_TEST

/* Every wafer algorithm refuses what it cannot run, as bad input (exit 2):
 * other fabrics, a subset of the PEs, non-square grids for gemm-shift, more
 * K-tree groups than PEs in a row. */
START_TEST(refusals)
{
	for (size_t ai = 0; ai < sizeof wafer_algos / sizeof wafer_algos[0]; ai++) {
		const fx_coll_algo *a = fx_coll_find(wafer_algos[ai][0], wafer_algos[ai][1]);
		fx_plmr p;
		fx_sched s = {0};
		fixture fx;
		load_ok(&fx, "specs/tpu-v4-cube.yaml", NULL);  /* a torus */
		int64_t *ranks = all_ranks(&fx.f);
		fx_coll_req q = {a->pattern, a->name, ranks, fx.f.ndev, KIB, 0};
		FILE *keep = fx.d.out;
		fx.d.out = fopen("/dev/null", "w");
		ck_assert_int_eq(a->gen(&fx.f, &q, &s, &fx.d), -1);
		ck_assert_int_eq(a->plmr(&fx.f, &q, &p, &fx.d), -1);
		ck_assert_int_eq(fx.d.status, FX_EXIT_INPUT);
		fclose(fx.d.out);
		fx.d.out = keep;
		fx_sched_release(&s);
		free(ranks);
		fixture_release(&fx);

		load_grid(&fx, 6, 6);
		ranks = all_ranks(&fx.f);
		q.ranks = ranks;
		q.n = 12;  /* --ranks 12 */
		keep = fx.d.out;
		fx.d.out = fopen("/dev/null", "w");
		ck_assert_int_eq(a->gen(&fx.f, &q, &s, &fx.d), -1);
		q.n = fx.f.ndev;
		ranks[0] = 1;
		ranks[1] = 0;  /* out of device order */
		ck_assert_int_eq(a->plmr(&fx.f, &q, &p, &fx.d), -1);
		ck_assert_int_eq(fx.d.status, FX_EXIT_INPUT);
		fclose(fx.d.out);
		fx.d.out = keep;
		fx_sched_release(&s);
		free(ranks);
		fixture_release(&fx);
	}
	/* the messages say what to change */
	fixture fx;
	load_grid(&fx, 8, 4);
	int64_t *ranks = all_ranks(&fx.f);
	fx_coll_req q = {"gemm-shift", "meshgemm", ranks, fx.f.ndev, KIB, 0};
	fx_sched s = {0};
	rewind(fx.err);
	ck_assert_int_eq(fx_coll_find("gemm-shift", "meshgemm")->gen(&fx.f, &q, &s, &fx.d), -1);
	q.pattern = "allreduce";
	q.algo = "ktree";
	q.chunks = 9;
	ck_assert_int_eq(fx_coll_find("allreduce", "ktree")->gen(&fx.f, &q, &s, &fx.d), -1);
	fflush(fx.err);
	rewind(fx.err);
	char msg[1024];
	size_t n = fread(msg, 1, sizeof msg - 1, fx.err);
	msg[n] = '\0';
	ck_assert_msg(strstr(msg, "needs a square P x P grid") && strstr(msg, "got 8 x 4"), "%s", msg);
	ck_assert_msg(strstr(msg, "group count G") && strstr(msg, "row length 8, got 9"), "%s", msg);
	fx_sched_release(&s);
	free(ranks);
	fixture_release(&fx);
}
END_TEST

Suite *suite_wafer(void)
{
	Suite *s = suite_create("wafer");
	TCase *tc = tcase_create("waferllm");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, meshgemm_two_hops_cannon_p_minus_1);
	tcase_add_test(tc, interleave_ring);
	tcase_add_test(tc, summa_steps);
	tcase_add_test(tc, summa_overflow);
	tcase_add_test(tc, ktree_table_check7);
	tcase_add_test(tc, ktree_660_grid);
	tcase_add_test(tc, ktree_far_below_pipeline_and_ring);
	tcase_add_test(tc, paths_per_pe);
	tcase_add_test(tc, memory_per_pe);
	suite_add_tcase(s, tc);
	tc = tcase_create("properties");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, volumes);
	tcase_add_test(tc, refusals);
	suite_add_tcase(s, tc);
	return s;
}
