/*
 * report: the results fabricx reports about a design, as typed tables
 * into a sink (core/sink.h).  Each function computes once from a loaded
 * design (design/design.h) and hands every table to `out`, in the order
 * the command line prints them; the sink decides whether they become
 * text, Markdown, JSON, CSV or values a program reads (a capture sink:
 * fx_sink_value(cap, "collectives", "pattern", "all-to-all", "time_s", &v)).
 * The fields are those docs/output.md lists.
 *
 * Errors go to d (functions return 0 or -1; an infeasible or undecided
 * result sets d's status as core/diag.h says).  Nothing here knows the
 * command line: option texts are parsed by cli/, which passes numbers.
 * Option names in messages (--cut, --ranks, --group) are the fields the
 * command line fills.
 */
#ifndef FX_REPORT_REPORT_H
#define FX_REPORT_REPORT_H

#include <stdint.h>

#include "../core/diag.h"
#include "../core/sink.h"
#include "../design/design.h"
#include "../routing/routing.h"

/* ---- the fabric (report/metrics.c) ---- */

typedef struct fx_metrics_opts {
	const char *cut;    /* "A:B" (node=0-23:rest, x=0-1:x=2-3), or NULL */
} fx_metrics_opts;

/* Counts, switch ports, hop counts and bisection (record "metrics", tables
 * "ocs", "switches", "hops"), the failed record on a degraded fabric, and
 * the cut o->cut names ("cut").  o may be NULL. */
int fx_report_metrics(const fx_design *ds, const fx_metrics_opts *o, fx_sink *out, fx_diag *d);
/* On a degraded fabric (--fail, `failures:`), the record of what failed
 * ("failed": vertices, links, devices failed and cut off); on an intact
 * one nothing. */
int fx_report_failed(const fx_fabric *f, fx_sink *out, fx_diag *d);

/* ---- power (report/power.c) ---- */

typedef struct fx_power_opts {
	double budget_W;        /* > 0: replaces the spec's power.budget */
	double rack_budget_W;   /* > 0: replaces power.rack_budget */
	int64_t nodes;          /* > 0: a build of this many nodes, else the largest that fits */
} fx_power_opts;

/* What the power budget buys (record "power", table "racks").  Returns 0,
 * -1 on error, or 1 when a given build (o->nodes) is over the budget: the
 * tables are whole and d holds the infeasibility (exit 3).  o may be NULL. */
int fx_report_power(const fx_design *ds, const fx_power_opts *o, fx_sink *out, fx_diag *d);

/* ---- collectives (report/collectives.c) ---- */

typedef struct fx_collectives_opts {
	/* When not NULL: the run of a direct all-to-all of 32 MiB over every
	 * device in order (the workload's, or the default) is left here for
	 * the caller to release, and *kept set to 1 (explore's link loads). */
	fx_coll_result *keep_a2a;
	int *kept;
} fx_collectives_opts;

/* The workload's collectives, or allreduce 10 KiB (ring, tree) and
 * all-to-all 32 MiB over every device; all-to-all under both ends of ECMP
 * (and Valiant and UGAL on dragonflies).  Table "collectives"; a row the
 * algorithm does not apply to has null figures.  o may be NULL. */
int fx_report_collectives(const fx_design *ds, const fx_collectives_opts *o, fx_sink *out,
			  fx_diag *d);

/* The ranks of a collective: the first nranks devices (> 0), the devices
 * of group `group`, or (0, NULL) every device; on a degraded fabric only
 * those it still joins (a group naming a failed or cut-off device is
 * infeasible).  *out is malloc'd, device ids in device order. */
int fx_report_ranks(const fx_design *ds, int64_t nranks, const char *group, int64_t **out,
		    int64_t *n, fx_diag *d);
/* Runs one collective over the first n devices the fabric joins with time
 * model tm (NULL: the design's).  0 or -1; *out is the caller's to
 * release. */
int fx_report_coll_first(const fx_design *ds, const char *pattern, const char *algo, int64_t n,
			 double size, const fx_coll_time *tm, fx_coll_result *out, fx_diag *d);
/* One collective (report/coll_one.c). */
typedef struct fx_collective_opts {
	fx_coll_req req;              /* pattern, algorithm (its name), ranks, size, chunks */
	const fx_coll_time *tm;       /* NULL: the design's */
	const char *versus;           /* also the size where this algorithm takes as long, or NULL */
	const char *versus_measured;  /* a file of measurements to set the model against, or NULL */
	const char *links;            /* write links.csv of the run here, or NULL */
} fx_collective_opts;

/* Runs o->req on router r (fx_router_new over ds's fabric) and reports
 * it: record "collective" (with the --versus crossover), the failed
 * record, table "rounds", record "plmr" on a wafer's PLMR algorithms,
 * table "versus_measured"; o->links written whole. */
int fx_report_collective(const fx_design *ds, fx_router *r, const fx_collective_opts *o,
			 fx_sink *out, fx_diag *d);
/* Writes src,dst,bytes,busy_s,utilisation for every directed link of res
 * to path (core/outfile.h: whole or not at all). */
int fx_report_links_csv(const fx_fabric *f, const char *path, const fx_coll_result *res,
			fx_diag *d);

/* ---- a size sweep (report/sweep.c) ---- */

/* Where two algorithms of a sweep take equal time: algos a < b (indices
 * into the sweep's algorithms) at size_bytes. */
typedef struct fx_sweep_cross {
	size_t a, b;
	double size_bytes;
} fx_sweep_cross;

/* A sweep's figures, for a caller that draws them (cli's --plot). */
typedef struct fx_sweep_result {
	size_t nalgos, nsizes;
	int *ran;            /* [nalgos]: 0 when the algorithm refused these ranks */
	double *time_s;      /* [nalgos * nsizes], algorithm-major */
	double *busbw_Bps;   /* [nalgos * nsizes] */
	fx_sweep_cross *cross;
	size_t ncross;
} fx_sweep_result;

void fx_sweep_result_release(fx_sweep_result *res);

typedef struct fx_sweep_opts {
	fx_coll_req req;                  /* pattern, ranks, chunks; algo and size are the sweep's */
	const fx_coll_time *tm;           /* NULL: the design's */
	const fx_coll_algo *const *algos; /* [nalgos], all of req.pattern */
	size_t nalgos;
	const double *sizes;              /* [nsizes], bytes, rising */
	size_t nsizes;
	fx_sweep_result *keep;            /* not NULL: filled for the caller to release */
} fx_sweep_opts;

/* collective --sizes as nccl-tests prints it (`-b 8 -e 128M -f 2`): record
 * "sweep_run", one table per algorithm that ran ("sweep-ALGO", text and
 * CSV), every row in one long table ("sweep", CSV and JSON), the fastest
 * per size ("sweep-fastest"), the sizes where two algorithms take equal
 * time ("sweep-crossovers", by bisection: fx_coll_crossover) and the
 * algorithms that refused these ranks with the reason ("sweep-skipped"). */
int fx_report_sweep(const fx_design *ds, fx_router *r, const fx_sweep_opts *o, fx_sink *out,
		    fx_diag *d);

/* ---- failures (report/failures.c) ---- */

/* What to fail: one element of a kind (switch, link, node, rack, plane,
 * power) at a time, or every pair (k = 2; at most `sample`, drawn from
 * seed), or the nfail selectors one at a time. */
typedef struct fx_failures_opts {
	const char *kind;           /* NULL: switch */
	const char *const *fails;   /* [nfail] selectors (fx_fabric_fail) */
	int nfail;
	int all;                    /* every element, not one per class proven alike */
	int k;                      /* 1 or 2 */
	int64_t sample;
	uint64_t seed;
	const char *spec;           /* the spec's path, for messages (NULL: the design's name) */
} fx_failures_opts;

/* What the failures o names do to the bisection, each device and the
 * workload's instances: record "failures_intact", record
 * "failures_summary" (worst, median, mean, weighted by the elements each
 * row stands for) and table "failures", the most critical first.  The
 * design's failure mask changes while each failure is measured and is
 * put back; past FX_MAX_FAILURE_WORK the run is not decided (exit 4). */
int fx_report_failures(fx_design *ds, const fx_failures_opts *o, fx_sink *out, fx_diag *d);

/* ---- placement and the serving step (report/place.c, report/step.c) ---- */

typedef struct fx_place_report_opts {
	const char *lp;                /* write the MILP in CPLEX LP format here, or NULL */
	double time_limit;             /* seconds GLPK may search */
	long node_limit;               /* branch-and-bound nodes (0: no limit) */
	const fx_power_config *power;  /* NULL: the design's */
	const fx_fault *fault;         /* the deployment table again with a card failing
				        * (at < 0 or NULL: not) */
	fx_placement *keep;            /* not NULL: the placement, for the caller to release */
} fx_place_report_opts;

/* Places the workload: the failed record, table "instances", record
 * "place_summary", table "place_racks", the serving step
 * (fx_report_step) and, when the workload gives an accelerator and
 * sessions, the §6.7 deployment table "choices" (and "choices_fault"). */
int fx_report_place(const fx_design *ds, const fx_place_report_opts *o, fx_sink *out, fx_diag *d);
/* The serving step of the design's model on the placement's first
 * instance (p NULL: the fabric's devices in order): inventory per device,
 * timeline, sessions, throughput.  Nothing without a model and
 * workload.accelerator.hbm. */
int fx_report_step(const fx_design *ds, const fx_placement *p, fx_sink *out, fx_diag *d);

/* ---- several jobs on one fabric (report/jobs.c) ---- */

typedef struct fx_jobs_report_opts {
	double time_limit;  /* seconds GLPK may search for the placement (<= 0: the default) */
	int no_place;       /* measure the spec's placement only */
} fx_jobs_report_opts;

/* The jobs of `workload.jobs` as the spec places them (unplaced ones
 * packed in device order) and as the interference-aware placement places
 * them, each timed alone and beside the others: the text, and for JSON
 * and CSV the record "jobs" (JSON object "interference") holding
 * "jobs_given" and "jobs_placed" ("given", "placed"), each with tables
 * "_per_job", "_shared", "_shared_links", "_shared_switches"
 * (docs/output.md).  A design without jobs is an error.  o may be NULL. */
int fx_report_jobs(const fx_design *ds, const fx_jobs_report_opts *o, fx_sink *out, fx_diag *d);

/* ---- the plan (report/plan.c) ---- */

#include "../plan/plan.h"

/* How a caller moves the spec's plan (plan/plan.h): a negative or zero
 * value leaves the spec's.  Where the work runs is the caller's: exec
 * (fx_plan_search's batches) and flips_run (the flip thresholds) NULL
 * run here. */
typedef struct fx_plan_opts {
	const char *objective;      /* "cost,latency", or NULL */
	double deadline, power_cap; /* 0: the spec's */
	double tie, margin;         /* < 0: the spec's */
	int64_t sessions, limit;    /* 0: the spec's */
	int64_t context;            /* < 0: the spec's */
	int exhaustive, jobs, flips, sensitivity;  /* jobs: reported only */
	const char *csv, *plot;     /* a CSV file, a folder (which exists) for charts; or NULL */
	const fx_plan_exec *exec;
	long (*flips_run)(void *ctx, fx_plan_problem *p, const fx_plan_result *r,
			  fx_plan_flip **out, fx_diag *d);  /* the count, or -1 */
	void *flips_ctx;
	int follower;               /* takes its share and writes no file (an MPI rank but 0) */
} fx_plan_opts;

/* Whether the design has something to plan (a model, an accelerator,
 * sessions or training). */
int fx_plan_applies(const fx_design *ds);
/* The spec's plan with o's changes is one plan/ accepts: 0, or -1 after
 * reporting what is missing or wrong. */
int fx_plan_check_opts(const fx_design *ds, const fx_plan_opts *o, fx_diag *d);
/* "plan.<field>" of the plan's first objective on this design (malloc'd),
 * *max when it is maximised; NULL after reporting. */
char *fx_plan_primary_metric(const fx_design *ds, const fx_plan_opts *o, int *max, fx_diag *d);
/* The plan: record "plan" (the search's counts), "plan_choice",
 * "plan_sessions", "plan_ranked" (the runners-up), "plan_excluded",
 * "plan_front", "plan_sensitivity", "plan_flips"; o->csv and o->plot
 * written.  Exit 3
 * with the binding rule when nothing is feasible, 4 past plan.limit. */
int fx_report_plan(const fx_design *ds, const fx_plan_opts *o, fx_sink *out, fx_diag *d);

/* ---- the bill of materials (report/bom.c) ---- */

/* Record "bom" (racks, cost, lengths, power and cost per GB/s of
 * bisection), tables "bom_links", "bom_parts" (also written to csv when
 * not NULL), "bom_lengths", "bom_floor" and "bom_spans". */
int fx_report_bom(const fx_design *ds, const char *csv, fx_sink *out, fx_diag *d);

#endif
