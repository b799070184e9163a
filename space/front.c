/*
 * space: which points meet the constraints, which are Pareto-optimal, and
 * which to evaluate when the grid is too large (Latin hypercube sampling).
 */
#include <math.h>
#include <stdlib.h>

#include "../core/xalloc.h"
#include "space.h"

int fx_space_feasible(const fx_space *s, const double *m, size_t *failed)
{
	for (size_t k = 0; k < s->ncons; k++) {
		/* NaN (the metric could not be computed) fails every bound */
		if (!(m[k] >= s->cons[k].lo && m[k] <= s->cons[k].hi)) {
			*failed = k;
			return 0;
		}
	}
	return 1;
}

/* Whether a dominates b: no worse in every objective, better in one. */
static int dominates(const fx_space *s, const double *a, const double *b)
{
	int better = 0;
	for (size_t k = 0; k < s->nobj; k++) {
		double x = s->obj[k].sense == FX_SPACE_MAX ? -a[k] : a[k];
		double y = s->obj[k].sense == FX_SPACE_MAX ? -b[k] : b[k];
		if (x > y)
			return 0;
		better |= x < y;
	}
	return better;
}

/* Θ(n²·objectives): a 10,000-point space is 10⁸ comparisons, well under
 * a second, and needs no assumption on the number of objectives. */
void fx_space_pareto(const fx_space *s, size_t n, const double *vals,
		     const unsigned char *feasible, unsigned char *pareto)
{
	size_t m = s->nobj;
	for (size_t i = 0; i < n; i++) {
		int ok = feasible[i] && m > 0;
		for (size_t k = 0; ok && k < m; k++)
			ok = !isnan(vals[i * m + k]);
		for (size_t j = 0; ok && j < n; j++) {
			if (j == i || !feasible[j])
				continue;
			int comparable = 1;
			for (size_t k = 0; comparable && k < m; k++)
				comparable = !isnan(vals[j * m + k]);
			ok = !(comparable && dominates(s, &vals[j * m], &vals[i * m]));
		}
		pareto[i] = (unsigned char)ok;
	}
}

/* splitmix64 (Steele, Lea and Flood 2014): a fixed, documented generator,
 * so a seed gives the same sample on every machine and libc. */
static uint64_t next(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

size_t fx_space_sample(const fx_space *s, size_t n, uint64_t seed, uint64_t *out)
{
	if (n == 0)
		return 0;
	uint64_t rng = seed;
	size_t *perm = fx_xcalloc(n, sizeof *perm);
	for (size_t i = 0; i < n; i++)
		out[i] = 0;
	for (size_t a = 0; a < s->naxes; a++) {
		size_t m = s->axes[a].nvals;
		/* a random permutation of the n strata (Fisher–Yates) */
		for (size_t i = 0; i < n; i++)
			perm[i] = i;
		for (size_t i = n; i-- > 1;) {
			size_t j = (size_t)(next(&rng) % (i + 1));
			size_t t = perm[i];
			perm[i] = perm[j];
			perm[j] = t;
		}
		/* point i takes stratum perm[i]: a uniform draw inside it,
		 * mapped to one of the axis's m values */
		for (size_t i = 0; i < n; i++) {
			double u = ((double)perm[i] + (double)(next(&rng) >> 11) * 0x1p-53) / (double)n;
			size_t v = (size_t)(u * (double)m);
			out[i] = out[i] * m + (v < m ? v : m - 1);
		}
	}
	free(perm);
	qsort(out, n, sizeof *out, cmp_u64);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (k == 0 || out[i] != out[k - 1])
			out[k++] = out[i];
	return k;
}
