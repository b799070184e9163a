/*
 * fabricx power: what a power budget buys on this fabric — devices, nodes,
 * compute and network racks with their kW and cooling — and what limits
 * it (report/power.c).  Also explore's power section.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

/* --budget, --rack-budget and --nodes as numbers for fx_report_power. */
static int power_opts_of(fx_cli *c, fx_power_opts *o, const char *budget, const char *rack,
			 const char *nodes)
{
	*o = (fx_power_opts){0};
	if (budget && fx_cli_qty(c, "--budget", budget, FX_UNIT_POWER, &o->budget_W))
		return -1;
	if (rack && fx_cli_qty(c, "--rack-budget", rack, FX_UNIT_POWER, &o->rack_budget_W))
		return -1;
	if ((budget || rack) && !c->design.power.present)
		return fx_diag_error(&c->d, NULL, "%s: '%s' has no power model (no 'power:' map), so "
				     "there is nothing to hold to a budget", budget ? "--budget" : "--rack-budget",
				     c->spec_path);
	if (nodes) {
		char *end;
		o->nodes = strtoll(nodes, &end, 10);
		if (*end || o->nodes < 1 || o->nodes > c->design.fab.nnodes)
			return fx_diag_error(&c->d, NULL, "--nodes: expected 1 to %lld nodes, got '%s'",
					     (long long)c->design.fab.nnodes, nodes);
	}
	return 0;
}

static const fx_opt power_opts[] = {
	{"budget", "P", "system power budget Pb, e.g. 120kW (default: the spec's power.budget)"},
	{"rack-budget", "P", "per-rack limit, e.g. 40kW (default: the spec's power.rack_budget)"},
	{"nodes", "N", "account for a build of N nodes instead of the largest that fits"},
	{NULL, NULL, NULL},
};

static int power_run(fx_cli *c)
{
	int rc = fx_cli_load(c);
	if (rc == 0)
		rc = fx_cli_outdir_asked(c);
	if (rc == 0) {
		fx_cli_begin(c);
		fx_power_opts o;
		rc = power_opts_of(c, &o, fx_cli_opt(c, "budget"), fx_cli_opt(c, "rack-budget"),
				   fx_cli_opt(c, "nodes"));
		if (rc == 0)
			rc = fx_report_power(&c->design, &o, fx_cli_sink(c), &c->d);
		/* over budget: the report is whole and still goes out, with
		 * the error inside it */
		if (rc == 1 && c->json)
			fx_cli_json_error(c, &c->js, "error");
		fx_cli_end(c);
		if (rc == 1 && c->json_buf) {
			if (fclose(c->json_buf) == 0)
				fwrite(c->json_text, 1, c->json_len, stdout);
			free(c->json_text);
			c->json_buf = NULL;
		}
		rc = rc == 1 ? -1 : rc;
	}
	return rc;
}

const fx_command fx_command_power = {
	.name = "power",
	.summary = "what a power budget buys: devices, racks, cooling, the limit",
	.usage = "power SPEC [--budget P] [--rack-budget P] [--nodes N] [--json]",
	.opts = power_opts,
	.run = power_run,
};
