/*
 * custom: an explicit graph.
 *
 *   nodes: [{name, type: device|switch|cpu, group, node, rack, plane, ports}]
 *   links: [{a, b, count, bandwidth, latency, medium}]
 *   link:  {bandwidth, latency, medium}   # defaults for links that omit them
 *
 * Devices are renumbered first, in the order listed, then switches, then
 * CPUs.  `ports` is a switch's radix; a wiring that needs more is an error.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "fabric.h"

typedef struct cnode {
	const fx_snode *src;
	const char *name, *group;
	fx_vtype type;
	int64_t node, rack, plane, ports;
	int64_t id;        /* vertex id after renumbering */
	int64_t used;      /* ports used */
} cnode;

typedef struct clink {
	int64_t a, b;      /* indexes into nodes[] */
	int64_t count;
	fx_linkspec ls;
} clink;

typedef struct custom_params {
	cnode *nodes;
	size_t nn;
	clink *links;
	size_t nl;
	size_t *order;     /* node indexes sorted by name */
} custom_params;

static const custom_params *sort_ctx;

/* By name, then by place in the list (so the first of equal names leads). */
static int by_name(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(sort_ctx->nodes[i].name, sort_ctx->nodes[j].name);
	return c ? c : (i > j) - (i < j);
}

static int64_t lookup(const custom_params *p, const char *name)
{
	size_t lo = 0, hi = p->nn;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(p->nodes[p->order[mid]].name, name);
		if (c == 0)
			return (int64_t)p->order[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int parse_node(fx_diag *d, const fx_snode *n, cnode *c)
{
	static const char *const keys[] = {"name", "type", "group", "node", "rack", "plane",
					   "ports", NULL};
	static const char *const types[] = {"device", "switch", "cpu"};
	const char *type;
	if (n->kind != FX_SNODE_MAP)
		return fx_snode_error(d, n, "'%s' must be a map {name, type, ...}", n->path);
	int rc = fx_spec_keys(d, n, keys);
	rc |= fx_spec_str(d, n, "name", &c->name);
	rc |= fx_spec_str(d, n, "type", &type);
	if (rc)
		return -1;
	/* names are shown whole, in 64-byte buffers: refused, never cut */
	const char *why = fx_text_check(c->name);
	if (why || strlen(c->name) > 63)
		return fx_snode_error(d, fx_snode_get(n, "name"), "'%s.name' %s (a vertex name is 1 "
				      "to 63 bytes of printable UTF-8)", n->path,
				      why ? why : "is longer than 63 bytes");
	c->src = n;
	c->node = c->rack = c->plane = -1;
	c->group = NULL;
	int found = 0;
	for (int t = 0; t < 3; t++)
		if (strcmp(type, types[t]) == 0) {
			c->type = (fx_vtype)t;
			found = 1;
		}
	if (!found)
		return fx_snode_error(d, fx_snode_get(n, "type"), "'%s.type' must be device, switch "
				      "or cpu, got '%s'", n->path, type);
	rc |= fx_spec_str_opt(d, n, "group", &c->group);
	if (c->group && ((why = fx_text_check(c->group)) || strlen(c->group) > 63))
		rc |= fx_snode_error(d, fx_snode_get(n, "group"), "'%s.group' %s (a group name is 1 "
				     "to 63 bytes of printable UTF-8: drawings name boxes by it)",
				     n->path, why ? why : "is longer than 63 bytes");
	rc |= fx_spec_int_opt(d, n, "node", 0, INT32_MAX, &c->node);
	rc |= fx_spec_int_opt(d, n, "rack", 0, INT32_MAX, &c->rack);
	rc |= fx_spec_int_opt(d, n, "plane", 0, INT32_MAX, &c->plane);
	rc |= fx_spec_int_opt(d, n, "ports", 1, 1 << 20, &c->ports);
	if (c->ports && c->type != FX_V_SWITCH)
		rc |= fx_snode_error(d, fx_snode_get(n, "ports"), "'%s.ports' applies to switches only",
				     n->path);
	return rc;
}

static int parse_link(fx_diag *d, const fx_snode *n, const custom_params *p,
		      const fx_linkspec *dflt, int have_dflt, clink *l)
{
	static const char *const keys[] = {"a", "b", "count", "bandwidth", "latency", "medium", NULL};
	const char *a, *b;
	if (n->kind != FX_SNODE_MAP)
		return fx_snode_error(d, n, "'%s' must be a map {a, b, ...}", n->path);
	int rc = fx_spec_keys(d, n, keys);
	rc |= fx_spec_str(d, n, "a", &a);
	rc |= fx_spec_str(d, n, "b", &b);
	if (rc)
		return -1;
	l->a = lookup(p, a);
	l->b = lookup(p, b);
	if (l->a < 0)
		return fx_snode_error(d, fx_snode_get(n, "a"), "'%s.a' names no node: '%s'", n->path, a);
	if (l->b < 0)
		return fx_snode_error(d, fx_snode_get(n, "b"), "'%s.b' names no node: '%s'", n->path, b);
	if (l->a == l->b)
		return fx_snode_error(d, n, "'%s' links '%s' to itself", n->path, a);
	l->count = 1;
	rc |= fx_spec_int_opt(d, n, "count", 1, 1 << 20, &l->count);
	/* per-link values override the fabric-wide `link` defaults */
	l->ls = *dflt;
	if (fx_snode_get(n, "bandwidth") || !have_dflt)
		rc |= fx_spec_qty(d, n, "bandwidth", FX_UNIT_BANDWIDTH, 0, 1, &l->ls.bw);
	if (fx_snode_get(n, "latency") || !have_dflt)
		rc |= fx_spec_qty(d, n, "latency", FX_UNIT_TIME, 0, 0, &l->ls.lat);
	const fx_snode *m = fx_snode_get(n, "medium");
	if (m) {
		const char *s;
		static const char *const media[FX_MEDIUMS] = {"copper", "optical", "silicon"};
		int ok = 0;
		rc |= fx_snode_str(d, m, &s);
		for (int i = 0; !rc && i < FX_MEDIUMS; i++)
			if (strcmp(s, media[i]) == 0) {
				l->ls.medium = (fx_medium)i;
				ok = 1;
			}
		if (!rc && !ok)
			rc = fx_snode_error(d, m, "'%s' must be copper, optical or silicon, got '%s'",
					    m->path, s);
	}
	return rc;
}

static int parse(fx_diag *d, const fx_snode *fab, void *params)
{
	static const char *const keys[] = {"kind", "nodes", "links", "link", NULL};
	custom_params *p = params;
	const fx_snode *ns, *ls;
	fx_linkspec dflt = {0, 0, FX_MEDIUM_COPPER};
	int have_dflt = fx_snode_get(fab, "link") != NULL;
	if (fx_spec_keys(d, fab, keys) || fx_spec_seq(d, fab, "nodes", 1, &ns) ||
	    fx_spec_seq(d, fab, "links", 1, &ls))
		return -1;
	if (have_dflt && fx_linkspec_get(d, fab, "link", 1, &dflt))
		return -1;
	if (ns->n == 0)
		return fx_snode_error(d, ns, "'%s' must list at least one node", ns->path);
	p->nodes = fx_xcalloc(ns->n, sizeof *p->nodes);
	p->nn = ns->n;
	int rc = 0;
	for (size_t i = 0; i < ns->n; i++)
		rc |= parse_node(d, ns->items[i], &p->nodes[i]);
	if (rc)
		return -1;
	p->order = fx_xmalloc(p->nn * sizeof *p->order);
	for (size_t i = 0; i < p->nn; i++)
		p->order[i] = i;
	sort_ctx = p;
	qsort(p->order, p->nn, sizeof *p->order, by_name);
	for (size_t i = 1, first = 0; i < p->nn; i++) {
		if (strcmp(p->nodes[p->order[i]].name, p->nodes[p->order[first]].name) != 0) {
			first = i;
			continue;
		}
		const fx_snode *dup = fx_snode_get(p->nodes[p->order[i]].src, "name");
		rc |= fx_snode_error(d, dup, "'%s' is '%s', already the name of '%s'", dup->path,
				     dup->text, p->nodes[p->order[first]].src->path);
	}
	int64_t ndev = 0;
	for (size_t i = 0; i < p->nn; i++)
		ndev += p->nodes[i].type == FX_V_DEVICE;
	if (ndev == 0)
		rc |= fx_snode_error(d, ns, "'%s' has no node of type device", ns->path);
	if (rc)
		return -1;
	p->links = fx_xcalloc(ls->n ? ls->n : 1, sizeof *p->links);
	p->nl = ls->n;
	for (size_t i = 0; i < ls->n; i++)
		rc |= parse_link(d, ls->items[i], p, &dflt, have_dflt, &p->links[i]);
	if (rc)
		return -1;
	for (size_t i = 0; i < p->nl; i++) {
		p->nodes[p->links[i].a].used += p->links[i].count;
		p->nodes[p->links[i].b].used += p->links[i].count;
	}
	for (size_t i = 0; i < p->nn; i++) {
		const fx_snode *pn = fx_snode_get(p->nodes[i].src, "ports");
		if (p->nodes[i].ports && p->nodes[i].used > p->nodes[i].ports)
			rc |= fx_snode_error(d, pn, "wiring needs %lld ports on switch '%s' but '%s' "
					     "gives it %lld", (long long)p->nodes[i].used,
					     p->nodes[i].name, pn->path, (long long)p->nodes[i].ports);
	}
	return rc;
}

static void size(const void *params, fx_fabric_size *sz)
{
	const custom_params *p = params;
	for (size_t i = 0; i < p->nn; i++) {
		sz->devices += p->nodes[i].type == FX_V_DEVICE;
		sz->switches += p->nodes[i].type == FX_V_SWITCH;
		sz->cpus += p->nodes[i].type == FX_V_CPU;
	}
	sz->edges = (int64_t)p->nl;
}

static int build(const void *params, fx_fabric *f, fx_diag *d)
{
	custom_params *p = (custom_params *)params;
	(void)d;
	int rsw = fx_fb_role(f, "switch", 0, 1, "ports");
	f->names = fx_xcalloc(p->nn, sizeof *f->names);
	f->groups = fx_xcalloc(p->nn, sizeof *f->groups);
	for (int t = FX_V_DEVICE; t <= FX_V_CPU; t++)
		for (size_t i = 0; i < p->nn; i++) {
			cnode *c = &p->nodes[i];
			if ((int)c->type != t)
				continue;
			c->id = fx_fb_vertex(f, c->type, c->type == FX_V_SWITCH ? rsw : -1, c->node,
					     c->plane);
			f->v[c->id].rack = (int32_t)c->rack;
			f->names[c->id] = fx_xstrdup(c->name);
			f->groups[c->id] = c->group ? fx_xstrdup(c->group) : NULL;
		}
	for (size_t i = 0; i < p->nl; i++) {
		const clink *l = &p->links[i];
		fx_fb_link(f, p->nodes[l->a].id, p->nodes[l->b].id, &l->ls, (int)l->count, 0);
	}
	/* explicit graphs route on plain shortest paths: any vertex may relay
	 * (DGX-1's hybrid cube-mesh relays through GPUs) */
	f->devices_forward = 1;
	f->cpus_forward = 1;
	return 0;
}

static void release(void *params)
{
	custom_params *p = params;
	free(p->nodes);
	free(p->links);
	free(p->order);
}

const fx_builder fx_builder_custom = {
	"custom", "explicit graph of named devices, switches and cpus",
	sizeof(custom_params), parse, size, build, release, NULL, NULL, NULL,
};
