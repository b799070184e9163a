/*
 * Hop distances to every target of a small, shallow graph, 64 targets at
 * a time (issue #15).
 *
 * Split ECMP needs, for each destination t, every vertex's distance to t
 * under the reference's relay-aware search (routing/bfs.c: the
 * target and relaying vertices expand, the rest are only reached).  One
 * search per target costs O(V + E); on a 4,096-vertex hypercube whose
 * swing partners are 5.4 hops apart every search runs to the whole graph,
 * 2e8 visits.  Here the searches of 64 consecutive targets run at once:
 * each vertex holds a 64-bit word of the targets that reached it, a layer
 * ORs each expanding vertex's newly reached word into its neighbours', and
 * the bits new at layer k are the vertices at distance k.  A block costs
 * O(depth x E) word operations instead of 64 x O(V + E) visits.
 *
 * Distances are bytes (FX_DTAB_NONE: no route), row-major by target (a
 * push reads one target's row, nv bytes, so it stays in cache).  The table
 * is taken only when every finite distance fits a byte: a relaying vertex
 * r that reaches every vertex within e hops bounds every distance by 2e
 * (the path t..r..v expands only at t and relaying vertices), or the graph
 * has at most 255 vertices.  Blocks are searched when first asked for,
 * and only as deep as asked.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

/* The searches of 64 targets, resumable: grown a layer at a time only as
 * deep as asked (recursive halving on a hypercube asks one hop). */
typedef struct dtab_block {
	uint8_t *rows;           /* 64 rows of nv bytes */
	uint64_t *reach, *front; /* per vertex: targets that reached it, at the
				  * last layer; NULL once the search is done */
	int layer;               /* layers searched */
} dtab_block;

struct fx_dtab {
	int64_t nv;
	const int64_t *inc_off;
	const int32_t *nbr;
	const uint8_t *relays;
	dtab_block *block;       /* per 64 targets, rows NULL until asked */
	uint64_t *next;          /* scratch: bits arriving at each vertex */
	double work;             /* steps so far (fx_dtab_work) */
};

/* The relay-aware search from r alone: its depth, or -1 when some vertex
 * is not reached. */
static int probe_depth(int64_t nv, const int64_t *inc_off, const int32_t *nbr,
		       const uint8_t *relays, int64_t r)
{
	fx_inc g = {.nv = nv, .off = inc_off, .nbr = nbr, .relays = relays};
	fx_bfs b = {.dist = fx_xmalloc((size_t)nv * sizeof *b.dist),
		    .queue = fx_xmalloc((size_t)nv * sizeof *b.queue)};
	int depth = fx_bfs_from(&b, &g, r, 0);
	if (b.tail < nv)
		depth = -1;
	free(b.dist);
	free(b.queue);
	return depth;
}

fx_dtab *fx_dtab_new(int64_t nv, const int64_t *inc_off, const int32_t *nbr,
		     const uint8_t *relays, int max_depth)
{
	if (nv <= 0)
		return NULL;
	int64_t r = 0;  /* the relaying vertex of most links */
	for (int64_t v = 0; v < nv; v++)
		if (relays[v] && (!relays[r] ||
				  inc_off[v + 1] - inc_off[v] > inc_off[r + 1] - inc_off[r]))
			r = v;
	int e = relays[r] ? probe_depth(nv, inc_off, nbr, relays, r) : -1;
	int fits = (e >= 0 && 2 * e < FX_DTAB_NONE) || nv <= FX_DTAB_NONE;
	if (!fits || (max_depth >= 0 && (e < 0 || e > max_depth)))
		return NULL;
	fx_dtab *t = fx_xcalloc(1, sizeof *t);
	t->nv = nv;
	t->inc_off = inc_off;
	t->nbr = nbr;
	t->relays = relays;
	t->block = fx_xcalloc((size_t)(nv + 63) / 64, sizeof *t->block);
	t->next = fx_xcalloc((size_t)nv, sizeof *t->next);
	return t;
}

void fx_dtab_free(fx_dtab *t)
{
	if (!t)
		return;
	for (int64_t b = 0; b < (t->nv + 63) / 64; b++) {
		free(t->block[b].rows);
		free(t->block[b].reach);
		free(t->block[b].front);
	}
	free(t->block);
	free(t->next);
	free(t);
}

/* Starts the 64 searches of block b: every row FX_DTAB_NONE but the
 * targets' own 0. */
static void block_start(fx_dtab *t, int64_t b)
{
	int64_t nv = t->nv, t0 = b * 64, nt = nv - t0 < 64 ? nv - t0 : 64;
	dtab_block *k = &t->block[b];
	k->rows = fx_xmalloc((size_t)(64 * nv));
	memset(k->rows, FX_DTAB_NONE, (size_t)(64 * nv));
	k->reach = fx_xcalloc((size_t)nv, sizeof *k->reach);
	k->front = fx_xcalloc((size_t)nv, sizeof *k->front);
	for (int64_t i = 0; i < nt; i++) {
		k->reach[t0 + i] = k->front[t0 + i] = (uint64_t)1 << i;
		k->rows[i * nv + t0 + i] = 0;
	}
}

/* One more layer of block b's searches; when it reaches nothing new the
 * search is done and its state freed. */
static void block_grow(fx_dtab *t, int64_t b)
{
	int64_t nv = t->nv, t0 = b * 64, nt = nv - t0 < 64 ? nv - t0 : 64;
	dtab_block *k = &t->block[b];
	uint64_t *reach = k->reach, *front = k->front, *next = t->next;
	uint8_t *rows = k->rows;
	int layer = ++k->layer, any = 0;
	for (int64_t u = 0; u < nv; u++) {
		uint64_t out = front[u];
		if (!out)
			continue;
		if (!t->relays[u])  /* only as its own target */
			out &= u >= t0 && u < t0 + nt ? (uint64_t)1 << (u - t0) : 0;
		front[u] = 0;
		if (!out)
			continue;
		t->work += (double)(t->inc_off[u + 1] - t->inc_off[u]);
		for (int64_t e = t->inc_off[u]; e < t->inc_off[u + 1]; e++)
			next[t->nbr[e]] |= out;
	}
	for (int64_t w = 0; w < nv; w++) {
		uint64_t fresh = next[w] & ~reach[w];
		next[w] = 0;
		if (!fresh)
			continue;
		any = 1;
		reach[w] |= fresh;
		front[w] = fresh;
		for (; fresh; fresh &= fresh - 1)
			rows[(int64_t)fx_lowest_bit(fresh) * nv + w] = (uint8_t)layer;
	}
	/* the layer's steps: both scans of the vertices and the incidences
	 * of the expanding ones (counted in the scan above) */
	t->work += 2 * (double)nv;
	if (!any) {
		free(k->reach);
		free(k->front);
		k->reach = k->front = NULL;
	}
}

const uint8_t *fx_dtab_row(fx_dtab *t, int64_t target, int depth)
{
	int64_t b = target / 64;
	dtab_block *k = &t->block[b];
	if (!k->rows)
		block_start(t, b);
	while (k->reach && k->layer < depth)
		block_grow(t, b);
	return k->rows + (target - b * 64) * t->nv;
}

int fx_dtab_dist(fx_dtab *t, int64_t target, int64_t v)
{
	const uint8_t *row = fx_dtab_row(t, target, 0);
	dtab_block *k = &t->block[target / 64];
	while (row[v] == FX_DTAB_NONE && k->reach)
		block_grow(t, target / 64);
	return row[v] == FX_DTAB_NONE ? -1 : row[v];
}

double fx_dtab_work(const fx_dtab *t)
{
	return t ? t->work : 0;
}
