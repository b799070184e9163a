/*
 * The power report: what a power budget buys on a fabric (book Eq. 6-11
 * and §6.5.2) — devices, nodes, compute and network racks with their
 * power and cooling — and what limits it (report/report.h).
 */
#include <string.h>

#include "report.h"

/* A power figure: watts with a power model, else null shown as n/a
 * (never 0 W). */
static void watts(fx_table *t, const char *field, const char *label, int present, double w)
{
	if (present)
		fx_record_num(t, field, label, FX_F_WATTS, w);
	else
		fx_record_null(t, field, label, FX_F_WATTS, "n/a");
}

static int summary_table(const fx_design *ds, const fx_power_config *pc, const fx_power_plan *p,
			 fx_sink *out, fx_diag *d)
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
	fx_record_int(t, "fabric_nodes", "nodes in the fabric", ds->fab.nnodes);
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
	return fx_sink_put(out, t, d);
}

static int rack_table(const fx_power_plan *p, fx_sink *out, fx_diag *d)
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
	return fx_sink_put(out, t, d);
}

int fx_report_power(const fx_design *ds, const fx_power_opts *o, fx_sink *out, fx_diag *d)
{
	fx_power_config pc = ds->power;
	fx_power_plan p;
	if (o && o->budget_W > 0)
		pc.budget = o->budget_W;
	if (o && o->rack_budget_W > 0)
		pc.rack_budget = o->rack_budget_W;
	if (fx_power_plan_build(&pc, &ds->fab, o && o->nodes > 0 ? o->nodes : -1, &p, d))
		return -1;
	int rc = summary_table(ds, &pc, &p, out, d);
	rc |= rack_table(&p, out, d);
	if (rc == 0 && p.over_budget) {
		fx_diag_infeasible(d, "over budget: the %lld-node build draws %.4g kW, %.4g kW over "
				   "the budget of %.4g kW", (long long)p.max_nodes, p.parts.total / 1e3,
				   p.over_watts / 1e3, p.budget / 1e3);
		rc = 1;
	}
	fx_power_plan_release(&p);
	return rc;
}
