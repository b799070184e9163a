/*
 * Which devices take part in a command's collective: --ranks N (the first N
 * devices), --group NAME (a group the spec defines, design/groups.c), or
 * all devices.
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
		k = fx_design_group_devices(&c->design, group, r, &c->d);
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
