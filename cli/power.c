/*
 * fabricx power: what a power budget buys on this fabric — devices, nodes,
 * compute and network racks with their kW and cooling — and what limits
 * it.  Also explore's power section.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

/* --budget and --rack-budget override the spec's power map. */
static int overrides(fx_cli *c, fx_power_config *pc, const char *budget, const char *rack)
{
	*pc = c->design.power;
	if (budget && fx_cli_qty(c, "--budget", budget, FX_UNIT_POWER, &pc->budget))
		return -1;
	if (rack && fx_cli_qty(c, "--rack-budget", rack, FX_UNIT_POWER, &pc->rack_budget))
		return -1;
	if ((budget || rack) && !pc->present)
		return fx_diag_error(&c->d, NULL, "%s: '%s' has no power model (no 'power:' map), so "
				     "there is nothing to hold to a budget", budget ? "--budget" : "--rack-budget",
				     c->spec_path);
	return 0;
}

/* A power figure: watts with a power model, else null shown as n/a
 * (never 0 W). */
static void watts(fx_table *t, const char *field, const char *label, int present, double w)
{
	if (present)
		fx_record_num(t, field, label, FX_F_WATTS, w);
	else
		fx_record_null(t, field, label, FX_F_WATTS, "n/a");
}

static int summary_table(fx_cli *c, const fx_power_config *pc, const fx_power_plan *p)
{
	int m = p->present;
	fx_table *t = fx_record_new("power", "Power (book Eq. 6-11 and §6.5.2)", NULL);
	fx_record_bool(t, "power_model", "power model", m);
	if (!m)
		fx_record_null(t, "budget_W", "budget", FX_F_WATTS,
			       "n/a (no power model: the spec has no power: map)");
	else if (p->budget > 0)
		fx_record_num(t, "budget_W", "budget", FX_F_WATTS, p->budget);
	else
		fx_record_null(t, "budget_W", "budget", FX_F_WATTS, "none");
	watts(t, "node_W", "per node, all in", m, p->node_watts);
	fx_record_int(t, "devices_per_node", "devices per node", p->devices_per_node);
	fx_record_int(t, "install_nodes", "install increment (nodes)", pc->install_nodes);
	/* a given build (--nodes) has its devices; otherwise the budget's most */
	fx_record_int(t, "build_devices", strcmp(p->limited_by, "given") ? "most devices" : "devices",
		      p->max_devices);
	fx_record_int(t, "build_nodes", "nodes", p->max_nodes);
	fx_record_int(t, "fabric_nodes", "nodes in the fabric", c->design.fab.nnodes);
	if (m)
		fx_record_text(t, "limited_by", "limited by", "%s", p->limited_by);
	else
		fx_record_null(t, "limited_by", "limited by", FX_F_TEXT, "n/a");
	fx_record_text(t, "limit", "limit", "%s", fx_power_limit_text(p));
	fx_record_bool(t, "over_budget", "over budget", p->over_budget);
	if (p->over_budget)
		fx_record_num(t, "over_budget_W", "over budget by", FX_F_WATTS, p->over_watts);
	else
		fx_record_null(t, "over_budget_W", "over budget by", FX_F_WATTS, "-");
	watts(t, "power_W", "power", m, p->parts.total);
	/* what a design space ranks builds of different sizes by */
	watts(t, "power_per_device_W", "power per device", m && p->max_devices > 0,
	      p->parts.total / (double)(p->max_devices > 0 ? p->max_devices : 1));
	watts(t, "power_nodes_W", "  nodes", m, p->parts.nodes);
	watts(t, "power_switches_W", "  switch chips outside nodes", m, p->parts.switches);
	watts(t, "power_links_W", "  links (optics and copper)", m, p->parts.links);
	watts(t, "power_infrastructure_W", "  switch chips and links together", m, p->parts.infra);
	watts(t, "power_step_W", "  extra switching tier", m, p->parts.step);
	watts(t, "power_fixed_W", "  fixed (P0)", m, p->parts.fixed);
	fx_record_int(t, "racks", "racks", p->racks);
	fx_record_int(t, "compute_racks", "compute racks", p->compute_racks);
	fx_record_int(t, "network_racks", "network racks", p->racks - p->compute_racks);
	fx_record_int(t, "nodes_per_rack", "nodes per compute rack (at most)", p->nodes_per_rack);
	/* the cooling a build asks for, as counts a design space can bound */
	int64_t liquid = 0, over = 0;
	double hottest = 0;
	for (int64_t r = 0; r < p->racks; r++) {
		liquid += p->rack[r].liquid;
		over += p->rack[r].over_air;
		hottest = p->rack[r].watts > hottest ? p->rack[r].watts : hottest;
	}
	fx_record_int(t, "liquid_racks", "liquid-cooled racks", liquid);
	fx_record_int(t, "racks_over_air_limit", "air racks over the air limit", over);
	watts(t, "max_rack_W", "hottest rack", m && p->racks > 0, hottest);
	return fx_cli_table(c, t);
}

static int rack_table(fx_cli *c, const fx_power_plan *p)
{
	static const fx_col cols[] = {
		{"rack", "rack", FX_F_INT}, {"type", "type", FX_F_TEXT},
		{"nodes", "nodes", FX_F_INT}, {"switch_chips", "switch chips", FX_F_INT},
		{"role", "chip role", FX_F_TEXT}, {"power_W", "power", FX_F_WATTS},
		{"cooling", "cooling", FX_F_TEXT}, {"over_air_limit", "over the air limit", FX_F_BOOL},
		{NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("racks", "Racks (air cooled up to the air limit unless the spec "
				     "says otherwise)", cols);
	fx_table_json_key(t, "racks_detail");  /* "racks" is the count */
	for (int64_t r = 0; r < p->racks; r++) {
		const fx_power_rack *k = &p->rack[r];
		fx_table_int(t, k->rack);
		fx_table_cell(t, "%s", k->network ? "network" : "compute");
		fx_table_int(t, k->nodes);
		fx_table_int(t, k->chips);
		if (k->network)
			fx_table_cell(t, "%s", k->role);
		else
			fx_table_null(t, "-");
		if (p->present) {
			fx_table_num(t, k->watts);
			fx_table_cell(t, "%s", k->liquid ? "liquid" : "air");
		} else {
			fx_table_null(t, "n/a");
			fx_table_null(t, "n/a");
		}
		fx_table_bool(t, p->present && k->over_air);
	}
	return fx_cli_table(c, t);
}

/* Returns 0, -1 on error, or 1 when a given build (--nodes) is over the
 * budget: the report is complete and the caller says so (exit 3). */
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
		if (*end || n < 1 || n > c->design.fab.nnodes)
			return fx_diag_error(&c->d, NULL, "--nodes: expected 1 to %lld nodes, got '%s'",
					     (long long)c->design.fab.nnodes, nodes);
	}
	if (fx_power_plan_build(&pc, &c->design.fab, n, &p, &c->d))
		return -1;
	int rc = summary_table(c, &pc, &p);
	rc |= rack_table(c, &p);
	c->sum.power_kw = p.present ? p.parts.total / 1e3 : -1;
	snprintf(c->sum.limited_by, sizeof c->sum.limited_by, "%s%s",
		 strcmp(p.limited_by, "none") ? "limited by " : "", fx_power_limit_text(&p));
	if (rc == 0 && p.over_budget) {
		fx_diag_infeasible(&c->d, "over budget: the %lld-node build draws %.4g kW, %.4g kW over "
				   "the budget of %.4g kW", (long long)p.max_nodes, p.parts.total / 1e3,
				   p.over_watts / 1e3, p.budget / 1e3);
		rc = 1;
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
		rc = fx_cli_outdir_asked(&c);
	if (rc == 0) {
		fx_cli_begin(&c);
		rc = fx_report_power(&c, fx_cli_opt(&c, "budget"), fx_cli_opt(&c, "rack-budget"),
				     fx_cli_opt(&c, "nodes"));
		/* over budget: the report is whole and still goes out, with
		 * the error inside it */
		if (rc == 1 && c.json)
			fx_cli_json_error(&c, &c.js, "error");
		fx_cli_end(&c);
		if (rc == 1 && c.json_buf) {
			if (fclose(c.json_buf) == 0)
				fwrite(c.json_text, 1, c.json_len, stdout);
			free(c.json_text);
			c.json_buf = NULL;
		}
		rc = rc == 1 ? -1 : rc;
	}
	return fx_cli_finish(&c, rc);
}
