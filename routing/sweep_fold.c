/*
 * The all-pairs sweep folded by symmetry (issue #31 item 2).
 *
 * fx_sweep_all_pairs pushes every set of sibling devices (a UB node's
 * NPUs on its 7 L1 chips, an NVSwitch tray's GPUs on its chips) once:
 * m sets, one search and push each, O(m (V + E)), quadratic in the
 * fabric's size.  Where a proven automorphism g of the fabric moves set k
 * onto set k + 1 (mod m) -- a UB or NVSwitch fabric's turn of its nodes
 * -- every set's push is an image of set 0's: all pairs into g(S) load
 * link g(l) with what all pairs into S load l (g keeps the devices, the
 * shortest paths and the split's count x bandwidth weights).  So, with
 * c_k(l) set k's bytes on directed link l and rep = c_0,
 *
 *     c_k(l) = c_0(g^-k(l)),    load(l) = sum_k c_k(l) = sum_k rep(g^-k(l)),
 *
 * one push and a walk round each cycle of g on the directed links.
 *
 * Bit for bit: the sweep adds set k's bytes to a link once per set (a
 * vertex is pushed from once, the class's own up and down links are
 * loaded once), in set order k = 0, 1, ..., so the fold adds the same
 * terms in that order (not m x their mean, whose rounding differs).  A
 * link's terms round its cycle are one value x but for at most one y on
 * UB and NVSwitch fabrics (set 0's own node), so the sum depends only on
 * (x, y, the cycle's length, y's place) and is computed once per such key
 * (O(m) each: O(m^2) additions for a few keys, where the pushes cost
 * O(m (V + E))).  Other cycles are summed term by term.  The terms equal
 * the per-set pushes' own bytes when those pushes add the same amounts in
 * an order that does not matter (equal amounts from the other nodes);
 * the sweep checks set 1's push against rep's image before it folds and
 * otherwise pushes every set.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

typedef struct cyc_ctx {
	const fx_fabric *f;
	const int64_t *setof;
	int64_t m;
	int64_t *ginv;    /* out */
	int64_t *emap;
	int64_t *off, *bund;  /* every bundle of each vertex, in id order */
	int found;
} cyc_ctx;

/* Each bundle's image under perm into emap: the first bundle not yet
 * taken that joins the images of its ends with its bandwidth, count,
 * state, latency and weight, found among the incidences of the image of
 * its end of fewer bundles (a UB L1 chip's 28, not an L2 chip's
 * thousands: O(E x that degree), where sorting every bundle cost more
 * than the pushes).  Parallel alike bundles pair in id order, as
 * fx_fabric_edge_images pairs them.  0 when some bundle has no image
 * (perm is then no automorphism), or when both ends of a bundle have
 * more than 256 bundles (the sort instead). */
static int edge_images(const cyc_ctx *c, const int64_t *perm)
{
	const fx_fabric *f = c->f;
	uint8_t *taken = fx_xcalloc((size_t)(f->ne + 1), 1);
	int ok = 1;
	for (int64_t e = 0; e < f->ne && ok; e++) {
		int64_t a = f->ends[2 * e], b = f->ends[2 * e + 1];
		if (c->off[b + 1] - c->off[b] < c->off[a + 1] - c->off[a]) {
			int64_t t = a;
			a = b;
			b = t;
		}
		if (c->off[a + 1] - c->off[a] > 256) {
			free(taken);
			return fx_fabric_edge_images(f, perm, c->emap);
		}
		int64_t pa = perm[a], pb = perm[b], hit = -1;
		const fx_link *x = &f->e[e];
		for (int64_t t = c->off[pa]; t < c->off[pa + 1] && hit < 0; t++) {
			int64_t g = c->bund[t];
			const fx_link *y = &f->e[g];
			if (!taken[g] && fx_fabric_other(f, g, pa) == pb && y->bw == x->bw &&
			    y->count == x->count && y->lat == x->lat && y->cost == x->cost &&
			    fx_fabric_edge_up(f, g) == fx_fabric_edge_up(f, e))
				hit = g;
		}
		ok = hit >= 0;
		if (ok) {
			taken[hit] = 1;
			c->emap[e] = hit;
		}
	}
	free(taken);
	return ok;
}

static void try_cycle(void *vctx, const int64_t *perm)
{
	cyc_ctx *c = vctx;
	const fx_fabric *f = c->f;
	if (c->found)
		return;
	/* cheap first: set k onto set k + 1, the other devices off the sets */
	for (int64_t d = 0; d < f->ndev; d++) {
		int64_t to = perm[d];
		if (to < 0 || to >= f->ndev)
			return;
		int64_t want = c->setof[d] < 0 ? -1 : (c->setof[d] + 1) % c->m;
		if (c->setof[to] != want)
			return;
	}
	if (!edge_images(c, perm) ||
	    !fx_fabric_automorphism(f, perm, c->emap, NULL, 0, NULL))
		return;
	/* what the check leaves out and the sweep reads: latencies (the
	 * paths' figures) and routing weights */
	for (int64_t e = 0; e < f->ne; e++) {
		const fx_link *a = &f->e[e], *b = &f->e[c->emap[e]];
		if (a->lat != b->lat || a->cost != b->cost)
			return;
	}
	for (int64_t e = 0; e < f->ne; e++)
		for (int k = 0; k < 2; k++) {
			int64_t v = f->ends[2 * e + k];
			int64_t to = fx_fabric_dirlink(f, c->emap[e], perm[v]);
			c->ginv[to] = fx_fabric_dirlink(f, e, v);
		}
	c->found = 1;
}

int fx_fold_cycle(const fx_fabric *f, const int64_t *setof, int64_t m, int64_t *ginv)
{
	if (m < 2 || !f->builder || !f->builder->symmetries)
		return 0;
	for (int64_t e = 0; e < f->ne; e++)
		if (f->ends[2 * e] == f->ends[2 * e + 1])
			return 0;  /* a loop's two directions are one id */
	cyc_ctx c = {f, setof, m, ginv, fx_xmalloc((size_t)(f->ne + 1) * sizeof *c.emap), NULL,
		     NULL, 0};
	c.off = fx_xcalloc((size_t)(f->nv + 2), sizeof *c.off);
	c.bund = fx_xmalloc((size_t)(2 * f->ne + 1) * sizeof *c.bund);
	for (int64_t e = 0; e < f->ne; e++) {
		c.off[f->ends[2 * e] + 2]++;
		c.off[f->ends[2 * e + 1] + 2]++;
	}
	for (int64_t v = 0; v < f->nv; v++)
		c.off[v + 2] += c.off[v + 1];
	for (int64_t e = 0; e < f->ne; e++)
		for (int k = 0; k < 2; k++)
			c.bund[c.off[f->ends[2 * e + k] + 1]++] = e;
	f->builder->symmetries(f, try_cycle, &c);
	free(c.off);
	free(c.bund);
	free(c.emap);
	return c.found;
}

/* ---- the sums, one per key ---- */

/* The cycles whose terms are x but y at one place, of one length p: the
 * sum for y at term r is sum[r], NaN until asked for. */
typedef struct fold_family {
	double x, y;
	int64_t p;
	double *sum;
} fold_family;

typedef struct fold_memo {
	fold_family *fam;
	size_t n, cap;
} fold_memo;

/* The family of (x, y, p), made when new (few: a linear search). */
static fold_family *family(fold_memo *t, double x, double y, int64_t p)
{
	for (size_t i = 0; i < t->n; i++) {
		fold_family *g = &t->fam[i];
		if (!memcmp(&g->x, &x, sizeof x) && !memcmp(&g->y, &y, sizeof y) && g->p == p)
			return g;
	}
	t->fam = fx_xgrow(t->fam, &t->cap, t->n + 1, sizeof *t->fam);
	fold_family *g = &t->fam[t->n++];
	*g = (fold_family){x, y, p, fx_xmalloc((size_t)p * sizeof *g->sum)};
	for (int64_t r = 0; r < p; r++)
		g->sum[r] = NAN;
	return g;
}

/* 0 + term_0 + term_1 + ... + term_{m-1}, left to right, term_k = y when
 * k = r (mod p), else x. */
static double family_sum(fold_family *g, int64_t r, int64_t m)
{
	if (!isnan(g->sum[r]))
		return g->sum[r];
	double acc = 0;
	for (int64_t i = 0, q = 0; i < m; i++) {
		acc += q == r ? g->y : g->x;
		if (++q == g->p)
			q = 0;
	}
	return g->sum[r] = acc;
}

void fx_fold_replay(const int64_t *ginv, int64_t nl, const double *rep, int64_t m, double *load,
		    int64_t **used, size_t *nused, size_t *capused)
{
	uint8_t *done = fx_xcalloc((size_t)(nl ? nl : 1), 1);
	uint8_t *fresh = fx_xcalloc((size_t)(nl ? nl : 1), 1);
	int64_t *cyc = fx_xmalloc((size_t)(nl ? nl : 1) * sizeof *cyc);
	fold_memo memo = {0};
	for (int64_t l0 = 0; l0 < nl; l0++) {
		if (done[l0])
			continue;
		/* the cycle l0, g^-1(l0), g^-2(l0), ...: link l_i's terms are
		 * rep(l_i), rep(l_{i+1}), ... (set k loads l_i with rep(l_{i+k})) */
		int64_t p = 0, nz = 0;
		for (int64_t l = l0; !done[l]; l = ginv[l]) {
			done[l] = 1;
			cyc[p++] = l;
			nz += rep[l] != 0;
		}
		if (nz == 0)
			continue;  /* no set loads these links */
		/* x the value of all terms but at most one (at j) */
		double x = rep[cyc[0]];
		int64_t j = -1, odd = 0;
		for (int pass = 0; pass < 2 && p > 1; pass++) {
			x = rep[cyc[pass]];
			j = -1;
			odd = 0;
			for (int64_t i = 0; i < p; i++)
				if (rep[cyc[i]] != x) {
					j = i;
					odd++;
				}
			if (odd <= 1)
				break;
		}
		fold_family *g = odd > 1 ? NULL : odd ? family(&memo, x, rep[cyc[j]], p)
						      : family(&memo, x, x, 1);
		for (int64_t i = 0; i < p; i++) {
			int64_t l = cyc[i];
			double before = load[l], sum;
			if (g && before == 0) {
				sum = family_sum(g, odd ? ((j - i) % p + p) % p : 0, m);
			} else {  /* term by term, as the sets add them */
				sum = before;
				for (int64_t k = 0, q = i; k < m; k++) {
					sum += rep[cyc[q]];
					if (++q == p)
						q = 0;
				}
			}
			load[l] = sum;
			fresh[l] = before == 0 && sum != 0;
		}
	}
	/* links loaded from zero, listed in link order */
	for (int64_t l = 0; l < nl; l++)
		if (fresh[l]) {
			*used = fx_xgrow(*used, capused, *nused + 1, sizeof **used);
			(*used)[(*nused)++] = l;
		}
	for (size_t i = 0; i < memo.n; i++)
		free(memo.fam[i].sum);
	free(memo.fam);
	free(cyc);
	free(fresh);
	free(done);
}
