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

static void kw_cell(fx_table *t, int present, double watts)
{
	if (present)
		fx_table_cell(t, "%.4g kW", watts / 1e3);
	else
		fx_table_cell(t, "n/a");
}

static void kw_json(fx_json *j, const char *key, int present, double watts)
{
	if (present)
		fx_json_num(j, key, watts / 1e3);
	else
		fx_json_null(j, key);
}

static int summary_table(fx_cli *c, const fx_power_config *pc, const fx_power_plan *p)
{
	fx_table *t = fx_table_new("power", "Power (book Eq. 6-11 and §6.5.2)",
				   (const char *[]){"metric", "value", NULL});
	fx_table_cell(t, "budget");
	if (!p->present)
		fx_table_cell(t, "n/a (no power model: the spec has no power: map)");
	else if (p->budget > 0)
		fx_table_cell(t, "%.4g kW", p->budget / 1e3);
	else
		fx_table_cell(t, "none");
	fx_table_cell(t, "per node, all in");
	if (p->present)
		fx_table_cell(t, "%.4g kW for %lld devices", p->node_watts / 1e3, (long long)p->devices_per_node);
	else
		fx_table_cell(t, "n/a for %lld devices", (long long)p->devices_per_node);
	fx_table_cell(t, "install increment"); fx_table_cell(t, "%lld node%s", (long long)pc->install_nodes,
							    pc->install_nodes > 1 ? "s" : "");
	/* a given build (--nodes) has its devices; otherwise the budget's most */
	fx_table_cell(t, "%s", strcmp(p->limited_by, "given") ? "most devices" : "devices");
	fx_table_cell(t, "%lld", (long long)p->max_devices);
	fx_table_cell(t, "nodes"); fx_table_cell(t, "%lld of %lld", (long long)p->max_nodes, (long long)c->design.fab.nnodes);
	fx_table_cell(t, "limited by"); fx_table_cell(t, "%s", fx_power_limit_text(p));
	if (p->over_budget) {
		fx_table_cell(t, "over budget");
		fx_table_cell(t, "by %.4g kW", p->over_watts / 1e3);
	}
	fx_table_cell(t, "power"); kw_cell(t, p->present, p->parts.total);
	fx_table_cell(t, "  nodes"); kw_cell(t, p->present, p->parts.nodes);
	fx_table_cell(t, "  switch chips outside nodes"); kw_cell(t, p->present, p->parts.switches);
	fx_table_cell(t, "  links (optics and copper)"); kw_cell(t, p->present, p->parts.links);
	fx_table_cell(t, "  extra switching tier"); kw_cell(t, p->present, p->parts.step);
	fx_table_cell(t, "  fixed (P0)"); kw_cell(t, p->present, p->parts.fixed);
	fx_table_cell(t, "racks");
	fx_table_cell(t, "%lld: %lld compute (%lld node%s each at most), %lld network", (long long)p->racks,
		      (long long)p->compute_racks, (long long)p->nodes_per_rack,
		      p->nodes_per_rack == 1 ? "" : "s", (long long)(p->racks - p->compute_racks));
	return fx_cli_table(c, t);
}

static int rack_table(fx_cli *c, const fx_power_plan *p)
{
	fx_table *t = fx_table_new("racks", "Racks (air cooled up to the air limit unless the spec "
				   "says otherwise)", (const char *[]){"rack", "type", "holds", "kW",
				   "cooling", NULL});
	for (int64_t r = 0; r < p->racks; r++) {
		const fx_power_rack *k = &p->rack[r];
		fx_table_cell(t, "%lld", (long long)k->rack);
		fx_table_cell(t, "%s", k->network ? "network" : "compute");
		if (k->network)
			fx_table_cell(t, "%lld %s chips", (long long)k->chips, k->role);
		else if (k->chips)
			fx_table_cell(t, "%lld nodes, %lld switch chips", (long long)k->nodes, (long long)k->chips);
		else
			fx_table_cell(t, "%lld node%s", (long long)k->nodes, k->nodes == 1 ? "" : "s");
		if (p->present) {
			fx_table_cell(t, "%.4g", k->watts / 1e3);
			fx_table_cell(t, "%s", fx_power_cooling_text(k));
		} else {
			fx_table_cell(t, "n/a");
			fx_table_cell(t, "n/a");
		}
	}
	return fx_cli_table(c, t);
}

static void plan_json(fx_json *j, const fx_power_plan *p)
{
	int m = p->present;
	fx_json_bool(j, "power_model", m);
	kw_json(j, "budget_kW", m && p->budget > 0, p->budget);
	fx_json_int(j, "max_devices", p->max_devices);
	fx_json_int(j, "nodes", p->max_nodes);
	fx_json_int(j, "racks", p->racks);
	fx_json_int(j, "compute_racks", p->compute_racks);
	fx_json_int(j, "network_racks", p->racks - p->compute_racks);
	kw_json(j, "power_kW", m, p->parts.total);
	if (m)
		fx_json_str(j, "limited_by", p->limited_by);
	else
		fx_json_null(j, "limited_by");
	fx_json_bool(j, "over_budget", p->over_budget);
	kw_json(j, "over_budget_kW", p->over_budget, p->over_watts);
	kw_json(j, "node_kW", m, p->node_watts);
	fx_json_int(j, "nodes_per_rack", p->nodes_per_rack);
	if (m) {
		fx_json_obj_begin(j, "parts_kW");
		fx_json_num(j, "nodes", p->parts.nodes / 1e3);
		fx_json_num(j, "switches", p->parts.switches / 1e3);
		fx_json_num(j, "links", p->parts.links / 1e3);
		fx_json_num(j, "infrastructure", p->parts.infra / 1e3);
		fx_json_num(j, "step", p->parts.step / 1e3);
		fx_json_num(j, "fixed", p->parts.fixed / 1e3);
		fx_json_obj_end(j);
	} else {
		fx_json_null(j, "parts_kW");
	}
	fx_json_arr_begin(j, "racks_detail");
	for (int64_t r = 0; r < p->racks; r++) {
		const fx_power_rack *k = &p->rack[r];
		fx_json_obj_begin(j, NULL);
		fx_json_int(j, "rack", k->rack);
		fx_json_str(j, "type", k->network ? "network" : "compute");
		fx_json_int(j, "nodes", k->nodes);
		if (k->network)
			fx_json_str(j, "role", k->role);
		fx_json_int(j, "switch_chips", k->chips);
		kw_json(j, "kW", m, k->watts);
		if (m)
			fx_json_str(j, "cooling", k->liquid ? "liquid" : "air");
		else
			fx_json_null(j, "cooling");
		fx_json_bool(j, "over_air_limit", m && k->over_air);
		fx_json_obj_end(j);
	}
	fx_json_arr_end(j);
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
	if (c->json)
		plan_json(&c->js, &p);
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
		rc = fx_cli_outdir(&c);
	if (rc == 0) {
		fx_cli_begin(&c);
		rc = fx_report_power(&c, fx_cli_opt(&c, "budget"), fx_cli_opt(&c, "rack-budget"),
				     fx_cli_opt(&c, "nodes"));
		fx_cli_end(&c);
		/* over budget: the JSON object is whole and still goes out */
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
