/*
 * A shape (placement/model.h) as an inventory of parts, so the step model
 * sees one kind of model.  The parts and their counts follow model.c's
 * parameter groups exactly; with tp = ep = 1 their bytes sum to
 * fx_model_params x dtype and a batch-1 step reads fx_model_read_per_token
 * (tests/unit/test_step.c checks both against model.c).
 */
#include <stdio.h>
#include <string.h>

#include "step.h"

static fx_step_part *add(fx_step_model *o, const char *name, fx_step_split split, double params,
			 double dtype, int64_t layers)
{
	if (params <= 0 || o->nparts >= FX_STEP_PARTS)
		return NULL;
	fx_step_part *p = &o->part[o->nparts++];
	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "%s", name);
	p->split = split;
	p->where = FX_WHERE_HBM;
	p->bytes = params * dtype;
	p->read = -1;
	p->flops_per_token = 2 * params;  /* a multiply and an add per weight */
	p->layers = layers;
	return p;
}

void fx_step_from_shape(const fx_model *s, fx_step_model *o)
{
	memset(o, 0, sizeof *o);
	double h = (double)s->hidden, dt = s->dtype_bytes, L = (double)s->layers;
	double mats = s->ffn_plain ? 2 : 3;
	int64_t moe = s->experts ? s->layers - s->dense_layers : 0;
	int64_t dense = s->experts && s->dense_layers > 0 ? s->dense_layers : s->layers;
	fx_step_part *p;

	if ((p = add(o, "attention q/o", FX_SPLIT_TP, L * 2 * h * (double)(s->heads * s->head_dim), dt,
		     s->layers)))
		p->units = s->heads;
	if ((p = add(o, "attention k/v", FX_SPLIT_TP, L * 2 * h * (double)(s->kv_heads * s->head_dim), dt,
		     s->layers)))
		p->units = s->kv_lora_rank > 0 ? 1 : s->kv_heads;
	add(o, "dense ffn", FX_SPLIT_TP, (double)dense * mats * h * (double)s->dense_ffn, dt, dense);
	if (moe > 0) {
		double e = mats * h * (double)s->expert_ffn;
		if ((p = add(o, "routed experts", FX_SPLIT_EP, (double)moe * (double)s->experts * e, dt,
			     moe))) {
			p->experts = s->experts;
			p->top_k = s->top_k;
			p->flops_per_token = 2 * (double)moe * (double)s->top_k * e;
			p->token_bytes = h * dt;
		}
		add(o, "shared experts", FX_SPLIT_TP,
		    (double)moe * (double)s->shared_experts * mats * h * (double)s->shared_expert_ffn, dt, moe);
		add(o, "router", FX_SPLIT_REPLICATED, (double)moe * h * (double)s->experts, dt, moe);
	}
	/* RMSNorms, q/k norms and the final norm: on every card, and left out
	 * of the reads and FLOPs as Eq. 6-4 leaves them (§6.2.2 footnote 25) */
	if ((p = add(o, "norms", FX_SPLIT_REPLICATED,
		     L * (2 * h + 2 * (double)s->head_dim) + h, dt, s->layers))) {
		p->read = 0;
		p->flops_per_token = 0;
	}
	double vh = (double)s->vocab * h;
	if (s->tied_embeddings) {
		if ((p = add(o, "embedding/output", FX_SPLIT_TP, vh, dt, 0)))
			p->last_stage = 1;
	} else {
		if ((p = add(o, "embedding", FX_SPLIT_TP, vh, dt, 0))) {
			p->read = 0;  /* looked up, not multiplied */
			p->flops_per_token = 0;
		}
		if ((p = add(o, "output head", FX_SPLIT_TP, vh, dt, 0)))
			p->last_stage = 1;
	}

	fx_step_state *k = &o->kv;
	k->per_token = fx_model_kv_per_token(s);
	k->per_session = s->linear_state;
	k->read_per_step = -1;
	k->units = s->kv_lora_rank > 0 ? 1 : s->kv_heads;
	k->layers = s->layers;
	k->where = FX_WHERE_HBM;
	k->attn_flops = 4.0 * (double)s->heads * (double)s->head_dim *
			(double)(s->layers - s->linear_layers);
	k->q_heads = s->heads;
	k->head_dim = s->head_dim;
	o->layers = s->layers;
	o->moe_layers = moe;
	o->act_bytes = h * dt;
	o->reduce_bytes = h * s->reduce_bytes;
	o->tp_reductions = 2 * s->layers;
	o->params_bytes = dt;
}
