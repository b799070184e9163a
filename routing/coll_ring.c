/*
 * Ring algorithms (the chapter "Supernodes", §6.4.2, Eq. 6-9): every rank sends one block of M/n
 * to the next rank in rank order each round; n-1 rounds reduce-scatter,
 * n-1 more all-gather.  Every round is the same, so each phase is one round
 * repeated.  Hierarchical allreduce runs rings inside nodes and across them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

/*
 * Rings over the wires (explicit graphs, as NCCL searches them): on a
 * custom fabric whose ranks are joined by direct links, up to RING_MAX
 * Hamiltonian cycles over those links, edge-disjoint as far as each
 * bundle's link count allows (depth-first search from rank 0, fattest
 * bundles first, within a search budget), each run in both directions, so
 * a link carries one ring each way.  The data is split evenly over the
 * 2R rings, which run at once (NCCL's channels).  Elsewhere, or when no
 * cycle is found, the one ring in rank order.
 */
#define RING_MAX 8
#define RING_MAX_RANKS 64
#define RING_BUDGET 20000    /* DFS expansions per cycle: bounded work on big graphs */

typedef struct ring_search {
	int64_t n;
	int32_t *cap;         /* [n x n] direct links left between ranks */
	int64_t *path;
	uint8_t *seen;
	int64_t budget;
} ring_search;

static int ring_dfs(ring_search *rs, int64_t depth)
{
	int64_t n = rs->n, u = rs->path[depth - 1];
	if (depth == n)
		return rs->cap[u * n + rs->path[0]] > 0;
	if (--rs->budget < 0)
		return 0;
	/* candidates, fattest bundles first, then lowest rank */
	int64_t *cand = fx_xmalloc((size_t)n * sizeof *cand), m = 0;
	for (int64_t v = 0; v < n; v++)
		if (!rs->seen[v] && rs->cap[u * n + v] > 0) {
			int64_t j = m++;
			while (j > 0 && rs->cap[u * n + cand[j - 1]] < rs->cap[u * n + v]) {
				cand[j] = cand[j - 1];
				j--;
			}
			cand[j] = v;
		}
	int found = 0;
	for (int64_t i = 0; i < m && !found; i++) {
		rs->seen[cand[i]] = 1;
		rs->path[depth] = cand[i];
		found = ring_dfs(rs, depth + 1);
		if (!found)
			rs->seen[cand[i]] = 0;
	}
	free(cand);
	return found;
}

/* Fills rings[k * n + i] (rank indexes) and returns the number of
 * undirected cycles found (0: use rank order). */
static int64_t phys_rings(const fx_fabric *f, const fx_coll_req *q, int64_t *rings)
{
	int64_t n = q->n;
	if (!fx_fabric_is(f, FX_KIND_EXPLICIT) || n < 3 || n > RING_MAX_RANKS)
		return 0;
	ring_search rs = {n, fx_xcalloc((size_t)(n * n), sizeof *rs.cap),
			  fx_xmalloc((size_t)n * sizeof *rs.path), fx_xcalloc((size_t)n, 1), 0};
	int64_t *at = fx_xmalloc((size_t)f->nv * sizeof *at);
	for (int64_t v = 0; v < f->nv; v++)
		at[v] = -1;
	for (int64_t i = 0; i < n; i++)
		at[q->ranks[i]] = i;
	for (int64_t e = 0; e < f->ne; e++) {
		int64_t a = at[f->ends[2 * e]], b = at[f->ends[2 * e + 1]];
		if (a >= 0 && b >= 0) {
			rs.cap[a * n + b] += f->e[e].count;
			rs.cap[b * n + a] += f->e[e].count;
		}
	}
	int64_t k = 0;
	for (; k < RING_MAX; k++) {
		memset(rs.seen, 0, (size_t)n);
		rs.path[0] = 0;
		rs.seen[0] = 1;
		rs.budget = RING_BUDGET;
		if (!ring_dfs(&rs, 1))
			break;
		for (int64_t i = 0; i < n; i++) {
			int64_t a = rs.path[i], b = rs.path[(i + 1) % n];
			rings[k * n + i] = a;
			rs.cap[a * n + b]--;
			rs.cap[b * n + a]--;
		}
	}
	free(at);
	free(rs.cap);
	free(rs.path);
	free(rs.seen);
	return k;
}

/* Seconds the busiest link of one ring step needs: k cycles both ways
 * (k = 0: rank order), each rank sending 1 byte in all. */
static double ring_step_cost(fx_router *r, const fx_coll_req *q,
			     const int64_t *rings, int64_t k, double *load)
{
	int64_t n = q->n, m = 0;
	fx_flow *fl = fx_xmalloc((size_t)(2 * (k ? k : 1) * n) * sizeof *fl);
	for (int64_t i = 0; i < n; i++)
		if (k == 0)
			fl[m++] = (fx_flow){q->ranks[i], q->ranks[(i + 1) % n], 1.0};
		else
			for (int64_t c = 0; c < k; c++) {
				int64_t a = q->ranks[rings[c * n + i]], z = q->ranks[rings[c * n + (i + 1) % n]];
				fl[m++] = (fx_flow){a, z, 0.5 / (double)k};
				fl[m++] = (fx_flow){z, a, 0.5 / (double)k};
			}
	double worst = fx_router_busiest(r, fl, (size_t)m, load, NULL);
	free(fl);
	return worst;
}

/* The rings to run: the cycles over direct links when they make a step's
 * busiest link lighter than rank order does (a custom graph may also join
 * its devices through faster switches), else none (rank order). */
static int64_t ring_layout(const fx_fabric *f, const fx_coll_req *q, int64_t *rings)
{
	int64_t k = phys_rings(f, q, rings);
	if (k == 0)
		return 0;
	fx_router *r = fx_router_new(f, 0);
	double *load = fx_xcalloc((size_t)(2 * f->ne + 1), sizeof *load);
	double wires = ring_step_cost(r, q, rings, k, load);
	double order = ring_step_cost(r, q, rings, 0, load);
	free(load);
	fx_router_free(r);
	return wires < order ? k : 0;
}

/*
 * A 2-D mesh in device order is a poor ring: every row ends with a flow
 * back across the whole row.  With every device a rank and an even side,
 * the ring is a Hamiltonian cycle of the grid instead, each step one hop:
 * along row 0, then snaking over columns 1..W-1 of the other rows, and
 * home down column 0 (rows and columns swapped when only W is even).
 * Fills order[] (rank indexes) and returns 1, or 0 when it does not apply.
 */
static int mesh_snake(const fx_fabric *f, const fx_coll_req *q, int64_t *order)
{
	if (!fx_fabric_is(f, FX_KIND_MESH) || f->ndims != 2 ||
	    q->n != f->ndev || f->dims[0] < 2 || f->dims[1] < 2)
		return 0;
	for (int64_t i = 0; i < q->n; i++)
		if (q->ranks[i] != i)
			return 0;
	int swap = f->dims[1] % 2 != 0;  /* snake along the even side */
	int64_t W = f->dims[swap ? 1 : 0], H = f->dims[swap ? 0 : 1];
	if (H % 2)
		return 0;
	int64_t k = 0;
#define AT(x, y) (swap ? (y) + (int64_t)f->dims[0] * (x) : (x) + (int64_t)f->dims[0] * (y))
	for (int64_t x = 0; x < W; x++)
		order[k++] = AT(x, 0);
	for (int64_t y = 1; y < H; y++)
		for (int64_t i = 0; i < W - 1; i++)
			order[k++] = AT(y % 2 ? W - 1 - i : 1 + i, y);
	for (int64_t y = H - 1; y >= 1; y--)
		order[k++] = AT(0, y);
#undef AT
	return 1;
}

/* One phase (n-1 identical rounds) over the rings: `bytes` is what each
 * rank sends per round in all, split over the rings. */
static void ring_phase(const fx_fabric *f, fx_sched *s, const fx_coll_req *q, double bytes,
		       const char *label)
{
	if (q->n < 2)
		return;
	int64_t n = q->n;
	int64_t *rings = fx_xmalloc((size_t)(RING_MAX * n) * sizeof *rings);
	int64_t k = ring_layout(f, q, rings);
	fx_round *r = fx_sched_round(s, n - 1, label);
	fx_sched_reserve(r, (size_t)(k ? 2 * k * n : n));
	char how[sizeof s->plan];
	if (k == 0 && mesh_snake(f, q, rings)) {
		for (int64_t i = 0; i < n; i++)
			fx_sched_flow(r, q, rings[i], rings[(i + 1) % n], bytes);
		snprintf(s->plan, sizeof s->plan, "a ring snaking over the %dx%d mesh, one hop a step",
			 f->dims[0], f->dims[1]);
	} else if (k == 0 && fx_lattice_ring(f, q->ranks, n, rings, how, sizeof how)) {
		for (int64_t i = 0; i < n; i++)
			fx_sched_flow(r, q, rings[i], rings[(i + 1) % n], bytes);
		snprintf(s->plan, sizeof s->plan, "%s", how);
	} else if (k == 0) {
		for (int64_t i = 0; i < n; i++)
			fx_sched_flow(r, q, i, (i + 1) % n, bytes);
	} else {
		double b = bytes / (double)(2 * k);
		for (int64_t c = 0; c < k; c++)
			for (int64_t i = 0; i < n; i++) {
				int64_t a = rings[c * n + i], z = rings[c * n + (i + 1) % n];
				fx_sched_flow(r, q, a, z, b);  /* forward */
				fx_sched_flow(r, q, z, a, b);  /* and the reverse ring */
			}
		/* say which rings: "3 rings x 2 directions: 0-1-..., ..." */
		size_t len = (size_t)snprintf(s->plan, sizeof s->plan, "%lld ring%s over direct links, "
					      "both directions (%lld channels):", (long long)k,
					      k > 1 ? "s" : "", (long long)(2 * k));
		for (int64_t c = 0; c < k && len < sizeof s->plan; c++)
			for (int64_t i = 0; i <= n && len < sizeof s->plan; i++)
				len += (size_t)snprintf(s->plan + len, sizeof s->plan - len, "%s%lld",
							i == 0 ? " " : "-", (long long)rings[c * n + i % n]);
	}
	free(rings);
}

static int ar_ring(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	(void)d;
	ring_phase(f, s, q, q->size / (double)q->n, "reduce-scatter");
	ring_phase(f, s, q, q->size / (double)q->n, "all-gather");
	return 0;
}

static int rs_ring(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	(void)d;
	ring_phase(f, s, q, q->size / (double)q->n, "reduce-scatter");
	return 0;
}

static int ag_ring(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	(void)d;
	ring_phase(f, s, q, q->size / (double)q->n, "all-gather");
	return 0;
}

static double twice_ring(const fx_coll_req *q)
{
	return 2.0 * (double)(q->n - 1) * q->size / (double)q->n;
}

static double once_ring(const fx_coll_req *q)
{
	return (double)(q->n - 1) * q->size / (double)q->n;
}

/*
 * Hierarchical: ring reduce-scatter inside each node (g ranks), ring
 * allreduce of the M/g shards across nodes among ranks with the same local
 * index (m nodes), ring all-gather inside each node.  Nodes are the
 * fabric's packaging nodes; every node must hold the same number of ranks.
 */
static int ar_hier(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	int64_t *node = fx_xmalloc((size_t)q->n * sizeof *node);
	int64_t *local = fx_xmalloc((size_t)q->n * sizeof *local);
	int64_t nodes = 0, g = 0;
	int rc = 0;
	/* nodes in order of first appearance, ranks numbered within them;
	 * slot[] maps a packaging node to its index here (linear, not n x nodes) */
	int64_t *seen = fx_xmalloc((size_t)q->n * sizeof *seen), *count = fx_xcalloc((size_t)q->n, sizeof *count);
	int64_t *slot = fx_xmalloc((size_t)(f->nnodes + 1) * sizeof *slot);
	for (int64_t k = 0; k <= f->nnodes; k++)
		slot[k] = -1;
	for (int64_t i = 0; i < q->n; i++) {
		int64_t nd = f->v[q->ranks[i]].node;
		int64_t at = nd >= 0 && nd < f->nnodes ? nd : f->nnodes;  /* unpackaged: one node */
		if (slot[at] < 0) {
			slot[at] = nodes;
			seen[nodes++] = nd;
		}
		node[i] = slot[at];
		local[i] = count[slot[at]]++;
	}
	free(slot);
	g = count[0];
	for (int64_t k = 0; k < nodes; k++)
		if (count[k] != g)
			rc = fx_diag_error(d, NULL, "allreduce/hier needs the same number of ranks in every "
					   "node; node %lld has %lld, node %lld has %lld",
					   (long long)seen[0], (long long)g, (long long)seen[k],
					   (long long)count[k]);
	if (rc == 0) {
		/* rank index of (node k, local j) */
		int64_t *at = fx_xmalloc((size_t)q->n * sizeof *at);
		for (int64_t i = 0; i < q->n; i++)
			at[node[i] * g + local[i]] = i;
		/* a node that is a block of a lattice (a tray) rings over its
		 * wires, as the ring algorithm does; every node is the same
		 * block, so local index j is the same place in each and the
		 * rings across nodes join like places */
		int64_t *dev = fx_xmalloc((size_t)(g ? g : 1) * sizeof *dev);
		int64_t *ord = fx_xmalloc((size_t)(g ? g : 1) * sizeof *ord);
		int64_t *row = fx_xmalloc((size_t)(g ? g : 1) * sizeof *row);
		char how[sizeof s->plan - 32];
		for (int64_t k = 0; k < nodes; k++) {
			for (int64_t j = 0; j < g; j++)
				dev[j] = q->ranks[at[k * g + j]];
			if (!fx_lattice_ring(f, dev, g, ord, how, sizeof how))
				continue;
			for (int64_t j = 0; j < g; j++)
				row[j] = at[k * g + ord[j]];
			for (int64_t j = 0; j < g; j++) {
				at[k * g + j] = row[j];
				local[row[j]] = j;
			}
			if (k == 0)
				snprintf(s->plan, sizeof s->plan, "inside each node %s", how);
		}
		free(dev);
		free(ord);
		free(row);
		if (g > 1) {
			fx_round *r = fx_sched_round(s, g - 1, "intra reduce-scatter");
			for (int64_t i = 0; i < q->n; i++)
				fx_sched_flow(r, q, i, at[node[i] * g + (local[i] + 1) % g], q->size / (double)g);
		}
		if (nodes > 1) {
			double b = q->size / (double)g / (double)nodes;
			for (int ph = 0; ph < 2; ph++) {
				fx_round *r = fx_sched_round(s, nodes - 1, ph ? "inter all-gather" : "inter reduce-scatter");
				for (int64_t i = 0; i < q->n; i++)
					fx_sched_flow(r, q, i, at[((node[i] + 1) % nodes) * g + local[i]], b);
			}
		}
		if (g > 1) {
			fx_round *r = fx_sched_round(s, g - 1, "intra all-gather");
			for (int64_t i = 0; i < q->n; i++)
				fx_sched_flow(r, q, i, at[node[i] * g + (local[i] + 1) % g], q->size / (double)g);
		}
		free(at);
	}
	free(node);
	free(local);
	free(seen);
	free(count);
	return rc;
}

/* n flows per phase, or 2n per ring pair over the wires */
static double flows_ring(const fx_fabric *f, const fx_coll_req *q)
{
	int64_t *rings = fx_xmalloc((size_t)(RING_MAX * (q->n > 0 ? q->n : 1)) * sizeof *rings);
	int64_t k = ring_layout(f, q, rings);
	free(rings);
	return (double)q->n * (double)(k ? 2 * k : 1);
}

static double flows_ring2(const fx_fabric *f, const fx_coll_req *q)
{
	return 2 * flows_ring(f, q);
}

const fx_coll_algo fx_ar_ring = {
	.pattern = "allreduce",
	.name = "ring",
	.summary = "ring reduce-scatter + all-gather (book Eq. 6-9); on explicit graphs rings over the direct links",
	.gen = ar_ring,
	.sent_per_rank = twice_ring,
	.flows = flows_ring2,
};
const fx_coll_algo fx_ar_hier = {
	.pattern = "allreduce",
	.name = "hier",
	.summary = "ring inside nodes, ring across nodes on M/g, ring inside nodes",
	.gen = ar_hier,
	.sent_per_rank = twice_ring,
	.flows = fx_flows_4n,
};
const fx_coll_algo fx_rs_ring = {
	.pattern = "reduce-scatter",
	.name = "ring",
	.summary = "n-1 rounds of M/n to the next rank",
	.gen = rs_ring,
	.sent_per_rank = once_ring,
	.flows = flows_ring,
};
const fx_coll_algo fx_ag_ring = {
	.pattern = "all-gather",
	.name = "ring",
	.summary = "n-1 rounds of M/n to the next rank",
	.gen = ag_ring,
	.sent_per_rank = once_ring,
	.flows = flows_ring,
};
