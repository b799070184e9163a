/*
 * Model shapes and what they imply (the chapter "Supernodes", §6.1-6.3, §6.7): weights per
 * device under a TP x EP layout, KV per token, bytes each device sends per
 * token, and the decode-time deployment choice of §6.7.1-6.7.3.
 *
 * Part of the placement module; placement/placement.h includes it.
 */
#ifndef FX_PLACEMENT_MODEL_H
#define FX_PLACEMENT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "../core/diag.h"
#include "../spec/spec.h"

/* A decoder-only transformer, dense or MoE (`workload.model` in a spec). */
typedef struct fx_model {
	int64_t layers, hidden;
	int64_t heads, kv_heads, head_dim;
	int64_t dense_ffn;        /* intermediate size of a dense FFN (0: MoE only) */
	int64_t experts, top_k;   /* routed experts per layer, chosen per token (0: dense) */
	int64_t expert_ffn;       /* intermediate size of one expert */
	int64_t vocab;
	int tied_embeddings;      /* input embedding shared with the output projection */
	int ffn_plain;            /* FFN of two matrices (GPT-3: up, down) instead of
				   * three (gated: SwiGLU's gate, up, down) */
	double dtype_bytes;       /* weights and KV, e.g. 2 for BF16 */
	double reduce_bytes;      /* element size of TP reductions, e.g. 4 (FP32, the chapter, §6.3.1) */
	/* Shapes beyond standard attention (step/step.h); 0 = absent, and then
	 * every function here gives what it gave before. */
	int64_t dense_layers;     /* MoE: the first dense_layers layers have a dense FFN of
				   * dense_ffn instead of experts (DeepSeek-V3: 3) */
	int64_t shared_experts;   /* experts every token runs, per MoE layer (DeepSeek: 1) */
	int64_t shared_expert_ffn;/* intermediate size of one shared expert */
	int64_t linear_layers;    /* layers of linear attention: no KV, a fixed state
				   * (Qwen3.6-35B-A3B: 30 of 40, §6.2.2); counted with the
				   * projections of full attention */
	double linear_state;      /* bytes of that state per session, all of them
				   * (Qwen3.6: 62.9 MB recurrent + 2.0 MB convolution) */
	int64_t kv_lora_rank, qk_rope_dim;  /* MLA: a layer keeps kv_lora_rank + qk_rope_dim
					     * elements per token, one latent for every head
					     * (DeepSeek-V3: 512 + 64), not split by TP */
	double cross_layer_state; /* bytes per token kept once for all layers (§6.7.1:
				   * V4.1's 890 B) */
} fx_model;

/* Parses a `model:` map (keys as the struct, dtype and reduce_dtype:
 * bf16|fp16|fp8|fp32, ffn: gated|plain; linear_state and cross_layer_state
 * are sizes).  Required: layers, hidden, heads,
 * vocab, and either dense_ffn or all of experts, top_k, expert_ffn; a
 * dense model must say its ffn kind (a GPT-3 shape is 175 B parameters
 * plain and 233 B gated, so no default is safe); MoE experts default to
 * gated, as in every shipped MoE (Qwen3, DeepSeek-V3).  Defaults: kv_heads =
 * heads (must divide heads), head_dim = hidden / heads, dtype bf16,
 * reduce_dtype fp32, tied_embeddings false.  Returns 0, or -1 after
 * reporting every problem through d. */
int fx_model_parse(fx_diag *d, const fx_snode *map, fx_model *m);

/* Parameters in all: per layer Q, K, V, O projections, a SwiGLU dense FFN
 * and/or routed experts (3 matrices each), the router, two RMSNorms and
 * q_norm/k_norm (Qwen3); once the embedding, the output projection (unless
 * tied) and the final norm.  Qwen3-235B-A22B: 470,187,269,120 bytes in
 * BF16 (the chapter, §6.1.2 footnote 1). */
double fx_model_params(const fx_model *m);
/* Bytes of weights one device holds when attention and embeddings split tp
 * ways and experts ep x tp ways (the chapter, §6.3.1: TP2 x EP4 of Qwen3-235B-A22B
 * holds about 64.8 GB per card).  Heads are the unit of the attention
 * split: Q/O split min(tp, heads) ways and K/V min(tp, kv_heads) ways, so
 * past kv_heads the K/V projections are copied like the KV itself (this is
 * footnote 1's 58,959,617,024 bytes under TP8).  Experts: the busiest EP
 * group's ceil(experts / ep), tp ways.  Norms and router on every device;
 * attention is copied in every EP group (§6.3.1). */
double fx_model_weights_per_device(const fx_model *m, int64_t tp, int64_t ep);
/* The same with the layers split into pp pipeline stages: the busiest
 * stage holds ceil(layers / pp) layers and one vocabulary matrix (the
 * embedding on the first stage, the output projection on the last). */
double fx_model_weights_per_stage(const fx_model *m, int64_t tp, int64_t ep, int64_t pp);
/* KV bytes per context token over all layers (the chapter, §6.1.2: 188 KiB). */
double fx_model_kv_per_token(const fx_model *m);
/* Bytes one device sends per token per layer in the TP x EP layout of
 * §6.3.1 (ring reductions: attention and experts within the TP group, then
 * across the EP groups): 16 + 16 + 24 = 56 KiB for TP2 x EP4, hidden 4096,
 * FP32. */
double fx_model_send_per_token(const fx_model *m, int64_t tp, int64_t ep);

/* Weight bytes one batch-1 decode step reads: attention, the dense FFN or
 * the router and top_k experts in every layer, and the output projection
 * (the input embedding is a lookup; norms are left out, as in Eq. 6-4).
 * Qwen3-32B: 63.97 GB; Qwen3-235B-A22B: 43.1 GB (§6.1.2, §6.2.2). */
double fx_model_read_per_token(const fx_model *m);
/* Matrix FLOPs of one batch-1 decode step at context s: 2 per weight read
 * plus QK^T and PV over s + 1 positions (§6.2.2: about 0.34 TFLOPs for
 * Qwen3-32B at 131,064). */
double fx_model_step_flops(const fx_model *m, int64_t s);

/* One accelerator as the decode model sees it. */
typedef struct fx_accel {
	double hbm;          /* bytes */
	double hbm_bw;       /* bytes/s */
	double flops;        /* dense matrix FLOP/s */
	double reserve;      /* workspace kept free per device (in the chapter: 2 GiB) */
} fx_accel;

/* Sessions to serve: `count` sessions of `context` tokens, each continuing
 * `steps` tokens, by `deadline`, at least `min_on_time` of them on time. */
typedef struct fx_sessions {
	int64_t count, context, steps;
	double deadline;     /* seconds */
	double min_on_time;  /* fraction, e.g. 0.75 */
} fx_sessions;

/* Memory one device of the busiest instance holds (bytes). */
typedef struct fx_model_memory {
	double weights;          /* fx_model_weights_per_stage */
	double kv;               /* the KV of its sessions' share */
	double reserve;          /* the accelerator's reserve */
	double total;
	int64_t sessions;        /* sessions of its attention group */
	int64_t tokens;          /* context + steps of each */
} fx_model_memory;

/*
 * Weights + KV + reserve per device for `instances` instances of
 * TP x EP x PP x DP serving the sessions (s may be NULL or count 0: no
 * KV).  Sessions go round-robin to instances, then to the DP replicas,
 * then to the EP groups (attention is data-parallel across EP groups,
 * the chapter, §6.3.1: it is copied in every one); a session's KV of context +
 * steps tokens splits min(tp, kv_heads) ways and over the pipeline stages
 * like the layers.  Activations are not modelled (at decode they are a
 * few MiB against GiBs of weights and KV).
 */
void fx_model_memory_per_device(const fx_model *m, int64_t tp, int64_t ep, int64_t pp,
				int64_t dp, int64_t instances, const fx_accel *a,
				const fx_sessions *s, fx_model_memory *out);

/* One deployment: `instances` instances of TP `tp` over the devices. */
typedef struct fx_choice {
	int64_t tp, instances;
	int64_t capacity;        /* sessions one instance can hold (KV) */
	int fits;                /* every session fits somewhere */
	double step_time;        /* seconds, first step (Eq. 6-5) */
	double session_time;     /* seconds, all `steps` steps (context grows) */
	double allreduce_time;   /* seconds, one TP allreduce */
	double finish;           /* seconds, when the last session finishes */
	int64_t on_time;         /* sessions finished by the deadline */
	int meets;               /* on_time >= min_on_time x count */
	double cost;             /* GPU-seconds: devices x finish */
	double cost_per_on_time; /* Eq. 6-13 */
} fx_choice;

/* The time of one TP allreduce of `bytes` over p devices, from routing. */
typedef double (*fx_allreduce_time)(int64_t p, double bytes, void *ctx);

/* Local time of one decode step at context s on each of p TP devices:
 * max(F/P, V/B) (Eq. 6-2) with V = read_per_token / p + KV of s + 1 tokens
 * / min(p, kv_heads) (Eq. 6-4, 6-5; §6.5.1: TP16 of Qwen3-32B only goes
 * from 3.67 to 2.48 ms) and F = step_flops / p.  Memory-bound at batch 1. */
double fx_model_local_time(const fx_model *m, const fx_accel *a, int64_t p, int64_t s);
/* Sessions of `tokens` context each that one TP-p instance holds:
 * floor((hbm - reserve - weights_per_device(p, 1)) / (KV(tokens) /
 * min(p, kv_heads))).  While p <= kv_heads and the weights split evenly
 * this is footnote 36's floor((p x (hbm - reserve) - W) / S); past that it
 * also charges the copied KV and the per-device norms (footnote 1: 47
 * sessions of 8192 tokens for Qwen3-235B-A22B under TP8). */
int64_t fx_model_sessions_fit(const fx_model *m, const fx_accel *a, int64_t p,
			      int64_t tokens);
/* When session i (0-based, assigned round-robin) of a choice finishes:
 * (i / instances + 1) x session_time. */
double fx_model_session_finish(const fx_choice *c, int64_t i);

/*
 * The deployment table of §6.7.1-6.7.3 for TP = 1, 2, 4, ... up to
 * `devices`: capacity from memory, step time T(p) = T_local/p + 2 x layers
 * x T_AR(p) (Eq. 6-4, 6-5; TP beyond kv_heads replicates KV), sessions
 * assigned round-robin to devices/p instances, each instance serving its
 * sessions one after another.  Fills out[] (at most `cap` rows) and returns
 * the number of rows.
 *
 * TP stops at min(devices, heads).  Capacity is fx_model_sessions_fit() at
 * the final context (context + steps); fits = capacity >= the sessions of
 * the busiest instance (a waiting session keeps its KV).  T_AR is asked for
 * bytes = hidden x dtype_bytes (the BF16 hidden vector, §6.4.2: 10 KiB for
 * Qwen3-32B); t_ar NULL means free communication.  Step k of a session
 * reads the KV of context + k + 1 tokens.  cost bills all `devices` until
 * the last session ends.  A row that does not fit leaves finish, on_time,
 * meets, cost and cost_per_on_time 0; a row with no session on time has
 * cost_per_on_time = INFINITY.
 */
size_t fx_model_choices(const fx_model *m, const fx_accel *a, const fx_sessions *s,
			int64_t devices, fx_allreduce_time t_ar, void *ctx, fx_choice *out, size_t cap);

/* A card failure injected into a deployment's timeline (§6.7.2). */
typedef struct fx_fault {
	int64_t card;        /* device index in the node, 0-based */
	double at;           /* seconds after the sessions arrive */
	double stall;        /* seconds the instance holding the card stops */
} fx_fault;

/*
 * The choice c (from fx_model_choices over `devices` devices) with fault f:
 * the instance holding the card (card / tp) stops at f->at; it resumes at
 * at + stall and redoes the session it was running from that session's
 * start, its later sessions following; the other instances run on (the
 * failure is isolated within an instance).  A fault while the instance is
 * idle costs nothing.  Fills finish (the last), on_time, meets, cost
 * (devices x finish: failure stalls and redos are billed, Eq. 6-13's
 * numerator) and cost_per_on_time; writes each session's finish to
 * done[0 .. s->count) when done != NULL.  In the chapter: TP2 x 4 with card 0 failing
 * at 20 ms for 40 ms finishes at 119.1 / 119.1 / 119.1 / 179.1 ms, 1.433
 * GPU-s, 0.478 per on-time session.
 */
void fx_model_choice_fault(const fx_choice *c, const fx_sessions *s, int64_t devices,
			   const fx_fault *f, fx_choice *out, double *done);

#endif
