/*
 * Rounds on lattices summarised from load breakpoints (issue #15).
 *
 * Dimension-order routing puts every flow (or half of a tie-split one) on
 * lines as ranges of positions (route.c dor_segment).  Along a line the
 * round's load is piecewise constant between the ranges' end points, so the
 * round's busiest link, its heaviest load and its total follow from the
 * sorted breakpoints, and every link's load over the whole collective is
 * one difference array per line (repeat-weighted breakpoints of all rounds)
 * prefix-summed once at the end.  A round costs O(segments) (a radix sort),
 * not O(links): SUMMA on a 660x660 wafer routes 331 rounds over every link.
 *
 * Exactness: a position's breakpoints are added in the order route.c adds
 * them to its difference array and the running sum is taken position by
 * position, so each link's load in a round, the busiest link and the
 * heaviest load are the per-link path's bit for bit; the round's total and
 * the per-link totals over the collective add in another order
 * (tests/unit/test_sweep.c holds them to 1e-12 relative).  It needs one
 * link capacity (count x bandwidth) everywhere, which
 * fx_dorsum_new checks.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

typedef struct dorsum_pt {
	int64_t line;    /* (2i + dir) * N + base, as route.c names lines */
	int32_t pos;     /* position along the line */
	uint32_t seq;    /* insertion order within the round */
	double delta;
} dorsum_pt;

struct fx_dorsum {
	const fx_fabric *f;
	double cap;            /* every link's count x bandwidth */
	uint8_t last[FX_MAX_DIMS];  /* position k-1 of a line of dimension i has a link */
	dorsum_pt *pt;
	size_t npt, cappt;
	dorsum_pt *tmp;        /* sort_points' scratch */
	size_t captmp;
	uint64_t kmax;         /* the longest dimension: keys are line * kmax + position */
	double *acc;           /* [2D x N]: repeat-weighted breakpoints, by vertex id */
	uint8_t *acc_line;     /* [2D x N]: line has entries in acc */
	int64_t *lines;        /* lines with entries in acc */
	size_t nlines, caplines;
};

/* Stride of dimension i's positions in vertex ids. */
static int64_t stride_of(const fx_fabric *f, int i)
{
	int64_t st = 1;
	for (int j = 0; j < i; j++)
		st *= f->dims[j];
	return st;
}

fx_dorsum *fx_dorsum_new(const fx_fabric *f)
{
	if (f->ndims < 1 || f->ne == 0 || !f->plus_edge)
		return NULL;
	double cap = f->e[0].count * f->e[0].bw;
	for (int64_t e = 1; e < f->ne; e++)
		if (f->e[e].count * f->e[e].bw != cap)
			return NULL;
	fx_dorsum *s = fx_xcalloc(1, sizeof *s);
	s->f = f;
	s->cap = cap;
	/* every line alike: positions below k-1 have their link, k-1 has one
	 * on rings only; counted once here so a segment's links are O(1) */
	for (int i = 0; i < f->ndims; i++) {
		int64_t st = stride_of(f, i);
		int seen = 0;
		for (int64_t v = 0; v < f->ndev; v++) {
			int p = (int)((v / st) % f->dims[i]);
			int has = f->plus_edge[v * f->ndims + i] >= 0;
			if (p < f->dims[i] - 1 && !has) {
				fx_dorsum_free(s);
				return NULL;
			}
			if (p == f->dims[i] - 1) {
				if (!seen++)
					s->last[i] = (uint8_t)has;
				else if (s->last[i] != has) {
					fx_dorsum_free(s);
					return NULL;
				}
			}
		}
	}
	for (int i = 0; i < f->ndims; i++)
		if ((uint64_t)f->dims[i] > s->kmax)
			s->kmax = (uint64_t)f->dims[i];
	size_t n = (size_t)(2 * f->ndims) * (size_t)f->ndev;
	s->acc = fx_xcalloc(n, sizeof *s->acc);
	s->acc_line = fx_xcalloc(n, 1);
	return s;
}

void fx_dorsum_free(fx_dorsum *s)
{
	if (!s)
		return;
	free(s->pt);
	free(s->tmp);
	free(s->acc);
	free(s->acc_line);
	free(s->lines);
	free(s);
}

void fx_dorsum_point(fx_dorsum *s, int64_t line, int pos, double delta)
{
	s->pt = fx_xgrow(s->pt, &s->cappt, s->npt + 1, sizeof *s->pt);
	s->pt[s->npt].line = line;
	s->pt[s->npt].pos = pos;
	s->pt[s->npt].seq = (uint32_t)s->npt;
	s->pt[s->npt].delta = delta;
	s->npt++;
}

/*
 * Sorts the round's points by (line, position), stably (a position's
 * entries stay in insertion order, route.c's order): a least-significant-
 * digit radix sort on line * kmax + position, 11 bits a pass and as many
 * passes as the largest key needs.  O(points) a pass; the generic merge
 * sort it replaces spent most of a 16x16x16 pairwise all-to-all (10 of its
 * 11 s) moving points with memcpy.
 */
static void sort_points(fx_dorsum *s)
{
	size_t n = s->npt;
	if (n < 2)
		return;
	uint64_t maxkey = 0;
	for (size_t a = 0; a < n; a++) {
		uint64_t key = (uint64_t)s->pt[a].line * s->kmax + (uint64_t)s->pt[a].pos;
		if (key > maxkey)
			maxkey = key;
	}
	s->tmp = fx_xgrow(s->tmp, &s->captmp, n, sizeof *s->tmp);
	dorsum_pt *from = s->pt, *to = s->tmp;
	enum { BITS = 11, BUCKETS = 1 << BITS };
	size_t count[BUCKETS];
	for (unsigned shift = 0; shift < 64 && (maxkey >> shift) != 0; shift += BITS) {
		memset(count, 0, sizeof count);
		for (size_t a = 0; a < n; a++)
			count[(((uint64_t)from[a].line * s->kmax + (uint64_t)from[a].pos) >> shift) &
			      (BUCKETS - 1)]++;
		size_t at = 0;
		for (size_t b = 0; b < BUCKETS; b++) {
			size_t c = count[b];
			count[b] = at;
			at += c;
		}
		for (size_t a = 0; a < n; a++)
			to[count[(((uint64_t)from[a].line * s->kmax + (uint64_t)from[a].pos) >> shift) &
				 (BUCKETS - 1)]++] = from[a];
		dorsum_pt *t = from;
		from = to;
		to = t;
	}
	if (from != s->pt) {  /* an odd number of passes: the points are in tmp */
		s->tmp = s->pt;
		s->pt = from;
		size_t c = s->cappt;
		s->cappt = s->captmp;
		s->captmp = c;
	}
}

void fx_dorsum_sort(fx_dorsum *s)
{
	sort_points(s);
}

size_t fx_dorsum_npoints(const fx_dorsum *s)
{
	return s->npt;
}

void fx_dorsum_point_at(const fx_dorsum *s, size_t i, int64_t *line, int *pos, double *delta)
{
	*line = s->pt[i].line;
	*pos = s->pt[i].pos;
	*delta = s->pt[i].delta;
}

void fx_dorsum_round(fx_dorsum *s, int64_t repeat, double *max_bytes, double *total,
		     double *worst)
{
	const fx_fabric *f = s->f;
	int64_t N = f->ndev;
	sort_points(s);
	double mx = 0, tot = 0;
	for (size_t a = 0; a < s->npt;) {
		int64_t line = s->pt[a].line;
		int64_t slot = line / N, base = line % N;
		int i = (int)(slot / 2), k = f->dims[i];
		int64_t st = stride_of(f, i);
		(void)base;
		if (!s->acc_line[line]) {
			s->acc_line[line] = 1;
			s->lines = fx_xgrow(s->lines, &s->caplines, s->nlines + 1, sizeof *s->lines);
			s->lines[s->nlines++] = line;
		}
		double run = 0;
		size_t b = a;
		while (b < s->npt && s->pt[b].line == line) {
			int p = s->pt[b].pos;
			double here = 0;  /* route.c's df[p]: this position's entries in order */
			for (; b < s->npt && s->pt[b].line == line && s->pt[b].pos == p; b++)
				here += s->pt[b].delta;
			s->acc[slot * N + base + (int64_t)p * st] += here * (double)repeat;
			run += here;
			/* positions p .. next breakpoint - 1 carry run */
			int q = b < s->npt && s->pt[b].line == line ? s->pt[b].pos : k;
			if (run == 0)
				continue;
			/* positions p .. q-1; k-1 counts only where it has a link */
			int64_t links = q - p - (q == k && !s->last[i] ? 1 : 0);
			if (links <= 0)
				continue;
			if (run > mx)
				mx = run;
			tot += run * (double)links;
		}
		a = b;
	}
	s->npt = 0;
	*max_bytes = mx;
	*total = tot;
	*worst = mx / s->cap;
}

void fx_dorsum_finish(fx_dorsum *s, double *link_bytes, double *link_busy)
{
	const fx_fabric *f = s->f;
	int64_t N = f->ndev;
	s->npt = 0;  /* a round left open by a failed add */
	for (size_t t = 0; t < s->nlines; t++) {
		int64_t line = s->lines[t], slot = line / N, base = line % N;
		int i = (int)(slot / 2), dir = (int)(slot % 2), k = f->dims[i];
		int64_t st = stride_of(f, i);
		double run = 0;
		for (int p = 0; p < k; p++) {
			int64_t v = base + (int64_t)p * st;
			run += s->acc[slot * N + v];
			s->acc[slot * N + v] = 0;
			int64_t e = f->plus_edge[v * f->ndims + i];
			if (run == 0 || e < 0)
				continue;
			/* + runs v -> v+1, - runs v+1 -> v (route.c dor_init) */
			int64_t l = dir == 0 ? fx_fabric_dirlink(f, e, v)
					     : fx_fabric_dirlink(f, e, fx_fabric_other(f, e, v));
			link_bytes[l] += run;
			link_busy[l] += run / s->cap;
		}
		s->acc_line[line] = 0;
	}
	s->nlines = 0;
}
