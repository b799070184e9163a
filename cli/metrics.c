/*
 * fabricx metrics: counts, ports, hop counts and cut sets of a fabric
 * (report/metrics.c computes them).
 */
#include "cli.h"
#include "report.h"

static const fx_opt metrics_opts[] = {
	FX_CLI_FAIL_OPT,
	{"cut", "A:B", "also measure the cut between two vertex sets, e.g. node=0-23:rest, "
		       "x=0-1:x=2-3, rack=0:rack=1"},
	{NULL, NULL, NULL},
};

static int metrics_run(fx_cli *c)
{
	int rc = fx_cli_load(c);
	if (rc == 0)
		rc = fx_cli_outdir_asked(c);
	if (rc == 0) {
		fx_cli_begin(c);
		fx_metrics_opts o = {.cut = fx_cli_opt(c, "cut")};
		rc = fx_report_metrics(&c->design, &o, fx_cli_sink(c), &c->d);
		fx_cli_end(c);
	}
	return rc;
}

const fx_command fx_command_metrics = {
	.name = "metrics",
	.summary = "counts, ports, hop counts and cut sets",
	.usage = "metrics SPEC [--cut A:B] [--json] [--set KEY=VALUE]...",
	.opts = metrics_opts,
	.run = metrics_run,
};
