/*
 * points: explore over a design space (space/space.h) — each point a
 * design loaded with its overrides and measured by the commands' own
 * report code, its metrics picked out of their tables by field name.
 *
 * A metric is named as the results name it (docs/output.md):
 *
 *   FIELD                      the first table or record with that field
 *   TABLE.FIELD                that table's (or record's) first row
 *   TABLE[COL=VALUE].FIELD     the first row whose COL shows VALUE, e.g.
 *                              collectives[pattern=all-to-all].time_s
 *
 * The report sections run cheapest first — metrics, power, collectives,
 * placement — and only until every metric asked for is found, so a space
 * ranked on power never runs a placement.
 *
 * Points travel as CSV lines (the row of points.csv without its pareto
 * column): workers, MPI ranks and shards write them, and the one who
 * writes points.csv reads them back, so a point prints the same however
 * the space was split.
 */
#ifndef FX_CLI_POINTS_H
#define FX_CLI_POINTS_H

#include <stdint.h>
#include <stdio.h>

#include "../space/space.h"
#include "cli.h"

/* What every point shares. */
typedef struct fx_pt_eval {
	const char *spec_path;
	const char *spec_text;     /* the spec, read once */
	const fx_space *space;
	char **names;              /* [nnames] metric columns */
	size_t nnames;
	const char *const *sets;   /* --set overrides, before the point's own */
	size_t nsets;
	fx_design_limits limits;
	double time_limit;         /* placement, seconds */
	long node_limit;
	const struct fx_plan_opts *plan;  /* `plan` over a space: its options, or NULL */
} fx_pt_eval;

/* What became of a point. */
typedef enum fx_pt_status {
	FX_PT_FEASIBLE = 0,
	FX_PT_INFEASIBLE,          /* a constraint fails, or a section proves it */
	FX_PT_UNDECIDED,           /* a section hit a limit */
	FX_PT_INVALID,             /* the point's spec is bad input */
	FX_PT_NSTATUS
} fx_pt_status;

typedef struct fx_pt {
	uint64_t index;
	fx_pt_status status;
	char *reason;              /* NULL when feasible */
	double *m;                 /* [nnames]; NaN: not available */
	int pareto;
} fx_pt;

/* The metric columns of a space: its `metrics:`, then its objectives'
 * and constraints' metrics, each once.  *out is malloc'd (the strings are
 * the space's). */
size_t fx_pt_names(const fx_space *s, char ***out);

/* Evaluates point i into *out (fx_pt_release frees it).  0, or -1 when the
 * run cannot go on (an internal error, a metric no section reports),
 * reported through run. */
int fx_pt_evaluate(const fx_pt_eval *ev, uint64_t i, fx_pt *out, fx_diag *run);
void fx_pt_release(fx_pt *p);

const char *fx_pt_status_name(fx_pt_status s);

/* The CSV header of points.csv / one point's line (no pareto column;
 * with_pareto adds it). */
void fx_pt_write_header(const fx_pt_eval *ev, FILE *f, int with_pareto);
void fx_pt_write_line(const fx_pt_eval *ev, const fx_pt *p, FILE *f, int with_pareto);
/* Reads one line written by fx_pt_write_line back (*p released by the
 * caller).  0, or -1 when it is not such a line. */
int fx_pt_read_line(const fx_pt_eval *ev, const char *line, fx_pt *p, int with_pareto);

#endif
