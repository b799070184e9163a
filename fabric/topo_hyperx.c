/*
 * hyperx: routers at the points of an L-dimensional lattice, every two
 * that differ in exactly one coordinate joined directly (Ahn, Binkert,
 * Davis, McLaren and Schreiber, "HyperX: Topology, Routing, and Packaging
 * of Efficient Large-Scale Networks", SC'09): the flattened butterfly
 * (Kim, Dally and Abts, ISCA'07) with any widths and link multiplicities.
 *
 *   dims: [S1, S2, ...]        routers along each dimension (1 to 8 of them)
 *   links_per_neighbor: K      links between two routers of one line: one
 *                              integer, or one per dimension ([K1, K2, ...])
 *   t: T                       devices per router
 *   radix: R                   optional: ports per router, checked
 *   link, dim_link             device links (and, without dim_link, router
 *                              links); dim_link: one link map per dimension
 *
 * Router r has coordinates r = x0 + S1 (x1 + S2 (x2 ...)) and devices r T
 * .. r T + T - 1; a router and its devices are a node.  A router's ports:
 * T + sum (S_k - 1) K_k.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "fabric.h"

typedef struct hyperx_params {
	int ndims;
	int64_t s[FX_MAX_DIMS], k[FX_MAX_DIMS], t, radix, routers;
	fx_linkspec link, dim[FX_MAX_DIMS];
} hyperx_params;

static int parse(fx_diag *d, const fx_snode *fab, void *params)
{
	static const char *const keys[] = {"kind", "dims", "links_per_neighbor", "t", "radix", "link",
					   "dim_link", NULL};
	hyperx_params *p = params;
	int64_t *dims = NULL;
	size_t n = 0;
	int rc = fx_spec_keys(d, fab, keys);
	rc |= fx_spec_int(d, fab, "t", 1, 1 << 16, &p->t);
	rc |= fx_spec_int_opt(d, fab, "radix", 2, 1 << 20, &p->radix);
	rc |= fx_linkspec_get(d, fab, "link", 1, &p->link);
	if (rc || fx_spec_int_list(d, fab, "dims", 1, 1 << 16, &dims, &n))
		return free(dims), -1;
	const fx_snode *dn = fx_snode_get(fab, "dims");
	if (n < 1 || n > FX_MAX_DIMS) {
		free(dims);
		return fx_snode_error(d, dn, "'%s' must list 1 to %d widths, got %zu", dn->path,
				      FX_MAX_DIMS, n);
	}
	p->ndims = (int)n;
	double routers = 1;
	for (size_t i = 0; i < n; i++) {
		p->s[i] = dims[i];
		p->k[i] = 1;
		routers *= (double)dims[i];
	}
	free(dims);
	if (routers * (double)(p->t + 1) > INT32_MAX)
		return fx_snode_error(d, dn, "'%s' describes %.4g routers of %lld devices, past the %d "
				      "vertices a fabric may have", dn->path, routers, (long long)p->t,
				      INT32_MAX);
	p->routers = (int64_t)routers;
	const fx_snode *kn = fx_snode_get(fab, "links_per_neighbor");
	if (kn && kn->kind == FX_SNODE_SEQ) {
		if (kn->n != n)
			return fx_snode_error(d, kn, "'%s' must give one count per dimension (%zu), got %zu",
					      kn->path, n, kn->n);
		for (size_t i = 0; i < n; i++)
			if (fx_snode_int(d, kn->items[i], 1, 1 << 16, &p->k[i]))
				return -1;
	} else if (kn) {
		int64_t k;
		if (fx_snode_int(d, kn, 1, 1 << 16, &k))
			return -1;
		for (size_t i = 0; i < n; i++)
			p->k[i] = k;
	}
	int64_t ports = p->t;
	for (size_t i = 0; i < n; i++) {
		ports += (p->s[i] - 1) * p->k[i];
		p->dim[i] = p->link;
	}
	if (p->radix && ports > p->radix)
		return fx_snode_error(d, fx_snode_get(fab, "radix"), "'%s.radix' (%lld) is too few: "
				      "routers need t + sum (S_k - 1) K_k = %lld ports", fab->path,
				      (long long)p->radix, (long long)ports);
	const fx_snode *dl = fx_snode_get(fab, "dim_link");
	if (dl) {
		if (dl->kind != FX_SNODE_SEQ || dl->n != n)
			return fx_snode_error(d, dl, "'%s' must list one link map per dimension (%zu)",
					      dl->path, n);
		for (size_t i = 0; i < n; i++) {
			if (dl->items[i]->kind != FX_SNODE_MAP)
				return fx_snode_error(d, dl->items[i], "'%s' must be a map {bandwidth, latency}",
						      dl->items[i]->path);
			if (fx_linkspec_parse(d, dl->items[i], 1, &p->dim[i]))
				return -1;
		}
	}
	return 0;
}

static void size(const void *params, fx_fabric_size *sz)
{
	const hyperx_params *p = params;
	sz->devices = p->routers * p->t;
	sz->switches = p->routers;
	sz->edges = sz->devices;
	for (int i = 0; i < p->ndims; i++)  /* a bundle per pair of a line */
		sz->edges += p->routers * (p->s[i] - 1) / 2;
}

static int build(const void *params, fx_fabric *f, fx_diag *d)
{
	const hyperx_params *p = params;
	(void)d;
	for (int64_t v = 0; v < p->routers * p->t; v++)
		fx_fb_vertex(f, FX_V_DEVICE, -1, v / p->t, -1);
	int role = fx_fb_role(f, "router", (int)p->radix, 1, "radix");
	int64_t r0 = f->nv;
	for (int64_t r = 0; r < p->routers; r++)
		fx_fb_vertex(f, FX_V_SWITCH, role, r, -1);
	for (int64_t v = 0; v < f->ndev; v++)
		fx_fb_link(f, v, r0 + v / p->t, &p->link, 1, 0);
	int64_t stride = 1;
	for (int i = 0; i < p->ndims; i++) {
		for (int64_t r = 0; r < p->routers; r++) {
			int64_t x = r / stride % p->s[i];
			for (int64_t y = x + 1; y < p->s[i]; y++)
				fx_fb_link(f, r0 + r, r0 + r + (y - x) * stride, &p->dim[i], (int)p->k[i], 1);
		}
		stride *= p->s[i];
	}
	fx_hyperx_state *s = &f->state.hyperx;
	s->ndims = p->ndims;
	for (int i = 0; i < p->ndims; i++) {
		s->s[i] = p->s[i];
		s->k_links[i] = p->k[i];
	}
	s->t = p->t;
	s->routers = p->routers;
	return 0;
}

static void vertex_name(const fx_fabric *f, int64_t v, char *buf, size_t len)
{
	const fx_hyperx_state *s = &f->state.hyperx;
	if (v < f->ndev) {
		snprintf(buf, len, "device%lld", (long long)v);
		return;
	}
	int64_t r = v - f->ndev;
	size_t u = (size_t)snprintf(buf, len, "r(");
	for (int i = 0; i < s->ndims && u < len; i++) {
		u += (size_t)snprintf(buf + u, len - u, "%s%lld", i ? "," : "", (long long)(r % s->s[i]));
		r /= s->s[i];
	}
	if (u < len)
		snprintf(buf + u, len - u, ")");
}

/* The dimension whose halving cuts least: of even width S, with (R / S)
 * (S/2)^2 K bundles' worth of links across; -1 when no width is even. */
static int best_dim(const fx_fabric *f, double *cap, double *links)
{
	const fx_hyperx_state *s = &f->state.hyperx;
	int best = -1;
	int64_t e = f->ndev;  /* the first router link; dimensions in order */
	for (int i = 0; i < s->ndims; i++) {
		double half = (double)(s->s[i] / 2);
		double l = (double)s->routers / (double)s->s[i] * half * half * (double)s->k_links[i];
		double c = s->s[i] % 2 == 0 ? l * f->e[e].bw : 0;
		if (s->s[i] % 2 == 0 && (best < 0 || c < *cap)) {
			best = i;
			*cap = c;
			*links = l;
		}
		e += s->routers * (s->s[i] - 1) / 2;
	}
	return best;
}

/* The routers with coordinate x_i < S_i / 2 along the best dimension,
 * with their devices: a bound (not proven least with mixed widths). */
static int halves(const fx_fabric *f, uint8_t *side)
{
	const fx_hyperx_state *s = &f->state.hyperx;
	double cap = 0, links = 0;
	int i = best_dim(f, &cap, &links);
	if (i < 0)
		return 0;
	int64_t stride = 1;
	for (int j = 0; j < i; j++)
		stride *= s->s[j];
	for (int64_t v = 0; v < f->ndev; v++)
		side[v] = v / s->t / stride % s->s[i] >= s->s[i] / 2;
	return 2;
}

/* That split's cut, (R / S_i) (S_i/2)^2 K_i links, or the device links of
 * one half when fewer. */
static double bisection(const fx_fabric *f, double *links)
{
	double cap = 0, l = 0;
	if (best_dim(f, &cap, &l) < 0)
		return -1;
	double host = (double)f->ndev / 2, hbw = f->e[0].bw;
	if (host * hbw < cap) {
		*links = host;
		return host * hbw;
	}
	*links = l;
	return cap;
}

/*
 * Hop counts in closed form: two routers are as many hops apart as they
 * have coordinates that differ, so the routers d hops from any router are
 * the x^d coefficient of prod_k (1 + (S_k - 1) x); devices add their two
 * device links (Ahn et al. §3).
 */
static int hops(const fx_fabric *f, double *hist, int *nhist, int64_t far[2], const char **how)
{
	const fx_hyperx_state *s = &f->state.hyperx;
	double poly[FX_MAX_DIMS + 1] = {1};
	int deg = 0;
	int64_t b = 0, stride = 1;
	for (int i = 0; i < s->ndims; i++) {
		for (int j = deg; j >= 0; j--) {
			poly[j + 1] += poly[j] * (double)(s->s[i] - 1);
		}
		deg++;
		if (s->s[i] > 1)
			b += stride;  /* coordinate 1 in every dimension that has one */
		stride *= s->s[i];
	}
	double N = (double)f->ndev, t = (double)s->t;
	memset(hist, 0, FX_HOPS_MAX * sizeof *hist);
	hist[2] = N * (t - 1);
	int n = 3;
	for (int j = 1; j <= deg; j++) {
		hist[j + 2] += N * t * poly[j];
		if (poly[j] > 0)
			n = j + 3;
	}
	*nhist = n;
	far[0] = 0;
	far[1] = b * s->t + (b == 0 && s->t > 1 ? 1 : 0);
	*how = "exact: closed form (routers as far apart as their coordinates differ)";
	return 0;
}

/* Shrinks by slabs of the last dimension: fewer routers along it. */
static int shrink(const fx_fabric *f, const fx_snode *fab, int64_t max_devices, fx_shrink *out)
{
	(void)fab;
	const fx_hyperx_state *s = &f->state.hyperx;
	int last = s->ndims - 1;
	int64_t slab = f->ndev / s->s[last], k = max_devices / slab;
	snprintf(out->rule, sizeof out->rule, "whole slabs of %lld devices along dimension %d",
		 (long long)slab, last);
	out->devices = k * slab;
	if (k == 0)
		return 0;
	char dims[128];
	size_t u = 0;
	for (int i = 0; i < s->ndims; i++)
		u += (size_t)snprintf(dims + u, sizeof dims - u, "%s%lld", i ? "," : "",
				      (long long)(i == last ? k : s->s[i]));
	fx_shrink_set(out, "fabric.dims=[%s]", dims);
	return 0;
}

const fx_builder fx_builder_hyperx = {
	.kind = "hyperx",
	.summary = "HyperX: routers on a lattice, all-to-all along each dimension (flattened butterfly)",
	.params_size = sizeof(hyperx_params),
	.parse = parse,
	.size = size,
	.build = build,
	.vertex_name = vertex_name,
	.halves = halves,
	.bisection = bisection,
	.shrink = shrink,
	.hops = hops,
	.router = FX_ROUTER_ECMP,
	.device_noun = "device",
};
