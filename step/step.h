/*
 * step: what one serving step of a model costs on a layout of cards (the
 * chapter "Supernodes", §6.1-6.3 and §6.7): memory per card (Eq. 6-1),
 * sessions per card (Eq. 6-14), and the step time, the longest of the
 * weight reads, the state (KV) reads and the compute on the busiest card
 * (Eq. 6-2, per operator or over the whole step), plus the communication
 * of every parallel group on the fabric it crosses, with the pipeline's
 * fill and drain (Eq. 6-7) and Eq. 6-15's balance and fixed latency.
 *
 * A model is an inventory of parts (fx_step_model): each part has its
 * bytes, how it splits over the cards (replicated, TP, EP, a lookup table)
 * and where it lives (HBM, host memory, SRAM, ROM); the per-session state
 * (KV and fixed-size recurrent state) has its own entry.  A shape
 * (placement/model.h's fx_model) becomes an inventory with
 * fx_step_from_shape; a spec may give the parts directly
 * (`workload.inventory`, docs/spec.md).
 *
 * Communication times come from the caller: the model asks a callback for
 * each collective it needs (group, pattern, members, stride, bytes), and
 * the caller routes it on the fabric, looks it up in a measured table or
 * uses a closed form (fx_step_comm_closed).  fx_step_cache memoises a
 * callback so a planner evaluating millions of layouts routes each
 * distinct call once.  fx_step_eval itself does no allocation and no
 * routing: it costs microseconds (bench/step.c, docs/performance.md).
 *
 * Layout of an instance's cards (rank order, as placement numbers them):
 * tp fastest, then cp, ep, pp, dp; the expert pool, when there is one,
 * after all of them.  A TP group is tp consecutive ranks; an EP
 * collective runs among the ranks with the same tp and cp index (stride
 * tp x cp); a CP group has stride tp; PP hand-offs have stride tp x cp x ep.
 *
 * Ownership: every struct is plain data; fx_step_cache is created and
 * freed by its caller.
 */
#ifndef FX_STEP_H
#define FX_STEP_H

#include <stddef.h>
#include <stdint.h>

#include "../core/diag.h"
#include "../placement/model.h"
#include "../spec/spec.h"

#define FX_STEP_PARTS 16

/* How a part splits over the cards of an instance. */
typedef enum fx_step_split {
	FX_SPLIT_REPLICATED = 0,  /* one copy on every card */
	FX_SPLIT_TP,              /* split min(tp, units) ways in the TP group */
	FX_SPLIT_EP,              /* routed experts: over the EP groups, each expert tp ways */
	FX_SPLIT_TABLE,           /* a lookup table: rows looked up per token, sharded
				   * over every card of a stage when in HBM */
	FX_SPLITS
} fx_step_split;

/* Where a part or the state lives, and so which path reads it. */
typedef enum fx_step_where {
	FX_WHERE_HBM = 0, FX_WHERE_HOST, FX_WHERE_SRAM, FX_WHERE_ROM, FX_WHERES
} fx_step_where;

const char *fx_step_split_name(fx_step_split s);
const char *fx_step_where_name(fx_step_where w);

typedef struct fx_step_part {
	char name[40];
	fx_step_split split;
	fx_step_where where;
	double bytes;            /* the whole part, one copy */
	double read;             /* replicated and TP parts: bytes of one copy read per
				  * step (< 0: all of it; 0: never, e.g. an embedding
				  * looked up, not multiplied) */
	double flops_per_token;  /* matrix FLOPs one token costs in this part (EP: over
				  * its top_k experts, all layers) */
	int64_t units;           /* TP: the most ways it splits (heads); 0: any */
	int64_t layers;          /* layers it spans (PP splits them); 0: not layered */
	int last_stage;          /* not layered: on the last PP stage (else the first) */
	/* EP */
	int64_t experts, top_k;  /* per layer */
	double token_bytes;      /* one token's vector as dispatched to an expert */
	int per_card;            /* dispatch one copy per destination card (§6.2.6:
				  * 32 KiB) instead of one per expert (64 KiB) */
	double a2a_token_bytes;  /* > 0: bytes one token puts into each all-to-all
				  * (dispatch or combine), overriding copies x
				  * token_bytes */
	int even;                /* experts held evenly, bytes / groups (Eq. 6-14's
				  * 288.8 GB / S; pieces of experts where the groups
				  * do not divide them), not whole experts
				  * (ceil(experts / groups) on the busiest) */
	/* table */
	double row_bytes, rows_per_token;
} fx_step_part;

/* The state a session keeps (KV, recurrent state), summed over layers. */
typedef struct fx_step_state {
	double per_token;        /* bytes per context token (full-attention KV,
				  * MLA latents, per-token cross-layer state) */
	double per_session;      /* fixed bytes per session (linear attention's
				  * recurrent and convolution state) */
	double read_per_step;    /* < 0: a step reads all of it; else bytes of one
				  * session read per step (sparse attention) */
	int64_t units;           /* splits min(tp, units) ways (KV heads; 1: MLA's
				  * latent, copied on every TP rank) */
	int64_t layers;          /* layers holding it (PP splits them) */
	fx_step_where where;
	double attn_flops;       /* attention FLOPs per query token per context
				  * position (QK^T and PV: 4 x heads x head_dim x
				  * full-attention layers) */
	int64_t q_heads, head_dim;  /* CP's statistics: (head_dim + 2) x q_heads FP32 */
} fx_step_state;

typedef struct fx_step_model {
	fx_step_part part[FX_STEP_PARTS];
	int nparts;
	fx_step_state kv;
	double flops_per_token;  /* matrix FLOPs per token outside the parts */
	int64_t layers;          /* transformer layers */
	int64_t moe_layers;      /* layers with a dispatch and a combine (0: the EP
				  * part's layers) */
	double act_bytes;        /* one token's hidden vector as activations move
				  * (PP hand-offs, SP): hidden x activation dtype */
	double reduce_bytes;     /* one token's vector in a TP reduction */
	int64_t tp_reductions;   /* TP reductions per step (2 x layers, §6.2.2) */
	double params_bytes;     /* bytes per parameter, for reports (0: unknown) */
} fx_step_model;

/* The cards an instance uses and how the work splits over them. */
typedef struct fx_step_layout {
	int64_t tp, cp, ep, pp, dp;  /* each >= 1; dp: replicas, no exchange */
	int64_t tp_rows;         /* 2-D TP: tp = tp_rows x (tp / tp_rows) (0 or 1: 1-D) */
	int sp;                  /* sequence parallel in the TP group (§6.2.3) */
	int attention_tp;        /* attention splits over the TP group of the expert
				  * group (else each card serves its own sessions: data
				  * parallel, §6.7.4; only with tp 1) */
	int ep_allreduce;        /* every expert group runs attention for the same
				  * sessions and the groups' contributions are reduced
				  * (§6.3.1), instead of dispatch and combine */
	int cp_zigzag;           /* CP pairs early with late positions (§6.2.4) */
	int64_t microbatches;    /* PP micro-batches per step (>= 1) */
	int64_t expert_replicas; /* copies of every expert (>= 1) */
	int64_t expert_pool;     /* cards of a separate expert pool (0: none) */
	int overlap_step;        /* reads and compute overlap over the whole step
				  * (§6.7.4), not per operator (Eq. 6-2 each) */
} fx_step_layout;

/* How a batch's tokens pick experts. */
typedef enum fx_step_moe {
	FX_MOE_RANDOM = 0,       /* independent and uniform: Eq. 6-8 */
	FX_MOE_BALANCED,         /* every expert gets m k / E (§6.2.2 footnote 36) */
	FX_MOE_HOT,              /* hot_share of the assignments on hot_experts */
	FX_MOES
} fx_step_moe;
const char *fx_step_moe_name(fx_step_moe m);

typedef enum fx_step_phase { FX_PHASE_DECODE = 0, FX_PHASE_PREFILL } fx_step_phase;

typedef struct fx_step_load {
	fx_step_phase phase;
	int64_t context;         /* tokens of context each session holds */
	int64_t prompt;          /* prefill: tokens of each session in the step */
	int64_t batch;           /* sessions per expert group (per card with data-
				  * parallel attention); 0: as many as fit (Eq. 6-14) */
	fx_step_moe moe;
	double hot_share;        /* FX_MOE_HOT: share of assignments, (0, 1] */
	int64_t hot_experts;     /* FX_MOE_HOT: experts taking it (0: top_k) */
	int64_t hot_groups;      /* FX_MOE_HOT: EP groups they are spread over (0: 1) */
	int64_t total;           /* > 0: the instance serves this many sessions in all
				  * (1: a single user, §6.7.4), the busiest unit
				  * ceil(total / units) of them; overrides batch */
} fx_step_load;

/* The accelerator and the other paths state may take. */
typedef struct fx_step_hw {
	fx_accel a;              /* hbm, hbm_bw, flops, reserve */
	double efficiency;       /* fraction of flops matrix work reaches (0: 1) */
	double host_bw;          /* host memory: bandwidth per card, bytes/s */
	double host_rtt;         /* one round trip, seconds */
	double host_reads;       /* random reads per second per card (0: host_inflight / host_rtt) */
	double host_inflight;    /* reads in flight per card */
	double sram, sram_bw;    /* on-chip SRAM per card: bytes, bytes/s */
	double rom_bw;           /* ROM read bandwidth per card, bytes/s */
	double balance;          /* Eq. 6-15's balance factor (0 or 1: none; 0.9) */
	double fixed_per_layer;  /* Eq. 6-15's fixed pipeline latency per layer, seconds */
} fx_step_hw;

/* ---- communication ---- */

typedef enum fx_step_group {
	FX_STEP_TP = 0, FX_STEP_EP, FX_STEP_PP, FX_STEP_CP, FX_STEP_TABLE, FX_STEP_GROUPS
} fx_step_group;
const char *fx_step_group_name(fx_step_group g);

/* One collective the model needs; `bytes` is fx_coll_req's size (all-to-
 * all: what each rank sends in all; all-gather and reduce-scatter: the
 * whole vector). */
typedef struct fx_step_call {
	fx_step_group group;
	const char *pattern;     /* allreduce, all-to-all, reduce-scatter, all-gather, broadcast */
	const char *algo;        /* NULL: the pattern's default */
	int64_t n, stride;       /* members; their distance in the instance's rank order */
	double bytes;
} fx_step_call;

/* Seconds one call takes (NaN: cannot be had; the step is then NaN).
 * Sets *measured to 1 when the time is a measured one, not modelled. */
typedef double (*fx_step_comm_fn)(void *ctx, const fx_step_call *c, int *measured);

/* A closed form for tests, benches and planners without a fabric: cards
 * sit in servers of `per_server` (aligned to the instance's rank order);
 * inside a server a round costs alpha_in + bytes / bw_in, across servers
 * alpha_out + bytes / bw_out.  Allreduce, reduce-scatter, all-gather: ring
 * (Eq. 6-9), every round waiting on the slowest hop it has (§6.5.1: 30
 * rounds of 3.76 us for TP16 over two servers); all-to-all: one round,
 * each rank's bytes to other servers on its NIC, the rest on its in-server
 * links, the slower of the two (§6.7.4: seven-eighths over the NIC);
 * broadcast (a hand-off): one round. */
typedef struct fx_step_closed {
	int64_t per_server;      /* 0: every card in one server */
	double alpha_in, bw_in, alpha_out, bw_out;
} fx_step_closed;
double fx_step_comm_closed(void *ctx, const fx_step_call *c, int *measured);

/* Memoises a callback: each distinct call (group, pattern, algo, n,
 * stride, bytes) is asked once. */
typedef struct fx_step_cache fx_step_cache;
fx_step_cache *fx_step_cache_new(fx_step_comm_fn fn, void *ctx);
void fx_step_cache_free(fx_step_cache *c);
/* The fx_step_comm_fn to pass with the cache as ctx. */
double fx_step_comm_cached(void *cache, const fx_step_call *c, int *measured);
/* Calls answered from the cache, and calls passed on. */
void fx_step_cache_stats(const fx_step_cache *c, int64_t *hits, int64_t *misses);

/* ---- the result ---- */

typedef struct fx_step_result {
	int ok;                  /* 0: the layout cannot run the model (why says why) */
	char why[160];
	/* memory of the busiest card (Eq. 6-1), bytes */
	double part_card[FX_STEP_PARTS];  /* each part on the card, wherever it lives (an
					   * EP part with an expert pool: on a pool card) */
	double weights;          /* W: weights in HBM */
	double pool_card;        /* experts on one card of the expert pool */
	double state_session;    /* K: one session's state on the card */
	double activations;      /* A: the step's live activations */
	double reserve;          /* U */
	double free;             /* C - W - A - U (HBM left for state) */
	int64_t capacity;        /* sessions the card holds: Eq. 6-14 */
	int64_t batch;           /* sessions per expert group in this step */
	double state_card;       /* their state on the card */
	double tokens;           /* tokens the instance's step produces (decode) or
				  * takes in (prefill), over its replicas */
	int64_t cards;           /* cards of one instance */
	/* MoE, per layer and micro-batch */
	double active_experts;   /* over the instance (Eq. 6-8 under random) */
	double busiest_experts;  /* experts the busiest EP group reads */
	double busiest_rows;     /* token-expert assignments it computes */
	double mean_rows;        /* the mean over EP groups */
	/* one pass of one micro-batch through the busiest stage's busiest card */
	double read_weights;     /* bytes of weights it reads (HBM and ROM) */
	double read_state;       /* bytes of state it reads */
	double flops;            /* matrix FLOPs it computes */
	double t_weights, t_state, t_compute;  /* each alone, seconds */
	double t_local;          /* the three overlapped (per operator or per step) */
	double t_table;          /* lookup-table fetch (prefetched: hidden when
				  * shorter than the first layer) */
	int table_hidden;
	double t_first;          /* the first layer: local + communication over layers
				  * (§6.7.4: 69 us on an H100 at batch 1) */
	double t_comm[FX_STEP_GROUPS];  /* per pass, per group kind */
	double t_stage;          /* one micro-batch through the busiest stage */
	/* the step */
	double bubble;           /* PP idle fraction, 1 - b / (q + b - 1) (Eq. 6-7) */
	double comm;             /* communication per step */
	double fixed;            /* Eq. 6-15's fixed latency */
	double step;             /* seconds */
	const char *binds;       /* "weights", "state", "compute" or "communication" */
	double comm_share;       /* comm / step */
	double tokens_per_s;     /* per instance */
	double tokens_per_s_card;
	double weight_read_total;/* bytes of weights the whole instance reads per step */
	int calls, measured;     /* communication calls asked, of them measured */
} fx_step_result;

/*
 * Evaluates one step.  The batch is load->batch sessions per expert group
 * (0: capacity, Eq. 6-14; a layout whose card holds no session is not ok).
 * comm may be NULL: free communication.  Returns 0, or -1 when a call's
 * time is NaN (out->ok = 0, why names the call).  Never allocates.
 */
int fx_step_eval(const fx_step_model *m, const fx_step_hw *hw, const fx_step_layout *lay,
		 const fx_step_load *ld, fx_step_comm_fn comm, void *ctx, fx_step_result *out);

/* A layout of one instance with every degree 1 and attention TP. */
void fx_step_layout_init(fx_step_layout *l);

/* ---- models ---- */

/* The inventory of a shape (placement/model.h): attention Q/O (split by
 * heads) and K/V (by KV heads), dense FFNs, routed experts (EP), shared
 * experts, router and norms (replicated; norms not read, as in Eq. 6-4),
 * embedding (not read) and output head (TP, by vocabulary), the KV and
 * fixed state.  With tp = ep = 1 its weights are fx_model_params x dtype
 * and a batch-1 read fx_model_read_per_token. */
void fx_step_from_shape(const fx_model *shape, fx_step_model *out);

/* Bytes of all weights, one copy each. */
double fx_step_model_bytes(const fx_step_model *m);

/* ---- the chapter's forms ---- */

/* Eq. 6-2: max(F / P, V / B). */
double fx_step_roofline(double flops, double bytes, double P, double B);
/* Eq. 6-7: q stages, b micro-batches of stage times t[0..q) (t NULL: all
 * `t1`): the last micro-batch finishes at sum(t) + (b - 1) max(t). */
double fx_step_pipeline(int64_t q, int64_t b, const double *t, double t1);
/* Eq. 6-7's utilisation b / (q + b - 1). */
double fx_step_pipeline_eff(int64_t q, int64_t b);
/* Eq. 6-8: E [1 - (1 - k / E)^m]. */
double fx_step_active_experts(int64_t E, int64_t k, double m);
/* Eq. 6-14: floor((C - W - U) / K), 0 when nothing is left; INT64_MAX when K is 0. */
int64_t fx_step_sessions(double C, double W, double U, double K);
/* Eq. 6-15: max(Tw, Tkv, Tc) / balance + comm + fixed. */
double fx_step_eq615(double tw, double tkv, double tc, double comm, double fixed,
		     double balance);
/* Causal query-key pairs of positions lo+1 .. hi (§6.2.4: 1 + ... + 8 = 36). */
double fx_step_causal_pairs(double lo, double hi);
/* The busiest of cp cards' pairs over n positions, contiguous or zigzag
 * (§6.2.4: 26 of 36 contiguous on two cards, 18 zigzag). */
double fx_step_cp_busiest(double n, int64_t cp, int zigzag);
/* §6.2.2: a [M, K] x [K, N] projection on a rows x cols grid of cards:
 * bytes each card sends gathering the input shards of its row and the
 * weight shards of its column (4 x 4 of [8192,4096] x [4096,12288] BF16:
 * 12 and 18 MiB). */
void fx_step_tp2d_gather(double M, double K, double N, double elem, int64_t rows,
			 int64_t cols, double *row_send, double *col_send);
/* §6.2.6: bytes one token's dispatch sends, per expert (k copies) or per
 * destination card (cards_hit copies): 64 and 32 KiB for 8 experts on 4
 * remote cards at 8 KiB. */
double fx_step_dispatch_bytes(double token_bytes, int64_t k, double cards_hit, int per_card);

/* ---- spec ---- */

/* Reads `workload.inventory`, `workload.layout`, `workload.serve` and the
 * step keys of `workload.accelerator` over defaults from `shape` (may be
 * NULL), `scheme` (tp, ep, pp, dp; may be NULL), the accelerator and the
 * sessions' context (each may be NULL).  *have is 1 when the spec gives a
 * model or an inventory.  0, or -1 after reporting every problem at its
 * FILE:LINE:COL. */
int fx_step_parse(fx_diag *d, const fx_spec *spec, const fx_model *shape,
		  const int64_t *scheme, const fx_accel *a, const fx_sessions *ses,
		  fx_step_model *m, fx_step_layout *lay, fx_step_load *ld, fx_step_hw *hw,
		  int *have);

#endif
