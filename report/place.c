/*
 * The placement report: where the workload's instances and their TP/EP/PP/DP
 * groups go (GLPK MILP), each group's hops and collective time on its
 * placement, per-rack power, objective and bound; the §6.7 deployment
 * table when the workload gives an accelerator and sessions.  fabricx
 * place and explore's placement section print it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/limits.h"
#include "../core/units.h"
#include "../core/xalloc.h"
#include "report.h"

/* One run: the design, where its tables and errors go. */
typedef struct rctx {
	const fx_design *ds;
	fx_sink *out;
	fx_diag *d;
} rctx;

/* T_AR(p): a ring allreduce over the first p devices, routed */
static double ring_time(int64_t p, double bytes, void *ctx)
{
	const rctx *c = ctx;
	fx_coll_result res;
	if (fx_report_coll_first(c->ds, "allreduce", "ring", p, bytes, NULL, &res, c->d))
		return NAN;
	double t = res.time;
	fx_coll_result_release(&res);
	return t;
}

/* Whether the TP reduction of the deployment table (the BF16 hidden
 * vector, fx_model_choices) over the first p devices is measured. */
static int tp_measured(rctx *c, int64_t p)
{
	if (!c->ds->coll.measured)
		return 0;
	const fx_model *m = &c->ds->work.model;
	fx_coll_result res;
	if (fx_report_coll_first(c->ds, "allreduce", "ring", p, (double)m->hidden * m->dtype_bytes,
				 NULL, &res, c->d))
		return 0;
	int meas = res.measured;
	fx_coll_result_release(&res);
	return meas;
}

/* Energy: the node's power while the last session runs (§6.7.2); n/a
 * without a node power. */
static void energy(fx_table *t, double node_w, double finish)
{
	if (node_w > 0)
		fx_table_num(t, node_w * finish);
	else
		fx_table_null(t, "n/a");
}

/* §6.7.2: the deployments again with a card failing (--fail-at). */
static int fault_table(rctx *c, const fx_choice *ch, size_t n, int64_t devices,
		       const fx_fault *f)
{
	static const fx_col cols[] = {
		{"tp", "TP", FX_F_INT}, {"finish_s", "sessions done", FX_F_SECONDS},
		{"on_time", "on time", FX_F_INT}, {"sessions", "of sessions", FX_F_INT},
		{"meets", "meets", FX_F_BOOL}, {"gpu_time_s", "GPU time", FX_F_GPU_SECONDS},
		{"gpu_time_per_on_time_s", "per on-time", FX_F_GPU_SECONDS},
		{"energy_J", "energy", FX_F_JOULES}, {NULL, NULL, 0},
	};
	char b1[32], b2[32];
	char *title = fx_xasprintf("The same with card %lld failing at %s, its instance stalled %s "
				   "(book §6.7.2)", (long long)f->card,
				   fx_unit_format(f->at, FX_UNIT_TIME, b1, sizeof b1),
				   fx_unit_format(f->stall, FX_UNIT_TIME, b2, sizeof b2));
	fx_table *t = fx_table_typed("choices_fault", title, cols);
	fx_table_json_key(t, "deployments_with_fault");
	free(title);
	double *done = fx_xmalloc((size_t)(c->ds->sessions.count + 1) * sizeof *done);
	for (size_t i = 0; i < n; i++) {
		if (!ch[i].fits)
			continue;
		fx_choice r;
		fx_model_choice_fault(&ch[i], &c->ds->sessions, devices, f, &r, done);
		fx_table_int(t, r.tp);
		fx_table_list(t, done, (size_t)c->ds->sessions.count);
		fx_table_int(t, r.on_time);
		fx_table_int(t, c->ds->sessions.count);
		fx_table_bool(t, r.meets);
		fx_table_num(t, r.cost);
		fx_table_num(t, r.cost_per_on_time);
		energy(t, c->ds->power.node, r.finish);
	}
	free(done);
	return fx_sink_put(c->out, t, c->d);
}

/* §6.7.1-6.7.3: TP degree against instances for the workload's sessions. */
static int choices(rctx *c, const fx_fault *fault)
{
	if (!c->ds->work.have_model || c->ds->accel.hbm <= 0 || c->ds->sessions.count <= 0)
		return 0;
	static const fx_col cols[] = {
		{"tp", "TP", FX_F_INT}, {"instances", "instances", FX_F_INT},
		{"capacity", "capacity", FX_F_INT}, {"fits", "fits", FX_F_BOOL},
		{"step_s", "step", FX_F_SECONDS}, {"session_s", "session", FX_F_SECONDS},
		{"finish_s", "last done", FX_F_SECONDS}, {"on_time", "on time", FX_F_INT},
		{"sessions", "of sessions", FX_F_INT}, {"meets", "meets", FX_F_BOOL},
		{"gpu_time_s", "GPU time", FX_F_GPU_SECONDS},
		{"gpu_time_per_on_time_s", "per on-time", FX_F_GPU_SECONDS},
		{"energy_J", "energy", FX_F_JOULES}, {"tp_time_source", "TP time is", FX_F_TEXT},
		{NULL, NULL, 0},
	};
	fx_choice ch[16];
	int64_t devices = c->ds->fab.nnodes > 0 ? c->ds->fab.ndev / c->ds->fab.nnodes : c->ds->fab.ndev;
	size_t n = fx_model_choices(&c->ds->work.model, &c->ds->accel, &c->ds->sessions, devices, ring_time, c, ch, 16);
	fx_table *t = fx_table_typed("choices", "Deployments of one node (book §6.7: TP degree against "
				     "instances)", cols);
	fx_table_json_key(t, "deployments");
	for (size_t i = 0; i < n; i++) {
		fx_table_int(t, ch[i].tp);
		fx_table_int(t, ch[i].instances);
		fx_table_int(t, ch[i].capacity);
		fx_table_bool(t, ch[i].fits);
		if (!ch[i].fits) {
			for (int k = 0; k < 10; k++)
				fx_table_null(t, k == 0 ? "cannot fit" : "-");
			continue;
		}
		fx_table_num(t, ch[i].step_time);
		fx_table_num(t, ch[i].session_time);
		fx_table_num(t, ch[i].finish);
		fx_table_int(t, ch[i].on_time);
		fx_table_int(t, c->ds->sessions.count);
		fx_table_bool(t, ch[i].meets);
		fx_table_num(t, ch[i].cost);
		fx_table_num(t, ch[i].cost_per_on_time);
		energy(t, c->ds->power.node, ch[i].finish);
		fx_table_cell(t, "%s", ch[i].tp < 2 ? "-" : tp_measured(c, ch[i].tp) ? "measured"
									   : "modelled");
	}
	int rc = fx_sink_put(c->out, t, c->d);
	if (rc == 0 && fault)
		rc = fault_table(c, ch, n, devices, fault);
	return rc;
}

/* The instances: devices, span, and each parallel group's hops and time. */
static int instance_table(rctx *c, const fx_placement *p, int64_t D)
{
	const fx_workload *w = &c->ds->work;
	static const fx_col cols[] = {
		{"instance", "instance", FX_F_INT}, {"devices", "devices", FX_F_INT},
		{"nodes", "nodes", FX_F_INT}, {"racks", "racks", FX_F_INT},
		{"level", "level", FX_F_TEXT},
		{"tp_max_hops", "tp hops", FX_F_INT}, {"tp_time_s", "tp time", FX_F_SECONDS},
		{"ep_max_hops", "ep hops", FX_F_INT}, {"ep_time_s", "ep time", FX_F_SECONDS},
		{"pp_max_hops", "pp hops", FX_F_INT}, {"pp_time_s", "pp time", FX_F_SECONDS},
		{"comm_time_s", "comm per step", FX_F_SECONDS}, {"time_source", "times are", FX_F_TEXT},
		{NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("placement", "Placement (instances on nodes)", cols);
	fx_table_json_key(t, "instances");
	double *dv = fx_xmalloc((size_t)(D > 0 ? D : 1) * sizeof *dv);
	for (int64_t i = 0; i < p->ninst; i++) {
		const fx_place_instance *pi = &p->inst[i];
		for (int64_t k = 0; k < D; k++)
			dv[k] = (double)pi->devices[k];
		fx_table_int(t, i);
		fx_table_list(t, dv, (size_t)D);
		fx_table_int(t, pi->nodes);
		fx_table_int(t, pi->racks);
		fx_table_cell(t, "%s", fx_level_name(pi->level));
		for (int k = 0; k < 3; k++) {
			if (w->dims[k] < 2) {
				fx_table_null(t, "-");
				fx_table_null(t, "-");
			} else {
				fx_table_int(t, pi->group[k].max_hops);
				fx_table_num(t, pi->group[k].time);
			}
		}
		fx_table_num(t, pi->comm_time);
		int meas = 0;
		for (int k = 0; k < FX_GROUP_KINDS; k++)
			meas |= pi->group[k].measured;
		fx_table_cell(t, "%s", meas ? "measured" : "modelled");
	}
	free(dv);
	return fx_sink_put(c->out, t, c->d);
}

static int place(rctx *c, const fx_place_report_opts *ro)
{
	const fx_workload *w = &c->ds->work;
	const fx_power_config *pc = ro->power ? ro->power : &c->ds->power;
	fx_place_opts o = {.lp_path = ro->lp, .time_limit = ro->time_limit, .node_limit = ro->node_limit,
			     .tm = c->ds->coll, .accel = c->ds->accel.hbm > 0 ? &c->ds->accel : NULL,
			     .sessions = &c->ds->sessions};
	fx_placement p;
	char f1[64], l1[96];
	if (fx_place(&c->ds->fab, w, pc, &o, &p, c->d))
		return -1;
	int frc = fx_report_failed(&c->ds->fab, c->out, c->d);
	int64_t D = fx_workload_devices(w);
	int rc = instance_table(c, &p, D);

	fx_table *t = fx_record_new("place_summary", "Placement model", NULL);
	fx_record_text(t, "scheme", "scheme", "TP%lld x EP%lld x PP%lld x DP%lld",
		       (long long)w->dims[0], (long long)w->dims[1], (long long)w->dims[2],
		       (long long)w->dims[3]);
	fx_record_int(t, "devices_per_instance", "devices per instance", D);
	fx_record_int(t, "instances_wanted", "instances (workload)", w->instances);
	for (int L = 0; L < FX_LEVELS; L++) {
		snprintf(f1, sizeof f1, "level_%s_s", fx_level_name((fx_level)L));
		snprintf(l1, sizeof l1, "one instance within a %s, per step",
			 L == FX_LEVEL_ANY ? "system (across racks)" : fx_level_name((fx_level)L));
		if (p.level_ok[L])
			fx_record_num(t, f1, l1, FX_F_SECONDS, p.level_cost[L]);
		else
			fx_record_null(t, f1, l1, FX_F_SECONDS, "not possible here");
	}
	/* the objective is a sum over instances: say so, beside the mean */
	fx_record_int(t, "instances_placed", "instances placed", p.ninst);
	fx_record_num(t, "objective_per_instance_s", "communication per step, per instance",
		      FX_F_SECONDS, p.objective / (double)(p.ninst ? p.ninst : 1));
	fx_record_num(t, "objective_s", "objective: communication per step, summed", FX_F_SECONDS,
		      p.objective);
	if (isnan(p.bound))
		fx_record_null(t, "bound_s", "bound (summed)", FX_F_SECONDS, "none proved");
	else
		fx_record_num(t, "bound_s", "bound (summed)", FX_F_SECONDS, p.bound);
	if (isnan(p.gap))
		fx_record_null(t, "gap", "gap (objective over the proved bound)", FX_F_FRACTION,
			       "unknown (no bound proved)");
	else
		fx_record_num(t, "gap", "gap (objective over the proved bound)", FX_F_FRACTION, p.gap);
	fx_record_text(t, "status", "status", "%s", p.status);
	fx_record_text(t, "method", "method", "%s", p.method);
	fx_record_int(t, "milp_columns", "MILP columns (0: not needed)", p.cols);
	fx_record_int(t, "milp_rows", "MILP rows", p.rows);
	fx_record_num(t, "solve_s", "solved in (CPU)", FX_F_SECONDS, p.solve_seconds);
	fx_record_int(t, "nodes_used", "nodes powered", p.nodes_used);
	fx_record_int(t, "fabric_nodes", "nodes in the fabric", c->ds->fab.nnodes);
	fx_record_int(t, "nodes_failed", "nodes left out (holding failed devices, --fail)",
		      p.nodes_failed);
	fx_record_num(t, "power_W", "power", FX_F_WATTS, p.watts);
	if (w->have_model) {
		fx_model_memory mm;
		fx_model_memory_per_device(&w->model, w->dims[FX_GROUP_TP], w->dims[FX_GROUP_EP],
					   w->dims[FX_GROUP_PP], w->dims[FX_GROUP_DP], p.ninst,
					   c->ds->accel.hbm > 0 ? &c->ds->accel : NULL, &c->ds->sessions, &mm);
		fx_record_num(t, "weights_per_device_bytes", "weights per device", FX_F_BYTES, mm.weights);
		fx_record_num(t, "kv_per_device_bytes", "KV cache per device (its share)", FX_F_BYTES, mm.kv);
		fx_record_int(t, "kv_sessions", "KV cache: sessions", mm.sessions);
		fx_record_int(t, "kv_tokens", "KV cache: tokens per session", mm.tokens);
		fx_record_num(t, "reserve_per_device_bytes", "reserve per device", FX_F_BYTES, mm.reserve);
		fx_record_num(t, "memory_per_device_bytes", "memory per device, with the reserve",
			      FX_F_BYTES, mm.total);
		if (c->ds->accel.hbm > 0)
			fx_record_num(t, "hbm_bytes", "HBM per device", FX_F_BYTES, c->ds->accel.hbm);
		else
			fx_record_null(t, "hbm_bytes", "HBM per device", FX_F_BYTES,
				       "not checked: no workload.accelerator.hbm");
		fx_record_num(t, "send_per_token_bytes", "sent per device per token per layer",
			      FX_F_BYTES, fx_model_send_per_token(&w->model, w->dims[0], w->dims[1]));
	}
	rc |= fx_sink_put(c->out, t, c->d);

	static const fx_col rcols[] = {
		{"rack", "rack", FX_F_INT}, {"nodes", "nodes", FX_F_INT},
		{"power_W", "power", FX_F_WATTS}, {"cooling", "cooling", FX_F_TEXT}, {NULL, NULL, 0},
	};
	t = fx_table_typed("place_racks", "Racks in use", rcols);
	fx_table_json_key(t, "racks_detail");  /* "racks" is a count everywhere */
	for (int64_t r = 0; r < p.nracks; r++) {
		if (!p.rack[r].nodes_used)
			continue;
		fx_table_int(t, p.rack[r].rack);
		fx_table_int(t, p.rack[r].nodes_used);
		fx_table_num(t, p.rack[r].watts);
		fx_table_cell(t, "%s", p.rack[r].liquid ? "liquid" : "air");
	}
	rc |= fx_sink_put(c->out, t, c->d);
	if (rc == 0)
		rc = fx_report_step(c->ds, &p, c->out, c->d);

	if (ro->keep)
		*ro->keep = p;
	else
		fx_placement_release(&p);
	rc |= frc;
	if (rc == 0)
		rc = choices(c, ro->fault && ro->fault->at >= 0 ? ro->fault : NULL);
	return rc;
}


int fx_report_place(const fx_design *ds, const fx_place_report_opts *o, fx_sink *out, fx_diag *d)
{
	if (!ds || !o || !out)
		return fx_diag_internal(d, "fx_report_place: a NULL argument");
	rctx c = {ds, out, d};
	return place(&c, o);
}
