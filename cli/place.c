/*
 * fabricx place: the options of the placement report (fx_report_place,
 * report/place.c, which says what it computes): instances, power budgets,
 * --lp, solver limits, --fail-at.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/limits.h"
#include "../core/units.h"
#include "../core/xalloc.h"
#include "cli.h"
#include "report.h"

static const fx_opt place_opts[] = {
	{"instances", "N", "instances to place (default: the spec's workload.instances)"},
	{"budget", "P", "system power budget (default: the spec's power.budget)"},
	{"rack-budget", "P", "per-rack power budget (default: the spec's power.rack_budget)"},
	{"alpha", "T", "per-round overhead replacing spec overhead and path latency"},
	{"lp", "FILE", "write the MILP in CPLEX LP format (glpsol --lp FILE re-solves it)"},
	{"time-limit", "S", "seconds GLPK may search (default " FX_LIMIT_TEXT(FX_DEFAULT_TIME_LIMIT) ")"},
	{"node-limit", "N", "branch-and-bound nodes GLPK may search (default: no limit)"},
	FX_CLI_FAIL_OPT,
	{"fail-at", "T", "the deployment table again with a card failing at T (book §6.7.2)"},
	{"stall", "T", "how long the failed card's instance stops (default 40 ms)"},
	{"fail-card", "N", "which card of the node fails (default 0)"},
	{NULL, NULL, NULL},
};

static int place_run(fx_cli *c)
{
	int rc = fx_cli_load(c);
	fx_power_config pc;
	double limit = FX_DEFAULT_TIME_LIMIT;
	long node_limit = FX_DEFAULT_NODE_LIMIT;
	if (rc == 0) {
		pc = c->design.power;
		const char *v;
		if ((v = fx_cli_opt(c, "budget")))
			rc |= fx_cli_qty(c, "--budget", v, FX_UNIT_POWER, &pc.budget);
		if ((v = fx_cli_opt(c, "rack-budget")))
			rc |= fx_cli_qty(c, "--rack-budget", v, FX_UNIT_POWER, &pc.rack_budget);
		if ((v = fx_cli_opt(c, "alpha"))) {
			c->design.coll.alpha_replaces_latency = 1;
			rc |= fx_cli_qty(c, "--alpha", v, FX_UNIT_TIME, &c->design.coll.alpha);
		}
		if ((v = fx_cli_opt(c, "time-limit")) && fx_cli_time_limit(c, v, &limit))
			rc = -1;
		c->fault = (fx_fault){0, -1, 0.040};
		if ((v = fx_cli_opt(c, "fail-at")))
			rc |= fx_cli_qty(c, "--fail-at", v, FX_UNIT_TIME, &c->fault.at);
		if ((v = fx_cli_opt(c, "stall")))
			rc |= fx_cli_qty(c, "--stall", v, FX_UNIT_TIME, &c->fault.stall);
		if ((v = fx_cli_opt(c, "fail-card")) &&
		    fx_cli_int(c, "--fail-card", v, 0,
			       c->design.fab.nnodes > 0 ? c->design.fab.ndev / c->design.fab.nnodes - 1 : c->design.fab.ndev - 1,
			       &c->fault.card))
			rc = -1;
		if (c->fault.at < 0 && (fx_cli_opt(c, "stall") || fx_cli_opt(c, "fail-card")))
			rc = fx_diag_error(&c->d, NULL, "--stall and --fail-card need --fail-at");
		int64_t nl = 0;
		if ((v = fx_cli_opt(c, "node-limit")) &&
		    fx_cli_int(c, "--node-limit", v, 1, 1000000000, &nl))
			rc = -1;
		node_limit = (long)nl;
		if ((v = fx_cli_opt(c, "instances")) &&
		    fx_cli_int(c, "--instances", v, 1, 1000000, &c->design.work.instances))
			rc = -1;
		if (rc == 0 && !c->design.work.present && !c->design.njobs)
			rc = fx_diag_error(&c->d, NULL, "%s: the spec has no workload to place (add "
					   "'workload: {scheme: {tp: 2, ep: 4}, ...}'; see docs/spec.md)",
					   c->spec_path);
		else if (rc == 0 && !c->design.work.present &&
			 (fx_cli_opt(c, "lp") || fx_cli_opt(c, "instances") || c->fault.at >= 0))
			rc = fx_diag_error(&c->d, NULL, "%s: --lp, --instances and --fail-at place the "
					   "workload's instances, and the spec has only 'workload.jobs'",
					   c->spec_path);
	}
	if (rc == 0)
		rc = fx_cli_outdir_asked(c);
	if (rc == 0) {
		fx_cli_begin(c);
		fx_place_report_opts o = {.lp = fx_cli_opt(c, "lp"), .time_limit = limit,
					  .node_limit = node_limit, .power = &pc, .fault = &c->fault};
		if (c->design.work.present)
			rc = fx_report_place(&c->design, &o, fx_cli_sink(c), &c->d);
		/* several jobs: their interference and its placement (report/jobs.c) */
		if (rc == 0 && c->design.njobs) {
			fx_jobs_report_opts jo = {.time_limit = limit};
			rc = fx_report_jobs(&c->design, &jo, fx_cli_sink(c), &c->d);
		}
		fx_cli_end(c);
	}
	return rc;
}

const fx_command fx_command_place = {
	.name = "place",
	.summary = "where the workload's TP/EP groups go, proven or explained",
	.usage = "place SPEC [--instances N] [--budget P] [--lp FILE] [--json]",
	.opts = place_opts,
	.run = place_run,
};
