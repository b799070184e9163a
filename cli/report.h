/*
 * report: the sections `explore` puts together, shared with the commands
 * that print them alone.  Each prints its tables (unless --json), writes
 * their CSV copies under out/<spec name>/, and with --json adds its keys to
 * the JSON object the caller has opened in c->js.
 */
#ifndef FX_REPORT_H
#define FX_REPORT_H

#include "cli.h"

/* Counts, switch ports, hop counts, bisection; cutspec is --cut or NULL. */
int fx_report_metrics(fx_cli *c, const char *cutspec);

/* The workload's collectives, or the default three, on all devices. */
int fx_report_collectives(fx_cli *c);

/* collective --sizes: a size sweep of the algorithms in `algos` ("a,b,c",
 * "all" or NULL for all of q's pattern) over `sizes` ("LO:HI:xF"), with the
 * fastest per size and the crossovers (cli/sweep.c); plot, if not NULL, is
 * an .svg or .png file gnuplot draws time and busbw against size into. */
int fx_coll_sweep(fx_cli *c, fx_router *r, const fx_coll_req *q, const fx_coll_time *tm,
		  const char *algos, const char *sizes, const char *plot);

/* What the power budget buys; budget/rack/nodes are option texts or NULL.
 * With --json its keys go into the object the caller has open. */
int fx_report_power(fx_cli *c, const char *budget, const char *rack, const char *nodes);

/* Places the workload (and the §6.7 deployment table when it applies).
 * With keep != NULL the placement is handed to the caller to release. */
int fx_report_place(fx_cli *c, const char *lp, double time_limit, long node_limit,
		    const fx_power_config *pc, fx_placement *keep);
/* The serving step of the design's model on the placement's first
 * instance (p NULL: the fabric's devices in order): inventory per device,
 * timeline, sessions, throughput (cli/step_report.c).  Nothing without a
 * model and workload.accelerator.hbm. */
int fx_report_step(fx_cli *c, const fx_placement *p);

/* What to fail: one element of a kind (switch, link, node, rack, plane,
 * power) at a time, or every pair (k = 2; at most `sample`, drawn from
 * seed), or the nfail selectors one at a time. */
typedef struct fx_failures_opts {
	const char *kind;           /* NULL: switch */
	const char *const *fails;
	int nfail;
	int all;                    /* every element, not one per class proven alike */
	int k;                      /* 1 or 2 */
	int64_t sample;
	uint64_t seed;
} fx_failures_opts;

/* What the failures o names do to the bisection, each device and the
 * workload's instances: a summary (worst, median, mean) and the most
 * critical first (cli/failures.c). */
int fx_report_failures(fx_cli *c, const fx_failures_opts *o);

#endif
