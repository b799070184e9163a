/*
 * fabricx plan: the options of the plan report (fx_report_plan,
 * report/plan.c) and where its work runs (--jobs workers, MPI ranks:
 * cli/plan_run.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/units.h"
#include "../core/xalloc.h"
#include "cli.h"
#include "plan_run.h"
#include "report.h"
#include "space_run.h"

static const fx_opt plan_opts[] = {
	{"objective", "LIST", "latency, cost, rate, tokens-per-card, tokens-per-kw; several: a "
	 "Pareto front (default: plan.objective, else cost with a deadline and sessions, else "
	 "latency)"},
	{"deadline", "T", "the service deadline (default: workload.sessions.deadline)"},
	{"sessions", "N", "sessions to serve (default: workload.sessions.count)"},
	{"context", "N", "tokens of context per session (default: workload.sessions.context)"},
	{"power-cap", "P", "power budget for the nodes used (default: power.budget)"},
	{"tie", "U", "objectives this close are tied, e.g. 2% (default: plan.uncertainty)"},
	{"margin", "U", "runners-up within this of the best (default: plan.margin, 25%)"},
	{"limit", "N", "schemes considered at most; past it the best found, exit 4"},
	{"exhaustive", NULL, "evaluate every scheme in full (no pruning by bounds)"},
	{"jobs", "N", "worker processes (default 1)"},
	{"csv", "FILE", "every scheme evaluated in full, one CSV row each"},
	{"plot", "DIR", "gnuplot charts into DIR: the front, and each flip threshold"},
	{"no-flips", NULL, "skip the flip thresholds (each is a search of its own)"},
	{"vary", "PATH=V1,V2", "co-design: the build varies too (repeatable; as explore --vary)"},
	{"budget-points", "N", "co-design: evaluate at most N builds (a sample, then the front's "
	 "neighbours)"},
	{"seed", "N", "co-design: the sample's seed (default 1)"},
	{NULL, NULL, NULL},
};

/* fx_plan_runner_flips as the report's hook */
static long runner_flips(void *ctx, fx_plan_problem *p, const fx_plan_result *r, fx_plan_flip **out,
			 fx_diag *d)
{
	return fx_plan_runner_flips(ctx, p, r, out, d);
}

int fx_cli_plan(fx_cli *c, const fx_plan_opts *o)
{
	/* a degraded fabric is refused by the report before any file */
	if (o->plot && !fx_fabric_degraded(&c->design.fab) && fx_cli_mkdirs(o->plot))
		return fx_diag_error(&c->d, NULL, "--plot: cannot create '%s': %s", o->plot,
				     strerror(errno));
	fx_plan_runner run;
	if (fx_plan_runner_init(&run, o->jobs > 0 ? o->jobs : 1, &c->d))
		return -1;
	fx_plan_opts ro = *o;
	ro.exec = fx_plan_runner_exec(&run);
	ro.flips_run = runner_flips;
	ro.flips_ctx = &run;
	if (run.mpi_rank > 0) {  /* rank 0 reports; the others take their share */
		c->quiet = 1;
		c->json = 0;
		ro.follower = 1;
	}
	int rc = fx_report_plan(&c->design, &ro, fx_cli_sink(c), &c->d);
	fx_plan_runner_release(&run);
	return rc;
}

/* A fraction option: "2%" or 0.02, in [0, 1). */
static int frac_opt(fx_cli *c, const char *name, double *out)
{
	const char *v = fx_cli_opt(c, name);
	if (!v)
		return 0;
	char *end;
	double x = strtod(v, &end);
	if (end != v && *end == '%' && end[1] == '\0')
		x /= 100;
	else if (end == v || *end)
		x = NAN;
	if (!(x >= 0 && x < 1))
		return fx_diag_error(&c->d, NULL, "--%s: expected a fraction from 0 to below 1 (e.g. "
				     "0.02 or 2%%), got '%s'", name, v);
	*out = x;
	return 0;
}

static int read_opts(fx_cli *c, fx_plan_opts *o)
{
	const char *v;
	int rc = 0;
	memset(o, 0, sizeof *o);
	o->context = -1;
	o->tie = o->margin = -1;
	o->jobs = 1;
	o->flips = !fx_cli_opt(c, "no-flips");
	o->sensitivity = 1;
	o->objective = fx_cli_opt(c, "objective");
	o->csv = fx_cli_opt(c, "csv");
	o->plot = fx_cli_opt(c, "plot");
	o->exhaustive = fx_cli_opt(c, "exhaustive") != NULL;
	if ((v = fx_cli_opt(c, "deadline"))) {
		rc |= fx_cli_qty(c, "--deadline", v, FX_UNIT_TIME, &o->deadline);
		if (rc == 0 && !(o->deadline > 0))
			rc = fx_diag_error(&c->d, NULL, "--deadline: '%s' must be more than 0", v);
	}
	int64_t n;
	if ((v = fx_cli_opt(c, "sessions"))) {
		if (fx_cli_int(c, "--sessions", v, 1, 10000000, &n) == 0)
			o->sessions = n;
		else
			rc = -1;
	}
	if ((v = fx_cli_opt(c, "context"))) {
		if (fx_cli_int(c, "--context", v, 0, (int64_t)1 << 40, &n) == 0)
			o->context = n;
		else
			rc = -1;
	}
	rc |= fx_cli_qty_opt(c, "power-cap", FX_UNIT_POWER, &o->power_cap);
	rc |= frac_opt(c, "tie", &o->tie);
	rc |= frac_opt(c, "margin", &o->margin);
	if ((v = fx_cli_opt(c, "limit"))) {
		if (fx_cli_int(c, "--limit", v, 1, (int64_t)1 << 40, &n) == 0)
			o->limit = n;
		else
			rc = -1;
	}
	if ((v = fx_cli_opt(c, "jobs"))) {
		if (fx_cli_int(c, "--jobs", v, 1, 1024, &n) == 0)
			o->jobs = (int)n;
		else
			rc = -1;
	}
	return rc;
}

static int plan_run(fx_cli *c)
{
	int rc = fx_cli_load(c);
	fx_plan_opts o;
	if (rc == 0)
		rc = read_opts(c, &o);
	if (rc == 0) {
		/* the spec's plan and the options, checked before anything runs
		 * (the problem's own message says what is missing) */
		rc = fx_plan_check_opts(&c->design, &o, &c->d);
	}
	/* a space of builds: which build and which scheme (each point plans) */
	int handled = 0;
	if (rc == 0) {
		c->plan = &o;
		rc = fx_explore_space(c, 0, &handled);
		if (handled)
			return rc;
	}
	if (rc == 0)
		rc = fx_cli_outdir_asked(c);
	/* under MPI rank 0 reports; the others take their share, silent */
	int rank = 0, size = 1;
	if (rc == 0 && (rc = fx_space_mpi_begin(&rank, &size, &c->d)) == 0 && rank > 0) {
		c->quiet = 1;
		c->json = 0;
	}
	if (rc == 0) {
		fx_cli_begin(c);
		rc = fx_cli_plan(c, &o);
		/* a plan that stopped (exit 3 or 4) still stands: its tables and,
		 * with --json, the object with the error inside it */
		if (c->json && (c->d.status == FX_EXIT_INFEASIBLE || c->d.status == FX_EXIT_UNDECIDED))
			fx_cli_json_error(c, &c->js, "error");
		fx_cli_end(c);
		if (c->json && c->json_error_done && c->json_buf) {
			if (fclose(c->json_buf) == 0)
				fwrite(c->json_text, 1, c->json_len, stdout);
			free(c->json_text);
			c->json_text = NULL;
			c->json_buf = NULL;
		}
	}
	return rc;
}

const fx_command fx_command_plan = {
	.name = "plan",
	.summary = "the best partitioning and placement of the workload, and why",
	.usage = "plan SPEC [--objective LIST] [--deadline T] [--jobs N] "
		  "[--csv FILE] [--vary PATH=V1,V2] [--json]",
	.opts = plan_opts,
	.run = plan_run,
};
