/*
 * report: the sections `explore` puts together, shared with the commands
 * that print them alone.  Those moved to the library (report/report.h:
 * metrics, power, collectives) take a sink, fx_cli_sink(c) on the command
 * line; the others here still take the command.  Each prints its tables
 * (unless --json), writes their CSV copies under out/<spec name>/, and
 * with --json adds its keys to the JSON object the caller has opened in
 * c->js.
 */
#ifndef FX_REPORT_H
#define FX_REPORT_H

#include "../report/report.h"
#include "cli.h"

/* collective --sizes: a size sweep of the algorithms in `algos` ("a,b,c",
 * "all" or NULL for all of q's pattern) over `sizes` ("LO:HI:xF"), with the
 * fastest per size and the crossovers (cli/sweep.c); plot, if not NULL, is
 * an .svg or .png file gnuplot draws time and busbw against size into. */
int fx_coll_sweep(fx_cli *c, fx_router *r, const fx_coll_req *q, const fx_coll_time *tm,
		  const char *algos, const char *sizes, const char *plot);

/* The bill of materials (cli/bom.c): parts, lengths on the floor plan,
 * power and cost per GB/s of bisection; csv, if not NULL, a file for the
 * parts table. */
int fx_report_bom(fx_cli *c, const char *csv);

/* plan: how the command line moves the spec's plan (plan/plan.h); a
 * negative or zero value leaves the spec's. */
typedef struct fx_plan_opts {
	const char *objective;      /* "cost,latency", or NULL */
	double deadline, power_cap; /* 0: the spec's */
	double tie, margin;         /* < 0: the spec's */
	int64_t sessions, limit;    /* 0: the spec's */
	int64_t context;            /* < 0: the spec's */
	int exhaustive, jobs, flips, sensitivity;
	const char *csv, *plot;     /* files asked for, or NULL */
} fx_plan_opts;

/* Whether the design has something to plan (a model, an accelerator,
 * sessions or training). */
int fx_plan_applies(const fx_design *ds);
/* "plan.<field>" of the plan's first objective on this design (malloc'd),
 * *max when it is maximised; NULL after reporting. */
char *fx_plan_primary_metric(fx_cli *c, const fx_plan_opts *o, int *max);
/* The plan: the search, the choice and why (cli/plan.c).  Exit 3 with
 * the binding rule when nothing is feasible, 4 past plan.limit. */
int fx_report_plan(fx_cli *c, const fx_plan_opts *o);


#endif
