/*
 * Symmetry, proven: the orbits of vertices, bundles and blocks under
 * automorphisms of the fabric that have each been checked here, so that a
 * caller evaluating one element of an orbit may say the rest are alike
 * (fabricx failures fails one switch chip, link or node of each orbit).
 *
 * An automorphism here is a permutation p of the vertices that keeps each
 * vertex's type, switch role and failure state, maps the bundles one to
 * one onto bundles between the images of their ends with the same
 * bandwidth, link count and failure state, and maps each given block
 * system (the canonical split's two sides, a placement's instances, the
 * nodes or racks) onto itself, blocks onto blocks.  What is measured on a
 * fabric from capacities, vertex types and those blocks alone (a
 * max-flow between the sides, each device's bandwidth into the fabric,
 * which devices stay joined, which instances are hit) is the same after
 * failing x as after failing p(x).
 *
 * Candidates come from igraph's automorphism group (bliss, Junttila and
 * Kaski, ALENEX 2007) of an auxiliary simple graph that carries the
 * attributes as colours: each bundle becomes a vertex coloured by its
 * bandwidth, count and state joined to its two ends, and each block a
 * marker vertex joined to its members, the markers of a system sharing a
 * colour so that blocks may be permuted (the two sides swapped).  The
 * kind's own candidates come first (fx_builder.symmetries: a lattice's
 * reflections and shifts, a fat-tree's turns of alike parts): cheap, but
 * they may miss a symmetry; bliss finds them all but grows fast with size,
 * so it runs only up to FX_ORBIT_BLISS_VERTICES.  Either way every
 * candidate is checked by fx_fabric_automorphism before it joins an orbit,
 * and a candidate that fails the check is dropped: orbits are then finer
 * than the fabric's true ones (more elements are evaluated), never wrong.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "fabric.h"

/* ---- the check ---- */

typedef struct ekey {
	int64_t lo, hi;
	double bw;
	int32_t count;
	uint8_t up;
	int64_t id;
} ekey;

static int by_ekey(const void *a, const void *b)
{
	const ekey *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi < y->hi ? -1 : 1;
	if (x->bw != y->bw)
		return x->bw < y->bw ? -1 : 1;
	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	if (x->up != y->up)
		return x->up < y->up ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static ekey key_of(const fx_fabric *f, int64_t e, const int64_t *perm)
{
	int64_t a = f->ends[2 * e], b = f->ends[2 * e + 1];
	if (perm) {
		a = perm[a];
		b = perm[b];
	}
	return (ekey){a < b ? a : b, a < b ? b : a, f->e[e].bw, f->e[e].count,
		      (uint8_t)fx_fabric_edge_up(f, e), e};
}

/* The bundles' keys under perm (NULL: as they are), sorted. */
static ekey *sorted_keys(const fx_fabric *f, const int64_t *perm)
{
	ekey *k = fx_xmalloc((size_t)(f->ne + 1) * sizeof *k);
	for (int64_t e = 0; e < f->ne; e++)
		k[e] = key_of(f, e, perm);
	qsort(k, (size_t)f->ne, sizeof *k, by_ekey);
	return k;
}

/* The bundles as a multiset of (ends, bandwidth, count, state) and their
 * images under perm: when the two are equal, pairs each bundle with an
 * image into edge_map and returns 1.  have: the bundles' own sorted keys
 * (sorted_keys(f, NULL)), or NULL to sort them here; a caller offering
 * many perms sorts them once.  O(E log E). */
static int derive_edges(const fx_fabric *f, const ekey *have, const int64_t *perm,
			int64_t *edge_map)
{
	ekey *own = have ? NULL : sorted_keys(f, NULL);
	ekey *img = sorted_keys(f, perm);
	if (own)
		have = own;
	int ok = 1;
	for (int64_t i = 0; i < f->ne && ok; i++) {
		ekey x = have[i], y = img[i];
		ok = x.lo == y.lo && x.hi == y.hi && x.bw == y.bw && x.count == y.count && x.up == y.up;
		edge_map[y.id] = x.id;
	}
	free(own);
	free(img);
	return ok;
}

int fx_fabric_edge_images(const fx_fabric *f, const int64_t *perm, int64_t *edge_map)
{
	return derive_edges(f, NULL, perm, edge_map);
}

int fx_fabric_automorphism(const fx_fabric *f, const int64_t *perm, const int64_t *edge_map,
			   const fx_blocks *blocks, int nblocks, int64_t **block_map)
{
	int ok = 1;
	uint8_t *seen = fx_xcalloc((size_t)(f->nv > f->ne ? f->nv : f->ne) + 1, 1);
	for (int64_t v = 0; v < f->nv && ok; v++) {
		int64_t w = perm[v];
		ok = w >= 0 && w < f->nv && !seen[w];
		if (!ok)
			break;
		seen[w] = 1;
		ok = f->v[v].type == f->v[w].type && f->v[v].role == f->v[w].role &&
		     fx_fabric_vertex_up(f, v) == fx_fabric_vertex_up(f, w);
	}
	int64_t *derived = NULL;
	if (ok && !edge_map) {
		derived = fx_xmalloc((size_t)(f->ne + 1) * sizeof *derived);
		ok = derive_edges(f, NULL, perm, derived);
		edge_map = derived;
	}
	/* each bundle onto its own image, one to one: a bundle joining the
	 * images of its ends, with its bandwidth, count and state */
	memset(seen, 0, (size_t)(f->nv > f->ne ? f->nv : f->ne) + 1);
	for (int64_t e = 0; e < f->ne && ok; e++) {
		int64_t g = edge_map[e];
		ok = g >= 0 && g < f->ne && !seen[g];
		if (!ok)
			break;
		seen[g] = 1;
		int64_t a = perm[f->ends[2 * e]], b = perm[f->ends[2 * e + 1]];
		int64_t c = f->ends[2 * g], d = f->ends[2 * g + 1];
		ok = ((a == c && b == d) || (a == d && b == c)) && f->e[e].bw == f->e[g].bw &&
		     f->e[e].count == f->e[g].count && fx_fabric_edge_up(f, e) == fx_fabric_edge_up(f, g);
	}
	free(seen);
	free(derived);
	/* each block system onto itself: of[p(v)] = sigma(of[v]), sigma one
	 * to one, and vertices in no block stay in none */
	for (int k = 0; k < nblocks && ok; k++) {
		const fx_blocks *b = &blocks[k];
		int64_t *sigma = fx_xmalloc((size_t)(b->n + 1) * sizeof *sigma);
		uint8_t *hit = fx_xcalloc((size_t)b->n + 1, 1);
		for (int64_t j = 0; j < b->n; j++)
			sigma[j] = -1;
		for (int64_t v = 0; v < f->nv && ok; v++) {
			int64_t x = b->of[v], y = b->of[perm[v]];
			if (x < 0 || y < 0) {
				ok = x == y;
			} else if (sigma[x] < 0) {
				ok = !hit[y];
				sigma[x] = y;
				hit[y] = 1;
			} else {
				ok = sigma[x] == y;
			}
		}
		/* blocks with no members (alike: empty) take the images left */
		for (int64_t j = 0, next = 0; j < b->n && ok; j++)
			if (sigma[j] < 0) {
				while (hit[next])
					next++;
				sigma[j] = next;
				hit[next] = 1;
			}
		if (ok && block_map && block_map[k])
			memcpy(block_map[k], sigma, (size_t)b->n * sizeof *sigma);
		free(sigma);
		free(hit);
	}
	return ok;
}

/* ---- orbits by union-find ---- */

static int64_t root(int64_t *up, int64_t x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

static void join(int64_t *up, int64_t a, int64_t b)
{
	a = root(up, a);
	b = root(up, b);
	if (a != b)
		up[a > b ? a : b] = a < b ? a : b;
}

/* up[] to each element's least orbit member, in place. */
static void settle(int64_t *up, int64_t n)
{
	int64_t *least = fx_xmalloc((size_t)(n + 1) * sizeof *least);
	for (int64_t i = 0; i < n; i++)
		least[i] = -1;
	for (int64_t i = 0; i < n; i++) {
		int64_t r = root(up, i);
		if (least[r] < 0)
			least[r] = i;
	}
	for (int64_t i = 0; i < n; i++)
		up[i] = least[root(up, i)];
	free(least);
}

typedef struct acc {
	const fx_fabric *f;
	const fx_blocks *blocks;
	int nblocks;
	fx_orbits *o;
	int64_t *emap, *bmap[FX_ORBIT_MAX_BLOCKS];
	ekey *have;             /* the bundles' sorted keys, made at the first offer */
} acc;

/* Checks candidate perm; when it is an automorphism, joins the orbits it
 * links. */
static void offer(acc *a, const int64_t *perm, const int64_t *emap)
{
	const fx_fabric *f = a->f;
	if (!emap && !a->have)
		a->have = sorted_keys(f, NULL);
	if (!emap && !derive_edges(f, a->have, perm, a->emap)) {
		a->o->rejected++;
		return;
	}
	if (emap)
		memcpy(a->emap, emap, (size_t)f->ne * sizeof *emap);
	if (!fx_fabric_automorphism(f, perm, a->emap, a->blocks, a->nblocks, a->bmap)) {
		a->o->rejected++;
		return;
	}
	a->o->verified++;
	for (int64_t v = 0; v < f->nv; v++)
		join(a->o->vertex, v, perm[v]);
	for (int64_t e = 0; e < f->ne; e++)
		join(a->o->edge, e, a->emap[e]);
	for (int k = 0; k < a->nblocks; k++)
		for (int64_t j = 0; j < a->blocks[k].n; j++)
			join(a->o->block[k], j, a->bmap[k][j]);
}

/* ---- candidates from igraph's automorphism group ---- */

typedef struct ckey {
	double bw;
	int32_t count;
	uint8_t up;
} ckey;

static int by_ckey(const void *a, const void *b)
{
	const ckey *x = a, *y = b;
	if (x->bw != y->bw)
		return x->bw < y->bw ? -1 : 1;
	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	return (x->up > y->up) - (x->up < y->up);
}

/* The colour classes of vertices: type, role and state. */
#define VCOLOURS (3 * (FX_MAX_ROLES + 1) * 2)

static void from_bliss(acc *a, int64_t naux)
{
	const fx_fabric *f = a->f;
	/* bundle colours: the distinct (bandwidth, count, state) */
	ckey *cls = fx_xmalloc((size_t)(f->ne + 1) * sizeof *cls);
	for (int64_t e = 0; e < f->ne; e++)
		cls[e] = (ckey){f->e[e].bw, f->e[e].count, (uint8_t)fx_fabric_edge_up(f, e)};
	qsort(cls, (size_t)f->ne, sizeof *cls, by_ckey);
	int64_t ncls = 0;
	for (int64_t e = 0; e < f->ne; e++)
		if (ncls == 0 || by_ckey(&cls[ncls - 1], &cls[e]))
			cls[ncls++] = cls[e];
	igraph_vector_int_t colour, ev;
	fx_igraph_alloc(igraph_vector_int_init(&colour, naux));
	for (int64_t v = 0; v < f->nv; v++)
		VECTOR(colour)[v] = (f->v[v].type * (FX_MAX_ROLES + 1) + f->v[v].role + 1) * 2 +
				    fx_fabric_vertex_up(f, v);
	int64_t nedges = 2 * f->ne;
	for (int k = 0; k < a->nblocks; k++)
		for (int64_t v = 0; v < f->nv; v++)
			nedges += a->blocks[k].of[v] >= 0;
	fx_igraph_alloc(igraph_vector_int_init(&ev, 2 * nedges));
	int64_t t = 0;
	for (int64_t e = 0; e < f->ne; e++) {
		ckey c = {f->e[e].bw, f->e[e].count, (uint8_t)fx_fabric_edge_up(f, e)};
		ckey *at = bsearch(&c, cls, (size_t)ncls, sizeof *cls, by_ckey);
		VECTOR(colour)[f->nv + e] = VCOLOURS + (at - cls);
		for (int k = 0; k < 2; k++) {
			VECTOR(ev)[t++] = f->ends[2 * e + k];
			VECTOR(ev)[t++] = f->nv + e;
		}
	}
	int64_t mark = f->nv + f->ne;
	for (int k = 0; k < a->nblocks; k++) {
		for (int64_t j = 0; j < a->blocks[k].n; j++)
			VECTOR(colour)[mark + j] = VCOLOURS + ncls + k;
		for (int64_t v = 0; v < f->nv; v++)
			if (a->blocks[k].of[v] >= 0) {
				VECTOR(ev)[t++] = v;
				VECTOR(ev)[t++] = mark + a->blocks[k].of[v];
			}
		mark += a->blocks[k].n;
	}
	free(cls);
	igraph_t g;
	igraph_vector_int_list_t gens;
	fx_igraph_alloc(igraph_vector_int_list_init(&gens, 0));
	if (igraph_create(&g, &ev, naux, IGRAPH_UNDIRECTED) == IGRAPH_SUCCESS) {
		igraph_bliss_info_t info = {0};
		if (igraph_automorphism_group(&g, &colour, &gens, IGRAPH_BLISS_FL, &info) ==
		    IGRAPH_SUCCESS) {
			a->o->method = a->o->verified ? "the kind's own symmetries and igraph's automorphism "
				       "group (bliss), each checked" : "igraph's automorphism group (bliss), "
				       "each generator checked";
			int64_t *perm = fx_xmalloc((size_t)(f->nv + 1) * sizeof *perm);
			int64_t *emap = fx_xmalloc((size_t)(f->ne + 1) * sizeof *emap);
			for (igraph_integer_t i = 0; i < igraph_vector_int_list_size(&gens); i++) {
				igraph_vector_int_t *p = igraph_vector_int_list_get_ptr(&gens, i);
				for (int64_t v = 0; v < f->nv; v++)
					perm[v] = VECTOR(*p)[v];
				/* a bundle's image is its midpoint's (checked) */
				for (int64_t e = 0; e < f->ne; e++)
					emap[e] = VECTOR(*p)[f->nv + e] - f->nv;
				offer(a, perm, emap);
			}
			free(emap);
			free(perm);
		}
		igraph_free(info.group_size);
		igraph_destroy(&g);
	}
	igraph_vector_int_list_destroy(&gens);
	igraph_vector_int_destroy(&ev);
	igraph_vector_int_destroy(&colour);
}

/* fx_builder.symmetries's callback */
static void offer_cb(void *ctx, const int64_t *perm)
{
	offer(ctx, perm, NULL);
}

/* ---- the orbits ---- */

int fx_fabric_orbits(const fx_fabric *f, const fx_blocks *blocks, int nblocks, fx_orbits *o)
{
	memset(o, 0, sizeof *o);
	if (nblocks > FX_ORBIT_MAX_BLOCKS)
		nblocks = FX_ORBIT_MAX_BLOCKS;
	o->method = "none (every element apart)";
	o->vertex = fx_xmalloc((size_t)(f->nv + 1) * sizeof *o->vertex);
	o->edge = fx_xmalloc((size_t)(f->ne + 1) * sizeof *o->edge);
	for (int64_t v = 0; v < f->nv; v++)
		o->vertex[v] = v;
	for (int64_t e = 0; e < f->ne; e++)
		o->edge[e] = e;
	acc a = {.f = f, .blocks = blocks, .nblocks = nblocks, .o = o};
	a.emap = fx_xmalloc((size_t)(f->ne + 1) * sizeof *a.emap);
	int64_t naux = f->nv + f->ne;
	for (int k = 0; k < nblocks; k++) {
		o->block[k] = fx_xmalloc((size_t)(blocks[k].n + 1) * sizeof *o->block[k]);
		a.bmap[k] = fx_xmalloc((size_t)(blocks[k].n + 1) * sizeof *a.bmap[k]);
		for (int64_t j = 0; j < blocks[k].n; j++)
			o->block[k][j] = j;
		naux += blocks[k].n;
	}
	int loops = 0;
	for (int64_t e = 0; e < f->ne; e++)
		loops |= f->ends[2 * e] == f->ends[2 * e + 1];
	if (f->builder && f->builder->symmetries) {
		o->method = "the kind's own symmetries, each checked";
		f->builder->symmetries(f, offer_cb, &a);
	}
	if (!loops && naux <= FX_ORBIT_BLISS_VERTICES)
		from_bliss(&a, naux);
	settle(o->vertex, f->nv);
	settle(o->edge, f->ne);
	for (int k = 0; k < nblocks; k++) {
		settle(o->block[k], blocks[k].n);
		free(a.bmap[k]);
	}
	free(a.emap);
	free(a.have);
	return 0;
}

void fx_orbits_release(fx_orbits *o)
{
	free(o->vertex);
	free(o->edge);
	for (int k = 0; k < FX_ORBIT_MAX_BLOCKS; k++)
		free(o->block[k]);
	memset(o, 0, sizeof *o);
}
