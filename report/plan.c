/*
 * The plan report: the best partitioning and placement of the workload's
 * model on the fabric, and why (plan/plan.h; the chapter "Supernodes",
 * §6.7.3): the search's counts, the choice and its timeline, the
 * runners-up, every excluded family with its first rule, the Pareto
 * front, the sensitivity and the flip thresholds.  The search, the rules,
 * the timeline and the thresholds are plan/'s; this file lays them out.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/outfile.h"
#include "../core/units.h"
#include "../core/xalloc.h"
#include "../plan/plan.h"
#include "../plot/plot.h"
#include "report.h"

/* One run: the design, where its tables and errors go. */
typedef struct pctx {
	const fx_design *ds;
	fx_sink *out;
	fx_diag *d;
} pctx;

/* An objective's value as text shows it. */
static fx_field_kind obj_kind(fx_plan_objective o)
{
	/* cost is device time (GPU-s per on-time session, §6.7.2), not a wait */
	return o == FX_PO_LATENCY ? FX_F_SECONDS : o == FX_PO_COST ? FX_F_GPU_SECONDS : FX_F_NUM;
}

/* An objective's value as text, in its unit. */
static const char *obj_show(fx_plan_objective o, double v, char *buf, size_t len)
{
	fx_field_format(v, obj_kind(o), buf, len);
	return buf;
}

static void eval_at(fx_plan_problem *p, const fx_plan_result *r, int64_t idx, fx_plan_eval *e,
		    fx_diag *d)
{
	memset(e, 0, sizeof *e);
	e->want_why = 1;
	fx_plan_scheme_at(p, r, (uint64_t)idx, &e->s);
	fx_plan_evaluate(p, NULL, e, d);
}

/* Degrees alone: "TP2", "TP2 EP4 PP2 SP". */
static const char *family_text(const fx_plan_scheme *s, char *buf, size_t len)
{
	static const char *const up[FX_PG_N] = {"TP", "CP", "EP", "PP", "DP"};
	size_t u = 0;
	buf[0] = '\0';
	for (int g = 0; g < FX_PG_N && u < len; g++)
		if (s->deg[g] > 1 || g == FX_PG_TP)
			u += (size_t)snprintf(buf + u, len - u, "%s%s%lld", u ? " " : "", up[g],
					      (long long)s->deg[g]);
	if (s->sp && u < len)
		snprintf(buf + u, len - u, " SP");
	return buf;
}

static int summary(pctx *c, fx_plan_problem *p, const fx_plan_result *r, int jobs)
{
	char b[256];
	fx_table *t = fx_record_new("plan", "Plan (book §6.7.3: the best scheme and why)", "plan");
	size_t u = 0;
	for (size_t i = 0; i < p->nobj; i++)
		u += (size_t)snprintf(b + u, sizeof b - u, "%s%s", i ? ", " : "",
				      fx_plan_objective_name(p->obj[i]));
	fx_record_text(t, "objectives", "objective", "%s", b);
	fx_record_text(t, "workload", "workload", "%s", p->kind == FX_PLAN_TRAIN ? "training" : "decode");
	fx_record_text(t, "step_model", "step model", "%s", p->model->name);
	fx_record_text(t, "status", "status", "%s", r->status);
	if (r->best >= 0) {
		fx_plan_scheme s;
		fx_plan_scheme_at(p, r, (uint64_t)r->best, &s);
		fx_record_text(t, "choice", "choice", "%s", fx_plan_scheme_text(&s, p, b, sizeof b));
		fx_record_num(t, fx_plan_objective_field(p->obj[0]), fx_plan_objective_name(p->obj[0]),
			      obj_kind(p->obj[0]), r->best_obj);
	} else {
		fx_record_null(t, "choice", "choice", FX_F_TEXT, "none feasible");
	}
	fx_record_num(t, "uncertainty", "tied within", FX_F_FRACTION, p->uncertainty);
	fx_record_int(t, "schemes_generated", "schemes generated", (long long)r->counts.generated);
	fx_record_int(t, "schemes_considered", "schemes considered (plan.limit)",
		      (long long)r->counts.considered);
	for (int k = 1; k < FX_PR_N; k++) {
		char f[64], l[96];
		snprintf(f, sizeof f, "excluded_%s", fx_plan_rule_name((fx_plan_rule)k));
		snprintf(l, sizeof l, k == FX_PR_BOUND ? "pruned by a proven bound" :
			 k == FX_PR_IDLE ? "pruned: instances beyond the sessions" : "excluded by %s",
			 fx_plan_rule_name((fx_plan_rule)k));
		fx_record_int(t, f, l, (long long)r->counts.excluded[k]);
	}
	fx_record_int(t, "excluded_deadline_by_bound", "excluded by deadline on its bound (not routed)",
		      (long long)r->counts.deadline_bounded);
	fx_record_int(t, "schemes_bounded", "bounded without routing", (long long)r->counts.bounded);
	fx_record_int(t, "schemes_evaluated", "evaluated in full", (long long)r->counts.evaluated);
	fx_record_int(t, "schemes_feasible", "feasible", (long long)r->counts.feasible);
	fx_record_int(t, "collectives_routed", "collectives routed (distinct group shapes)",
		      (long long)r->counts.routed);
	fx_record_int(t, "collective_cache_hits", "collective times from the cache",
		      (long long)r->counts.cache_hits);
	fx_record_int(t, "workers", "worker processes", jobs);
	fx_record_num(t, "wall_s", "wall time", FX_F_SECONDS, r->counts.wall_s);
	fx_record_num(t, "cpu_s", "CPU time (workers included)", FX_F_SECONDS, r->counts.cpu_s);
	fx_record_num(t, "route_cpu_s", "of it routing collectives (here)", FX_F_SECONDS,
		      r->counts.route_s);
	return fx_sink_put(c->out, t, c->d);
}

/* The chosen scheme: data ownership per device and its timeline. */
static int choice(pctx *c, fx_plan_problem *p, const fx_plan_result *r)
{
	if (r->best < 0)
		return 0;
	fx_plan_eval e;
	eval_at(p, r, r->best, &e, c->d);
	const fx_model *m = &p->ds->work.model;
	char b[256];
	fx_table *t = fx_record_new("plan_choice", "The choice: what each device holds and its "
				    "timeline", "choice");
	fx_record_text(t, "scheme", "scheme", "%s", fx_plan_scheme_text(&e.s, p, b, sizeof b));
	static const char *const deg_f[FX_PG_N] = {"tp", "cp", "ep", "pp", "dp"};
	for (int g = 0; g < FX_PG_N; g++)
		fx_record_int(t, deg_f[g], deg_f[g], (long long)e.s.deg[g]);
	fx_record_bool(t, "sp", "sp", e.s.sp);
	fx_record_int(t, "micro_batches", "micro-batches", (long long)e.s.micro);
	fx_record_int(t, "instances_planned", "instances", (long long)e.s.instances);
	fx_record_text(t, "level", "an instance within a", "%s", fx_level_name((fx_level)e.s.level));
	fx_record_int(t, "devices", "devices used", (long long)e.devices);
	fx_record_int(t, "nodes", "nodes used", (long long)e.nodes);
	fx_record_num(t, "devices_billed", "devices billed", FX_F_NUM, e.billed);
	/* what each device holds (§6.7.3 step three) */
	if (p->ds->work.have_model) {  /* an inventory has no shape to count */
		fx_record_int(t, "layers_per_device", "layers per device (busiest stage)",
			      (long long)((m->layers + e.s.deg[FX_PG_PP] - 1) / e.s.deg[FX_PG_PP]));
		fx_record_num(t, "heads_per_device", "query heads per device", FX_F_NUM,
			      (double)m->heads / (double)e.s.deg[FX_PG_TP]);
	}
	if (p->ds->work.have_model && m->experts > 0)
		fx_record_num(t, "experts_per_device", "experts per device (busiest group)", FX_F_NUM,
			      ceil((double)m->experts / (double)e.s.deg[FX_PG_EP]) /
			      (double)e.s.deg[FX_PG_TP]);
	fx_record_num(t, "weights_per_device_bytes", "weights per device", FX_F_BYTES, e.mem.weights);
	if (p->kind == FX_PLAN_TRAIN) {
		fx_record_num(t, "optimizer_per_device_bytes", "optimizer state per device",
			      FX_F_BYTES, e.mem.optimizer);
		fx_record_num(t, "activations_per_device_bytes", "activations in flight per device",
			      FX_F_BYTES, e.mem.activations);
	} else {
		fx_record_num(t, "kv_per_device_bytes", "KV per device", FX_F_BYTES, e.mem.kv);
		fx_record_int(t, "kv_sessions", "sessions whose KV it holds", (long long)e.mem.sessions);
	}
	fx_record_num(t, "reserve_per_device_bytes", "reserve per device", FX_F_BYTES, e.mem.reserve);
	fx_record_num(t, "memory_per_device_bytes", "memory per device", FX_F_BYTES, e.mem.total);
	fx_record_num(t, "hbm_bytes", "HBM per device", FX_F_BYTES, p->knobs.hbm);
	/* the timeline: which term binds */
	fx_record_num(t, "weights_read_s", "local: weight reads", FX_F_SECONDS, e.local.weights_s);
	fx_record_num(t, "kv_read_s", "local: KV reads", FX_F_SECONDS, e.local.kv_s);
	fx_record_num(t, "compute_s", "local: matrix compute", FX_F_SECONDS, e.local.compute_s);
	fx_record_num(t, "local_s", "local time (Eq. 6-2)", FX_F_SECONDS, e.local.time);
	fx_record_text(t, "binds", "local time bound by", "%s", e.local.binds ? e.local.binds : "-");
	if (p->model == &fx_plan_model_step) {  /* it times its own collectives, in the local time */
		fx_record_num(t, "comm_s", e.local.measured ? "of it communication (step model, some "
			      "measured)" : "of it communication (step model, routed)", FX_F_SECONDS,
			      e.local.other_s);
		fx_record_text(t, "comm_time_source", "communication time is", "%s",
			       e.local.measured ? "measured" : "modelled");
	}
	for (int g = 0; g < FX_PG_N; g++) {
		char f[48], l[96];
		if (e.s.deg[g] < 2)
			continue;
		snprintf(f, sizeof f, "%s_time_s", deg_f[g]);
		snprintf(l, sizeof l, "%s communication per %s (%s, %s)", deg_f[g],
			 p->kind == FX_PLAN_TRAIN ? (g == FX_PG_DP ? "step" : "micro-batch and stage")
			 : e.s.deg[FX_PG_PP] > 1 ? "stage of a step" : "step",
			 p->algo[g][e.s.algo[g]], e.measured[g] ? "measured" : "modelled");
		fx_record_num(t, f, l, FX_F_SECONDS, e.comm[g]);
		snprintf(f, sizeof f, "%s_time_source", deg_f[g]);
		snprintf(l, sizeof l, "%s time is", deg_f[g]);
		fx_record_text(t, f, l, "%s", e.measured[g] ? "measured" : "modelled");
	}
	double comm = 0;
	for (int g = 0; g < FX_PG_N; g++)
		comm += e.comm[g];
	fx_record_text(t, "step_bound_by", "the step is bound by", "%s",
		       comm > e.local.time ? "communication" : e.local.binds ? e.local.binds : "-");
	if (e.s.deg[FX_PG_PP] > 1)
		fx_record_num(t, "stage_s", "one stage", FX_F_SECONDS, e.stage);
	fx_record_num(t, "step_s", p->kind == FX_PLAN_TRAIN ? "a training step (Eq. 6-7)" :
		      "one step of a session", FX_F_SECONDS, e.step);
	if (p->kind == FX_PLAN_DECODE) {
		fx_record_num(t, "session_s", "a session's continuation", FX_F_SECONDS, e.session);
		fx_record_int(t, "concurrent_sessions", "sessions an instance runs at once",
			      (long long)e.conc);
		fx_record_num(t, "finish_s", "all sessions done", FX_F_SECONDS, e.finish);
		fx_record_int(t, "on_time", "sessions on time", (long long)e.on_time);
		fx_record_int(t, "sessions", "of sessions", (long long)e.count);
	}
	fx_record_num(t, "gpu_time_s", "device time billed", FX_F_GPU_SECONDS, e.gpu_s);
	for (int o = 0; o < FX_PO_N; o++) {
		if (isnan(e.obj[o]))
			continue;
		fx_record_num(t, fx_plan_objective_field((fx_plan_objective)o),
			      fx_plan_objective_name((fx_plan_objective)o),
			      obj_kind((fx_plan_objective)o), e.obj[o]);
	}
	if (e.power > 0) {
		fx_record_num(t, "power_W", "power of the nodes used", FX_F_WATTS, e.power);
		fx_record_num(t, "energy_J", "energy until the last session is done", FX_F_JOULES,
			      e.power * e.finish);
	} else {
		fx_record_null(t, "power_W", "power of the nodes used", FX_F_WATTS, "n/a (no power model)");
	}
	int rc = fx_sink_put(c->out, t, c->d);
	if (rc || p->kind != FX_PLAN_DECODE || e.count > 64)
		return rc;
	static const fx_col cols[] = {
		{"session", "session", FX_F_INT}, {"instance", "instance", FX_F_INT},
		{"finish_s", "done at", FX_F_SECONDS}, {"on_time", "on time", FX_F_BOOL},
		{NULL, NULL, 0},
	};
	t = fx_table_typed("plan_sessions", "Sessions of the choice (book §6.7.1)", cols);
	fx_table_json_key(t, "choice_sessions");
	double fin[64];
	size_t n = fx_plan_session_finishes(p, NULL, &e, fin, 64);
	for (size_t i = 0; i < n; i++) {
		fx_table_int(t, (long long)i);
		fx_table_int(t, (long long)((int64_t)i % e.s.instances));
		fx_table_num(t, fin[i]);
		fx_table_bool(t, !(p->knobs.deadline > 0) || fin[i] <= p->knobs.deadline);
	}
	return fx_sink_put(c->out, t, c->d);
}

typedef struct ranked {
	int64_t idx;
	double v;
} ranked;

static fx_plan_objective rank_obj;

static int rank_cmp(const void *x, const void *y)
{
	const ranked *a = x, *b = y;
	int max = fx_plan_objective_maximise(rank_obj);
	if (a->v != b->v)
		return (max ? a->v > b->v : a->v < b->v) ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* Runners-up: each family's best within the margin, ties marked. */
static int runners_up(pctx *c, fx_plan_problem *p, const fx_plan_result *r)
{
	fx_plan_objective o = p->obj[0];
	ranked *v = fx_xmalloc((r->nfam + 1) * sizeof *v);
	size_t n = 0;
	for (size_t i = 0; i < r->nfam; i++)
		if (r->fam[i].best >= 0)
			v[n++] = (ranked){r->fam[i].best, r->fam[i].best_obj};
	rank_obj = o;
	qsort(v, n, sizeof *v, rank_cmp);
	static const fx_col cols[] = {
		{"rank", "rank", FX_F_INT}, {"scheme", "scheme (each family's best)", FX_F_TEXT},
		{"objective_value", "objective", FX_F_NUM}, {"versus_best", "against the best", FX_F_FRACTION},
		{"tie", "tie", FX_F_BOOL}, {"session_s", "session", FX_F_SECONDS},
		{"finish_s", "last done", FX_F_SECONDS}, {"on_time", "on time", FX_F_INT},
		{"gpu_time_per_on_time_s", "per on-time", FX_F_GPU_SECONDS},
		{"time_source", "comm is", FX_F_TEXT}, {NULL, NULL, 0},
	};
	char title[160];
	snprintf(title, sizeof title, "Ranked by %s: each family's best within %.0f%% of the choice "
		 "(ties within %.1f%%)", fx_plan_objective_name(o), p->margin * 100,
		 p->uncertainty * 100);
	fx_table *t = fx_table_typed("plan_ranked", title, cols);
	fx_table_json_key(t, "ranked");
	double best = n ? v[0].v : NAN;
	for (size_t i = 0; i < n; i++) {
		double rel = fx_plan_objective_maximise(o) ? (best - v[i].v) / best : (v[i].v - best) / best;
		if (i > 0 && !(rel <= p->margin) && i >= 3)
			break;
		fx_plan_eval e;
		eval_at(p, r, v[i].idx, &e, c->d);
		char b[256];
		fx_table_int(t, (long long)i + 1);
		fx_table_cell(t, "%s", fx_plan_scheme_text(&e.s, p, b, sizeof b));
		fx_table_num(t, v[i].v);
		fx_table_num(t, rel);
		fx_table_bool(t, fx_plan_tied(p, o, v[i].v, best));
		fx_table_num(t, e.session);
		fx_table_num(t, e.finish);
		fx_table_int(t, (long long)e.on_time);
		fx_table_num(t, e.obj[FX_PO_COST]);
		int meas = e.local.measured, any = 0;
		for (int g = 0; g < FX_PG_N; g++) {
			meas |= e.measured[g];
			any |= e.comm[g] > 0;
		}
		any |= e.local.other_s > 0;  /* the step model's, timed inside its step */
		fx_table_cell(t, "%s", !any ? "none" : meas ? "measured" : "modelled");
	}
	free(v);
	return fx_sink_put(c->out, t, c->d);
}

/* Every family with no feasible scheme, with the rule that stopped the
 * one that got furthest and its arithmetic. */
static int excluded(pctx *c, fx_plan_problem *p, const fx_plan_result *r, char *binding,
		    size_t blen)
{
	static const fx_col cols[] = {
		{"family", "family", FX_F_TEXT}, {"schemes", "schemes", FX_F_INT},
		{"rule", "first rule that excludes it", FX_F_TEXT}, {"scheme", "closest scheme", FX_F_TEXT},
		{"why", "why", FX_F_TEXT}, {NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("plan_excluded", "Excluded families (the rule that stopped the "
				     "member that got furthest)", cols);
	fx_table_json_key(t, "excluded");
	int best_stage = -1;
	double best_by = INFINITY;
	binding[0] = '\0';
	for (size_t i = 0; i < r->nfam; i++) {
		const fx_plan_family *f = &r->fam[i];
		if (f->best >= 0 || f->closest < 0)
			continue;
		char fam[96], b[256];
		fx_plan_eval e;
		eval_at(p, r, f->closest, &e, c->d);
		fx_table_cell(t, "%s", family_text(&f->key, fam, sizeof fam));
		fx_table_int(t, (long long)f->count);
		fx_table_cell(t, "%s", fx_plan_rule_name((fx_plan_rule)f->rule));
		fx_table_cell(t, "%s", fx_plan_scheme_text(&e.s, p, b, sizeof b));
		if (f->rule == FX_PR_BOUND) {
			char x[32], y[32];
			fx_plan_eval bnd;
			memset(&bnd, 0, sizeof bnd);
			bnd.s = e.s;
			fx_plan_bound(p, NULL, &bnd);
			if (!fx_plan_objective_maximise(p->obj[0]))
				fx_table_cell(t, "its %s is at least %s, the choice's %s", fx_plan_objective_name(p->obj[0]),
					      obj_show(p->obj[0], bnd.obj[p->obj[0]], x, sizeof x),
					      obj_show(p->obj[0], r->best_obj, y, sizeof y));
			else
				fx_table_cell(t, "its %s is at most %.4g, the choice's %.4g",
					      fx_plan_objective_name(p->obj[0]), bnd.obj[p->obj[0]], r->best_obj);
		} else if (f->rule == FX_PR_IDLE) {
			fx_table_cell(t, "more instances than the %lld sessions: the rest only idle",
				      (long long)p->knobs.sessions);
		} else {
			fx_table_cell(t, "%s", e.why[0] ? e.why : fx_plan_rule_name(e.rule));
		}
		/* the binding rule of an infeasible problem: the furthest family's */
		int st = f->rule == FX_PR_DEADLINE ? 8 : f->rule == FX_PR_COMM ? 7 : f->rule == FX_PR_POWER ? 6
			 : f->rule == FX_PR_MEMORY ? 5 : f->rule == FX_PR_KEEP ? 4 : f->rule == FX_PR_SHAPE ? 3
			 : f->rule == FX_PR_KERNEL ? 2 : 1;
		if (f->rule != FX_PR_BOUND && f->rule != FX_PR_IDLE &&
		    (st > best_stage || (st == best_stage && f->closest_by < best_by))) {
			best_stage = st;
			best_by = f->closest_by;
			snprintf(binding, blen, "%s: %s (%s)", fx_plan_rule_name((fx_plan_rule)f->rule),
				 e.why[0] ? e.why : "-", fx_plan_scheme_text(&e.s, p, b, sizeof b));
		}
	}
	return fx_sink_put(c->out, t, c->d);
}

static fx_unit_kind knob_unit(fx_plan_knob k)
{
	switch (k) {
	case FX_PK_HBM: return FX_UNIT_SIZE;
	case FX_PK_HBM_BW: return FX_UNIT_BANDWIDTH;
	case FX_PK_DEADLINE: return FX_UNIT_TIME;
	case FX_PK_POWER: return FX_UNIT_POWER;
	default: return FX_UNIT_NONE;
	}
}

static void knob_text(fx_plan_knob k, double v, char *buf, size_t len)
{
	fx_unit_kind u = knob_unit(k);
	if (u != FX_UNIT_NONE)
		fx_unit_format(v, u, buf, len);
	else if (k == FX_PK_BW || k == FX_PK_ALPHA || k == FX_PK_MEASURED)
		snprintf(buf, len, "x%.4g", v);
	else
		snprintf(buf, len, "%.0f", v);
}

static int flips(pctx *c, const fx_plan_opts *o, fx_plan_problem *p, const fx_plan_result *r,
		 const char *plot_dir)
{
	fx_plan_flip *f = NULL;
	long nf;
	if (o->flips_run) {
		nf = o->flips_run(o->flips_ctx, p, r, &f, c->d);
	} else {
		nf = (long)fx_plan_flips(p, r, &f, c->d);
		if (c->d->status == FX_EXIT_INTERNAL)
			nf = -1;
	}
	if (nf < 0) {
		free(f);
		return -1;
	}
	size_t n = (size_t)nf;
	static const fx_col cols[] = {
		{"input", "input", FX_F_TEXT}, {"direction", "moved", FX_F_TEXT},
		{"now", "now", FX_F_TEXT}, {"threshold", "the choice changes at", FX_F_TEXT},
		{"threshold_value", "threshold (SI)", FX_F_NUM},
		{"becomes", "and becomes", FX_F_TEXT}, {"probes", "searches", FX_F_INT},
		{NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("plan_flips", "Flip thresholds: how far each input must move "
				     "for the choice to change (scan x2 to x64, then bisection)", cols);
	fx_table_json_key(t, "flips");
	for (size_t i = 0; i < n; i++) {
		char a[64], b[64];
		fx_table_cell(t, "%s", fx_plan_knob_name(f[i].knob));
		fx_table_cell(t, "%s", f[i].dir > 0 ? "up" : "down");
		knob_text(f[i].knob, f[i].from, a, sizeof a);
		fx_table_cell(t, "%s", a);
		if (f[i].found) {
			knob_text(f[i].knob, f[i].at, b, sizeof b);
			fx_table_cell(t, "%s", b);
			fx_table_num(t, f[i].at);
			fx_table_cell(t, "%s", f[i].to);
		} else {
			knob_text(f[i].knob, f[i].limit, b, sizeof b);
			fx_table_null(t, "no change");
			fx_table_null(t, "-");
			fx_table_cell(t, "the same up to %s", b);
		}
		fx_table_int(t, f[i].probes);
	}
	int rc = fx_sink_put(c->out, t, c->d);
	if (rc == 0 && plot_dir) {
		/* one chart per input that flips: the objective of the choice
		 * along the input, the threshold marked by its two sides */
		for (size_t i = 0; i < n && rc == 0; i++) {
			if (!f[i].found)
				continue;
			double xs[2] = {f[i].from, f[i].at}, ys[2] = {r->best_obj, f[i].obj_at};
			fx_plot_series s = {"the choice's objective: now, and past the threshold", xs, ys,
					    isnan(ys[1]) ? 1 : 2, 1, NULL, NULL};
			fx_plot_panel pn = {fx_plan_objective_name(p->obj[0]), 0, &s, 1};
			char title[160], xl[96], path[1200];
			snprintf(title, sizeof title, "Flip threshold: %s %s (%s)", fx_plan_knob_name(f[i].knob),
				 f[i].dir > 0 ? "up" : "down", f[i].to);
			snprintf(xl, sizeof xl, "%s", fx_plan_knob_name(f[i].knob));
			fx_plot pl = {.title = title, .xlabel = xl, .p = &pn, .np = 1};
			snprintf(path, sizeof path, "%s/flip-%zu.svg", plot_dir, i);
			char err[256];
			if (fx_plot_draw(&pl, path, err, sizeof err))
				rc = fx_diag_error(c->d, NULL, "--plot: %s", err);
		}
	}
	free(f);
	return rc;
}

static int sensitivity(pctx *c, fx_plan_problem *p, const fx_plan_result *r)
{
	fx_plan_sens s[4];
	size_t n = fx_plan_sensitivity(p, r, s, c->d);
	if (n == 0)
		return 0;
	static const fx_col cols[] = {
		{"change", "change (book §6.7.3 sensitivity)", FX_F_TEXT},
		{"step_s", "step now", FX_F_SECONDS}, {"step_then_s", "step then", FX_F_SECONDS},
		{"saving_s", "saves per step", FX_F_SECONDS}, {NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("plan_sensitivity", "Sensitivity of the choice's step", cols);
	fx_table_json_key(t, "sensitivity");
	for (size_t i = 0; i < n; i++) {
		fx_table_cell(t, "%s", s[i].what);
		fx_table_num(t, s[i].step_now);
		fx_table_num(t, s[i].step_then);
		fx_table_num(t, s[i].saving);
	}
	return fx_sink_put(c->out, t, c->d);
}

static int front(pctx *c, fx_plan_problem *p, const fx_plan_result *r, const char *plot_dir)
{
	if (p->nobj < 2)
		return 0;
	fx_table *t = fx_table_typed("plan_front", "Pareto front of the objectives", (fx_col[]){
		{"scheme", "scheme", FX_F_TEXT}, {NULL, NULL, 0}});
	fx_table_json_key(t, "front");
	for (size_t i = 0; i < p->nobj; i++)
		fx_table_add_col(t, fx_plan_objective_field(p->obj[i]), fx_plan_objective_name(p->obj[i]),
				 obj_kind(p->obj[i]));
	double *xs = fx_xmalloc((r->nfront + 1) * sizeof *xs), *ys = fx_xmalloc((r->nfront + 1) * sizeof *ys);
	for (size_t i = 0; i < r->nfront; i++) {
		const fx_plan_rec *e = fx_plan_rec_find(r, (uint64_t)r->front[i]);
		fx_plan_scheme s;
		char b[256];
		fx_plan_scheme_at(p, r, (uint64_t)r->front[i], &s);
		fx_table_cell(t, "%s", fx_plan_scheme_text(&s, p, b, sizeof b));
		for (size_t k = 0; k < p->nobj; k++)
			fx_table_num(t, e->obj[p->obj[k]]);
		xs[i] = e->obj[p->obj[0]];
		ys[i] = e->obj[p->obj[1]];
	}
	int rc = fx_sink_put(c->out, t, c->d);
	if (rc == 0 && plot_dir && r->nfront) {
		fx_plot_series s = {"Pareto front", xs, ys, r->nfront, 2, NULL, NULL};
		fx_plot_panel pn = {fx_plan_objective_name(p->obj[1]), 0, &s, 1};
		fx_plot pl = {.title = "Plan: the Pareto front", .xlabel = fx_plan_objective_name(p->obj[0]),
			      .p = &pn, .np = 1};
		char path[1200], err[256];
		snprintf(path, sizeof path, "%s/front.svg", plot_dir);
		if (fx_plot_draw(&pl, path, err, sizeof err))
			rc = fx_diag_error(c->d, NULL, "--plot: %s", err);
	}
	free(xs);
	free(ys);
	return rc;
}

/* The options over the problem the spec gave. */
static int apply_opts(pctx *c, fx_plan_problem *p, const fx_plan_opts *o)
{
	int rc = 0;
	if (o->objective)
		rc |= fx_plan_set_objectives(p, o->objective, c->d);
	if (o->deadline > 0)
		p->knobs.deadline = o->deadline;
	if (o->sessions > 0) {
		if (p->kind != FX_PLAN_DECODE)
			rc = fx_diag_error(c->d, NULL, "--sessions: the workload trains (no sessions)");
		p->knobs.sessions = o->sessions;
	}
	if (o->context >= 0)
		p->knobs.context = o->context;
	if (o->power_cap > 0)
		p->knobs.power_cap = o->power_cap;
	if (o->tie >= 0)
		p->uncertainty = o->tie;
	if (o->margin >= 0)
		p->margin = o->margin;
	if (o->limit > 0)
		p->limit = (uint64_t)o->limit;
	p->exhaustive |= o->exhaustive;
	return rc;
}

int fx_plan_applies(const fx_design *ds)
{
	const fx_snode *wl = fx_snode_get(ds->spec.root, "workload");
	return (ds->work.have_model || fx_plan_uses_step(ds)) && ds->accel.hbm > 0 &&
	       (ds->sessions.count > 0 || (wl && fx_snode_get(wl, "training")));
}

static int plan(pctx *c, const fx_plan_opts *o)
{
	fx_plan_problem p;
	if (fx_fabric_degraded(&c->ds->fab))
		return fx_diag_error(c->d, NULL, "plan: the fabric has failed elements (--fail, "
				     "failures:); plan an intact fabric");
	if (fx_plan_problem_init(&p, c->ds, c->d))
		return -1;
	int rc = apply_opts(c, &p, o);
	p.csv_rows = o->csv != NULL;  /* every rank sends them; rank 0 writes */
	fx_outfile csv = {0};
	FILE *cf = NULL;
	if (rc == 0 && o->csv && !o->follower && !(cf = fx_outfile_open(&csv, o->csv)))
		rc = fx_diag_error(c->d, NULL, "--csv: cannot write '%s': %s", o->csv, strerror(errno));
	fx_plan_result r;
	memset(&r, 0, sizeof r);
	/* a follower (an MPI rank but 0) takes its share and writes nothing */
	const char *plot_dir = o->follower ? NULL : o->plot;
	char binding[600] = "";
	if (rc == 0)
		rc = fx_plan_search(&p, NULL, o->exec, cf, &r, c->d);
	if (rc == 0)
		rc = summary(c, &p, &r, o->jobs > 0 ? o->jobs : 1);
	if (rc == 0)
		rc = choice(c, &p, &r);
	if (rc == 0 && r.best >= 0)
		rc = runners_up(c, &p, &r);
	if (rc == 0)
		rc = excluded(c, &p, &r, binding, sizeof binding);
	if (rc == 0)
		rc = front(c, &p, &r, plot_dir);
	if (rc == 0 && r.best >= 0 && p.kind == FX_PLAN_DECODE && o->sensitivity)
		rc = sensitivity(c, &p, &r);
	if (rc == 0 && r.best >= 0 && o->flips)
		rc = flips(c, o, &p, &r, plot_dir);
	if (cf && fx_outfile_close(&csv, rc == 0) && rc == 0)
		rc = fx_diag_error(c->d, NULL, "--csv: cannot write '%s': %s", o->csv, strerror(errno));
	cf = NULL;
	if (rc == 0 && r.best < 0 && !r.limited)
		rc = fx_diag_infeasible(c->d, "no feasible scheme among %llu: the furthest any got was "
					"%s", (unsigned long long)r.counts.generated,
					binding[0] ? binding : "none");
	else if (rc == 0 && r.limited)
		rc = fx_diag_undecided(c->d, "plan.limit: %llu of the %llu schemes considered; %s",
				       (unsigned long long)r.counts.considered,
				       (unsigned long long)r.counts.generated,
				       r.best >= 0 ? "the best found is above, not proven optimal"
						   : "none of them is feasible");
	if (cf)
		fx_outfile_close(&csv, 0);
	fx_plan_result_release(&r);
	fx_plan_problem_release(&p);
	return rc;
}

char *fx_plan_primary_metric(const fx_design *ds, const fx_plan_opts *o, int *max, fx_diag *d)
{
	pctx cx = {ds, NULL, d}, *c = &cx;
	fx_plan_problem p;
	if (fx_plan_problem_init(&p, c->ds, c->d))
		return NULL;
	char *out = NULL;
	if (apply_opts(c, &p, o) == 0) {
		fx_plan_default_objective(&p);
		*max = fx_plan_objective_maximise(p.obj[0]);
		out = fx_xasprintf("plan.%s", fx_plan_objective_field(p.obj[0]));
	}
	fx_plan_problem_release(&p);
	return out;
}


int fx_report_plan(const fx_design *ds, const fx_plan_opts *o, fx_sink *out, fx_diag *d)
{
	if (!ds || !o || !out)
		return fx_diag_internal(d, "fx_report_plan: a NULL argument");
	pctx c = {ds, out, d};
	return plan(&c, o);
}

int fx_plan_check_opts(const fx_design *ds, const fx_plan_opts *o, fx_diag *d)
{
	fx_plan_problem p;
	if (fx_plan_problem_init(&p, ds, d))
		return -1;
	pctx c = {ds, NULL, d};
	int rc = apply_opts(&c, &p, o);
	fx_plan_problem_release(&p);
	return rc;
}
