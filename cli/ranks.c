/*
 * --ranks N and --group NAME as the report's ranks take them
 * (fx_report_ranks in report/collectives.c).
 */
#include <stdlib.h>

#include "cli.h"
#include "report.h"

int fx_cli_ranks(fx_cli *c, const char *nranks, const char *group, int64_t **out, int64_t *n)
{
	*out = NULL;
	*n = 0;
	if (nranks && group)
		return fx_diag_error(&c->d, NULL, "give --ranks or --group, not both");
	long long v = 0;
	if (nranks) {
		char *end;
		v = strtoll(nranks, &end, 10);
		if (end == nranks || *end || v < 1 || v > c->design.fab.ndev)
			return fx_diag_error(&c->d, NULL, "--ranks: expected a number of ranks from 1 to %lld, "
					     "got '%s'", (long long)c->design.fab.ndev, nranks);
	}
	return fx_report_ranks(&c->design, v, group, out, n, &c->d);
}
