/*
 * Hop distances to every target of a small, shallow graph, 64 targets at
 * a time (issue #15).
 *
 * Split ECMP needs, for each destination t, every vertex's distance to t
 * under the reference's relay-aware search (route.c ecmp_prepare: the
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
 * has at most 255 vertices.  Blocks are searched when first asked for.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

struct fx_dtab {
	int64_t nv;
	const int64_t *inc_off;
	const int32_t *nbr;
	const uint8_t *relays;
	uint8_t **block;         /* per 64 targets: 64 rows of nv bytes, or NULL */
	uint64_t *reach, *front, *next;  /* the search of one block */
};

/* The relay-aware search from r alone: its depth, or -1 when some vertex
 * is not reached. */
static int probe_depth(int64_t nv, const int64_t *inc_off, const int32_t *nbr,
		       const uint8_t *relays, int64_t r)
{
	int32_t *dist = fx_xmalloc((size_t)nv * sizeof *dist);
	int32_t *queue = fx_xmalloc((size_t)nv * sizeof *queue);
	memset(dist, 0xff, (size_t)nv * sizeof *dist);
	int64_t head = 0, tail = 0;
	dist[r] = 0;
	queue[tail++] = (int32_t)r;
	while (head < tail) {
		int64_t u = queue[head++];
		if (u != r && !relays[u])
			continue;
		for (int64_t t = inc_off[u]; t < inc_off[u + 1]; t++)
			if (dist[nbr[t]] < 0) {
				dist[nbr[t]] = dist[u] + 1;
				queue[tail++] = nbr[t];
			}
	}
	int depth = tail < nv ? -1 : dist[queue[tail - 1]];
	free(dist);
	free(queue);
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
	return t;
}

void fx_dtab_free(fx_dtab *t)
{
	if (!t)
		return;
	for (int64_t b = 0; b < (t->nv + 63) / 64; b++)
		free(t->block[b]);
	free(t->block);
	free(t->reach);
	free(t->front);
	free(t->next);
	free(t);
}

/* The 64 searches of block b at once. */
static void search_block(fx_dtab *t, int64_t b)
{
	int64_t nv = t->nv, t0 = b * 64, nt = nv - t0 < 64 ? nv - t0 : 64;
	uint8_t *rows = t->block[b] = fx_xmalloc((size_t)(64 * nv));
	memset(rows, FX_DTAB_NONE, (size_t)(64 * nv));
	if (!t->reach) {
		t->reach = fx_xmalloc((size_t)nv * sizeof *t->reach);
		t->front = fx_xmalloc((size_t)nv * sizeof *t->front);
		t->next = fx_xmalloc((size_t)nv * sizeof *t->next);
	}
	uint64_t *reach = t->reach, *front = t->front, *next = t->next;
	memset(reach, 0, (size_t)nv * sizeof *reach);
	memset(front, 0, (size_t)nv * sizeof *front);
	memset(next, 0, (size_t)nv * sizeof *next);
	for (int64_t i = 0; i < nt; i++) {
		reach[t0 + i] = front[t0 + i] = (uint64_t)1 << i;
		rows[i * nv + t0 + i] = 0;
	}
	for (int layer = 1;; layer++) {
		int any = 0;
		for (int64_t u = 0; u < nv; u++) {
			uint64_t out = front[u];
			if (!out)
				continue;
			if (!t->relays[u])  /* only as its own target */
				out &= u >= t0 && u < t0 + nt ? (uint64_t)1 << (u - t0) : 0;
			front[u] = 0;
			if (!out)
				continue;
			for (int64_t k = t->inc_off[u]; k < t->inc_off[u + 1]; k++)
				next[t->nbr[k]] |= out;
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
		if (!any)
			break;
	}
}

const uint8_t *fx_dtab_row(fx_dtab *t, int64_t target)
{
	int64_t b = target / 64;
	if (!t->block[b])
		search_block(t, b);
	return t->block[b] + (target - b * 64) * t->nv;
}
