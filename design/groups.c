/*
 * Groups of devices: the spec's `groups:` map of name -> selector
 * ("node=0-1", "x=0-3,y=0") or, on custom fabrics, the nodes' `group:`
 * keys.
 *
 * fx_design_groups_check() runs when the spec is loaded, once the fabric is
 * built: it checks every `groups:` selector and the ranks and groups of
 * `workload.collectives`, so every command rejects a bad spec at the value's
 * position instead of a later command blaming an option nobody gave.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "design_internal.h"

int64_t fx_design_group_devices(const fx_design *ds, const char *name, int64_t *r, fx_diag *d)
{
	if (!ds || !ds->have_fab || !fx_fabric_built(&ds->fab))
		return fx_diag_error(d, NULL, "fx_design_group_devices: no design loaded");
	if (!name || !r)
		return fx_diag_error(d, NULL, "fx_design_group_devices: no %s", name ? "array for the devices"
				     : "group name");
	const fx_fabric *f = &ds->fab;
	const fx_snode *g = fx_snode_get(ds->spec.root, "groups");
	const fx_snode *sel = g && g->kind == FX_SNODE_MAP ? fx_snode_get(g, name) : NULL;
	int64_t k = 0;
	if (sel && sel->kind == FX_SNODE_SCALAR) {
		uint8_t *m = fx_xcalloc((size_t)f->nv, 1);
		int rc = fx_fabric_select_node(f, sel, m, d);
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
static int workload_check(const fx_design *ds, int groups_ok, fx_diag *d)
{
	const fx_snode *w = fx_snode_get(ds->spec.root, "workload");
	const fx_snode *l = w && w->kind == FX_SNODE_MAP ? fx_snode_get(w, "collectives") : NULL;
	if (!l || l->kind != FX_SNODE_SEQ || l->n != ds->nwl)
		return 0;
	const fx_fabric *f = &ds->fab;
	int64_t *r = fx_xmalloc((size_t)(f->ndev ? f->ndev : 1) * sizeof *r);
	int rc = 0;
	for (size_t i = 0; i < ds->nwl; i++) {
		const fx_wl_coll *wc = &ds->wl[i];
		const fx_snode *n = l->items[i];
		if (wc->nranks > f->ndev) {
			const fx_snode *rn = fx_snode_get(n, "ranks");
			rc = fx_snode_error(d, rn, "'%s' must be between 1 and %lld (the fabric's "
					    "devices), got %lld", rn->path, (long long)f->ndev,
					    (long long)wc->nranks);
		}
		if (wc->group && groups_ok && fx_design_group_devices(ds, wc->group, r, d) == 0) {
			const fx_snode *gn = fx_snode_get(n, "group");
			rc = fx_snode_error(d, gn, "'%s' names no group with devices: '%s' "
					    "(define it under 'groups:'; see docs/spec.md)", gn->path,
					    wc->group);
		}
	}
	free(r);
	return rc;
}

int fx_design_groups_check(const fx_design *ds, fx_diag *d)
{
	const fx_snode *g;
	if (fx_spec_map(d, ds->spec.root, "groups", 0, &g))
		return -1;
	int rc = 0;
	uint8_t *sel = fx_xcalloc((size_t)ds->fab.nv, 1);
	for (size_t i = 0; g && i < g->n; i++) {
		const fx_snode *n = g->items[i];
		const char *expr;
		if (fx_snode_str(d, n, &expr)) {
			rc = -1;
			continue;
		}
		if (fx_fabric_select_node(&ds->fab, n, sel, d)) {
			rc = -1;
			continue;
		}
		int64_t ndev = 0;
		for (int64_t v = 0; v < ds->fab.ndev; v++)
			ndev += sel[v];
		if (ndev == 0)
			rc = fx_snode_error(d, n, "'%s' selects no devices, only switches or CPUs "
					    "(a group is a set of devices)", n->path);
	}
	free(sel);
	return workload_check(ds, rc == 0, d) | rc;
}
