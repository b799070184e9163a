/*
 * placement: where the tensor-, expert-, pipeline- and data-parallel groups
 * of a workload's instances go on a fabric, decided by a GLPK MILP under
 * device, rule, failure-domain, rack power, cooling and system power
 * budgets; and why, when nothing fits.
 *
 * The workload (`workload:` in a spec):
 *
 *   scheme: {tp: 2, ep: 4}          # one instance; also pp, dp (default 1)
 *   instances: 4                    # default 1
 *   model: {...}                    # optional; see placement/model.h
 *   tokens: 1                       # tokens per step (for bytes from the model)
 *   groups:                         # per group kind; default from the model
 *     tp: {collective: allreduce, algo: ring, bytes: 16 KiB, count: 188}
 *   keep_within: {tp: node, instance: rack}   # node | rack | any
 *   failure_domain: node            # none | node | rack: instances share none
 *   comm_budget: 1 ms               # per step, the time a node's switch ports
 *                                   # may carry its instances' traffic out
 *
 * Devices of an instance are numbered (dp, pp, ep, tp) with tp fastest, as
 * the chapter "Supernodes" numbers TP2 x EP4 (§6.3.1): a TP group is tp consecutive
 * devices, an EP group the devices with the same TP index.
 *
 * The model is aggregated at node level: nodes of a fabric are alike, so an
 * instance's cost depends only on whether it sits in one node, in one rack
 * or across racks, and that cost is measured by routing the instance's
 * group collectives on the real fabric at each level.  The placement is
 * decided cheapest first: closed-form necessary conditions (devices,
 * power, racks, cooling, memory) name what binds with the arithmetic; a
 * packing in fabric order is checked against a bound from counting the
 * instances each level can hold, which proves most placements optimal in
 * one pass (a 16x16x16 torus with 1,024 instances in milliseconds); the
 * GLPK MILP (instances x nodes) searches only what is left open, under
 * the time limit.  A time-out keeps the packing ("feasible (time limit)"
 * with its gap) or, with none, is "not decided" (exit 4), never
 * "infeasible".
 *
 * Ownership: fx_workload and fx_placement are filled by the callee and
 * released by the caller with their _release functions.
 */
#ifndef FX_PLACEMENT_H
#define FX_PLACEMENT_H

#include "../core/diag.h"
#include "../fabric/fabric.h"
#include "../power/power.h"
#include "../routing/routing.h"
#include "../spec/spec.h"
#include "model.h"

typedef enum fx_level { FX_LEVEL_NODE = 0, FX_LEVEL_RACK, FX_LEVEL_ANY, FX_LEVELS } fx_level;
const char *fx_level_name(fx_level l);

typedef enum fx_group_kind { FX_GROUP_TP = 0, FX_GROUP_EP, FX_GROUP_PP, FX_GROUP_DP, FX_GROUP_KINDS } fx_group_kind;
const char *fx_group_kind_name(fx_group_kind k);

typedef struct fx_group_traffic {
	char pattern[24];        /* allreduce, all-to-all, ... */
	char algo[16];           /* "" = the pattern's default */
	double bytes;            /* per collective call */
	double count;            /* calls per step */
} fx_group_traffic;

typedef struct fx_workload {
	int present;
	int64_t dims[FX_GROUP_KINDS];          /* tp, ep, pp, dp */
	int64_t instances;
	int have_model;
	fx_model model;
	int64_t tokens;
	fx_group_traffic traffic[FX_GROUP_KINDS];
	fx_level keep[FX_GROUP_KINDS];         /* each group kind stays within */
	fx_level keep_instance;                /* the whole instance stays within */
	fx_level failure_domain;               /* FX_LEVEL_ANY = none */
	double comm_budget;                    /* seconds per step a node's switch ports
						* may spend on its instances' traffic out
						* of the node; 0 = no limit */
} fx_workload;

/* Reads the placement keys of `workload:` (absent: present = 0).  `other`
 * lists further keys the caller handles (NULL-terminated). */
int fx_workload_place_parse(fx_diag *d, const fx_spec *spec, const char *const *other,
			    fx_workload *w);
/* Reads `workload.accelerator` {hbm, hbm_bandwidth, flops, reserve} and
 * `workload.sessions` {count, context, steps, deadline, min_on_time}; each
 * absent one leaves its struct zeroed (hbm == 0, count == 0). */
int fx_accel_sessions_parse(fx_diag *d, const fx_spec *spec, fx_accel *a, fx_sessions *s);
/* One `groups.KIND` map {collective, algo, bytes, count} into *t. */
int fx_group_traffic_parse(fx_diag *d, const fx_snode *n, fx_group_traffic *t);
/* Devices one instance needs. */
int64_t fx_workload_devices(const fx_workload *w);

typedef struct fx_place_group {
	fx_group_kind kind;
	int64_t members;          /* devices per group */
	int64_t groups;           /* groups of this kind in the instance */
	int64_t max_hops;
	double time;              /* seconds per step: count x one collective (all groups at once) */
	int measured;             /* the time is collective.measured's, not the model's */
} fx_place_group;

typedef struct fx_place_instance {
	int64_t *devices;         /* [fx_workload_devices] device ids, in instance order */
	int64_t nodes, racks;     /* how many it spans */
	fx_level level;
	fx_place_group group[FX_GROUP_KINDS];
	double comm_time;         /* seconds per step, all group kinds */
} fx_place_instance;

typedef struct fx_place_rack {
	int64_t rack, nodes_used;
	double watts;
	int liquid;
} fx_place_rack;

typedef struct fx_placement {
	int64_t ninst;
	fx_place_instance *inst;
	double level_cost[FX_LEVELS];   /* per-step comm time of one instance at each level */
	int level_ok[FX_LEVELS];
	double objective, bound;        /* seconds per step, summed over instances */
	double gap;                     /* (objective - bound) / objective: 0 when
					 * optimal, > 0 when the time limit cut the
					 * search short */
	const char *status;             /* "optimal", "feasible (time limit)",
					 * "feasible (model too large to prove)" */
	const char *method;             /* how it was found and proven */
	int64_t nodes_used;
	double watts;
	fx_place_rack *rack;
	int64_t nracks;
	int64_t cols, rows;             /* model size */
	int64_t nodes_failed;           /* nodes left out for a failed device */
	double solve_seconds;
} fx_placement;

typedef struct fx_place_opts {
	const char *lp_path;            /* write the model (CPLEX LP) here */
	double time_limit;              /* seconds */
	long node_limit;                /* MILP branch-and-bound nodes; 0 = none
					 * (deterministic, for tests and --node-limit) */
	fx_coll_time tm;                /* the collective time model */
	const fx_accel *accel;          /* memory per device is checked against
					 * accel->hbm; NULL or hbm 0: not checked */
	const fx_sessions *sessions;    /* their KV counts in that memory; may be NULL */
	const uint8_t *failed;          /* [nv] vertices failed besides the fabric's own
					 * mask (fabric/fail.c): nodes holding a failed or
					 * cut-off device are left out; NULL: none */
	int milp_always;                /* search with the MILP even when the packing
					 * is proven optimal (tests check the two
					 * against each other) */
} fx_place_opts;

/* Places the workload.  Nothing fits: exit status 3 through d, naming
 * each closed-form limit that fails with its numbers, or else the
 * constraint family that binds (relaxing each in turn) and by how much.
 * Not decided within the time limit or the model size: exit status 4. */
int fx_place(const fx_fabric *f, const fx_workload *w, const fx_power_config *pc,
	     const fx_place_opts *o, fx_placement *out, fx_diag *d);
void fx_placement_release(fx_placement *p);

/* ---- several jobs on one fabric (placement/jobs.c, jobs_place.c) ----
 *
 * `workload.jobs` (design/workload.c reads it): jobs that share the
 * fabric, each with its own scheme, groups, devices and start offset.  A
 * job's communication is its group kinds in turn (tp, ep, pp, dp), each
 * kind `count` calls of its collective, every group of the kind at once
 * (as fx_coll_run_groups runs them).  Jobs are timed step by step under
 * the bound model (collective.timing's default): a step (one repetition
 * of a round) costs alpha + its slowest path's latency + the busiest
 * directed link it uses, that link's bytes being the job's own plus those
 * of the steps the other jobs are in when it starts, over links x
 * bandwidth.  A job alone takes exactly fx_coll_run's bound time per call;
 * beside the others, the extra is their interference. */
typedef struct fx_job {
	const char *name;                        /* borrowed (the spec's) */
	int64_t dims[FX_GROUP_KINDS];            /* tp, ep, pp, dp */
	fx_group_traffic traffic[FX_GROUP_KINDS];
	double start;                            /* seconds after time 0 */
	int64_t *devices;                        /* [fx_job_devices] device ids in rank
						  * order (owned), or NULL: not placed */
} fx_job;

#define FX_JOBS_MAX 64
/* Devices the job needs: the product of its dims (-1 for NULL). */
int64_t fx_job_devices(const fx_job *j);
/* Copies n jobs (devices too) into a new array; free with fx_jobs_free. */
fx_job *fx_jobs_dup(const fx_job *jobs, size_t n);
void fx_jobs_free(fx_job *jobs, size_t n);

typedef struct fx_jobs_result {
	size_t njobs;
	double *alone;        /* [njobs] seconds of communication, the job alone */
	double *together;     /* [njobs] seconds from its start to its end beside the others */
	int64_t *steps;       /* [njobs] steps it ran (rounds x repeats x calls) */
	size_t nshared;       /* directed links loaded by two or more jobs */
	int64_t *shared;      /* [nshared] directed link ids (2e: ends[2e] -> ends[2e+1]) */
	double *shared_bytes; /* [nshared * njobs]: bytes job j puts on shared[i] in all,
			       * at [i * njobs + j] */
	size_t nshared_sw;
	int64_t *shared_sw;   /* [nshared_sw] switch vertices two or more jobs' traffic enters */
	double *link_bytes;   /* [njobs * 2 ne] every job's bytes per directed link */
} fx_jobs_result;

/* Times every job alone and all of them together.  Every job must be
 * placed (devices not NULL, distinct devices across jobs).  0, or -1
 * after reporting (a collective that cannot be routed; exit 4 past the
 * step limit). */
int fx_jobs_run(const fx_fabric *f, const fx_job *jobs, size_t n, const fx_coll_time *tm,
		fx_jobs_result *out, fx_diag *d);
void fx_jobs_result_release(fx_jobs_result *r);

/* Places the unplaced jobs (devices NULL) on the first free devices in
 * device order, the jobs in order.  0, or -1 (exit 3: too few devices). */
int fx_jobs_pack(const fx_fabric *f, fx_job *jobs, size_t n, fx_diag *d);

typedef struct fx_jobs_place_info {
	const char *status;       /* fx_lp's: "optimal", "feasible (time limit)" */
	int64_t shared_units;     /* nodes (or devices, on fabrics without nodes)
				   * holding devices of more than one job */
	int64_t units_used;       /* job x node pairs: the nodes each job spans, summed */
	int64_t cols, rows;       /* the MILP's size */
} fx_jobs_place_info;

/* The interference-aware placement: re-places every job (devices replaced)
 * so that as few nodes as possible hold devices of two jobs (a GLPK MILP:
 * x[j][n] devices of job j on node n, y[j][n] whether it uses the node,
 * minimise W * sum_n max(0, sum_j y[j][n] - 1) + sum y), each job's ranks
 * node by node.  Nodes sharing no job share no node links; what remains
 * (links past the nodes) fx_jobs_run measures.  0, -1 after reporting
 * (exit 3: the jobs need more devices than the fabric has live; exit 4:
 * not decided in time_limit seconds). */
int fx_jobs_place(const fx_fabric *f, fx_job *jobs, size_t n, double time_limit,
		  fx_jobs_place_info *info, fx_diag *d);

#endif
