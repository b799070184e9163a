/*
 * The router's incidence lists and its one breadth-first search.
 *
 * Every ECMP path (route.c's reference, ecmp_sweep.c's grouped push,
 * ecmp_updown.c's sweeps, dist_table.c's probe) and hops.c need the
 * same distances: hops to a target where a vertex that does not forward
 * (fx_fabric_relays: a device outside direct fabrics, a CPU unless the
 * fabric says so) is reached but not passed through, unless the search
 * starts there.  The split shares depend on them, and on the worst
 * latency among the shortest paths, so they are computed here once, in
 * one order.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

void fx_inc_build(fx_inc *g, const fx_fabric *f)
{
	size_t nv = (size_t)f->nv;
	int64_t *off = fx_xcalloc(nv + 1, sizeof *off);
	/* failed bundles are left out: every ECMP use goes through here */
	for (int64_t e = 0; e < f->ne; e++) {
		if (!fx_fabric_edge_up(f, e))
			continue;
		off[f->ends[2 * e] + 1]++;
		off[f->ends[2 * e + 1] + 1]++;
	}
	for (size_t v = 0; v < nv; v++)
		off[v + 1] += off[v];
	size_t np = (size_t)(off[nv] ? off[nv] : 1);
	int64_t *edge = fx_xmalloc(np * sizeof *edge), *twin = fx_xmalloc(np * sizeof *twin);
	int32_t *nbr = fx_xmalloc(np * sizeof *nbr);
	double *lat = fx_xmalloc(np * sizeof *lat);
	uint8_t *relays = fx_xmalloc(nv ? nv : 1);
	int64_t *at = fx_xmalloc((nv ? nv : 1) * sizeof *at);
	memcpy(at, off, nv * sizeof *at);
	for (int64_t e = 0; e < f->ne; e++) {
		if (!fx_fabric_edge_up(f, e))
			continue;
		int64_t a = f->ends[2 * e], b = f->ends[2 * e + 1], ta = at[a]++, tb = at[b]++;
		edge[ta] = edge[tb] = e;
		nbr[ta] = (int32_t)b;
		nbr[tb] = (int32_t)a;
		lat[ta] = lat[tb] = f->e[e].lat;
		twin[ta] = tb;
		twin[tb] = ta;
	}
	free(at);
	for (size_t v = 0; v < nv; v++)
		relays[v] = fx_fabric_relays(f, (int64_t)v) != 0;  /* 0 or 1: pushes AND it */
	*g = (fx_inc){f->nv, off, edge, nbr, lat, twin, relays};
}

void fx_inc_homes(const fx_inc *g, int64_t ndev, int64_t *home, double *home_lat)
{
	for (int64_t d = 0; d < ndev; d++) {
		int64_t u = -1;
		double l = 0;
		int ok = g->off[d + 1] > g->off[d];
		for (int64_t t = g->off[d]; t < g->off[d + 1] && ok; t++) {
			int64_t w = g->nbr[t];
			if (w == d || (u >= 0 && w != u))
				ok = 0;
			u = w;
			if (t == g->off[d] || g->lat[t] > l)  /* as the search from d: max */
				l = 0 + g->lat[t];
		}
		home[d] = ok && g->relays[u] ? u : -1;
		home_lat[d] = l;
	}
	/* two devices each other's only neighbour (a pair joined alone): each
	 * would reach the other both as its home and as its member, counting
	 * the link twice; they are routed as unhomed devices instead */
	for (int64_t d = 0; d < ndev; d++) {
		int64_t u = home[d];
		if (u >= 0 && u < ndev && home[u] == d)
			home[d] = home[u] = -1;
	}
}

void fx_inc_release(fx_inc *g)
{
	free((void *)g->off);
	free((void *)g->edge);
	free((void *)g->nbr);
	free((void *)g->lat);
	free((void *)g->twin);
	free((void *)g->relays);
	memset(g, 0, sizeof *g);
}

void fx_bfs_start(fx_bfs *b, int64_t nv)
{
	memset(b->dist, 0xff, (size_t)nv * sizeof *b->dist);  /* -1 */
	b->head = b->tail = 0;
}

int fx_bfs_seed(fx_bfs *b, int64_t v, double l0)
{
	if (b->dist[v] >= 0) {
		if (b->lat && (b->least ? l0 < b->lat[v] : l0 > b->lat[v]))
			b->lat[v] = l0;
		return 0;
	}
	b->dist[v] = 0;
	if (b->lat)
		b->lat[v] = l0;
	if (b->next)
		b->next[v] = 0;
	b->queue[b->tail++] = (int32_t)v;
	return 1;
}

/* The search, specialised by what it records (lat_on: 1 worst latencies,
 * -1 least; next_on: next-hop masks), so the hops-only walks pay for
 * neither. */
static inline int grow(fx_bfs *b, const fx_inc *g, int64_t want, int32_t depth, int lat_on,
		       int next_on)
{
	int32_t *dist = b->dist, *queue = b->queue;
	double *lat = b->lat;
	while (b->head < b->tail) {
		int64_t u = queue[b->head];
		if (want >= 0 ? dist[want] >= 0 : dist[u] >= depth)
			return 0;
		b->head++;
		if (dist[u] != 0 && !g->relays[u])  /* reached, not passed through */
			continue;
		int32_t du = dist[u] + 1;
		for (int64_t t = g->off[u]; t < g->off[u + 1]; t++) {
			int64_t w = g->nbr[t];
			double l = lat_on ? lat[u] + g->lat[t] : 0;
			if (dist[w] < 0) {
				dist[w] = du;
				if (lat_on)
					lat[w] = l;
				queue[b->tail++] = (int32_t)w;
				if (next_on)
					b->next[w] = g->off[w + 1] - g->off[w] > 64 ? FX_BFS_SCAN : 0;
			} else if (dist[w] == du) {
				if (lat_on > 0 ? l > lat[w] : lat_on < 0 && l < lat[w])
					lat[w] = l;
			} else {
				continue;
			}
			if (next_on && b->next[w] != FX_BFS_SCAN)
				b->next[w] |= (uint64_t)1 << (g->twin[t] - g->off[w]);
		}
	}
	return 1;
}

int fx_bfs_grow(fx_bfs *b, const fx_inc *g, int64_t want, int32_t depth)
{
	if (b->next)
		return grow(b, g, want, depth, 1, 1);
	if (b->least)
		return grow(b, g, want, depth, -1, 0);
	return b->lat ? grow(b, g, want, depth, 1, 0) : grow(b, g, want, depth, 0, 0);
}

int32_t fx_bfs_from(fx_bfs *b, const fx_inc *g, int64_t src, double l0)
{
	fx_bfs_start(b, g->nv);
	fx_bfs_seed(b, src, l0);
	fx_bfs_grow(b, g, -1, INT32_MAX);
	return b->dist[b->queue[b->tail - 1]];
}
