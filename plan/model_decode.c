/*
 * The planner's decode step model, through placement/model.h: batch-1
 * decode of the workload's sessions (the chapter "Supernodes", §6.2.2,
 * §6.7.1-6.7.3).
 *
 *   local   max(F / P, V / B_HBM) per device (Eq. 6-2), V = the weights a
 *           step reads over TP + the KV of s + 1 tokens over min(TP,
 *           kv_heads) and CP (Eq. 6-4); with TP only this is
 *           fx_model_local_time, the §6.7.1 table's T_local / p
 *   TP      an allreduce of the BF16 hidden vector twice per layer
 *           (Eq. 6-5's 128 T_AR(p) for Qwen3-32B; §6.4.2: M = 10 KiB)
 *   EP      the §6.3.1 layout: attention copied in every EP group, each
 *           group serving its own session (attention data-parallel),
 *           experts split EP x TP ways; a step reads, on the busiest card,
 *           the experts its group's share of the instance's tokens selects
 *           (Eq. 6-8 over the group's experts, balanced routing: the
 *           busiest group's skew is not modelled), and the EP groups'
 *           contributions are reduced once per layer (FP32 hidden vector,
 *           place's default)
 *   CP      the history's KV split over CP ranks (§6.2.4): each reads and
 *           holds 1/CP of it, weights are copied, and the softmax
 *           statistics (m, l and the unnormalised vector u of each query
 *           head the card holds, FP32) are reduced once per layer
 *   PP      layers in stages; the busiest holds ceil(layers / PP) of them
 *           and the output projection; a chain hand-off of the hidden
 *           vector between stages (the timeline is the planner's)
 *   SP      changes nothing at decode (§6.7.3 step four: "sequence
 *           parallelism only changes the storage of one segment of
 *           activation"): activations are not modelled here
 *
 * This is the seam a richer step model replaces (issue #28: batched and
 * MoE decode, skew, dispatch/combine as all-to-all).
 */
#include <math.h>
#include <string.h>

#include "plan_internal.h"

static double min_d(double a, double b)
{
	return a < b ? a : b;
}

/* Sessions on one instance (round-robin), and on its busiest EP group. */
static int64_t per_instance(const fx_plan_knobs *k, const fx_plan_scheme *s)
{
	int64_t n = k->sessions > 0 ? k->sessions : 0;
	return (n + s->instances - 1) / s->instances;
}

static void memory(const fx_plan_problem *p, const fx_plan_knobs *k, const fx_plan_scheme *s,
		   fx_plan_memory *out)
{
	const fx_model *m = &p->ds->work.model;
	fx_accel a = p->ds->accel;
	a.hbm = k->hbm;
	fx_sessions ss = p->ds->sessions;
	ss.count = k->sessions;
	ss.context = k->context;
	fx_model_memory mm;
	fx_model_memory_per_device(m, s->deg[FX_PG_TP], s->deg[FX_PG_EP], s->deg[FX_PG_PP],
				   s->deg[FX_PG_DP], s->instances, &a, &ss, &mm);
	memset(out, 0, sizeof *out);
	out->weights = mm.weights;
	out->kv = mm.kv / (double)s->deg[FX_PG_CP];
	out->reserve = mm.reserve;
	out->total = out->weights + out->kv + out->reserve;
	out->sessions = mm.sessions;
}

static void traffic(const fx_plan_problem *p, const fx_plan_scheme *s, fx_plan_group g,
		    fx_plan_traffic *out)
{
	const fx_model *m = &p->ds->work.model;
	memset(out, 0, sizeof *out);
	switch (g) {
	case FX_PG_TP:
		out->pattern = "allreduce";
		out->bytes = (double)m->hidden * m->dtype_bytes;
		out->count = 2.0 * (double)m->layers;
		break;
	case FX_PG_CP: {
		/* m, l and u (head_dim) per query head on the card, FP32 */
		double heads = ceil((double)m->heads / (double)s->deg[FX_PG_TP]);
		out->pattern = "allreduce";
		out->bytes = heads * ((double)m->head_dim + 2.0) * 4.0;
		out->count = (double)m->layers;
		break;
	}
	case FX_PG_EP:
		out->pattern = "allreduce";
		out->bytes = (double)m->hidden * m->reduce_bytes;
		out->count = (double)m->layers;
		break;
	case FX_PG_PP:
		out->pattern = "broadcast";
		out->bytes = (double)m->hidden * m->dtype_bytes;
		out->count = 1;
		break;
	default:
		break;
	}
}

static int64_t concurrent(const fx_plan_problem *p, const fx_plan_knobs *k,
			  const fx_plan_scheme *s)
{
	(void)p;
	(void)k;
	return s->deg[FX_PG_EP];
}

/* Bytes of one routed expert (the difference a top_k of 0 makes). */
static double expert_bytes(const fx_model *m)
{
	if (m->top_k <= 0)
		return 0;
	fx_model none = *m;
	none.top_k = 0;
	return (fx_model_read_per_token(m) - fx_model_read_per_token(&none)) / (double)m->top_k;
}

static void local(const fx_plan_problem *p, const fx_plan_knobs *k, const fx_plan_scheme *s,
		  int64_t ctx, fx_plan_local *out)
{
	const fx_model *m = &p->ds->work.model;
	fx_accel a = p->ds->accel;
	a.hbm_bw = k->hbm_bw;
	double tp = (double)s->deg[FX_PG_TP], cp = (double)s->deg[FX_PG_CP];
	double ep = (double)s->deg[FX_PG_EP], q = (double)s->deg[FX_PG_PP];
	double read = fx_model_read_per_token(m);
	double eb = expert_bytes(m);
	/* the busiest EP group's active experts for the tokens in flight */
	double experts_read = (double)m->top_k * eb;
	if (m->experts > 0 && ep > 1) {
		double E = (double)m->experts, K = (double)m->top_k;
		int64_t inst = per_instance(k, s);
		double tokens = min_d(ep, (double)(inst > 0 ? inst : 1));
		double held = E >= ep ? ceil(E / ep) : 1;   /* experts a group holds */
		double share = E >= ep ? tokens : tokens * E / ep;  /* tokens its copies see */
		if (share < 1)
			share = 1;
		double active = held * (1 - pow(1 - K / E, share));
		experts_read = active * eb;
	}
	double weights = (read - (double)m->top_k * eb + experts_read) / tp;
	double kv = fx_model_kv_per_token(m) * ((double)ctx + 1) / (min_d(tp, (double)m->kv_heads) * cp);
	double flops_all = fx_model_step_flops(m, ctx), attn = flops_all - fx_model_step_flops(m, -1);
	double flops = (flops_all - attn) / tp + attn / (tp * cp);
	/* the busiest stage: ceil(layers / pp) layers and the output projection */
	double frac = 1;
	double vocab = (double)m->vocab * (double)m->hidden * m->dtype_bytes / tp;
	if (q > 1) {
		frac = ceil((double)m->layers / q) / (double)m->layers;
		weights = (weights - vocab) * frac + vocab;
		kv *= frac;
		flops *= frac;
	}
	out->weights_s = weights / a.hbm_bw;
	out->kv_s = kv / a.hbm_bw;
	out->compute_s = a.flops > 0 ? flops / a.flops : 0;
	out->other_s = 0;
	if (s->deg[FX_PG_CP] == 1 && s->deg[FX_PG_EP] == 1 && q == 1) {
		/* exactly the §6.7.1 table's local time */
		out->time = fx_model_local_time(m, &a, s->deg[FX_PG_TP], ctx);
	} else {
		double v = out->weights_s + out->kv_s;
		out->time = out->compute_s > v ? out->compute_s : v;
	}
	if (out->compute_s > out->weights_s + out->kv_s)
		out->binds = "compute";
	else
		out->binds = out->weights_s >= out->kv_s ? "HBM: weights" : "HBM: KV";
}

/* Both of a step's terms grow linearly with the context (the KV read and
 * the attention FLOPs): from the first and last steps, every step's
 * terms, and the sum of their maximum (Eq. 6-2) in closed form. */
static void local_steps(const fx_plan_problem *p, const fx_plan_knobs *k, const fx_plan_scheme *s,
			int64_t ctx, int64_t steps, fx_plan_local *first, double *sum)
{
	local(p, k, s, ctx, first);
	if (steps <= 1) {
		*sum = steps == 1 ? first->time : 0;
		return;
	}
	fx_plan_local last;
	local(p, k, s, fx_add_sat(ctx, steps - 1), &last);
	double n = (double)steps;
	double v0 = first->weights_s + first->kv_s, v1 = last.weights_s + last.kv_s;
	double f0 = first->compute_s, f1 = last.compute_s;
	double dv = (v1 - v0) / (n - 1), df = (f1 - f0) / (n - 1);
	/* sum of max(v, f) = sum of v + sum of the positive part of g = f - v */
	double total = n * v0 + dv * n * (n - 1) / 2;
	double g0 = f0 - v0, dg = df - dv;
	double ja = 0, jb = n - 1;
	if (dg == 0) {
		if (!(g0 > 0))
			ja = n;  /* empty */
	} else {
		double r = -g0 / dg;
		if (dg > 0)
			ja = r >= 0 ? floor(r) + 1 : 0;
		else
			jb = r > 0 ? ceil(r) - 1 : -1;
		if (ja < 0)
			ja = 0;
		if (jb > n - 1)
			jb = n - 1;
	}
	if (jb >= ja) {
		double cnt = jb - ja + 1;
		total += cnt * g0 + dg * (ja + jb) * cnt / 2;
	}
	*sum = total;
}

const fx_plan_model fx_plan_model_decode = {
	.name = "batch-1 decode: placement/model.h (the chapter \"Supernodes\", Eq. 6-2, 6-4, 6-5)",
	.memory = memory,
	.traffic = traffic,
	.local = local,
	.local_steps = local_steps,
	.concurrent = concurrent,
};
