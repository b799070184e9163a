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

/* Links cut by splitting dimension i in half (k even): each line along i
 * is crossed once in a mesh, twice in a torus, once in a ring of two. */
static int64_t plane_cut(const fx_fabric *f, int i)
{
	return f->ndev / f->dims[i] * (f->wrap[i] ? 2 : 1);
}

/* The best balanced cut of a lattice is a plane across the dimension whose
 * cut crosses fewest lines: 2N/k links on a torus, N/k on a mesh, with k the
 * largest even extent. */
static int lattice_halves(const fx_fabric *f, uint8_t *side)
{
	int best = -1;
	for (int i = 0; i < f->ndims; i++)
		if (f->dims[i] % 2 == 0 && (best < 0 || plane_cut(f, i) < plane_cut(f, best)))
			best = i;
	if (best < 0)
		return 0;
	int x[FX_MAX_DIMS];
	for (int64_t v = 0; v < f->ndev; v++) {
		fx_fabric_coords(f, v, x);
		side[v] = x[best] >= f->dims[best] / 2;
	}
	return 1;
}

/* Closed form: 2N/k links on a torus, N/k on a mesh (k the cut extent). */
static double lattice_bisection(const fx_fabric *f, double *links)
{
	int best = -1;
	for (int i = 0; i < f->ndims; i++)
		if (f->dims[i] % 2 == 0 && (best < 0 || plane_cut(f, i) < plane_cut(f, best)))
			best = i;
	if (best < 0 || f->ne == 0)
		return -1;
	*links = (double)plane_cut(f, best) * f->e[0].count;
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
	"torus", "n-dimensional torus with wrap-around links (TPU-style)",
	sizeof(lattice_params), parse_torus, lattice_size, lattice_build, lattice_release,
	lattice_name, lattice_halves, lattice_bisection, lattice_shrink,
};

const fx_builder fx_builder_mesh = {
	"mesh", "n-dimensional mesh, no wrap-around unless asked",
	sizeof(lattice_params), parse_mesh, lattice_size, lattice_build, lattice_release,
	lattice_name, lattice_halves, lattice_bisection, lattice_shrink,
};

const fx_builder fx_builder_wafer = {
	"wafer-mesh", "2-D mesh of processing elements on one wafer (Cerebras WSE, WaferLLM)",
	sizeof(lattice_params), parse_wafer, lattice_size, lattice_build, lattice_release,
	lattice_name, lattice_halves, lattice_bisection, lattice_shrink,
};
