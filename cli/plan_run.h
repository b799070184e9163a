/*
 * plan_run: where `plan` evaluates its schemes - here, on --jobs worker
 * processes, or across MPI ranks - through the same line runners as a
 * design space (space/run.h: fx_lines_parallel, fx_lines_mpi).
 */
#ifndef FX_CLI_PLAN_RUN_H
#define FX_CLI_PLAN_RUN_H

#include "../plan/plan.h"

typedef struct fx_plan_runner {
	int jobs;
	int mpi_rank, mpi_size;   /* size 1: no MPI */
	fx_plan_exec ex;
} fx_plan_runner;

/* Starts MPI when launched by mpirun (fx_space_mpi_begin).  0, or -1
 * after reporting (--jobs under MPI, MPI not built in).  A space's point
 * plans without a runner, in its own process (space/points.c): the space
 * shares its points over the ranks and owns MPI. */
int fx_plan_runner_init(fx_plan_runner *r, int jobs, fx_diag *d);
/* The exec to give fx_plan_search: NULL when everything runs here. */
const fx_plan_exec *fx_plan_runner_exec(fx_plan_runner *r);
void fx_plan_runner_release(fx_plan_runner *r);
/* The flip thresholds of r's choice, each (input, direction) a task of
 * its own on the workers (or here).  *out malloc'd; the count, or -1. */
long fx_plan_runner_flips(fx_plan_runner *run, fx_plan_problem *p, const fx_plan_result *r,
			  fx_plan_flip **out, fx_diag *d);

#endif
