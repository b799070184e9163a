/*
 * fabricx place: where the workload's instances and their TP/EP/PP/DP
 * groups go (GLPK MILP), each group's hops and collective time on its
 * placement, per-rack power, objective and bound; the §6.7 deployment
 * table when the workload gives an accelerator and sessions.  Also
 * explore's placement section.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/limits.h"
#include "../core/units.h"
#include "../core/xalloc.h"
#include "cli.h"
#include "report.h"

/* "0-7", "0-3,8-11": a sorted run-length view of device ids. */
static void ranges(const int64_t *v, int64_t n, char *buf, size_t len)
{
	int64_t *s = malloc((size_t)n * sizeof *s);
	memcpy(s, v, (size_t)n * sizeof *s);
	for (int64_t i = 1; i < n; i++)  /* insertion sort: instances are small */
		for (int64_t j = i; j > 0 && s[j - 1] > s[j]; j--) {
			int64_t t = s[j];
			s[j] = s[j - 1];
			s[j - 1] = t;
		}
	size_t used = 0;
	for (int64_t i = 0; i < n && used + 24 < len;) {
		int64_t j = i;
		while (j + 1 < n && s[j + 1] == s[j] + 1)
			j++;
		if (j > i)
			used += (size_t)snprintf(buf + used, len - used, "%s%lld-%lld", i ? "," : "",
						 (long long)s[i], (long long)s[j]);
		else
			used += (size_t)snprintf(buf + used, len - used, "%s%lld", i ? "," : "", (long long)s[i]);
		i = j + 1;
	}
	if (n == 0)
		snprintf(buf, len, "-");
	free(s);
}

/* T_AR(p): a ring allreduce over the first p devices, routed */
static double ring_time(int64_t p, double bytes, void *ctx)
{
	return fx_cli_coll_time(ctx, "allreduce", "ring", p, bytes);
}

/* §6.7.2: the deployments again with a card failing (--fail-at). */
static int fault_table(fx_cli *c, const fx_choice *ch, size_t n, int64_t devices,
		       const fx_fault *f)
{
	char b1[32], b2[32];
	char *title = fx_xasprintf("The same with card %lld failing at %s, its instance stalled %s "
				   "(book §6.7.2)", (long long)f->card,
				   fx_unit_format(f->at, FX_UNIT_TIME, b1, sizeof b1),
				   fx_unit_format(f->stall, FX_UNIT_TIME, b2, sizeof b2));
	fx_table *t = fx_table_new("choices_fault", title,
				   (const char *[]){"TP", "sessions done", "on time", "meets", "GPU-s",
						    "per on-time", "energy", NULL});
	free(title);
	double *done = fx_xmalloc((size_t)(c->design.sessions.count + 1) * sizeof *done);
	double node_w = c->design.power.node;
	if (c->json)
		fx_json_arr_begin(&c->js, "deployments_with_fault");
	for (size_t i = 0; i < n; i++) {
		if (!ch[i].fits)
			continue;
		fx_choice r;
		fx_model_choice_fault(&ch[i], &c->design.sessions, devices, f, &r, done);
		char list[256];
		size_t used = 0;
		for (int64_t k = 0; k < c->design.sessions.count && used + 16 < sizeof list; k++)
			used += (size_t)snprintf(list + used, sizeof list - used, "%s%.1f", k ? " / " : "",
						 done[k] * 1e3);
		if (c->design.sessions.count > 0 && used + 16 >= sizeof list)
			snprintf(list + used, sizeof list - used, " ...");
		fx_table_cell(t, "%lld", (long long)r.tp);
		fx_table_cell(t, "%s ms", list);
		fx_table_cell(t, "%lld of %lld", (long long)r.on_time, (long long)c->design.sessions.count);
		fx_table_cell(t, "%s", r.meets ? "yes" : "no");
		fx_table_cell(t, "%.3f", r.cost);
		fx_table_cell(t, isfinite(r.cost_per_on_time) ? "%.3f" : "-", r.cost_per_on_time);
		if (node_w > 0)
			fx_table_cell(t, "%.2f kJ", node_w * r.finish / 1e3);
		else
			fx_table_cell(t, "n/a");
		if (c->json) {
			fx_json_obj_begin(&c->js, NULL);
			fx_json_int(&c->js, "tp", r.tp);
			fx_json_arr_begin(&c->js, "finish_ms");
			for (int64_t k = 0; k < c->design.sessions.count; k++)
				fx_json_num(&c->js, NULL, done[k] * 1e3);
			fx_json_arr_end(&c->js);
			fx_json_int(&c->js, "on_time", r.on_time);
			fx_json_bool(&c->js, "meets", r.meets);
			fx_json_num(&c->js, "gpu_seconds", r.cost);
			fx_json_num(&c->js, "gpu_seconds_per_on_time", r.cost_per_on_time);
			if (node_w > 0)
				fx_json_num(&c->js, "energy_kJ", node_w * r.finish / 1e3);
			else
				fx_json_null(&c->js, "energy_kJ");
			fx_json_obj_end(&c->js);
		}
	}
	if (c->json)
		fx_json_arr_end(&c->js);
	free(done);
	return fx_cli_table(c, t);
}

/* §6.7.1-6.7.3: TP degree against instances for the workload's sessions. */
static int choices(fx_cli *c, const fx_fault *fault)
{
	if (!c->design.work.have_model || c->design.accel.hbm <= 0 || c->design.sessions.count <= 0)
		return 0;
	fx_choice ch[16];
	int64_t devices = c->design.fab.nnodes > 0 ? c->design.fab.ndev / c->design.fab.nnodes : c->design.fab.ndev;
	size_t n = fx_model_choices(&c->design.work.model, &c->design.accel, &c->design.sessions, devices, ring_time, c, ch, 16);
	fx_table *t = fx_table_new("choices", "Deployments of one node (book §6.7: TP degree against instances)",
				   (const char *[]){"TP", "instances", "capacity", "step", "session",
						    "last done", "on time", "meets", "GPU-s", "per on-time",
						    "energy", NULL});
	for (size_t i = 0; i < n; i++) {
		fx_table_cell(t, "%lld", (long long)ch[i].tp);
		fx_table_cell(t, "%lld", (long long)ch[i].instances);
		fx_table_cell(t, "%lld", (long long)ch[i].capacity);
		if (!ch[i].fits) {
			for (int k = 0; k < 8; k++)
				fx_table_cell(t, k == 0 ? "cannot fit" : "-");
			continue;
		}
		fx_table_cell(t, "%.2f ms", ch[i].step_time * 1e3);
		fx_table_cell(t, "%.1f ms", ch[i].session_time * 1e3);
		fx_table_cell(t, "%.1f ms", ch[i].finish * 1e3);
		fx_table_cell(t, "%lld of %lld", (long long)ch[i].on_time, (long long)c->design.sessions.count);
		fx_table_cell(t, "%s", ch[i].meets ? "yes" : "no");
		fx_table_cell(t, "%.3f", ch[i].cost);
		fx_table_cell(t, isfinite(ch[i].cost_per_on_time) ? "%.3f" : "-", ch[i].cost_per_on_time);
		/* energy: the node's power while the last session runs (§6.7.2) */
		if (c->design.power.node > 0)
			fx_table_cell(t, "%.2f kJ", c->design.power.node * ch[i].finish / 1e3);
		else
			fx_table_cell(t, "n/a");
	}
	if (c->json) {
		fx_json_arr_begin(&c->js, "deployments");
		for (size_t i = 0; i < n; i++) {
			fx_json_obj_begin(&c->js, NULL);
			fx_json_int(&c->js, "tp", ch[i].tp);
			fx_json_int(&c->js, "instances", ch[i].instances);
			fx_json_int(&c->js, "capacity", ch[i].capacity);
			fx_json_bool(&c->js, "fits", ch[i].fits);
			fx_json_num(&c->js, "step_ms", ch[i].step_time * 1e3);
			fx_json_num(&c->js, "session_ms", ch[i].session_time * 1e3);
			fx_json_num(&c->js, "finish_ms", ch[i].finish * 1e3);
			fx_json_int(&c->js, "on_time", ch[i].on_time);
			fx_json_bool(&c->js, "meets", ch[i].meets);
			fx_json_num(&c->js, "gpu_seconds", ch[i].cost);
			fx_json_num(&c->js, "gpu_seconds_per_on_time", ch[i].cost_per_on_time);
			if (c->design.power.node > 0 && ch[i].fits)
				fx_json_num(&c->js, "energy_kJ", c->design.power.node * ch[i].finish / 1e3);
			else
				fx_json_null(&c->js, "energy_kJ");
			fx_json_obj_end(&c->js);
		}
		fx_json_arr_end(&c->js);
	}
	int rc = fx_cli_table(c, t);
	if (rc == 0 && fault)
		rc = fault_table(c, ch, n, devices, fault);
	return rc;
}

int fx_report_place(fx_cli *c, const char *lp, double time_limit, long node_limit,
		    const fx_power_config *pc, fx_placement *keep)
{
	const fx_workload *w = &c->design.work;
	fx_place_opts o = {.lp_path = lp, .time_limit = time_limit, .node_limit = node_limit,
			     .tm = c->design.coll, .accel = c->design.accel.hbm > 0 ? &c->design.accel : NULL,
			     .sessions = &c->design.sessions, .failed = c->failed};
	fx_placement p;
	char b1[64], b2[32];
	if (fx_place(&c->design.fab, w, pc, &o, &p, &c->d))
		return -1;
	int64_t D = fx_workload_devices(w);
	fx_table *t = fx_table_new("placement", "Placement (instances on nodes)",
				   (const char *[]){"instance", "devices", "nodes", "racks", "level",
						    "tp hops/time", "ep hops/time", "pp hops/time",
						    "comm per step", NULL});
	for (int64_t i = 0; i < p.ninst; i++) {
		const fx_place_instance *pi = &p.inst[i];
		char dv[256];
		ranges(pi->devices, D, dv, sizeof dv);
		fx_table_cell(t, "%lld", (long long)i);
		fx_table_cell(t, "%s", dv);
		fx_table_cell(t, "%lld", (long long)pi->nodes);
		fx_table_cell(t, "%lld", (long long)pi->racks);
		fx_table_cell(t, "%s", fx_level_name(pi->level));
		for (int k = 0; k < 3; k++) {
			const fx_place_group *g = &pi->group[k];
			if (w->dims[k] < 2)
				fx_table_cell(t, "-");
			else
				fx_table_cell(t, "%lld / %.2f us", (long long)g->max_hops, g->time * 1e6);
		}
		fx_table_cell(t, "%.2f us", pi->comm_time * 1e6);
	}
	int rc = fx_cli_table(c, t);

	t = fx_table_new("place_summary", "Placement model", (const char *[]){"metric", "value", NULL});
	fx_table_cell(t, "scheme");
	fx_table_cell(t, "TP%lld x EP%lld x PP%lld x DP%lld = %lld devices per instance",
		      (long long)w->dims[0], (long long)w->dims[1], (long long)w->dims[2],
		      (long long)w->dims[3], (long long)D);
	fx_table_cell(t, "instances"); fx_table_cell(t, "%lld", (long long)w->instances);
	for (int L = 0; L < FX_LEVELS; L++) {
		fx_table_cell(t, "one instance within a %s", L == FX_LEVEL_ANY ? "system (across racks)" : fx_level_name((fx_level)L));
		if (p.level_ok[L])
			fx_table_cell(t, "%.3f us per step", p.level_cost[L] * 1e6);
		else
			fx_table_cell(t, "not possible here");
	}
	/* the objective is a sum over instances: say so, beside the mean */
	fx_table_cell(t, "objective");
	fx_table_cell(t, "%lld instances x %.2f us = %.6g us of communication per step, summed",
		      (long long)p.ninst, p.objective / (double)(p.ninst ? p.ninst : 1) * 1e6,
		      p.objective * 1e6);
	fx_table_cell(t, "bound");
	if (isnan(p.bound))
		fx_table_cell(t, "none proved");
	else
		fx_table_cell(t, "%.6g us (summed)", p.bound * 1e6);
	fx_table_cell(t, "gap");
	if (isnan(p.gap))
		fx_table_cell(t, "unknown (no bound proved)");
	else
		fx_table_cell(t, "%.2f%% (objective over the proved bound)", 100 * p.gap);
	fx_table_cell(t, "status"); fx_table_cell(t, "%s", p.status);
	fx_table_cell(t, "method"); fx_table_cell(t, "%s", p.method);
	fx_table_cell(t, "MILP");
	if (p.cols)
		fx_table_cell(t, "%lld columns, %lld rows", (long long)p.cols, (long long)p.rows);
	else
		fx_table_cell(t, "not needed");
	fx_table_cell(t, "solved in"); fx_table_cell(t, "%.3f s of CPU", p.solve_seconds);
	fx_table_cell(t, "nodes powered"); fx_table_cell(t, "%lld of %lld", (long long)p.nodes_used, (long long)c->design.fab.nnodes);
	if (p.nodes_failed) {
		fx_table_cell(t, "nodes left out");
		fx_table_cell(t, "%lld (holding failed devices, --fail)", (long long)p.nodes_failed);
	}
	fx_table_cell(t, "power"); fx_table_cell(t, "%.4g kW", p.watts / 1e3);
	fx_model_memory mm;
	if (w->have_model) {
		fx_model_memory_per_device(&w->model, w->dims[FX_GROUP_TP], w->dims[FX_GROUP_EP],
					   w->dims[FX_GROUP_PP], w->dims[FX_GROUP_DP], p.ninst,
					   c->design.accel.hbm > 0 ? &c->design.accel : NULL, &c->design.sessions, &mm);
		fx_table_cell(t, "weights per device");
		fx_table_cell(t, "%s", fx_unit_format(mm.weights, FX_UNIT_SIZE, b1, sizeof b1));
		fx_table_cell(t, "KV cache per device");
		fx_table_cell(t, "%s (%lld sessions of %lld tokens, its share)",
			      fx_unit_format(mm.kv, FX_UNIT_SIZE, b1, sizeof b1), (long long)mm.sessions,
			      (long long)mm.tokens);
		fx_table_cell(t, "memory per device");
		if (c->design.accel.hbm > 0) {
			char b3[32];
			fx_table_cell(t, "%s with the reserve, of %s HBM",
				      fx_unit_format(mm.total, FX_UNIT_SIZE, b1, sizeof b1),
				      fx_unit_format(c->design.accel.hbm, FX_UNIT_SIZE, b3, sizeof b3));
		} else {
			fx_table_cell(t, "%s (not checked: no workload.accelerator.hbm)",
				      fx_unit_format(mm.total, FX_UNIT_SIZE, b1, sizeof b1));
		}
		fx_table_cell(t, "sent per device per token per layer");
		fx_table_cell(t, "%s", fx_unit_format(fx_model_send_per_token(&w->model, w->dims[0], w->dims[1]),
						     FX_UNIT_SIZE, b2, sizeof b2));
	}
	rc |= fx_cli_table(c, t);

	t = fx_table_new("place_racks", "Racks in use", (const char *[]){"rack", "nodes", "kW", "cooling", NULL});
	for (int64_t r = 0; r < p.nracks; r++) {
		if (!p.rack[r].nodes_used)
			continue;
		fx_table_cell(t, "%lld", (long long)p.rack[r].rack);
		fx_table_cell(t, "%lld", (long long)p.rack[r].nodes_used);
		fx_table_cell(t, "%.4g", p.rack[r].watts / 1e3);
		fx_table_cell(t, "%s", p.rack[r].liquid ? "liquid" : "air");
	}
	rc |= fx_cli_table(c, t);

	if (c->json) {
		fx_json *j = &c->js;
		fx_json_str(j, "status", p.status);
		fx_json_str(j, "method", p.method);
		fx_json_num(j, "objective_us", p.objective * 1e6);
		fx_json_num(j, "objective_per_instance_us", p.objective / (double)(p.ninst ? p.ninst : 1) * 1e6);
		fx_json_num(j, "bound_us", p.bound * 1e6);
		fx_json_num(j, "gap", p.gap);
		if (w->have_model) {
			fx_json_obj_begin(j, "memory_per_device");
			fx_json_num(j, "weights_bytes", mm.weights);
			fx_json_num(j, "kv_bytes", mm.kv);
			fx_json_num(j, "reserve_bytes", mm.reserve);
			fx_json_num(j, "total_bytes", mm.total);
			if (c->design.accel.hbm > 0)
				fx_json_num(j, "hbm_bytes", c->design.accel.hbm);
			else
				fx_json_null(j, "hbm_bytes");
			fx_json_int(j, "sessions", mm.sessions);
			fx_json_obj_end(j);
		}
		fx_json_int(j, "devices_per_instance", D);
		fx_json_obj_begin(j, "level_cost_us");
		for (int L = 0; L < FX_LEVELS; L++) {
			if (p.level_ok[L])
				fx_json_num(j, fx_level_name((fx_level)L), p.level_cost[L] * 1e6);
			else
				fx_json_null(j, fx_level_name((fx_level)L));
		}
		fx_json_obj_end(j);
		fx_json_arr_begin(j, "instances");
		for (int64_t i = 0; i < p.ninst; i++) {
			const fx_place_instance *pi = &p.inst[i];
			fx_json_obj_begin(j, NULL);
			fx_json_int(j, "instance", i);
			fx_json_arr_begin(j, "devices");
			for (int64_t k = 0; k < D; k++)
				fx_json_int(j, NULL, pi->devices[k]);
			fx_json_arr_end(j);
			fx_json_int(j, "nodes", pi->nodes);
			fx_json_int(j, "racks", pi->racks);
			fx_json_str(j, "level", fx_level_name(pi->level));
			fx_json_num(j, "comm_us", pi->comm_time * 1e6);
			fx_json_arr_begin(j, "groups");
			for (int k = 0; k < FX_GROUP_KINDS; k++) {
				if (w->dims[k] < 2)
					continue;
				fx_json_obj_begin(j, NULL);
				fx_json_str(j, "kind", fx_group_kind_name((fx_group_kind)k));
				fx_json_str(j, "collective", w->traffic[k].pattern);
				fx_json_int(j, "members", pi->group[k].members);
				fx_json_int(j, "groups", pi->group[k].groups);
				fx_json_int(j, "max_hops", pi->group[k].max_hops);
				fx_json_num(j, "time_us", pi->group[k].time * 1e6);
				fx_json_obj_end(j);
			}
			fx_json_arr_end(j);
			fx_json_obj_end(j);
		}
		fx_json_arr_end(j);
		fx_json_int(j, "nodes_used", p.nodes_used);
		fx_json_int(j, "nodes_failed", p.nodes_failed);
		fx_json_num(j, "power_kW", p.watts / 1e3);
		fx_json_arr_begin(j, "racks");
		for (int64_t r = 0; r < p.nracks; r++) {
			if (!p.rack[r].nodes_used)
				continue;
			fx_json_obj_begin(j, NULL);
			fx_json_int(j, "rack", p.rack[r].rack);
			fx_json_int(j, "nodes", p.rack[r].nodes_used);
			fx_json_num(j, "kW", p.rack[r].watts / 1e3);
			fx_json_str(j, "cooling", p.rack[r].liquid ? "liquid" : "air");
			fx_json_obj_end(j);
		}
		fx_json_arr_end(j);
		fx_json_obj_begin(j, "model");
		fx_json_int(j, "columns", p.cols);
		fx_json_int(j, "rows", p.rows);
		fx_json_num(j, "solve_seconds", p.solve_seconds);
		fx_json_obj_end(j);
	}
	if (keep)
		*keep = p;
	else
		fx_placement_release(&p);
	if (rc == 0)
		rc = choices(c, c->fault.at >= 0 ? &c->fault : NULL);
	return rc;
}

static const fx_opt place_opts[] = {
	{"instances", "N", "instances to place (default: the spec's workload.instances)"},
	{"budget", "P", "system power budget (default: the spec's power.budget)"},
	{"rack-budget", "P", "per-rack power budget (default: the spec's power.rack_budget)"},
	{"alpha", "T", "per-round overhead replacing spec overhead and path latency"},
	{"lp", "FILE", "write the MILP in CPLEX LP format (glpsol --lp FILE re-solves it)"},
	{"time-limit", "S", "seconds GLPK may search (default " FX_LIMIT_TEXT(FX_DEFAULT_TIME_LIMIT) ")"},
	{"node-limit", "N", "branch-and-bound nodes GLPK may search (default: no limit)"},
	{"fail", "SEL", "failed vertices, a selector as --cut takes (repeatable): their nodes are left out"},
	{"fail-at", "T", "the deployment table again with a card failing at T (book §6.7.2)"},
	{"stall", "T", "how long the failed card's instance stops (default 40 ms)"},
	{"fail-card", "N", "which card of the node fails (default 0)"},
	{NULL, NULL, NULL},
};

int fx_cmd_place(int argc, char **argv)
{
	fx_cli c;
	int rc = fx_cli_parse(&c, "place", "place SPEC [--instances N] [--budget P] [--lp FILE] [--json]",
			      place_opts, argc, argv);
	if (rc)
		return fx_cli_finish(&c, rc > 0 ? 0 : -1);
	rc = fx_cli_load(&c);
	fx_power_config pc;
	double limit = FX_DEFAULT_TIME_LIMIT;
	long node_limit = FX_DEFAULT_NODE_LIMIT;
	if (rc == 0) {
		pc = c.design.power;
		const char *v;
		if ((v = fx_cli_opt(&c, "budget")))
			rc |= fx_cli_qty(&c, "--budget", v, FX_UNIT_POWER, &pc.budget);
		if ((v = fx_cli_opt(&c, "rack-budget")))
			rc |= fx_cli_qty(&c, "--rack-budget", v, FX_UNIT_POWER, &pc.rack_budget);
		if ((v = fx_cli_opt(&c, "alpha"))) {
			c.design.coll.alpha_replaces_latency = 1;
			rc |= fx_cli_qty(&c, "--alpha", v, FX_UNIT_TIME, &c.design.coll.alpha);
		}
		if ((v = fx_cli_opt(&c, "time-limit")) && fx_cli_time_limit(&c, v, &limit))
			rc = -1;
		c.fault = (fx_fault){0, -1, 0.040};
		if ((v = fx_cli_opt(&c, "fail-at")))
			rc |= fx_cli_qty(&c, "--fail-at", v, FX_UNIT_TIME, &c.fault.at);
		if ((v = fx_cli_opt(&c, "stall")))
			rc |= fx_cli_qty(&c, "--stall", v, FX_UNIT_TIME, &c.fault.stall);
		if ((v = fx_cli_opt(&c, "fail-card")) &&
		    fx_cli_int(&c, "--fail-card", v, 0,
			       c.design.fab.nnodes > 0 ? c.design.fab.ndev / c.design.fab.nnodes - 1 : c.design.fab.ndev - 1,
			       &c.fault.card))
			rc = -1;
		if (c.fault.at < 0 && (fx_cli_opt(&c, "stall") || fx_cli_opt(&c, "fail-card")))
			rc = fx_diag_error(&c.d, NULL, "--stall and --fail-card need --fail-at");
		const char *fails[64];
		int nf = fx_cli_opt_each(&c, "fail", fails, 64);
		if (nf > 0) {
			c.failed = fx_xcalloc((size_t)c.design.fab.nv + 1, 1);
			uint8_t *sel = fx_xcalloc((size_t)c.design.fab.nv + 1, 1);
			for (int i = 0; i < nf && i < 64 && rc == 0; i++) {
				memset(sel, 0, (size_t)c.design.fab.nv);
				rc = fx_fabric_select(&c.design.fab, fails[i], "--fail", sel, &c.d);
				for (int64_t u = 0; u < c.design.fab.nv; u++)
					c.failed[u] |= sel[u];
			}
			free(sel);
		}
		int64_t nl = 0;
		if ((v = fx_cli_opt(&c, "node-limit")) &&
		    fx_cli_int(&c, "--node-limit", v, 1, 1000000000, &nl))
			rc = -1;
		node_limit = (long)nl;
		if ((v = fx_cli_opt(&c, "instances")) &&
		    fx_cli_int(&c, "--instances", v, 1, 1000000, &c.design.work.instances))
			rc = -1;
		if (rc == 0 && !c.design.work.present)
			rc = fx_diag_error(&c.d, NULL, "%s: the spec has no workload to place (add "
					   "'workload: {scheme: {tp: 2, ep: 4}, ...}'; see docs/spec.md)",
					   c.spec_path);
	}
	if (rc == 0)
		rc = fx_cli_outdir(&c);
	if (rc == 0) {
		fx_cli_begin(&c);
		rc = fx_report_place(&c, fx_cli_opt(&c, "lp"), limit, node_limit, &pc, NULL);
		fx_cli_end(&c);
	}
	free(c.failed);
	c.failed = NULL;
	return fx_cli_finish(&c, rc);
}
