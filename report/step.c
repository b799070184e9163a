/*
 * The serving-step report, place's and explore's section (step/step.h through
 * fx_design_step): the model's inventory per card, the step's timeline
 * (which term binds), sessions per card (Eq. 6-14), throughput, the
 * communication share, and a single user's step.  The computation is the
 * library's; this file only lays it out.
 */
#include <math.h>
#include <string.h>

#include "report.h"

/* One run: the design, where its tables and errors go. */
typedef struct rctx {
	const fx_design *ds;
	fx_sink *out;
	fx_diag *d;
} rctx;

static int inventory_table(rctx *c, const fx_step_result *r)
{
	static const fx_col cols[] = {
		{"part", "part", FX_F_TEXT}, {"split", "split", FX_F_TEXT},
		{"where", "where", FX_F_TEXT}, {"bytes", "whole", FX_F_BYTES},
		{"per_device_bytes", "per device", FX_F_BYTES}, {NULL, NULL, 0},
	};
	const fx_step_model *m = &c->ds->step;
	fx_table *t = fx_table_typed("step_inventory", "Model inventory, per device of the busiest "
				     "stage (step model)", cols);
	fx_table_json_key(t, "inventory");
	for (int i = 0; i < m->nparts; i++) {
		const fx_step_part *p = &m->part[i];
		fx_table_cell(t, "%s", p->name);
		fx_table_cell(t, "%s", fx_step_split_name(p->split));
		fx_table_cell(t, "%s", fx_step_where_name(p->where));
		fx_table_num(t, p->bytes);
		fx_table_num(t, r->part_card[i]);
	}
	fx_table_cell(t, "state (per session)");
	fx_table_cell(t, "%s", m->kv.units == 1 ? "replicated" : "tp");
	fx_table_cell(t, "%s", fx_step_where_name(m->kv.where));
	fx_table_null(t, "-");
	fx_table_num(t, r->state_session);
	return fx_sink_put(c->out, t, c->d);
}

static void opt_num(fx_table *t, const char *field, const char *label, fx_field_kind k, int have,
		    double v)
{
	if (have)
		fx_record_num(t, field, label, k, v);
	else
		fx_record_null(t, field, label, k, "-");
}

static int step(rctx *c, const fx_placement *p)
{
	const fx_design *ds = c->ds;
	if (!ds->have_step || ds->accel.hbm <= 0)
		return 0;
	const int64_t *devs = p && p->ninst > 0 ? p->inst[0].devices : NULL;
	int64_t nd = p && p->ninst > 0 ? fx_workload_devices(&ds->work) : 0;
	/* the step's ranks beyond the placement's (CP, an expert pool): in order */
	const fx_step_layout *l = &ds->step_layout;
	if ((l->cp > 1 || l->expert_pool > 0))
		devs = NULL;
	fx_step_result r, one;
	if (fx_design_step(ds, devs, nd, NULL, &r, c->d))
		return -1;
	fx_step_load single = ds->step_load;
	single.total = 1;
	single.batch = 0;
	if (fx_design_step(ds, devs, nd, &single, &one, c->d))
		return -1;
	int rc = inventory_table(c, &r);

	const fx_step_load *ld = &ds->step_load;
	fx_table *t = fx_record_new("step", "Serving step (step model: Eq. 6-1, 6-2, 6-7, 6-8, 6-14)",
				    "step");
	fx_record_text(t, "phase", "phase", "%s", ld->phase == FX_PHASE_PREFILL ? "prefill" : "decode");
	fx_record_int(t, "context_tokens", "context per session, tokens", ld->context);
	fx_record_text(t, "layout", "layout", "TP%lld%s x CP%lld x EP%lld x PP%lld x DP%lld%s%s",
		       (long long)l->tp, l->sp ? "+SP" : "", (long long)l->cp, (long long)l->ep,
		       (long long)l->pp, (long long)l->dp,
		       l->attention_tp ? "" : ", attention data-parallel",
		       l->ep_allreduce ? ", experts reduced across groups" : "");
	fx_record_int(t, "devices_per_instance", "devices per instance", r.cards);
	fx_record_bool(t, "step_ok", "the layout runs the model", r.ok);
	if (r.ok)
		fx_record_null(t, "step_why", "why not", FX_F_TEXT, "-");
	else
		fx_record_text(t, "step_why", "why not", "%s", r.why);
	fx_record_num(t, "weights_per_device_bytes", "weights per device (HBM)", FX_F_BYTES, r.weights);
	fx_record_num(t, "state_per_session_bytes", "state of one session on a device", FX_F_BYTES,
		      r.state_session);
	fx_record_num(t, "reserve_per_device_bytes", "reserve per device", FX_F_BYTES, r.reserve);
	fx_record_num(t, "hbm_free_bytes", "HBM left for state (C - W - U)", FX_F_BYTES, r.free);
	if (r.capacity == INT64_MAX)
		fx_record_null(t, "sessions_per_device", "sessions a device holds (Eq. 6-14)", FX_F_INT,
			       "no limit (state off the card)");
	else
		fx_record_int(t, "sessions_per_device", "sessions a device holds (Eq. 6-14)", r.capacity);
	fx_record_int(t, "batch", "sessions per expert group in the step", r.batch);
	fx_record_num(t, "state_per_device_bytes", "state on a device at that batch", FX_F_BYTES,
		      r.state_card);
	fx_record_num(t, "activations_per_device_bytes", "activations on a device", FX_F_BYTES,
		      r.activations);
	fx_record_num(t, "tokens_per_step", "tokens per step (instance)", FX_F_NUM, r.tokens);
	fx_record_num(t, "weight_read_per_device_bytes", "weights a device reads per pass", FX_F_BYTES,
		      r.read_weights);
	fx_record_num(t, "state_read_per_device_bytes", "state a device reads per pass", FX_F_BYTES,
		      r.read_state);
	fx_record_num(t, "matrix_flops_per_device", "matrix FLOPs a device computes per pass", FX_F_NUM,
		      r.flops);
	fx_record_num(t, "weight_read_total_bytes", "weights the instance reads per step", FX_F_BYTES,
		      r.weight_read_total);
	int moe = r.mean_rows > 0;
	opt_num(t, "active_experts", "active experts per layer (Eq. 6-8)", FX_F_NUM, moe, r.active_experts);
	opt_num(t, "busiest_group_experts", "experts the busiest EP group reads per layer", FX_F_NUM,
		moe, r.busiest_experts);
	opt_num(t, "busiest_group_rows", "token-expert rows of the busiest group per layer",
		FX_F_NUM, moe, r.busiest_rows);
	opt_num(t, "mean_group_rows", "the mean over the groups", FX_F_NUM, moe, r.mean_rows);
	fx_record_num(t, "weights_read_s", "timeline: weight reads", FX_F_SECONDS, r.t_weights);
	fx_record_num(t, "state_read_s", "timeline: state reads", FX_F_SECONDS, r.t_state);
	fx_record_num(t, "compute_s", "timeline: matrix compute", FX_F_SECONDS, r.t_compute);
	fx_record_num(t, "local_s", l->overlap_step ? "timeline: the three overlapped over the step"
					     : "timeline: the three per operator (Eq. 6-2), summed",
		      FX_F_SECONDS, r.t_local);
	static const char *const gl[FX_STEP_GROUPS] = {
		"timeline: TP reductions", "timeline: dispatch and combine (EP)",
		"timeline: PP hand-off", "timeline: CP exchange", "timeline: table fetch (NVLink)"};
	static const char *const gf[FX_STEP_GROUPS] = {"tp_comm_s", "ep_comm_s", "pp_comm_s",
						       "cp_comm_s", "table_comm_s"};
	for (int g = 0; g < FX_STEP_GROUPS; g++)
		if (g != FX_STEP_TABLE)
			fx_record_num(t, gf[g], gl[g], FX_F_SECONDS, r.t_comm[g]);
	fx_record_num(t, "table_fetch_s", "lookup table fetch (prefetched)", FX_F_SECONDS, r.t_table);
	fx_record_bool(t, "table_hidden", "the fetch hides behind the first layer", r.table_hidden);
	fx_record_num(t, "first_layer_s", "the first layer's time", FX_F_SECONDS, r.t_first);
	fx_record_num(t, "pp_bubble", "pipeline idle share (Eq. 6-7)", FX_F_FRACTION, r.bubble);
	fx_record_num(t, "fixed_s", "fixed latency (Eq. 6-15)", FX_F_SECONDS, r.fixed);
	fx_record_num(t, "comm_s", "communication per step", FX_F_SECONDS, r.comm);
	fx_record_num(t, "step_s", "step time", FX_F_SECONDS, r.step);
	fx_record_text(t, "binds", "what binds", "%s", r.binds ? r.binds : "-");
	fx_record_num(t, "comm_share", "communication share of the step", FX_F_FRACTION, r.comm_share);
	fx_record_num(t, "tokens_per_second", "throughput per instance, token/s", FX_F_NUM,
		      r.tokens_per_s);
	fx_record_num(t, "tokens_per_second_per_device", "throughput per device, token/s", FX_F_NUM,
		      r.tokens_per_s_card);
	fx_record_num(t, "single_user_step_s", "one user alone: step time", FX_F_SECONDS, one.step);
	fx_record_num(t, "single_user_tokens_per_second", "one user alone: token/s", FX_F_NUM,
		      one.tokens_per_s);
	fx_record_text(t, "comm_source", "communication times",
		       "%d of %d calls measured, the rest routed on the fabric", r.measured, r.calls);
	fx_record_int(t, "comm_calls_measured", "collectives taken from measurements", r.measured);
	fx_record_int(t, "comm_calls", "collectives the step asks for", r.calls);
	rc |= fx_sink_put(c->out, t, c->d);
	return rc;
}

int fx_report_step(const fx_design *ds, const fx_placement *p, fx_sink *out, fx_diag *d)
{
	if (!ds || !out)
		return fx_diag_internal(d, "fx_report_step: a NULL argument");
	rctx c = {ds, out, d};
	return step(&c, p);
}
