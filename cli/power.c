/*
 * fabricx power: what a power budget buys on this fabric — devices, nodes,
 * racks, kW, cooling per rack — and what limits it.  Also explore's power
 * section.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

/* --budget and --rack-budget override the spec's power map. */
static int overrides(fx_cli *c, fx_power_config *pc, const char *budget, const char *rack)
{
	*pc = c->power;
	if (budget && fx_cli_qty(c, "--budget", budget, FX_UNIT_POWER, &pc->budget))
		return -1;
	if (rack && fx_cli_qty(c, "--rack-budget", rack, FX_UNIT_POWER, &pc->rack_budget))
		return -1;
	return 0;
}

int fx_report_power(fx_cli *c, const char *budget, const char *rack, const char *nodes)
{
	fx_power_config pc;
	fx_power_plan p;
	int64_t n = -1;
	if (overrides(c, &pc, budget, rack))
		return -1;
	if (nodes) {
		char *end;
		n = strtoll(nodes, &end, 10);
		if (*end || n < 1 || n > c->fab.nnodes)
			return fx_diag_error(&c->d, NULL, "--nodes: expected 1 to %lld nodes, got '%s'",
					     (long long)c->fab.nnodes, nodes);
	}
	if (fx_power_plan_build(&pc, &c->fab, n, &p, &c->d))
		return -1;
	fx_table *t = fx_table_new("power", "Power (book Eq. 6-11 and §6.5.2)",
				   (const char *[]){"metric", "value", NULL});
	fx_table_cell(t, "budget");
	if (p.budget > 0)
		fx_table_cell(t, "%.4g kW", p.budget / 1e3);
	else
		fx_table_cell(t, "none (the build as specified)");
	fx_table_cell(t, "per node, all in"); fx_table_cell(t, "%.4g kW for %lld devices", p.node_watts / 1e3,
							   (long long)p.devices_per_node);
	fx_table_cell(t, "install increment"); fx_table_cell(t, "%lld node%s", (long long)pc.install_nodes,
							    pc.install_nodes > 1 ? "s" : "");
	fx_table_cell(t, "most devices"); fx_table_cell(t, "%lld", (long long)p.max_devices);
	fx_table_cell(t, "nodes"); fx_table_cell(t, "%lld of %lld", (long long)p.max_nodes, (long long)c->fab.nnodes);
	fx_table_cell(t, "limited by"); fx_table_cell(t, "%s", p.limited_by);
	fx_table_cell(t, "power"); fx_table_cell(t, "%.4g kW", p.parts.total / 1e3);
	fx_table_cell(t, "  nodes"); fx_table_cell(t, "%.4g kW", p.parts.nodes / 1e3);
	fx_table_cell(t, "  switches and links outside nodes"); fx_table_cell(t, "%.4g kW", p.parts.infra / 1e3);
	fx_table_cell(t, "  extra switching tier"); fx_table_cell(t, "%.4g kW", p.parts.step / 1e3);
	fx_table_cell(t, "  fixed (P0)"); fx_table_cell(t, "%.4g kW", p.parts.fixed / 1e3);
	fx_table_cell(t, "racks"); fx_table_cell(t, "%lld (%lld nodes each at most)", (long long)p.racks,
						 (long long)p.nodes_per_rack);
	int rc = fx_cli_table(c, t);
	c->sum.power_kw = p.parts.total / 1e3;
	snprintf(c->sum.limited_by, sizeof c->sum.limited_by, "%s", p.limited_by);
	t = fx_table_new("racks", "Racks (air cooled up to the air limit, liquid above)",
			 (const char *[]){"rack", "nodes", "kW", "cooling", NULL});
	for (int64_t r = 0; r < p.racks; r++) {
		fx_table_cell(t, "%lld", (long long)p.rack[r].rack);
		fx_table_cell(t, "%lld", (long long)p.rack[r].nodes);
		fx_table_cell(t, "%.4g", p.rack[r].watts / 1e3);
		fx_table_cell(t, "%s", p.rack[r].liquid ? "liquid" : "air");
	}
	rc |= fx_cli_table(c, t);
	if (c->json) {
		fx_json *j = &c->js;
		if (p.budget > 0)
			fx_json_num(j, "budget_kW", p.budget / 1e3);
		else
			fx_json_null(j, "budget_kW");
		fx_json_int(j, "max_devices", p.max_devices);
		fx_json_int(j, "nodes", p.max_nodes);
		fx_json_int(j, "racks", p.racks);
		fx_json_num(j, "power_kW", p.parts.total / 1e3);
		fx_json_str(j, "limited_by", p.limited_by);
		fx_json_num(j, "node_kW", p.node_watts / 1e3);
		fx_json_int(j, "nodes_per_rack", p.nodes_per_rack);
		fx_json_obj_begin(j, "parts_kW");
		fx_json_num(j, "nodes", p.parts.nodes / 1e3);
		fx_json_num(j, "infrastructure", p.parts.infra / 1e3);
		fx_json_num(j, "step", p.parts.step / 1e3);
		fx_json_num(j, "fixed", p.parts.fixed / 1e3);
		fx_json_obj_end(j);
		fx_json_arr_begin(j, "racks_detail");
		for (int64_t r = 0; r < p.racks; r++) {
			fx_json_obj_begin(j, NULL);
			fx_json_int(j, "rack", p.rack[r].rack);
			fx_json_int(j, "nodes", p.rack[r].nodes);
			fx_json_num(j, "kW", p.rack[r].watts / 1e3);
			fx_json_str(j, "cooling", p.rack[r].liquid ? "liquid" : "air");
			fx_json_obj_end(j);
		}
		fx_json_arr_end(j);
	}
	fx_power_plan_release(&p);
	return rc;
}

static const fx_opt power_opts[] = {
	{"budget", "P", "system power budget Pb, e.g. 120kW (default: the spec's power.budget)"},
	{"rack-budget", "P", "per-rack limit, e.g. 40kW (default: the spec's power.rack_budget)"},
	{"nodes", "N", "account for a build of N nodes instead of the largest that fits"},
	{NULL, NULL, NULL},
};

int fx_cmd_power(int argc, char **argv)
{
	fx_cli c;
	int rc = fx_cli_parse(&c, "power", "power SPEC [--budget P] [--rack-budget P] [--nodes N] [--json]",
			      power_opts, argc, argv);
	if (rc)
		return fx_cli_finish(&c, rc > 0 ? 0 : -1);
	rc = fx_cli_load(&c);
	if (rc == 0)
		rc = fx_cli_outdir(&c);
	if (rc == 0) {
		fx_cli_begin(&c);
		rc = fx_report_power(&c, fx_cli_opt(&c, "budget"), fx_cli_opt(&c, "rack-budget"),
				     fx_cli_opt(&c, "nodes"));
		fx_cli_end(&c);
	}
	return fx_cli_finish(&c, rc);
}
