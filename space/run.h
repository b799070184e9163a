/*
 * space/run.h: evaluating a space's points — the grid, a shard of it, or a
 * sample refined around the Pareto front — serially, on worker processes
 * or on MPI ranks (space/run.c, space/mpi.c), and the line jobs the
 * planner's --jobs and MPI runs share.
 *
 * Not installed yet: fx_space_run carries the runner's scratch (the point
 * table and its hash), so its layout is not a promise; the CLI and plan
 * use it, a program evaluates one point with space.h's fx_space_evaluate.
 * MPI is optional at build time (built without libopenmpi-dev, a run
 * started by mpirun says so instead of computing the space N times).
 */
#ifndef FX_SPACE_RUN_H
#define FX_SPACE_RUN_H

#include <stdio.h>

#include "space.h"

typedef struct fx_space_run {
	/* set by the caller */
	const fx_space_eval *ev;
	fx_diag *d;
	int jobs;                  /* worker processes, at least 1 */
	int shard_i, shard_n;      /* this run's share i of n (n = 0: all) */
	uint64_t budget;           /* points at most (0: the whole grid) */
	uint64_t seed;             /* of the sample */
	int progress;              /* a progress line on stderr */
	int no_eval;               /* merge: every point must be held already */
	int mpi_rank, mpi_size;    /* size 0 or 1: no MPI */
	/* results */
	uint64_t total;            /* points in the grid */
	uint64_t *todo;            /* the points this run reports, in order chosen */
	size_t ntodo;
	size_t nsample, rounds;    /* sampled: the Latin hypercube's size, refinements */
	int sampled;
	size_t evaluated;          /* computed here (not read back) */
	fx_space_pt *pts;                /* every point held, in no order */
	size_t npts, cap_pts;
	size_t *hash, cap_hash;    /* index -> position + 1 */
	double t0, t_shown;
	size_t done_before;
	int shown_any;
	char plots_skipped[256];   /* why the report has no plots ("" when it has) */
} fx_space_run;

/* Work that travels as lines (space points, plan schemes): children write
 * their share, the parent (every MPI rank) reads every line back. */
typedef struct fx_lines_job {
	/* writes share w of jobs as lines on f; 0, or -1 after reporting
	 * through d (the run stops) */
	int (*work)(void *ctx, int w, int jobs, FILE *f, fx_diag *d);
	/* takes one line back; 0, or -1 when it is not such a line */
	int (*take)(void *ctx, const char *line);
	void (*progress)(void *ctx, size_t got);  /* may be NULL */
	void *ctx;
} fx_lines_job;
/* Runs job on `jobs` worker processes (fork: they share nothing, so need no
 * locks, and a crash stays in its worker), expecting `expect` lines in
 * all.  0, or -1 after reporting through d. */
int fx_lines_parallel(const fx_lines_job *job, int jobs, size_t expect, fx_diag *d);
/* The same across MPI ranks: each rank runs its share (rank of size) and
 * every rank takes every line (space/mpi.c). */
int fx_lines_mpi(const fx_lines_job *job, int rank, int size, fx_diag *d);

/* The next task of a job, for workers that take the next one when done
 * with one (tasks whose costs differ and are not known before, as a
 * plan's flip probes or a space's points of different sizes): a counter
 * in memory that forked workers share, or, with mpi_size > 1, in an MPI
 * window on rank 0 that every rank draws from (space/mpi.c).  Under MPI
 * _new and _free are collective: every rank calls them.  NULL, after
 * reporting through d, when no counter can be made. */
typedef struct fx_lines_counter fx_lines_counter;
fx_lines_counter *fx_lines_counter_new(int mpi_size, fx_diag *d);
size_t fx_lines_counter_next(fx_lines_counter *c);
/* Draws k tasks at once: the first of them (the rest follow it). */
size_t fx_lines_counter_take(fx_lines_counter *c, size_t k);
void fx_lines_counter_free(fx_lines_counter *c);

/* Chooses and evaluates the points (those already held are not
 * recomputed).  0, or -1 after reporting through r->d. */
int fx_space_run_all(fx_space_run *r);
/* Holds the point of one points.csv line (resumed or merged); -1 when
 * the line is not one of this space's, 1 when a point of its index is
 * held already and measured otherwise (why: the first difference, into
 * why[len]); a duplicate alike in every column is dropped. */
int fx_space_run_take_line(fx_space_run *r, const char *line, int with_pareto, char *why,
			   size_t len);
const fx_space_pt *fx_space_run_find(const fx_space_run *r, uint64_t idx);
/* Marks pareto on the points held. */
void fx_space_run_front(fx_space_run *r);
void fx_space_run_release(fx_space_run *r);

/* Under MPI: evaluates this rank's share of idx[0..n) and gathers every
 * rank's points into r on every rank. */
int fx_space_mpi_batch(fx_space_run *r, const uint64_t *idx, size_t n);
/* MPI_Init when started by mpirun (rank and size into *rank, *size;
 * 0 and 1 otherwise); fx_space_mpi_end finalises.  0, or -1 after
 * reporting. */
int fx_space_mpi_begin(int *rank, int *size, fx_diag *d);
void fx_space_mpi_end(void);

/* The SHA-256 of a space's axes, every path and value in order
 * (provenance's space_sha256). */
void fx_space_signature(const fx_space *s, char out[65]);
#endif
