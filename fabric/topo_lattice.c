/*
 * Lattice kinds: n-dimensional torus and mesh (TPU-style), and the 2-D
 * wafer-scale mesh of processing elements (Cerebras WSE, WaferLLM's PLMR
 * model).  Devices are numbered x0 + d0*(x1 + d1*(x2 ...)), the order igraph's
 * square lattice uses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "fabric.h"

typedef struct lattice_params {
	int64_t *dims;
	size_t ndims;
	int wrap[FX_MAX_DIMS];
	int64_t count;          /* links_per_neighbor */
	fx_linkspec link;
	/* wafer-mesh only */
	double pe_memory, routing_latency;
	int64_t routes_per_pe;
} lattice_params;

static int parse_dims(fx_diag *d, const fx_snode *fab, const char *key, lattice_params *p)
{
	if (fx_spec_int_list(d, fab, key, 1, INT32_MAX, &p->dims, &p->ndims))
		return -1;
	const fx_snode *n = fx_snode_get(fab, key);
	if (p->ndims > FX_MAX_DIMS)
		return fx_snode_error(d, n, "'%s' has %zu dimensions; at most %d are supported",
				      n->path, p->ndims, FX_MAX_DIMS);
	double total = 1;
	for (size_t i = 0; i < p->ndims; i++)
		total *= (double)p->dims[i];
	if (total > INT32_MAX)
		return fx_snode_error(d, n, "'%s' describes %.3g devices; fabricx numbers devices "
				      "with 32-bit indexes (at most %d)", n->path, total, INT32_MAX);
	return 0;
}

static int parse_wrap(fx_diag *d, const fx_snode *fab, int dflt, lattice_params *p)
{
	const fx_snode *w = fx_snode_get(fab, "wrap");
	for (size_t i = 0; i < p->ndims; i++)
		p->wrap[i] = dflt;
	if (!w)
		return 0;
	if (w->kind == FX_SNODE_SCALAR) {
		int b;
		if (fx_snode_bool(d, w, &b))
			return -1;
		for (size_t i = 0; i < p->ndims; i++)
			p->wrap[i] = b;
		return 0;
	}
	if (w->kind != FX_SNODE_SEQ || w->n != p->ndims)
		return fx_snode_error(d, w, "'%s' must be true, false, or a list of %zu booleans "
				      "(one per dimension)", w->path, p->ndims);
	int rc = 0;
	for (size_t i = 0; i < p->ndims; i++)
		rc |= fx_snode_bool(d, w->items[i], &p->wrap[i]);
	return rc;
}

static int parse_grid(fx_diag *d, const fx_snode *fab, lattice_params *p, int wrap)
{
	static const char *const keys[] = {"kind", "dims", "wrap", "links_per_neighbor", "link", NULL};
	int rc = fx_spec_keys(d, fab, keys);
	p->count = 1;
	if (parse_dims(d, fab, "dims", p))
		return -1;
	rc |= parse_wrap(d, fab, wrap, p);
	rc |= fx_spec_int_opt(d, fab, "links_per_neighbor", 1, 1 << 20, &p->count);
	rc |= fx_linkspec_get(d, fab, "link", 1, &p->link);
	return rc;
}

static int parse_torus(fx_diag *d, const fx_snode *fab, void *params)
{
	return parse_grid(d, fab, params, 1);
}

static int parse_mesh(fx_diag *d, const fx_snode *fab, void *params)
{
	return parse_grid(d, fab, params, 0);
}

static int parse_wafer(fx_diag *d, const fx_snode *fab, void *params)
{
	static const char *const keys[] = {"kind", "grid", "pe_memory", "hop_latency",
					   "routing_latency", "routes_per_pe", "link", NULL};
	lattice_params *p = params;
	int rc = fx_spec_keys(d, fab, keys);
	p->count = 1;
	if (parse_dims(d, fab, "grid", p))
		return -1;
	const fx_snode *g = fx_snode_get(fab, "grid");
	if (p->ndims != 2)
		return fx_snode_error(d, g, "'%s' must be [W, H], got %zu numbers", g->path, p->ndims);
	p->link.medium = FX_MEDIUM_SILICON;  /* on-wafer wires unless stated */
	rc |= fx_linkspec_get(d, fab, "link", 0, &p->link);
	rc |= fx_spec_qty(d, fab, "hop_latency", FX_UNIT_TIME, 0, 0, &p->link.lat);
	rc |= fx_spec_qty(d, fab, "routing_latency", FX_UNIT_TIME, 0, 0, &p->routing_latency);
	rc |= fx_spec_qty(d, fab, "pe_memory", FX_UNIT_SIZE, 0, 1, &p->pe_memory);
	rc |= fx_spec_int(d, fab, "routes_per_pe", 1, INT32_MAX, &p->routes_per_pe);
	return rc;
}

static void lattice_size(const void *params, fx_fabric_size *sz)
{
	const lattice_params *p = params;
	int64_t n = 1;
	for (size_t i = 0; i < p->ndims; i++)
		n *= p->dims[i];
	sz->devices = n;
	for (size_t i = 0; i < p->ndims; i++) {
		int wraps = p->wrap[i] && p->dims[i] > 2;
		sz->edges += n / p->dims[i] * (p->dims[i] - 1 + wraps);
	}
}

static int lattice_build(const void *params, fx_fabric *f, fx_diag *d)
{
	const lattice_params *p = params;
	(void)d;
	fx_fb_lattice(f, (int)p->ndims, p->dims, p->wrap, &p->link, (int)p->count);
	/* a torus is vertex-transitive; a mesh is not (corners differ) */
	int all = 1;
	for (size_t i = 0; i < p->ndims; i++)
		all &= f->wrap[i] || p->dims[i] <= 2;
	f->device_transitive = all;
	f->devices_forward = 1;
	f->pe_memory = p->pe_memory;
	f->routing_latency = p->routing_latency;
	f->routes_per_pe = p->routes_per_pe;
	return 0;
}

static void lattice_release(void *params)
{
	free(((lattice_params *)params)->dims);
}

static void lattice_name(const fx_fabric *f, int64_t v, char *buf, size_t len)
{
	int x[FX_MAX_DIMS];
	size_t used = 0;
	fx_fabric_coords(f, v, x);
	for (int i = 0; i < f->ndims && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? "," : "(", x[i]);
	if (used < len)
		snprintf(buf + used, len - used, ")");
}

/*
 * The bisection of a lattice: the fewest links between two halves of
 * floor(N/2) and ceil(N/2) devices.  "Exact" is claimed only when proven:
 *
 * Lower bound (congestion): route every ordered pair of devices one unit,
 * dimension by dimension, each ring's ties split evenly.  A link of
 * dimension i then carries (N/k) * 2P units, P the unordered pairs of
 * positions whose path on that line uses it: k^2/8 on a ring of even k,
 * (k^2-1)/8 on an odd ring, floor(k/2)*ceil(k/2) at the middle of a path
 * (a mesh line, or a ring of 2).  The 2*floor(N/2)*ceil(N/2) units from one
 * half to the other all cross the cut, so it has at least
 * floor(N/2)*ceil(N/2) / max_i((N/k_i) P_i) links.
 *
 * Upper bound (a staircase): number the devices with one dimension
 * slowest and the rest by decreasing extent, and take the first floor(N/2);
 * its edge cut, the least over the choice of slowest dimension, is a
 * balanced cut.
 *
 * Where the two meet the bisection is proven: every torus whose largest
 * extent is even (2N/k), every mesh whose largest extent is even (N/k), and
 * many odd ones (a 2x999 mesh: 3).  Elsewhere the staircase is reported as
 * a bound.  tests/unit/test_bisection.c checks both against a brute-force
 * minimum balanced cut on every torus and mesh up to 64 devices.
 */

/* 8 x the largest link load of the congestion routing, in pair units. */
static __int128 max_load8(const fx_fabric *f)
{
	__int128 best = 0;
	for (int i = 0; i < f->ndims; i++) {
		int64_t k = f->dims[i];
		if (k < 2)
			continue;
		__int128 p8 = f->wrap[i] ? (k % 2 ? (__int128)k * k - 1 : (__int128)k * k)
					 : (__int128)8 * (k / 2) * ((k + 1) / 2);
		__int128 load = (__int128)(f->ndev / k) * p8;
		if (load > best)
			best = load;
	}
	return best;
}

/* The congestion lower bound, in link bundles. */
static int64_t lattice_lower(const fx_fabric *f)
{
	__int128 l8 = max_load8(f);
	if (l8 == 0)
		return 0;
	__int128 pairs8 = (__int128)8 * (f->ndev / 2) * ((f->ndev + 1) / 2);
	return (int64_t)((pairs8 + l8 - 1) / l8);
}

/* The staircase with dimension `slow` slowest: side[v] = 1 for the last
 * ceil(N/2) devices in that order.  Returns its edge cut in bundles. */
static int64_t staircase(const fx_fabric *f, int slow, uint8_t *side)
{
	int order[FX_MAX_DIMS], n = 0;  /* fastest first */
	for (int i = 0; i < f->ndims; i++)
		if (i != slow)
			order[n++] = i;
	for (int a = 0; a < n; a++)  /* decreasing extent, slowest last: insertion sort */
		for (int b = a; b > 0 && f->dims[order[b]] < f->dims[order[b - 1]]; b--) {
			int t = order[b];
			order[b] = order[b - 1];
			order[b - 1] = t;
		}
	order[n++] = slow;
	int x[FX_MAX_DIMS];
	for (int64_t v = 0; v < f->ndev; v++) {
		fx_fabric_coords(f, v, x);
		int64_t rank = 0;
		for (int j = n - 1; j >= 0; j--)
			rank = rank * f->dims[order[j]] + x[order[j]];
		side[v] = rank >= f->ndev / 2;
	}
	int64_t cut = 0;
	for (int64_t e = 0; e < f->ne; e++)
		cut += side[f->ends[2 * e]] != side[f->ends[2 * e + 1]];
	return cut;
}

/* The best staircase into side; its cut in bundles. */
static int64_t best_staircase(const fx_fabric *f, uint8_t *side)
{
	uint8_t *tmp = fx_xmalloc((size_t)f->ndev);
	int64_t best = -1;
	for (int i = 0; i < f->ndims; i++) {
		if (f->dims[i] < 2)
			continue;
		int64_t c = staircase(f, i, tmp);
		if (best < 0 || c < best) {
			best = c;
			memcpy(side, tmp, (size_t)f->ndev);
		}
	}
	free(tmp);
	return best;
}

/* 1: side is a proven bisection; 2: side is the best staircase, a bound. */
static int lattice_halves(const fx_fabric *f, uint8_t *side)
{
	if (f->ndev < 2 || f->ne == 0)
		return 0;
	int64_t cut = best_staircase(f, side);
	return cut >= 0 && cut == lattice_lower(f) ? 1 : 2;
}

/* The proven bisection (the lower bound, met by a staircase), or -1. */
static double lattice_bisection(const fx_fabric *f, double *links)
{
	if (f->ndev < 2 || f->ne == 0)
		return -1;
	uint8_t *side = fx_xmalloc((size_t)f->ndev);
	int64_t cut = best_staircase(f, side);
	free(side);
	if (cut < 0 || cut != lattice_lower(f))
		return -1;
	*links = (double)cut * f->e[0].count;
	return *links * f->e[0].bw;
}

/* Shrinks by whole slabs along the outermost dimension (the last one:
 * devices are numbered with the first dimension fastest), so the first
 * devices stay where they were. */
static int lattice_shrink(const fx_fabric *f, const fx_snode *fab, int64_t max_devices, fx_shrink *out)
{
	(void)fab;
	int last = f->ndims - 1;
	int64_t slab = f->ndev / f->dims[last], k = max_devices / slab;
	snprintf(out->rule, sizeof out->rule, "whole slabs of %lld devices along dimension %d", (long long)slab,
		 last);
	out->devices = k * slab;
	if (k == 0)
		return 0;
	char list[FX_MAX_DIMS * 12] = "";
	for (int i = 0; i <= last; i++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%lld", i ? "," : "",
			 (long long)(i == last ? k : f->dims[i]));
	fx_shrink_set(out, "fabric.%s=[%s]", strcmp(f->builder->kind, "wafer-mesh") ? "dims" : "grid", list);
	return 0;
}

const fx_builder fx_builder_torus = {
	.kind = "torus",
	.summary = "n-dimensional torus with wrap-around links (TPU-style)",
	.params_size = sizeof(lattice_params),
	.parse = parse_torus,
	.size = lattice_size,
	.build = lattice_build,
	.release = lattice_release,
	.vertex_name = lattice_name,
	.halves = lattice_halves,
	.bisection = lattice_bisection,
	.shrink = lattice_shrink,
};

const fx_builder fx_builder_mesh = {
	.kind = "mesh",
	.summary = "n-dimensional mesh, no wrap-around unless asked",
	.params_size = sizeof(lattice_params),
	.parse = parse_mesh,
	.size = lattice_size,
	.build = lattice_build,
	.release = lattice_release,
	.vertex_name = lattice_name,
	.halves = lattice_halves,
	.bisection = lattice_bisection,
	.shrink = lattice_shrink,
};

const fx_builder fx_builder_wafer = {
	.kind = "wafer-mesh",
	.summary = "2-D mesh of processing elements on one wafer (Cerebras WSE, WaferLLM)",
	.params_size = sizeof(lattice_params),
	.parse = parse_wafer,
	.size = lattice_size,
	.build = lattice_build,
	.release = lattice_release,
	.vertex_name = lattice_name,
	.halves = lattice_halves,
	.bisection = lattice_bisection,
	.shrink = lattice_shrink,
};
