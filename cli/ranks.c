/*
 * Which devices take part in a command's collective: --ranks N (the first N
 * devices), --group NAME (a group the spec defines, design/groups.c), or
 * all devices.  On a degraded fabric (--fail, `failures:`) only the
 * devices it still joins take part (fx_fabric_reachable): the first N of
 * those, every one of them, and a group that names a failed or cut-off
 * device is refused (exit 3) rather than left to hang.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "cli.h"

int fx_cli_ranks(fx_cli *c, const char *nranks, const char *group, int64_t **out, int64_t *n)
{
	const fx_fabric *f = &c->design.fab;
	*out = NULL;
	*n = 0;
	if (nranks && group)
		return fx_diag_error(&c->d, NULL, "give --ranks or --group, not both");
	int64_t *r = fx_xmalloc((size_t)(f->ndev ? f->ndev : 1) * sizeof *r);
	int64_t k = 0;
	uint8_t *reach = fx_xmalloc((size_t)f->ndev + 1);
	int64_t live = fx_fabric_reachable(f, reach);
	if (nranks) {
		char *end;
		long long v = strtoll(nranks, &end, 10);
		if (end == nranks || *end || v < 1 || v > f->ndev) {
			free(r);
			free(reach);
			return fx_diag_error(&c->d, NULL, "--ranks: expected a number of ranks from 1 to %lld, "
					     "got '%s'", (long long)f->ndev, nranks);
		}
		if (v > live) {
			free(r);
			free(reach);
			return fx_diag_infeasible(&c->d, "--ranks %lld: the degraded fabric joins only %lld "
						  "of its %lld devices (the others failed or are cut off)",
						  v, (long long)live, (long long)f->ndev);
		}
		for (int64_t x = 0; x < f->ndev && k < v; x++)
			if (reach[x])
				r[k++] = x;
	} else if (group) {
		k = fx_design_group_devices(&c->design, group, r, &c->d);
		for (int64_t i = 0; i < k; i++)
			if (!reach[r[i]]) {
				char nm[64];
				fx_fabric_vertex_name(f, r[i], nm, sizeof nm);
				int up = fx_fabric_vertex_up(f, r[i]);
				free(r);
				free(reach);
				return fx_diag_infeasible(&c->d, "--group %s: its device '%s' %s", group, nm,
							  up ? "is cut off from the rest of the degraded fabric"
							     : "failed");
			}
		if (k <= 0) {
			free(reach);
			free(r);
			if (k < 0)
				return -1;
			return fx_diag_error(&c->d, NULL, "--group: the spec defines no group '%s' with "
					     "devices (see 'groups:' in docs/spec.md)", group);
		}
	} else {
		for (int64_t x = 0; x < f->ndev; x++)
			if (reach[x])
				r[k++] = x;
		if (k == 0) {
			free(r);
			free(reach);
			return fx_diag_infeasible(&c->d, "every one of the %lld devices failed: no rank "
						  "is left to run a collective", (long long)f->ndev);
		}
	}
	free(reach);
	*out = r;
	*n = k;
	return 0;
}
