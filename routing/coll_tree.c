/*
 * Trees and chains: binomial-tree allreduce (the chapter "Supernodes", Eq. 6-10: 2 log2 n rounds,
 * each passing the whole tensor), binomial broadcast and reduce, pipelined
 * chains, and NCCL-style double binary trees.
 *
 * The allreduce trees are pipelined as NCCL runs them: the data is cut into
 * chunks, a chunk climbs the tree edge by edge (a vertex sends it up once
 * all its children have) and comes down again, the next chunk one step
 * behind, so the up and down directions of every tree edge are busy at
 * once.  One chunk (--chunks 1) is the chapter's unpipelined tree.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

/* Binomial reduce towards rank 0: in round s, ranks at odd multiples of
 * 2^s send everything they hold to the rank 2^s below. */
static void binomial_reduce(fx_sched *s, const fx_coll_req *q, double bytes)
{
	for (int64_t step = 1; step < q->n; step *= 2) {
		fx_round *r = fx_sched_round(s, 1, "reduce");
		fx_sched_reserve(r, (size_t)((q->n - step + 2 * step - 1) / (2 * step)));
		for (int64_t i = step; i < q->n; i += 2 * step)
			fx_sched_flow(r, q, i, i - step, bytes);
	}
}

/* Binomial broadcast from rank 0, the reduce run backwards. */
static void binomial_bcast(fx_sched *s, const fx_coll_req *q, double bytes)
{
	int64_t top = 1;
	while (top < q->n)
		top *= 2;
	for (int64_t step = top / 2; step >= 1; step /= 2) {
		fx_round *r = fx_sched_round(s, 1, "broadcast");
		fx_sched_reserve(r, (size_t)((q->n - step + 2 * step - 1) / (2 * step)));
		for (int64_t i = 0; i + step < q->n; i += 2 * step)
			fx_sched_flow(r, q, i, i + step, bytes);
	}
}

/* ---- pipelined trees ---- */

/* A tree edge used by a pipeline: rank a sends chunk c to rank b at step
 * c + at; up edges reduce towards the root, down edges broadcast. */
typedef struct tedge {
	int64_t a, b, at;
	int up;
} tedge;

/*
 * NCCL's chunk for a tree up-down of `bytes` per tree (enqueue.cc, Simple
 * protocol: stepSize = NCCL_BUFFSIZE 4 MiB / NCCL_STEPS 8 = 512 KiB, one
 * step per chunk), halved while the pipeline would be shorter than 8x the
 * tree depth (down to 128 KiB), 4x (down to 64 KiB), 1x (down to 32 KiB).
 * Returns the number of chunks: bytes / chunk rounded up, at least 1.
 */
int64_t fx_coll_tree_chunks(double bytes, int64_t depth)
{
	if (!(bytes >= 0) || !isfinite(bytes) || depth < 0)
		return -1;
	double chunk = 512 * 1024;
	while (floor(bytes / chunk) < (double)(depth * 8) && chunk > 131072)
		chunk /= 2;
	while (floor(bytes / chunk) < (double)(depth * 4) && chunk > 65536)
		chunk /= 2;
	while (floor(bytes / chunk) < (double)depth && chunk > 32768)
		chunk /= 2;
	double c = ceil(bytes / chunk);
	return c < 1 ? 1 : (int64_t)c;
}

/* The steps a pipeline of c chunks over edges e lists: all of them, except
 * that the steps where every edge is busy (from the latest edge's first
 * chunk to the earliest edge's last) are identical and listed once; len is
 * how many there are (< 2: none collapsed). */
static void pipe_span(const tedge *e, size_t ne, int64_t c, int64_t *lo, int64_t *len, int64_t *end)
{
	int64_t mn = INT64_MAX, mx = 0;
	for (size_t i = 0; i < ne; i++) {
		if (e[i].at < mn)
			mn = e[i].at;
		if (e[i].at > mx)
			mx = e[i].at;
	}
	if (ne == 0)
		mn = 0;
	*lo = mx;
	*len = mn + c - mx;
	*end = mx + c;  /* steps 0 .. end-1 */
}

static void pipeline(fx_sched *s, const fx_coll_req *q, const tedge *e, size_t ne, int64_t c,
		     double bytes)
{
	int64_t lo, len, end;
	pipe_span(e, ne, c, &lo, &len, &end);
	for (int64_t t = 0; t < end; t++) {
		int64_t repeat = 1;
		if (t == lo && len >= 2)
			repeat = len;
		int ups = 0, downs = 0;
		for (size_t i = 0; i < ne; i++)
			if (t - e[i].at >= 0 && t - e[i].at < c) {
				ups += e[i].up;
				downs += !e[i].up;
			}
		fx_round *r = fx_sched_round(s, repeat, ups && downs ? "reduce+broadcast" :
					     ups ? "reduce" : "broadcast");
		for (size_t i = 0; i < ne; i++)
			if (t - e[i].at >= 0 && t - e[i].at < c)
				fx_sched_flow(r, q, e[i].a, e[i].b, bytes);
		t += repeat - 1;
	}
	s->chunks = c;
	s->chunk_bytes = bytes;
}

/* Flows a pipeline lists: each edge once per listed step it is busy in. */
static double pipe_flows(const tedge *e, size_t ne, int64_t c)
{
	int64_t lo, len, end;
	pipe_span(e, ne, c, &lo, &len, &end);
	(void)lo;
	(void)end;
	return (double)ne * (double)(len >= 2 ? c - len + 1 : c);
}

static int tz(int64_t i)
{
	int k = 0;
	while (!(i & 1)) {
		i >>= 1;
		k++;
	}
	return k;
}

static int popcount(int64_t i)
{
	int k = 0;
	for (; i; i &= i - 1)
		k++;
	return k;
}

/* ceil(log2 n): the tree's depth, which alone sets its chunks. */
static int binomial_depth(int64_t n)
{
	int L = 0;
	while (((int64_t)1 << L) < n)
		L++;
	return L;
}

/* The binomial tree as edges: rank i's parent is i with its lowest set bit
 * cleared; i sends up at step tz(i) (its subtree of height tz(i) is then
 * reduced), and receives from above at L + popcount(i) - 1, one step per
 * level below the root (which sends to all its children at once at L =
 * ceil(log2 n)).  The caller frees the array. */
static tedge *binomial_edges(int64_t n, size_t *ne, int64_t *depth)
{
	int L = binomial_depth(n);
	tedge *e = fx_xmalloc((size_t)(n > 1 ? 2 * (n - 1) : 1) * sizeof *e);
	size_t k = 0;
	for (int64_t i = 1; i < n; i++) {
		int64_t p = i & (i - 1);
		e[k++] = (tedge){i, p, tz(i), 1};
		e[k++] = (tedge){p, i, L + popcount(i) - 1, 0};
	}
	*ne = k;
	*depth = L;
	return e;
}

/*
 * Trees over the wires (explicit graphs): which rank sits at each tree
 * position matters when ranks are joined by direct links of unequal
 * counts (DGX-1).  Starting from rank order, swaps of two positions are
 * kept while they lower the steady pipeline step's busiest link (then the
 * bytes over all links), routing that step on the fabric; on custom
 * fabrics of 3 to TREE_MAP_MAX ranks with direct links between them.
 * Rewrites the edges' ranks in place; returns 1 when it moved any.
 */
#define TREE_MAP_MAX 16
#define TREE_MAP_PASSES 20

typedef struct tree_cost {
	double busy, total;
} tree_cost;

static tree_cost tree_step_cost(fx_router *r, const fx_coll_req *q,
				const tedge *e, size_t ne, const int64_t *pos, fx_flow *fl,
				double *load)
{
	for (size_t i = 0; i < ne; i++)
		fl[i] = (fx_flow){q->ranks[pos[e[i].a]], q->ranks[pos[e[i].b]], 1.0};
	tree_cost c;
	c.busy = fx_router_busiest(r, fl, ne, load, &c.total);
	return c;
}

static int better(tree_cost a, tree_cost b)
{
	if (a.busy < b.busy * (1 - 1e-12))
		return 1;
	return a.busy <= b.busy * (1 + 1e-12) && a.total < b.total * (1 - 1e-12);
}

static int tree_map(const fx_fabric *f, const fx_coll_req *q, tedge *e, size_t ne, char *plan,
		    size_t planlen)
{
	int64_t n = q->n;
	if (!fx_fabric_is(f, FX_KIND_EXPLICIT) || n < 3 || n > TREE_MAP_MAX)
		return 0;
	int direct = 0;
	for (int64_t x = 0; x < f->ne && !direct; x++)
		direct = f->ends[2 * x + 1] < f->ndev;  /* a device-device link */
	if (!direct)
		return 0;
	fx_router *r = fx_router_new(f, 0);
	int64_t *pos = fx_xmalloc((size_t)n * sizeof *pos);
	for (int64_t i = 0; i < n; i++)
		pos[i] = i;
	fx_flow *fl = fx_xmalloc(ne * sizeof *fl);
	double *load = fx_xcalloc((size_t)(2 * f->ne), sizeof *load);
	tree_cost best = tree_step_cost(r, q, e, ne, pos, fl, load);
	tree_cost start = best;
	int moved = 0;
	for (int pass = 0, again = 1; pass < TREE_MAP_PASSES && again; pass++) {
		again = 0;
		for (int64_t i = 0; i < n; i++)
			for (int64_t j = i + 1; j < n; j++) {
				int64_t t = pos[i];
				pos[i] = pos[j];
				pos[j] = t;
				tree_cost c = tree_step_cost(r, q, e, ne, pos, fl, load);
				if (better(c, best)) {
					best = c;
					again = moved = 1;
				} else {
					pos[j] = pos[i];
					pos[i] = t;
				}
			}
	}
	if (moved) {
		for (size_t i = 0; i < ne; i++) {
			e[i].a = pos[e[i].a];
			e[i].b = pos[e[i].b];
		}
		size_t len = (size_t)snprintf(plan, planlen, "tree positions placed on the links (busiest "
					      "link of a step %.3g of rank order's); rank at position 0..%lld:",
					      best.busy / start.busy, (long long)(n - 1));
		for (int64_t i = 0; i < n && len < planlen; i++)
			len += (size_t)snprintf(plan + len, planlen - len, " %lld", (long long)pos[i]);
	}
	free(load);
	free(fl);
	free(pos);
	fx_router_free(r);
	return moved;
}

static int64_t chunks_of(const fx_coll_req *q, double bytes, int64_t depth)
{
	return q->chunks > 0 ? q->chunks : fx_coll_tree_chunks(bytes, depth);
}

static int ar_tree(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	(void)f;
	(void)d;
	int64_t c = chunks_of(q, q->size, binomial_depth(q->n));
	if (c == 1) {  /* the chapter's tree: reduce, then broadcast largest step first */
		binomial_reduce(s, q, q->size);
		binomial_bcast(s, q, q->size);
		s->chunks = 1;
		s->chunk_bytes = q->size;
	} else {  /* the edges only here: 2(n-1) of them (1.5 M on a WSE-2) */
		size_t ne;
		int64_t depth;
		tedge *e = binomial_edges(q->n, &ne, &depth);
		tree_map(f, q, e, ne, s->plan, sizeof s->plan);
		pipeline(s, q, e, ne, c, q->size / (double)c);
		free(e);
	}
	return 0;
}

static double flows_tree(const fx_fabric *f, const fx_coll_req *q)
{
	(void)f;
	int64_t c = chunks_of(q, q->size, binomial_depth(q->n));
	if (c == 1)
		return 2.0 * (double)q->n;
	size_t ne;
	int64_t depth;
	tedge *e = binomial_edges(q->n, &ne, &depth);
	double n = pipe_flows(e, ne, c);
	free(e);
	return n;
}

static int bc_tree(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	(void)f;
	(void)d;
	binomial_bcast(s, q, q->size);
	return 0;
}

static int rd_tree(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	(void)f;
	(void)d;
	binomial_reduce(s, q, q->size);
	return 0;
}

#define CHAIN_CHUNKS 8  /* default pieces of a pipelined chain */

/* A chain 0 -> 1 -> ... -> n-1 (or back, for reduce) cut into c chunks:
 * in round t, link i carries chunk t - i. */
static void chain(fx_sched *s, const fx_coll_req *q, int backwards, const char *label)
{
	int64_t c = q->chunks > 0 ? q->chunks : CHAIN_CHUNKS;
	s->chunks = c;
	s->chunk_bytes = q->size / (double)c;
	for (int64_t t = 0; t < q->n - 1 + c - 1; t++) {
		/* link i carries chunk t - i, when there is one: only the links
		 * i in [t-c+1, t] are busy, so visit those (n c, not n^2) */
		int64_t lo = t - c + 1 > 0 ? t - c + 1 : 0, hi = t < q->n - 2 ? t : q->n - 2;
		/* with more chunks than links, rounds n-2 .. c-1 keep every link
		 * busy with one chunk each: the same round, listed once and
		 * repeated, so the work is (n-1)^2 flows however many chunks
		 * (a fuzzing finding: --chunks 5846 routed 5908 rounds) */
		int64_t repeat = 1;
		if (lo == 0 && hi == q->n - 2 && c - 1 > t) {
			repeat = c - 1 - t + 1;
			t = c - 1;
		}
		fx_round *r = fx_sched_round(s, repeat, label);
		for (int64_t i = lo; i <= hi; i++) {
			if (backwards)
				fx_sched_flow(r, q, q->n - 1 - i, q->n - 2 - i, q->size / (double)c);
			else
				fx_sched_flow(r, q, i, i + 1, q->size / (double)c);
		}
	}
}

static int bc_chain(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	(void)f;
	(void)d;
	chain(s, q, 0, "broadcast");
	return 0;
}

static int rd_chain(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	(void)f;
	(void)d;
	chain(s, q, 1, "reduce");
	return 0;
}

/*
 * Double binary tree (Sanders-Speck-Traff, as NCCL builds it in
 * src/graph/trees.cc): in tree 0 rank r > 0 with lowest set bit b hangs
 * under (r ^ b) | 2b, or r ^ b when that is past the end, and rank 0 is
 * the root with one child, so every odd rank is a leaf; tree 1 is tree 0
 * mirrored (rank n-1-r, even n) or shifted by one (odd n), so a rank is
 * interior in at most one.  Each tree carries half the data, up then down,
 * both at once.  Pipelined: a chunk at depth p goes up at step D - p and
 * comes down to depth p at D + p - 1 (D the deepest), so one chunk
 * (--chunks 1) is 2D rounds, reduce then broadcast.
 */
static int64_t btree_parent(int64_t r, int64_t n)
{
	int64_t b = r & -r;
	int64_t up = (r ^ b) | (b << 1);
	return up >= n ? r ^ b : up;
}

static tedge *dbtree_edges(int64_t n, size_t *ne, int64_t *depth)
{
	int64_t *dep = fx_xcalloc((size_t)(n > 0 ? n : 1), sizeof *dep);
	int64_t D = 0;
	for (int64_t r = 1; r < n; r++) {
		for (int64_t v = r; v != 0; v = btree_parent(v, n))
			dep[r]++;
		if (dep[r] > D)
			D = dep[r];
	}
	tedge *e = fx_xmalloc((size_t)(n > 1 ? 4 * (n - 1) : 1) * sizeof *e);
	size_t k = 0;
	/* rank of tree-0 rank p in tree t */
#define RANK(t, p) ((t) == 0 ? (p) : (n % 2 == 0 ? n - 1 - (p) : ((p) + 1) % n))
	for (int t = 0; t < 2; t++)
		for (int64_t p = 1; p < n; p++) {
			int64_t u = btree_parent(p, n);
			e[k++] = (tedge){RANK(t, p), RANK(t, u), D - dep[p], 1};
			e[k++] = (tedge){RANK(t, u), RANK(t, p), D + dep[p] - 1, 0};
		}
#undef RANK
	free(dep);
	*ne = k;
	*depth = D;
	return e;
}

static int ar_dbtree(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	(void)f;
	(void)d;
	size_t ne;
	int64_t depth;
	tedge *e = dbtree_edges(q->n, &ne, &depth);
	int64_t c = chunks_of(q, q->size / 2, depth);
	tree_map(f, q, e, ne, s->plan, sizeof s->plan);
	pipeline(s, q, e, ne, c, q->size / 2 / (double)c);
	free(e);
	return 0;
}

static double flows_dbtree(const fx_fabric *f, const fx_coll_req *q)
{
	(void)f;
	size_t ne;
	int64_t depth;
	tedge *e = dbtree_edges(q->n, &ne, &depth);
	double n = pipe_flows(e, ne, chunks_of(q, q->size / 2, depth));
	free(e);
	return n;
}

/* each of the n-1 chain links carries every chunk once, but the rounds
 * where every link is busy are listed once: (n-1) min(c, n-1) flows */
static double flows_chain(const fx_fabric *f, const fx_coll_req *q)
{
	(void)f;
	double links = (double)(q->n > 1 ? q->n - 1 : 0);
	double c = (double)(q->chunks > 0 ? q->chunks : CHAIN_CHUNKS);
	return links * (c < links ? c : links);
}

const fx_coll_algo fx_ar_tree = {
	.pattern = "allreduce",
	.name = "tree",
	.summary = "binomial tree, pipelined in chunks as NCCL does (--chunks 1: book Eq. 6-10)",
	.gen = ar_tree,
	.flows = flows_tree,
};
const fx_coll_algo fx_ar_dbtree = {
	.pattern = "allreduce",
	.name = "dbtree",
	.summary = "two complementary binary trees, half the data each, pipelined in chunks",
	.gen = ar_dbtree,
	.flows = flows_dbtree,
};
const fx_coll_algo fx_bc_tree = {
	.pattern = "broadcast",
	.name = "tree",
	.summary = "binomial tree from rank 0",
	.gen = bc_tree,
	.flows = fx_flows_1n,
};
const fx_coll_algo fx_bc_chain = {
	.pattern = "broadcast",
	.name = "chain",
	.summary = "pipelined chain in rank order (--chunks, default 8)",
	.gen = bc_chain,
	.flows = flows_chain,
};
const fx_coll_algo fx_rd_tree = {
	.pattern = "reduce",
	.name = "tree",
	.summary = "binomial tree to rank 0",
	.gen = rd_tree,
	.flows = fx_flows_1n,
};
const fx_coll_algo fx_rd_chain = {
	.pattern = "reduce",
	.name = "chain",
	.summary = "pipelined chain towards rank 0 (--chunks, default 8)",
	.gen = rd_chain,
	.flows = flows_chain,
};
