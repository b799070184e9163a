/*
 * Multi-dimensional Swing on tori (De Sensi et al., NSDI'24, §4;
 * collectives.md §2), bandwidth-optimal form, and recursive doubling laid
 * out the same way for comparison.
 *
 * Step s of a collective moves along dimension s mod D (dimensions that
 * have used up their log2 d_i steps are skipped, as libswing's
 * compute_peers does on non-square tori), at relative step sigma = the
 * steps that dimension has had so far: Swing's peer changes the coordinate
 * a by +rho(sigma) when a is even and -rho(sigma) when odd (rho = 1, -1, 3,
 * -5, 11, ...); recursive doubling's flips bit sigma of a.  Swing runs 2D
 * collectives at once, each on 1/(2D) of the data: D plain ones starting in
 * different dimensions and D mirrored ones (rho negated), so every port of
 * every node is busy each step.  Recursive doubling runs one, as the
 * paper's baseline.  Reduce-scatter halves what a node sends each step
 * (M/2, M/4, ... of its collective's share); all-gather runs the steps
 * backwards.  The latency-optimal allreduces (-lat) run one collective of
 * log2 p steps, each exchanging the whole vector (the paper's Swing (L)
 * and recursive doubling (L), for small messages).
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

/* Checks the fabric: a torus with every device a rank in device order and
 * every dimension a power of two; 0 or an error. */
static int torus_ok(const fx_fabric *f, const fx_coll_req *q, fx_diag *d)
{
	if (f->ndims == 0 || q->n != f->ndev)
		return fx_diag_error(d, NULL, "%s/%s needs a torus fabric with every device a rank "
				     "(%lld ranks of %lld devices)", q->pattern, q->algo,
				     (long long)q->n, (long long)f->ndev);
	for (int i = 0; i < f->ndims; i++)
		if (!f->wrap[i] || !fx_is_pow2(f->dims[i]))
			return fx_diag_error(d, NULL, "%s/%s needs a torus whose dimensions wrap round and "
					     "are powers of two (dimension %d is %d%s)", q->pattern, q->algo,
					     i, f->dims[i], f->wrap[i] ? "" : ", no wrap");
	for (int64_t i = 0; i < q->n; i++)
		if (q->ranks[i] != i)
			return fx_diag_error(d, NULL, "%s/%s needs the ranks in device order", q->pattern,
					     q->algo);
	return 0;
}

/* The (dimension, sigma) of each step of a collective that starts in
 * dimension `first`; returns the number of steps, log2 of the node count. */
static int torus_steps(const fx_fabric *f, int first, int *dim, int *sigma)
{
	int left[FX_MAX_DIMS], used[FX_MAX_DIMS] = {0}, total = 0, at = first;
	for (int i = 0; i < f->ndims; i++)
		total += left[i] = fx_log2(f->dims[i]);
	for (int s = 0; s < total; s++) {
		while (left[at] == 0)
			at = (at + 1) % f->ndims;
		dim[s] = at;
		sigma[s] = used[at]++;
		left[at]--;
		at = (at + 1) % f->ndims;
	}
	return total;
}

typedef struct swing_kind {
	int swing;        /* 1: Swing (2D collectives), 0: recursive doubling (one) */
	int rs, ag;       /* phases */
	int lat;          /* latency-optimal allreduce: one collective, log2 p
			   * steps each exchanging the whole vector */
} swing_kind;

static int torus_gen(const fx_fabric *f, const fx_coll_req *q, fx_sched *sc, fx_diag *d,
		     swing_kind k)
{
	if (torus_ok(f, q, d))
		return -1;
	int D = f->ndims, ncoll = k.swing && !k.lat ? 2 * D : 1;
	int dim[2 * FX_MAX_DIMS][64], sigma[2 * FX_MAX_DIMS][64], S = 0;
	for (int c = 0; c < ncoll; c++)
		S = torus_steps(f, c / 2, dim[c], sigma[c]);
	int x[FX_MAX_DIMS];
	for (int ph = 0; ph < 2; ph++) {
		if (k.lat && ph == 1)
			break;
		if ((ph == 0 && !k.rs) || (ph == 1 && !k.ag))
			continue;
		for (int t = 0; t < S; t++) {
			int s = ph == 0 ? t : S - 1 - t;
			fx_round *r = fx_sched_round(sc, 1, k.lat ? "exchange" : ph == 0 ? "reduce-scatter" :
						     "all-gather");
			double bytes = k.lat ? q->size : q->size / (double)ncoll / (double)((int64_t)2 << s);
			for (int c = 0; c < ncoll; c++) {
				int i = dim[c][s], dd = f->dims[i];
				int64_t stride = 1;
				for (int j = 0; j < i; j++)
					stride *= f->dims[j];
				int64_t rho = fx_swing_rho(sigma[c][s]);
				if (c % 2)
					rho = -rho;  /* the mirrored collective */
				for (int64_t v = 0; v < q->n; v++) {
					fx_fabric_coords(f, v, x);
					int a = x[i], b;
					if (k.swing)
						b = (int)((((a % 2 == 0 ? a + rho : a - rho)) % dd + dd) % dd);
					else
						b = a ^ (1 << sigma[c][s]);
					fx_sched_flow(r, q, v, v + (int64_t)(b - a) * stride, bytes);
				}
			}
		}
	}
	return 0;
}

#define GEN(fn, sw, rs, ag, lat)                                                        \
	static int fn(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d) \
	{                                                                               \
		return torus_gen(f, q, s, d, (swing_kind){sw, rs, ag, lat});            \
	}

GEN(ar_swing_torus, 1, 1, 1, 0)
GEN(rs_swing_torus, 1, 1, 0, 0)
GEN(ag_swing_torus, 1, 0, 1, 0)
GEN(ar_rec_torus, 0, 1, 1, 0)
GEN(rs_rec_torus, 0, 1, 0, 0)
GEN(ag_rec_torus, 0, 0, 1, 0)
GEN(ar_swing_torus_lat, 1, 1, 0, 1)
GEN(ar_rec_torus_lat, 0, 1, 0, 1)

static double once(const fx_coll_req *q)
{
	return (double)(q->n - 1) * q->size / (double)q->n;
}

static double twice(const fx_coll_req *q)
{
	return 2 * once(q);
}

/* log2(n) steps of n flows per collective and phase */
static double flows(const fx_fabric *f, const fx_coll_req *q, int ncoll, int phases)
{
	(void)f;
	return (double)fx_log2(q->n > 0 ? q->n : 1) * (double)q->n * ncoll * phases;
}

static double flows_swing1(const fx_fabric *f, const fx_coll_req *q)
{
	return flows(f, q, 2 * (f->ndims > 0 ? f->ndims : 1), 1);
}

static double flows_swing2(const fx_fabric *f, const fx_coll_req *q)
{
	return flows(f, q, 2 * (f->ndims > 0 ? f->ndims : 1), 2);
}

/* latency-optimal: log2 p steps of the whole vector */
static double whole(const fx_coll_req *q)
{
	return (double)fx_log2(q->n > 0 ? q->n : 1) * q->size;
}

static double flows_rec1(const fx_fabric *f, const fx_coll_req *q)
{
	return flows(f, q, 1, 1);
}

static double flows_rec2(const fx_fabric *f, const fx_coll_req *q)
{
	return flows(f, q, 1, 2);
}

const fx_coll_algo fx_ar_swing_torus = {
	.pattern = "allreduce",
	.name = "swing-torus",
	.summary = "multi-dimensional Swing on a torus: step s in dimension s mod D, 2D plain and mirrored collectives (NSDI'24)",
	.gen = ar_swing_torus,
	.sent_per_rank = twice,
	.flows = flows_swing2,
};
const fx_coll_algo fx_rs_swing_torus = {
	.pattern = "reduce-scatter",
	.name = "swing-torus",
	.summary = "multi-dimensional Swing on a torus, 2D collectives at once (NSDI'24)",
	.gen = rs_swing_torus,
	.sent_per_rank = once,
	.flows = flows_swing1,
};
const fx_coll_algo fx_ag_swing_torus = {
	.pattern = "all-gather",
	.name = "swing-torus",
	.summary = "multi-dimensional Swing on a torus, steps backwards",
	.gen = ag_swing_torus,
	.sent_per_rank = once,
	.flows = flows_swing1,
};
const fx_coll_algo fx_ar_rec_torus = {
	.pattern = "allreduce",
	.name = "rec-torus",
	.summary = "recursive halving-doubling on a torus, step s in dimension s mod D (Swing's baseline)",
	.gen = ar_rec_torus,
	.sent_per_rank = twice,
	.flows = flows_rec2,
};
const fx_coll_algo fx_rs_rec_torus = {
	.pattern = "reduce-scatter",
	.name = "rec-torus",
	.summary = "recursive halving on a torus, step s in dimension s mod D",
	.gen = rs_rec_torus,
	.sent_per_rank = once,
	.flows = flows_rec1,
};
const fx_coll_algo fx_ag_rec_torus = {
	.pattern = "all-gather",
	.name = "rec-torus",
	.summary = "recursive doubling on a torus, steps backwards",
	.gen = ag_rec_torus,
	.sent_per_rank = once,
	.flows = flows_rec1,
};
const fx_coll_algo fx_ar_swing_torus_lat = {
	.pattern = "allreduce",
	.name = "swing-torus-lat",
	.summary = "latency-optimal Swing on a torus: log2 p steps, the whole vector each, step s in dimension s mod D (NSDI'24)",
	.gen = ar_swing_torus_lat,
	.sent_per_rank = whole,
	.flows = flows_rec1,
};
const fx_coll_algo fx_ar_rec_torus_lat = {
	.pattern = "allreduce",
	.name = "rec-torus-lat",
	.summary = "latency-optimal recursive doubling on a torus, the whole vector each step",
	.gen = ar_rec_torus_lat,
	.sent_per_rank = whole,
	.flows = flows_rec1,
};
