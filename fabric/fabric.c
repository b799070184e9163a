/*
 * fx_fabric_build: spec -> registry builder -> igraph graph, plus the
 * packaging hierarchy and the port checks every kind shares.
 */
#include "fabric.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/limits.h"
#include "../core/units.h"
#include "../core/xalloc.h"

/* Rough bytes per vertex and per edge bundle of a built fabric, counting
 * igraph's indexes, our attribute arrays, and the working arrays of the
 * metrics (BFS state, the max-flow copy of the graph). */
#define BYTES_PER_VERTEX 160.0
#define BYTES_PER_EDGE 240.0

/* Prints nothing and frees igraph's temporaries; the caller sees the
 * error code and reports it with the spec's words. */
static void igraph_error_quiet(const char *reason, const char *file, int line, igraph_error_t err)
{
	(void)reason, (void)file, (void)line, (void)err;
	IGRAPH_FINALLY_FREE();
}

static void igraph_warning_quiet(const char *reason, const char *file, int line)
{
	(void)reason, (void)file, (void)line;
}

void fx_igraph_quiet(void)
{
	igraph_set_error_handler(igraph_error_quiet);
	igraph_set_warning_handler(igraph_warning_quiet);
}

const fx_builder *fx_builder_find(const char *kind)
{
	for (const fx_builder *const *b = fx_builders; *b; b++)
		if (strcmp((*b)->kind, kind) == 0)
			return *b;
	return NULL;
}

const char *fx_vtype_name(fx_vtype t)
{
	static const char *const n[] = {"device", "switch", "cpu"};
	return t <= FX_V_CPU ? n[t] : "?";
}

const char *fx_medium_name(fx_medium m)
{
	static const char *const n[] = {"copper", "optical", "silicon"};
	return m < FX_MEDIUMS ? n[m] : "?";
}

double fx_fabric_default_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGE_SIZE);
	if (pages <= 0 || psz <= 0)
		return FX_DEFAULT_MEMORY_FALLBACK;
	return FX_DEFAULT_MEMORY_SHARE * (double)pages * (double)psz;
}

int fx_fabric_built(const fx_fabric *f)
{
	return f && f->builder && f->v && f->nv > 0 && f->ndev > 0;
}

int64_t fx_fabric_links(const fx_fabric *f)
{
	if (!fx_fabric_built(f))
		return 0;
	int64_t n = 0;
	for (int64_t e = 0; e < f->ne; e++)
		n += f->e[e].count;
	return n;
}

int64_t fx_fabric_ports(const fx_fabric *f, int64_t v)
{
	if (!fx_fabric_built(f) || v < 0 || v >= f->nv)
		return -1;
	igraph_vector_int_t inc;
	int64_t n = 0;
	fx_igraph_alloc(igraph_vector_int_init(&inc, 0));
	if (igraph_incident(&f->g, &inc, v, IGRAPH_ALL) == IGRAPH_SUCCESS)
		for (igraph_integer_t i = 0; i < igraph_vector_int_size(&inc); i++)
			n += f->e[VECTOR(inc)[i]].count;
	igraph_vector_int_destroy(&inc);
	return n;
}

int64_t fx_fabric_full_mesh_links(const fx_fabric *f)
{
	return f->ndev * (f->ndev - 1) / 2;
}

void fx_fabric_role_stats(const fx_fabric *f, fx_role_stat rs[FX_MAX_ROLES])
{
	memset(rs, 0, FX_MAX_ROLES * sizeof *rs);
	igraph_vector_int_t inc;
	fx_igraph_alloc(igraph_vector_int_init(&inc, 0));
	for (int64_t v = 0; v < f->nv; v++) {
		int r = f->v[v].role;
		if (r < 0)
			continue;
		int64_t down = 0, up = 0;
		double dbw = 0, ubw = 0;
		fx_igraph_alloc(igraph_incident(&f->g, &inc, v, IGRAPH_ALL));
		for (igraph_integer_t i = 0; i < igraph_vector_int_size(&inc); i++) {
			int64_t e = VECTOR(inc)[i];
			int64_t u = fx_fabric_other(f, e, v);
			int lower = f->v[u].role < 0 || f->roles[f->v[u].role].tier < f->roles[r].tier;
			if (lower) {
				down += f->e[e].count;
				dbw += f->e[e].count * f->e[e].bw;
			} else {
				up += f->e[e].count;
				ubw += f->e[e].count * f->e[e].bw;
			}
		}
		fx_role_stat *s = &rs[r];
		int64_t p = down + up;
		if (s->chips == 0 || p < s->min_ports)
			s->min_ports = p;
		if (p >= s->max_ports) {
			s->max_ports = p;
			s->down = down;
			s->up = up;
			s->down_bw = dbw;
			s->up_bw = ubw;
		}
		s->chips++;
	}
	igraph_vector_int_destroy(&inc);
}

void fx_fabric_coords(const fx_fabric *f, int64_t v, int *x)
{
	for (int i = 0; i < f->ndims; i++) {
		x[i] = (int)(v % f->dims[i]);
		v /= f->dims[i];
	}
}

const char *fx_fabric_device_noun(const fx_fabric *f, char *buf, size_t len)
{
	char name[64];
	size_t k = 0;
	if (f->builder && f->builder->device_noun) {
		snprintf(buf, len, "%s", f->builder->device_noun);
		return buf;
	}
	fx_fabric_vertex_name(f, 0, name, sizeof name);
	while (name[k] >= 'a' && name[k] <= 'z')
		k++;
	if (k >= 2 && k <= 3 && k < len) {
		for (size_t i = 0; i < k; i++)
			buf[i] = (char)(name[i] - 'a' + 'A');
		buf[k] = '\0';
	} else {
		snprintf(buf, len, "device");
	}
	return buf;
}

const char *fx_fabric_vertex_name(const fx_fabric *f, int64_t v, char *buf, size_t len)
{
	if (!buf || !len)
		return "?";
	if (!fx_fabric_built(f) || v < 0 || v >= f->nv)
		snprintf(buf, len, "?");
	else if (f->names)
		snprintf(buf, len, "%s", f->names[v]);
	else if (f->builder && f->builder->vertex_name)
		f->builder->vertex_name(f, v, buf, len);
	else if (f->v[v].type == FX_V_SWITCH && f->v[v].role >= 0) {
		const fx_role *r = &f->roles[f->v[v].role];
		snprintf(buf, len, "%s.%lld", r->name, (long long)(f->v[v].index - r->first));
	} else
		snprintf(buf, len, "%s%d", fx_vtype_name((fx_vtype)f->v[v].type), f->v[v].index);
	return buf;
}

void fx_fabric_release(fx_fabric *f)
{
	if (f->builder)
		igraph_destroy(&f->g);
	if (f->names)
		for (int64_t v = 0; v < f->nv; v++)
			free(f->names[v]);
	free(f->names);
	if (f->groups)
		for (int64_t v = 0; v < f->nv; v++)
			free(f->groups[v]);
	free(f->groups);
	free(f->v);
	free(f->e);
	free(f->ends);
	free(f->plus_edge);
	free(f->name);
	free(f->vdown);
	free(f->edown);
	free(f->domain_of);
	memset(f, 0, sizeof *f);
}

/* Devices per builder-defined node (all nodes of a kind are equal), or -1
 * when the builder leaves grouping to `packaging`. */
static int64_t inherent_node_size(const fx_fabric *f)
{
	if (f->ndev == 0 || f->v[0].node < 0 || f->names)  /* custom nodes are free-form */
		return -1;
	int64_t c = 0;
	while (c < f->ndev && f->v[c].node == f->v[0].node)
		c++;
	return c;
}

/* The device-side neighbour of v with the lowest id, or -1. */
static int64_t first_device_neighbour(const fx_fabric *f, int64_t v)
{
	igraph_vector_int_t nb;
	int64_t best = -1;
	fx_igraph_alloc(igraph_vector_int_init(&nb, 0));
	if (igraph_neighbors(&f->g, &nb, v, IGRAPH_ALL) == IGRAPH_SUCCESS)
		for (igraph_integer_t i = 0; i < igraph_vector_int_size(&nb); i++) {
			int64_t u = VECTOR(nb)[i];
			if (u < f->ndev && (best < 0 || u < best))
				best = u;
		}
	igraph_vector_int_destroy(&nb);
	return best;
}

/*
 * packaging: how devices group into nodes (servers, trays, boards) and nodes
 * into racks.  Kinds with nodes of their own (nvswitch domains, UB nodes)
 * set them while wiring; `devices_per_node` may split those into smaller
 * trays (GB200 NVL72: one NVLink domain, 18 trays of 4 GPUs), and then the
 * domain's switches belong to no tray but stay in the domain's rack.
 */
static int packaging(fx_fabric *f, const fx_spec *spec, fx_diag *d)
{
	/* `switches` (switch racks) is read by the power model (power/config.c) */
	static const char *const keys[] = {"devices_per_node", "nodes_per_rack",
					   "nodes_per_power_domain", "switches", NULL};
	const fx_snode *p;
	int64_t dpn = 0, npr = 0;
	if (fx_spec_map(d, spec->root, "packaging", 0, &p))
		return -1;
	if (p && (fx_spec_keys(d, p, keys) ||
		  fx_spec_int_opt(d, p, "devices_per_node", 1, INT32_MAX, &dpn) ||
		  fx_spec_int_opt(d, p, "nodes_per_rack", 1, INT32_MAX, &npr) ||
		  fx_spec_int_opt(d, p, "nodes_per_power_domain", 1, INT32_MAX, &f->nodes_per_power)))
		return -1;

	int64_t inherent = inherent_node_size(f);
	int64_t unit = inherent > 0 ? inherent : f->ndev;
	if (f->names && dpn > 0)
		for (int64_t v = 0; v < f->ndev; v++)
			if (f->v[v].node >= 0)
				return fx_snode_error(d, fx_snode_get(p, "devices_per_node"),
						      "give either the custom nodes' 'node' keys or "
						      "'packaging.devices_per_node', not both");
	if (dpn > 0 && unit % dpn) {
		const fx_snode *n = fx_snode_get(p, "devices_per_node");
		return fx_snode_error(d, n, "'%s' (%lld) must divide the %lld devices of %s", n->path,
				      (long long)dpn, (long long)unit,
				      inherent > 0 ? "each of the fabric's nodes" : "the fabric");
	}
	/* builder nodes split into trays: domain k's first device, for the
	 * racks of the domain's switches (and CPUs not beside one device) */
	int64_t *domain_dev = NULL, ndomains = 0;
	if (dpn > 0 && dpn != inherent) {
		if (inherent > 0) {
			ndomains = f->ndev / inherent;
			domain_dev = fx_xmalloc((size_t)ndomains * sizeof *domain_dev);
			for (int64_t k = 0; k < ndomains; k++)
				domain_dev[k] = k * inherent;
		}
		for (int64_t v = 0; v < f->ndev; v++)
			f->v[v].node = (int32_t)(v / dpn);
		for (int64_t v = f->ndev; v < f->nv; v++) {
			int64_t u = f->v[v].type == FX_V_CPU ? first_device_neighbour(f, v) : -1;
			if (u >= 0) {
				f->v[v].node = f->v[u].node;
			} else if (f->v[v].node >= 0 && f->v[v].node < ndomains) {
				f->v[v].rack = (int32_t)(-2 - f->v[v].node);  /* domain, resolved below */
				f->v[v].node = -1;
			}
		}
	}
	int64_t maxnode = -1;
	for (int64_t v = 0; v < f->ndev; v++)
		if (f->v[v].node > maxnode)
			maxnode = f->v[v].node;
	f->nnodes = maxnode + 1;
	if (f->nnodes == 0) {
		/* no grouping at all: every device is its own node */
		for (int64_t v = 0; v < f->ndev; v++)
			f->v[v].node = (int32_t)v;
		f->nnodes = f->ndev;
	}
	/* nothing says otherwise: the kind's racks (a dragonfly's groups),
	 * else one rack */
	int64_t node_devices = f->nnodes > 0 ? f->ndev / f->nnodes : 0;
	if (npr == 0 && f->rack_devices > 0 && node_devices > 0 && f->rack_devices % node_devices == 0)
		npr = f->rack_devices / node_devices;
	if (npr == 0)
		npr = f->nnodes;
	/* racks given explicitly (custom nodes' rack keys) stand */
	for (int64_t v = 0; v < f->nv; v++) {
		fx_vertex *x = &f->v[v];
		if (x->rack >= 0)
			continue;
		if (x->rack <= -2 && domain_dev)
			x->rack = (int32_t)(f->v[domain_dev[-2 - x->rack]].node / npr);
		else if (x->node >= 0)
			x->rack = (int32_t)(x->node / npr);
		else
			x->rack = -1;
	}
	f->nracks = 0;
	for (int64_t v = 0; v < f->nv; v++)
		if (f->v[v].rack + 1 > f->nracks)
			f->nracks = f->v[v].rack + 1;
	free(domain_dev);
	return 0;
}

/* A wiring that needs more ports than a chip has is a spec error. */
static int check_ports(const fx_fabric *f, const fx_snode *fab, fx_diag *d)
{
	int64_t *worst = fx_xcalloc(FX_MAX_ROLES, sizeof *worst);
	int64_t *which = fx_xcalloc(FX_MAX_ROLES, sizeof *which);
	for (int64_t v = 0; v < f->nv; v++) {
		int r = f->v[v].role;
		if (r < 0)
			continue;
		int64_t p = fx_fabric_ports(f, v);
		if (p > worst[r]) {
			worst[r] = p;
			which[r] = v;
		}
	}
	int rc = 0;
	for (int r = 0; r < f->nroles; r++) {
		if (f->roles[r].radix <= 0 || worst[r] <= f->roles[r].radix)
			continue;
		const fx_snode *n = fx_snode_get(fab, f->roles[r].radix_key);
		char name[64];
		fx_fabric_vertex_name(f, which[r], name, sizeof name);
		fx_diag_error(d, n ? &n->loc : &fab->loc,
			      "wiring needs %lld ports on %s switch '%s' but '%s.%s' gives it %d",
			      (long long)worst[r], f->roles[r].name, name, fab->path,
			      f->roles[r].radix_key, f->roles[r].radix);
		rc = -1;
	}
	free(worst);
	free(which);
	return rc;
}

/* Whether f is a whole lattice: its vertices are the lattice's and every
 * position but a line's last has its + link, so the odometer order is a
 * path through all of them.  O(N D), where igraph's search over a WSE-2
 * took 0.1 s. */
static int lattice_whole(const fx_fabric *f)
{
	if (!f->plus_edge || f->ndims < 1 || f->nv != f->ndev)
		return 0;
	int x[FX_MAX_DIMS] = {0};
	for (int64_t v = 0; v < f->ndev; v++) {
		for (int i = 0; i < f->ndims; i++)
			if (x[i] + 1 < f->dims[i] && f->plus_edge[v * f->ndims + i] < 0)
				return 0;
		for (int i = 0; i < f->ndims && ++x[i] == f->dims[i]; i++)  /* odometer */
			x[i] = 0;
	}
	return 1;
}

/* Every device must reach every other, or hop counts and cuts mean nothing. */
static int check_connected(const fx_fabric *f, const fx_snode *fab, fx_diag *d)
{
	igraph_bool_t conn = 1;
	if (lattice_whole(f))
		return 0;
	if (f->nv > 1 && igraph_is_connected(&f->g, &conn, IGRAPH_WEAK) != IGRAPH_SUCCESS)
		return fx_diag_internal(d, "igraph could not check connectivity");
	if (conn)
		return 0;
	igraph_vector_int_t comp;
	fx_igraph_alloc(igraph_vector_int_init(&comp, 0));
	if (igraph_subcomponent(&f->g, &comp, 0, IGRAPH_ALL) != IGRAPH_SUCCESS) {
		igraph_vector_int_destroy(&comp);
		return fx_diag_internal(d, "igraph could not find the vertices connected to vertex 0");
	}
	uint8_t *in = fx_xcalloc((size_t)f->nv, 1);
	for (igraph_integer_t i = 0; i < igraph_vector_int_size(&comp); i++)
		in[VECTOR(comp)[i]] = 1;
	int64_t far = 0;
	while (far < f->nv && in[far])
		far++;
	char a[64], b[64];
	fx_fabric_vertex_name(f, 0, a, sizeof a);
	fx_fabric_vertex_name(f, far, b, sizeof b);
	free(in);
	igraph_vector_int_destroy(&comp);
	const fx_snode *links = fx_snode_get(fab, "links");
	if (links)
		return fx_snode_error(d, links, "'%s' leave the fabric disconnected: no path from '%s' "
				      "to '%s'", links->path, a, b);
	return fx_snode_error(d, fab, "the fabric is not connected: no path from '%s' to '%s'", a, b);
}

static void size_text(double bytes, char *buf, size_t len)
{
	fx_unit_format(bytes, FX_UNIT_SIZE, buf, len);
}

int fx_fabric_build(fx_fabric *f, const fx_spec *spec, double max_bytes, fx_diag *d)
{
	const fx_snode *fab;
	const char *kind;
	char name[256];
	if (!f)
		return fx_diag_error(d, NULL, "fx_fabric_build: no fabric to build into");
	memset(f, 0, sizeof *f);
	if (!spec || !spec->root)
		return fx_diag_error(d, NULL, "fx_fabric_build: no spec (NULL, or one that failed to load)");
	if (fx_spec_map(d, spec->root, "fabric", 1, &fab) || fx_spec_str(d, fab, "kind", &kind))
		return -1;
	const fx_builder *b = fx_builder_find(kind);
	if (!b) {
		char list[256] = "";
		size_t used = 0;
		for (const fx_builder *const *x = fx_builders; *x; x++)
			used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
						 x == fx_builders ? "" : ", ", (*x)->kind);
		return fx_snode_error(d, fx_snode_get(fab, "kind"),
				      "'fabric.kind' names no fabric kind: '%s' (expected: %s)", kind, list);
	}

	void *params = fx_xcalloc(1, b->params_size);
	int rc = b->parse(d, fab, params);
	if (rc == 0) {
		fx_fabric_size sz = {0};
		b->size(params, &sz);
		double vs = (double)(sz.devices + sz.switches + sz.cpus);
		sz.bytes = vs * BYTES_PER_VERTEX + (double)sz.edges * BYTES_PER_EDGE;
		if (max_bytes > 0 && sz.bytes > max_bytes) {
			char need[32], have[32];
			size_text(sz.bytes, need, sizeof need);
			size_text(max_bytes, have, sizeof have);
			rc = fx_snode_error(d, fab,
					    "fabric too large: %.4g devices, %.4g switches and %.4g link bundles "
					    "need about %s of memory, over the limit of %s (see --max-memory)",
					    (double)sz.devices, (double)sz.switches, (double)sz.edges, need, have);
		}
	}
	if (rc == 0) {
		f->builder = b;
		f->max_bytes = max_bytes;
		f->name = fx_xstrdup(fx_spec_name(spec, name, sizeof name));
		rc = b->build(params, f, d);
		igraph_vector_int_t ev;
		igraph_vector_int_view(&ev, f->ends, 2 * f->ne);
		if (igraph_create(&f->g, &ev, f->nv, IGRAPH_UNDIRECTED) != IGRAPH_SUCCESS) {
			f->builder = NULL;  /* no graph to destroy */
			rc = fx_diag_internal(d, "igraph could not create the graph");
		}
	}
	if (rc == 0)
		rc = packaging(f, spec, d);
	if (rc == 0)
		rc = check_ports(f, fab, d);
	if (rc == 0)
		rc = check_connected(f, fab, d);
	if (b->release)
		b->release(params);
	free(params);
	if (rc)
		fx_fabric_release(f);
	return rc;
}
