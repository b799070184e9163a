/*
 * plan: given a model, a workload and a fabric under budgets, the best
 * partitioning and placement, and why (the chapter "Supernodes", §6.7.3).
 *
 *   pi* = argmin over the feasible schemes pi of J(pi)
 *
 * A scheme is pi = (TP, CP, EP, PP, DP, SP on/off, micro-batches,
 * instances, a collective algorithm per group kind, placement level).
 * Every scheme the spec's `plan.search` lists (default: every degree that
 * fits the devices) is generated; the feasibility rules are checked in
 * a fixed order (devices, kernel support, keep_within, memory, power,
 * the service deadline) and the first that excludes a scheme is kept with
 * its arithmetic ("TP1: 102.03 GB > 80 GB"); the feasible ones are ranked
 * by the objective.  Nothing is called optimal that was not compared
 * against every feasible scheme or excluded by a proven bound.
 *
 * The step model is a seam (fx_plan_model): the planner asks it for a
 * scheme's memory per device, what each group sends per step and the
 * local time of one step; the timeline, the objectives and the search
 * are the planner's.  Serving a workload the spec gives for step/step.h
 * (`workload.inventory` or `workload.serve`) is its batched and MoE decode
 * (fx_plan_model_step); other decode is placement/model.h's batch-1 model
 * (Eq. 6-2, 6-4, 6-5; fx_plan_model_decode) and training a roofline with
 * Eq. 6-7's bubble (fx_plan_model_train).
 *
 * Collective times come from routing/ on the fabric as placed (or from
 * `collective.measured`), cached by (pattern, algorithm, group's devices,
 * bytes), so schemes sharing a group route it once; each is kept as its
 * parts (rounds, path latency, bandwidth term) so the flip thresholds of
 * link bandwidth and per-round overhead need no routing.
 *
 * Ownership: fx_plan_problem_init fills a problem that borrows the design
 * (which must outlive it); fx_plan_problem_release frees what it owns.
 * fx_plan_result is the caller's, released with fx_plan_result_release.
 */
#ifndef FX_PLAN_H
#define FX_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../core/diag.h"
#include "../design/design.h"
#include "../placement/placement.h"

/* Group kinds of a scheme, in device order within an instance: TP
 * fastest, then CP, EP, PP, DP (a TP group is tp consecutive devices). */
typedef enum fx_plan_group {
	FX_PG_TP = 0, FX_PG_CP, FX_PG_EP, FX_PG_PP, FX_PG_DP, FX_PG_N
} fx_plan_group;
const char *fx_plan_group_name(fx_plan_group g);

/* Objectives (`--objective`, `plan.objective`). */
typedef enum fx_plan_objective {
	FX_PO_LATENCY = 0,   /* one request: a session's continuation (training: a step), s, min */
	FX_PO_COST,          /* GPU-s per on-time session (Eq. 6-13; training: per step), min */
	FX_PO_RATE,          /* requests/s sustained with each within the deadline, max */
	FX_PO_TOKENS_CARD,   /* token/s per device used, max */
	FX_PO_TOKENS_KW,     /* token/s per kW of the nodes used, max */
	FX_PO_N
} fx_plan_objective;
const char *fx_plan_objective_name(fx_plan_objective o);
/* The field name of an objective's value ("cost_per_on_time_s"). */
const char *fx_plan_objective_field(fx_plan_objective o);
int fx_plan_objective_parse(const char *s, fx_plan_objective *out);
int fx_plan_objective_maximise(fx_plan_objective o);

#define FX_PLAN_MAX_VALS 64
#define FX_PLAN_MAX_ALGOS 6
#define FX_PLAN_MAX_OBJ 4

typedef struct fx_plan_scheme {
	int64_t deg[FX_PG_N];     /* tp, cp, ep, pp, dp */
	int sp;                   /* sequence parallelism within the TP group */
	int64_t micro;            /* micro-batches in flight (pipeline) */
	int64_t instances;
	uint8_t algo[FX_PG_N];    /* index into fx_plan_problem.algo[g] */
	uint8_t level;            /* fx_level: smallest domain holding an instance */
} fx_plan_scheme;

struct fx_plan_problem;
/* Devices of one instance: the product of the degrees. */
int64_t fx_plan_scheme_devices(const fx_plan_scheme *s);
/* "TP2 x4" / "TP2 EP4 PP2 m4 x6 (tp tree)" into buf. */
const char *fx_plan_scheme_text(const fx_plan_scheme *s, const struct fx_plan_problem *p,
				char *buf, size_t len);

/* What the workload is. */
typedef enum fx_plan_kind { FX_PLAN_DECODE = 0, FX_PLAN_TRAIN } fx_plan_kind;

/* Training: a global batch of sequences per step (workload.training). */
typedef struct fx_plan_training {
	int64_t global_batch;     /* sequences per step */
	int64_t seq_len;          /* tokens per sequence */
	double efficiency;        /* share of peak FLOP/s matrix work reaches (0..1] */
	double optimizer_bytes;   /* per parameter: weights + gradients + optimizer state */
	int recompute;            /* full activation recomputation */
} fx_plan_training;

/* The inputs the flip thresholds move, as factors on the spec's values or
 * as the values themselves. */
typedef struct fx_plan_knobs {
	double bw_scale;          /* every link's bandwidth x this (modelled collectives) */
	double alpha_scale;       /* per-round overhead x this (modelled collectives) */
	double measured_scale;    /* measured collective times x this */
	double hbm;               /* bytes per device */
	double hbm_bw;            /* bytes/s per device */
	int64_t context;          /* tokens in each session before it continues */
	int64_t sessions;         /* sessions to serve */
	double deadline;          /* s */
	double power_cap;         /* W, 0: none */
} fx_plan_knobs;

struct fx_plan_cache;

/* The seam: what a step model tells the planner about one scheme. */
typedef struct fx_plan_memory {
	double weights, kv, activations, optimizer, reserve, total;  /* bytes per device */
	int64_t sessions;         /* sessions resident on the busiest device's group */
} fx_plan_memory;

typedef struct fx_plan_traffic {
	const char *pattern;      /* NULL: the group sends nothing */
	double bytes;             /* per call */
	double count;             /* calls per step (per micro-batch with a pipeline) */
} fx_plan_traffic;

typedef struct fx_plan_local {
	double weights_s, kv_s, compute_s, other_s;  /* per step on the busiest device
						      * (the step model: other_s is the
						      * communication it times itself) */
	double time;              /* the step's local time (Eq. 6-2: the longest, or a sum) */
	const char *binds;        /* "HBM: weights", "HBM: KV", "compute" */
	int measured;             /* of the communication in it (other_s), some is measured
				   * (collective.measured) */
} fx_plan_local;

typedef struct fx_plan_model {
	const char *name;         /* shown in reports: which equations */
	/* Memory per device of the busiest instance at the knobs' context
	 * and sessions. */
	void (*memory)(const struct fx_plan_problem *p, const fx_plan_knobs *k,
		       const fx_plan_scheme *s, fx_plan_memory *out);
	/* What group g of the scheme sends per step (decode: per token step;
	 * training: per micro-batch). */
	void (*traffic)(const struct fx_plan_problem *p, const fx_plan_scheme *s, fx_plan_group g,
			fx_plan_traffic *out);
	/* Local time of one step at context ctx (decode: tokens in cache
	 * before the step; training: ignored) on the busiest device, per
	 * pipeline stage when pp > 1 (the whole model's when 1). */
	void (*local)(const struct fx_plan_problem *p, const fx_plan_knobs *k,
		      const fx_plan_scheme *s, int64_t ctx, fx_plan_local *out);
	/* The same with communication free, for models whose local time
	 * includes collectives they time themselves (the step model): no
	 * larger than local's, and it routes nothing, so the bounds
	 * (fx_plan_bound) prune before routing.  NULL: local has no
	 * communication in it and is its own bound. */
	void (*local_free)(const struct fx_plan_problem *p, const fx_plan_knobs *k,
			   const fx_plan_scheme *s, int64_t ctx, fx_plan_local *out);
	/* The first of `steps` steps from context ctx, and the sum of their
	 * local times, at once (decode's terms are linear in the context, so
	 * two ends give the sum).  NULL: local() step by step. */
	void (*local_steps)(const struct fx_plan_problem *p, const fx_plan_knobs *k,
			    const fx_plan_scheme *s, int64_t ctx, int64_t steps, fx_plan_local *first,
			    double *sum);
	/* Sessions (decode) one instance runs at once, besides the pipeline's
	 * micro-batches: EP groups serve their own sessions (attention
	 * data-parallel, §6.3.1).  NULL: one. */
	int64_t (*concurrent)(const struct fx_plan_problem *p, const fx_plan_knobs *k,
			      const fx_plan_scheme *s);
} fx_plan_model;

extern const fx_plan_model fx_plan_model_decode;
extern const fx_plan_model fx_plan_model_train;
/* Batched and MoE decode through step/step.h (plan/model_step.c). */
extern const fx_plan_model fx_plan_model_step;
/* Whether a design's serving workload is the step model's: it gives
 * `workload.inventory` or `workload.serve` (and is not training). */
int fx_plan_uses_step(const fx_design *ds);

/* The rules, in the order they are checked: the first that fails
 * excludes a scheme. */
typedef enum fx_plan_rule {
	FX_PR_NONE = 0,           /* feasible */
	FX_PR_DEVICES,            /* instances x devices per instance > devices at the level */
	FX_PR_KERNEL,             /* TP must divide heads (or padded); EP divide experts (or replicate) */
	FX_PR_SHAPE,              /* a degree that does nothing (SP without TP, micro-batches without PP) */
	FX_PR_KEEP,               /* workload.keep_within */
	FX_PR_MEMORY,             /* per-card memory */
	FX_PR_POWER,              /* power budget, rack budget, cooling */
	FX_PR_DEADLINE,           /* the service deadline (min_on_time) */
	FX_PR_COMM,               /* a group's collective cannot run here */
	FX_PR_BOUND,              /* not evaluated: its bound already loses */
	FX_PR_IDLE,               /* not evaluated: instances beyond the sessions only idle */
	FX_PR_N
} fx_plan_rule;
const char *fx_plan_rule_name(fx_plan_rule r);

/* One scheme as evaluated. */
typedef struct fx_plan_eval {
	fx_plan_scheme s;
	fx_plan_rule rule;        /* FX_PR_NONE: feasible */
	int want_why;             /* set by the caller: fill why (reports; the search
				   * leaves it, text costs more than the decision) */
	char why[384];            /* the rule's arithmetic */
	double excess;            /* how far over its rule: needed over available (>= 1) */
	fx_plan_memory mem;
	fx_plan_local local;      /* the first step's */
	double comm[FX_PG_N];     /* s per step (per micro-batch) per group kind */
	int measured[FX_PG_N];    /* its time is measured (collective.measured) */
	double stage;             /* s: one pipeline stage of one step (pp = 1: the step) */
	double step;              /* s: one step of one session alone */
	double session;           /* s: a session's continuation alone (training: a step) */
	double finish;            /* s: the last session done */
	int64_t on_time, count;   /* sessions by the deadline, of */
	int64_t conc;             /* sessions one instance runs at once */
	int64_t devices, nodes;   /* used; nodes billed */
	double billed;            /* devices billed (all of each node used) */
	double gpu_s;             /* billed x finish */
	double power;             /* W of the nodes used, 0: no power model */
	double obj[FX_PO_N];      /* every objective's value (NaN: not defined) */
} fx_plan_eval;

/* The problem: design, workload, search space, objectives. */
typedef struct fx_plan_problem {
	const fx_design *ds;
	fx_plan_kind kind;
	const fx_plan_model *model;
	fx_plan_knobs knobs;      /* as the spec (and options) give them */
	double min_on_time;
	int64_t steps;
	fx_plan_training train;
	/* search space: values per axis */
	int64_t vals[FX_PG_N][FX_PLAN_MAX_VALS];
	size_t nvals[FX_PG_N];
	int sp_vals[2];
	size_t nsp;
	int64_t micro[FX_PLAN_MAX_VALS];
	size_t nmicro;
	int64_t inst_max;         /* instances at most (0: as many as fit) */
	int all_instances;        /* instance counts 1..fit (else only the most that fit) */
	char algo[FX_PG_N][FX_PLAN_MAX_ALGOS][16];
	size_t nalgo[FX_PG_N];
	int padded_heads;         /* TP need not divide heads (kernels pad) */
	int explicit_keep;        /* workload.keep_within was given */
	/* objectives */
	fx_plan_objective obj[FX_PLAN_MAX_OBJ];
	size_t nobj;
	double uncertainty;       /* relative: objectives this close are tied */
	double margin;            /* runners-up within this of the best */
	int bill_devices;         /* bill devices used, not whole nodes */
	uint64_t limit;           /* schemes at most (exit 4 past it) */
	int exhaustive;           /* evaluate every scheme, no pruning by bound */
	int csv_rows;             /* lines carry each full evaluation's CSV row (set on
				   * every MPI rank when rank 0 writes --csv) */
	/* the fabric as the planner sees it */
	int64_t devices, per_node, per_rack, nnodes, nracks;
	double node_power;        /* W, 0: no power model */
	double *power_of;         /* [nnodes + 1]: the build's power with n nodes used
				   * (fx_power_of walks every vertex: kept), NaN until asked */
	struct fx_plan_cache *cache;
} fx_plan_problem;

/* Reads `plan:` and the workload (sessions or `workload.training`) of a
 * loaded design.  0, or -1 after reporting (bad input: exit 2). */
int fx_plan_problem_init(fx_plan_problem *p, const fx_design *ds, fx_diag *d);
void fx_plan_problem_release(fx_plan_problem *p);
/* The objective when neither the spec nor an option names one: cost per
 * on-time session for a batch of sessions under a deadline (§6.7.2),
 * else latency.  fx_plan_search calls it. */
void fx_plan_default_objective(fx_plan_problem *p);
/* Options over the spec: an objective list ("cost,latency"), a deadline. */
int fx_plan_set_objectives(fx_plan_problem *p, const char *list, fx_diag *d);

/* Where every scheme went. */
typedef struct fx_plan_counts {
	uint64_t generated;       /* schemes in the space */
	uint64_t considered;      /* of them, within plan.limit */
	uint64_t excluded[FX_PR_N];  /* by the rule that excluded them (bound, idle: pruned) */
	uint64_t bounded;         /* bounded without communication */
	uint64_t deadline_bounded; /* of excluded[FX_PR_DEADLINE]: missed by the bound
				    * (communication free), never routed */
	uint64_t evaluated;       /* timed in full (collectives routed or cached) */
	uint64_t feasible;
	uint64_t routed;          /* distinct collectives routed */
	uint64_t cache_hits;
	double wall_s;
	double cpu_s;             /* CPU seconds of the search, worker processes' included */
	double route_s;           /* of them, routing collectives (this process) */
} fx_plan_counts;

/* One scheme's outcome, as kept: its index in the space, its rule and its
 * objectives (or their bounds, when not evaluated in full). */
typedef struct fx_plan_rec {
	uint64_t idx;
	uint8_t rule;             /* fx_plan_rule */
	uint8_t full;             /* evaluated in full (else: bounded) */
	double obj[FX_PO_N];
} fx_plan_rec;

/* A family: every scheme with the same degrees and SP, whatever its
 * instances, micro-batches and algorithms. */
typedef struct fx_plan_family {
	fx_plan_scheme key;       /* instances, micro and algorithms: the first's */
	uint64_t first, count;    /* its schemes: indices first .. first + count - 1 */
	int64_t inst_lo, ninst;   /* instance counts inst_lo .. inst_lo + ninst - 1 */
	size_t nmicro, nalgo;     /* combinations of each */
	int64_t best;             /* its best feasible scheme (index), or -1 */
	double best_obj;
	int64_t closest;          /* the excluded one that got furthest, or -1 */
	uint8_t rule;             /* that one's rule (all excluded: the family's) */
	double closest_by;        /* how close it got: its excess (bound: its bound) */
} fx_plan_family;

typedef struct fx_plan_result {
	fx_plan_counts counts;
	fx_plan_family *fam;
	size_t nfam;
	fx_plan_rec *rec;         /* every scheme bounded or evaluated past the
				   * family rules, in no order */
	size_t nrec, caprec;
	int64_t best;             /* the chosen scheme's index, or -1 */
	double best_obj;
	int complete;             /* every scheme considered was decided */
	int limited;              /* plan.limit cut the space */
	char status[96];          /* "optimal: ...", "no feasible scheme", ... */
	int64_t *front;           /* indices on the Pareto front (several objectives) */
	size_t nfront;
	FILE *csv;                /* every evaluated scheme as a CSV row, when set */
	const fx_plan_problem *p;
	/* the search's own */
	size_t *rec_of;           /* hash: idx -> rec position + 1 */
	size_t caphash;
	size_t hint;              /* the family last looked up (a cache) */
} fx_plan_result;

/* Runs evaluations somewhere else (worker processes, MPI ranks): calls
 * fx_plan_eval_lines for its shares of idx[0..n) and hands every line to
 * fx_plan_take_line.  0 or -1 (reported through d); 1: not worth sending
 * (too small), the search evaluates the batch itself. */
typedef struct fx_plan_exec {
	int (*batch)(void *ctx, fx_plan_problem *p, const fx_plan_knobs *k, int full,
		     fx_plan_result *r, const uint64_t *idx, size_t n, fx_diag *d);
	void *ctx;
} fx_plan_exec;

/* Search over the problem at knobs k (NULL: the problem's); exec NULL
 * evaluates here.  csv, when not NULL, receives every scheme evaluated in
 * full (a header first).  0, or -1 after reporting an internal error
 * (nothing feasible is not an error: best -1). */
int fx_plan_search(fx_plan_problem *p, const fx_plan_knobs *k, const fx_plan_exec *exec,
		   FILE *csv, fx_plan_result *out, fx_diag *d);
void fx_plan_result_release(fx_plan_result *r);

/* The scheme at index i of the space (the families of r). */
int fx_plan_scheme_at(const fx_plan_problem *p, const fx_plan_result *r, uint64_t i,
		      fx_plan_scheme *out);
/* Evaluates one scheme in full at knobs k (NULL: the problem's) into e
 * (e->s set by the caller). */
void fx_plan_evaluate(fx_plan_problem *p, const fx_plan_knobs *k, fx_plan_eval *e,
		      fx_diag *d);
/* The same without communication: a bound on every objective, and the
 * rules that need no routing. */
void fx_plan_bound(fx_plan_problem *p, const fx_plan_knobs *k, fx_plan_eval *e);
/* A worker's share: schemes idx[i] for i = w, w + stride, ... as lines
 * (full: evaluated in full, else bounded) on f.  0 or -1. */
int fx_plan_eval_lines(fx_plan_problem *p, const fx_plan_knobs *k, int full,
		       const fx_plan_result *r, const uint64_t *idx, size_t n, size_t w,
		       size_t stride, FILE *f, fx_diag *d);
/* Routes (into the problem's cache) every collective the schemes
 * idx[0..n) need, so workers forked afterwards inherit them.  0 or -1. */
int fx_plan_prewarm(fx_plan_problem *p, const fx_plan_knobs *k, const fx_plan_result *r,
		    const uint64_t *idx, size_t n, fx_diag *d);
/* The collectives the schemes idx[0..n) need that the cache lacks, one
 * (scheme index, group kind) per distinct shape, into *out (malloc'd);
 * returns how many.  Workers route them (fx_plan_route_lines) and the
 * cache takes their lines (fx_plan_take_route_line): routing, most of a
 * search's cost, spreads over the workers too. */
typedef struct fx_plan_need {
	uint64_t idx;
	int group;
} fx_plan_need;
size_t fx_plan_needs(fx_plan_problem *p, const fx_plan_result *r, const uint64_t *idx, size_t n,
		     fx_plan_need **out);
int fx_plan_route_lines(fx_plan_problem *p, const fx_plan_result *r, const fx_plan_need *v,
			size_t n, size_t w, size_t stride, FILE *f, fx_diag *d);
int fx_plan_take_route_line(fx_plan_problem *p, const char *line);
/* Takes one line back into r.  0, or -1 when it is not such a line. */
int fx_plan_take_line(fx_plan_result *r, const char *line);
/* The kept record of scheme i, or NULL. */
const fx_plan_rec *fx_plan_rec_find(const fx_plan_result *r, uint64_t i);

/* When each of the first n sessions of an evaluated decode scheme is done
 * (session i goes to instance i mod instances); returns how many were
 * written (at most e->count). */
size_t fx_plan_session_finishes(const fx_plan_problem *p, const fx_plan_knobs *k,
				const fx_plan_eval *e, double *out, size_t n);

/* The pipeline's timeline: q stages of t seconds each, `micro` sessions (or
 * micro-batches) interleaved, `steps` dependent steps each (a session's
 * next token waits for its last): when the one at position u finishes its
 * last step, ((steps - 1) max(micro, q) + u + q) t.  With steps = 1 the
 * last (u = micro - 1) is Eq. 6-7's (q + b - 1) t. */
double fx_plan_pipeline_finish(int64_t q, int64_t micro, int64_t steps, int64_t u, double t);

/* Compares two evaluations on objective o: < 0 when a is better. */
int fx_plan_better(const fx_plan_eval *a, const fx_plan_eval *b, fx_plan_objective o);
/* Whether value a is within the problem's uncertainty of the best b on o. */
int fx_plan_tied(const fx_plan_problem *p, fx_plan_objective o, double a, double b);

/* ---- explanations (plan/explain.c) ---- */

typedef enum fx_plan_knob {
	FX_PK_BW = 0, FX_PK_ALPHA, FX_PK_MEASURED, FX_PK_HBM, FX_PK_HBM_BW, FX_PK_CONTEXT,
	FX_PK_DEADLINE, FX_PK_SESSIONS, FX_PK_POWER, FX_PK_N
} fx_plan_knob;
const char *fx_plan_knob_name(fx_plan_knob k);

/* How far one input must move for the choice to change. */
typedef struct fx_plan_flip {
	fx_plan_knob knob;
	int dir;                  /* +1 up, -1 down */
	int found;                /* 1: the choice changes within the range searched */
	int none_feasible;        /* past the threshold nothing is feasible */
	double at;                /* the input's value at the threshold (first changed) */
	double from;              /* its value now */
	double limit;             /* how far the search went */
	char to[96];              /* the choice past the threshold */
	double obj_at;            /* the objective of the new choice there */
	int probes;
} fx_plan_flip;

/* Flip thresholds of the chosen scheme for every input that applies,
 * by a geometric scan then bisection on the model.  *out malloc'd. */
size_t fx_plan_flips(fx_plan_problem *p, const fx_plan_result *r, fx_plan_flip **out,
		     fx_diag *d);
/* The same in parts, for running them elsewhere: the (input, direction)
 * tasks (*out malloc'd, knob and dir set), one task run (a search per
 * probe, independent of the others), and a task's outcome as a line and
 * back. */
size_t fx_plan_flip_tasks(fx_plan_problem *p, const fx_plan_result *r, fx_plan_flip **out,
			  fx_diag *d);
int fx_plan_flip_run(fx_plan_problem *p, const fx_plan_result *r, fx_plan_flip *f, fx_diag *d);
int fx_plan_flip_line(const fx_plan_flip *f, size_t i, FILE *out);
int fx_plan_flip_take(fx_plan_flip *v, size_t n, const char *line);

/* The chapter's sensitivity rows (§6.7.3): the chosen scheme's step with
 * every link's bandwidth doubled and with the per-round overhead halved,
 * against the step now. */
typedef struct fx_plan_sens {
	const char *what;
	double step_now, step_then, saving;  /* s */
} fx_plan_sens;
size_t fx_plan_sensitivity(fx_plan_problem *p, const fx_plan_result *r, fx_plan_sens out[4],
			   fx_diag *d);

#endif
