/*
 * Trees and chains: binomial-tree allreduce (book Eq. 6-10: 2 log2 n rounds,
 * each passing the whole tensor), binomial broadcast and reduce, pipelined
 * chains, and NCCL-style double binary trees.
 */
#include <stdlib.h>

#include "../core/xalloc.h"
#include "internal.h"

/* Binomial reduce towards rank 0: in round s, ranks at odd multiples of
 * 2^s send everything they hold to the rank 2^s below. */
static void binomial_reduce(fx_sched *s, const fx_coll_req *q, double bytes)
{
	for (int64_t step = 1; step < q->n; step *= 2) {
		fx_round *r = fx_sched_round(s, 1, "reduce");
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
		for (int64_t i = 0; i + step < q->n; i += 2 * step)
			fx_sched_flow(r, q, i, i + step, bytes);
	}
}

static int ar_tree(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	(void)f;
	(void)d;
	binomial_reduce(s, q, q->size);
	binomial_bcast(s, q, q->size);
	return 0;
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

/* In-order balanced binary tree over positions [lo, hi): parent[] and
 * depth[] of each position. */
static void inorder(int64_t lo, int64_t hi, int64_t parent, int depth, int64_t *par, int *dep)
{
	if (lo >= hi)
		return;
	int64_t mid = (lo + hi) / 2;
	par[mid] = parent;
	dep[mid] = depth;
	inorder(lo, mid, mid, depth + 1, par, dep);
	inorder(mid + 1, hi, mid, depth + 1, par, dep);
}

/*
 * Double binary tree (Sanders-Speck-Traff, as NCCL uses it): two in-order
 * binary trees, the second mirrored (even n) or shifted by one (odd n) so
 * that a rank is interior in at most one; each carries half the data, up
 * then down, both at once.  Not pipelined: 2 x depth rounds.
 */
static int ar_dbtree(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	(void)f;
	(void)d;
	int64_t n = q->n;
	int64_t *par = fx_xmalloc((size_t)n * sizeof *par);
	int *dep = fx_xmalloc((size_t)n * sizeof *dep);
	inorder(0, n, -1, 0, par, dep);
	int depth = 0;
	for (int64_t i = 0; i < n; i++)
		if (dep[i] > depth)
			depth = dep[i];
	/* rank of tree position p in tree t */
#define RANK(t, p) ((t) == 0 ? (p) : (n % 2 == 0 ? n - 1 - (p) : ((p) + 1) % n))
	double half = q->size / 2;
	for (int lvl = depth; lvl >= 1; lvl--) {
		fx_round *r = fx_sched_round(s, 1, "reduce");
		for (int t = 0; t < 2; t++)
			for (int64_t p = 0; p < n; p++)
				if (dep[p] == lvl)
					fx_sched_flow(r, q, RANK(t, p), RANK(t, par[p]), half);
	}
	for (int lvl = 1; lvl <= depth; lvl++) {
		fx_round *r = fx_sched_round(s, 1, "broadcast");
		for (int t = 0; t < 2; t++)
			for (int64_t p = 0; p < n; p++)
				if (dep[p] == lvl)
					fx_sched_flow(r, q, RANK(t, par[p]), RANK(t, p), half);
	}
#undef RANK
	free(par);
	free(dep);
	return 0;
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

const fx_coll_algo fx_ar_tree = {"allreduce", "tree", "binomial reduce then broadcast, whole tensor each round (book Eq. 6-10)",
				 ar_tree, NULL, NULL, fx_flows_2n};
const fx_coll_algo fx_ar_dbtree = {"allreduce", "dbtree", "two complementary binary trees, half the data each",
				   ar_dbtree, NULL, NULL, fx_flows_4n};
const fx_coll_algo fx_bc_tree = {"broadcast", "tree", "binomial tree from rank 0", bc_tree, NULL, NULL, fx_flows_1n};
const fx_coll_algo fx_bc_chain = {"broadcast", "chain", "pipelined chain in rank order (--chunks, default 8)",
				  bc_chain, NULL, NULL, flows_chain};
const fx_coll_algo fx_rd_tree = {"reduce", "tree", "binomial tree to rank 0", rd_tree, NULL, NULL, fx_flows_1n};
const fx_coll_algo fx_rd_chain = {"reduce", "chain", "pipelined chain towards rank 0 (--chunks, default 8)",
				  rd_chain, NULL, NULL, flows_chain};
