/*
 * Which devices take part: --ranks N (the first N devices), --group NAME (a
 * group the spec defines), or all devices.  Groups come from the spec's
 * `groups:` map of name -> selector ("node=0-1", "x=0-3,y=0") or, on custom
 * fabrics, from the nodes' `group:` keys.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "cli.h"

int fx_cli_groups_check(fx_cli *c)
{
	const fx_snode *g;
	if (fx_spec_map(&c->d, c->spec.root, "groups", 0, &g))
		return -1;
	if (!g)
		return 0;
	int rc = 0;
	uint8_t *sel = fx_xcalloc((size_t)c->fab.nv, 1);
	for (size_t i = 0; i < g->n; i++) {
		const char *expr;
		if (fx_snode_str(&c->d, g->items[i], &expr)) {
			rc = -1;
			continue;
		}
		char where[160];
		snprintf(where, sizeof where, "%s:%d:%d: '%s'", c->spec_path, g->items[i]->loc.line,
			 g->items[i]->loc.col, g->items[i]->path);
		rc |= fx_fabric_select(&c->fab, expr, where, sel, &c->d);
	}
	free(sel);
	return rc;
}

int fx_cli_ranks(fx_cli *c, const char *nranks, const char *group, int64_t **out, int64_t *n)
{
	const fx_fabric *f = &c->fab;
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
		const fx_snode *g = fx_snode_get(c->spec.root, "groups");
		const fx_snode *sel = g ? fx_snode_get(g, group) : NULL;
		if (sel && sel->kind == FX_SNODE_SCALAR) {
			uint8_t *m = fx_xcalloc((size_t)f->nv, 1);
			if (fx_fabric_select(f, sel->text, "--group", m, &c->d) == 0)
				for (int64_t v = 0; v < f->ndev; v++)
					if (m[v])
						r[k++] = v;
			free(m);
		} else if (f->groups) {
			for (int64_t v = 0; v < f->ndev; v++)
				if (f->groups[v] && strcmp(f->groups[v], group) == 0)
					r[k++] = v;
		}
		if (k == 0) {
			free(r);
			if (c->d.nerr)
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
