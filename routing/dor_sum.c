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
 *
 * A round with points for a good share of the positions (a ring's or a
 * binomial tree's first rounds over a whole wafer: 1.5 M points) skips the
 * sort: its points are added in insertion order into a dense array by
 * (line, position), so each position's sum is the sorted path's, and the
 * touched lines are read in line order, position by position, with the
 * positions that had points as the breakpoints.  Every figure is the
 * sorted path's bit for bit (tests/unit/test_lattice_fast.c).
 *
 * The per-position arrays (the dense round's and the collective's
 * repeat-weighted sums) run line by line, positions in a row, so a line
 * of the second dimension is read in one sweep rather than one cache line
 * per position.
 *
 * A round that repeats an earlier one (an allreduce's all-gather replays
 * its reduce-scatter; fx_twins) replays the earlier round's breakpoint
 * sums, kept when asked (fx_dorsum_keep_next), instead of being routed:
 * the same additions in the same order, so the same figures.
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

/* A kept round: its breakpoint sums (acc positions and sums, zero sums
 * left out) and figures, for rounds that repeat it. */
typedef struct dorsum_keep {
	size_t id;
	int64_t *at;           /* acc positions */
	double *here;
	size_t n;
	int64_t *lines;        /* line ids it touched */
	size_t nlines;
	double mx, tot;
} dorsum_keep;

#define KEEP_BYTES (64.0 * 1024 * 1024)  /* kept breakpoints, at most */

struct fx_dorsum {
	const fx_fabric *f;
	double cap;            /* every link's count x bandwidth */
	uint8_t last[FX_MAX_DIMS];  /* position k-1 of a line of dimension i has a link */
	int64_t st[FX_MAX_DIMS];    /* stride of dimension i in vertex ids */
	dorsum_pt *pt;
	size_t npt, cappt;
	dorsum_pt *tmp;        /* sort_points' scratch */
	size_t captmp;
	uint64_t kmax;         /* the longest dimension: keys are line * kmax + position */
	double *acc;           /* [2D x N]: repeat-weighted breakpoints, line by line */
	uint8_t *acc_line;     /* [2D x N] by line id: line has entries in acc */
	int64_t *lines;        /* lines with entries in acc */
	size_t nlines, caplines;
	int mode;              /* -1: dense rounds when they pay, 0 never, 1 always */
	int dense_on;          /* the open round's points go to den */
	int no_replay;         /* tests: every round routed (fx_dorsum_set_replay) */
	size_t nreplayed, ndense;  /* rounds replayed and closed dense, for tests */
	double *den;           /* [2D x N] line by line: a dense round's position sums */
	uint8_t *mark;         /* [2D x N] line by line: the position has points */
	uint8_t *lmark;        /* [2D x N] by line id: the dense round touched the line */
	/* keeping the round being closed (keep_on) and the rounds kept */
	int keep_on;
	size_t keep_id;
	int64_t *kat;
	double *khere;
	size_t kn, kcap;
	int64_t *klines;
	size_t knl, kcapl;
	int keep_full;         /* a round was too large to keep within KEEP_BYTES */
	dorsum_keep *kept;
	size_t nkept;
	double kept_bytes;
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
	for (int i = 0; i < f->ndims; i++) {
		if ((uint64_t)f->dims[i] > s->kmax)
			s->kmax = (uint64_t)f->dims[i];
		s->st[i] = stride_of(f, i);
	}
	size_t n = (size_t)(2 * f->ndims) * (size_t)f->ndev;
	s->acc = fx_xcalloc(n, sizeof *s->acc);
	s->acc_line = fx_xcalloc(n, 1);
	s->mode = -1;
	return s;
}

void fx_dorsum_set_dense(fx_dorsum *s, int mode)
{
	s->mode = mode;
}

/* Where position 0 of line `line` (slot * N + base) sits in the line-by-
 * line arrays: the slot's lines in order of base, k positions each. */
static inline int64_t line_start(const fx_dorsum *s, int64_t line, int *dim, int64_t *base)
{
	int64_t N = s->f->ndev, slot = line / N, b = line % N;
	int i = (int)(slot / 2);
	int64_t st = s->st[i], k = s->f->dims[i];
	*dim = i;
	*base = b;
	return slot * N + (b % st + b / (st * k) * st) * k;
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
	free(s->den);
	free(s->mark);
	free(s->lmark);
	free(s->kat);
	free(s->khere);
	free(s->klines);
	for (size_t k = 0; k < s->nkept; k++) {
		free(s->kept[k].at);
		free(s->kept[k].here);
		free(s->kept[k].lines);
	}
	free(s->kept);
	free(s);
}

/* A round goes dense when its points are at least 1/DENSE_SHARE of the
 * positions: the sort moves each point three times (and its scratch is
 * as large as the points), the dense pass adds each point once and reads
 * the touched lines' position marks, eight at a time. */
#define DENSE_SHARE 32

/* The dense arrays, made on the first dense round. */
static void dense_alloc(fx_dorsum *s)
{
	if (s->den)
		return;
	size_t n = (size_t)(2 * s->f->ndims) * (size_t)s->f->ndev;
	s->den = fx_xcalloc(n, sizeof *s->den);
	s->mark = fx_xcalloc(n, 1);
	s->lmark = fx_xcalloc(n, 1);
}

void fx_dorsum_expect(fx_dorsum *s, double npoints)
{
	s->dense_on = s->mode >= 0 ? s->mode
		      : npoints * DENSE_SHARE >= 2.0 * s->f->ndims * (double)s->f->ndev;
	if (s->dense_on)
		dense_alloc(s);
}

void fx_dorsum_point(fx_dorsum *s, int64_t line, int pos, double delta)
{
	if (s->dense_on) {  /* added in insertion order: each position's sum as sorted */
		int64_t base;
		int i;
		int64_t at = line_start(s, line, &i, &base) + pos;
		s->den[at] += delta;
		s->mark[at] = 1;
		s->lmark[line] = 1;
		return;
	}
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

/* Notes a breakpoint sum of the round being kept. */
static inline void keep_here(fx_dorsum *s, int64_t at, double here)
{
	if (!s->keep_on || here == 0)  /* adding 0 leaves acc as it is */
		return;
	if (s->kn == s->kcap) {
		s->kat = fx_xgrow(s->kat, &s->kcap, s->kn + 1, sizeof *s->kat);
		s->khere = fx_xrealloc(s->khere, s->kcap * sizeof *s->khere);
	}
	s->kat[s->kn] = at;
	s->khere[s->kn++] = here;
}

/* The line enters the collective's sums (and the kept round's lines). */
static inline void acc_touch(fx_dorsum *s, int64_t line)
{
	if (!s->acc_line[line]) {
		s->acc_line[line] = 1;
		s->lines = fx_xgrow(s->lines, &s->caplines, s->nlines + 1, sizeof *s->lines);
		s->lines[s->nlines++] = line;
	}
	if (s->keep_on) {
		s->klines = fx_xgrow(s->klines, &s->kcapl, s->knl + 1, sizeof *s->klines);
		s->klines[s->knl++] = line;
	}
}

/* A run of `run` bytes from breakpoint p to the next one, q, of a line of
 * dimension i (k positions): positions p .. q-1, k-1 counting only where
 * it has a link. */
static inline void span(const fx_dorsum *s, int i, int k, int p, int q, double run, double *mx,
			double *tot)
{
	if (run == 0)
		return;
	int64_t links = q - p - (q == k && !s->last[i] ? 1 : 0);
	if (links <= 0)
		return;
	if (run > *mx)
		*mx = run;
	*tot += run * (double)links;
}

/* The round from its sorted points. */
static void round_sorted(fx_dorsum *s, int64_t repeat, double *mx, double *tot)
{
	const fx_fabric *f = s->f;
	sort_points(s);
	for (size_t a = 0; a < s->npt;) {
		int64_t line = s->pt[a].line, base;
		int i;
		int64_t at0 = line_start(s, line, &i, &base);
		int k = f->dims[i];
		acc_touch(s, line);
		double run = 0;
		size_t b = a;
		while (b < s->npt && s->pt[b].line == line) {
			int p = s->pt[b].pos;
			double here = 0;  /* route.c's df[p]: this position's entries in order */
			for (; b < s->npt && s->pt[b].line == line && s->pt[b].pos == p; b++)
				here += s->pt[b].delta;
			s->acc[at0 + p] += here * (double)repeat;
			keep_here(s, at0 + p, here);
			run += here;
			/* positions p .. next breakpoint - 1 carry run */
			int q = b < s->npt && s->pt[b].line == line ? s->pt[b].pos : k;
			span(s, i, k, p, q, run, mx, tot);
		}
		a = b;
	}
}

/* The round from a dense array: points added in insertion order (each
 * position's sum as the sorted path's), lines read in line order. */
static void round_dense(fx_dorsum *s, int64_t repeat, double *mx, double *tot)
{
	const fx_fabric *f = s->f;
	int64_t N = f->ndev;
	for (int slot = 0; slot < 2 * f->ndims; slot++) {
		int i = slot / 2, k = f->dims[i];
		int64_t st = s->st[i], nl = N / k;
		for (int64_t r = 0; r < nl; r++) {  /* lines in order of base */
			int64_t base = r % st + r / st * st * k, line = slot * N + base;
			if (!s->lmark[line])
				continue;
			s->lmark[line] = 0;
			acc_touch(s, line);
			int64_t at0 = slot * N + r * k;
			double *den = s->den + at0;
			uint8_t *mk = s->mark + at0;
			double run = 0;
			int prev = -1;
			for (int p = 0; p < k; p++) {
				if (p % 8 == 0 && p + 8 <= k) {  /* eight positions without points */
					uint64_t w;
					memcpy(&w, mk + p, sizeof w);
					if (w == 0) {
						p += 7;
						continue;
					}
				}
				if (!mk[p])
					continue;
				if (prev >= 0)
					span(s, i, k, prev, p, run, mx, tot);
				double here = den[p];
				den[p] = 0;
				mk[p] = 0;
				s->acc[at0 + p] += here * (double)repeat;
				keep_here(s, at0 + p, here);
				run += here;
				prev = p;
			}
			if (prev >= 0)
				span(s, i, k, prev, k, run, mx, tot);
		}
	}
}

void fx_dorsum_set_replay(fx_dorsum *s, int on)
{
	s->no_replay = !on;
}

void fx_dorsum_counts(const fx_dorsum *s, size_t *dense, size_t *replayed)
{
	*dense = s->ndense;
	*replayed = s->nreplayed;
}

void fx_dorsum_keep_next(fx_dorsum *s, size_t id)
{
	s->keep_on = !s->keep_full && !s->no_replay;
	s->keep_id = id;
	s->kn = s->knl = 0;
}

void fx_dorsum_round(fx_dorsum *s, int64_t repeat, double *max_bytes, double *total,
		     double *worst)
{
	double mx = 0, tot = 0;
	if (s->dense_on) {
		round_dense(s, repeat, &mx, &tot);
		s->ndense++;
	} else
		round_sorted(s, repeat, &mx, &tot);
	s->npt = 0;
	s->dense_on = 0;
	*max_bytes = mx;
	*total = tot;
	*worst = mx / s->cap;
	if (s->keep_on) {
		s->keep_on = 0;
		double bytes = (double)s->kn * 16 + (double)s->knl * 8;
		if (s->kept_bytes + bytes > KEEP_BYTES) {
			s->keep_full = 1;  /* later rounds are larger or as large, mostly */
			return;
		}
		s->kept = fx_xrealloc(s->kept, (s->nkept + 1) * sizeof *s->kept);
		dorsum_keep *k = &s->kept[s->nkept++];
		k->id = s->keep_id;
		k->n = s->kn;
		k->at = fx_xmalloc((s->kn ? s->kn : 1) * sizeof *k->at);
		k->here = fx_xmalloc((s->kn ? s->kn : 1) * sizeof *k->here);
		if (s->kn) {  /* (a round of zero sums has none, and no arrays yet) */
			memcpy(k->at, s->kat, s->kn * sizeof *k->at);
			memcpy(k->here, s->khere, s->kn * sizeof *k->here);
		}
		k->nlines = s->knl;
		k->lines = fx_xmalloc((s->knl ? s->knl : 1) * sizeof *k->lines);
		if (s->knl)
			memcpy(k->lines, s->klines, s->knl * sizeof *k->lines);
		k->mx = mx;
		k->tot = tot;
		s->kept_bytes += bytes;
	}
}

int fx_dorsum_replay(fx_dorsum *s, size_t id, int64_t repeat, double *max_bytes, double *total,
		     double *worst)
{
	const dorsum_keep *k = NULL;
	for (size_t j = 0; j < s->nkept && !k && !s->no_replay; j++)
		if (s->kept[j].id == id)
			k = &s->kept[j];
	if (!k)
		return 0;
	s->nreplayed++;
	s->npt = 0;
	for (size_t j = 0; j < k->nlines; j++)
		if (!s->acc_line[k->lines[j]]) {
			s->acc_line[k->lines[j]] = 1;
			s->lines = fx_xgrow(s->lines, &s->caplines, s->nlines + 1, sizeof *s->lines);
			s->lines[s->nlines++] = k->lines[j];
		}
	for (size_t j = 0; j < k->n; j++)
		s->acc[k->at[j]] += k->here[j] * (double)repeat;
	*max_bytes = k->mx;
	*total = k->tot;
	*worst = k->mx / s->cap;
	return 1;
}

void fx_dorsum_finish(fx_dorsum *s, double *link_bytes, double *link_busy)
{
	const fx_fabric *f = s->f;
	int64_t N = f->ndev;
	s->npt = 0;  /* a round left open by a failed add */
	/* kept rounds are this collective's (ids are its round numbers): the
	 * next collective on the router starts with none */
	for (size_t k = 0; k < s->nkept; k++) {
		free(s->kept[k].at);
		free(s->kept[k].here);
		free(s->kept[k].lines);
	}
	s->nkept = 0;
	s->kept_bytes = 0;
	s->keep_full = 0;
	s->keep_on = 0;
	if (s->dense_on) {
		size_t n = (size_t)(2 * f->ndims) * (size_t)N;
		memset(s->den, 0, n * sizeof *s->den);
		memset(s->mark, 0, n);
		memset(s->lmark, 0, n);
		s->dense_on = 0;
	}
	for (size_t t = 0; t < s->nlines; t++) {
		int64_t line = s->lines[t], base;
		int i;
		int64_t at0 = line_start(s, line, &i, &base);
		int dir = (int)(line / N % 2), k = f->dims[i];
		int64_t st = s->st[i];
		double run = 0;
		for (int p = 0; p < k; p++) {
			int64_t v = base + (int64_t)p * st;
			run += s->acc[at0 + p];
			s->acc[at0 + p] = 0;
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
