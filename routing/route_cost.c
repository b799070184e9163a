/*
 * Least-cost distances for ECMP where links carry routing weights (a
 * custom graph's per-link `cost`, fabric/topo_custom.c): the same
 * relay-aware search as routing/bfs.c's breadth-first one, by Dijkstra
 * over small integer weights.  ECMP then splits a flow over every next
 * hop on a least-cost path (dist[w] == dist[v] - cost), as OSPF's ECMP
 * does, where hop-count ECMP would count a dragonfly's path through a
 * third group (global, global) as short as its minimal one (local,
 * global, local): docs/spec.md §4.7, tests/unit/test_kinds.c.
 */
#include <stdlib.h>

#include "../core/xalloc.h"
#include "internal.h"

int fx_cost_weighted(const fx_fabric *f)
{
	for (int64_t e = 0; e < f->ne; e++)
		if (f->e[e].cost > 1)
			return 1;
	return 0;
}

/* A binary heap of (distance, vertex), lazily deleted. */
typedef struct item {
	int32_t d;
	int32_t v;
} item;

static void heap_push(item *h, size_t *n, item x)
{
	size_t i = (*n)++;
	while (i > 0) {
		size_t up = (i - 1) / 2;
		if (h[up].d < x.d || (h[up].d == x.d && h[up].v <= x.v))
			break;
		h[i] = h[up];
		i = up;
	}
	h[i] = x;
}

static item heap_pop(item *h, size_t *n)
{
	item top = h[0], x = h[--*n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && (h[c + 1].d < h[c].d || (h[c + 1].d == h[c].d && h[c + 1].v < h[c].v)))
			c++;
		if (x.d < h[c].d || (x.d == h[c].d && x.v <= h[c].v))
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = x;
	return top;
}

int32_t fx_cost_from(const fx_fabric *f, const fx_inc *g, int64_t src, int32_t *dist, double *lat,
		     int32_t *hops)
{
	int64_t nv = g->nv;
	for (int64_t v = 0; v < nv; v++) {
		dist[v] = -1;
		lat[v] = 0;
		hops[v] = 0;
	}
	/* at most one entry a position (each relaxation) plus the seed */
	size_t cap = (size_t)g->off[nv] + 1, n = 0;
	item *h = fx_xmalloc(cap * sizeof *h);
	uint8_t *done = fx_xcalloc((size_t)(nv ? nv : 1), 1);
	dist[src] = 0;
	heap_push(h, &n, (item){0, (int32_t)src});
	int32_t far = 0;
	while (n) {
		item it = heap_pop(h, &n);
		int64_t u = it.v;
		if (done[u] || it.d != dist[u])
			continue;
		done[u] = 1;
		far = it.d;
		if (u != src && !g->relays[u])  /* reached, not passed through */
			continue;
		for (int64_t t = g->off[u]; t < g->off[u + 1]; t++) {
			int64_t w = g->nbr[t];
			int32_t c = f->e[g->edge[t]].cost > 1 ? f->e[g->edge[t]].cost : 1;
			int32_t dw = dist[u] + c;
			double l = lat[u] + g->lat[t];
			if (dist[w] < 0 || dw < dist[w]) {
				dist[w] = dw;
				lat[w] = l;
				hops[w] = hops[u] + 1;
				heap_push(h, &n, (item){dw, (int32_t)w});
			} else if (dw == dist[w]) {  /* another least-cost path: the worst */
				if (l > lat[w])
					lat[w] = l;
				if (hops[u] + 1 > hops[w])
					hops[w] = hops[u] + 1;
			}
		}
	}
	free(done);
	free(h);
	return far;
}
