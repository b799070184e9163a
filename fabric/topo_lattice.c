/*
 * Lattice kinds: n-dimensional torus and mesh (TPU-style), and the 2-D
 * wafer-scale mesh of processing elements (Cerebras WSE, WaferLLM's PLMR
 * model).  Devices are numbered x0 + d0*(x1 + d1*(x2 ...)), the order igraph's
 * square lattice uses.
 *
 * Tori and meshes may be packaged in blocks of the lattice rather than in
 * device order: node_shape [2, 2, 1] makes each 2x2x1 block a node (a TPU v4
 * tray), rack_shape [4, 4, 4] each 4x4x4 block a rack (a TPU v4 cube), with
 * nodes numbered rack by rack.  rack_link gives the links that join two
 * racks their own bandwidth, latency and medium (TPU v4: copper inside a
 * cube, optics through the OCS between cubes), wrap-around links included;
 * dim_link gives each dimension its own, wrap_link the wrap-around links.
 * Precedence: rack_link, then wrap_link, then dim_link, then link.
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
	int64_t node_shape[FX_MAX_DIMS], rack_shape[FX_MAX_DIMS];
	int have_node_shape, have_rack_shape, have_rack_link, have_dim_link, have_wrap_link;
	fx_linkspec rack_link;  /* links between racks */
	fx_linkspec dim_link[FX_MAX_DIMS];  /* per dimension (dim_link) */
	fx_linkspec wrap_link;  /* wrap-around links */
	/* ocs: optical circuit switches joining the rack_shape cubes */
	int have_ocs;
	int64_t ocs_radix, ocs_switches, ocs_ports;
	/* wafer-mesh only */
	double pe_memory, routing_latency;
	int64_t routes_per_pe;
	int64_t *dies;
	size_t ndies;
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

/* A block shape under `key`: one extent per dimension, each dividing the
 * lattice's (and `outer`'s, when given, dividing that). */
static int parse_shape(fx_diag *d, const fx_snode *fab, const char *key, const lattice_params *p,
		       const int64_t *inner, int64_t *out, int *have)
{
	const fx_snode *n = fx_snode_get(fab, key);
	*have = n != NULL;
	if (!n)
		return 0;
	int64_t *v;
	size_t nv;
	if (fx_spec_int_list(d, fab, key, 1, INT32_MAX, &v, &nv))
		return -1;
	int rc = 0;
	if (nv != p->ndims)
		rc = fx_snode_error(d, n, "'%s' must give %zu extents (one per dimension), got %zu",
				    n->path, p->ndims, nv);
	for (size_t i = 0; rc == 0 && i < nv; i++) {
		if (p->dims[i] % v[i])
			rc = fx_snode_error(d, n->items[i], "'%s' (%lld) must divide dimension %zu of the "
					    "lattice (%lld)", n->items[i]->path, (long long)v[i], i,
					    (long long)p->dims[i]);
		else if (inner && v[i] % inner[i])
			rc = fx_snode_error(d, n->items[i], "'%s' (%lld) must be a multiple of the node "
					    "shape's %lld", n->items[i]->path, (long long)v[i],
					    (long long)inner[i]);
		out[i] = v[i];
	}
	free(v);
	return rc;
}

/*
 * ocs: {ports: N}: the rack_shape cubes of a torus are joined through
 * optical circuit switches, as TPU v4's 4x4x4 cubes are by 48 OCS
 * (hardware.md §4, the chapter "Supernodes" §6.5.4).  Every link that
 * leaves a cube's face goes to a switch: one switch per link position of
 * a face (links_per_neighbor x the face's chips) in each dimension, taking
 * that position on the + and - faces of every cube, so 2 x cubes ports
 * each (TPU v4: 3 x 16 = 48 switches of 2 x 64 = 128 ports, 6,144 fibres).
 * The wiring the switches set is the torus itself (rack_link gives its
 * links); what the description adds is the switches, their ports against
 * `ports`, and the cube that slices take whole (fabricx slice).
 */
static int parse_ocs(fx_diag *d, const fx_snode *fab, lattice_params *p)
{
	static const char *const keys[] = {"ports", NULL};
	const fx_snode *o;
	if (fx_spec_map(d, fab, "ocs", 0, &o))
		return -1;
	if (!o)
		return 0;
	if (fx_spec_keys(d, o, keys) || fx_spec_int(d, o, "ports", 1, INT32_MAX, &p->ocs_radix))
		return -1;
	if (!p->have_rack_shape)
		return fx_snode_error(d, o, "'%s' needs '%s.rack_shape' to say what a cube is", o->path,
				      fab->path);
	int64_t cubes = 1;
	for (size_t i = 0; i < p->ndims; i++)
		cubes *= p->dims[i] / p->rack_shape[i];
	p->have_ocs = 1;
	p->ocs_ports = 2 * cubes;
	p->ocs_switches = 0;
	for (size_t i = 0; i < p->ndims; i++) {
		if (p->dims[i] < 3 || !p->wrap[i])
			continue;  /* no link leaves a cube's face in this dimension */
		int64_t face = p->count;
		for (size_t j = 0; j < p->ndims; j++)
			face *= j == i ? 1 : p->rack_shape[j];
		p->ocs_switches += face;
	}
	if (p->ocs_switches == 0)
		return fx_snode_error(d, o, "'%s': no link leaves a cube, so no switch joins them",
				      o->path);
	if (p->ocs_ports > p->ocs_radix) {
		const fx_snode *n = fx_snode_get(o, "ports");
		return fx_snode_error(d, n, "each optical circuit switch takes one port on the + and "
				      "- faces of all %lld cubes, %lld ports, but '%s' gives %lld",
				      (long long)cubes, (long long)p->ocs_ports, n->path,
				      (long long)p->ocs_radix);
	}
	return 0;
}

static int parse_grid(fx_diag *d, const fx_snode *fab, lattice_params *p, int wrap)
{
	static const char *const keys[] = {"kind", "dims", "wrap", "links_per_neighbor", "link",
					   "dim_link", "wrap_link", "node_shape", "rack_shape",
					   "rack_link", "ocs", NULL};
	static const char *const mesh_keys[] = {"kind", "dims", "wrap", "links_per_neighbor",
						"link", "dim_link", "wrap_link", "node_shape",
						"rack_shape", "rack_link", NULL};
	int rc = fx_spec_keys(d, fab, wrap ? keys : mesh_keys);  /* ocs: tori only */
	p->count = 1;
	if (parse_dims(d, fab, "dims", p))
		return -1;
	rc |= parse_wrap(d, fab, wrap, p);
	rc |= fx_spec_int_opt(d, fab, "links_per_neighbor", 1, 1 << 20, &p->count);
	rc |= fx_linkspec_get(d, fab, "link", 1, &p->link);
	for (size_t i = 0; i < p->ndims; i++)
		p->node_shape[i] = p->rack_shape[i] = 1;
	rc |= parse_shape(d, fab, "node_shape", p, NULL, p->node_shape, &p->have_node_shape);
	if (rc == 0)
		rc |= parse_shape(d, fab, "rack_shape", p, p->node_shape, p->rack_shape,
				  &p->have_rack_shape);
	const fx_snode *dl = fx_snode_get(fab, "dim_link");
	p->have_dim_link = dl != NULL;
	if (dl && (dl->kind != FX_SNODE_SEQ || dl->n != p->ndims))
		rc |= fx_snode_error(d, dl, "'%s' must list %zu link maps, one per dimension", dl->path,
				     p->ndims);
	else
		for (size_t i = 0; dl && i < p->ndims; i++)
			rc |= fx_linkspec_parse(d, dl->items[i], 1, &p->dim_link[i]);
	p->have_wrap_link = fx_snode_get(fab, "wrap_link") != NULL;
	if (p->have_wrap_link)
		rc |= fx_linkspec_get(d, fab, "wrap_link", 1, &p->wrap_link);
	p->have_rack_link = fx_snode_get(fab, "rack_link") != NULL;
	if (p->have_rack_link) {
		if (!p->have_rack_shape)
			rc |= fx_snode_error(d, fx_snode_get(fab, "rack_link"), "'%s.rack_link' needs "
					     "'%s.rack_shape' to say where racks end", fab->path, fab->path);
		else
			rc |= fx_linkspec_get(d, fab, "rack_link", 1, &p->rack_link);
	}
	if (rc == 0)
		rc = parse_ocs(d, fab, p);
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
					   "routing_latency", "routes_per_pe", "link", "dies", NULL};
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
	/* dies: [X, Y], the die (reticle) grid the PEs are drawn in; optional,
	 * and no figure depends on it.  A grid narrower than the dies (a
	 * WaferLLM sub-grid, --set fabric.grid=[8,8]) is drawn without them. */
	const fx_snode *dn = fx_snode_get(fab, "dies");
	if (dn && fx_spec_int_list(d, fab, "dies", 1, INT32_MAX, &p->dies, &p->ndies))
		rc = -1;
	else if (dn && p->ndies != 2)
		rc |= fx_snode_error(d, dn, "'%s' must be [X, Y], dies along x and y, got %zu numbers",
				     dn->path, p->ndies);
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

static void set_link(fx_link *l, const fx_linkspec *ls, int tier)
{
	l->bw = ls->bw;
	l->lat = ls->lat;
	l->medium = (uint8_t)ls->medium;
	l->tier = (int8_t)tier;
}

/* Nodes and racks as blocks of the lattice: rack = the index of the
 * device's rack_shape block, node = rack x nodes per rack + the index of
 * its node_shape block inside the rack; links between racks take
 * rack_link. */
static void lattice_package(const lattice_params *p, fx_fabric *f)
{
	int D = (int)p->ndims, x[FX_MAX_DIMS];
	int64_t per_rack = 1;
	for (int i = 0; i < D; i++)
		per_rack *= p->rack_shape[i] / p->node_shape[i];
	for (int64_t v = 0; v < f->ndev; v++) {
		fx_fabric_coords(f, v, x);
		int64_t rack = 0, node = 0;
		for (int i = D - 1; i >= 0; i--) {
			rack = rack * (p->dims[i] / p->rack_shape[i]) + x[i] / p->rack_shape[i];
			int64_t in = (x[i] % p->rack_shape[i]) / p->node_shape[i];
			node = node * (p->rack_shape[i] / p->node_shape[i]) + in;
		}
		f->v[v].node = (int32_t)(rack * per_rack + node);
		f->v[v].rack = p->have_rack_shape ? (int32_t)rack : -1;
	}
	if (!p->have_rack_link)
		return;
	for (int64_t e = 0; e < f->ne; e++)
		if (f->v[f->ends[2 * e]].rack != f->v[f->ends[2 * e + 1]].rack)
			set_link(&f->e[e], &p->rack_link, 1);
}

/* Per-dimension links (dim_link) and wrap-around links (wrap_link, from
 * the last position of a line back to the first). */
static void lattice_link_classes(const lattice_params *p, fx_fabric *f)
{
	int D = (int)p->ndims, x[FX_MAX_DIMS];
	for (int64_t v = 0; v < f->ndev; v++) {
		fx_fabric_coords(f, v, x);
		for (int i = 0; i < D; i++) {
			int64_t e = f->plus_edge[v * D + i];
			if (e < 0)
				continue;
			if (p->have_wrap_link && f->wrap[i] && x[i] == f->dims[i] - 1)
				set_link(&f->e[e], &p->wrap_link, 1);
			else if (p->have_dim_link)
				set_link(&f->e[e], &p->dim_link[i], 0);
		}
	}
}

static int lattice_build(const void *params, fx_fabric *f, fx_diag *d)
{
	const lattice_params *p = params;
	(void)d;
	fx_fb_lattice(f, (int)p->ndims, p->dims, p->wrap, &p->link, (int)p->count);
	if (p->have_dim_link || p->have_wrap_link)
		lattice_link_classes(p, f);
	if (p->have_node_shape || p->have_rack_shape)
		lattice_package(p, f);
	/* a torus is vertex-transitive; a mesh is not (corners differ) */
	int all = 1;
	for (size_t i = 0; i < p->ndims; i++)
		all &= f->wrap[i] || p->dims[i] <= 2;
	f->device_transitive = all;
	f->devices_forward = 1;
	if (p->have_ocs) {
		f->ocs_switches = p->ocs_switches;
		f->ocs_ports = p->ocs_ports;
		f->ocs_radix = p->ocs_radix;
		for (size_t i = 0; i < p->ndims; i++)
			f->ocs_cube[i] = (int)p->rack_shape[i];
	}
	if (fx_fabric_is(f, FX_KIND_WAFER)) {
		f->state.wafer.pe_memory = p->pe_memory;
		f->state.wafer.routing_latency = p->routing_latency;
		f->state.wafer.routes_per_pe = p->routes_per_pe;
		for (size_t i = 0; i < 2 && p->ndies == 2; i++)
			f->state.wafer.dies[i] = (int)p->dies[i];
	}
	return 0;
}

static void lattice_release(void *params)
{
	free(((lattice_params *)params)->dims);
	free(((lattice_params *)params)->dies);
}

/* "(x,y,...)", cut to len like snprintf; digits by hand (links.csv names
 * a WSE-2's 754k PEs: snprintf was most of that) */
static void lattice_name(const fx_fabric *f, int64_t v, char *buf, size_t len)
{
	int x[FX_MAX_DIMS];
	char t[FX_MAX_DIMS * 12 + 2];
	size_t n = 0;
	fx_fabric_coords(f, v, x);
	for (int i = 0; i < f->ndims; i++) {
		t[n++] = i ? ',' : '(';
		char d[12];
		int k = 0;
		unsigned u = x[i] < 0 ? 0u - (unsigned)x[i] : (unsigned)x[i];
		do {
			d[k++] = (char)('0' + u % 10);
			u /= 10;
		} while (u);
		if (x[i] < 0)
			t[n++] = '-';
		while (k)
			t[n++] = d[--k];
	}
	t[n++] = ')';
	if (len == 0)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(buf, t, n);
	buf[n] = '\0';
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
	int x[FX_MAX_DIMS] = {0};  /* v's coordinates, counted up (no divisions) */
	for (int64_t v = 0; v < f->ndev; v++) {
		int64_t rank = 0;
		for (int j = n - 1; j >= 0; j--)
			rank = rank * f->dims[order[j]] + x[order[j]];
		side[v] = rank >= f->ndev / 2;
		for (int i = 0; i < f->ndims && ++x[i] == f->dims[i]; i++)
			x[i] = 0;
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

/* Every bundle alike (no dim_link, wrap_link or rack_link classes). */
static int uniform_links(const fx_fabric *f)
{
	for (int64_t e = 1; e < f->ne; e++)
		if (f->e[e].bw != f->e[0].bw || f->e[e].count != f->e[0].count)
			return 0;
	return 1;
}

/* Bandwidth of the plane cut across dimension i (k even): the links from
 * position k/2 - 1 to k/2 and, wrapping, from k - 1 to 0. */
static double plane_bw(const fx_fabric *f, int i)
{
	int x[FX_MAX_DIMS], k = f->dims[i];
	double bw = 0;
	for (int64_t v = 0; v < f->ndev; v++) {
		int64_t e = f->plus_edge[v * f->ndims + i];
		if (e < 0)
			continue;
		fx_fabric_coords(f, v, x);
		if (x[i] == k / 2 - 1 || x[i] == k - 1)
			bw += f->e[e].count * f->e[e].bw;
	}
	return bw;
}

/* With link classes (dim_link, wrap_link, rack_link) the plane across an
 * even dimension of least bandwidth; -1 when no dimension is even. */
static int least_plane(const fx_fabric *f, uint8_t *side)
{
	int best = -1;
	double bb = 0;
	for (int i = 0; i < f->ndims; i++) {
		if (f->dims[i] % 2)
			continue;
		double c = plane_bw(f, i);
		if (best < 0 || c < bb) {
			best = i;
			bb = c;
		}
	}
	int x[FX_MAX_DIMS];
	for (int64_t v = 0; best >= 0 && v < f->ndev; v++) {
		fx_fabric_coords(f, v, x);
		side[v] = x[best] >= f->dims[best] / 2;
	}
	return best;
}

/* 1: side is a proven bisection; 2: side is the best staircase (or, with
 * link classes, the least-bandwidth plane), a bound. */
static int lattice_halves(const fx_fabric *f, uint8_t *side)
{
	if (f->ndev < 2 || f->ne == 0)
		return 0;
	if (!uniform_links(f) && least_plane(f, side) >= 0)
		return 2;
	int64_t cut = best_staircase(f, side);
	return cut >= 0 && cut == lattice_lower(f) ? 1 : 2;
}

/* The proven bisection (the lower bound, met by a staircase), or -1. */
static double lattice_bisection(const fx_fabric *f, double *links)
{
	if (f->ndev < 2 || f->ne == 0 || !uniform_links(f))
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
/* The last extent of node_shape or rack_shape (1 when absent): a slab
 * must hold whole nodes and racks. */
static int64_t shape_step(const fx_snode *fab, const char *key, int last)
{
	const fx_snode *s = fx_snode_get(fab, key);
	int64_t v = 1;
	if (s && s->kind == FX_SNODE_SEQ && (size_t)last < s->n && s->items[last]->text)
		v = strtoll(s->items[last]->text, NULL, 10);
	return v > 0 ? v : 1;
}

static int64_t gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Shrinks by slabs along the last dimension, in steps that keep whole
 * racks (rack_shape), nodes (node_shape) and packaging nodes. */
static int lattice_shrink(const fx_fabric *f, const fx_snode *fab, int64_t max_devices, fx_shrink *out)
{
	int last = f->ndims - 1;
	int64_t plane = f->ndev / f->dims[last];
	int64_t step = shape_step(fab, "rack_shape", last), node = shape_step(fab, "node_shape", last);
	step = step / gcd64(step, node) * node;
	/* packaging nodes of `per` devices must fill the slabs */
	int64_t per = f->nnodes > 0 ? f->ndev / f->nnodes : 1;
	int64_t need = per / gcd64(per, plane * step);
	step *= need;
	int64_t slab = plane * step, k = max_devices / slab;
	if (step == 1)
		snprintf(out->rule, sizeof out->rule, "whole slabs of %lld devices along dimension %d",
			 (long long)slab, last);
	else
		snprintf(out->rule, sizeof out->rule, "whole slabs of %lld devices (%lld steps, whole "
			 "racks and nodes) along dimension %d", (long long)slab, (long long)step, last);
	k *= step;  /* steps along the last dimension */
	out->devices = k * plane;
	if (k == 0)
		return 0;
	char list[FX_MAX_DIMS * 12] = "";
	for (int i = 0; i <= last; i++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%lld", i ? "," : "",
			 (long long)(i == last ? k : f->dims[i]));
	fx_shrink_set(out, "fabric.%s=[%s]", fx_fabric_is(f, FX_KIND_WAFER) ? "grid" : "dims", list);
	return 0;
}

/* ---- symmetries (fx_builder.symmetries; fabric/orbit.c checks them) ---- */

/* perm[v]: device v with coordinate i taken from x[src[i]] (dimensions
 * of one extent), reflected where flip[i] and shifted by shift[i] (mod
 * the extent). */
static void lattice_perm(const fx_fabric *f, const int *src, const int *flip, const int *shift,
			 int64_t *perm)
{
	int x[FX_MAX_DIMS];
	for (int64_t v = 0; v < f->ndev; v++) {
		fx_fabric_coords(f, v, x);
		int64_t w = 0, st = 1;
		for (int i = 0; i < f->ndims; i++) {
			int k = f->dims[i], y = x[src[i]];
			if (flip[i])
				y = k - 1 - y;
			y = (y + shift[i]) % k;
			w += st * y;
			st *= k;
		}
		perm[v] = w;
	}
}

/* Shifts along wrapped dimensions by each divisor of the extent (the
 * shifts that keep a split or a placement are those by a multiple of
 * one of them), swaps of two dimensions of one
 * extent and wrap, and every product of reflections and half turns of
 * wrapped even dimensions (a split is often kept only by a product: a 2x7
 * mesh's by turning both axes).  Devices only: a fabric with OCS switches
 * offers nothing. */
static void lattice_symmetries(const fx_fabric *f, void (*offer)(void *ctx, const int64_t *perm),
			       void *ctx)
{
	int nd = f->ndims, src[FX_MAX_DIMS], flip[FX_MAX_DIMS] = {0}, shift[FX_MAX_DIMS] = {0};
	if (f->nv != f->ndev)
		return;
	int64_t *perm = fx_xmalloc((size_t)(f->nv + 1) * sizeof *perm);
	for (int i = 0; i < nd; i++)
		src[i] = i;
	for (int i = 0; i < nd; i++)
		for (int d = 1; f->wrap[i] && d < f->dims[i]; d++) {
			if (f->dims[i] % d)
				continue;
			shift[i] = d;
			lattice_perm(f, src, flip, shift, perm);
			offer(ctx, perm);
			shift[i] = 0;
		}
	for (int i = 0; i < nd; i++)
		for (int j = i + 1; j < nd; j++) {
			if (f->dims[i] != f->dims[j] || f->wrap[i] != f->wrap[j])
				continue;
			src[i] = j;
			src[j] = i;
			lattice_perm(f, src, flip, shift, perm);
			offer(ctx, perm);
			src[i] = i;
			src[j] = j;
		}
	int bits = nd <= 4 ? 2 * nd : nd;
	for (long m = 1; m < 1L << bits; m++) {
		int fine = 1;
		for (int i = 0; i < nd; i++) {
			flip[i] = (int)(m >> i & 1);
			shift[i] = 0;
			if (bits > nd && (m >> (nd + i) & 1)) {
				fine &= f->wrap[i] && f->dims[i] % 2 == 0;
				shift[i] = f->dims[i] / 2;
			}
		}
		if (!fine)
			continue;
		lattice_perm(f, src, flip, shift, perm);
		offer(ctx, perm);
	}
	free(perm);
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
	.symmetries = lattice_symmetries,
	.router = FX_ROUTER_DOR,
	.device_noun = "chip",
	.caps = FX_KIND_LATTICE,
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
	.symmetries = lattice_symmetries,
	.router = FX_ROUTER_DOR,
	.device_noun = "chip",
	.caps = FX_KIND_LATTICE | FX_KIND_MESH,
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
	.symmetries = lattice_symmetries,
	.router = FX_ROUTER_DOR,
	.device_noun = "PE",
	.caps = FX_KIND_LATTICE | FX_KIND_WAFER,
};
