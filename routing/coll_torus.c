/*
 * Torus dimension-wise ("bucket") allreduce (the chapter "Supernodes", §6.5.1, collectives.md
 * §1): ring reduce-scatter along each dimension in turn, then ring
 * all-gathers in reverse order, moving only between neighbours.  To keep
 * all 2D ports busy the data is cut into 2D parts: part (i, dir) starts
 * with dimension i and runs its rings in direction dir, all parts at once.
 * A mesh's line is a ring in the interleaved order (fx_line_next), as
 * the ring algorithm's block rings are.
 * Needs a lattice fabric with every device a rank, in device order.
 */
#include <stdlib.h>

#include "../core/xalloc.h"
#include "internal.h"

typedef struct step {
	int dim, dir;
	double bytes;
	int ag;
} step;

/* Each part's steps, parts x len of them (st[p * len + t]); the caller frees. */
static step *steps(const fx_fabric *f, double size, int64_t *plen)
{
	int D = f->ndims, parts = 2 * D;
	int64_t len = 0;
	for (int i = 0; i < D; i++)
		len += 2 * (f->dims[i] - 1);
	step *st = fx_xmalloc((size_t)(parts * len + 1) * sizeof *st);
	for (int p = 0; p < parts; p++) {
		int first = p / 2, dir = p % 2;
		double held = size / parts;
		int64_t k = 0;
		step *mine = st + (size_t)p * (size_t)len;
		for (int j = 0; j < D; j++) {  /* reduce-scatter, dims from `first` on */
			int dim = (first + j) % D;
			for (int t = 0; t < f->dims[dim] - 1; t++)
				mine[k++] = (step){dim, dir, held / f->dims[dim], 0};
			held /= f->dims[dim];
		}
		for (int j = D - 1; j >= 0; j--) {  /* all-gather, the same dims backwards */
			int dim = (first + j) % D;
			for (int t = 0; t < f->dims[dim] - 1; t++)
				mine[k++] = (step){dim, dir, held, 1};
			held *= f->dims[dim];
		}
	}
	*plen = len;
	return st;
}

/* 1 when at step t every part repeats its step t-1: the same flows again,
 * so one round repeated and routed once (a 32^3 torus: 186 steps, 6
 * rounds to route). */
static int repeats(const step *st, int parts, int64_t len, int64_t t)
{
	if (t == 0)
		return 0;
	for (int p = 0; p < parts; p++) {
		const step *a = &st[(size_t)p * (size_t)len + (size_t)t], *b = a - 1;
		if (a->dim != b->dim || a->dir != b->dir || a->bytes != b->bytes || a->ag != b->ag)
			return 0;
	}
	return 1;
}

static int ar_torus(const fx_fabric *f, const fx_coll_req *q, fx_sched *s, fx_diag *d)
{
	int D = f->ndims;
	if (D == 0 || q->n != f->ndev)
		return fx_diag_error(d, NULL, "allreduce/torus needs a torus or mesh fabric with every "
				     "device a rank (%lld ranks of %lld devices)",
				     (long long)q->n, (long long)f->ndev);
	for (int64_t i = 0; i < q->n; i++)
		if (q->ranks[i] != i)
			return fx_diag_error(d, NULL, "allreduce/torus needs the ranks in device order");
	int parts = 2 * D;
	int64_t len;
	step *st = steps(f, q->size, &len);
	int x[FX_MAX_DIMS];
	/* each dimension's ring: x + 1 round a torus, the interleaved order
	 * along a mesh's line (at most 2 hops a step, not a k-1 hop return:
	 * routing/coll_order.c); prev runs it backwards */
	int *next[FX_MAX_DIMS], *prev[FX_MAX_DIMS];
	for (int i = 0; i < D; i++) {
		next[i] = fx_xmalloc((size_t)f->dims[i] * sizeof *next[i]);
		prev[i] = fx_xmalloc((size_t)f->dims[i] * sizeof *prev[i]);
		for (int c = 0; c < f->dims[i]; c++) {
			next[i][c] = (int)fx_line_next(f->dims[i], f->wrap[i], c);
			prev[i][next[i][c]] = c;
		}
	}
	for (int64_t t = 0; t < len; t++) {
		if (repeats(st, parts, len, t)) {
			s->r[s->n - 1].repeat++;
			continue;
		}
		fx_round *r = fx_sched_round(s, 1, st[t].ag ? "all-gather" : "reduce-scatter");
		for (int p = 0; p < parts; p++) {
			const step *e = &st[(size_t)p * (size_t)len + (size_t)t];
			int64_t stride = 1;
			for (int j = 0; j < e->dim; j++)
				stride *= f->dims[j];
			for (int64_t v = 0; v < q->n; v++) {
				fx_fabric_coords(f, v, x);
				int nx = e->dir == 0 ? next[e->dim][x[e->dim]] : prev[e->dim][x[e->dim]];
				fx_sched_flow(r, q, v, v + (int64_t)(nx - x[e->dim]) * stride, e->bytes);
			}
		}
	}
	free(st);
	for (int i = 0; i < D; i++) {
		free(next[i]);
		free(prev[i]);
	}
	return 0;
}

static double twice(const fx_coll_req *q)
{
	return 2.0 * (double)(q->n - 1) * q->size / (double)q->n;
}

/* one round per run of repeated steps, each moving every part (2D of
 * them) on every device */
static double flows_torus(const fx_fabric *f, const fx_coll_req *q)
{
	if (f->ndims == 0)
		return 0;
	int64_t len, rounds = 0;
	step *st = steps(f, q->size, &len);
	for (int64_t t = 0; t < len; t++)
		rounds += !repeats(st, 2 * f->ndims, len, t);
	free(st);
	return (double)rounds * 2.0 * f->ndims * (double)q->n;
}

const fx_coll_algo fx_ar_torus = {
	.pattern = "allreduce",
	.name = "torus",
	.summary = "ring reduce-scatter/all-gather along each dimension, 2D parts at once",
	.gen = ar_torus,
	.sent_per_rank = twice,
	.flows = flows_torus,
};
