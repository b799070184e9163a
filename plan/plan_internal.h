/* What plan/'s files share and nobody else needs. */
#ifndef FX_PLAN_INTERNAL_H
#define FX_PLAN_INTERNAL_H

#include "plan.h"

/* The pattern group kind g runs (decode and training alike): TP, CP, EP
 * and DP allreduce, PP a chain hand-off. */
const char *fx_plan_group_pattern(const fx_plan_problem *p, fx_plan_group g);

/* ---- collective cache (plan/comm.c) ---- */
typedef struct fx_plan_cache fx_plan_cache;
fx_plan_cache *fx_plan_cache_new(void);
void fx_plan_cache_free(fx_plan_cache *c);

/* The time of one call of `pattern`/`algo` on `bytes` by every group of
 * kind g in instance 0 of scheme s (groups of deg[g] devices, all running
 * at once), at knobs k.  *measured says whether it is measured; returns
 * the time, or -1 when the algorithm cannot run there (why in
 * note), or NaN after an internal error reported through d. */
double fx_plan_comm_time(fx_plan_problem *p, const fx_plan_knobs *k, const fx_plan_scheme *s,
			 fx_plan_group g, const char *pattern, double bytes, int *measured,
			 char *note, size_t len, fx_diag *d);
/* The same for any group shape: n devices at `stride` within the first D
 * (every such group at once), with algorithm `algo` (the step model's
 * calls, plan/model_step.c). */
double fx_plan_comm_call(fx_plan_problem *p, const fx_plan_knobs *k, const char *pattern,
			 const char *algo, int64_t n, int64_t stride, int64_t D, double bytes,
			 int *measured, char *note, size_t len, fx_diag *d);
/* Layers of the workload's model (the shape's, else the inventory's). */
int64_t fx_plan_layers(const fx_plan_problem *p);
/* Whether group g of scheme s needs a collective the cache lacks (its key
 * as text into key); one
 * routed (here) as a line; a line taken into the cache. */
int fx_plan_comm_missing(fx_plan_problem *p, const fx_plan_scheme *s, fx_plan_group g,
			 char *key, size_t len);
int fx_plan_comm_line(fx_plan_problem *p, const fx_plan_scheme *s, fx_plan_group g, FILE *f,
		      fx_diag *d);
int fx_plan_comm_take(fx_plan_problem *p, const char *line);
/* Distinct collectives routed, lookups answered from the cache, and the
 * CPU seconds routing took. */
void fx_plan_cache_stats(const fx_plan_cache *c, uint64_t *routed, uint64_t *hits, double *route_s);

/* ---- packing (plan/eval.c) ---- */
/* Domain size (devices) of a level, and how many such domains. */
int64_t fx_plan_level_size(const fx_plan_problem *p, int level, int64_t *count);
/* The smallest level whose domain holds D devices, or -1. */
int fx_plan_min_level(const fx_plan_problem *p, int64_t D);
/* Instances of D devices that fit packed at the level. */
int64_t fx_plan_fit(const fx_plan_problem *p, int level, int64_t D);
/* Nodes the first n instances of D devices touch, packed at the level. */
int64_t fx_plan_nodes_used(const fx_plan_problem *p, int level, int64_t D, int64_t n);

/* Decode's step terms, shared by the model and the bounds. */
double fx_plan_kv_share(const fx_plan_problem *p, const fx_plan_scheme *s);

#endif
