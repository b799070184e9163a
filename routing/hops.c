/*
 * Hop counts between devices: diameter, mean, histogram and the latency of
 * the farthest pair.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

/* Searching from every device costs D x (V + E); past this many steps we
 * sample sources instead (and say so). */
#define FULL_SEARCH_BUDGET 2e9
#define SAMPLE_SOURCES 256

void fx_hops_release(fx_hops *h)
{
	if (!h)
		return;
	free(h->hist);
	memset(h, 0, sizeof *h);
}

void fx_hops_tally(fx_hops *h, int64_t hops, double n)
{
	if (hops >= h->nhist) {
		h->hist = fx_xrealloc(h->hist, (size_t)(hops + 1) * sizeof *h->hist);
		for (int64_t i = h->nhist; i <= hops; i++)
			h->hist[i] = 0;
		h->nhist = hops + 1;
	}
	h->hist[hops] += n;
}

static void finish(fx_hops *h)
{
	double sum = 0, pairs = 0;
	h->diameter = 0;
	for (int64_t i = 1; i < h->nhist; i++) {
		sum += h->hist[i] * (double)i;
		pairs += h->hist[i];
		if (h->hist[i] > 0)
			h->diameter = i;
	}
	h->mean = pairs > 0 ? sum / pairs : 0;
}

/*
 * Lattices: the hop distance is the sum over dimensions of the ring (torus)
 * or line (mesh) distance, so the histogram over ordered pairs is the
 * convolution of the per-dimension histograms.  A ring of k has, from each
 * position, one partner at distance 0, two at each distance below k/2, and
 * one at k/2 when k is even; a line of k has k - d ordered pairs at
 * distance d in each direction.
 */
static void lattice_hops(const fx_fabric *f, fx_hops *h)
{
	double *acc = fx_xcalloc(1, sizeof *acc);
	int64_t nacc = 1;
	acc[0] = 1;
	int64_t far_b_coord[FX_MAX_DIMS];
	for (int i = 0; i < f->ndims; i++) {
		int64_t k = f->dims[i];
		int64_t dmax = f->wrap[i] ? k / 2 : k - 1;
		double *line = fx_xcalloc((size_t)dmax + 1, sizeof *line);
		for (int64_t dd = 0; dd <= dmax; dd++) {
			if (f->wrap[i])
				line[dd] = (double)k * (dd == 0 || 2 * dd == k ? 1 : 2);
			else
				line[dd] = dd == 0 ? (double)k : 2.0 * (double)(k - dd);
		}
		double *next = fx_xcalloc((size_t)(nacc + dmax), sizeof *next);
		for (int64_t a = 0; a < nacc; a++)
			for (int64_t b = 0; b <= dmax; b++)
				next[a + b] += acc[a] * line[b];
		free(acc);
		free(line);
		acc = next;
		nacc += dmax;
		far_b_coord[i] = dmax;  /* device 0 and the one dmax away in every dim */
	}
	acc[0] -= (double)f->ndev;  /* drop the pairs of a device with itself */
	h->hist = acc;
	h->nhist = nacc;
	finish(h);
	int64_t b = 0, stride = 1;
	for (int i = 0; i < f->ndims; i++) {
		b += far_b_coord[i] * stride;
		stride *= f->dims[i];
	}
	h->far_a = 0;
	h->far_b = b;
	/* the farthest pair's dimension-order path, link by link: tori with a
	 * rack link class (rack_link) have hops of two latencies */
	h->far_latency = 0;
	int64_t v = 0;
	for (int i = 0; i < f->ndims; i++)
		for (int64_t t = 0; t < far_b_coord[i]; t++) {
			int64_t e = f->plus_edge[v * f->ndims + i];
			if (e < 0)
				break;
			h->far_latency += f->e[e].lat;
			v = fx_fabric_other(f, e, v);
		}
	h->method = "exact: convolution of per-dimension distances";
	h->sources = 0;
}

/* Adds the distances from one source to the histogram, weighted. */
/* Adds the distances from one source to the targets want[] marks (NULL:
 * every device), weighted. */
static int tally_some(const fx_fabric *f, const fx_bfs *b, int64_t src, double weight, fx_hops *h,
		      const uint8_t *reach, const uint8_t *want, fx_diag *d)
{
	for (int64_t v = 0; v < f->ndev; v++) {
		if (v == src || (reach && !reach[v]) || (want && !want[v]))
			continue;
		if (b->dist[v] < 0) {
			char a[64], c[64];
			return fx_diag_error(d, NULL, "no path from device '%s' to device '%s' "
					     "(CPUs never relay; devices relay only in direct fabrics)",
					     fx_fabric_vertex_name(f, src, a, sizeof a),
					     fx_fabric_vertex_name(f, v, c, sizeof c));
		}
		fx_hops_tally(h, b->dist[v], weight);
		if (b->dist[v] > h->diameter ||
		    (b->dist[v] == h->diameter && b->lat[v] > h->far_latency)) {
			h->diameter = b->dist[v];
			h->far_latency = b->lat[v];
			h->far_a = src;
			h->far_b = v;
		}
	}
	return 0;
}

static int tally(const fx_fabric *f, const fx_bfs *b, int64_t src, double weight, fx_hops *h,
		 const uint8_t *reach, fx_diag *d)
{
	return tally_some(f, b, src, weight, h, reach, NULL, d);
}

/* A composite's hop counts: from every device one search inside its
 * domain (the flows routing keeps there) and one over the whole fabric
 * for the other domains' devices. */
static int composite_hops(const fx_fabric *f, fx_hops *h, const uint8_t *reach, fx_diag *d)
{
	fx_fabric view;
	fx_fabric_domain_view(f, &view);
	fx_inc g, gd;
	fx_inc_build(&g, f);
	fx_inc_build(&gd, &view);
	fx_bfs b = {.dist = fx_xmalloc((size_t)f->nv * sizeof *b.dist),
		    .lat = fx_xmalloc((size_t)f->nv * sizeof *b.lat), .least = 1,
		    .queue = fx_xmalloc((size_t)f->nv * sizeof *b.queue)};
	double steps = 2.0 * (double)f->ndev * (double)(f->nv + f->ne);
	int64_t step = 1;
	if (steps > FULL_SEARCH_BUDGET) {
		step = (f->ndev + SAMPLE_SOURCES - 1) / SAMPLE_SOURCES;
		h->sampled = 1;
	}
	int rc = 0;
	h->diameter = -1;
	/* want[v]: the target is counted by this search; a device of the
	 * source's domain that a failure cut off inside it goes with the
	 * others, as routing sends it */
	uint8_t *want = fx_xmalloc((size_t)f->ndev + 1);
	for (int64_t s = 0; s < f->ndev && rc == 0; s += step) {
		if (reach && !reach[s])
			continue;
		fx_bfs_from(&b, &gd, s, 0);
		for (int64_t v = 0; v < f->ndev; v++)
			want[v] = f->domain_of[v] == f->domain_of[s] && b.dist[v] >= 0;
		rc = tally_some(f, &b, s, (double)step, h, reach, want, d);
		fx_bfs_from(&b, &g, s, 0);
		for (int64_t v = 0; v < f->ndev; v++)
			want[v] = !want[v];
		if (rc == 0)
			rc = tally_some(f, &b, s, (double)step, h, reach, want, d);
		h->sources++;
	}
	free(want);
	h->method = h->sampled ? "sampled: searches from evenly spaced devices, inside the domain "
				 "and across the network"
				 : "exact: two searches per device, inside its domain and across the network";
	fx_inc_release(&g);
	fx_inc_release(&gd);
	fx_fabric_domain_view_release(&view);
	free(b.queue);
	free(b.dist);
	free(b.lat);
	if (rc == 0)
		finish(h);
	return rc;
}

/* Whether the bit-parallel searches fit the search budget: a probe
 * search from the first device gives its eccentricity e (a pass of 64
 * sources goes at most 2e layers deep, each a scan of V vertices and the
 * incidences of the front), so ceil(D / 64) x 2e x (V + 2E) steps. */
static int bits_affordable(const fx_fabric *f, const fx_inc *g)
{
	fx_bfs b = {.dist = fx_xmalloc((size_t)f->nv * sizeof *b.dist),
		    .queue = fx_xmalloc((size_t)f->nv * sizeof *b.queue)};
	int32_t e = fx_bfs_from(&b, g, 0, 0);
	free(b.dist);
	free(b.queue);
	double passes = (double)((f->ndev + 63) / 64);
	return passes * 2.0 * (e > 0 ? e : 1) * ((double)f->nv + 2.0 * (double)f->ne) <=
	       FULL_SEARCH_BUDGET;
}

int fx_route_hops(const fx_fabric *f, fx_hops *h, fx_diag *d)
{
	return fx_route_hops_by(f, h, 1, d);
}

int fx_route_hops_by(const fx_fabric *f, fx_hops *h, int bits, fx_diag *d)
{
	if (!h)
		return fx_diag_error(d, NULL, "fx_route_hops: no result to fill");
	memset(h, 0, sizeof *h);
	if (!fx_fabric_built(f))
		return fx_diag_error(d, NULL, "fx_route_hops: no fabric (NULL, or one whose load failed)");
	if (f->ndev < 2) {
		fx_hops_tally(h, 0, 0);
		h->method = "trivial: fewer than two devices";
		return 0;
	}
	uint8_t *reach = NULL;
	if (fx_fabric_degraded(f)) {
		/* no closed form survives a failure: a search from every device
		 * the degraded fabric still joins */
		reach = fx_xmalloc((size_t)f->ndev + 1);
		int64_t live = fx_fabric_reachable(f, reach);
		for (int64_t v = 0; v < f->ndev; v++) {
			int down = !fx_fabric_vertex_up(f, v);
			h->devices_failed += down;
			h->devices_cut_off += !down && !reach[v];
		}
		if (live < 2) {
			free(reach);
			fx_hops_tally(h, 0, 0);
			h->method = "trivial: fewer than two devices left joined";
			return 0;
		}
	} else if (f->ndims > 0) {
		lattice_hops(f, h);
		return 0;
	}
	if (f->domain_of) {
		int rc = composite_hops(f, h, reach, d);
		free(reach);
		return rc;
	}
	fx_inc g;  /* live bundles only; among shortest paths the least latency */
	fx_inc_build(&g, f);
	fx_bfs b = {.dist = fx_xmalloc((size_t)f->nv * sizeof *b.dist),
		    .lat = fx_xmalloc((size_t)f->nv * sizeof *b.lat), .least = 1,
		    .queue = fx_xmalloc((size_t)f->nv * sizeof *b.queue)};
	int rc = 0;
	h->diameter = -1;
	double kind_hist[FX_HOPS_MAX];
	int kind_n = 0;
	int64_t far[2] = {0, 0};
	const char *how = NULL;
	if (!reach && f->builder->hops && f->builder->hops(f, kind_hist, &kind_n, far, &how) == 0) {
		/* the kind's own closed form; one search for the farthest pair's
		 * latency (the least over its shortest paths, as tally keeps) */
		for (int i = 0; i < kind_n; i++)
			fx_hops_tally(h, i, kind_hist[i]);
		fx_bfs_from(&b, &g, far[0], 0);
		h->far_a = far[0];
		h->far_b = far[1];
		h->far_latency = b.lat[far[1]];
		h->method = how;
		h->sources = 0;
	} else if (f->device_transitive && !reach) {
		fx_bfs_from(&b, &g, 0, 0);
		rc = tally(f, &b, 0, (double)f->ndev, h, NULL, d);
		h->sources = 1;
		h->method = "exact: one search (every device is alike)";
	} else if (bits && bits_affordable(f, &g)) {
		rc = fx_hops_bits(f, &g, reach, h, d);
		h->method = reach ? "exact: a search from every device on the degraded graph, 64 "
				    "at a time (bit-parallel)"
				  : "exact: a search from every device, 64 at a time (bit-parallel)";
	} else {
		double steps = (double)f->ndev * (double)(f->nv + f->ne);
		int64_t step = 1;
		if (steps > FULL_SEARCH_BUDGET) {
			step = (f->ndev + SAMPLE_SOURCES - 1) / SAMPLE_SOURCES;
			h->sampled = 1;
		}
		for (int64_t s = 0; s < f->ndev && rc == 0; s += step) {
			if (reach && !reach[s])
				continue;
			fx_bfs_from(&b, &g, s, 0);
			rc = tally(f, &b, s, (double)step, h, reach, d);
			h->sources++;
		}
		h->method = h->sampled ? "sampled: searches from evenly spaced devices"
			    : reach ? "exact: one search per device on the degraded graph"
				    : "exact: one search per device";
	}
	fx_inc_release(&g);
	free(b.queue);
	free(b.dist);
	free(b.lat);
	free(reach);
	if (rc == 0)
		finish(h);
	return rc;
}
