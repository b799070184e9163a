/*
 * Model shapes and the decode-time deployment choice (the chapter "Supernodes", §6.1-6.3, §6.7).
 *
 * Parameter count of a decoder-only transformer (Qwen3 layout):
 *
 *   per layer  Q and O projections   2 x hidden x heads x head_dim
 *              K and V projections   2 x hidden x kv_heads x head_dim
 *              dense FFN             3 x hidden x dense_ffn (gated,
 *                                    SwiGLU), 2 x when plain (GPT-3)
 *              routed experts        experts x 3 (or 2) x hidden x expert_ffn
 *              router                hidden x experts
 *              RMSNorms              2 x hidden (input, post-attention)
 *              q_norm, k_norm        2 x head_dim
 *   once       embedding + output    vocab x hidden (x 2 when untied)
 *              final norm            hidden
 *
 * For Qwen3-235B-A22B in BF16 this gives 470,187,269,120 bytes, the exact
 * figure of the chapter's footnote 1.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../core/xalloc.h"
#include "model.h"

/* ---- parameter groups (counts, not bytes) ---- */

static double qo_params(const fx_model *m)
{
	return 2.0 * (double)m->hidden * (double)m->heads * (double)m->head_dim;
}

static double kv_proj_params(const fx_model *m)
{
	return 2.0 * (double)m->hidden * (double)m->kv_heads * (double)m->head_dim;
}

/* Matrices of one FFN: gate, up and down when gated; up and down plain. */
static double ffn_mats(const fx_model *m)
{
	return m->ffn_plain ? 2.0 : 3.0;
}

static double dense_ffn_params(const fx_model *m)
{
	return ffn_mats(m) * (double)m->hidden * (double)m->dense_ffn;
}

static double expert_params(const fx_model *m)
{
	return ffn_mats(m) * (double)m->hidden * (double)m->expert_ffn;
}

static double router_params(const fx_model *m)
{
	return (double)m->hidden * (double)m->experts;
}

static double norm_params(const fx_model *m)
{
	return 2.0 * (double)m->hidden + 2.0 * (double)m->head_dim;
}

/* Input embedding plus output projection (one matrix when tied). */
static double vocab_params(const fx_model *m)
{
	return (m->tied_embeddings ? 1.0 : 2.0) * (double)m->vocab * (double)m->hidden;
}

static double min_d(double a, double b)
{
	return a < b ? a : b;
}

/* Layers with the dense FFN, and with experts (and router and shared
 * experts): without dense_layers every layer has whatever it has. */
static double dense_layers(const fx_model *m)
{
	return m->experts && m->dense_layers > 0 ? (double)m->dense_layers : (double)m->layers;
}

static double moe_layers(const fx_model *m)
{
	return m->experts ? (double)(m->layers - m->dense_layers) : 0;
}

static double shared_params(const fx_model *m)
{
	return (double)m->shared_experts * ffn_mats(m) * (double)m->hidden *
	       (double)m->shared_expert_ffn;
}

/* Ways the KV splits over t TP ranks: by KV heads, not at all for MLA's
 * one latent (each rank keeps it whole). */
static double kv_ways(const fx_model *m, double t)
{
	return m->kv_lora_rank > 0 ? 1 : min_d(t, (double)m->kv_heads);
}

/* Fixed state per session (linear attention), bytes. */
static double fixed_state(const fx_model *m)
{
	return m->linear_state;
}

/* ---- parsing ---- */

static int dtype_bytes(fx_diag *d, const fx_snode *map, const char *key, double *out)
{
	static const struct { const char *name; double bytes; } types[] = {
		{"bf16", 2}, {"fp16", 2}, {"fp8", 1}, {"fp32", 4}};
	const fx_snode *n = fx_snode_get(map, key);
	const char *s;
	if (!n)
		return 0;
	if (fx_snode_str(d, n, &s))
		return -1;
	for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
		if (strcmp(s, types[i].name) == 0) {
			*out = types[i].bytes;
			return 0;
		}
	return fx_snode_error(d, n, "'%s' must be bf16, fp16, fp8 or fp32, got '%s'", n->path, s);
}

int fx_model_parse(fx_diag *d, const fx_snode *map, fx_model *m)
{
	static const char *const keys[] = {
		"layers", "hidden", "heads", "kv_heads", "head_dim", "dense_ffn", "experts",
		"top_k", "expert_ffn", "vocab", "tied_embeddings", "dtype", "reduce_dtype", "ffn",
		"dense_layers", "shared_experts", "shared_expert_ffn", "linear_layers",
		"linear_state", "kv_lora_rank", "qk_rope_dim", "cross_layer_state", NULL};
	const int64_t big = INT64_C(1) << 30;
	memset(m, 0, sizeof *m);
	m->dtype_bytes = 2;
	m->reduce_bytes = 4;  /* the chapter, §6.3.1: "The reduction uses FP32" */
	if (map->kind != FX_SNODE_MAP)
		return fx_snode_error(d, map, "'%s' must be a map, got %s", map->path,
				      fx_snode_kind_name(map));
	int rc = fx_spec_keys(d, map, keys);
	rc |= fx_spec_int(d, map, "layers", 1, 1 << 20, &m->layers);
	rc |= fx_spec_int(d, map, "hidden", 1, big, &m->hidden);
	rc |= fx_spec_int(d, map, "heads", 1, 1 << 20, &m->heads);
	rc |= fx_spec_int(d, map, "vocab", 1, big, &m->vocab);
	rc |= fx_spec_int_opt(d, map, "kv_heads", 1, 1 << 20, &m->kv_heads);
	rc |= fx_spec_int_opt(d, map, "head_dim", 1, 1 << 20, &m->head_dim);
	rc |= fx_spec_int_opt(d, map, "dense_ffn", 1, big, &m->dense_ffn);
	rc |= fx_spec_int_opt(d, map, "experts", 1, 1 << 20, &m->experts);
	rc |= fx_spec_int_opt(d, map, "top_k", 1, 1 << 20, &m->top_k);
	rc |= fx_spec_int_opt(d, map, "expert_ffn", 1, big, &m->expert_ffn);
	rc |= fx_spec_int_opt(d, map, "dense_layers", 1, 1 << 20, &m->dense_layers);
	rc |= fx_spec_int_opt(d, map, "shared_experts", 1, 1 << 20, &m->shared_experts);
	rc |= fx_spec_int_opt(d, map, "shared_expert_ffn", 1, big, &m->shared_expert_ffn);
	rc |= fx_spec_int_opt(d, map, "linear_layers", 1, 1 << 20, &m->linear_layers);
	rc |= fx_spec_qty_opt(d, map, "linear_state", FX_UNIT_SIZE, 0, 1, &m->linear_state);
	rc |= fx_spec_int_opt(d, map, "kv_lora_rank", 1, big, &m->kv_lora_rank);
	rc |= fx_spec_int_opt(d, map, "qk_rope_dim", 0, big, &m->qk_rope_dim);
	rc |= fx_spec_qty_opt(d, map, "cross_layer_state", FX_UNIT_SIZE, 0, 0, &m->cross_layer_state);
	int other = fx_spec_bool_opt(d, map, "tied_embeddings", &m->tied_embeddings);
	other |= dtype_bytes(d, map, "dtype", &m->dtype_bytes);
	other |= dtype_bytes(d, map, "reduce_dtype", &m->reduce_bytes);
	if (rc)
		return -1;
	rc = other;  /* the shape checks below still run */

	const fx_snode *kvh = fx_snode_get(map, "kv_heads");
	if (!kvh)
		m->kv_heads = m->heads;
	else if (m->kv_heads > m->heads || m->heads % m->kv_heads)
		rc |= fx_snode_error(d, kvh, "'%s' must divide heads (%lld), got %lld", kvh->path,
				     (long long)m->heads, (long long)m->kv_heads);
	if (!fx_snode_get(map, "head_dim")) {
		if (m->hidden % m->heads)
			rc |= fx_diag_error(d, &map->loc,
					    "missing key '%s%shead_dim' (hidden %lld is not a "
					    "multiple of heads %lld)", map->path,
					    *map->path ? "." : "", (long long)m->hidden,
					    (long long)m->heads);
		m->head_dim = m->hidden / m->heads;
	} else if (m->head_dim > m->hidden) {
		/* a head's query, key and value are projections of the hidden
		 * vector: a head wider than it is no model's shape (Qwen3-32B's
		 * 64 heads of 128 project 5,120; DeepSeek-V3's widest, 192 of
		 * 7,168); hidden: 1 with heads of 128 is a slip, not a design */
		const fx_snode *hd = fx_snode_get(map, "head_dim");
		rc |= fx_snode_error(d, hd, "'%s' (%lld) is wider than hidden (%lld): a head projects "
				     "the hidden vector, so it cannot be wider than it", hd->path,
				     (long long)m->head_dim, (long long)m->hidden);
	}

	/* MoE: experts, top_k and expert_ffn come together */
	static const char *const moe[] = {"experts", "top_k", "expert_ffn"};
	int nmoe = 0;
	for (int i = 0; i < 3; i++)
		nmoe += fx_snode_get(map, moe[i]) != NULL;
	if (nmoe > 0 && nmoe < 3) {
		for (int i = 0; i < 3; i++)
			if (!fx_snode_get(map, moe[i]))
				rc |= fx_diag_error(d, &map->loc,
						    "missing key '%s%s%s' (an MoE model needs "
						    "experts, top_k and expert_ffn)", map->path,
						    *map->path ? "." : "", moe[i]);
	} else if (nmoe == 3 && m->top_k > m->experts) {
		const fx_snode *k = fx_snode_get(map, "top_k");
		rc |= fx_snode_error(d, k, "'%s' must be at most experts (%lld), got %lld", k->path,
				     (long long)m->experts, (long long)m->top_k);
	}
	const fx_snode *ffn = fx_snode_get(map, "ffn");
	const char *fk;
	if (ffn && fx_snode_str(d, ffn, &fk) == 0) {
		if (strcmp(fk, "plain") == 0)
			m->ffn_plain = 1;
		else if (strcmp(fk, "gated") != 0)
			rc |= fx_snode_error(d, ffn, "'%s' must be gated (SwiGLU: gate, up, down) or "
					     "plain (up, down), got '%s'", ffn->path, fk);
	} else if (ffn) {
		rc = -1;
	} else if (fx_snode_get(map, "dense_ffn")) {
		rc |= fx_diag_error(d, &map->loc,
				    "missing key '%s%sffn' (a dense FFN is gated, as SwiGLU, or "
				    "plain, as GPT-3: say which)", map->path, *map->path ? "." : "");
	}
	if (nmoe == 0 && !fx_snode_get(map, "dense_ffn"))
		rc |= fx_diag_error(d, &map->loc,
				    "'%s' has no FFN: give dense_ffn, or experts, top_k and "
				    "expert_ffn", *map->path ? map->path : "(top)");
	if (nmoe < 3)
		m->experts = m->top_k = m->expert_ffn = 0;
	/* the extended shapes: each key needs what it refines */
	const fx_snode *n;
	if ((n = fx_snode_get(map, "dense_layers"))) {
		if (nmoe < 3 || !fx_snode_get(map, "dense_ffn"))
			rc |= fx_snode_error(d, n, "'%s' needs an MoE model with dense_ffn (the first "
					     "layers dense, the rest experts)", n->path);
		else if (m->dense_layers >= m->layers)
			rc |= fx_snode_error(d, n, "'%s' must be less than layers (%lld), got %lld",
					     n->path, (long long)m->layers, (long long)m->dense_layers);
	}
	if ((fx_snode_get(map, "shared_experts") != NULL) != (fx_snode_get(map, "shared_expert_ffn") != NULL))
		rc |= fx_diag_error(d, &map->loc, "'%s' needs both shared_experts and "
				    "shared_expert_ffn", *map->path ? map->path : "(top)");
	else if ((n = fx_snode_get(map, "shared_experts")) && nmoe < 3)
		rc |= fx_snode_error(d, n, "'%s' needs experts, top_k and expert_ffn", n->path);
	if ((n = fx_snode_get(map, "linear_layers")) && m->linear_layers >= m->layers)
		rc |= fx_snode_error(d, n, "'%s' must be less than layers (%lld: some layers keep "
				     "KV), got %lld", n->path, (long long)m->layers,
				     (long long)m->linear_layers);
	if ((n = fx_snode_get(map, "linear_state")) && !fx_snode_get(map, "linear_layers"))
		rc |= fx_snode_error(d, n, "'%s' needs linear_layers", n->path);
	if ((fx_snode_get(map, "kv_lora_rank") != NULL) != (fx_snode_get(map, "qk_rope_dim") != NULL))
		rc |= fx_diag_error(d, &map->loc, "'%s' needs both kv_lora_rank and qk_rope_dim "
				    "(MLA keeps both per token and layer)", *map->path ? map->path : "(top)");
	return rc ? -1 : 0;
}

/* ---- sizes ---- */

double fx_model_params(const fx_model *m)
{
	double L = (double)m->layers;
	double all = L * (qo_params(m) + kv_proj_params(m) + norm_params(m)) +
		     dense_layers(m) * dense_ffn_params(m) +
		     moe_layers(m) * ((double)m->experts * expert_params(m) + router_params(m) +
				      shared_params(m));
	return all + vocab_params(m) + (double)m->hidden;
}

double fx_model_weights_per_device(const fx_model *m, int64_t tp, int64_t ep)
{
	if (tp < 1 || ep < 1)
		return NAN;
	double t = (double)tp;
	/* heads are the unit of attention split: beyond kv_heads the K and V
	 * projections are copied, as KV is (the chapter, §6.2.2; footnote 1's 58.96 GB) */
	double attn = qo_params(m) / min_d(t, (double)m->heads) +
		      kv_proj_params(m) / kv_ways(m, t);
	/* the busiest EP group holds ceil(experts / ep) experts */
	double experts = m->experts ? ceil((double)m->experts / (double)ep) : 0;
	double all = (double)m->layers * (attn + norm_params(m)) +
		     dense_layers(m) * dense_ffn_params(m) / t +
		     moe_layers(m) * (experts * expert_params(m) / t + router_params(m) +
				      shared_params(m) / t) +
		     vocab_params(m) / t + (double)m->hidden;
	return all * m->dtype_bytes;
}

double fx_model_weights_per_stage(const fx_model *m, int64_t tp, int64_t ep, int64_t pp)
{
	if (pp <= 1)
		return fx_model_weights_per_device(m, tp, ep);
	if (tp < 1 || ep < 1)
		return NAN;
	double all = fx_model_weights_per_device(m, tp, ep) / m->dtype_bytes;
	double vocab = vocab_params(m) / (double)tp, layer = (all - vocab - (double)m->hidden) /
							       (double)m->layers;
	double stage = ceil((double)m->layers / (double)pp);
	return (stage * layer + (double)m->vocab * (double)m->hidden / (double)tp +
		(double)m->hidden) * m->dtype_bytes;
}

void fx_model_memory_per_device(const fx_model *m, int64_t tp, int64_t ep, int64_t pp,
				int64_t dp, int64_t instances, const fx_accel *a,
				const fx_sessions *s, fx_model_memory *out)
{
	memset(out, 0, sizeof *out);
	out->weights = fx_model_weights_per_stage(m, tp, ep, pp);
	out->reserve = a ? a->reserve : 0;
	if (s && s->count > 0 && instances > 0) {
		int64_t per = (s->count + instances - 1) / instances;
		per = (per + dp - 1) / dp;
		per = (per + ep - 1) / ep;
		out->sessions = per;
		out->tokens = fx_add_sat(s->context, s->steps > 0 ? s->steps : 0);
		double layers = pp > 1 ? ceil((double)m->layers / (double)pp) / (double)m->layers : 1;
		out->kv = (double)per * (fx_model_kv_per_token(m) * (double)out->tokens + fixed_state(m)) /
			  kv_ways(m, (double)tp) * layers;
	}
	out->total = out->weights + out->kv + out->reserve;
}

double fx_model_kv_per_token(const fx_model *m)
{
	/* only full-attention layers keep KV; MLA keeps one latent per layer */
	double full = (double)(m->layers - m->linear_layers);
	double per_layer = m->kv_lora_rank > 0 ? (double)(m->kv_lora_rank + m->qk_rope_dim)
					       : 2.0 * (double)m->kv_heads * (double)m->head_dim;
	return full * per_layer * m->dtype_bytes + m->cross_layer_state;
}

/* Bytes one member sends in a ring allreduce of M bytes over n (Eq. 6-9). */
static double ring_send(int64_t n, double M)
{
	return n > 1 ? 2.0 * (double)(n - 1) / (double)n * M : 0;
}

double fx_model_send_per_token(const fx_model *m, int64_t tp, int64_t ep)
{
	double M = (double)m->hidden * m->reduce_bytes;
	return 2 * ring_send(tp, M) + ring_send(ep, M);
}

/* Parameters a batch-1 decode step multiplies by (the embedding input is a
 * lookup; norms are left out as the chapter leaves them out in Eq. 6-4). */
static double read_params(const fx_model *m)
{
	double all = (double)m->layers * (qo_params(m) + kv_proj_params(m)) +
		     dense_layers(m) * dense_ffn_params(m) +
		     moe_layers(m) * ((double)m->top_k * expert_params(m) + router_params(m) +
				      shared_params(m));
	return all + (double)m->vocab * (double)m->hidden;
}

double fx_model_read_per_token(const fx_model *m)
{
	return read_params(m) * m->dtype_bytes;
}

double fx_model_step_flops(const fx_model *m, int64_t s)
{
	/* 2 FLOPs per weight; QK^T and PV over s + 1 positions per query head */
	double attn = 4.0 * (double)(m->layers - m->linear_layers) * (double)m->heads *
		      (double)m->head_dim * ((double)s + 1);
	return 2.0 * read_params(m) + attn;
}

double fx_model_local_time(const fx_model *m, const fx_accel *a, int64_t p, int64_t s)
{
	if (p < 1)
		return NAN;
	double v = fx_model_read_per_token(m) / (double)p +
		   (fx_model_kv_per_token(m) * ((double)s + 1) + fixed_state(m)) / kv_ways(m, (double)p);
	double t = v / a->hbm_bw;
	if (a->flops > 0) {
		double f = fx_model_step_flops(m, s) / (double)p / a->flops;
		if (f > t)
			t = f;
	}
	return t;
}

int64_t fx_model_sessions_fit(const fx_model *m, const fx_accel *a, int64_t p, int64_t tokens)
{
	if (p < 1)
		return 0;
	double room = a->hbm - a->reserve - fx_model_weights_per_device(m, p, 1);
	double per = (fx_model_kv_per_token(m) * (double)tokens + fixed_state(m)) /
		     kv_ways(m, (double)p);
	if (!(room > 0))
		return 0;
	if (!(per > 0))
		return INT64_MAX;
	double n = floor(room / per);
	return n > 9e18 ? INT64_MAX : (int64_t)n;
}

double fx_model_session_finish(const fx_choice *c, int64_t i)
{
	if (c->instances < 1 || i < 0)
		return NAN;
	return (double)(i / c->instances + 1) * c->session_time;
}

/* ---- the deployment table ---- */

static void choose(const fx_model *m, const fx_accel *a, const fx_sessions *s,
		   int64_t devices, int64_t p, fx_allreduce_time t_ar, void *ctx, fx_choice *c)
{
	memset(c, 0, sizeof *c);
	c->tp = p;
	c->instances = devices / p;
	int64_t final = fx_add_sat(s->context, s->steps > 0 ? s->steps : 0);
	c->capacity = fx_model_sessions_fit(m, a, p, final);
	int64_t per = s->count > 0 ? (s->count + c->instances - 1) / c->instances : 0;
	c->fits = c->capacity >= per;

	/* the chapter reduces the BF16 hidden vector at decode (§6.4.2: M = 10 KiB) */
	double bytes = (double)m->hidden * m->dtype_bytes;
	c->allreduce_time = p > 1 && t_ar ? t_ar(p, bytes, ctx) : 0;
	double comm = 2.0 * (double)m->layers * c->allreduce_time;
	c->step_time = fx_model_local_time(m, a, p, s->context) + comm;
	for (int64_t k = 0; k < s->steps; k++)
		c->session_time += fx_model_local_time(m, a, p, fx_add_sat(s->context, k)) + comm;

	if (!c->fits)
		return;
	for (int64_t i = 0; i < s->count; i++) {
		double f = fx_model_session_finish(c, i);
		if (f > c->finish)
			c->finish = f;
		if (f <= s->deadline)
			c->on_time++;
	}
	c->meets = (double)c->on_time >= s->min_on_time * (double)s->count - 1e-9;
	c->cost = (double)devices * c->finish;
	c->cost_per_on_time = c->on_time ? c->cost / (double)c->on_time
					 : (s->count ? INFINITY : 0);
}

size_t fx_model_choices(const fx_model *m, const fx_accel *a, const fx_sessions *s,
			int64_t devices, fx_allreduce_time t_ar, void *ctx, fx_choice *out, size_t cap)
{
	size_t n = 0;
	for (int64_t p = 1; p <= devices && p <= m->heads && n < cap; p *= 2)
		choose(m, a, s, devices, p, t_ar, ctx, &out[n++]);
	return n;
}

void fx_model_choice_fault(const fx_choice *c, const fx_sessions *s, int64_t devices,
			   const fx_fault *f, fx_choice *out, double *done)
{
	*out = *c;
	out->finish = 0;
	out->on_time = 0;
	if (!c->fits || c->instances < 1)
		return;
	int64_t hit = f->card / c->tp;  /* the instance holding the card */
	double S = c->session_time;
	for (int64_t i = 0; i < s->count; i++) {
		int64_t k = i % c->instances, j = i / c->instances;  /* instance, position */
		double end = (double)(j + 1) * S;
		if (k == hit) {
			/* the session running at the failure (the j0-th) and those
			 * after it start over from at + stall */
			double j0 = floor(f->at / S);
			if ((double)j >= j0 && f->at < (double)(j + 1) * S)
				end = f->at + f->stall + ((double)j - j0 + 1) * S;
		}
		if (done)
			done[i] = end;
		if (end > out->finish)
			out->finish = end;
		if (end <= s->deadline)
			out->on_time++;
	}
	out->meets = (double)out->on_time >= s->min_on_time * (double)s->count - 1e-9;
	out->cost = (double)devices * out->finish;
	out->cost_per_on_time = out->on_time ? out->cost / (double)out->on_time
					     : (s->count ? INFINITY : 0);
}
