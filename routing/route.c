/*
 * Routers: how each kind of fabric carries a flow.  Each kind names its
 * router family in its builder entry (fx_builder.router); the table at the
 * end of this file maps the family to its router:
 *
 *   FX_ROUTER_DOR   dimension-order (torus, mesh, wafer-mesh): dor_*
 *   FX_ROUTER_ECMP  ecmp (fat-tree, nvswitch, ub, slimfly, hyperx, custom):
 *                   ecmp_*
 *   FX_ROUTER_DRAGONFLY  minimal, Valiant or UGAL by groups (dragonfly):
 *                   dfly_*, routing/route_dragonfly.c
 *
 * Failed elements (fabric/fail.c): ECMP never sees a failed bundle (the
 * incidence list leaves them out, so distances, splits and hash walks run
 * on the degraded graph).  Dimension order has no way round a failure, so
 * on a degraded fabric fx_router_new falls back, in one place, to ECMP
 * over the degraded graph's shortest paths, and the router's name says so.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/limits.h"
#include "../core/sort.h"
#include "../core/xalloc.h"
#include "internal.h"

typedef struct router_kind {
	const char *name;
	/* Sets up the router's own state for r->f (fx_router_free frees it). */
	void (*init)(fx_router *r);
	int (*add)(fx_router *r, const fx_flow *flows, size_t n, double *load, fx_path_stats *st,
		   fx_diag *d);
	/* Adds bytes between every ordered pair of devices; NULL: one
	 * destination at a time through add. */
	int (*all_pairs)(fx_router *r, double bytes, double *load, fx_path_stats *st, fx_diag *d);
	/* Adds an all-to-all among a rank set; NULL: its flows, listed. */
	int (*among)(fx_router *r, const fx_among *a, double *load, fx_path_stats *st, fx_diag *d);
} router_kind;

struct fx_router {
	const fx_fabric *f;
	const router_kind *kind;
	int tie_plus;
	fx_route_policy policy; /* as set (the dragonfly router reads it) */
	int hash;               /* FX_ROUTE_HASH: one path per flow, merged by state */
	int modk;               /* FX_ROUTE_DMODK, _SMODK: one path per flow, per cable */
	/* per-cable loads (modk): cable j of bundle e, direction dir at
	 * 2 * (cable_off[e] + j) + dir; bundles of one cable have none */
	double *cable;
	int64_t *cable_off;
	/* hash, dmodk, smodk: each device's number for the mod-k choices
	 * (fx_route_tree_positions); NULL: its device number */
	int64_t *tpos;
	int tpos_done;
	/* composite fabrics: flows inside a domain go to `intra`, a router
	 * over the domains alone (fx_fabric_domain_view); NULL elsewhere */
	fx_router *intra;
	fx_fabric *view;
	fx_dfr *dfr;            /* dragonfly: its router */
	int degraded;           /* built on a fabric with failed elements */
	int fallback;           /* ... whose own router could not avoid them */
	/* dimension-order latency: a route's is the sum of its links' own
	 * (link classes differ on tori with rack_link, dim_link, wrap_link).
	 * Every lattice builder gives a link a latency set by its dimension
	 * and its position along the line alone, so lat_pre[i][p] sums the
	 * latencies of dimension i's links at positions 0 .. p-1 and a
	 * segment costs O(1).  lat_uniform: all links alike (hops x hop_lat);
	 * lat_by_pos 0 (never with the shipped builders): the slowest link's
	 * latency per hop, a bound. */
	double hop_lat;         /* the slowest link's latency */
	int lat_uniform, lat_by_pos;
	double *lat_pre[FX_MAX_DIMS];  /* [k + 1] per dimension */
	fx_inc inc;             /* ecmp: incident edges per vertex (routing/bfs.c) */
	int32_t *queue;         /* ecmp: the searches' queue */
	int64_t *used;          /* directed links loaded since fx_router_used() */
	size_t nused, capused;
	/* dimension-order: difference arrays per (dimension, direction), over
	 * vertex ids; the entry at a line's position p is the change in load on
	 * that line's link p (p -> p+1 for +, p+1 -> p for -). */
	double *diff;
	uint8_t *touched;       /* [2D x N]: line (dimension, direction, base) has entries */
	int64_t *dl;            /* [2D x N]: directed link of line position v, + and - */
	int64_t *lines;         /* touched lines as (2i+dir) * N + base */
	size_t nlines, caplines;
	/* ecmp: per-destination distances (relay-aware BFS) and worst path
	 * latency to the destination, cached */
	int32_t **dist;
	double **lat;
	/* the search into a device from its neighbours, one hop farther
	 * (class_table): kept for the last device of those incidences */
	int cls_ok;             /* cls_* hold cls_dev's */
	int64_t cls_dev;
	int32_t *cls_dist, cls_far;
	uint32_t cls_gen;       /* bumped at every new class search */
	/* hash: per vertex two or more hops from a class search's device, its
	 * next-hop links in edge order (at inc.off[v], hp_m[v] of them) and
	 * its hp_k[v] ports (-1: bundles of mixed widths, scan), valid when
	 * hp_gen[v] == cls_gen */
	int64_t *hp_port, *hp_k, *hp_m;
	uint32_t *hp_gen;
	double *cls_lat;
	struct hash_state *hs;  /* hash_push: (vertex, x) states of one destination */
	size_t nhs, caphs;
	int64_t *hs_head;       /* a vertex's first state, or -1 */
	double *amount;
	uint8_t *queued;
	int64_t *bucket;        /* vertices waiting, grouped by distance: nv per distance */
	int64_t bucket_dists;   /* distances bucket has room for */
	int64_t *bucket_len;
	int64_t max_cached;
	int64_t ncached;
	fx_sweep *sweep;        /* ecmp split: the grouped fast path */
	fx_updown *updown;      /* ecmp split on up/down fabrics: the round sweep */
	int updown_tried;
	int updown_mode;        /* 0 default (once enough flows), 1 at once, -1 never */
	double flows_seen;      /* flows listed to ecmp_add so far */
	fx_dorsum *sum;         /* dimension-order: round summaries, when */
	int sum_tried, sum_on;  /* sum_on (routing/dor_sum.c) */
	int reference;          /* 1: per-destination reference paths only */
	/* ecmp on links with routing weights (fx_cost_weighted): least-cost
	 * paths, by routing/route_cost.c; its tables hold nv distances (in
	 * cost units) then nv hop counts; the hop-count fast paths (sweeps,
	 * up/down) are off (reference) */
	int costed;
	int tab_mode;           /* the sweep's distance table (fx_sweep_set_table) */
	int full_search;        /* 1: every target's whole search (tests) */
};

/* Adds bytes to directed link l, remembering links that were empty so the
 * caller can visit (and clear) only the links a round used. */
static inline void bump(fx_router *r, double *load, int64_t l, double bytes)
{
	fx_load_add(load, l, bytes, &r->used, &r->nused, &r->capused);
}

/* ---------------- dimension-order routing on lattices ---------------- */

static void dor_coords(const fx_fabric *f, int64_t v, int *x)
{
	fx_fabric_coords(f, v, x);
}

/* Adds m bytes over h hops of dimension i starting at coordinate a of the
 * line whose position-0 vertex is base, moving + (dir 0) or - (dir 1). */
static void dor_segment(fx_router *r, int i, int dir, int64_t base, int64_t stride, int a, int h,
			double m)
{
	const fx_fabric *f = r->f;
	int k = f->dims[i];
	size_t slot = (size_t)(2 * i + dir) * (size_t)f->ndev;
	if (r->sum_on) {  /* the same entries, in the same order, to the summary */
		int64_t line = (int64_t)(slot + (size_t)base);
		int s0 = dir == 0 ? a : ((a - h) % k + k) % k, e0 = s0 + h;
		fx_dorsum_point(r->sum, line, s0, m);
		if (e0 <= k) {
			if (e0 < k)
				fx_dorsum_point(r->sum, line, e0, -m);
		} else {
			fx_dorsum_point(r->sum, line, 0, m);
			fx_dorsum_point(r->sum, line, e0 - k, -m);
		}
		return;
	}
	double *df = r->diff + slot;
	if (!r->touched[slot + (size_t)base]) {
		r->touched[slot + (size_t)base] = 1;
		r->lines = fx_xgrow(r->lines, &r->caplines, r->nlines + 1, sizeof *r->lines);
		r->lines[r->nlines++] = (int64_t)(slot + (size_t)base);
	}
	/* link positions: + covers a .. a+h-1, - covers a-h .. a-1 (mod k) */
	int start = dir == 0 ? a : ((a - h) % k + k) % k;
	int end = start + h;
	if (end <= k) {
		df[base + (int64_t)start * stride] += m;
		if (end < k)
			df[base + (int64_t)end * stride] -= m;
	} else {  /* wraps past k-1 */
		df[base + (int64_t)start * stride] += m;
		df[base] += m;
		df[base + (int64_t)(end - k) * stride] -= m;
	}
}

/* Seconds of h links of dimension i from link position `start` on
 * (positions wrap round a ring): their latencies summed. */
static double seg_lat(const fx_router *r, int i, int start, int h)
{
	if (r->lat_uniform || !r->lat_by_pos)
		return (double)h * r->hop_lat;
	int k = r->f->dims[i];
	const double *pre = r->lat_pre[i];
	if (start + h <= k)
		return pre[start + h] - pre[start];
	return pre[k] - pre[start] + pre[start + h - k];
}

/* The link position a segment of h hops from coordinate a starts at. */
static int seg_start(int k, int dir, int a, int h)
{
	return dir == 0 ? a : ((a - h) % k + k) % k;
}

/* Routes one flow (or a half of a split one) from dimension i onward;
 * returns the route's latency from here (the slower half's where an even
 * ring's tie splits it). */
static double dor_flow(fx_router *r, int i, int *x, const int *y, double m, int *hops)
{
	const fx_fabric *f = r->f;
	double lat = 0, other = 0;  /* other: the worst split-off half's */
	for (; i < f->ndims; i++) {
		int k = f->dims[i];
		int fwd = ((y[i] - x[i]) % k + k) % k;
		if (fwd == 0)
			continue;
		int64_t stride = 1, base = 0;
		for (int j = 0; j < i; j++)
			stride *= f->dims[j];
		int64_t s = 1;
		for (int j = 0; j < f->ndims; j++) {
			if (j != i)
				base += (int64_t)x[j] * s;
			s *= f->dims[j];
		}
		int dir, h;
		if (!f->wrap[i]) {
			h = abs(y[i] - x[i]);
			dir = y[i] > x[i] ? 0 : 1;
		} else if (2 * fwd == k && (r->hash || r->modk)) {
			/* pinned: even destination coordinates go +, odd go - */
			h = fwd;
			dir = y[i] % 2;
		} else if (2 * fwd == k && !r->tie_plus) {
			/* the two equal ways round an even ring share the traffic:
			 * half goes the - way and finishes its route from here */
			int x2[FX_MAX_DIMS], h2 = *hops + fwd;
			memcpy(x2, x, sizeof x2);
			dor_segment(r, i, 1, base, stride, x[i], fwd, m / 2);
			x2[i] = y[i];
			double l2 = lat + seg_lat(r, i, seg_start(k, 1, x[i], fwd), fwd) +
				    dor_flow(r, i + 1, x2, y, m / 2, &h2);
			if (l2 > other)
				other = l2;
			m /= 2;
			h = fwd;
			dir = 0;
		} else if (fwd <= k - fwd) {
			h = fwd;
			dir = 0;
		} else {
			h = k - fwd;
			dir = 1;
		}
		dor_segment(r, i, dir, base, stride, x[i], h, m);
		lat += seg_lat(r, i, seg_start(k, dir, x[i], h), h);
		*hops += h;
		x[i] = y[i];
	}
	return lat > other ? lat : other;
}

/* The worst latency of a dimension-order route's part in dimension i from
 * coordinate a to b (both ways where a tie splits the flow). */
static double dim_worst(const fx_router *r, int i, int a, int b)
{
	const fx_fabric *f = r->f;
	int k = f->dims[i];
	if (a == b)
		return 0;
	if (!f->wrap[i])
		return seg_lat(r, i, a < b ? a : b, abs(b - a));
	int fwd = ((b - a) % k + k) % k;
	double plus = seg_lat(r, i, a, fwd), minus = seg_lat(r, i, b, k - fwd);
	if (2 * fwd == k)
		return r->hash ? (b % 2 ? minus : plus) : r->tie_plus ? plus
			: (plus > minus ? plus : minus);
	return fwd < k - fwd ? plus : minus;
}

/* The slowest route among devices dev[0..n-1] (NULL: every device), each
 * to every other: the sum over dimensions of the worst part there, since
 * a route's parts in different dimensions are chosen independently.  For
 * every device that is exact; for a subset it is exact up to
 * PAIRS_EXACT devices (every pair summed) and above that the per-dimension
 * worst over the coordinates present, a bound (exact on a box). */
#define PAIRS_EXACT 2048
static double dor_pairs_latency(const fx_router *r, const int64_t *dev, int64_t n, int64_t hops)
{
	const fx_fabric *f = r->f;
	if (r->lat_uniform || !r->lat_by_pos)
		return (double)hops * r->hop_lat;
	int D = f->ndims;
	if (dev && n <= PAIRS_EXACT) {
		double worst = 0;
		int *xs = fx_xmalloc((size_t)(n ? n : 1) * (size_t)D * sizeof *xs);
		for (int64_t a = 0; a < n; a++)
			fx_fabric_coords(f, dev[a], xs + a * D);
		for (int64_t a = 0; a < n; a++)
			for (int64_t b = 0; b < n; b++) {
				double l = 0;
				for (int i = 0; i < D; i++)
					l += dim_worst(r, i, xs[a * D + i], xs[b * D + i]);
				if (l > worst)
					worst = l;
			}
		free(xs);
		return worst;
	}
	double sum = 0;
	for (int i = 0; i < D; i++) {
		int k = f->dims[i];
		uint8_t *have = fx_xcalloc((size_t)k, 1);
		int x[FX_MAX_DIMS];
		if (dev)
			for (int64_t a = 0; a < n; a++) {
				fx_fabric_coords(f, dev[a], x);
				have[x[i]] = 1;
			}
		else
			memset(have, 1, (size_t)k);
		double worst = 0;
		for (int a = 0; a < k; a++)
			for (int b = 0; b < k && have[a]; b++)
				if (have[b]) {
					double l = dim_worst(r, i, a, b);
					if (l > worst)
						worst = l;
				}
		free(have);
		sum += worst;
	}
	return sum;
}

static void dor_arrays(fx_router *r);

static int dor_add(fx_router *r, const fx_flow *flows, size_t n, double *load, fx_path_stats *st,
		   fx_diag *d)
{
	const fx_fabric *f = r->f;
	(void)d;
	if (!r->sum_on)
		dor_arrays(r);
	for (size_t q = 0; q < n; q++) {
		if (flows[q].src == flows[q].dst || flows[q].bytes == 0)
			continue;
		int x[FX_MAX_DIMS], y[FX_MAX_DIMS], hops = 0;
		dor_coords(f, flows[q].src, x);
		dor_coords(f, flows[q].dst, y);
		double lat = dor_flow(r, 0, x, y, flows[q].bytes, &hops);
		if (r->lat_uniform || !r->lat_by_pos)  /* exactly as the all-pairs paths */
			lat = (double)hops * r->hop_lat;
		if (hops > st->max_hops)
			st->max_hops = hops;
		if (lat > st->max_latency)
			st->max_latency = lat;
	}
	/* prefix sums along the touched lines turn the differences into link
	 * loads; entries are cleared as they are read, ready for the next call */
	for (size_t t = 0; t < r->nlines; t++) {
		size_t slot = (size_t)r->lines[t] / (size_t)f->ndev;
		int64_t base = r->lines[t] % f->ndev;
		int i = (int)(slot / 2), k = f->dims[i];
		int64_t stride = 1;
		for (int j = 0; j < i; j++)
			stride *= f->dims[j];
		double *df = r->diff + slot * (size_t)f->ndev;
		const int64_t *dl = r->dl + slot * (size_t)f->ndev;
		double run = 0;
		for (int p = 0; p < k; p++) {
			int64_t v = base + (int64_t)p * stride;
			run += df[v];
			df[v] = 0;
			if (run != 0 && dl[v] >= 0)
				bump(r, load, dl[v], run);
		}
		r->touched[r->lines[t]] = 0;
	}
	r->nlines = 0;
	return 0;
}

/* ---- every pair at once, from line counts (routing/dor_pairs.c) ---- */

typedef struct bump_ctx {
	fx_router *r;
	double *load;
} bump_ctx;

static void bump_emit(void *ctx, int64_t l, double bytes)
{
	bump_ctx *c = ctx;
	bump(c->r, c->load, l, bytes);
}

static fx_dor_tie dor_tie(const fx_router *r)
{
	return r->hash || r->modk ? FX_DOR_TIE_HASH : r->tie_plus ? FX_DOR_TIE_PLUS : FX_DOR_TIE_SPLIT;
}

/* Every device: each line of dimension i carries N/k_i times the all-pairs
 * load of one line (a 4000x2 mesh went from 150 s to milliseconds). */
static int dor_all_pairs(fx_router *r, double bytes, double *load, fx_path_stats *st, fx_diag *d)
{
	(void)d;
	bump_ctx c = {r, load};
	st->max_hops = fx_dor_pairs(r->f, NULL, 0, dor_tie(r), bytes, bump_emit, &c);
	st->max_latency = dor_pairs_latency(r, NULL, r->f->ndev, st->max_hops);
	return 0;
}

/* A rank subset: line loads from the counts of ranks per line. */
static int dor_among(fx_router *r, const fx_among *a, double *load, fx_path_stats *st, fx_diag *d)
{
	(void)d;
	bump_ctx c = {r, load};
	st->max_hops = fx_dor_pairs(r->f, a->dev, a->n, dor_tie(r), a->bytes, bump_emit, &c);
	st->max_latency = dor_pairs_latency(r, a->dev, a->n, st->max_hops);
	return 0;
}

/* ---------------- ECMP over shortest paths ---------------- */

static void incidence(fx_router *r);

/* Relay-aware breadth-first distances to dst, and the worst latency of any
 * shortest path to dst (ECMP may send a share down any of them), cached. */
/*
 * The search from device dst (dist, lat: nv each), from a search its
 * alike siblings share: when dst does not relay and every neighbour of
 * dst does, every path out of dst starts with a link to a neighbour, so
 * the search from dst is the search from its neighbours (each seeded with
 * the worst latency of dst's links to it, as dst's expansion reaches it)
 * one hop farther, dst itself aside.  That search depends only on dst's
 * incidences (neighbour and latency, in order), so a UB node's NPUs and an
 * NVSwitch tray's GPUs take one search for all (the hash policy's all
 * pairs searched every destination: 6,144 searches on CM384 at 768
 * nodes).  Distances are the same hop counts and latencies the same
 * maxima of the same sums, so the tables are the per-device search's bit
 * for bit.  Returns the depth as fx_bfs_from does, or -1 when dst does not
 * qualify (search from dst).
 */
static int class_search(fx_router *r, int64_t dst)
{
	const fx_fabric *f = r->f;
	const fx_inc *g = &r->inc;
	int64_t nv = f->nv, t0 = g->off[dst], t1 = g->off[dst + 1];
	if (r->costed || dst >= f->ndev || fx_fabric_relays(f, dst) || t0 == t1)
		return -1;
	for (int64_t t = t0; t < t1; t++)
		if (!g->relays[g->nbr[t]] || g->nbr[t] == dst)
			return -1;
	int same = r->cls_ok && g->off[r->cls_dev + 1] - g->off[r->cls_dev] == t1 - t0;
	for (int64_t t = t0, u = same ? g->off[r->cls_dev] : 0; same && t < t1; t++, u++)
		same = g->nbr[t] == g->nbr[u] && g->lat[t] == g->lat[u];
	if (!same) {
		if (!r->cls_dist) {
			r->cls_dist = fx_xmalloc((size_t)nv * sizeof *r->cls_dist);
			r->cls_lat = fx_xmalloc((size_t)nv * sizeof *r->cls_lat);
		}
		fx_bfs b = {.dist = r->cls_dist, .lat = r->cls_lat, .queue = r->queue};
		fx_bfs_start(&b, nv);
		for (int64_t t = t0; t < t1; t++)
			fx_bfs_seed(&b, g->nbr[t], g->lat[t]);
		fx_bfs_grow(&b, g, -1, INT32_MAX);
		r->cls_far = b.dist[b.queue[b.tail - 1]] + 1;
		for (int64_t v = 0; v < nv; v++)
			if (r->cls_dist[v] >= 0)
				r->cls_dist[v]++;
		r->cls_ok = 1;
		r->cls_dev = dst;
		r->cls_gen++;
	}
	return 0;
}

static int32_t class_table(fx_router *r, int64_t dst, int32_t *dist, double *lat)
{
	int64_t nv = r->f->nv;
	if (class_search(r, dst) < 0)
		return -1;
	memcpy(dist, r->cls_dist, (size_t)nv * sizeof *dist);
	memcpy(lat, r->cls_lat, (size_t)nv * sizeof *lat);
	dist[dst] = 0;
	lat[dst] = 0;
	return r->cls_far;
}

/* Room in the push's buckets for distances 0 .. far. */
static void buckets_fit(fx_router *r, int32_t far)
{
	if (far + 1 > r->bucket_dists) {
		r->bucket_dists = far + 1;
		r->bucket = fx_xrealloc(r->bucket, (size_t)(r->bucket_dists * r->f->nv) *
							   sizeof *r->bucket);
		r->bucket_len = fx_xrealloc(r->bucket_len, (size_t)r->bucket_dists *
								   sizeof *r->bucket_len);
		memset(r->bucket_len, 0, (size_t)r->bucket_dists * sizeof *r->bucket_len);
	}
}

static void ecmp_tables(fx_router *r, int64_t dst, const int32_t **dist, const double **lat)
{
	if (!r->dist[dst]) {
		if (r->ncached >= r->max_cached) {  /* over budget: drop every cache */
			for (int64_t v = 0; v < r->f->ndev; v++) {
				free(r->dist[v]);
				free(r->lat[v]);
				r->dist[v] = NULL;
				r->lat[v] = NULL;
			}
			r->ncached = 0;
		}
		incidence(r);
		r->dist[dst] = fx_xmalloc((size_t)r->f->nv * (r->costed ? 2 : 1) * sizeof **r->dist);
		r->lat[dst] = fx_xmalloc((size_t)r->f->nv * sizeof **r->lat);
		int32_t far;
		if (r->costed) {
			far = fx_cost_from(r->f, &r->inc, dst, r->dist[dst], r->lat[dst],
					   r->dist[dst] + r->f->nv);
		} else if ((far = class_table(r, dst, r->dist[dst], r->lat[dst])) < 0) {
			fx_bfs b = {.dist = r->dist[dst], .lat = r->lat[dst], .queue = r->queue};
			far = fx_bfs_from(&b, &r->inc, dst, 0);
		}
		r->ncached++;
		buckets_fit(r, far);
	}
	*dist = r->dist[dst];
	*lat = r->lat[dst];
}

/* The hash policy's distances to dst without a table of its own: its
 * class's shared search (class_search), dst's own entry set to 0 in place
 * (restore it with hash_dist_done); NULL when dst has no class or a table
 * is cached.  The search is one per home on a fat-tree, and a destination
 * then costs no copy of nv entries (a k=64 all-to-all's 65,536 were 55 GB
 * of copying). */
static int32_t *hash_dist(fx_router *r, int64_t dst, int32_t *saved)
{
	if (!r->hash || r->reference || r->modk || r->costed || r->full_search || r->dist[dst] ||
	    class_search(r, dst) < 0)
		return NULL;
	buckets_fit(r, r->cls_far);
	*saved = r->cls_dist[dst];
	r->cls_dist[dst] = 0;
	return r->cls_dist;
}

/* Link e's step in ECMP's distances: its routing weight, 1 without. */
static inline int32_t ecmp_step(const fx_router *r, int64_t e)
{
	return r->costed && r->f->e[e].cost > 1 ? r->f->e[e].cost : 1;
}

/* Is w (across e from v) a next hop of v on a shortest (least-cost) path? */
static inline int ecmp_next(const fx_router *r, const int32_t *dist, int64_t v, int64_t e,
			    int64_t w)
{
	return dist[w] >= 0 && dist[w] == dist[v] - ecmp_step(r, e);
}

/* Hops of the longest shortest path from v (the table's distance when
 * every step is one). */
static inline int32_t ecmp_hops(const fx_router *r, const int32_t *dist, int64_t v)
{
	return r->costed ? dist[r->f->nv + v] : dist[v];
}

/* Indexes 0..n-1 of flows ordered by destination (by_dst) or source, so
 * flows sharing one are handled together.  The caller frees the result. */
static int by_key(const void *a, const void *b, void *ctx)
{
	const int64_t *key = ctx;
	int64_t x = key[*(const size_t *)a], y = key[*(const size_t *)b];
	return (x > y) - (x < y);
}

static size_t *order_flows(const fx_flow *flows, size_t n, int by_dst)
{
	size_t *ord = fx_xmalloc((n ? n : 1) * sizeof *ord);
	int64_t *keys = fx_xmalloc((n ? n : 1) * sizeof *keys);
	int sorted = 1;
	for (size_t i = 0; i < n; i++) {
		ord[i] = i;
		keys[i] = by_dst ? flows[i].dst : flows[i].src;
		sorted &= i == 0 || keys[i - 1] <= keys[i];
	}
	/* in order already (a destination's flows, each_destination): the
	 * stable sort would keep them as they are */
	if (!sorted)
		fx_sort_r(ord, n, sizeof *ord, by_key, keys);
	free(keys);
	return ord;
}

/* Incident edges per vertex in edge order (CSR), built once: the split push
 * and the hash walk visit them at every hop of every flow (igraph_incident
 * there, allocating per call, was most of a pairwise all-to-all's time). */
static void incidence(fx_router *r)
{
	if (r->inc.off)
		return;
	fx_inc_build(&r->inc, r->f);
	r->queue = fx_xmalloc((size_t)(r->f->nv ? r->f->nv : 1) * sizeof *r->queue);
}

/*
 * The hash policy: the flow follows one path of the shortest-path DAG.  At
 * each vertex the next-hop ports (physical links to a neighbour one step
 * nearer, a bundle of c links counting c ports) are numbered 0..k-1 round
 * the bundles: the first link of each bundle in edge order, then the
 * second of those with two, and so on.  In switches the flow takes port
 * x mod k, x starting at the destination's tree position (its device number on
 * the fat-tree kinds, routing/route_key.c) and divided by k after
 * every choice of more than one port: D-mod-k in the switches, which
 * spreads destinations over every core of a multi-tier Clos.  At the
 * source itself (a GPU choosing among its NVSwitch chips or planes) the
 * port is (source + destination) mod k.  A bundle keeps its links fluid.
 * This equals SimGrid's fat-tree only with one uplink per host and one
 * cable per switch pair; `dmodk` (modk_walk below) is SimGrid's rule.
 */
/* The port (a link) a flow at v bound for dst takes under the hash policy:
 * number `key` mod the next-hop ports, dealt round the bundles (one link of
 * each, then the next, so neighbouring numbers land on different
 * neighbours).  *nports: the number of next-hop ports. */
static int64_t hash_port_cable(const fx_router *r, int64_t v, int64_t dst, const int32_t *dist,
			       int64_t key, int64_t *nports, int64_t *cable)
{
	const fx_fabric *f = r->f;
	int64_t k = 0, c = 0, pick = -1;  /* k physical links, the widest bundle c */
	for (int64_t t = r->inc.off[v]; t < r->inc.off[v + 1]; t++) {
		int64_t e = r->inc.edge[t], w = fx_fabric_other(f, e, v);
		if (ecmp_next(r, dist, v, e, w) && (w == dst || fx_fabric_relays(f, w))) {
			k += f->e[e].count;
			if (f->e[e].count > c)
				c = f->e[e].count;
		}
	}
	int64_t want = key % k;
	for (int64_t j = 0; j < c && pick < 0; j++)
		for (int64_t t = r->inc.off[v]; t < r->inc.off[v + 1]; t++) {
			int64_t e = r->inc.edge[t], w = fx_fabric_other(f, e, v);
			if (!ecmp_next(r, dist, v, e, w) || !(w == dst || fx_fabric_relays(f, w)) ||
			    f->e[e].count <= j)
				continue;
			if (want-- == 0) {
				pick = e;
				*cable = j;
				break;
			}
		}
	*nports = k;
	return pick;
}

static int64_t hash_port(const fx_router *r, int64_t v, int64_t dst, const int32_t *dist,
			 int64_t key, int64_t *nports)
{
	int64_t cable;
	return hash_port_cable(r, v, dst, dist, key, nports, &cable);
}

/* hash_port on a class search's distances (hash_dist): at a vertex two
 * or more hops out the next hops never include the destination (its
 * neighbours are the search's seeds, one hop out), so they are the same
 * for every device of the class, dealt once and looked up: the same port
 * as the scan, without the two passes over v's links per state.  The
 * table holds v's m next-hop links in edge order; when their bundles are
 * all of c cables (k = m x c ports: a UB NPU's 7 pairs of links to its L1
 * chips), port p of the deal is link p mod m, so x mod k mod m = x mod m
 * picks it.  Bundles of mixed widths scan. */
static int64_t hash_port_shared(fx_router *r, int64_t v, int64_t dst, const int32_t *dist,
				int64_t key, int64_t *nports)
{
	if (dist != r->cls_dist || dist[v] < 2)
		return hash_port(r, v, dst, dist, key, nports);
	if (!r->hp_gen) {
		size_t nv = (size_t)r->f->nv, ni = (size_t)(r->inc.off[nv] ? r->inc.off[nv] : 1);
		r->hp_gen = fx_xmalloc(nv * sizeof *r->hp_gen);
		for (size_t v2 = 0; v2 < nv; v2++)
			r->hp_gen[v2] = r->cls_gen - 1;
		r->hp_k = fx_xmalloc(nv * sizeof *r->hp_k);
		r->hp_m = fx_xmalloc(nv * sizeof *r->hp_m);
		r->hp_port = fx_xmalloc(ni * sizeof *r->hp_port);
	}
	if (r->hp_gen[v] != r->cls_gen) {
		const fx_fabric *f = r->f;
		int64_t t0 = r->inc.off[v], t1 = r->inc.off[v + 1], m = 0, c = -1;
		for (int64_t t = t0; t < t1; t++) {
			int64_t e = r->inc.edge[t], w = fx_fabric_other(f, e, v);
			if (ecmp_next(r, dist, v, e, w) && (w == dst || fx_fabric_relays(f, w))) {
				r->hp_port[t0 + m++] = e;
				c = c < 0 || c == f->e[e].count ? f->e[e].count : 0;
			}
		}
		r->hp_m[v] = m;
		r->hp_k[v] = m >= 1 && c >= 1 ? m * c : -1;
		r->hp_gen[v] = r->cls_gen;
	}
	if (r->hp_k[v] < 0)
		return hash_port(r, v, dst, dist, key, nports);
	*nports = r->hp_k[v];
	return r->hp_port[r->inc.off[v] + key % r->hp_m[v]];
}

/* The number device v stands for in the mod-k choices. */
static inline int64_t tree_pos(const fx_router *r, int64_t v)
{
	return r->tpos ? r->tpos[v] : v;
}

/* Switch tier of v (devices and CPUs 0), for telling down steps. */
static int vertex_tier(const fx_fabric *f, int64_t v)
{
	return f->v[v].type == FX_V_SWITCH && f->v[v].role >= 0 ? f->roles[f->v[v].role].tier : 0;
}

/* Adds bytes to cable j of directed link l (per-cable policies). */
static void cable_add(fx_router *r, int64_t l, int64_t j, double bytes)
{
	r->cable[2 * (r->cable_off[l / 2] + j) + (l & 1)] += bytes;
}

/*
 * d-mod-k and s-mod-k, per cable (SimGrid's FatTreeZone, 3.32,
 * get_local_route; Zahavi's D-mod-K and S-mod-K): the next-hop ports at v
 * are numbered round the bundles as above, a bundle of c cables counting c
 * ports, every cable loaded on its own.  Going up, the flow takes port
 * x mod k, x starting at the destination's tree position (d-mod-k) or the
 * source's (s-mod-k) and divided by k after each choice of more than one
 * port, at the sender too (SimGrid's hosts choose their parent the same
 * way, so every flow to a destination of several rails arrives on one of
 * them).  A step down to a lower tier over one bundle takes cable
 * (source mod c) under d-mod-k, as SimGrid's down routes pick their
 * cable, and (destination mod c) under s-mod-k.
 */
static void modk_walk(fx_router *r, const fx_flow *fl, const int32_t *dist, double *load,
		      fx_path_stats *st)
{
	const fx_fabric *f = r->f;
	int smodk = r->policy == FX_ROUTE_SMODK;
	int64_t v = fl->src, x = tree_pos(r, smodk ? fl->src : fl->dst),
		other = tree_pos(r, smodk ? fl->dst : fl->src);
	int64_t hops = 0;
	double lat = 0;
	while (v != fl->dst) {
		int64_t k, j = 0, pick = hash_port_cable(r, v, fl->dst, dist, x, &k, &j);
		int64_t w = fx_fabric_other(f, pick, v);
		if (k == f->e[pick].count && k > 1 && vertex_tier(f, w) < vertex_tier(f, v)) {
			j = other % k;  /* down one bundle: the cable by the other end */
		} else if (k > 1) {
			x /= k;
		}
		int64_t l = fx_fabric_dirlink(f, pick, v);
		bump(r, load, l, fl->bytes);
		if (f->e[pick].count > 1)
			cable_add(r, l, j, fl->bytes);
		lat += f->e[pick].lat;
		hops++;
		v = w;
	}
	if (hops > st->max_hops)
		st->max_hops = hops;
	if (lat > st->max_latency)
		st->max_latency = lat;
}

/* One flow's path under the hash policy, hop by hop (the reference; the
 * router adds flows to one destination together, hash_push). */
static void ecmp_hash_walk(fx_router *r, const fx_flow *fl, const int32_t *dist, double *load,
			   fx_path_stats *st)
{
	const fx_fabric *f = r->f;
	int64_t v = fl->src, x = tree_pos(r, fl->dst), hops = 0;
	double lat = 0;
	while (v != fl->dst) {
		/* the sender's own choice (its NIC, plane or chip) spreads by
		 * source and destination; the switches' by destination */
		int64_t k, pick = hash_port(r, v, fl->dst, dist,
					    v == fl->src ? tree_pos(r, fl->src) + tree_pos(r, fl->dst) : x, &k);
		if (k > 1 && v != fl->src)
			x /= k;
		bump(r, load, fx_fabric_dirlink(f, pick, v), fl->bytes);
		lat += f->e[pick].lat;
		hops++;
		v = fx_fabric_other(f, pick, v);
	}
	if (hops > st->max_hops)
		st->max_hops = hops;
	if (lat > st->max_latency)
		st->max_latency = lat;
}

/*
 * The hash policy for every flow to one destination at once.  Past its
 * source a flow's next port depends only on where it is (v) and on x, the
 * destination number divided by the port counts chosen among so far; flows
 * in the same (v, x) go the same way from there, so they travel as one
 * amount, carrying the slowest latency so far.  A fat-tree's flows to one
 * host merge at each switch: O(switches x ports) a destination instead of
 * O(flows x hops x ports) (a k=32 all-to-all: 24 s -> under a second).
 * Loads add per state, not per flow: equal to the walk to 1e-12
 * (tests/unit/test_sweep.c, hash_push_equals_walk).
 */
typedef struct hash_state {
	int64_t x;
	double amount, lat;
	int64_t next;           /* the next state at the same vertex, or -1 */
} hash_state;

static void hash_state_add(fx_router *r, int64_t v, int64_t x, double amount, double lat,
			   int32_t dd, int64_t *top)
{
	for (int64_t i = r->hs_head[v]; i >= 0; i = r->hs[i].next)
		if (r->hs[i].x == x) {
			r->hs[i].amount += amount;
			if (lat > r->hs[i].lat)
				r->hs[i].lat = lat;
			return;
		}
	r->hs = fx_xgrow(r->hs, &r->caphs, r->nhs + 1, sizeof *r->hs);
	r->hs[r->nhs] = (hash_state){x, amount, lat, r->hs_head[v]};
	r->hs_head[v] = (int64_t)r->nhs++;
	if (!r->queued[v]) {
		r->bucket[(int64_t)dd * r->f->nv + r->bucket_len[dd]++] = v;
		r->queued[v] = 1;
		if (dd > *top)
			*top = dd;
	}
}

/* Flows flows[ord[i..j)] all go to dst: their first hops (the source's own
 * choice), then the merged amounts farthest first. */
static void hash_push(fx_router *r, const fx_flow *flows, const size_t *ord, size_t i, size_t j,
		      int64_t dst, const int32_t *dist, double *load, fx_path_stats *st)
{
	const fx_fabric *f = r->f;
	int64_t top = 0;
	if (!r->hs_head) {
		r->hs_head = fx_xmalloc((size_t)f->nv * sizeof *r->hs_head);
		for (int64_t v = 0; v < f->nv; v++)
			r->hs_head[v] = -1;
	}
	for (size_t q = i; q < j; q++) {
		const fx_flow *fl = &flows[ord[q]];
		if (fl->src == dst || fl->bytes == 0)
			continue;
		int64_t k, e = hash_port_shared(r, fl->src, dst, dist,
						tree_pos(r, fl->src) + tree_pos(r, dst), &k);
		int64_t w = fx_fabric_other(f, e, fl->src);
		bump(r, load, fx_fabric_dirlink(f, e, fl->src), fl->bytes);
		if (ecmp_hops(r, dist, fl->src) > st->max_hops)
			st->max_hops = ecmp_hops(r, dist, fl->src);
		if (w == dst) {
			if (f->e[e].lat > st->max_latency)
				st->max_latency = f->e[e].lat;
			continue;
		}
		hash_state_add(r, w, tree_pos(r, dst), fl->bytes, f->e[e].lat, dist[w], &top);
	}
	for (int64_t dd = top; dd >= 1; dd--) {
		for (int64_t b = 0; b < r->bucket_len[dd]; b++) {
			int64_t v = r->bucket[dd * f->nv + b];
			for (int64_t s = r->hs_head[v]; s >= 0; s = r->hs[s].next) {
				hash_state h = r->hs[s];
				int64_t k, e = hash_port_shared(r, v, dst, dist, h.x, &k);
				int64_t w = fx_fabric_other(f, e, v);
				bump(r, load, fx_fabric_dirlink(f, e, v), h.amount);
				double l = h.lat + f->e[e].lat;
				if (w == dst) {
					if (l > st->max_latency)
						st->max_latency = l;
				} else {
					hash_state_add(r, w, k > 1 ? h.x / k : h.x, h.amount, l, dist[w], &top);
				}
			}
			r->hs_head[v] = -1;
			r->queued[v] = 0;
		}
		r->bucket_len[dd] = 0;
	}
	r->nhs = 0;
}

static int ecmp_add_flat(fx_router *r, const fx_flow *flows, size_t n, double *load,
			 fx_path_stats *st, fx_diag *d);

/* Moves the intra router's newly loaded links onto r's list (they share
 * the load array, so each link is listed once: by whichever loaded it
 * first). */
static void take_used(fx_router *r)
{
	fx_router *in = r->intra;
	if (in->nused == 0)
		return;
	r->used = fx_xgrow(r->used, &r->capused, r->nused + in->nused, sizeof *r->used);
	memcpy(r->used + r->nused, in->used, in->nused * sizeof *r->used);
	r->nused += in->nused;
	in->nused = 0;
}

/*
 * Composite fabrics: a flow between two devices of one domain stays in the
 * domain (NCCL keeps it on NVLink; a hop-count shortest path could leave
 * through a NIC when a leaf is as near as an NVSwitch chip).  Flows
 * between domains take ECMP over the whole fabric; under `pxn` (NCCL's
 * PXN) a flow first moves inside its domain to the device with the
 * destination's index in its domain, whose NIC shares the destination's
 * rail, and under `rail` it crosses on its own rail to the device with
 * its own index in the destination's domain, which hands it on inside
 * that domain (a rail-only network).  The legs' path figures add: the
 * slowest first leg and the slowest second (a bound on the slowest flow).
 */
/* Whether the domain alone still joins src to dst: always on an intact
 * fabric; on a degraded one a pair the failures parted inside its domain
 * goes round through the network (one search per such destination,
 * cached by the intra router). */
static int intra_joins(fx_router *r, int64_t src, int64_t dst)
{
	if (!fx_fabric_degraded(r->f) || src == dst)
		return 1;
	const int32_t *dist;
	const double *lat;
	ecmp_tables(r->intra, dst, &dist, &lat);
	return dist[src] >= 0;
}

static int tiered_add(fx_router *r, const fx_flow *flows, size_t n, double *load,
		      fx_path_stats *st, fx_diag *d)
{
	const fx_fabric *f = r->f;
	int64_t per = f->ndomains ? f->ndev / f->ndomains : f->ndev;
	fx_flow *in = fx_xmalloc((n ? n : 1) * sizeof *in), *leg1 = fx_xmalloc((n ? n : 1) * sizeof *leg1),
		*leg2 = fx_xmalloc((n ? n : 1) * sizeof *leg2);
	size_t ni = 0, n1 = 0, n2 = 0;
	int relay = r->policy == FX_ROUTE_PXN || r->policy == FX_ROUTE_RAIL;
	for (size_t i = 0; i < n; i++) {
		fx_flow fl = flows[i];
		int32_t a = f->domain_of[fl.src], b = f->domain_of[fl.dst];
		if (a == b && a >= 0 && intra_joins(r, fl.src, fl.dst)) {
			in[ni++] = fl;
		} else if (!relay || a < 0 || b < 0) {
			leg2[n2++] = fl;
		} else if (r->policy == FX_ROUTE_PXN) {
			int64_t via = (int64_t)a * per + fl.dst % per;
			if (via != fl.src)
				leg1[n1++] = (fx_flow){fl.src, via, fl.bytes};
			leg2[n2++] = (fx_flow){via, fl.dst, fl.bytes};
		} else {
			int64_t via = (int64_t)b * per + fl.src % per;
			leg2[n2++] = (fx_flow){fl.src, via, fl.bytes};
			if (via != fl.dst)
				leg1[n1++] = (fx_flow){via, fl.dst, fl.bytes};
		}
	}
	fx_path_stats s0 = {0, 0}, s1 = {0, 0}, s2 = {0, 0};
	int rc = 0;
	if (ni)
		rc = fx_router_add(r->intra, in, ni, load, &s0, d);
	if (rc == 0 && n1)
		rc = fx_router_add(r->intra, leg1, n1, load, &s1, d);
	take_used(r);
	if (rc == 0 && n2)
		rc = ecmp_add_flat(r, leg2, n2, load, &s2, d);
	if (rc == 0) {
		if (n1)
			s2 = (fx_path_stats){s1.max_hops + s2.max_hops, s1.max_latency + s2.max_latency};
		st->max_hops = s0.max_hops > s2.max_hops ? s0.max_hops : s2.max_hops;
		st->max_latency = s0.max_latency > s2.max_latency ? s0.max_latency : s2.max_latency;
	}
	free(in);
	free(leg1);
	free(leg2);
	return rc;
}

static int ecmp_add(fx_router *r, const fx_flow *flows, size_t n, double *load, fx_path_stats *st,
		    fx_diag *d)
{
	if (r->intra)
		return tiered_add(r, flows, n, load, st, d);
	return ecmp_add_flat(r, flows, n, load, st, d);
}

static int ecmp_add_flat(fx_router *r, const fx_flow *flows, size_t n, double *load,
			 fx_path_stats *st, fx_diag *d)
{
	const fx_fabric *f = r->f;
	incidence(r);  /* a cached incidence list: igraph_incident per vertex was half the time */
	if (!r->hash && !r->modk && !r->reference) {  /* the up/down sweep, else the grouped
					   * push; on a pair with no route, the
					   * reference below reports it */
		r->flows_seen += (double)n;
		fx_updown *ud = fx_router_updown(r);
		if (ud && fx_updown_add(ud, flows, n, load, st, &r->used, &r->nused, &r->capused) == 0)
			return 0;
		if (!r->sweep)
			r->sweep = fx_sweep_new(f, &r->inc);
		fx_sweep_set_table(r->sweep, r->tab_mode);
		fx_sweep_set_sparse(r->sweep, !r->full_search);
		int rc = fx_sweep_add(r->sweep, flows, n, load, st, &r->used, &r->nused, &r->capused);
		if (rc == 0 || rc == FX_SWEEP_OVER)
			return rc;
	}
	size_t *ord = order_flows(flows, n, 1);
	int rc = 0;
	int64_t maxd = 0;
	for (size_t i = 0; i < n && rc == 0;) {
		int64_t dst = flows[ord[i]].dst;
		const int32_t *dist;
		const double *lat = NULL;
		int32_t saved = 0, *shared = hash_dist(r, dst, &saved);
		if (shared)
			dist = shared;
		else
			ecmp_tables(r, dst, &dist, &lat);
		/* inject every flow to this destination at its source */
		int64_t top = 0;
		size_t j = i;
		for (; j < n && flows[ord[j]].dst == dst; j++) {
			const fx_flow *fl = &flows[ord[j]];
			if (fl->src == dst || fl->bytes == 0)
				continue;
			if (dist[fl->src] < 0) {
				char a[64], b[64];
				rc = fx_diag_error(d, NULL, "no route from '%s' to '%s'",
						   fx_fabric_vertex_name(f, fl->src, a, sizeof a),
						   fx_fabric_vertex_name(f, fl->dst, b, sizeof b));
				break;
			}
			if (r->modk) {
				modk_walk(r, fl, dist, load, st);
				continue;
			}
			if (r->hash) {
				if (r->reference)
					ecmp_hash_walk(r, fl, dist, load, st);
				continue;
			}
			if (ecmp_hops(r, dist, fl->src) > st->max_hops)
				st->max_hops = ecmp_hops(r, dist, fl->src);
			if (lat[fl->src] > st->max_latency)
				st->max_latency = lat[fl->src];
			if (r->amount[fl->src] == 0 && !r->queued[fl->src]) {
				int32_t dd = dist[fl->src];
				r->bucket[(int64_t)dd * f->nv + r->bucket_len[dd]++] = fl->src;
				r->queued[fl->src] = 1;
				if (dd > top)
					top = dd;
			}
			r->amount[fl->src] += fl->bytes;
		}
		if (r->hash && !r->reference && rc == 0)
			hash_push(r, flows, ord, i, j, dst, dist, load, st);
		if (shared)
			shared[dst] = saved;
		if (top > maxd)
			maxd = top;
		/* push the amounts down the shortest-path DAG, farthest first */
		for (int64_t dd = top; dd >= 1 && rc == 0; dd--) {
			for (int64_t k = 0; k < r->bucket_len[dd]; k++) {
				int64_t v = r->bucket[dd * f->nv + k];
				double m = r->amount[v];
				r->amount[v] = 0;
				r->queued[v] = 0;
				int64_t t0 = r->inc.off[v], t1 = r->inc.off[v + 1];
				double total = 0;
				for (int64_t t = t0; t < t1; t++) {
					int64_t e = r->inc.edge[t], w = fx_fabric_other(f, e, v);
					if (ecmp_next(r, dist, v, e, w) && (w == dst || fx_fabric_relays(f, w)))
						total += f->e[e].count * f->e[e].bw;
				}
				for (int64_t t = t0; t < t1; t++) {
					int64_t e = r->inc.edge[t], w = fx_fabric_other(f, e, v);
					if (!ecmp_next(r, dist, v, e, w) || !(w == dst || fx_fabric_relays(f, w)))
						continue;
					double share = m * f->e[e].count * f->e[e].bw / total;
					bump(r, load, fx_fabric_dirlink(f, e, v), share);
					if (w == dst)
						continue;
					if (!r->queued[w]) {
						r->bucket[dist[w] * f->nv + r->bucket_len[dist[w]]++] = w;
						r->queued[w] = 1;
					}
					r->amount[w] += share;
				}
			}
			r->bucket_len[dd] = 0;
		}
		i = j;
	}
	for (int64_t dd = 0; dd <= maxd; dd++)
		r->bucket_len[dd] = 0;
	free(ord);
	return rc;
}

static int each_destination(fx_router *r, double bytes, double *load, fx_path_stats *st,
			    fx_diag *d);

/* All pairs under split ECMP: one push per destination group. */
static int ecmp_all_pairs(fx_router *r, double bytes, double *load, fx_path_stats *st, fx_diag *d)
{
	if (!r->hash && !r->modk && !r->reference && !r->intra) {
		incidence(r);
		if (!r->sweep)
			r->sweep = fx_sweep_new(r->f, &r->inc);
		if (fx_sweep_all_pairs(r->sweep, bytes, load, st, &r->used, &r->nused, &r->capused) == 0)
			return 0;
	}
	return each_destination(r, bytes, load, st, d);
}

/* ---------------- dragonfly groups (routing/route_dragonfly.c) ---------------- */

static void dfly_init(fx_router *r)
{
	r->dfr = fx_dfr_new(r->f);
}

static int dfly_add(fx_router *r, const fx_flow *flows, size_t n, double *load, fx_path_stats *st,
		    fx_diag *d)
{
	(void)d;
	return fx_dfr_add(r->dfr, r->policy, flows, n, load, st, &r->used, &r->nused, &r->capused);
}

static int dfly_all_pairs(fx_router *r, double bytes, double *load, fx_path_stats *st, fx_diag *d)
{
	(void)d;
	double *cnt = fx_xmalloc((size_t)(r->f->ndev ? r->f->ndev : 1) * sizeof *cnt);
	for (int64_t v = 0; v < r->f->ndev; v++)
		cnt[v] = 1;
	int rc = fx_dfr_counts(r->dfr, r->policy, cnt, bytes, load, st, &r->used, &r->nused,
			       &r->capused);
	free(cnt);
	return rc;
}

/* A rank set: its n(n-1) flows one by one when that is less work than
 * routing from its counts (a TP group of 8), else from the counts. */
static int dfly_among(fx_router *r, const fx_among *a, double *load, fx_path_stats *st, fx_diag *d)
{
	double pairs = (double)a->n * (double)(a->n - 1);
	if (pairs * fx_dfr_flow_cost(r->dfr, r->policy) < fx_dfr_counts_cost(r->dfr, r->policy)) {
		size_t m = 0;
		fx_flow *fl = fx_xmalloc((size_t)(a->n > 1 ? pairs : 1) * sizeof *fl);
		for (int64_t i = 0; i < a->n; i++)
			for (int64_t j = 0; j < a->n; j++)
				if (i != j)
					fl[m++] = (fx_flow){a->dev[i], a->dev[j], a->bytes};
		int rc = dfly_add(r, fl, m, load, st, d);
		free(fl);
		return rc;
	}
	double *cnt = fx_xcalloc((size_t)(r->f->ndev ? r->f->ndev : 1), sizeof *cnt);
	for (int64_t i = 0; i < a->n; i++)
		cnt[a->dev[i]] += 1;
	int rc = fx_dfr_counts(r->dfr, r->policy, cnt, a->bytes, load, st, &r->used, &r->nused,
			       &r->capused);
	free(cnt);
	return rc;
}

/* ---------------- the table ---------------- */

static void dor_init(fx_router *r)
{
	const fx_fabric *f = r->f;
	r->lat_uniform = 1;
	for (int64_t e = 0; e < f->ne; e++) {
		if (f->e[e].lat > r->hop_lat)
			r->hop_lat = f->e[e].lat;
		r->lat_uniform &= f->e[e].lat == f->e[0].lat;
	}
	if (r->lat_uniform || f->ndims == 0)
		return;
	/* per (dimension, position): checked on every line, else the bound */
	int D = f->ndims, x[FX_MAX_DIMS];
	r->lat_by_pos = 1;
	for (int i = 0; i < D; i++) {
		r->lat_pre[i] = fx_xcalloc((size_t)f->dims[i] + 1, sizeof *r->lat_pre[i]);
		for (int p = 0; p <= f->dims[i]; p++)
			r->lat_pre[i][p] = -1;  /* not seen yet */
	}
	for (int64_t v = 0; v < f->ndev && r->lat_by_pos; v++) {
		fx_fabric_coords(f, v, x);
		for (int i = 0; i < D; i++) {
			int64_t e = f->plus_edge[v * D + i];
			double l = e < 0 ? 0 : f->e[e].lat, *at = &r->lat_pre[i][x[i] + 1];
			if (*at < 0)
				*at = l;
			else if (*at != l)
				r->lat_by_pos = 0;
		}
	}
	for (int i = 0; i < D; i++) {  /* latencies into prefix sums */
		r->lat_pre[i][0] = 0;
		for (int p = 1; p <= f->dims[i]; p++)
			r->lat_pre[i][p] = r->lat_pre[i][p - 1] + (r->lat_pre[i][p] > 0 ? r->lat_pre[i][p] : 0);
	}
}

/* The per-link path's arrays, made when it first runs: rounds the summary
 * takes (routing/dor_sum.c) and all-pairs rounds never need them, and on
 * a WSE-2 the link table alone is 24 MB of fresh pages to fill. */
static void dor_arrays(fx_router *r)
{
	const fx_fabric *f = r->f;
	if (r->dl)
		return;
	r->diff = fx_xcalloc((size_t)(2 * f->ndims) * (size_t)f->ndev, sizeof *r->diff);
	r->touched = fx_xcalloc((size_t)(2 * f->ndims) * (size_t)f->ndev, 1);
	/* link position v of a line: + runs v -> v+1, - runs v+1 -> v */
	r->dl = fx_xmalloc((size_t)(2 * f->ndims) * (size_t)f->ndev * sizeof *r->dl);
	for (int i = 0; i < f->ndims; i++)
		for (int64_t v = 0; v < f->ndev; v++) {
			int64_t e = f->plus_edge[v * f->ndims + i];
			r->dl[(size_t)(2 * i) * (size_t)f->ndev + (size_t)v] =
				e < 0 ? -1 : fx_fabric_dirlink(f, e, v);
			r->dl[(size_t)(2 * i + 1) * (size_t)f->ndev + (size_t)v] =
				e < 0 ? -1 : fx_fabric_dirlink(f, e, fx_fabric_other(f, e, v));
		}
}

static void ecmp_init(fx_router *r)
{
	const fx_fabric *f = r->f;
	r->dist = fx_xcalloc((size_t)f->nv, sizeof *r->dist);
	r->lat = fx_xcalloc((size_t)f->nv, sizeof *r->lat);
	r->amount = fx_xcalloc((size_t)f->nv, sizeof *r->amount);
	r->queued = fx_xcalloc((size_t)f->nv, 1);
	/* one bucket of nv entries per distance; grown as distances appear */
	r->bucket_dists = 1;
	r->bucket = fx_xmalloc((size_t)f->nv * sizeof *r->bucket);
	r->bucket_len = fx_xcalloc(1, sizeof *r->bucket_len);
	r->max_cached = (int64_t)(FX_ECMP_CACHE_BYTES / ((double)f->nv * 12) + 1);
	r->costed = fx_cost_weighted(f);
	r->reference |= r->costed;
}

static const router_kind dor = {
	.name = "dimension-order",
	.init = dor_init,
	.add = dor_add,
	.all_pairs = dor_all_pairs,
	.among = dor_among,
};
static const router_kind ecmp = {
	.name = "ecmp",
	.init = ecmp_init,
	.add = ecmp_add,
	.all_pairs = ecmp_all_pairs,
};
static const router_kind dfly = {
	.name = "dragonfly",
	.init = dfly_init,
	.add = dfly_add,
	.all_pairs = dfly_all_pairs,
	.among = dfly_among,
};

/* The router of each family, indexed by fx_router_family.  No fallback:
 * a family missing here is a registry error (tests/unit/test_routing.c). */
static const router_kind *const families[FX_ROUTER_FAMILIES] = {
	[FX_ROUTER_DOR] = &dor,
	[FX_ROUTER_ECMP] = &ecmp,
	[FX_ROUTER_DRAGONFLY] = &dfly,
};

static const router_kind *family_router(fx_router_family fam)
{
	return fam > FX_ROUTER_NONE && fam < FX_ROUTER_FAMILIES ? families[fam] : NULL;
}

const char *fx_router_family_name(fx_router_family fam)
{
	const router_kind *k = family_router(fam);
	return k ? k->name : NULL;
}

/* The one fallback decision: a router without a way round failed elements
 * gives way to ECMP on the degraded graph. */
static const router_kind *router_for(const fx_fabric *f, int *fallback)
{
	const router_kind *kind = family_router(f->builder->router);
	if (!kind) {  /* a registry bug, caught by the registry test */
		fprintf(stderr, "fabricx: internal error: fabric kind '%s' names no router\n",
			f->builder->kind);
		abort();
	}
	*fallback = fx_fabric_degraded(f) && kind != &ecmp;
	return *fallback ? &ecmp : kind;
}

int fx_route_among_aggregated(const fx_fabric *f)
{
	int fallback;
	return router_for(f, &fallback)->among != NULL;
}

fx_router *fx_router_new(const fx_fabric *f, int tie_plus)
{
	if (!fx_fabric_built(f))
		return NULL;
	fx_router *r = fx_xcalloc(1, sizeof *r);
	r->f = f;
	r->tie_plus = tie_plus;
	r->tab_mode = -1;
	r->degraded = fx_fabric_degraded(f);
	const router_kind *kind = router_for(f, &r->fallback);
	r->kind = kind;
	kind->init(r);
	if (f->domain_of && kind == &ecmp) {
		r->view = fx_xmalloc(sizeof *r->view);
		fx_fabric_domain_view(f, r->view);
		r->intra = fx_router_new(r->view, tie_plus);
	}
	return r;
}

const fx_fabric *fx_router_fabric(const fx_router *r)
{
	return r ? r->f : NULL;
}

void fx_router_free(fx_router *r)
{
	if (!r)
		return;
	free(r->used);
	free(r->diff);
	free(r->touched);
	free(r->dl);
	free(r->lines);
	for (int i = 0; i < FX_MAX_DIMS; i++)
		free(r->lat_pre[i]);
	if (r->dist)
		for (int64_t v = 0; v < r->f->nv; v++) {
			free(r->dist[v]);
			free(r->lat[v]);
		}
	free(r->dist);
	free(r->lat);
	free(r->cls_dist);
	free(r->cls_lat);
	free(r->hp_port);
	free(r->hp_k);
	free(r->hp_m);
	free(r->hp_gen);
	free(r->amount);
	free(r->queued);
	free(r->hs);
	free(r->hs_head);
	free(r->bucket);
	free(r->bucket_len);
	fx_inc_release(&r->inc);
	free(r->queue);
	fx_sweep_free(r->sweep);
	fx_updown_free(r->updown);
	fx_dorsum_free(r->sum);
	free(r->cable);
	free(r->cable_off);
	free(r->tpos);
	if (r->intra) {
		fx_router_free(r->intra);
		fx_fabric_domain_view_release(r->view);
		free(r->view);
	}
	fx_dfr_free(r->dfr);
	free(r);
}

size_t fx_router_used(fx_router *r, const int64_t **links)
{
	size_t n = r->nused;
	*links = r->used;
	r->nused = 0;  /* the caller reads them before the next add */
	return n;
}

/* The up/down sweep checks each target with a whole search the first time
 * a round asks for it, so a collective that touches every target once or
 * twice (a ring's few distinct rounds on a k=64 fat-tree: 2,048 searches
 * for two rounds) does better with the grouped push's partial searches.
 * By default the sweep starts once the flows listed so far number a 64th
 * of those checks' steps (targets x (V + 2E)): after ~15 of a k=16
 * pairwise all-to-all's 1,023 rounds, never for a ring.  Either path gives
 * the reference's numbers. */
fx_updown *fx_router_updown(fx_router *r)
{
	if (r->hash || r->modk || r->reference || r->kind->add != ecmp_add || r->updown_mode < 0)
		return NULL;
	if (!r->updown_tried) {
		r->updown_tried = 1;
		incidence(r);
		r->updown = fx_updown_new(r->f, &r->inc);
	}
	if (r->updown && r->updown_mode == 0 && r->flows_seen < fx_updown_check_steps(r->updown) / 64)
		return NULL;
	return r->updown;
}

void fx_router_set_updown(fx_router *r, int on)
{
	r->updown_mode = on ? 1 : -1;
	if (r->intra)
		fx_router_set_updown(r->intra, on);
}

void fx_router_set_full_search(fx_router *r, int on)
{
	r->full_search = on;
	if (r->intra)
		fx_router_set_full_search(r->intra, on);
}

void fx_router_set_reference(fx_router *r, int on)
{
	r->reference = on || r->costed;
	if (r->intra)
		fx_router_set_reference(r->intra, on);
}

void fx_router_set_dist_table(fx_router *r, int mode)
{
	r->tab_mode = mode;
	if (r->intra)
		fx_router_set_dist_table(r->intra, mode);
}

int fx_router_takes_table(fx_router *r)
{
	if (r->hash || r->modk || r->reference || r->kind->add != ecmp_add)
		return 0;
	incidence(r);
	fx_router_updown(r);  /* made on first use: tried before the sweep */
	if (r->updown && r->updown_mode >= 0)
		return 0;
	if (!r->sweep)
		r->sweep = fx_sweep_new(r->f, &r->inc);
	fx_sweep_set_table(r->sweep, r->tab_mode);
	return fx_sweep_uses_table(r->sweep);
}

fx_sweep *fx_router_sweep(fx_router *r)
{
	if (r->hash || r->modk || r->reference || r->kind->add != ecmp_add)
		return NULL;
	incidence(r);
	if (!r->sweep)
		r->sweep = fx_sweep_new(r->f, &r->inc);
	return r->sweep;
}

double fx_router_work(const fx_router *r)
{
	return r->sweep ? fx_sweep_work(r->sweep) : 0;
}

void fx_router_set_work_limit(fx_router *r, double steps)
{
	if (!r->sweep && steps > 0 && r->kind->add == ecmp_add) {
		incidence(r);
		r->sweep = fx_sweep_new(r->f, &r->inc);
	}
	if (r->sweep)
		fx_sweep_set_budget(r->sweep, steps);
}

/* The summary bypasses the per-link bookkeeping of dor_add: anything that
 * must see every link a round uses (a failed-link check, say) has to
 * return NULL here. */
fx_dorsum *fx_router_summary(fx_router *r)
{
	if (r->kind != &dor || r->reference || r->degraded)  /* failed links: per link */
		return NULL;
	if (!r->sum_tried) {
		r->sum_tried = 1;
		r->sum = fx_dorsum_new(r->f);
	}
	return r->sum;
}

void fx_router_summarise(fx_router *r, int on)
{
	r->sum_on = on && r->sum;
}

void fx_router_set_policy(fx_router *r, fx_route_policy p)
{
	if (!r)
		return;
	r->policy = p;
	r->hash = p == FX_ROUTE_HASH;
	r->modk = p == FX_ROUTE_DMODK || p == FX_ROUTE_SMODK;
	if ((r->hash || r->modk) && !r->tpos_done) {
		r->tpos = fx_route_tree_positions(r->f);
		r->tpos_done = 1;
	}
	if (r->modk && !r->cable_off && r->kind->add == ecmp_add) {
		const fx_fabric *f = r->f;
		r->cable_off = fx_xmalloc((size_t)(f->ne + 1) * sizeof *r->cable_off);
		int64_t c = 0;
		for (int64_t e = 0; e < f->ne; e++) {
			r->cable_off[e] = c;
			c += f->e[e].count > 1 ? f->e[e].count : 0;
		}
		r->cable_off[f->ne] = c;
		r->cable = fx_xcalloc((size_t)(2 * c + 1), sizeof *r->cable);
	}
	if (r->intra)
		fx_router_set_policy(r->intra, p == FX_ROUTE_PXN || p == FX_ROUTE_RAIL ? FX_ROUTE_SPLIT : p);
}

int fx_route_policy_applies(fx_router_family fam, fx_route_policy p)
{
	int df = fam == FX_ROUTER_DRAGONFLY;
	if (p == FX_ROUTE_VALIANT || p == FX_ROUTE_UGAL)
		return df;
	/* the dragonfly router pins a flow by its own rule (hash); it has no
	 * per-cable tables, so dmodk and smodk would silently mean split */
	if (p == FX_ROUTE_DMODK || p == FX_ROUTE_SMODK)
		return !df;
	return 1;
}

const char *fx_route_policy_scope(fx_route_policy p)
{
	if (p == FX_ROUTE_VALIANT || p == FX_ROUTE_UGAL)
		return "dragonfly fabrics only (it chooses intermediate groups)";
	if (p == FX_ROUTE_DMODK || p == FX_ROUTE_SMODK)
		return "fabrics other than dragonflies (a dragonfly's router pins flows by its own rule: "
		       "hash)";
	return "every fabric";
}

int fx_router_per_cable(const fx_router *r)
{
	return r->modk && r->cable_off && r->cable_off[r->f->ne] > 0;
}

double fx_router_link_busy(fx_router *r, int64_t l, double bytes)
{
	const fx_link *lk = &r->f->e[l / 2];
	fx_router *in = r->intra && r->intra->cable ? r->intra : NULL;  /* shares the links */
	if ((!r->cable && !in) || lk->count < 2)
		return bytes / (lk->count * lk->bw);
	double worst = 0;
	for (int64_t j = 0; j < lk->count; j++) {
		int64_t at = 2 * (r->cable_off ? r->cable_off[l / 2] + j : in->cable_off[l / 2] + j) +
			     (l & 1);
		double c = 0;
		if (r->cable) {
			c += r->cable[at];
			r->cable[at] = 0;
		}
		if (in) {
			c += in->cable[at];
			in->cable[at] = 0;
		}
		if (c > worst)
			worst = c;
	}
	return worst / lk->bw;
}

int fx_router_policy_matters(const fx_router *r)
{
	if (!r)
		return 0;
	if (r->kind != &dor)  /* ECMP, and the fallback of a degraded lattice */
		return 1;
	for (int i = 0; i < r->f->ndims; i++)
		if (r->f->wrap[i] && r->f->dims[i] % 2 == 0)  /* a tie halfway round */
			return 1;
	return 0;
}

static const char *const policy_names[FX_ROUTE_POLICIES] = {
	[FX_ROUTE_SPLIT] = "split", [FX_ROUTE_HASH] = "hash", [FX_ROUTE_DMODK] = "dmodk",
	[FX_ROUTE_SMODK] = "smodk", [FX_ROUTE_RAIL] = "rail", [FX_ROUTE_PXN] = "pxn",
	[FX_ROUTE_VALIANT] = "valiant", [FX_ROUTE_UGAL] = "ugal",
};

const char *fx_route_policy_name(fx_route_policy p)
{
	return p < FX_ROUTE_POLICIES ? policy_names[p] : "?";
}

int fx_route_policy_parse(const char *s, fx_route_policy *out)
{
	if (s && strcmp(s, "minimal") == 0) {  /* split's minimal paths, by their usual name */
		*out = FX_ROUTE_SPLIT;
		return 0;
	}
	for (int p = 0; s && p < FX_ROUTE_POLICIES; p++)
		if (strcmp(s, policy_names[p]) == 0) {
			*out = (fx_route_policy)p;
			return 0;
		}
	return -1;
}

int fx_route_policy_pins(fx_route_policy p)
{
	return p == FX_ROUTE_HASH || p == FX_ROUTE_DMODK || p == FX_ROUTE_SMODK;
}

const char *fx_router_name(const fx_router *r)
{
	if (!r)
		return "(no router)";
	if (r->fallback)
		return "ecmp over the degraded graph (dimension order cannot avoid failed elements)";
	if (r->degraded)
		return "ecmp over the degraded graph";
	return r->kind->name;
}

double fx_router_busiest(fx_router *r, const fx_flow *flows, size_t n, double *load,
			 double *total)
{
	fx_diag quiet;  /* a pair with no route is never chosen, and not reported */
	fx_diag_init(&quiet);
	quiet.max_shown = 0;
	fx_path_stats st;
	double worst = fx_router_add(r, flows, n, load, &st, &quiet) ? 1e300 : 0, sum = 0;
	fx_diag_release(&quiet);
	const int64_t *used;
	size_t nu = fx_router_used(r, &used);
	for (size_t u = 0; u < nu; u++) {
		int64_t l = used[u];
		double b = fx_router_link_busy(r, l, load[l]);
		if (b > worst)
			worst = b;
		sum += load[l];
		load[l] = 0;
	}
	if (total)
		*total = worst >= 1e300 ? 1e300 : sum;
	return worst;
}

int fx_router_add(fx_router *r, const fx_flow *flows, size_t n, double *load, fx_path_stats *st,
		  fx_diag *d)
{
	st->max_hops = 0;
	st->max_latency = 0;
	return r->kind->add(r, flows, n, load, st, d);
}

int fx_router_add_all_pairs(fx_router *r, double bytes, double *load, fx_path_stats *st,
			    fx_diag *d)
{
	st->max_hops = 0;
	st->max_latency = 0;
	if (r->kind->all_pairs)
		return r->kind->all_pairs(r, bytes, load, st, d);
	return each_destination(r, bytes, load, st, d);
}

int fx_router_add_among(fx_router *r, const fx_among *a, double *load, fx_path_stats *st,
			fx_diag *d)
{
	st->max_hops = 0;
	st->max_latency = 0;
	if (r->kind->among && !r->reference)
		return r->kind->among(r, a, load, st, d);
	size_t m = 0;
	fx_flow *fl = fx_xmalloc((size_t)(a->n > 1 ? a->n * (a->n - 1) : 1) * sizeof *fl);
	for (int64_t i = 0; i < a->n; i++)
		for (int64_t j = 0; j < a->n; j++)
			if (i != j)
				fl[m++] = (fx_flow){a->dev[i], a->dev[j], a->bytes};
	int rc = r->kind->add(r, fl, m, load, st, d);
	free(fl);
	return rc;
}

/* one destination at a time keeps the flow list at n - 1 */
static int each_destination(fx_router *r, double bytes, double *load, fx_path_stats *st,
			    fx_diag *d)
{
	const fx_fabric *f = r->f;
	fx_flow *fl = fx_xmalloc((size_t)(f->ndev ? f->ndev : 1) * sizeof *fl);
	int rc = 0;
	for (int64_t x = 0; x < f->ndev && rc == 0; x++) {
		size_t m = 0;
		for (int64_t y = 0; y < f->ndev; y++)
			if (y != x) {
				fl[m].src = y;
				fl[m].dst = x;
				fl[m++].bytes = bytes;
			}
		fx_path_stats one = {0, 0};
		int cached = r->dist && r->dist[x];
		rc = r->kind->add(r, fl, m, load, &one, d);
		if (!cached && r->dist && r->dist[x]) {
			/* asked once: freed now, so the next destination's table
			 * reuses the memory (a k=32 fat-tree's 8,192 tables of
			 * 9,472 vertices were 930 MB of page faults) */
			free(r->dist[x]);
			free(r->lat[x]);
			r->dist[x] = NULL;
			r->lat[x] = NULL;
			r->ncached--;
		}
		if (one.max_hops > st->max_hops)
			st->max_hops = one.max_hops;
		if (one.max_latency > st->max_latency)
			st->max_latency = one.max_latency;
	}
	free(fl);
	return rc;
}
