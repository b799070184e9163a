/*
 * Ring algorithms (book §6.4.2, Eq. 6-9): every rank sends one block of M/n
 * to the next rank in rank order each round; n-1 rounds reduce-scatter,
 * n-1 more all-gather.  Every round is the same, so each phase is one round
 * repeated.  Hierarchical allreduce runs rings inside nodes and across them.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

static void ring_phase(fx_sched *s, const fx_coll_req *q, double bytes, const char *label)
{
	if (q->n < 2)
		return;
	fx_round *r = fx_sched_round(s, q->n - 1, label);
	for (int64_t i = 0; i < q->n; i++)
		fx_sched_flow(r, q, i, (i + 1) % q->n, bytes);
}

static int ar_ring(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	(void)f;
	(void)d;
	ring_phase(s, q, q->size / (double)q->n, "reduce-scatter");
	ring_phase(s, q, q->size / (double)q->n, "all-gather");
	return 0;
}

static int rs_ring(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	(void)f;
	(void)d;
	ring_phase(s, q, q->size / (double)q->n, "reduce-scatter");
	return 0;
}

static int ag_ring(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	(void)f;
	(void)d;
	ring_phase(s, q, q->size / (double)q->n, "all-gather");
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

const fx_coll_algo fx_ar_ring = {"allreduce", "ring", "ring reduce-scatter + all-gather (book Eq. 6-9)",
				 ar_ring, twice_ring, NULL, fx_flows_2n};
const fx_coll_algo fx_ar_hier = {"allreduce", "hier", "ring inside nodes, ring across nodes on M/g, ring inside nodes",
				 ar_hier, twice_ring, NULL, fx_flows_4n};
const fx_coll_algo fx_rs_ring = {"reduce-scatter", "ring", "n-1 rounds of M/n to the next rank",
				 rs_ring, once_ring, NULL, fx_flows_1n};
const fx_coll_algo fx_ag_ring = {"all-gather", "ring", "n-1 rounds of M/n to the next rank",
				 ag_ring, once_ring, NULL, fx_flows_1n};
