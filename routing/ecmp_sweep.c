/*
 * ECMP split, one push per destination group and round (issue #15).
 *
 * The reference router (route.c, ecmp_add) pushes each destination's flows
 * down that destination's shortest-path DAG, scanning every incident link
 * of every vertex reached.  On Clos, UB and NVSwitch fabrics most
 * destinations hang off one switch: a device whose links all go to one
 * relaying vertex u (its "home").  Every path into such a device passes
 * through u, so its DAG is u's DAG plus the last hop: dist_d = dist_u + 1,
 * and a vertex's next hops towards d are its next hops towards u.  Flows
 * are therefore grouped by home (a k=16 fat-tree: 128 edge switches for
 * 1,024 hosts), pushed once per group down u's DAG, and the last hop u -> d
 * gets the bytes addressed to d.  The DAG of each target is cached as a
 * bitmask of next-hop incidence positions per vertex (degree up to 64;
 * wider vertices are scanned), so a push visits only DAG links.  Explicit
 * graphs whose devices are mostly their own targets (hypercubes, tori
 * written out) take every target's distances from one table instead,
 * searched 64 targets at once (routing/dist_table.c: a byte a vertex and
 * target, where the masks took 24), and a push reads a vertex's next hops
 * from its neighbours' distances.
 *
 * The split at every vertex is the reference's expression, in the same
 * incidence order, so one flow gives bit-identical loads; grouped flows
 * differ only by the order of additions (tests/unit/test_sweep.c holds
 * them to 1e-12 relative on fat-trees, leaf-spine, UB, NVL72 and custom
 * graphs).  Hop counts and latencies are the reference's exactly: the
 * latency table of a home target starts at the last hop's worst latency,
 * as the search from d would reach u.
 *
 * Time complexity: O(flows + sum over groups of the DAG links reached) per
 * round (with the table, the degree of every vertex reached); all pairs
 * O(groups x (V + E)).
 */
#include <stdlib.h>
#include <string.h>

#include "../core/limits.h"
#include "../core/sort.h"
#include "../core/xalloc.h"
#include "internal.h"

/* The search from one target, resumable: layers are expanded only as deep
 * as the sources asked so far (a hypercube's recursive halving asks one
 * hop; its first round would otherwise pay a whole search per target). */
typedef struct sweep_dag {
	fx_bfs b;        /* dist: links to the target, -1 unreachable or not
			  * reached yet; lat: from the target's l0; next: the
			  * masks, complete for a vertex whose layer above is
			  * expanded; queue: NULL once the search is complete */
	double l0;       /* latency the table starts at (the last hop's) */
	int multi;       /* the search from a device class's up neighbours */
} sweep_dag;

/* One incidence position (vertex v, link e), laid out for the push, which
 * visits them in order (the link table is far bigger; its latency is the
 * incidence's, inc->lat). */
typedef struct sweep_slot {
	int64_t nbr;     /* the other end */
	int64_t dl;      /* directed link out of v */
	double cnt, bw;  /* e's link count (as a double), bandwidth */
} sweep_slot;

struct fx_sweep {
	const fx_fabric *f;
	const fx_inc *inc;
	const int64_t *inc_off, *inc_edge;
	sweep_slot *slot;     /* per incidence position: the link as seen from its vertex */
	int64_t *home;        /* per device: its one relaying neighbour, or -1 */
	double *home_lat;     /* the worst latency of a device's links home */
	sweep_dag **cache;    /* per target vertex */
	sweep_dag scratch;    /* when the cache is full */
	int64_t ncached, max_cached;
	double *amount;
	uint8_t *queued;
	int64_t **bucket;     /* vertices waiting, by distance */
	size_t *bucket_len, *bucket_cap;
	int32_t bucket_dists;
	double *into;         /* per device: bytes addressed to it in the group */
	int64_t **used;       /* the router's list of links loaded from zero, */
	size_t *nused, *capused;  /* for the call in progress */
	/* small shallow graphs: every target's distances from one table
	 * (routing/dist_table.c) instead of the cached searches */
	int tab_mode;         /* -1: when it pays, 0: never, 1: whenever exact */
	int tab_tried;
	fx_dtab *tab;
	const int32_t *nbr;   /* the incidence's: per position, the other end */
	const uint8_t *relays;/* per vertex: forwards (0 or 1) */
	int lat_uniform;      /* every link has latency lat_link */
	double lat_link;
	double *latv;         /* per vertex: worst latency to the group's target */
	int classes;          /* sibling devices pushed as one (default 1) */
	int64_t *klass;       /* per device: its class's first device, -1 alone
			       * (made on first use, NULL until then) */
	double *arr;          /* per vertex: a class push's arrivals (zero between) */
	int fold;             /* sets folded by symmetry (default 1; sweep_fold.c) */
	int folded;           /* the last all pairs did */
	int fold_state;       /* 0 not tried, 1 fold_ginv found, -1 none */
	int64_t *fold_ginv;   /* [2 ne]: the directed link the turn moves onto each */
	double work;          /* the pushes' steps so far (fx_sweep_work) */
	double budget;        /* fx_sweep_add stops past this many steps (0: never) */
	int sparse;           /* targets not cached: searched from both ends
			       * (routing/st_dag.c; default 1, 0 the cached
			       * searches only) */
	fx_stdag *sd;         /* made on first use */
};

static inline void bump(fx_sweep *s, double *load, int64_t l, double bytes)
{
	fx_load_add(load, l, bytes, s->used, s->nused, s->capused);
}

static int relays_or(const fx_fabric *f, int64_t w, int64_t target)
{
	return w == target || fx_fabric_relays(f, w);
}

fx_sweep *fx_sweep_new(const fx_fabric *f, const fx_inc *inc)
{
	fx_sweep *s = fx_xcalloc(1, sizeof *s);
	const int64_t *inc_off = inc->off, *inc_edge = inc->edge;
	s->f = f;
	s->inc = inc;
	s->inc_off = inc_off;
	s->inc_edge = inc_edge;
	s->nbr = inc->nbr;
	s->relays = inc->relays;
	size_t nd = (size_t)(f->ndev ? f->ndev : 1), nv = (size_t)(f->nv ? f->nv : 1);
	s->home = fx_xmalloc(nd * sizeof *s->home);
	s->home_lat = fx_xcalloc(nd, sizeof *s->home_lat);
	fx_inc_homes(inc, f->ndev, s->home, s->home_lat);
	s->slot = fx_xmalloc((size_t)(inc_off[f->nv] ? inc_off[f->nv] : 1) * sizeof *s->slot);
	for (int64_t v = 0; v < f->nv; v++)
		for (int64_t t = inc_off[v]; t < inc_off[v + 1]; t++) {
			int64_t e = inc_edge[t];
			sweep_slot *sl = &s->slot[t];
			sl->nbr = fx_fabric_other(f, e, v);
			sl->dl = fx_fabric_dirlink(f, e, v);
			sl->cnt = f->e[e].count;
			sl->bw = f->e[e].bw;
		}
	s->cache = fx_xcalloc(nv, sizeof *s->cache);
	/* 24 bytes a vertex per target (fewer touched when the searches stay
	 * shallow), within the reference's budget */
	s->max_cached = (int64_t)(FX_ECMP_CACHE_BYTES / ((double)nv * 24) + 1);
	s->amount = fx_xcalloc(nv, sizeof *s->amount);
	s->queued = fx_xcalloc(nv, 1);
	s->into = fx_xcalloc(nd, sizeof *s->into);
	s->tab_mode = -1;
	s->classes = 1;
	s->fold = 1;
	s->sparse = 1;
	return s;
}

void fx_sweep_set_sparse(fx_sweep *s, int on)
{
	s->sparse = on;
}

void fx_sweep_set_fold(fx_sweep *s, int on)
{
	s->fold = on;
}

int fx_sweep_folded(const fx_sweep *s)
{
	return s->folded;
}

void fx_sweep_set_classes(fx_sweep *s, int on)
{
	s->classes = on;
}

void fx_sweep_set_table(fx_sweep *s, int mode)
{
	if (mode == s->tab_mode)
		return;
	s->tab_mode = mode;
	s->tab_tried = 0;
	fx_dtab_free(s->tab);
	s->tab = NULL;
}

/* The distance table, when it applies: graphs of up to 16,384 vertices
 * (its full size, nv^2 bytes, is then within half the cache budget) whose
 * probe search is at most 32 hops deep (each block of 64 targets costs
 * depth x E; a 4,096-vertex ring would cost more than its searches), and
 * where most devices are their own targets (hypercubes, tori written out):
 * devices under switches are grouped by home, few targets whose cached
 * next-hop masks push faster than a row's scan (a k=20 fat-tree's
 * pairwise all-to-all: 10-20 % slower by the table). */
static void table_try(fx_sweep *s)
{
	const fx_fabric *f = s->f;
	s->tab_tried = 1;
	int64_t homed = 0;
	for (int64_t d = 0; d < f->ndev; d++)
		homed += s->home[d] >= 0;
	if (s->tab_mode == 0 || f->nv <= 0 ||
	    (s->tab_mode < 0 && ((double)f->nv * (double)f->nv > FX_ECMP_CACHE_BYTES / 2 ||
				 2 * homed > f->ndev)))
		return;
	int64_t ni = s->inc_off[f->nv];
	if (!s->latv)
		s->latv = fx_xmalloc((size_t)f->nv * sizeof *s->latv);
	s->lat_uniform = 1;
	for (int64_t t = 0; t < ni; t++)
		if (s->inc->lat[t] != s->inc->lat[0])
			s->lat_uniform = 0;
	s->lat_link = ni ? s->inc->lat[0] : 0;
	s->tab = fx_dtab_new(f->nv, s->inc_off, s->nbr, s->relays, s->tab_mode < 0 ? 32 : -1);
}

int fx_sweep_uses_table(fx_sweep *s)
{
	if (!s->tab_tried)
		table_try(s);
	return s->tab != NULL;
}

double fx_sweep_work(const fx_sweep *s)
{
	return s->work + fx_dtab_work(s->tab);
}

void fx_sweep_set_budget(fx_sweep *s, double steps)
{
	s->budget = steps;
}

static void dag_free(sweep_dag *g)
{
	free(g->b.dist);
	free(g->b.lat);
	free(g->b.next);
	free(g->b.queue);
}

void fx_sweep_free(fx_sweep *s)
{
	if (!s)
		return;
	for (int64_t v = 0; v < s->f->nv; v++)
		if (s->cache[v]) {
			dag_free(s->cache[v]);
			free(s->cache[v]);
		}
	dag_free(&s->scratch);
	free(s->cache);
	free(s->home);
	free(s->home_lat);
	free(s->klass);
	free(s->fold_ginv);
	free(s->arr);
	free(s->amount);
	free(s->queued);
	free(s->into);
	for (int32_t dd = 0; dd < s->bucket_dists; dd++)
		free(s->bucket[dd]);
	free(s->bucket);
	free(s->bucket_len);
	free(s->bucket_cap);
	free(s->slot);
	fx_dtab_free(s->tab);
	fx_stdag_free(s->sd);
	free(s->latv);
	free(s);
}

/* A search's arrays for nv vertices, made once, every distance -1 and the
 * queue empty. */
static void dag_reset(sweep_dag *g, size_t nv)
{
	if (!g->b.dist) {
		g->b.dist = fx_xmalloc(nv * sizeof *g->b.dist);
		g->b.lat = fx_xmalloc(nv * sizeof *g->b.lat);
		g->b.next = fx_xmalloc(nv * sizeof *g->b.next);
	}
	if (!g->b.queue)
		g->b.queue = fx_xmalloc(nv * sizeof *g->b.queue);
	fx_bfs_start(&g->b, (int64_t)nv);
}

/* Starts the reference's relay-aware search (routing/bfs.c) from
 * target, with latency l0 at the target. */
static void dag_start(fx_sweep *s, int64_t target, double l0, sweep_dag *g)
{
	dag_reset(g, (size_t)s->f->nv);
	fx_bfs_seed(&g->b, target, l0);
	g->l0 = l0;
}

/* Expands the search until every vertex nearer than `depth` is expanded
 * (so the masks and latencies of layer `depth` are complete), or until
 * vertex `want` is discovered when want >= 0.  A vertex w's next hops are
 * the links on which a vertex one nearer expanded to it: the reference's
 * condition (nearer, and the target or relaying) read from the other side. */
static void dag_grow(fx_sweep *s, sweep_dag *g, int64_t want, int32_t depth)
{
	int64_t h0 = g->b.head;
	int done = fx_bfs_grow(&g->b, s->inc, want, depth);
	/* the search's steps: the vertices it expanded and their incidences */
	for (int64_t k = h0; k < g->b.head; k++)
		s->work += 1 + (double)(s->inc_off[g->b.queue[k] + 1] - s->inc_off[g->b.queue[k]]);
	if (done) {
		free(g->b.queue);  /* the search is complete: nothing to resume */
		g->b.queue = NULL;
	}
}

/* Distance of v from g's target, searching further if need be (-1: no
 * route). */
static int32_t dag_dist(fx_sweep *s, sweep_dag *g, int64_t v)
{
	if (g->b.dist[v] < 0)
		dag_grow(s, g, v, 0);
	return g->b.dist[v];
}

/* The search to target with latency l0 there: cached, or in scratch when
 * the cache is full (kept entries stay; a round-robin over more targets
 * than fit then misses on the rest only). */
static sweep_dag *dag_get(fx_sweep *s, int64_t target, double l0)
{
	sweep_dag *g = s->cache[target];
	if (g && g->l0 == l0 && !g->multi)
		return g;
	if (!g && s->ncached < s->max_cached) {
		g = s->cache[target] = fx_xcalloc(1, sizeof *g);
		s->ncached++;
	}
	if (!g)
		g = &s->scratch;
	dag_start(s, target, l0, g);
	g->multi = 0;
	return g;
}

/* Appends v to bucket dd, making room (out of line: the push's hot path
 * is inject's test and store). */
static void bucket_append(fx_sweep *s, int64_t v, int32_t dd)
{
	if (dd >= s->bucket_dists) {
		int32_t n = 2 * dd + 2;
		s->bucket = fx_xrealloc(s->bucket, (size_t)n * sizeof *s->bucket);
		s->bucket_len = fx_xrealloc(s->bucket_len, (size_t)n * sizeof *s->bucket_len);
		s->bucket_cap = fx_xrealloc(s->bucket_cap, (size_t)n * sizeof *s->bucket_cap);
		for (int32_t k = s->bucket_dists; k < n; k++) {
			s->bucket[k] = NULL;
			s->bucket_len[k] = s->bucket_cap[k] = 0;
		}
		s->bucket_dists = n;
	}
	s->bucket[dd] = fx_xgrow(s->bucket[dd], &s->bucket_cap[dd], s->bucket_len[dd] + 1,
				 sizeof **s->bucket);
	s->bucket[dd][s->bucket_len[dd]++] = v;
}

/* Queues amount m at v (distance dd from the target). */
static inline void inject(fx_sweep *s, int64_t v, int32_t dd, double m)
{
	if (s->amount[v] == 0 && !s->queued[v]) {
		if (dd < s->bucket_dists && s->bucket_len[dd] < s->bucket_cap[dd])
			s->bucket[dd][s->bucket_len[dd]++] = v;
		else
			bucket_append(s, v, dd);
		s->queued[v] = 1;
	}
	s->amount[v] += m;
}

/* Drops whatever is still queued (a run stopped halfway), so the scratch
 * state is clean for the reference's rerun. */
static void buckets_clear(fx_sweep *s)
{
	for (int32_t dd = 0; dd < s->bucket_dists; dd++) {
		for (size_t k = 0; k < s->bucket_len[dd]; k++) {
			int64_t v = s->bucket[dd][k];
			s->amount[v] = 0;
			s->queued[v] = 0;
		}
		s->bucket_len[dd] = 0;
	}
}

/* v's share of m over one of its next-hop links sl (of weight total), to
 * the link and on to the next vertex, or to arr when it is the target of
 * a search from several vertices (dd: v's distance). */
static inline void share_out(fx_sweep *s, const sweep_slot *sl, double m, double total,
			     int32_t dd, double *load, double *arr)
{
	double share = m * sl->cnt * sl->bw / total;
	bump(s, load, sl->dl, share);
	if (dd > 1)
		inject(s, sl->nbr, dd - 1, share);
	else if (arr)
		arr[sl->nbr] += share;
}

/* Whether w, a neighbour of a vertex at distance dd, is one of its next
 * hops: the reference's condition, on g's distances or on a table row. */
static inline int is_next(const fx_sweep *s, const sweep_dag *g, const uint8_t *row, int64_t w,
			  int32_t dd, int64_t target)
{
	if (row)
		return row[w] == dd - 1 && (dd == 1 || s->relays[w]);
	return g->b.dist[w] == dd - 1 && relays_or(s->f, w, target);
}

/* Pushes the queued amounts down the DAG to target, farthest first, with
 * the reference's split (same expression, same incidence order).  The
 * next hops are g's cached masks, or with a table row (g NULL) read from
 * the distances.  With keep, the buckets stay listed for the latency pass
 * (every vertex the push reached, by distance). */
static void push(fx_sweep *s, const sweep_dag *g, const uint8_t *row, int64_t target, int32_t top,
		 double *load, double *arr, int keep)
{
	/* buckets past bucket_dists were never made: nothing was queued there
	 * (two devices on one switch queue nothing at all) */
	if (top >= s->bucket_dists)
		top = s->bucket_dists - 1;
	for (int32_t dd = top; dd >= 1; dd--) {
		for (size_t k = 0; k < s->bucket_len[dd]; k++) {
			int64_t v = s->bucket[dd][k];
			double m = s->amount[v];
			s->amount[v] = 0;
			s->queued[v] = 0;
			int64_t t0 = s->inc_off[v], t1 = s->inc_off[v + 1];
			s->work += (double)(t1 - t0);
			uint64_t mask = FX_BFS_SCAN;
			if (!row) {
				mask = g->b.next[v];
			} else if (t1 - t0 <= 64) {  /* is_next's test, without branches */
				mask = 0;
				int near = dd == 1;
				for (int64_t t = t0; t < t1; t++) {
					int32_t w = s->nbr[t];
					uint64_t hit = (row[w] == dd - 1) & (near | s->relays[w]);
					mask |= hit << (t - t0);
				}
			}
			if (mask == FX_BFS_SCAN) {  /* the reference's scan */
				double total = 0;
				for (int64_t t = t0; t < t1; t++)
					if (is_next(s, g, row, s->slot[t].nbr, dd, target))
						total += s->slot[t].cnt * s->slot[t].bw;
				for (int64_t t = t0; t < t1; t++)
					if (is_next(s, g, row, s->slot[t].nbr, dd, target))
						share_out(s, &s->slot[t], m, total, dd, load, arr);
				continue;
			}
			double total = 0;
			for (uint64_t b = mask; b; b &= b - 1) {
				const sweep_slot *sl = &s->slot[t0 + fx_lowest_bit(b)];
				total += sl->cnt * sl->bw;
			}
			for (uint64_t b = mask; b; b &= b - 1)
				share_out(s, &s->slot[t0 + fx_lowest_bit(b)], m, total, dd, load, arr);
		}
		if (!keep)
			s->bucket_len[dd] = 0;
	}
}

/* push with the next hops read from the s-t DAGs sd recorded: at each
 * vertex its neighbours one nearer that are the target or relay, in
 * incidence order, the reference's test and split (the scan above). */
static void push_sparse(fx_sweep *s, const fx_stdag *sd, int64_t target, int32_t top, double *load)
{
	if (top >= s->bucket_dists)
		top = s->bucket_dists - 1;
	for (int32_t dd = top; dd >= 1; dd--) {
		for (size_t k = 0; k < s->bucket_len[dd]; k++) {
			int64_t v = s->bucket[dd][k];
			double m = s->amount[v];
			s->amount[v] = 0;
			s->queued[v] = 0;
			int64_t t0 = s->inc_off[v], t1 = s->inc_off[v + 1];
			s->work += (double)(t1 - t0);
			double total = 0;
			for (int64_t t = t0; t < t1; t++) {
				int64_t w = s->slot[t].nbr;
				if (fx_stdag_dist(sd, w) == dd - 1 && (w == target || s->relays[w]))
					total += s->slot[t].cnt * s->slot[t].bw;
			}
			for (int64_t t = t0; t < t1; t++) {
				int64_t w = s->slot[t].nbr;
				if (fx_stdag_dist(sd, w) == dd - 1 && (w == target || s->relays[w]))
					share_out(s, &s->slot[t], m, total, dd, load, NULL);
			}
		}
		s->bucket_len[dd] = 0;
	}
}

/* The flows ord[i .. j-1] (one key, into target) from both ends
 * (routing/st_dag.c), each source's distance in dist[k - i] and worst
 * latency in lat[k - i]: 1 done, 0 past the steps of one whole search
 * (the cached search then serves them: a target with many far sources
 * shares it), -1 no route. */
static int sparse_dists(fx_sweep *s, const fx_flow *flows, const size_t *ord, size_t i, size_t j,
			int64_t target, double l0, int32_t *dist, double *lat)
{
	if (!s->sd)
		s->sd = fx_stdag_new(s->inc);
	fx_stdag *sd = s->sd;
	fx_stdag_start(sd, target, l0);
	double w0 = sd->work, cap = (double)s->f->nv + (double)s->inc_off[s->f->nv];
	int rc = 1;
	for (size_t k = i; k < j && rc == 1; k++) {
		const fx_flow *fl = &flows[ord[k]];
		if (fl->src == fl->dst || fl->bytes == 0)
			continue;
		dist[k - i] = fx_stdag_add(sd, fl->src, &lat[k - i]);
		if (dist[k - i] < 0)
			rc = -1;
		else if (sd->work - w0 > cap)
			rc = 0;
	}
	s->work += sd->work - w0;
	return rc;
}

/* After a push with keep: the worst latency of a shortest path from every
 * vertex it reached to target (latv; l0 at the target), nearest first,
 * as the search from the target sets it (the max over next hops of their
 * latency plus the link's); empties the buckets. */
static void latencies(fx_sweep *s, const uint8_t *row, int64_t target, int32_t top, double l0)
{
	if (top >= s->bucket_dists)
		top = s->bucket_dists - 1;
	s->latv[target] = l0;
	for (int32_t dd = 1; dd <= top; dd++) {
		for (size_t k = 0; k < s->bucket_len[dd]; k++) {
			int64_t v = s->bucket[dd][k];
			double lv = 0;
			int first = 1;
			for (int64_t t = s->inc_off[v]; t < s->inc_off[v + 1]; t++) {
				int32_t w = s->nbr[t];
				if (!(row[w] == dd - 1 && (dd == 1 || s->relays[w])))
					continue;
				double l = s->latv[w] + s->inc->lat[t];
				if (first || l > lv)
					lv = l;
				first = 0;
			}
			s->latv[v] = lv;
		}
		s->bucket_len[dd] = 0;
	}
}

/* The last hop of a home group: bytes addressed to device d over its links
 * from home u, split as the reference splits at u. */
static void last_hop(fx_sweep *s, int64_t d, double m, double *load)
{
	/* d's links in edge order are the ones the reference finds at u, in
	 * the same order (both incidence lists are in edge order) */
	double total = 0;
	for (int64_t t = s->inc_off[d]; t < s->inc_off[d + 1]; t++)
		total += s->slot[t].cnt * s->slot[t].bw;
	for (int64_t t = s->inc_off[d]; t < s->inc_off[d + 1]; t++) {
		const sweep_slot *sl = &s->slot[t];
		bump(s, load, s->slot[s->inc->twin[t]].dl, m * sl->cnt * sl->bw / total);
	}
}

/* Flows are grouped by target (a device's home, or the device) and by the
 * latency the target's table starts at; -home-1 marks home targets so a
 * vertex that is both a home and a destination keeps two groups. */
typedef struct sweep_key {
	int64_t target;  /* home: -(u + 1); the device itself: d; a device
			  * class (fx_sweep_add): its first device */
	double l0;
	int64_t dst;     /* in a class: the destination (runs within the group) */
} sweep_key;

static sweep_key key_of(const fx_sweep *s, int64_t d, int cls)
{
	sweep_key k;
	if (s->home[d] >= 0) {
		k.target = -(s->home[d] + 1);
		k.l0 = s->home_lat[d];
		k.dst = -1;
	} else {
		k.target = cls && s->klass && s->klass[d] >= 0 ? s->klass[d] : d;
		k.l0 = 0;
		k.dst = d;
	}
	return k;
}

static int key_cmp(const void *a, const void *b, void *ctx)
{
	const sweep_key *keys = ctx;
	const sweep_key *x = &keys[*(const size_t *)a], *y = &keys[*(const size_t *)b];
	if (x->target != y->target)
		return (x->target > y->target) - (x->target < y->target);
	if (x->l0 != y->l0)
		return (x->l0 > y->l0) - (x->l0 < y->l0);
	return (x->dst > y->dst) - (x->dst < y->dst);
}

static int same_key(const sweep_key *a, const sweep_key *b)
{
	return a->target == b->target && a->l0 == b->l0;
}

/* Whether neighbour w of home target T is one of its "up" links: not a
 * device whose home is T.  Of a sibling device T (T < ndev): a neighbour
 * that forwards (the others, a Grace CPU beside its GPUs, are on no path
 * into T; the candidates have no device among them). */
static int is_up(const fx_sweep *s, int64_t T, int64_t w)
{
	if (T < s->f->ndev)
		return s->relays[w];
	return !(w < s->f->ndev && s->home[w] == T);
}

/* Siblings: home targets whose up links are the same neighbours with the
 * same count, bandwidth and latency, in the same order (a fat-tree pod's
 * leaf switches).  Ordered by that sequence, then by latency l0. */
typedef struct sib_ctx {
	const fx_sweep *s;
	const int64_t *target;
	const double *l0;
} sib_ctx;

/* Orders home targets x and y by l0, then by their up links (neighbour,
 * count, bandwidth, latency, in incidence order); 0 when alike: siblings. */
static int up_links_cmp(const sib_ctx *c, int64_t x, int64_t y)
{
	const fx_sweep *s = c->s;
	if (c->l0[x] != c->l0[y])
		return c->l0[x] < c->l0[y] ? -1 : 1;
	int64_t tx = c->target[x], ty = c->target[y];
	int64_t px = s->inc_off[tx], py = s->inc_off[ty];
	for (;;) {
		while (px < s->inc_off[tx + 1] && !is_up(s, tx, s->slot[px].nbr))
			px++;
		while (py < s->inc_off[ty + 1] && !is_up(s, ty, s->slot[py].nbr))
			py++;
		int ex = px >= s->inc_off[tx + 1], ey = py >= s->inc_off[ty + 1];
		if (ex || ey)
			return ex && ey ? 0 : (ex ? -1 : 1);
		const sweep_slot *u = &s->slot[px], *v = &s->slot[py];
		double ul = s->inc->lat[px], vl = s->inc->lat[py];
		if (u->nbr != v->nbr)
			return u->nbr < v->nbr ? -1 : 1;
		if (u->cnt != v->cnt || u->bw != v->bw || ul != vl)
			return u->cnt != v->cnt ? (u->cnt < v->cnt ? -1 : 1)
			       : u->bw != v->bw ? (u->bw < v->bw ? -1 : 1) : (ul < vl ? -1 : 1);
		px++;
		py++;
	}
}

/* Siblings together, each group in index order. */
static int sib_cmp(const void *a, const void *b, void *vctx)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	int r = up_links_cmp(vctx, x, y);
	return r ? r : (x > y) - (x < y);
}

static int siblings(const sib_ctx *c, int64_t x, int64_t y)
{
	return up_links_cmp(c, x, y) == 0;
}

/* Whether T qualifies as a sibling: a home target's up neighbours all
 * relay (and none is T); a device class's member (T < ndev, no home) has
 * links, its forwarding neighbours are no device's home T, and its other
 * neighbours are no devices (so every path into T from a device enters
 * through its up neighbours). */
static int sibling_ok(const fx_sweep *s, int64_t T)
{
	int64_t n = s->f->ndev;
	if (T < n && s->inc_off[T + 1] == s->inc_off[T])
		return 0;
	for (int64_t t = s->inc_off[T]; t < s->inc_off[T + 1]; t++) {
		int64_t w = s->slot[t].nbr;
		if (is_up(s, T, w) ? w == T || !s->relays[w] || (T < n && w < n && s->home[w] == T)
				   : T < n && w < n)
			return 0;
	}
	return 1;
}

/* The device classes for fx_sweep_add: klass[d] is the first device of
 * d's siblings (sibling_ok devices with the same up links), -1 for a
 * device alone or homed.  O(n log n) comparisons of up-link lists. */
static void classes_build(fx_sweep *s)
{
	int64_t n = s->f->ndev, nc = 0;
	s->klass = fx_xmalloc((size_t)(n ? n : 1) * sizeof *s->klass);
	s->arr = fx_xcalloc((size_t)(s->f->nv ? s->f->nv : 1), sizeof *s->arr);
	int64_t *cand = fx_xmalloc((size_t)(n ? n : 1) * sizeof *cand);
	int64_t *tgt = fx_xmalloc((size_t)(n ? n : 1) * sizeof *tgt);
	double *l0 = fx_xcalloc((size_t)(n ? n : 1), sizeof *l0);
	for (int64_t d = 0; d < n; d++) {
		s->klass[d] = -1;
		tgt[d] = d;
		if (s->home[d] < 0 && sibling_ok(s, d))
			cand[nc++] = d;
	}
	sib_ctx sc = {s, tgt, l0};
	fx_sort_r(cand, (size_t)nc, sizeof *cand, sib_cmp, &sc);
	for (int64_t a = 0; a < nc;) {
		int64_t b = a + 1;
		while (b < nc && siblings(&sc, cand[a], cand[b]))
			b++;
		for (int64_t q = a; q < b && b - a >= 2; q++)
			s->klass[cand[q]] = cand[a];
		a = b;
	}
	free(cand);
	free(tgt);
	free(l0);
}

/* The search into device class rep from its up neighbours, each seeded
 * with the worst latency of rep's links to it (as rep's own search
 * reaches it); cached as rep's entry, or in scratch. */
static sweep_dag *class_dag_get(fx_sweep *s, int64_t rep)
{
	sweep_dag *g = s->cache[rep];
	if (g && g->multi)
		return g;
	if (!g && s->ncached < s->max_cached) {
		g = s->cache[rep] = fx_xcalloc(1, sizeof *g);
		s->ncached++;
	}
	if (!g)
		g = &s->scratch;
	dag_reset(g, (size_t)s->f->nv);
	for (int64_t t = s->inc_off[rep]; t < s->inc_off[rep + 1]; t++)
		if (is_up(s, rep, s->slot[t].nbr))
			fx_bfs_seed(&g->b, s->slot[t].nbr, s->inc->lat[t]);
	g->l0 = 0;
	g->multi = 1;
	return g;
}

/* The last hop into class member d: what arrived at each up neighbour a
 * (arr[a], emptied) over d's links to a, split as the reference splits
 * at a. */
static void class_last_hop(fx_sweep *s, int64_t d, double *arr, double *load)
{
	int64_t t0 = s->inc_off[d], t1 = s->inc_off[d + 1];
	for (int64_t t = t0; t < t1; t++) {
		int64_t a = s->slot[t].nbr;
		if (!is_up(s, d, a) || arr[a] == 0)
			continue;
		double total = 0;
		for (int64_t u = t; u < t1; u++)
			if (s->slot[u].nbr == a)
				total += s->slot[u].cnt * s->slot[u].bw;
		for (int64_t u = t; u < t1; u++)
			if (s->slot[u].nbr == a)
				bump(s, load, s->slot[s->inc->twin[u]].dl,
				     arr[a] * s->slot[u].cnt * s->slot[u].bw / total);
		arr[a] = 0;
	}
}

/* The flows ord[i .. *end-1] (one key: into device class key.target),
 * one search for the class and one push per destination down it: the
 * DAG into a member d is the class's search plus the last hop, as for a
 * home (its up neighbours A at distance 1 from d, every other vertex one
 * hop farther from d than from A).  Returns 0 or -1 (no route, nothing
 * added). */
static int class_group(fx_sweep *s, const fx_flow *flows, const size_t *ord, const sweep_key *keys,
		       size_t i, size_t n, size_t *end, double *load, fx_path_stats *st)
{
	sweep_key key = keys[ord[i]];
	sweep_dag *g = class_dag_get(s, key.target);
	size_t j = i;
	int32_t top = 0;
	for (; j < n && same_key(&keys[ord[j]], &key); j++) {
		const fx_flow *fl = &flows[ord[j]];
		if (fl->src == fl->dst || fl->bytes == 0)
			continue;
		int32_t dd = dag_dist(s, g, fl->src);
		if (dd < 0)
			return -1;
		if (dd > top)
			top = dd;
	}
	*end = j;
	dag_grow(s, g, -1, top);
	for (size_t a = i; a < j;) {
		int64_t d = keys[ord[a]].dst;
		int32_t dtop = 0;
		size_t b = a;
		for (; b < j && keys[ord[b]].dst == d; b++) {
			const fx_flow *fl = &flows[ord[b]];
			if (fl->src == fl->dst || fl->bytes == 0)
				continue;
			int32_t dd = g->b.dist[fl->src];
			if (dd + 1 > st->max_hops)
				st->max_hops = dd + 1;
			if (g->b.lat[fl->src] > st->max_latency)
				st->max_latency = g->b.lat[fl->src];
			if (dd == 0) {  /* a forwarding device among A: straight down */
				s->arr[fl->src] += fl->bytes;
				continue;
			}
			inject(s, fl->src, dd, fl->bytes);
			if (dd > dtop)
				dtop = dd;
		}
		push(s, g, NULL, -1, dtop, load, s->arr, 0);
		class_last_hop(s, d, s->arr, load);
		a = b;
	}
	return 0;
}

int fx_sweep_add(fx_sweep *s, const fx_flow *flows, size_t n, double *load, fx_path_stats *st,
		 int64_t **used, size_t *nused, size_t *capused)
{
	s->used = used;
	s->nused = nused;
	s->capused = capused;
	const fx_fabric *f = s->f;
	size_t *ord = fx_xmalloc((n ? n : 1) * sizeof *ord);
	sweep_key *keys = fx_xmalloc((n ? n : 1) * sizeof *keys);
	int32_t *sdist = fx_xmalloc((n ? n : 1) * sizeof *sdist);  /* a group's, from both ends */
	double *slat = fx_xmalloc((n ? n : 1) * sizeof *slat);
	if (!s->tab_tried)
		table_try(s);
	/* device classes where the searches are the sweep's own (a table row
	 * is one target's) */
	int cls = s->classes && !s->tab;
	if (cls && !s->klass)
		classes_build(s);
	for (size_t i = 0; i < n; i++) {
		ord[i] = i;
		keys[i] = key_of(s, flows[i].dst, cls);
	}
	fx_sort_r(ord, n, sizeof *ord, key_cmp, keys);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0;) {
		sweep_key key = keys[ord[i]];
		int home = key.target < 0;
		int64_t target = home ? -key.target - 1 : key.target;
		if (!home && cls && s->klass[target] >= 0) {
			size_t j = i;
			rc = class_group(s, flows, ord, keys, i, n, &j, load, st);
			i = j;
			if (rc == 0 && s->budget > 0 && fx_sweep_work(s) > s->budget)
				rc = FX_SWEEP_OVER;
			continue;
		}
		/* the target's distances: a table row, the cached search, or
		 * (a target not cached) the s-t DAGs of its sources */
		const uint8_t *row = s->tab ? fx_dtab_row(s->tab, target, 0) : NULL;
		size_t j = i;
		while (j < n && same_key(&keys[ord[j]], &key))
			j++;
		sweep_dag *g = NULL;
		int sp = 0;
		if (!row && s->sparse &&
		    !(s->cache[target] && s->cache[target]->l0 == key.l0 && !s->cache[target]->multi)) {
			sp = sparse_dists(s, flows, ord, i, j, target, key.l0, sdist, slat);
			if (sp < 0) {
				rc = -1;  /* the reference reports it */
				break;
			}
		}
		if (!row && !sp)
			g = dag_get(s, target, key.l0);
		int32_t top = 0, off = home ? 1 : 0;
		for (size_t k = i; k < j; k++) {  /* how deep to search */
			const fx_flow *fl = &flows[ord[k]];
			if (fl->src == fl->dst || fl->bytes == 0)
				continue;
			int32_t dd = sp ? sdist[k - i] : row ? fx_dtab_dist(s->tab, target, fl->src)
					 : dag_dist(s, g, fl->src);
			if (dd < 0) {
				rc = -1;  /* the reference reports it */
				break;
			}
			if (dd > top)
				top = dd;
		}
		if (rc)
			break;
		if (g)
			dag_grow(s, g, -1, top);
		else if (row)
			fx_dtab_row(s->tab, target, top);
		/* a table's latencies: by distance when every link has one
		 * latency (the search adds it once a hop), else after the push */
		double chain[FX_DTAB_NONE];
		int later = row && !s->lat_uniform;
		for (int32_t k = 0; row && !later && k <= top; k++)
			chain[k] = k == 0 ? key.l0 : chain[k - 1] + s->lat_link;
		for (size_t k = i; k < j; k++) {
			const fx_flow *fl = &flows[ord[k]];
			if (fl->src == fl->dst || fl->bytes == 0)
				continue;
			int32_t dd = sp ? sdist[k - i] : row ? row[fl->src] : g->b.dist[fl->src];
			if (dd + off > st->max_hops)
				st->max_hops = dd + off;
			double l = later ? 0 : sp ? slat[k - i] : row ? chain[dd] : g->b.lat[fl->src];
			if (l > st->max_latency)
				st->max_latency = l;
			if (home)
				s->into[fl->dst] += fl->bytes;
			if (dd > 0)
				inject(s, fl->src, dd, fl->bytes);
		}
		if (sp)
			push_sparse(s, s->sd, target, top, load);
		else
			push(s, g, row, target, top, load, NULL, later);
		if (later) {
			latencies(s, row, target, top, key.l0);
			for (size_t k = i; k < j; k++) {
				const fx_flow *fl = &flows[ord[k]];
				if (fl->src != fl->dst && fl->bytes != 0 &&
				    s->latv[fl->src] > st->max_latency)
					st->max_latency = s->latv[fl->src];
			}
		}
		for (size_t k = i; home && k < j; k++) {
			int64_t d = flows[ord[k]].dst;
			if (s->into[d] != 0) {
				last_hop(s, d, s->into[d], load);
				s->into[d] = 0;
			}
		}
		i = j;
		if (s->budget > 0 && fx_sweep_work(s) > s->budget)
			rc = FX_SWEEP_OVER;
	}
	if (rc) {  /* leave the scratch state clean for the reference's rerun */
		buckets_clear(s);
		for (int64_t d = 0; d < f->ndev; d++)
			s->into[d] = 0;
	}
	free(ord);
	free(keys);
	free(sdist);
	free(slat);
	return rc;
}

/*
 * All pairs into a set of sibling home targets S = {T_1..T_m} (a pod's
 * leaves) with up neighbours A, in one push.  Every path into T_i from
 * outside its own devices enters from A, and a vertex's next hops towards
 * T_i are its next hops towards A (one search from all of A, latencies
 * starting at l0 plus the up link's, as T_i's search reaches them).  All
 * pairs inject the same counts for every T_i, scaled by |G_i| (devices
 * under T_i), so one push of bytes x |G_S| from every source outside S
 * carries every intermediate load, and what arrives at each a in A is
 * shared among the T_i as |G_i| / |G_S|.  Sources under a sibling T_j
 * reach A by T_j's up split and go down to every other sibling.  Loads
 * equal the per-target pushes up to the order of additions; hops and
 * latencies exactly.
 */
static int pod_all_pairs(fx_sweep *s, const int64_t *T, const int64_t *gsz, int64_t m, double l0,
			 int homes, double bytes, double *load, fx_path_stats *st, sweep_dag *g,
			 double *arr, uint8_t *in_s)
{
	const fx_fabric *f = s->f;
	int64_t n = f->ndev, GS = 0;
	for (int64_t i = 0; i < m; i++) {
		GS += gsz[i];
		in_s[T[i]] = 1;
	}
	/* the search from all of A (T_1's up links, in its order; they all
	 * relay, as candidates' up neighbours, so they expand as seeds) */
	dag_reset(g, (size_t)f->nv);
	for (int64_t t = s->inc_off[T[0]]; t < s->inc_off[T[0] + 1]; t++) {
		int64_t a = s->slot[t].nbr;
		if (!is_up(s, T[0], a))
			continue;
		if (fx_bfs_seed(&g->b, a, l0 + s->inc->lat[t]))
			arr[a] = 0;
	}
	dag_grow(s, g, -1, INT32_MAX);
	int rc = 0;
	int32_t top = 0;
	for (int64_t v = 0; v < n; v++) {
		int64_t x = s->home[v] >= 0 ? s->home[v] : v;
		if (g->b.dist[v] < 0 || g->b.dist[x] < 0) {
			rc = -1;
			break;
		}
		/* to the other siblings' devices (and every device, from outside):
		 * one hop past A to a sibling device, two to a home's devices */
		if (g->b.dist[v] + 1 + homes > st->max_hops)
			st->max_hops = g->b.dist[v] + 1 + homes;
		if (g->b.lat[v] > st->max_latency)
			st->max_latency = g->b.lat[v];
		if (in_s[x] && !homes)  /* a sibling device: up to A, down again */
			continue;
		if (in_s[x]) {  /* under a sibling: to its own leaf's devices too */
			double lv = 0;
			for (int64_t t = s->inc_off[v]; t < s->inc_off[v + 1]; t++)
				if (t == s->inc_off[v] || l0 + s->inc->lat[t] > lv)
					lv = l0 + s->inc->lat[t];
			if (lv > st->max_latency)
				st->max_latency = lv;
			continue;
		}
		if (g->b.dist[x] == 0) {
			arr[x] += bytes * (double)GS;
			continue;
		}
		inject(s, x, g->b.dist[x], bytes * (double)GS);
		if (g->b.dist[x] > top)
			top = g->b.dist[x];
	}
	if (rc == 0) {
		push(s, g, NULL, -1, top, load, arr, 0);
		/* T_1's up split, as a unit: every sibling's is the same */
		double total = 0;
		for (int64_t t = s->inc_off[T[0]]; t < s->inc_off[T[0] + 1]; t++)
			if (is_up(s, T[0], s->slot[t].nbr))
				total += s->slot[t].cnt * s->slot[t].bw;
		for (int64_t j = 0; j < m; j++) {  /* sibling j's devices up to A */
			double mj = bytes * (double)gsz[j] * (double)(GS - gsz[j]);
			for (int64_t t = s->inc_off[T[j]]; t < s->inc_off[T[j] + 1]; t++)
				if (is_up(s, T[j], s->slot[t].nbr))
					bump(s, load, s->slot[t].dl, mj * s->slot[t].cnt * s->slot[t].bw / total);
		}
		/* down from A to each sibling: its share of what arrived, and what
		 * the other siblings' devices sent it */
		for (int64_t i = 0; i < m; i++) {
			int64_t t0 = s->inc_off[T[i]], t1 = s->inc_off[T[i] + 1];
			for (int64_t t = t0; t < t1; t++) {
				int64_t a = s->slot[t].nbr;
				if (!is_up(s, T[i], a))
					continue;
				int first = 1;  /* parallel links to a: handle a once */
				for (int64_t u = t0; u < t && first; u++)
					if (s->slot[u].nbr == a)
						first = 0;
				if (!first)
					continue;
				double unit = 0, ta = 0;  /* a's share of T's up split; a's links */
				for (int64_t u = t; u < t1; u++)
					if (s->slot[u].nbr == a) {
						unit += s->slot[u].cnt * s->slot[u].bw / total;
						ta += s->slot[u].cnt * s->slot[u].bw;
					}
				double amt = arr[a] * (double)gsz[i] / (double)GS +
					     bytes * (double)gsz[i] * (double)(GS - gsz[i]) * unit;
				for (int64_t u = t; u < t1; u++)
					if (s->slot[u].nbr == a)
						bump(s, load, s->slot[s->inc->twin[u]].dl,
						     amt * s->slot[u].cnt * s->slot[u].bw / ta);
			}
		}
	}
	for (int64_t i = 0; i < m; i++)
		in_s[T[i]] = 0;
	for (int64_t t = s->inc_off[T[0]]; t < s->inc_off[T[0] + 1]; t++)  /* arr: only A's */
		arr[s->slot[t].nbr] = 0;
	return rc;
}

/* The sibling runs cand[ra[k] .. rb[k]-1], k < nr, folded (routing/
 * sweep_fold.c) when they are sets of sibling devices (no homes) of one
 * size that a proven turn of the fabric moves each onto the next in this
 * order: pushes sets 0 and 1 apart, and when set 1's bytes are set 0's
 * image bit for bit (the per-set pushes add alike amounts), folds set 0's
 * into load for all nr.  With searches, counts the two searches (and says
 * 1) when the turn exists.  Returns 1 folded, 0 not (nothing added; push
 * the sets one by one), -1 no route. */
static int fold_runs(fx_sweep *s, const int64_t *cand, const int64_t *ra, const int64_t *rb,
		     int64_t nr, const int64_t *gt, const double *gl, const sweep_key *keys,
		     const size_t *ord, const int64_t *gi, double bytes, double *load,
		     fx_path_stats *st, sweep_dag *one, double *arr, uint8_t *in_s, int64_t *T,
		     int64_t *gsz, double *searches)
{
	const fx_fabric *f = s->f;
	if (!s->fold || nr < 3)
		return 0;
	for (int64_t k = 0; k < nr; k++)
		if (keys[ord[gi[cand[ra[k]]]]].target < 0 || rb[k] - ra[k] != rb[0] - ra[0] ||
		    gl[cand[ra[k]]] != gl[cand[ra[0]]])
			return 0;
	if (s->fold_state == 0) {
		int64_t *setof = fx_xmalloc((size_t)(f->ndev ? f->ndev : 1) * sizeof *setof);
		for (int64_t d = 0; d < f->ndev; d++)
			setof[d] = -1;
		for (int64_t k = 0; k < nr; k++)
			for (int64_t q = ra[k]; q < rb[k]; q++)
				setof[gt[cand[q]]] = k;
		s->fold_ginv = fx_xmalloc((size_t)(2 * f->ne + 1) * sizeof *s->fold_ginv);
		s->fold_state = fx_fold_cycle(f, setof, nr, s->fold_ginv) ? 1 : -1;
		free(setof);
		if (s->fold_state < 0) {
			free(s->fold_ginv);
			s->fold_ginv = NULL;
		}
	}
	if (s->fold_state < 0)
		return 0;
	if (searches) {
		*searches += 2;
		return 1;
	}
	int64_t nl = 2 * f->ne, m = rb[0] - ra[0];
	double *rep[2];
	int64_t **used = s->used, *u = NULL;
	size_t *nused = s->nused, *capused = s->capused, nu = 0, cu = 0;
	s->used = &u;  /* the sets' own loads: not yet the caller's */
	s->nused = &nu;
	s->capused = &cu;
	int rc = 0;
	for (int k = 0; k < 2; k++) {
		rep[k] = fx_xcalloc((size_t)(nl ? nl : 1), sizeof *rep[k]);
		for (int64_t q = ra[k]; q < rb[k]; q++) {
			T[q - ra[k]] = gt[cand[q]];
			gsz[q - ra[k]] = gi[cand[q] + 1] - gi[cand[q]];
		}
		if (rc == 0)
			rc = pod_all_pairs(s, T, gsz, m, gl[cand[ra[k]]], 0, bytes, rep[k], st, one,
					   arr, in_s);
	}
	s->used = used;
	s->nused = nused;
	s->capused = capused;
	int same = rc == 0;
	for (int64_t l = 0; l < nl && same; l++)
		same = rep[1][l] == rep[0][s->fold_ginv[l]];
	if (same)
		fx_fold_replay(s->fold_ginv, nl, rep[0], nr, load, used, nused, capused);
	free(rep[0]);
	free(rep[1]);
	free(u);
	return rc ? -1 : same;
}

/* All pairs; with searches, only counts the searches it would make (one
 * per sibling set, one per other group) into *searches. */
static int all_pairs(fx_sweep *s, double bytes, double *load, fx_path_stats *st, int64_t **used,
		     size_t *nused, size_t *capused, double *searches)
{
	s->used = used;
	s->nused = nused;
	s->capused = capused;
	const fx_fabric *f = s->f;
	int64_t n = f->ndev;
	size_t *ord = fx_xmalloc((size_t)(n ? n : 1) * sizeof *ord);
	sweep_key *keys = fx_xmalloc((size_t)(n ? n : 1) * sizeof *keys);
	uint8_t *in = fx_xcalloc((size_t)(n ? n : 1), 1);
	for (int64_t d = 0; d < n; d++) {
		ord[d] = (size_t)d;
		keys[d] = key_of(s, d, 0);
	}
	fx_sort_r(ord, (size_t)n, sizeof *ord, key_cmp, keys);
	/* the groups: ord[gi[k] .. gi[k+1]-1] share a key */
	int64_t ng = 0, *gi = fx_xmalloc((size_t)(n + 1) * sizeof *gi);
	for (int64_t i = 0; i < n; i++)
		if (i == 0 || !same_key(&keys[ord[i]], &keys[ord[i - 1]]))
			gi[ng++] = i;
	gi[ng] = n;
	int64_t *gt = fx_xmalloc((size_t)(ng + 1) * sizeof *gt);
	double *gl = fx_xmalloc((size_t)(ng + 1) * sizeof *gl);
	int64_t *cand = fx_xmalloc((size_t)(ng + 1) * sizeof *cand), nc = 0;
	uint8_t *podded = fx_xcalloc((size_t)(ng + 1), 1);
	for (int64_t k = 0; k < ng; k++) {
		sweep_key key = keys[ord[gi[k]]];
		gt[k] = key.target < 0 ? -key.target - 1 : key.target;
		gl[k] = key.l0;
		/* a candidate sibling: a switch that is one group's home, whose
		 * other neighbours all relay; or (a device class) a device with
		 * no home whose links go to vertices that forward (an NPU on 7
		 * UB L1 chips, a GPU on the NVSwitches of its tray), beside
		 * others that neither forward nor send (a Grace CPU).  Every
		 * path into a sibling enters from those: another sibling T_j is
		 * on none (dist(v, T_j) > dist(v, A) for v outside), even when
		 * the devices forward (custom graphs). */
		int ok = key.target < 0 ? gt[k] >= n && !(k > 0 && gt[k - 1] == gt[k]) &&
					  !(k + 1 < ng && keys[ord[gi[k + 1]]].target == key.target)
					: s->classes;
		if (ok && sibling_ok(s, gt[k]))
			cand[nc++] = k;
	}
	sib_ctx sc = {s, gt, gl};
	fx_sort_r(cand, (size_t)nc, sizeof *cand, sib_cmp, &sc);
	sweep_dag one = {0};  /* each target once: no point caching */
	double *arr = fx_xcalloc((size_t)(f->nv ? f->nv : 1), sizeof *arr);
	uint8_t *in_s = fx_xcalloc((size_t)(f->nv ? f->nv : 1), 1);
	int64_t *T = fx_xmalloc((size_t)(nc + 1) * sizeof *T), *gsz = fx_xmalloc((size_t)(nc + 1) * sizeof *gsz);
	int rc = 0;
	/* the runs of two or more siblings, folded when a turn of the fabric
	 * moves each onto the next (UB nodes, NVSwitch trays) */
	int64_t nr = 0, *ra = fx_xmalloc((size_t)(nc + 1) * sizeof *ra);
	int64_t *rb = fx_xmalloc((size_t)(nc + 1) * sizeof *rb);
	for (int64_t a = 0; a < nc;) {
		int64_t b = a + 1;
		while (b < nc && siblings(&sc, cand[a], cand[b]))
			b++;
		if (b - a >= 2) {
			ra[nr] = a;
			rb[nr++] = b;
		}
		a = b;
	}
	int folded = 0;
	if (s->classes) {
		int fr = fold_runs(s, cand, ra, rb, nr, gt, gl, keys, ord, gi, bytes, load, st, &one,
				   arr, in_s, T, gsz, searches);
		if (fr < 0)
			rc = -1;
		folded = fr > 0;
		for (int64_t k = 0; k < nr && folded; k++)
			for (int64_t q = ra[k]; q < rb[k]; q++)
				podded[cand[q]] = 1;
	}
	if (!searches)
		s->folded = folded;
	free(ra);
	free(rb);
	for (int64_t a = 0; a < nc && rc == 0 && !folded;) {
		int64_t b = a + 1;
		while (b < nc && siblings(&sc, cand[a], cand[b]))
			b++;
		if (b - a >= 2 && searches) {
			*searches += 1;
			for (int64_t q = a; q < b; q++)
				podded[cand[q]] = 1;
		} else if (b - a >= 2) {
			for (int64_t q = a; q < b; q++) {
				T[q - a] = gt[cand[q]];
				gsz[q - a] = gi[cand[q] + 1] - gi[cand[q]];
				podded[cand[q]] = 1;
			}
			int homes = keys[ord[gi[cand[a]]]].target < 0;
			rc = pod_all_pairs(s, T, gsz, b - a, gl[cand[a]], homes, bytes, load, st, &one,
					   arr, in_s);
			for (int64_t q = a; q < b && homes; q++)  /* last hops */
				for (int64_t k = gi[cand[q]]; k < gi[cand[q] + 1]; k++)
					last_hop(s, (int64_t)ord[k], bytes * (double)(n - 1), load);
		}
		a = b;
	}
	free(T);
	free(gsz);
	free(arr);
	free(in_s);
	free(cand);
	for (int64_t gk = 0; gk < ng && rc == 0; gk++) {
		if (podded[gk])
			continue;
		if (searches) {
			*searches += 1;
			continue;
		}
		int64_t i = gi[gk], j = gi[gk + 1];
		sweep_key key = keys[ord[i]];
		int home = key.target < 0;
		int64_t target = gt[gk];
		for (int64_t k = i; k < j; k++)
			in[ord[k]] = 1;
		int64_t size = j - i;
		sweep_dag *g = s->cache[target] && s->cache[target]->l0 == key.l0 &&
					       !s->cache[target]->multi ? s->cache[target] : &one;
		if (g == &one)
			dag_start(s, target, key.l0, g);
		dag_grow(s, g, -1, INT32_MAX);
		int32_t top = 0, off = home ? 1 : 0;
		for (int64_t v = 0; v < n; v++) {  /* v sends to the group's members but itself */
			int64_t c = size - in[v];
			if (c == 0)
				continue;
			int32_t dd = g->b.dist[v];
			if (dd < 0) {
				rc = -1;
				break;
			}
			if (dd + off > st->max_hops)
				st->max_hops = dd + off;
			if (g->b.lat[v] > st->max_latency)
				st->max_latency = g->b.lat[v];
			int64_t u = s->home[v];
			if (u >= 0) {  /* its first hop is added once, after every group */
				if (u != target)
					inject(s, u, dd - 1, bytes * (double)c);
			} else if (dd > 0) {
				inject(s, v, dd, bytes * (double)c);
			}
			if (dd > top)
				top = dd;
		}
		if (rc == 0) {
			push(s, g, NULL, target, top, load, NULL, 0);
			for (int64_t k = i; home && k < j; k++)
				last_hop(s, (int64_t)ord[k], bytes * (double)(n - 1), load);
		}
		for (int64_t k = i; k < j; k++)
			in[ord[k]] = 0;
	}
	free(podded);
	free(gi);
	free(gt);
	free(gl);
	/* every device's first hop: all its n - 1 destinations' bytes, split
	 * over its links home as the reference splits them at the device */
	for (int64_t v = 0; v < n && rc == 0 && !searches; v++) {
		int64_t u = s->home[v];
		if (u < 0)
			continue;
		double m = bytes * (double)(n - 1), total = 0;
		for (int64_t t = s->inc_off[v]; t < s->inc_off[v + 1]; t++)
			total += s->slot[t].cnt * s->slot[t].bw;
		for (int64_t t = s->inc_off[v]; t < s->inc_off[v + 1]; t++)
			bump(s, load, s->slot[t].dl, m * s->slot[t].cnt * s->slot[t].bw / total);
	}
	if (rc)  /* as above */
		buckets_clear(s);
	dag_free(&one);
	free(in);
	free(ord);
	free(keys);
	return rc;
}

int fx_sweep_all_pairs(fx_sweep *s, double bytes, double *load, fx_path_stats *st,
		       int64_t **used, size_t *nused, size_t *capused)
{
	return all_pairs(s, bytes, load, st, used, nused, capused, NULL);
}

double fx_sweep_all_pairs_searches(fx_sweep *s)
{
	double n = 0;
	int64_t *used = NULL;
	size_t nused = 0, capused = 0;
	fx_path_stats st = {0, 0};
	all_pairs(s, 0, NULL, &st, &used, &nused, &capused, &n);
	free(used);
	return n;
}

int64_t fx_sweep_target(fx_sweep *s, int64_t dst)
{
	if (!s->tab_tried)
		table_try(s);
	int cls = s->classes && !s->tab;
	if (cls && !s->klass)
		classes_build(s);
	sweep_key k = key_of(s, dst, cls);
	return k.target < 0 ? s->f->nv + (-k.target - 1) : k.target;
}
