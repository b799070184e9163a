/*
 * The planner's training step model: one step of a global batch of
 * sequences over DP x PP x TP (x CP, EP), the pipeline's bubble from
 * Eq. 6-7 of the chapter "Supernodes" (§6.2.5).
 *
 * Per device, per micro-batch of b = global_batch / (DP x micro)
 * sequences of s tokens on one stage of ceil(layers / PP) layers:
 *
 *   compute   6 x the stage's parameters per device x its tokens (forward
 *             2, backward 4) + attention 12 s^2 h per layer and sequence
 *             (QK^T and PV, forward and backward, no causal saving), over
 *             TP (and CP, which splits the queries), at `efficiency` x the
 *             accelerator's peak (Eq. 6-2's max with the weights read
 *             three times)
 *   TP        4 allreduces per layer of the micro-batch's activations
 *             (b s h, BF16: two forward, two backward, Megatron-LM's
 *             layout; with SP the reduce-scatter and all-gather that
 *             replace them move the same bytes, §6.2.3)
 *   CP        2 all-gathers per layer of the K and V of the sequence
 *             (forward and backward)
 *   EP        the tokens split over the EP groups as over DP replicas, the
 *             groups' expert outputs reduced twice per layer (forward,
 *             backward), as decode's §6.3.1 layout
 *   PP        a hand-off of the micro-batch's activations forward and
 *             one back per stage boundary
 *   DP        one allreduce of the device's gradients (FP32, the model's
 *             reduce_dtype) per step, after the pipeline drains (not
 *             overlapped: the pessimistic end)
 *   memory    weights and optimizer state (plan.training.optimizer_bytes
 *             per parameter, 16 for mixed-precision Adam, ZeRO paper §3;
 *             no sharding of it) + activations of the micro-batches in
 *             flight on the first stage (min(PP, micro), 1F1B), each
 *             Korthikanti et al. 2022 Table 2 per layer: s b h (10 + 24/t
 *             + 5 a s / (h t)) bytes without SP, s b h (34/t + 5 a s /
 *             (h t)) with SP, 2 s b h with full recomputation (its GPT
 *             shape: a 4h MLP; gated FFNs are approximated by it)
 *
 * The step: (PP + micro - 1) x (stage compute + its communication) + the
 * DP reduction (Eq. 6-7).
 */
#include <math.h>
#include <string.h>

#include "plan_internal.h"

static double layers_stage(const fx_model *m, int64_t pp)
{
	return ceil((double)m->layers / (double)pp);
}

/* Sequences per micro-batch and tokens per device in it. */
static double seqs(const fx_plan_problem *p, const fx_plan_scheme *s)
{
	return (double)p->train.global_batch / ((double)s->deg[FX_PG_DP] * (double)s->micro);
}

static void memory(const fx_plan_problem *p, const fx_plan_knobs *k, const fx_plan_scheme *s,
		   fx_plan_memory *out)
{
	const fx_model *m = &p->ds->work.model;
	memset(out, 0, sizeof *out);
	int64_t tp = s->deg[FX_PG_TP], pp = s->deg[FX_PG_PP];
	out->weights = fx_model_weights_per_stage(m, tp, s->deg[FX_PG_EP], pp);
	double params = out->weights / m->dtype_bytes;
	out->optimizer = params * (p->train.optimizer_bytes - m->dtype_bytes);
	double sl = (double)p->train.seq_len / (double)s->deg[FX_PG_CP];
	double b = seqs(p, s) / (double)s->deg[FX_PG_EP];
	double h = (double)m->hidden, a = (double)m->heads, t = (double)tp;
	double per_layer;
	if (p->train.recompute)
		per_layer = 2.0 * sl * b * h;
	else if (s->sp)
		per_layer = sl * b * h * (34.0 / t + 5.0 * a * sl / (h * t));
	else
		per_layer = sl * b * h * (10.0 + 24.0 / t + 5.0 * a * sl / (h * t));
	double inflight = (double)(s->micro < pp ? s->micro : pp);
	out->activations = per_layer * layers_stage(m, pp) * inflight;
	out->reserve = p->ds->accel.reserve;
	out->total = out->weights + out->optimizer + out->activations + out->reserve;
	(void)k;
}

static void traffic(const fx_plan_problem *p, const fx_plan_scheme *s, fx_plan_group g,
		    fx_plan_traffic *out)
{
	const fx_model *m = &p->ds->work.model;
	memset(out, 0, sizeof *out);
	int64_t pp = s->deg[FX_PG_PP];
	double L = layers_stage(m, pp);
	double sl = (double)p->train.seq_len / (double)s->deg[FX_PG_CP];
	double b = seqs(p, s) / (double)s->deg[FX_PG_EP];
	double act = b * sl * (double)m->hidden * 2.0;  /* BF16 activations */
	switch (g) {
	case FX_PG_TP:
		out->pattern = "allreduce";
		out->bytes = act;
		out->count = 4.0 * L;
		break;
	case FX_PG_CP:
		out->pattern = "all-gather";
		out->bytes = 2.0 * (double)p->train.seq_len * b * (double)m->kv_heads *
			     (double)m->head_dim * m->dtype_bytes / (double)s->deg[FX_PG_TP];
		out->count = 2.0 * L;
		break;
	case FX_PG_EP:
		out->pattern = "allreduce";
		out->bytes = b * sl * (double)m->hidden * m->reduce_bytes;
		out->count = 2.0 * L;
		break;
	case FX_PG_PP:
		out->pattern = "broadcast";
		out->bytes = act;
		out->count = 2;
		break;
	case FX_PG_DP:
		out->pattern = "allreduce";
		out->bytes = fx_model_weights_per_stage(m, s->deg[FX_PG_TP], s->deg[FX_PG_EP], pp) /
			     m->dtype_bytes * m->reduce_bytes;
		out->count = 1;
		break;
	default:
		break;
	}
}

static void local(const fx_plan_problem *p, const fx_plan_knobs *k, const fx_plan_scheme *s,
		  int64_t ctx, fx_plan_local *out)
{
	(void)ctx;
	const fx_model *m = &p->ds->work.model;
	int64_t tp = s->deg[FX_PG_TP], pp = s->deg[FX_PG_PP];
	double L = layers_stage(m, pp);
	double sl = (double)p->train.seq_len / (double)s->deg[FX_PG_CP];
	double b = seqs(p, s) / (double)s->deg[FX_PG_EP];
	double tokens = b * sl;
	/* active parameters per token on this device's stage: the read of a
	 * decode step (every dense weight, top_k experts), the stage's share */
	double active = fx_model_read_per_token(m) / m->dtype_bytes / (double)tp *
			(pp > 1 ? L / (double)m->layers : 1);
	double flops = 6.0 * active * tokens +
		       12.0 * sl * (double)p->train.seq_len * (double)m->hidden * b * L / (double)tp;
	double weights = fx_model_weights_per_stage(m, tp, s->deg[FX_PG_EP], pp);
	double eff = p->train.efficiency > 0 ? p->train.efficiency : 1;
	memset(out, 0, sizeof *out);
	out->compute_s = flops / (p->ds->accel.flops * eff);
	out->weights_s = 3.0 * weights / k->hbm_bw;
	out->kv_s = 0;
	out->time = out->compute_s > out->weights_s ? out->compute_s : out->weights_s;
	out->binds = out->compute_s >= out->weights_s ? "compute" : "HBM: weights";
}

const fx_plan_model fx_plan_model_train = {
	.name = "training: 6 N D compute at the stated efficiency, Eq. 6-7's bubble, "
		"Korthikanti et al. activations",
	.memory = memory,
	.traffic = traffic,
	.local = local,
	.concurrent = NULL,
};
