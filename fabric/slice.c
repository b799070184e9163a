/*
 * Slices of a lattice (the chapter "Supernodes" §6.5.4): whether jobs
 * that each need an adjacent block of chips fit the idle chips.  Two idle
 * rows of a 4x4 grid host two 2x2 jobs; the same eight chips idle in a
 * checkerboard host none.
 *
 * Candidates are every placement of the block (each axis order of its
 * extents, every origin; across the wrap on a torus) whose chips are all
 * idle; a depth-first search over them in order finds the most disjoint
 * ones, stopping at the jobs asked for, or at the idle chips over a
 * block's (a count that bounds any placement).  The search is exhaustive,
 * so "fewer fit" is a proof, unless it runs out of its step budget.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "fabric.h"

typedef struct cand {
	int origin[FX_MAX_DIMS], extent[FX_MAX_DIMS];
	int64_t *cells;        /* into the pool */
} cand;

typedef struct search {
	const fx_fabric *f;
	cand *c;
	size_t nc;
	int64_t vol;           /* chips per block */
	uint8_t *used;
	int jobs, best;
	int *pick, *best_pick;
	long steps, max_steps;
} search;

/* The chips of a block at origin o with extents e, or 0 when it leaves
 * a mesh or touches a busy chip. */
static int block(const fx_fabric *f, const uint8_t *idle, const int *o, const int *e,
		 int64_t *cells)
{
	int x[FX_MAX_DIMS], n = 0;
	int64_t vol = 1;
	for (int i = 0; i < f->ndims; i++) {
		if (!f->wrap[i] && o[i] + e[i] > f->dims[i])
			return 0;
		if (e[i] > f->dims[i])
			return 0;
		vol *= e[i];
	}
	for (int64_t k = 0; k < vol; k++) {
		int64_t r = k, v = 0, stride = 1;
		for (int i = 0; i < f->ndims; i++) {
			x[i] = (int)((o[i] + r % e[i]) % f->dims[i]);
			r /= e[i];
			v += x[i] * stride;
			stride *= f->dims[i];
		}
		if (!idle[v])
			return 0;
		cells[n++] = v;
	}
	return 1;
}

static void dfs(search *s, size_t from, int depth)
{
	if (depth > s->best) {
		s->best = depth;
		memcpy(s->best_pick, s->pick, (size_t)depth * sizeof *s->pick);
	}
	if (s->best >= s->jobs || ++s->steps > s->max_steps)
		return;
	for (size_t i = from; i < s->nc && s->best < s->jobs && s->steps <= s->max_steps; i++) {
		const cand *c = &s->c[i];
		int free_ = 1;
		for (int64_t k = 0; k < s->vol && free_; k++)
			free_ = !s->used[c->cells[k]];
		if (!free_)
			continue;
		for (int64_t k = 0; k < s->vol; k++)
			s->used[c->cells[k]] = 1;
		s->pick[depth] = (int)i;
		dfs(s, i + 1, depth + 1);
		for (int64_t k = 0; k < s->vol; k++)
			s->used[c->cells[k]] = 0;
	}
}

/* Next permutation of a[0..n) in lexicographic order; 0 after the last. */
static int next_perm(int *a, int n)
{
	int i = n - 2;
	while (i >= 0 && a[i] >= a[i + 1])
		i--;
	if (i < 0)
		return 0;
	int j = n - 1;
	while (a[j] <= a[i])
		j--;
	int t = a[i];
	a[i] = a[j];
	a[j] = t;
	for (int l = i + 1, r = n - 1; l < r; l++, r--) {
		t = a[l];
		a[l] = a[r];
		a[r] = t;
	}
	return 1;
}

int fx_lattice_slices(const fx_fabric *f, const uint8_t *idle, const int *shape, int jobs,
		      long max_steps, fx_slice *out, int *found)
{
	search s = {.f = f, .jobs = jobs, .max_steps = max_steps};
	int e[FX_MAX_DIMS], o[FX_MAX_DIMS];
	s.vol = 1;
	for (int i = 0; i < f->ndims; i++) {
		e[i] = shape[i];
		s.vol *= shape[i];
	}
	/* by counting, before any search: disjoint blocks of vol chips are at
	 * most the idle chips over vol, so the search seeks no more (65 jobs of
	 * one chip on 64 chips: 64 found, the 65th proven absent at once,
	 * where seeking 65 searched 10^7 steps and decided nothing) */
	int64_t nidle = 0;
	for (int64_t v = 0; v < f->ndev; v++)
		nidle += idle[v] != 0;
	if (nidle / s.vol < (int64_t)s.jobs)
		s.jobs = (int)(nidle / s.vol);
	/* ascending, so next_perm visits every distinct axis order once */
	for (int i = 1; i < f->ndims; i++)
		for (int j = i; j > 0 && e[j] < e[j - 1]; j--) {
			int t = e[j];
			e[j] = e[j - 1];
			e[j - 1] = t;
		}
	int64_t *pool = NULL;
	size_t cap = 0;
	do {
		for (int64_t v = 0; v < f->ndev; v++) {
			fx_fabric_coords(f, v, o);
			if (s.nc == cap) {
				cap = cap ? 2 * cap : 64;
				s.c = fx_xrealloc(s.c, cap * sizeof *s.c);
				pool = fx_xrealloc(pool, cap * (size_t)s.vol * sizeof *pool);
			}
			if (!block(f, idle, o, e, pool + s.nc * (size_t)s.vol))
				continue;
			memcpy(s.c[s.nc].origin, o, sizeof o);
			memcpy(s.c[s.nc].extent, e, sizeof e);
			s.nc++;
		}
	} while (next_perm(e, f->ndims));
	for (size_t i = 0; i < s.nc; i++)
		s.c[i].cells = pool + i * (size_t)s.vol;
	s.used = fx_xcalloc((size_t)f->ndev + 1, 1);
	s.pick = fx_xcalloc((size_t)jobs + 1, sizeof *s.pick);
	s.best_pick = fx_xcalloc((size_t)jobs + 1, sizeof *s.best_pick);
	dfs(&s, 0, 0);
	*found = s.best;
	for (int j = 0; j < s.best; j++) {
		memcpy(out[j].origin, s.c[s.best_pick[j]].origin, sizeof out[j].origin);
		memcpy(out[j].extent, s.c[s.best_pick[j]].extent, sizeof out[j].extent);
	}
	int decided = s.best >= s.jobs || s.steps <= s.max_steps;
	free(s.c);
	free(pool);
	free(s.used);
	free(s.pick);
	free(s.best_pick);
	return decided ? 0 : -1;
}
