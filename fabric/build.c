/*
 * Helpers shared by the builders: link specs, vertices, edges and lattices.
 * Builders append vertices and edges here; fx_fabric_build() hands the edge
 * list to igraph once, at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "fabric.h"

int fx_linkspec_get(fx_diag *d, const fx_snode *map, const char *key, int with_latency,
		    fx_linkspec *out)
{
	const fx_snode *m;
	if (fx_spec_map(d, map, key, 1, &m))
		return -1;
	return fx_linkspec_parse(d, m, with_latency, out);
}

int fx_linkspec_parse(fx_diag *d, const fx_snode *map, int with_latency, fx_linkspec *out)
{
	static const char *const keys[] = {"bandwidth", "latency", "medium", NULL};
	static const char *const keys_nolat[] = {"bandwidth", "medium", NULL};
	static const char *const media[FX_MEDIUMS] = {"copper", "optical", "silicon"};
	int rc = fx_spec_keys(d, map, with_latency ? keys : keys_nolat);
	rc |= fx_spec_qty(d, map, "bandwidth", FX_UNIT_BANDWIDTH, 0, 1, &out->bw);
	if (with_latency)
		rc |= fx_spec_qty(d, map, "latency", FX_UNIT_TIME, 0, 0, &out->lat);
	const fx_snode *m = fx_snode_get(map, "medium");
	if (m) {
		const char *s;
		if (fx_snode_str(d, m, &s))
			return -1;
		int found = 0;
		for (int i = 0; i < FX_MEDIUMS; i++)
			if (strcmp(s, media[i]) == 0) {
				out->medium = (fx_medium)i;
				found = 1;
			}
		if (!found)
			return fx_snode_error(d, m, "'%s' must be copper, optical or silicon, got '%s'",
					      m->path, s);
	}
	return rc;
}

int fx_fb_role(fx_fabric *f, const char *name, int radix, int tier, const char *radix_key)
{
	fx_role *r = &f->roles[f->nroles];
	snprintf(r->name, sizeof r->name, "%s", name);
	snprintf(r->radix_key, sizeof r->radix_key, "%s", radix_key ? radix_key : "");
	r->radix = radix;
	r->tier = tier;
	return f->nroles++;
}

int64_t fx_fb_vertex(fx_fabric *f, fx_vtype t, int role, int64_t node, int64_t plane)
{
	f->v = fx_xgrow(f->v, &f->capv, (size_t)f->nv + 1, sizeof *f->v);
	fx_vertex *x = &f->v[f->nv];
	x->type = (uint8_t)t;
	x->role = (int8_t)role;
	x->node = (int32_t)node;
	x->rack = -1;
	x->plane = (int32_t)plane;
	switch (t) {
	case FX_V_DEVICE: x->index = (int32_t)f->ndev++; break;
	case FX_V_SWITCH:
		if (role >= 0 && f->roles[role].count++ == 0)
			f->roles[role].first = f->nsw;
		x->index = (int32_t)f->nsw++;
		break;
	case FX_V_CPU: x->index = (int32_t)f->ncpu++; break;
	}
	return f->nv++;
}

int64_t fx_fb_link(fx_fabric *f, int64_t a, int64_t b, const fx_linkspec *ls, int count,
		   int tier)
{
	size_t cap = f->cape;
	f->e = fx_xgrow(f->e, &f->cape, (size_t)f->ne + 1, sizeof *f->e);
	if (f->cape != cap || !f->ends)
		f->ends = fx_xrealloc(f->ends, f->cape * 2 * sizeof *f->ends);
	fx_link *l = &f->e[f->ne];
	l->bw = ls->bw;
	l->lat = ls->lat;
	l->count = count;
	l->medium = (uint8_t)ls->medium;
	l->tier = (int8_t)tier;
	l->scale_out = 0;
	l->cost = 1;
	/* store the lower id first so directed link 2e runs low -> high */
	f->ends[2 * f->ne] = a < b ? a : b;
	f->ends[2 * f->ne + 1] = a < b ? b : a;
	return f->ne++;
}

void fx_fb_lattice(fx_fabric *f, int ndims, const int64_t *dims, const int *wrap,
		   const fx_linkspec *ls, int count)
{
	int64_t n = 1;
	f->ndims = ndims;
	for (int i = 0; i < ndims; i++) {
		f->dims[i] = (int)dims[i];
		/* a ring of two has one neighbour both ways: one bundle, no wrap */
		f->wrap[i] = wrap[i] && dims[i] > 2;
		n *= dims[i];
	}
	/* vertices and links sized once: a WSE-2's 754k and 1.5 M grown by
	 * doubling were copied about twice over */
	int64_t links = 0;
	for (int i = 0; i < ndims; i++)
		if (dims[i] > 0)
			links += n / dims[i] * (dims[i] - 1 + f->wrap[i]);
	if ((size_t)(f->nv + n) > f->capv) {
		f->capv = (size_t)(f->nv + n);
		f->v = fx_xrealloc(f->v, f->capv * sizeof *f->v);
	}
	if ((size_t)(f->ne + links) > f->cape) {
		f->cape = (size_t)(f->ne + links);
		f->e = fx_xrealloc(f->e, f->cape * sizeof *f->e);
		f->ends = fx_xrealloc(f->ends, f->cape * 2 * sizeof *f->ends);
	}
	for (int64_t v = 0; v < n; v++)
		fx_fb_vertex(f, FX_V_DEVICE, -1, -1, -1);
	f->plus_edge = fx_xmalloc((size_t)(n * ndims) * sizeof *f->plus_edge);
	int x[FX_MAX_DIMS] = {0};
	for (int64_t v = 0; v < n; v++) {
		int64_t stride = 1;
		for (int i = 0; i < ndims; i++) {
			int64_t e = -1;
			if (x[i] + 1 < dims[i])
				e = fx_fb_link(f, v, v + stride, ls, count, 0);
			else if (f->wrap[i])
				e = fx_fb_link(f, v, v - stride * (dims[i] - 1), ls, count, 0);
			f->plus_edge[v * ndims + i] = e;
			stride *= dims[i];
		}
		for (int i = 0; i < ndims && ++x[i] == dims[i]; i++)  /* odometer */
			x[i] = 0;
	}
}

int fx_fb_tier_links(fx_diag *d, const fx_snode *fab, int64_t tiers, const char *first,
		     fx_linkspec link[3])
{
	const fx_snode *l = fx_snode_get(fab, "link"), *tl = fx_snode_get(fab, "tier_links");
	if (l && tl)
		return fx_snode_error(d, tl, "give either '%s.link' or '%s.tier_links', not both",
				      fab->path, fab->path);
	if (!l && !tl)
		return fx_snode_error(d, fab, "missing key '%s.link' (or '%s.tier_links', one per "
				      "tier)", fab->path, fab->path);
	if (l) {
		if (fx_linkspec_get(d, fab, "link", 1, &link[0]))
			return -1;
		link[1] = link[2] = link[0];
		return 0;
	}
	if (tl->kind != FX_SNODE_SEQ || tl->n != (size_t)tiers || tiers < 1 || tiers > 3)
		return fx_snode_error(d, tl, "'%s' must list %lld link maps: %s first, then each "
				      "tier up", tl->path, (long long)tiers, first);
	int rc = 0;
	for (size_t t = 0; t < tl->n; t++) {
		if (tl->items[t]->kind != FX_SNODE_MAP)
			rc |= fx_snode_error(d, tl->items[t], "'%s' must be a map {bandwidth, latency}",
					     tl->items[t]->path);
		else
			rc |= fx_linkspec_parse(d, tl->items[t], 1, &link[t]);
	}
	for (int64_t t = tiers; t < 3; t++)
		link[t] = link[tiers - 1];
	return rc;
}

int fx_fb_halves_by_index(const fx_fabric *f, uint8_t *side)
{
	if (f->ndev % 2)
		return 0;
	for (int64_t v = 0; v < f->ndev; v++)
		side[v] = v >= f->ndev / 2;
	return 1;
}

int fx_fb_unit_turn(int64_t n, int k, int64_t *map)
{
	int64_t h = n / 2, d = 0;
	/* k < (divisors of h below h): turn each half by the k-th of them */
	for (int64_t x = 1; n % 2 == 0 && x < h; x++)
		if (h % x == 0 && d++ == k) {
			for (int64_t u = 0; u < n; u++)
				map[u] = u / h * h + (u % h + x) % h;
			return 1;
		}
	if (n % 2 == 0 && k == d) {
		for (int64_t u = 0; u < n; u++)
			map[u] = (u + h) % n;
		return 1;
	}
	if (n > 1 && k == d + (n % 2 == 0)) {
		for (int64_t u = 0; u < n; u++)
			map[u] = (u + 1) % n;
		return 1;
	}
	return 0;
}
