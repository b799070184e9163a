/*
 * Wafer-mesh collectives and GEMM shift patterns after WaferLLM (He et al.,
 * OSDI'25; a Chinese-language write-up of the work, "the write-up"; and
 * collectives.md §5): the allreduces of MeshGEMV's comparison (§3.2:
 * pipeline, ring, two-way K-tree) run along every row of the W x H grid, and
 * the distributed GEMMs of MeshGEMM's comparison (§3.1: Cannon, SUMMA,
 * MeshGEMM) on a P x P grid, each with its PLMR figures.
 *
 * Every algorithm needs a wafer-mesh fabric (2-D, no wrap) with every PE a
 * rank in device order; PE (x, y) is device x + W y, and dimension-order
 * routing takes a flow along its row first, then its column (route.c).
 *
 * How flows stand for the hardware's streams:
 *   - an add-and-forward chain (each PE on the way receives the partial sum,
 *     adds its own vector and sends it on, wavelet by wavelet) is one flow
 *     from the chain's far end to its root: every link of the chain carries
 *     the vector once, and the flow's path latency is the chain's hops;
 *   - a hardware multicast along a line (the router delivers to its PE and
 *     forwards in the same cycle) is one flow from the source to each end of
 *     the line: again every link carries the data once;
 *   - shifts (ring steps, Cannon, MeshGEMM) are plain point-to-point flows.
 * The shared model (collective.c) then charges each round its slowest path
 * and its busiest link; the software routing stages (beta), which it does
 * not model, are in the PLMR figures.
 *
 * PLMR figures (fx_plmr), as the write-up defines them:
 *   paths_per_pe    router table entries (R): a PE needs one for every
 *                   stream that starts, ends or passes through it (a
 *                   multicast counts once); counted by line_paths() from the
 *                   same streams the generators emit
 *   critical_hops   (L) allreduce: the longest dependency chain of the whole
 *                   collective, in hops; gemm-shift: the longest transfer of
 *                   one shift step (the write-up's "critical path length: the
 *                   longest path a sub-matrix travels per step")
 *   routing_stages  software stages on that path: one per add-and-forward
 *                   PE, one per multicast or received shift
 *   memory_per_pe   (M) see mem_* below
 *   latency         alpha * hops + beta * stages (the write-up §3.2: the
 *                   farthest access costs alpha (Nw + Nh) + beta r)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

/* ---------------- grid and checks ---------------- */

typedef struct grid {
	int64_t W, H;
} grid;

static int64_t pe(const grid *g, int64_t x, int64_t y)
{
	return x + g->W * y;
}

/* The grid of a wafer-mesh fabric whose every PE is a rank in device order. */
static int wafer_grid(const fx_fabric *f, const fx_coll_req *q, const char *algo, grid *g,
		      fx_diag *d)
{
	if (!fx_fabric_is(f, FX_KIND_WAFER))
		return fx_diag_error(d, NULL, "%s/%s runs on a wafer-mesh fabric (a 2-D grid of PEs), "
				     "not on a %s fabric", q->pattern, algo,
				     f->builder ? f->builder->kind : "unknown");
	if (f->ndims != 2)
		return fx_diag_error(d, NULL, "%s/%s needs a 2-D wafer grid, got %d dimensions",
				     q->pattern, algo, f->ndims);
	if (q->n != f->ndev)
		return fx_diag_error(d, NULL, "%s/%s needs every PE as a rank (%lld ranks of %lld PEs); "
				     "leave out --ranks and --group", q->pattern, algo,
				     (long long)q->n, (long long)f->ndev);
	for (int64_t i = 0; i < q->n; i++)
		if (q->ranks[i] != i)
			return fx_diag_error(d, NULL, "%s/%s needs the ranks in device order (rank %lld "
					     "is device %lld)", q->pattern, algo, (long long)i,
					     (long long)q->ranks[i]);
	g->W = f->dims[0];
	g->H = f->dims[1];
	return 0;
}

/* gemm-shift multiplies P x P tiles on a P x P grid. */
static int square_grid(const fx_fabric *f, const fx_coll_req *q, const char *algo, grid *g,
		       fx_diag *d)
{
	if (wafer_grid(f, q, algo, g, d))
		return -1;
	if (g->W != g->H)
		return fx_diag_error(d, NULL, "%s/%s needs a square P x P grid (one tile of A and B "
				     "per PE), got %lld x %lld; set fabric.grid=[P,P]", q->pattern,
				     algo, (long long)g->W, (long long)g->H);
	return 0;
}

/* ---------------- PLMR helpers ---------------- */

/* The most streams touching one PE of a line of n PEs, each stream covering
 * the PEs between its ends iv[2k] and iv[2k+1] (inclusive). */
static int64_t line_paths(int64_t n, const int64_t *iv, size_t m)
{
	if (n < 1)
		return 0;
	int64_t *diff = fx_xcalloc((size_t)n + 1, sizeof *diff), run = 0, most = 0;
	for (size_t k = 0; k < m; k++) {
		int64_t a = iv[2 * k], b = iv[2 * k + 1];
		if (a > b) {
			int64_t t = a;
			a = b;
			b = t;
		}
		diff[a]++;
		diff[b + 1]--;
	}
	for (int64_t i = 0; i < n; i++) {
		run += diff[i];
		if (run > most)
			most = run;
	}
	free(diff);
	return most;
}

/* A growable list of intervals. */
typedef struct ivl {
	int64_t *v;
	size_t n, cap;
} ivl;

static void ivl_add(ivl *l, int64_t a, int64_t b)
{
	l->v = fx_xgrow(l->v, &l->cap, 2 * l->n + 2, sizeof *l->v);
	l->v[2 * l->n] = a;
	l->v[2 * l->n + 1] = b;
	l->n++;
}

static int64_t ivl_paths(ivl *l, int64_t n)
{
	int64_t p = line_paths(n, l->v, l->n);
	free(l->v);
	memset(l, 0, sizeof *l);
	return p;
}

static void plmr_finish(const fx_fabric *f, fx_plmr *out)
{
	double alpha = f->ne ? f->e[0].lat : 0;
	out->latency = alpha * (double)out->critical_hops +
		       fx_fabric_wafer(f)->routing_latency * (double)out->routing_stages;
}

/*
 * Memory per PE (M).  Sources:
 *   gemm-shift: the write-up §3.1.  Cannon and MeshGEMM are memory-optimal
 *     ("optimal O(1/N^2) memory"): a PE holds its local sub-matrices A_sub,
 *     B_sub and C_sub and nothing else, the tile shifted in taking the
 *     place of the one shifted out (the mesh streams it through the
 *     router).  SUMMA's memory "is still twice the local sub-matrix size":
 *     beside its own A_sub and B_sub it holds the A column tile and the B
 *     row tile broadcast to it in the step, twice the input sub-matrices,
 *     plus C_sub.  size is one A tile plus one B tile; square matrices
 *     split P x P make every tile (A, B and C) size / 2, so Cannon and
 *     MeshGEMM hold 3 tiles = 1.5 x size and SUMMA 5 tiles = 2.5 x size
 *     (its inputs 2 x size against their size).  (The allgather-based
 *     GEMM's O(1/N) buffers are not modelled.)
 *   allreduce: the write-up gives no count; each PE holds its vector plus
 *     one receive buffer for what one transfer brings: a partial sum of the
 *     whole vector for pipeline and K-tree (2 x size), one block of size / W
 *     for the ring (size + size / W).
 */
static double mem_vector(const fx_coll_req *q)
{
	return 2 * q->size;
}

static double mem_gemm(const fx_coll_req *q, const char *algo)
{
	double tiles = strcmp(algo, "summa") == 0 ? 5 : 3;
	return tiles * (q->size / 2);
}

/* ---------------- allreduce/pipeline ---------------- */

/*
 * The pipeline allreduce of TPU systems and Cerebras (write-up §3.2 item 1),
 * along every row: the partial sum streams from the tail PE (x = W-1) to the
 * head (x = 0), each PE adding its vector as it passes, then the head
 * multicasts the result back along the row.  Critical path: tail to head
 * and back, 2 (W-1) hops; W-1 add-and-forward stages plus the multicast.
 */
static int ar_pipeline(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	grid g;
	if (wafer_grid(f, q, "pipeline", &g, d))
		return -1;
	if (g.W < 2)
		return 0;
	fx_round *r = fx_sched_round(s, 1, "reduce tail->head");
	r->stages = g.W - 1;  /* every PE on the way adds and forwards */
	for (int64_t y = 0; y < g.H; y++)
		fx_sched_flow(r, q, pe(&g, g.W - 1, y), pe(&g, 0, y), q->size);
	r = fx_sched_round(s, 1, "multicast head->tail");
	r->stages = 1;
	for (int64_t y = 0; y < g.H; y++)
		fx_sched_flow(r, q, pe(&g, 0, y), pe(&g, g.W - 1, y), q->size);
	return 0;
}

static int plmr_pipeline(const fx_fabric *f, const fx_coll_req *q, fx_plmr *out, fx_diag *d)
{
	grid g;
	memset(out, 0, sizeof *out);
	if (wafer_grid(f, q, "pipeline", &g, d))
		return -1;
	out->memory_per_pe = mem_vector(q);
	if (g.W >= 2) {
		ivl l = {0};
		ivl_add(&l, g.W - 1, 0);  /* the reduce stream */
		ivl_add(&l, 0, g.W - 1);  /* the multicast */
		out->paths_per_pe = ivl_paths(&l, g.W);
		out->critical_hops = 2 * (g.W - 1);
		out->routing_stages = (g.W - 1) + 1;
	}
	plmr_finish(f, out);
	return 0;
}

/* ---------------- allreduce/mesh-ring ---------------- */

/*
 * Ring allreduce (write-up §3.2 item 2) along every row, the logical ring in
 * x order: W-1 reduce-scatter steps and W-1 all-gather steps of size / W to
 * the next PE; the wrap-around W-1 -> 0 crosses the whole row on a mesh.
 * Critical path: a block's journey, 2 (W-1) ring edges of which at most two
 * are the wrap: 2 (W-1) + 2 (W-2) = 4W - 6 hops, one stage per step (PEs
 * run when their data arrives).  The routed rounds are step-synchronous
 * instead: each of the 2 (W-1) steps waits for its W-1 hop wrap-around.
 */
static int ar_mesh_ring(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	grid g;
	if (wafer_grid(f, q, "mesh-ring", &g, d))
		return -1;
	if (g.W < 2)
		return 0;
	for (int ph = 0; ph < 2; ph++) {
		fx_round *r = fx_sched_round(s, g.W - 1, ph ? "all-gather" : "reduce-scatter");
		r->stages = 1;  /* each ring step is received and resent in software */
		for (int64_t y = 0; y < g.H; y++)
			for (int64_t x = 0; x < g.W; x++)
				fx_sched_flow(r, q, pe(&g, x, y), pe(&g, (x + 1) % g.W, y),
					      q->size / (double)g.W);
	}
	return 0;
}

static int plmr_mesh_ring(const fx_fabric *f, const fx_coll_req *q, fx_plmr *out, fx_diag *d)
{
	grid g;
	memset(out, 0, sizeof *out);
	if (wafer_grid(f, q, "mesh-ring", &g, d))
		return -1;
	out->memory_per_pe = q->size + q->size / (double)g.W;
	if (g.W >= 2) {
		ivl l = {0};
		for (int64_t x = 0; x + 1 < g.W; x++)
			ivl_add(&l, x, x + 1);
		ivl_add(&l, g.W - 1, 0);  /* the wrap-around */
		out->paths_per_pe = ivl_paths(&l, g.W);
		out->critical_hops = 4 * g.W - 6;
		out->routing_stages = 2 * (g.W - 1);
	}
	plmr_finish(f, out);
	return 0;
}

/* ---------------- allreduce/ktree ---------------- */

/*
 * MeshGEMV's two-way K-tree allreduce with K = 2 (write-up §3.2 item 3;
 * collectives.md §5 from comm_pe.csl two_tree_allreduce_y), along every row
 * of P = W PEs cut into G groups of consecutive PEs.  WaferLLM takes
 * g = P / G; here group j is [floor(j P / G), floor((j+1) P / G)), which is
 * that whenever G divides P and sizes differ by at most one otherwise (the
 * WSE-2's 757 columns are prime).  Group j's root is its start plus
 * floor(size / 2) (root1 = floor(g/2)); root2 is the root of group
 * floor(G / 2) (root2 = floor(G/2) g + root1).
 *   phase 1: inside each group, chains from both ends add-and-forward
 *            toward the root;
 *   phase 2: group roots add-and-forward toward root2 from both sides;
 *   phase 3: root2 multicasts the sum along the row.
 */
typedef struct ktree {
	int64_t P, G;
	int64_t hops[3], stages[3];
} ktree;

static int64_t kt_start(int64_t P, int64_t G, int64_t j)
{
	return j * P / G;
}

static int64_t kt_root(int64_t P, int64_t G, int64_t j)
{
	int64_t a = kt_start(P, G, j), b = kt_start(P, G, j + 1);
	return a + (b - a) / 2;
}

/* Hops and stages of each phase (collectives.md §5: hops = max(r1, g-1-r1)
 * + the farthest group root from root2 + max(r2, P-1-r2); stages =
 * floor(g/2) + ceil((G-1)/2) + 1). */
static void kt_figures(int64_t P, int64_t G, ktree *k)
{
	memset(k, 0, sizeof *k);
	k->P = P;
	k->G = G;
	if (P < 2)
		return;
	int64_t big = (P + G - 1) / G;  /* the largest group */
	k->hops[0] = k->stages[0] = big / 2;
	int64_t r2 = kt_root(P, G, G / 2), first = kt_root(P, G, 0), last = kt_root(P, G, G - 1);
	k->hops[1] = r2 - first > last - r2 ? r2 - first : last - r2;
	k->stages[1] = G / 2;  /* group roots on the longer side: floor(G/2) = ceil((G-1)/2) */
	k->hops[2] = r2 > P - 1 - r2 ? r2 : P - 1 - r2;
	k->stages[2] = 1;
}

static int64_t kt_total(const int64_t *v)
{
	return v[0] + v[1] + v[2];
}

/* The default group count: fewest stages, then fewest hops, then nearest
 * sqrt(P) (the stages floor(g/2) + floor(G/2) + 1 are least near G = sqrt P). */
static int64_t kt_default_groups(int64_t P)
{
	int64_t best = 1;
	ktree bk, k;
	kt_figures(P, 1, &bk);
	double root = sqrt((double)P);
	for (int64_t G = 2; G <= P; G++) {
		kt_figures(P, G, &k);
		int64_t s = kt_total(k.stages), bs = kt_total(bk.stages);
		int64_t h = kt_total(k.hops), bh = kt_total(bk.hops);
		if (s < bs || (s == bs && (h < bh || (h == bh && fabs((double)G - root) <
								  fabs((double)best - root))))) {
			best = G;
			bk = k;
		}
	}
	return best;
}

static int kt_groups(const grid *g, const fx_coll_req *q, int64_t *G, fx_diag *d)
{
	if (q->chunks > g->W)
		return fx_diag_error(d, NULL, "allreduce/ktree: --chunks sets the group count G, which "
				     "must be at most the row length %lld, got %lld", (long long)g->W,
				     (long long)q->chunks);
	*G = q->chunks > 0 ? q->chunks : kt_default_groups(g->W);
	return 0;
}

static int ar_ktree(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	grid g;
	int64_t G = 1;
	if (wafer_grid(f, q, "ktree", &g, d) || kt_groups(&g, q, &G, d))
		return -1;
	int64_t P = g.W;
	if (P < 2)
		return 0;
	fx_round *r = NULL;
	ktree kf;
	kt_figures(P, G, &kf);
	for (int64_t j = 0; j < G; j++) {
		int64_t a = kt_start(P, G, j), b = kt_start(P, G, j + 1) - 1, rt = kt_root(P, G, j);
		if (rt == a && rt == b)
			continue;
		if (!r) {
			r = fx_sched_round(s, 1, "reduce in groups");
			r->stages = kf.stages[0];
		}
		for (int64_t y = 0; y < g.H; y++) {
			fx_sched_flow(r, q, pe(&g, a, y), pe(&g, rt, y), q->size);
			fx_sched_flow(r, q, pe(&g, b, y), pe(&g, rt, y), q->size);
		}
	}
	int64_t r2 = kt_root(P, G, G / 2), first = kt_root(P, G, 0), last = kt_root(P, G, G - 1);
	if (G > 1) {
		r = fx_sched_round(s, 1, "reduce group roots");
		r->stages = kf.stages[1];
		for (int64_t y = 0; y < g.H; y++) {
			fx_sched_flow(r, q, pe(&g, first, y), pe(&g, r2, y), q->size);
			fx_sched_flow(r, q, pe(&g, last, y), pe(&g, r2, y), q->size);
		}
	}
	r = fx_sched_round(s, 1, "multicast from root2");
	r->stages = kf.stages[2];
	for (int64_t y = 0; y < g.H; y++) {
		fx_sched_flow(r, q, pe(&g, r2, y), pe(&g, 0, y), q->size);
		fx_sched_flow(r, q, pe(&g, r2, y), pe(&g, P - 1, y), q->size);
	}
	return 0;
}

static int plmr_ktree(const fx_fabric *f, const fx_coll_req *q, fx_plmr *out, fx_diag *d)
{
	grid g;
	int64_t G = 1;
	memset(out, 0, sizeof *out);
	if (wafer_grid(f, q, "ktree", &g, d) || kt_groups(&g, q, &G, d))
		return -1;
	int64_t P = g.W;
	out->memory_per_pe = mem_vector(q);
	if (P >= 2) {
		ktree k;
		kt_figures(P, G, &k);
		out->critical_hops = kt_total(k.hops);
		out->routing_stages = kt_total(k.stages);
		ivl l = {0};
		for (int64_t j = 0; j < G; j++) {
			int64_t a = kt_start(P, G, j), b = kt_start(P, G, j + 1) - 1, rt = kt_root(P, G, j);
			if (a < rt)
				ivl_add(&l, a, rt);
			if (b > rt)
				ivl_add(&l, b, rt);
		}
		int64_t r2 = kt_root(P, G, G / 2), first = kt_root(P, G, 0), last = kt_root(P, G, G - 1);
		if (first < r2)
			ivl_add(&l, first, r2);
		if (last > r2)
			ivl_add(&l, last, r2);
		ivl_add(&l, 0, P - 1);  /* the multicast */
		out->paths_per_pe = ivl_paths(&l, P);
	}
	plmr_finish(f, out);
	return 0;
}

/* ---------------- gemm-shift ---------------- */

/* P of a P x P grid from the rank count. */
static int64_t side_of(int64_t n)
{
	int64_t p = (int64_t)llround(sqrt((double)n));
	while (p * p > n)
		p--;
	while ((p + 1) * (p + 1) <= n)
		p++;
	return p;
}

/* MeshGEMM's INTERLEAVE ring (collectives.md §5, from comm_layout.csl):
 * 0 -> 2 -> 4 -> ... -> last even -> last odd -> ... -> 3 -> 1 -> 0;
 * next[x] is the PE x sends to. */
static void interleave(int64_t P, int64_t *next)
{
	int64_t k = 0, *order = fx_xmalloc((size_t)P * sizeof *order);
	for (int64_t x = 0; x < P; x += 2)
		order[k++] = x;
	for (int64_t x = (P % 2 == 0) ? P - 1 : P - 2; x >= 1; x -= 2)
		order[k++] = x;
	for (int64_t i = 0; i < P; i++)
		next[order[i]] = order[(i + 1) % P];
	free(order);
}

/* One shift step: every PE sends its A tile to next[x] along its row and
 * its B tile to next[y] along its column. */
static void shift_round(fx_sched *s, const fx_coll_req *q, const grid *g, const int64_t *next,
			int64_t steps, const char *label)
{
	fx_round *r = fx_sched_round(s, steps, label);
	r->stages = 1;
	double tile = q->size / 2;
	for (int64_t y = 0; y < g->H; y++)
		for (int64_t x = 0; x < g->W; x++) {
			fx_sched_flow(r, q, pe(g, x, y), pe(g, next[x], y), tile);
			fx_sched_flow(r, q, pe(g, x, y), pe(g, x, next[y]), tile);
		}
}

/*
 * Cannon (write-up §3.1 item 3): P steps, each shifting A one PE left along
 * its row and B one PE up its column; the wrap-around (x = 0 to x = P-1)
 * crosses P-1 hops on a mesh.  The initial skew is a one-off permutation
 * (WaferLLM's host pre-permutes tiles, launch_sim.py assignId) and is left
 * out, as the per-step comparison of §3.1 leaves it out.
 */
static int gemm_cannon(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	grid g;
	if (square_grid(f, q, "cannon", &g, d))
		return -1;
	int64_t P = g.W, *next = fx_xmalloc((size_t)P * sizeof *next);
	for (int64_t x = 0; x < P; x++)
		next[x] = (x + P - 1) % P;
	if (P > 1)
		shift_round(s, q, &g, next, P, "shift");
	free(next);
	return 0;
}

/* MeshGEMM (write-up §3.1 item 4): Cannon's P shift steps on the
 * INTERLEAVE ring in both dimensions, so that every shift is at most two
 * hops (collectives.md §5; "runs P steps of two_hop_comm"). */
static int gemm_meshgemm(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	grid g;
	if (square_grid(f, q, "meshgemm", &g, d))
		return -1;
	int64_t P = g.W, *next = fx_xmalloc((size_t)P * sizeof *next);
	interleave(P, next);
	if (P > 1)
		shift_round(s, q, &g, next, P, "two-hop shift");
	free(next);
	return 0;
}

/*
 * SUMMA (write-up §3.1 item 2, Cerebras's default): in step k the PEs of
 * column k multicast their A tiles along their rows and the PEs of row k
 * their B tiles along their columns; the step's longest path is max(k,
 * P-1-k) hops.  Steps k and P-1-k are mirror images with the same longest
 * path, busiest link (one tile) and link total, so for 0 < k < P-1-k they
 * share one round, repeated twice, each carrying half of both steps: every
 * per-round figure and every link's total over the GEMM stays that of the
 * P separate steps, in half the rounds (660 x 660 routes 331, not 660).
 */
/* Past the router table (2P multicast paths per PE against routes_per_pe)
 * the multicasts are relayed in software at every PE on the way: each hop
 * is then a software stage (PLMR: O((alpha + beta) N) a step, collectives.md
 * §5); within it one stage, the receiving PE's. */
static int64_t summa_stages(const fx_fabric *f, const grid *g, int64_t k)
{
	int64_t P = g->W, far = k > P - 1 - k ? k : P - 1 - k;
	return 2 * P > fx_fabric_wafer(f)->routes_per_pe && far > 1 ? far : 1;
}

static void summa_step(fx_round *r, const fx_fabric *f, const fx_coll_req *q, const grid *g,
		       int64_t k, double bytes)
{
	int64_t P = g->W;
	r->stages = summa_stages(f, g, k);
	for (int64_t y = 0; y < P; y++) {  /* A: column k along the rows */
		fx_sched_flow(r, q, pe(g, k, y), pe(g, 0, y), bytes);
		fx_sched_flow(r, q, pe(g, k, y), pe(g, P - 1, y), bytes);
	}
	for (int64_t x = 0; x < P; x++) {  /* B: row k along the columns */
		fx_sched_flow(r, q, pe(g, x, k), pe(g, x, 0), bytes);
		fx_sched_flow(r, q, pe(g, x, k), pe(g, x, P - 1), bytes);
	}
}

static int gemm_summa(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	grid g;
	if (square_grid(f, q, "summa", &g, d))
		return -1;
	int64_t P = g.W;
	double tile = q->size / 2;
	if (P < 2)
		return 0;
	summa_step(fx_sched_round(s, 1, "broadcast"), f, q, &g, 0, tile);
	for (int64_t k = 1; k < P - 1 - k; k++) {
		fx_round *r = fx_sched_round(s, 2, "broadcast (mirror pair)");
		summa_step(r, f, q, &g, k, tile / 2);
		summa_step(r, f, q, &g, P - 1 - k, tile / 2);
	}
	if (P % 2 == 1 && P > 2)
		summa_step(fx_sched_round(s, 1, "broadcast"), f, q, &g, P / 2, tile);
	summa_step(fx_sched_round(s, 1, "broadcast"), f, q, &g, P - 1, tile);
	return 0;
}

/* PLMR of the three: per shift step (the write-up §3.1 compares GEMMs by
 * the longest path of one step); one software stage per step, the
 * receiving PE's (shifts and multicasts are forwarded in hardware). */
static int plmr_gemm(const fx_fabric *f, const fx_coll_req *q, fx_plmr *out, fx_diag *d,
		     const char *algo)
{
	grid g;
	memset(out, 0, sizeof *out);
	if (square_grid(f, q, algo, &g, d))
		return -1;
	int64_t P = g.W;
	out->memory_per_pe = mem_gemm(q, algo);
	if (P >= 2) {
		ivl l = {0};
		if (strcmp(algo, "summa") == 0) {
			for (int64_t k = 0; k < P; k++)
				ivl_add(&l, 0, P - 1);  /* one multicast from each PE of the line */
			out->critical_hops = P - 1;
		} else {
			int64_t *next = fx_xmalloc((size_t)P * sizeof *next), far = 0;
			if (strcmp(algo, "meshgemm") == 0)
				interleave(P, next);
			else
				for (int64_t x = 0; x < P; x++)
					next[x] = (x + P - 1) % P;
			for (int64_t x = 0; x < P; x++) {
				int64_t h = llabs(next[x] - x);
				ivl_add(&l, x, next[x]);
				if (h > far)
					far = h;
			}
			free(next);
			out->critical_hops = far;
		}
		/* rows and columns alike: the busiest PE's row plus its column */
		out->paths_per_pe = 2 * ivl_paths(&l, P);
		out->routing_stages = strcmp(algo, "summa") == 0 ? summa_stages(f, &g, 0) : 1;
	}
	plmr_finish(f, out);
	return 0;
}

static int plmr_cannon(const fx_fabric *f, const fx_coll_req *q, fx_plmr *out, fx_diag *d)
{
	return plmr_gemm(f, q, out, d, "cannon");
}

static int plmr_meshgemm(const fx_fabric *f, const fx_coll_req *q, fx_plmr *out, fx_diag *d)
{
	return plmr_gemm(f, q, out, d, "meshgemm");
}

static int plmr_summa(const fx_fabric *f, const fx_coll_req *q, fx_plmr *out, fx_diag *d)
{
	return plmr_gemm(f, q, out, d, "summa");
}

/* mesh-ring sends 2 (W-1) size / W per rank, but the row length W is not
 * in the request, so its sent_per_rank is NULL like the others whose ranks
 * send unequal amounts.  Cannon and MeshGEMM: every PE sends its A and B tiles in each of the P
 * steps (none when P = 1). */
static double sent_shift(const fx_coll_req *q)
{
	int64_t P = side_of(q->n);
	return P > 1 ? (double)P * q->size : 0;
}

/* SUMMA lists 4P flows per round over about P/2 + 2 rounds; the other wafer
 * algorithms list O(H) or two flows per PE (fx_flows_2n, fx_flows_6n). */
static double flows_summa(const fx_fabric *f, const fx_coll_req *q)
{
	(void)f;
	double P = ceil(sqrt((double)q->n));
	return 4.0 * P * (P / 2 + 2);
}

const fx_coll_algo fx_ar_pipeline = {
	.pattern = "allreduce",
	.name = "pipeline",
	.summary = "wafer rows: add-and-forward stream tail->head, multicast back (WaferLLM §3.2)",
	.gen = ar_pipeline,
	.plmr = plmr_pipeline,
	.flows = fx_flows_2n,
};
const fx_coll_algo fx_ar_mesh_ring = {
	.pattern = "allreduce",
	.name = "mesh-ring",
	.summary = "wafer rows: ring reduce-scatter + all-gather in x order, wrap across the row",
	.gen = ar_mesh_ring,
	.plmr = plmr_mesh_ring,
	.flows = fx_flows_2n,
};
const fx_coll_algo fx_ar_ktree = {
	.pattern = "allreduce",
	.name = "ktree",
	.summary = "wafer rows: MeshGEMV two-way 2-tree, G groups (--chunks G; default ~sqrt W)",
	.gen = ar_ktree,
	.plmr = plmr_ktree,
	.flows = fx_flows_6n,
};
const fx_coll_algo fx_gemm_cannon = {
	.pattern = "gemm-shift",
	.name = "cannon",
	.summary = "P x P grid: P steps shifting A left and B up, wrap-around P-1 hops",
	.gen = gemm_cannon,
	.sent_per_rank = sent_shift,
	.plmr = plmr_cannon,
	.flows = fx_flows_2n,
};
const fx_coll_algo fx_gemm_summa = {
	.pattern = "gemm-shift",
	.name = "summa",
	.summary = "P x P grid: P steps multicasting an A column along rows, a B row along columns",
	.gen = gemm_summa,
	.plmr = plmr_summa,
	.flows = flows_summa,
};
const fx_coll_algo fx_gemm_meshgemm = {
	.pattern = "gemm-shift",
	.name = "meshgemm",
	.summary = "P x P grid: Cannon's shifts on the INTERLEAVE ring, at most 2 hops (WaferLLM §3.1)",
	.gen = gemm_meshgemm,
	.sent_per_rank = sent_shift,
	.plmr = plmr_meshgemm,
	.flows = fx_flows_2n,
};
