/*
 * What the placement's files share (not part of the module's API).
 *
 * A placement is decided in three steps, cheapest first:
 *
 *   place_arith.c  closed-form necessary conditions (devices, power, racks,
 *                  memory): a request that fails one is infeasible, said
 *                  with the arithmetic, before any model is built;
 *   place_pack.c   a constructive placement in fabric order (the incumbent)
 *                  and a lower bound from counting instances per level (the
 *                  instances are interchangeable, so only how many sit at
 *                  each level matters): equal, the placement is optimal;
 *   place_milp.c   the node-level MILP for what is left open, and the
 *                  elastic relaxations that explain an infeasible one.
 */
#ifndef FX_PLACE_INTERNAL_H
#define FX_PLACE_INTERNAL_H

#include "../solver/solver.h"
#include "placement.h"

typedef struct fx_pctx {
	const fx_fabric *f;
	const fx_workload *w;
	const fx_power_config *pc;
	const fx_place_opts *o;
	int64_t N, R, g, unit, U, I, D;
	int64_t P;               /* units a node holds: g / unit */
	int64_t *node_rack;      /* [N] */
	int64_t *node_dev;       /* [N * g] devices of each node, in order */
	int64_t *rack_nodes;     /* [R] usable nodes in each rack */
	uint8_t *node_ok;        /* [N] 0: holds a failed device, left out */
	int64_t failed_nodes;
	int64_t *rack_max;       /* [R] nodes a rack may power (rack power, cooling) */
	int64_t sys_max;         /* nodes the system budget powers (INT64_MAX: no budget) */
	double pnode;            /* one node, all in */
	double pinfra;           /* infrastructure per powered node (pro rata) */
	double cost[FX_LEVELS];
	int ok[FX_LEVELS];       /* level possible here, and allowed by keep_within */
	double cross[FX_LEVELS]; /* bytes per step a unit sends out of its node, by level */
	double *uplink;          /* [N] bytes/s the node's ports carry out of it */
	fx_coll_sparse *sp;      /* per-link arrays kept across measurements */
} fx_pctx;

/* A placement as units of each instance on nodes: instance i has the
 * segments first[i] .. first[i+1]-1, each `units` units on node `node`. */
typedef struct fx_plan {
	int64_t n, cap, ninst;
	int64_t *node, *units;
	int64_t *first;          /* [ninst + 1] */
} fx_plan;

void fx_plan_init(fx_plan *p, int64_t ninst);
void fx_plan_add(fx_plan *p, int64_t node, int64_t units);
void fx_plan_end_instance(fx_plan *p);
void fx_plan_release(fx_plan *p);
/* The level an instance of the plan sits at (nodes and racks it spans). */
fx_level fx_plan_level(const fx_pctx *c, const fx_plan *p, int64_t i, int64_t *nodes, int64_t *racks);
/* The objective of a plan: sum over instances of the cost of its level. */
double fx_plan_cost(const fx_pctx *c, const fx_plan *p);
/* Whether a plan meets every constraint family; on failure 0 and a reason. */
int fx_plan_valid(const fx_pctx *c, const fx_plan *p, char *why, size_t len);

/* Closed-form necessary conditions; each that fails is named with its
 * numbers through d (exit 3).  0 when all hold. */
int fx_place_arith(const fx_pctx *c, const fx_accel *a, const fx_sessions *s, fx_diag *d);
/* The most instances that fit within one node, within one rack, and at
 * all, from the counts alone (an upper bound on each). */
void fx_place_counts(const fx_pctx *c, int64_t k[FX_LEVELS]);

/* The constructive placement: levels cheapest first, each filled in
 * fabric order.  Returns 1 with *p filled when all instances were placed
 * and the plan is valid, else 0 (*p released). */
int fx_place_pack(const fx_pctx *c, fx_plan *p);
/* The lower bound on the objective from the level counts. */
double fx_place_bound(const fx_pctx *c);

/* The MILP: -1 none, else a family to relax (elastic). */
fx_lp *fx_place_milp(const fx_pctx *c, int elastic, int **xcols);
/* Columns, rows and nonzeros of the MILP, estimated before building it. */
void fx_place_milp_size(const fx_pctx *c, double *cols, double *rows, double *nnz);
/* Nothing fits (the MILP said so): relax each family in turn and name the
 * ones that bind.  Returns -1 after reporting through d. */
int fx_place_explain(const fx_pctx *c, fx_diag *d);

#endif
