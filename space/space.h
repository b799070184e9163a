/*
 * space: design spaces — the builds an architect sweeps, the constraints
 * they must meet and the objectives that rank them.
 *
 * A space is a list of axes.  An axis is one spec path and its values, or
 * several paths that vary together (`zip`) with one value list each, all of
 * the same length.  A point is one value per axis; point i is i written in
 * mixed radix over the axes, the last axis fastest, so a point's index
 * names it whatever machine or shard evaluates it.  A point becomes a
 * design by applying its overrides ("fabric.dims=[4, 4, 4]") to the spec,
 * as --set does: nothing about a point is evaluated differently from a
 * command run on the same spec.
 *
 * In a spec:
 *
 *   space:
 *     vary:
 *       fabric.dims: [[4,4,4], [6,6,6], [8,8,8]]          # a list
 *       power.budget: {from: 60 kW, to: 200 kW, step: 20 kW}  # a range
 *       fabric.link.bandwidth: {from: 25 GB/s, to: 400 GB/s, times: 2}  # log
 *     zip: [[fabric.down, fabric.up]]     # these vary together
 *     constraints:
 *       - {metric: power_W, max: 120 kW}
 *     objectives:
 *       - {maximize: devices}
 *       - {minimize: power_W}
 *     metrics: [bisection_per_device_Bps]   # also reported per point
 *
 * and on the command line, --vary PATH=V1,V2,... or PATH=FROM:TO:STEP
 * (FROM:TO:xF for a log range).
 *
 * Ownership: an fx_space owns its strings; fx_space_release releases them.
 */
#ifndef FX_SPACE_H
#define FX_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include "../core/diag.h"
#include "../design/design.h"
#include "../spec/spec.h"

/* A space's whole grid is evaluated up to this many points (explore
 * --max-points raises its default of 100,000 this far; one axis may hold
 * this many values); past it a run must sample (--budget-points). */
#define FX_SPACE_MAX_POINTS 10000000
/* The largest space fabricx indexes (a sample of it is any size): point
 * indices are 64-bit integers, with room to step to a neighbour. */
#define FX_SPACE_MAX_INDEX (1ull << 62)

typedef struct fx_space_axis {
	size_t npaths;          /* 1, or the paths of a zip */
	char **paths;           /* [npaths] dotted spec paths */
	size_t nvals;
	char **vals;            /* [nvals * npaths] YAML flow text, row per value */
} fx_space_axis;

typedef enum fx_space_sense { FX_SPACE_MIN, FX_SPACE_MAX } fx_space_sense;

typedef struct fx_space_objective {
	char *metric;           /* a result field name, e.g. "power_W" */
	fx_space_sense sense;
} fx_space_objective;

typedef struct fx_space_constraint {
	char *metric;
	double lo, hi;          /* metric must lie in [lo, hi] (±inf: open) */
	char *text;             /* as written, for the reason of a failure */
} fx_space_constraint;

typedef struct fx_space {
	size_t naxes;
	fx_space_axis *axes;
	size_t ncons;
	fx_space_constraint *cons;
	size_t nobj;
	fx_space_objective *obj;
	size_t nmetrics;
	char **metrics;         /* `metrics:` reported beside those ranked */
} fx_space;

/* Reads the spec's `space:` block; *present is 0 (and *s empty) when
 * the spec has none.  0, or -1 after reporting, *s then empty (nothing
 * to free). */
int fx_space_parse(fx_space *s, const fx_spec *spec, fx_diag *d, int *present);
/* Adds one --vary PATH=V1,V2,... or PATH=FROM:TO:STEP axis (a path the
 * spec's space already varies is replaced). */
int fx_space_vary(fx_space *s, const char *arg, fx_diag *d);
void fx_space_release(fx_space *s);

/* Points in the full grid; (uint64_t)-1 past FX_SPACE_MAX_INDEX. */
uint64_t fx_space_count(const fx_space *s);
/* The overrides of point i: "path=value" strings into out[], at most
 * cap; returns how many (the sum of the axes' npaths).  Strings are
 * malloc'd; free each. */
size_t fx_space_point(const fx_space *s, uint64_t i, char **out, size_t cap);
/* The value index of each axis at point i into idx[naxes]. */
void fx_space_digits(const fx_space *s, uint64_t i, size_t *idx);

/* n points of the grid by Latin hypercube sampling, seeded: each axis's
 * values are cut into n equal strata (or n into the values when fewer) and
 * every stratum is used once.  Distinct point indices, ascending, into
 * out[]; returns how many (duplicates of a coarse axis merge). */
size_t fx_space_sample(const fx_space *s, size_t n, uint64_t seed, uint64_t *out);

/* Whether point metrics m (m[k] is the value of cons[k].metric) meets
 * every constraint; on a failure, the index of the first that fails. */
int fx_space_feasible(const fx_space *s, const double *m, size_t *failed);

/* Marks pareto[i] = 1 for the points not dominated by another feasible
 * point under the objectives; vals is [n][nobj] row-major, feasible[i]
 * says which points count (infeasible ones are never on the front).  A
 * NaN objective makes a point incomparable: it is not on the front. */
void fx_space_pareto(const fx_space *s, size_t n, const double *vals,
		     const unsigned char *feasible, unsigned char *pareto);

/* Writes node n as one line of YAML flow text ("[4, 4, 4]", "60 kW"). */
char *fx_snode_flow_new(const fx_snode *n);

/* ---- evaluating a point (space/points.c) ----
 *
 * A point is a design loaded with its overrides and measured by the
 * reports (report/report.h) into a capture sink; its metrics are read from
 * the captured tables by field name, as the results name them
 * (docs/output.md):
 *
 *   FIELD                      the first table or record with that field
 *   TABLE.FIELD                that table's (or record's) first row
 *   TABLE[COL=VALUE].FIELD     the first row whose COL shows VALUE, e.g.
 *                              collectives[pattern=all-to-all].time_s
 *
 * The reports run cheapest first -- metrics, power, collectives,
 * placement, bill of materials, plan -- and only until every metric asked
 * for is found, so a space ranked on power never runs a placement.
 *
 * Points travel as CSV lines (the row of points.csv without its pareto
 * column): workers, MPI ranks and shards write them, and the one who
 * writes points.csv reads them back, so a point prints the same however
 * the space was split.
 */

struct fx_plan_opts;

/* What every point shares. */
typedef struct fx_space_eval {
	const char *spec_path;
	const char *spec_text;     /* the spec, read once (NULL: read from spec_path
				    * at each point) */
	const fx_spec *spec;       /* spec_text parsed once, or NULL: parsed at
				    * each point (a third of a point's time) */
	const fx_space *space;
	char **names;              /* [nnames] metric columns */
	size_t nnames;
	const char *const *sets;   /* --set overrides, before the point's own */
	size_t nsets;
	fx_design_limits limits;
	double time_limit;         /* placement, seconds */
	long node_limit;
	const struct fx_plan_opts *plan;  /* `plan` over a space: its options, or NULL */
} fx_space_eval;

/* What became of a point. */
typedef enum fx_space_status {
	FX_SPACE_FEASIBLE = 0,
	FX_SPACE_INFEASIBLE,       /* a constraint fails, or a report proves it */
	FX_SPACE_UNDECIDED,        /* a report hit a limit */
	FX_SPACE_INVALID,          /* the point's spec is bad input */
	FX_SPACE_NSTATUS
} fx_space_status;

typedef struct fx_space_pt {
	uint64_t index;
	fx_space_status status;
	char *reason;              /* NULL when feasible */
	double *m;                 /* [nnames]; NaN: not available */
	int pareto;
} fx_space_pt;

/* The metric columns of a space: its `metrics:`, then its objectives'
 * and constraints' metrics, each once.  *out is malloc'd (the strings are
 * the space's). */
size_t fx_space_names(const fx_space *s, char ***out);

/* Evaluates point i into *out (fx_space_pt_release frees it).  0, or -1
 * when the run cannot go on (an internal error, a metric no report gives),
 * reported through run.  A point that is bad input, infeasible or not
 * decided is a result (out->status, out->reason), not an error. */
int fx_space_evaluate(const fx_space_eval *ev, uint64_t i, fx_space_pt *out, fx_diag *run);
void fx_space_pt_release(fx_space_pt *p);

const char *fx_space_status_name(fx_space_status s);

/* The CSV header of points.csv / one point's line (no pareto column;
 * with_pareto adds it). */
void fx_space_write_header(const fx_space_eval *ev, FILE *f, int with_pareto);
void fx_space_write_line(const fx_space_eval *ev, const fx_space_pt *p, FILE *f, int with_pareto);
/* Reads one line written by fx_space_write_line back (*p released by the
 * caller).  0, or -1 when it is not such a line. */
int fx_space_read_line(const fx_space_eval *ev, const char *line, fx_space_pt *p, int with_pareto);

#endif
