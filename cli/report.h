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

/* The plan report with this process's runner: --jobs workers or MPI
 * ranks (cli/plan_run.c); under MPI a rank but 0 takes its share of the
 * work and prints nothing.  o->plot is created first. */
int fx_cli_plan(fx_cli *c, const fx_plan_opts *o);


#endif
