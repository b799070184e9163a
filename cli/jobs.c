/*
 * fabricx jobs SPEC: the jobs of `workload.jobs` on the fabric together,
 * their interference and the interference-aware placement
 * (report/jobs.c).  collective, place and explore add the same report
 * when the spec has jobs.
 */
#include "../core/limits.h"
#include "cli.h"
#include "report.h"

static const fx_opt opts[] = {
	{"time-limit", "S", "seconds GLPK may search for the placement (default "
	 FX_LIMIT_TEXT(FX_DEFAULT_TIME_LIMIT) ")"},
	{"no-place", NULL, "measure the spec's placement only"},
	FX_CLI_FAIL_OPT,
	{NULL, NULL, NULL},
};

static int jobs_run(fx_cli *c)
{
	int rc = 0;
	fx_jobs_report_opts o = {.time_limit = FX_DEFAULT_TIME_LIMIT,
				 .no_place = fx_cli_opt(c, "no-place") != NULL};
	const char *v;
	if ((v = fx_cli_opt(c, "time-limit")) && fx_cli_time_limit(c, v, &o.time_limit))
		return -1;
	rc = fx_cli_load(c);
	if (rc == 0 && !c->design.njobs)
		rc = fx_diag_error(&c->d, NULL, "%s gives no 'workload.jobs' (docs/spec.md §6c.2)",
				   c->spec_path);
	if (rc == 0)
		rc = fx_cli_outdir_asked(c);
	/* measured whole before anything is printed: a run that fails (no
	 * route on a degraded fabric, too few devices) prints no header */
	fx_sink cap;
	fx_sink_capture_init(&cap);
	if (rc == 0)
		rc = fx_report_jobs(&c->design, &o, &cap, &c->d);
	if (rc == 0) {
		fx_cli_begin(c);
		fx_sink *out = fx_cli_sink(c);
		for (size_t i = 0; i < fx_sink_count(&cap) && rc == 0; i++)
			rc = out->put(out, fx_sink_table(&cap, i), &c->d);
		fx_cli_end(c);
	}
	fx_sink_release(&cap);
	return rc;
}

const fx_command fx_command_jobs = {
	.name = "jobs",
	.summary = "several jobs sharing the fabric: their interference, and a placement without it",
	.usage = "jobs SPEC [--time-limit S] [--no-place] [--json]",
	.opts = opts,
	.run = jobs_run,
};
