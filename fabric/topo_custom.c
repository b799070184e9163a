/*
 * custom: an explicit graph.
 *
 *   nodes: [{name, type: device|switch|cpu, group, node, rack, plane, ports,
 *            role, tier}]
 *   links: [{a, b, count, bandwidth, latency, medium, cost}]
 *   link:  {bandwidth, latency, medium}   # defaults for links that omit them
 *
 * Devices are renumbered first, in the order listed, then switches, then
 * CPUs.  `ports` is a switch's radix; a wiring that needs more is an error.
 * A switch's `role` (e.g. leaf, spine, nvswitch; default "switch") and
 * `tier` (1 = nearest the devices; default 1) group switches as the
 * structured kinds do, so ports are reported per role and split into down
 * (towards lower tiers) and up.  Switches of one role share one tier.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/sort.h"
#include "../core/xalloc.h"
#include "fabric.h"

typedef struct cnode {
	const fx_snode *src;
	const char *name, *group, *role;
	int64_t tier;
	fx_vtype type;
	int64_t node, rack, plane, ports;
	int64_t id;        /* vertex id after renumbering */
	int64_t used;      /* ports used */
} cnode;

typedef struct clink {
	int64_t a, b;      /* indexes into nodes[] */
	int64_t count;
	int64_t cost;      /* routing weight, 1 .. 255 */
	fx_linkspec ls;
} clink;

typedef struct custom_params {
	cnode *nodes;
	size_t nn;
	clink *links;
	size_t nl;
	size_t *order;     /* node indexes sorted by name */
} custom_params;

/* By name, then by place in the list (so the first of equal names leads);
 * ctx: the custom_params. */
static int by_name(const void *a, const void *b, void *ctx)
{
	const custom_params *p = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(p->nodes[i].name, p->nodes[j].name);
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
					   "ports", "role", "tier", NULL};
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
	c->role = NULL;
	c->tier = 0;
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
	rc |= fx_spec_str_opt(d, n, "role", &c->role);
	rc |= fx_spec_int_opt(d, n, "tier", 1, 100, &c->tier);
	static const char *const sw_only[] = {"ports", "role", "tier"};
	for (int k = 0; k < 3; k++)
		if (fx_snode_get(n, sw_only[k]) && c->type != FX_V_SWITCH)
			rc |= fx_snode_error(d, fx_snode_get(n, sw_only[k]), "'%s.%s' applies to "
					     "switches only", n->path, sw_only[k]);
	return rc;
}

static int parse_link(fx_diag *d, const fx_snode *n, const custom_params *p,
		      const fx_linkspec *dflt, int have_dflt, clink *l)
{
	static const char *const keys[] = {"a", "b", "count", "bandwidth", "latency", "medium", "cost",
					   NULL};
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
	/* OSPF-style weight: ECMP over the least-cost paths (a dragonfly's
	 * global links costing more than two local ones keep routes minimal) */
	l->cost = 1;
	rc |= fx_spec_int_opt(d, n, "cost", 1, 255, &l->cost);
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

static const char *role_of(const cnode *c)
{
	return c->role ? c->role : "switch";
}

/* Switch roles: at most FX_MAX_ROLES, each with one tier; a switch without
 * a tier takes its role's (or 1). */
static int check_roles(fx_diag *d, custom_params *p)
{
	const char *names[FX_MAX_ROLES];
	int64_t tiers[FX_MAX_ROLES];
	const fx_snode *where[FX_MAX_ROLES];
	int nr = 0, rc = 0;
	for (size_t i = 0; i < p->nn; i++) {
		cnode *c = &p->nodes[i];
		if (c->type != FX_V_SWITCH)
			continue;
		int r = 0;
		while (r < nr && strcmp(names[r], role_of(c)) != 0)
			r++;
		if (r == nr) {
			if (nr == FX_MAX_ROLES)
				return fx_snode_error(d, fx_snode_get(c->src, "role"), "'%s.role': at most "
						      "%d switch roles, '%s' is one more", c->src->path,
						      FX_MAX_ROLES, role_of(c));
			names[nr] = role_of(c);
			tiers[nr] = 0;
			where[nr++] = c->src;
		}
		if (c->tier && tiers[r] && c->tier != tiers[r])
			rc |= fx_snode_error(d, fx_snode_get(c->src, "tier"), "'%s.tier' is %lld but role "
					     "'%s' is tier %lld at '%s'", c->src->path, (long long)c->tier,
					     names[r], (long long)tiers[r], where[r]->path);
		else if (c->tier && !tiers[r]) {
			tiers[r] = c->tier;
			where[r] = c->src;
		}
	}
	for (size_t i = 0; i < p->nn && rc == 0; i++) {
		cnode *c = &p->nodes[i];
		if (c->type != FX_V_SWITCH)
			continue;
		for (int r = 0; r < nr; r++)
			if (strcmp(names[r], role_of(c)) == 0)
				c->tier = tiers[r] ? tiers[r] : 1;
	}
	return rc;
}

/* The blocks a custom graph declares for capped builds (`increment: node`
 * or `group`): each vertex's block, in block order (packaging node
 * numbers; groups in order of first appearance), or -1 when it has none;
 * returns the number of blocks. */
static int64_t blocks_of(const fx_snode *ns, int by_group, int64_t *block)
{
	int64_t nb = 0;
	const char **names = fx_xcalloc(ns->n + 1, sizeof *names);
	for (size_t i = 0; i < ns->n; i++) {
		const fx_snode *n = ns->items[i];
		const fx_snode *k = fx_snode_get(n, by_group ? "group" : "node");
		block[i] = -1;
		if (!k || !k->text)
			continue;
		if (!by_group) {
			block[i] = strtoll(k->text, NULL, 10);
			if (block[i] + 1 > nb)
				nb = block[i] + 1;
			continue;
		}
		int64_t g = 0;
		while (g < nb && strcmp(names[g], k->text) != 0)
			g++;
		if (g == nb)
			names[nb++] = k->text;
		block[i] = g;
	}
	free(names);
	return nb;
}

/* `blocks: K` with `increment`: only the first K blocks are built (and
 * every vertex in none); links to what is left out go too. */
static int keep_blocks(fx_diag *d, const fx_snode *fab, const fx_snode *ns, custom_params *p)
{
	const fx_snode *inc = fx_snode_get(fab, "increment"), *bl = fx_snode_get(fab, "blocks");
	const char *how = NULL;
	int64_t keep = 0;
	if (inc && fx_snode_str(d, inc, &how))
		return -1;
	if (how && strcmp(how, "node") && strcmp(how, "group"))
		return fx_snode_error(d, inc, "'%s' must be node or group (the blocks a capped build "
				      "takes away), got '%s'", inc->path, how);
	if (bl && !inc)
		return fx_snode_error(d, bl, "'%s.blocks' needs '%s.increment' (node or group)",
				      fab->path, fab->path);
	if (!bl)
		return 0;
	if (fx_snode_int(d, bl, 1, INT32_MAX, &keep))
		return -1;
	int64_t *block = fx_xmalloc((ns->n + 1) * sizeof *block);
	int64_t nb = blocks_of(ns, how[0] == 'g', block);
	if (keep > nb) {
		free(block);
		return fx_snode_error(d, bl, "'%s' (%lld) is more than the %lld %s blocks", bl->path,
				      (long long)keep, (long long)nb, how);
	}
	int64_t *to = fx_xmalloc((p->nn + 1) * sizeof *to);
	size_t m = 0;
	for (size_t i = 0; i < p->nn; i++) {
		to[i] = block[i] < keep ? (int64_t)m : -1;
		if (to[i] >= 0)
			p->nodes[m++] = p->nodes[i];
	}
	p->nn = m;
	size_t ml = 0;
	for (size_t i = 0; i < p->nl; i++)
		if (to[p->links[i].a] >= 0 && to[p->links[i].b] >= 0) {
			p->links[ml] = p->links[i];
			p->links[ml].a = to[p->links[i].a];
			p->links[ml++].b = to[p->links[i].b];
		}
	p->nl = ml;
	free(to);
	free(block);
	int64_t ndev = 0;
	for (size_t i = 0; i < p->nn; i++)
		ndev += p->nodes[i].type == FX_V_DEVICE;
	if (ndev == 0)
		return fx_snode_error(d, bl, "'%s' (%lld) keeps no device", bl->path, (long long)keep);
	return 0;
}

static int parse(fx_diag *d, const fx_snode *fab, void *params)
{
	static const char *const keys[] = {"kind", "nodes", "links", "link", "increment", "blocks",
					   NULL};
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
	fx_sort_r(p->order, p->nn, sizeof *p->order, by_name, p);
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
	if (rc || keep_blocks(d, fab, ns, p))
		return -1;
	for (size_t i = 0; i < p->nl; i++) {
		p->nodes[p->links[i].a].used += p->links[i].count;
		p->nodes[p->links[i].b].used += p->links[i].count;
	}
	rc |= check_roles(d, p);
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
	/* roles in order of first appearance; a role's radix is its switches'
	 * `ports` when they all give the same, else unknown (0) */
	int *role = fx_xcalloc(p->nn, sizeof *role);
	for (size_t i = 0; i < p->nn; i++) {
		cnode *c = &p->nodes[i];
		if (c->type != FX_V_SWITCH)
			continue;
		int r = 0;
		while (r < f->nroles && strcmp(f->roles[r].name, role_of(c)) != 0)
			r++;
		if (r == f->nroles)
			fx_fb_role(f, role_of(c), (int)c->ports, (int)c->tier, "ports");
		else if (f->roles[r].radix != c->ports)
			f->roles[r].radix = 0;
		role[i] = r;
	}
	f->names = fx_xcalloc(p->nn, sizeof *f->names);
	f->groups = fx_xcalloc(p->nn, sizeof *f->groups);
	/* switches role by role, so each role's chips are numbered together */
	for (int t = FX_V_DEVICE; t <= FX_V_CPU; t++)
		for (int r = 0; r < (t == FX_V_SWITCH ? f->nroles : 1); r++)
		for (size_t i = 0; i < p->nn; i++) {
			cnode *c = &p->nodes[i];
			if ((int)c->type != t || (t == FX_V_SWITCH && role[i] != r))
				continue;
			c->id = fx_fb_vertex(f, c->type, c->type == FX_V_SWITCH ? role[i] : -1, c->node,
					     c->plane);
			f->v[c->id].rack = (int32_t)c->rack;
			f->names[c->id] = fx_xstrdup(c->name);
			f->groups[c->id] = c->group ? fx_xstrdup(c->group) : NULL;
		}
	free(role);
	for (size_t i = 0; i < p->nl; i++) {
		const cnode *a = &p->nodes[p->links[i].a], *b = &p->nodes[p->links[i].b];
		/* link class: 0 for device (and CPU) links, else the lower switch tier */
		int tier = a->type != FX_V_SWITCH || b->type != FX_V_SWITCH ? 0 :
			   (int)(a->tier < b->tier ? a->tier : b->tier);
		int64_t e = fx_fb_link(f, a->id, b->id, &p->links[i].ls, (int)p->links[i].count, tier);
		f->e[e].cost = (uint8_t)p->links[i].cost;
	}
	/* explicit graphs route on shortest paths (ECMP): any vertex may relay
	 * (DGX-1's hybrid cube-mesh relays through GPUs) */
	f->devices_forward = 1;
	f->cpus_forward = 1;
	return 0;
}

/* Shrinks by the blocks the spec declares (`increment`), the largest
 * first ones whose devices fit; without `increment`, it cannot. */
static int shrink(const fx_fabric *f, const fx_snode *fab, int64_t max_devices, fx_shrink *out)
{
	(void)f;
	const fx_snode *inc = fx_snode_get(fab, "increment"), *ns = fx_snode_get(fab, "nodes");
	if (!inc || !inc->text || !ns || ns->kind != FX_SNODE_SEQ) {
		snprintf(out->rule, sizeof out->rule, "a custom graph shrinks by the blocks it declares: "
			 "give 'fabric.increment' (node or group)");
		return -1;
	}
	int by_group = strcmp(inc->text, "group") == 0;
	int64_t *block = fx_xmalloc((ns->n + 1) * sizeof *block);
	int64_t nb = blocks_of(ns, by_group, block);
	int64_t *dev = fx_xcalloc((size_t)nb + 1, sizeof *dev);
	for (size_t i = 0; i < ns->n; i++) {
		const fx_snode *t = fx_snode_get(ns->items[i], "type");
		if (block[i] >= 0 && t && t->text && strcmp(t->text, "device") == 0)
			dev[block[i]]++;
	}
	if (nb == 0) {
		snprintf(out->rule, sizeof out->rule, "'fabric.increment' is %s, but no vertex has a "
			 "'%s' to make blocks of", inc->text, by_group ? "group" : "node");
		free(block);
		free(dev);
		return -1;
	}
	int64_t free_dev = f->ndev;  /* devices in no block stay */
	for (int64_t b = 0; b < nb; b++)
		free_dev -= dev[b];
	int64_t k = 0, n = free_dev;
	while (k < nb && n + dev[k] <= max_devices)
		n += dev[k++];
	snprintf(out->rule, sizeof out->rule, "whole %s blocks, in order (fabric.increment)",
		 by_group ? "group" : "node");
	out->devices = k > 0 ? n : 0;
	if (k > 0)
		fx_shrink_set(out, "fabric.blocks=%lld", (long long)k);
	free(block);
	free(dev);
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
	.kind = "custom",
	.summary = "explicit graph of named devices, switches and cpus",
	.params_size = sizeof(custom_params),
	.parse = parse,
	.size = size,
	.build = build,
	.release = release,
	.shrink = shrink,
	/* explicit graphs: ECMP over the same relay-aware shortest-path DAG,
	 * so a custom Clos or HGX routes like its structured twin */
	.router = FX_ROUTER_ECMP,
	/* devices are called what their names say (fx_fabric_device_noun) */
	.caps = FX_KIND_EXPLICIT,
};
