/*
 * Which devices take part: --ranks N (the first N devices), --group NAME (a
 * group the spec defines), or all devices.  Groups come from the spec's
 * `groups:` map of name -> selector ("node=0-1", "x=0-3,y=0") or, on custom
 * fabrics, from the nodes' `group:` keys.
 *
 * fx_cli_groups_check() runs when the spec is loaded, once the fabric is
 * built: it checks every `groups:` selector and the ranks and groups of
 * `workload.collectives`, so every command rejects a bad spec at the value's
 * position instead of a later command blaming an option nobody gave.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "cli.h"

/* The devices of group `name` into r[] (device order); returns how many, 0
 * when the spec defines no such group, -1 after reporting a bad selector. */
static int64_t group_devices(fx_cli *c, const char *name, int64_t *r)
{
	const fx_fabric *f = &c->design.fab;
	const fx_snode *g = fx_snode_get(c->design.spec.root, "groups");
	const fx_snode *sel = g && g->kind == FX_SNODE_MAP ? fx_snode_get(g, name) : NULL;
	int64_t k = 0;
	if (sel && sel->kind == FX_SNODE_SCALAR) {
		uint8_t *m = fx_xcalloc((size_t)f->nv, 1);
		int rc = fx_fabric_select_node(f, sel, m, &c->d);
		for (int64_t v = 0; rc == 0 && v < f->ndev; v++)
			if (m[v])
				r[k++] = v;
		free(m);
		return rc ? -1 : k;
	}
	if (f->groups)
		for (int64_t v = 0; v < f->ndev; v++)
			if (f->groups[v] && strcmp(f->groups[v], name) == 0)
				r[k++] = v;
	return k;
}

/* workload.collectives: ranks within the fabric, groups that exist. */
static int workload_check(fx_cli *c, int groups_ok)
{
	const fx_snode *w = fx_snode_get(c->design.spec.root, "workload");
	const fx_snode *l = w && w->kind == FX_SNODE_MAP ? fx_snode_get(w, "collectives") : NULL;
	if (!l || l->kind != FX_SNODE_SEQ || l->n != c->design.nwl)
		return 0;
	const fx_fabric *f = &c->design.fab;
	int64_t *r = fx_xmalloc((size_t)(f->ndev ? f->ndev : 1) * sizeof *r);
	int rc = 0;
	for (size_t i = 0; i < c->design.nwl; i++) {
		const fx_wl_coll *wc = &c->design.wl[i];
		const fx_snode *n = l->items[i];
		if (wc->nranks > f->ndev) {
			const fx_snode *rn = fx_snode_get(n, "ranks");
			rc = fx_snode_error(&c->d, rn, "'%s' must be between 1 and %lld (the fabric's "
					    "devices), got %lld", rn->path, (long long)f->ndev,
					    (long long)wc->nranks);
		}
		if (wc->group && groups_ok && group_devices(c, wc->group, r) == 0) {
			const fx_snode *gn = fx_snode_get(n, "group");
			rc = fx_snode_error(&c->d, gn, "'%s' names no group with devices: '%s' "
					    "(define it under 'groups:'; see docs/spec.md)", gn->path,
					    wc->group);
		}
	}
	free(r);
	return rc;
}

int fx_cli_groups_check(fx_cli *c)
{
	const fx_snode *g;
	if (fx_spec_map(&c->d, c->design.spec.root, "groups", 0, &g))
		return -1;
	int rc = 0;
	uint8_t *sel = fx_xcalloc((size_t)c->design.fab.nv, 1);
	for (size_t i = 0; g && i < g->n; i++) {
		const fx_snode *n = g->items[i];
		const char *expr;
		if (fx_snode_str(&c->d, n, &expr)) {
			rc = -1;
			continue;
		}
		if (fx_fabric_select_node(&c->design.fab, n, sel, &c->d)) {
			rc = -1;
			continue;
		}
		int64_t ndev = 0;
		for (int64_t v = 0; v < c->design.fab.ndev; v++)
			ndev += sel[v];
		if (ndev == 0)
			rc = fx_snode_error(&c->d, n, "'%s' selects no devices, only switches or CPUs "
					    "(a group is a set of devices)", n->path);
	}
	free(sel);
	return workload_check(c, rc == 0) | rc;
}

int fx_cli_ranks(fx_cli *c, const char *nranks, const char *group, int64_t **out, int64_t *n)
{
	const fx_fabric *f = &c->design.fab;
	*out = NULL;
	*n = 0;
	if (nranks && group)
		return fx_diag_error(&c->d, NULL, "give --ranks or --group, not both");
	int64_t *r = fx_xmalloc((size_t)(f->ndev ? f->ndev : 1) * sizeof *r);
	int64_t k = 0;
	if (nranks) {
		char *end;
		long long v = strtoll(nranks, &end, 10);
		if (end == nranks || *end || v < 1 || v > f->ndev) {
			free(r);
			return fx_diag_error(&c->d, NULL, "--ranks: expected a number of ranks from 1 to %lld, "
					     "got '%s'", (long long)f->ndev, nranks);
		}
		for (k = 0; k < v; k++)
			r[k] = k;
	} else if (group) {
		k = group_devices(c, group, r);
		if (k <= 0) {
			free(r);
			if (k < 0)
				return -1;
			return fx_diag_error(&c->d, NULL, "--group: the spec defines no group '%s' with "
					     "devices (see 'groups:' in docs/spec.md)", group);
		}
	} else {
		for (k = 0; k < f->ndev; k++)
			r[k] = k;
	}
	*out = r;
	*n = k;
	return 0;
}
