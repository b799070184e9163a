/*
 * The planner's batched and MoE decode model, through step/step.h (the
 * chapter "Supernodes", §6.1-6.3 and §6.7.4): used when the spec describes
 * its workload for the step model (`workload.inventory` or
 * `workload.serve`, fx_plan_uses_step).
 *
 * A scheme becomes a step layout: TP, CP, EP, PP and DP are its degrees,
 * SP and the micro-batches its own; everything else (attention data-
 * parallel or TP, dispatch or allreduce, overlap, expert replicas) is the
 * spec's `workload.layout`.  The load is the spec's `workload.serve` at the
 * knobs' context, each card as full as Eq. 6-14 lets it be (or the
 * spec's batch), unless the instance has fewer sessions than that: then
 * exactly its share (fx_step_load.total).  The HBM size and bandwidth are
 * the knobs', so the flip thresholds move them.
 *
 *   memory      the busiest card's weights, the state of the sessions in
 *               its step and the reserve (Eq. 6-1, 6-14).  Sessions beyond
 *               what the cards hold wait for the next wave outside HBM
 *               (the step model batches to capacity), so memory counts one
 *               wave, not every session of the instance as the batch-1
 *               model does.
 *   concurrent  the sessions of one micro-batch of the step (all of them
 *               without a pipeline): the planner's wave is concurrent x
 *               micro sessions, one token each per step.
 *   local       the step model's whole step (pp = 1) or its busiest stage
 *               of one micro-batch (pp > 1; the planner's timeline
 *               interleaves them, Eq. 6-7), communication included: every
 *               collective the step model asks for is timed by plan's
 *               cache (plan/comm.c) on the fabric as placed, at the knobs'
 *               bandwidth and alpha scales, so schemes sharing a group
 *               shape route it once.
 *   traffic     none: the communication is in local.
 *   local_free  the same step with every collective free, routing nothing:
 *               the bound (plan/search.c) that prunes a scheme whose
 *               memory or communication-free time already loses before
 *               any of its collectives is routed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "plan_internal.h"

int fx_plan_uses_step(const fx_design *ds)
{
	const fx_snode *wl = fx_snode_get(ds->spec.root, "workload");
	if (!ds->have_step || !wl || fx_snode_get(wl, "training"))
		return 0;
	return fx_snode_get(wl, "inventory") != NULL || fx_snode_get(wl, "serve") != NULL;
}

typedef struct step_ctx {
	fx_plan_problem *p;
	const fx_plan_knobs *k;
	const fx_plan_scheme *s;
	int failed;
} step_ctx;

static const char *default_algo(const char *pattern)
{
	if (strcmp(pattern, "broadcast") == 0)
		return "chain";
	if (strcmp(pattern, "all-to-all") == 0 && fx_coll_find(pattern, "direct"))
		return "direct";
	if (fx_coll_find(pattern, "ring"))
		return "ring";
	const fx_coll_algo *a = fx_coll_find(pattern, NULL);
	return a ? a->name : "ring";
}

/* One collective of the step model, timed by the planner's cache. */
static double comm_cb(void *vctx, const fx_step_call *c, int *measured)
{
	step_ctx *x = vctx;
	static const int group[FX_STEP_GROUPS] = {
		[FX_STEP_TP] = FX_PG_TP, [FX_STEP_EP] = FX_PG_EP, [FX_STEP_PP] = FX_PG_PP,
		[FX_STEP_CP] = FX_PG_CP, [FX_STEP_TABLE] = -1,
	};
	*measured = 0;
	if (c->n < 2)
		return 0;
	int g = group[c->group];
	const char *algo;
	if (g >= 0 && strcmp(c->pattern, fx_plan_group_pattern(x->p, (fx_plan_group)g)) == 0)
		algo = x->p->algo[g][x->s->algo[g]];
	else
		algo = c->algo ? c->algo : default_algo(c->pattern);
	int64_t D = fx_plan_scheme_devices(x->s);
	if (c->n * c->stride > D) {
		x->failed = 1;
		return NAN;
	}
	/* no fx_diag reaches a model's callback: an internal routing error
	 * is printed on stderr (fx_diag's NULL case) and fails the scheme */
	double t = fx_plan_comm_call(x->p, x->k, c->pattern, algo, c->n, c->stride, D, c->bytes,
				     measured, NULL, 0, NULL);
	if (!(t >= 0)) {
		x->failed = 1;
		return NAN;
	}
	return t;
}

/* The scheme as the step model's layout, load and hardware. */
static void setup(const fx_plan_problem *p, const fx_plan_knobs *k, const fx_plan_scheme *s,
		  int64_t ctx, fx_step_layout *lay, fx_step_load *ld, fx_step_hw *hw)
{
	const fx_design *ds = p->ds;
	*lay = ds->step_layout;
	lay->tp = s->deg[FX_PG_TP];
	lay->cp = s->deg[FX_PG_CP];
	lay->ep = s->deg[FX_PG_EP];
	lay->pp = s->deg[FX_PG_PP];
	lay->dp = s->deg[FX_PG_DP];
	lay->sp = s->sp;
	lay->microbatches = s->micro > 0 ? s->micro : 1;
	if (lay->tp_rows > 1 && lay->tp % lay->tp_rows)
		lay->tp_rows = 0;
	*hw = ds->step_hw;
	hw->a.hbm = k->hbm;
	hw->a.hbm_bw = k->hbm_bw;
	*ld = ds->step_load;
	ld->phase = FX_PHASE_DECODE;
	ld->context = ctx;
}

/* One step of the scheme; comm NULL: free communication.  The load is
 * capacity (or the spec's batch) unless the instance's share of the
 * sessions is smaller. */
static int eval(const fx_plan_problem *p, const fx_plan_knobs *k, const fx_plan_scheme *s,
		int64_t ctx, fx_step_comm_fn comm, void *cctx, fx_step_result *r)
{
	fx_step_layout lay;
	fx_step_load ld;
	fx_step_hw hw;
	setup(p, k, s, ctx, &lay, &ld, &hw);
	int rc = fx_step_eval(&p->ds->step, &hw, &lay, &ld, NULL, NULL, r);
	int64_t share = k->sessions > 0 ? (k->sessions + s->instances - 1) / s->instances : 1;
	int again = comm != NULL;
	if (ld.total == 0 && r->ok && r->tokens > (double)share) {
		ld.total = share;
		again = 1;
	}
	if (again)
		rc = fx_step_eval(&p->ds->step, &hw, &lay, &ld, comm, cctx, r);
	return rc;
}

static void memory(const fx_plan_problem *p, const fx_plan_knobs *k, const fx_plan_scheme *s,
		   fx_plan_memory *out)
{
	fx_step_result r;
	eval(p, k, s, k->context, NULL, NULL, &r);
	memset(out, 0, sizeof *out);
	out->weights = r.weights;
	out->kv = r.state_card;
	out->activations = r.activations > r.reserve ? r.activations - r.reserve : 0;
	out->reserve = r.reserve;
	out->sessions = r.batch;
	out->total = out->weights + out->kv + out->activations + out->reserve;
	if (!r.ok && r.capacity < 1 && out->total <= k->hbm) {
		/* no session fits: one session's state is over (Eq. 6-14) */
		out->kv = r.state_session;
		out->sessions = 1;
		out->total = out->weights + out->kv + out->activations + out->reserve;
	}
}

static void traffic(const fx_plan_problem *p, const fx_plan_scheme *s, fx_plan_group g,
		    fx_plan_traffic *out)
{
	(void)p;
	(void)s;
	(void)g;
	memset(out, 0, sizeof *out);
}

static int64_t concurrent(const fx_plan_problem *p, const fx_plan_knobs *k,
			  const fx_plan_scheme *s)
{
	fx_step_result r;
	eval(p, k, s, k->context, NULL, NULL, &r);
	double m = s->micro > 0 ? (double)s->micro : 1;
	int64_t n = (int64_t)ceil(r.tokens / m - 1e-9);
	return n > 0 ? n : 1;
}

/* One step with the collectives timed (comm) or free (comm 0: the bound,
 * routing nothing; fx_step_eval's stage only grows with communication,
 * the Engram table's excess included, so it is no more than the step). */
static void step_local(const fx_plan_problem *p, const fx_plan_knobs *k, const fx_plan_scheme *s,
		       int64_t ctx, int comm, fx_plan_local *out)
{
	/* the cache is the problem's to fill: plan/eval.c hands its model a
	 * problem it may not change, but routing a collective only adds to
	 * the cache behind p->cache */
	step_ctx x = {(fx_plan_problem *)(uintptr_t)p, k, s, 0};
	fx_step_result r;
	int rc = eval(p, k, s, ctx, comm ? comm_cb : NULL, &x, &r);
	memset(out, 0, sizeof *out);
	out->weights_s = r.t_weights;
	out->kv_s = r.t_state;
	out->compute_s = r.t_compute;
	if (rc || x.failed) {
		out->time = INFINITY;
		out->binds = "a collective the step model needs cannot run here";
		return;
	}
	double t = s->deg[FX_PG_PP] > 1 ? r.t_stage : r.step;
	out->other_s = r.comm;
	out->measured = r.measured > 0;
	out->time = t;
	static const char *const what[] = {"HBM: weights", "HBM: state", "compute", "communication"};
	const char *b = r.binds ? r.binds : "";
	out->binds = strcmp(b, "communication") == 0 ? what[3] : strcmp(b, "compute") == 0 ? what[2]
		     : strcmp(b, "state") == 0 ? what[1] : what[0];
}

static void local(const fx_plan_problem *p, const fx_plan_knobs *k, const fx_plan_scheme *s,
		  int64_t ctx, fx_plan_local *out)
{
	step_local(p, k, s, ctx, 1, out);
}

static void local_free(const fx_plan_problem *p, const fx_plan_knobs *k, const fx_plan_scheme *s,
		       int64_t ctx, fx_plan_local *out)
{
	step_local(p, k, s, ctx, 0, out);
}

const fx_plan_model fx_plan_model_step = {
	.name = "batched/MoE decode: step/step.h (the chapter \"Supernodes\", Eq. 6-1, 6-2, 6-7, "
		"6-8, 6-14, 6-15)",
	.memory = memory,
	.traffic = traffic,
	.local = local,
	.local_free = local_free,
	.local_steps = NULL,
	.concurrent = concurrent,
};
