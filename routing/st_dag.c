/*
 * Shortest-path DAGs into one target from a few sources, searched from
 * both ends (issue #31).
 *
 * The grouped push (ecmp_sweep.c) needs, at every vertex a flow reaches,
 * its next hops towards the target: neighbours one hop nearer that are the
 * target or relay.  The cached search from the target finds them for every
 * vertex as deep as the farthest source, which on a fat-tree is every core
 * and aggregation switch for a flow from the next pod: a ring over k^3/4
 * hosts paid k^2/2 such searches, O(k^5).  Here the search from the target
 * (back) and one from the source (fwd) grow one layer at a time, the side
 * whose next layer has fewer incidences to scan first, until they meet:
 * then D = dist(s, t) and the s-t DAG is the vertices v with ds(v) + dt(v)
 * = D that pass flows on (relay, or are s or t).
 *
 * Exactness.  Every distance recorded here is the target's search's own
 * (back's by construction; a forward vertex is recorded only once shown on
 * a shortest path, dt = D - ds), and every next hop of a DAG vertex is a
 * DAG vertex of the same source (w one nearer the target than v, on v's
 * shortest path, is on s's).  So the push that reads a vertex's next hops
 * from fx_stdag_dist finds exactly the reference's, in incidence order,
 * and adds the same amounts in the same order: loads bit for bit.  The
 * worst latencies are the target search's (back's where it reached, else
 * the max over the next hops from the DAG's far end in), the same maximum.
 *
 * Every array is nv long, made once; a start clears only what the last
 * target touched, so a target costs its searches, not O(V).
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

fx_stdag *fx_stdag_new(const fx_inc *inc)
{
	fx_stdag *d = fx_xcalloc(1, sizeof *d);
	size_t nv = (size_t)(inc->nv ? inc->nv : 1);
	d->inc = inc;
	d->back.dist = fx_xmalloc(nv * sizeof *d->back.dist);
	d->back.lat = fx_xmalloc(nv * sizeof *d->back.lat);
	d->back.queue = fx_xmalloc(nv * sizeof *d->back.queue);
	d->fwd.dist = fx_xmalloc(nv * sizeof *d->fwd.dist);
	d->fwd.queue = fx_xmalloc(nv * sizeof *d->fwd.queue);
	d->over = fx_xmalloc(nv * sizeof *d->over);
	d->olat = fx_xmalloc(nv * sizeof *d->olat);
	d->marked = fx_xmalloc(nv * sizeof *d->marked);
	memset(d->back.dist, 0xff, nv * sizeof *d->back.dist);
	memset(d->fwd.dist, 0xff, nv * sizeof *d->fwd.dist);
	memset(d->over, 0xff, nv * sizeof *d->over);
	d->target = -1;
	return d;
}

void fx_stdag_free(fx_stdag *d)
{
	if (!d)
		return;
	free(d->back.dist);
	free(d->back.lat);
	free(d->back.queue);
	free(d->fwd.dist);
	free(d->fwd.queue);
	free(d->over);
	free(d->olat);
	free(d->marked);
	free(d->lay);
	free(d);
}

/* Every distance a search set back to -1, its queue empty: O(reached). */
static void bfs_clear(fx_bfs *b)
{
	for (int64_t k = 0; k < b->tail; k++)
		b->dist[b->queue[k]] = -1;
	b->head = b->tail = 0;
}

void fx_stdag_start(fx_stdag *d, int64_t target, double l0)
{
	bfs_clear(&d->back);
	for (int64_t k = 0; k < d->nmarked; k++)
		d->over[d->marked[k]] = -1;
	d->nmarked = 0;
	fx_bfs_seed(&d->back, target, l0);
	d->target = target;
	d->back_r = 0;
	d->back_done = 0;
	d->back_cost = -1;
}

/* The incidences the next layer of b costs: its frontier's expanding
 * vertices (the seed, or relaying), with one step each. */
static double frontier_cost(const fx_stdag *d, const fx_bfs *b)
{
	double c = 0;
	for (int64_t k = b->head; k < b->tail; k++) {
		int64_t v = b->queue[k];
		if (b->dist[v] == 0 || d->inc->relays[v])
			c += 1 + (double)(d->inc->off[v + 1] - d->inc->off[v]);
	}
	return c;
}

/* Expands b's frontier (layer r, every vertex within r found), counting
 * the steps; 1 when the search is complete (nothing new found). */
static int grow_layer(fx_stdag *d, fx_bfs *b, int32_t r)
{
	int64_t h0 = b->head;
	int done = fx_bfs_grow(b, d->inc, -1, r + 1);
	for (int64_t k = h0; k < b->head; k++)
		d->work += 1 + (double)(d->inc->off[b->queue[k] + 1] - d->inc->off[b->queue[k]]);
	return done;
}

/* A vertex a path may pass through on its way from src to the target. */
static int passes(const fx_stdag *d, int64_t v, int64_t src)
{
	return d->inc->relays[v] || v == d->target || v == src;
}

static double lat_of(const fx_stdag *d, int64_t v)
{
	return d->back.dist[v] >= 0 ? d->back.lat[v] : d->olat[v];
}

/* After the searches met at distance D with fwd out to ra: records the
 * forward half of src's DAG (fwd layers ra-1 .. 0, each vertex that
 * passes flows on and has a next hop on the DAG one layer out), with its
 * distance to the target and worst latency. */
static void mark_back(fx_stdag *d, int64_t src, int32_t D, int32_t ra)
{
	const fx_inc *g = d->inc;
	for (int32_t j = ra - 1; j >= 0; j--) {
		int32_t want = D - j - 1;  /* a next hop's distance to the target */
		for (int64_t q = d->lay[j]; q < d->lay[j + 1]; q++) {
			int64_t x = d->fwd.queue[q];
			d->work += 1 + (double)(g->off[x + 1] - g->off[x]);
			if (!(x == src || g->relays[x]))
				continue;
			double lv = 0;
			int found = 0;
			for (int64_t t = g->off[x]; t < g->off[x + 1]; t++) {
				int64_t y = g->nbr[t];
				if (d->fwd.dist[y] != j + 1 || fx_stdag_dist(d, y) != want ||
				    !(g->relays[y] || y == d->target))
					continue;
				double l = lat_of(d, y) + g->lat[t];
				if (!found || l > lv)
					lv = l;
				found = 1;
			}
			if (!found)
				continue;
			if (d->over[x] < 0 && d->back.dist[x] < 0) {
				d->over[x] = D - j;
				d->marked[d->nmarked++] = (int32_t)x;
			}
			if (d->back.dist[x] < 0)
				d->olat[x] = lv;
		}
	}
}

int32_t fx_stdag_add(fx_stdag *d, int64_t src, double *lat)
{
	if (fx_stdag_dist(d, src) >= 0) {  /* already on a DAG, or back reached it */
		*lat = lat_of(d, src);
		return fx_stdag_dist(d, src);
	}
	fx_bfs *f = &d->fwd, *b = &d->back;
	bfs_clear(f);
	fx_bfs_seed(f, src, 0);
	int32_t ra = 0;
	d->lay = fx_xgrow(d->lay, &d->caplay, 2, sizeof *d->lay);
	d->lay[0] = 0;
	d->lay[1] = 1;
	int fwd_done = 0;
	double fcost = frontier_cost(d, f);
	for (;;) {
		if (b->dist[src] >= 0) {  /* back reached the source itself */
			*lat = b->lat[src];
			return b->dist[src];
		}
		if (d->back_cost < 0 && !d->back_done)
			d->back_cost = frontier_cost(d, b);
		int back_side = !d->back_done && (fwd_done || d->back_cost <= fcost);
		if (!back_side && fwd_done)
			return -1;  /* both searches complete, never met: no route */
		fx_bfs *grown = back_side ? b : f;
		fx_bfs *other = back_side ? f : b;
		int64_t from = grown->tail;
		if (back_side) {
			d->back_done = grow_layer(d, b, d->back_r);
			d->back_r++;
			d->back_cost = -1;
		} else {
			fwd_done = grow_layer(d, f, ra);
			ra++;
			d->lay = fx_xgrow(d->lay, &d->caplay, (size_t)ra + 2, sizeof *d->lay);
			d->lay[ra + 1] = f->tail;
			fcost = frontier_cost(d, f);
		}
		/* the new layer against the other side: the nearest meeting */
		int32_t D = -1;
		for (int64_t k = from; k < grown->tail; k++) {
			int64_t m = grown->queue[k];
			if (other->dist[m] < 0 || !passes(d, m, src))
				continue;
			int32_t s = f->dist[m] + b->dist[m];
			if (D < 0 || s < D)
				D = s;
		}
		if (D < 0)
			continue;
		if (b->dist[src] >= 0)
			continue;  /* handled at the top, with back's latency */
		mark_back(d, src, D, ra);
		*lat = d->olat[src];
		return D;
	}
}
