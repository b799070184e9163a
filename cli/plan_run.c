/*
 * `plan`'s schemes on worker processes or MPI ranks: a batch of scheme
 * indices is cut into shares (every jobs-th), each share evaluated by
 * plan/ into lines, every line taken back by the parent (by every rank),
 * so the result is the same however the batch was split.  Bounds and
 * small batches stay in the search itself: a fork costs more than a few
 * hundred schemes, and a bound less than its line.  Before a batch goes
 * out, the collectives it needs are routed first, shared over the
 * workers, and taken into the parent's cache (plan/ caches them), so the
 * evaluating workers inherit the routed times.  The flip thresholds'
 * tasks go to whichever worker or rank is free (space/run.h's task
 * counter).
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "plan_run.h"
#include "../space/run.h"

/* Schemes a worker takes at least before forking pays. */
#define MIN_SHARE 256

typedef struct plan_lines {
	fx_plan_problem *p;
	const fx_plan_knobs *k;
	int full;
	fx_plan_result *r;
	const uint64_t *idx;
	size_t n;
} plan_lines;

static int plan_work(void *ctx, int w, int jobs, FILE *f, fx_diag *d)
{
	plan_lines *pl = ctx;
	return fx_plan_eval_lines(pl->p, pl->k, pl->full, pl->r, pl->idx, pl->n, (size_t)w,
				  (size_t)jobs, f, d);
}

static int plan_take(void *ctx, const char *line)
{
	return fx_plan_take_line(((plan_lines *)ctx)->r, line);
}

/* The collectives a batch needs, routed on the workers first: routing is
 * most of a search's cost, and every worker then inherits the cache. */
typedef struct route_lines {
	fx_plan_problem *p;
	const fx_plan_result *r;
	const fx_plan_need *v;
	size_t n;
} route_lines;

static int route_work(void *ctx, int w, int jobs, FILE *f, fx_diag *d)
{
	route_lines *rl = ctx;
	return fx_plan_route_lines(rl->p, rl->r, rl->v, rl->n, (size_t)w, (size_t)jobs, f, d);
}

static int route_take(void *ctx, const char *line)
{
	return fx_plan_take_route_line(((route_lines *)ctx)->p, line);
}

static int route_first(fx_plan_runner *run, fx_plan_problem *p, const fx_plan_knobs *k,
		       const fx_plan_result *r, const uint64_t *idx, size_t n, fx_diag *d)
{
	fx_plan_need *v = NULL;
	size_t nv = fx_plan_needs(p, r, idx, n, &v);
	int rc = 0;
	if (nv >= 2 && (run->mpi_size > 1 || run->jobs > 1)) {
		route_lines rl = {p, r, v, nv};
		fx_lines_job job = {route_work, route_take, NULL, &rl};
		int jobs = run->jobs < (int)nv ? run->jobs : (int)nv;
		rc = run->mpi_size > 1 ? fx_lines_mpi(&job, run->mpi_rank, run->mpi_size, d)
				       : fx_lines_parallel(&job, jobs, nv, d);
	} else if (nv) {
		rc = fx_plan_prewarm(p, k, r, idx, n, d);
	}
	free(v);
	return rc;
}

static int batch(void *ctx, fx_plan_problem *p, const fx_plan_knobs *k, int full, fx_plan_result *r,
		 const uint64_t *idx, size_t n, fx_diag *d)
{
	fx_plan_runner *run = ctx;
	plan_lines pl = {p, k, full, r, idx, n};
	fx_lines_job job = {plan_work, plan_take, NULL, &pl};
	/* shares: jobs workers or every rank; a batch too small for them runs
	 * here (under MPI on every rank alike: the same outcome, no exchange),
	 * and so do bounds: a scheme's bound (about 1.6 us) costs less than
	 * writing its line and reading it back, so a split only adds */
	int jobs = run->mpi_size > 1 ? run->mpi_size : run->jobs;
	if (!full || (size_t)jobs * MIN_SHARE > n)
		jobs = full ? (int)(n / MIN_SHARE) : 1;
	if (jobs >= 2 && full && route_first(run, p, k, r, idx, n, d))
		return -1;
	if (jobs >= 2 && run->mpi_size > 1)
		return fx_lines_mpi(&job, run->mpi_rank, run->mpi_size, d);
	if (jobs < 2)
		return 1;  /* here, as without an exec (no lines to write and read) */
	return fx_lines_parallel(&job, jobs, n, d);
}

int fx_plan_runner_init(fx_plan_runner *r, int jobs, fx_diag *d)
{
	memset(r, 0, sizeof *r);
	r->jobs = jobs;
	r->mpi_size = 1;
	if (fx_space_mpi_begin(&r->mpi_rank, &r->mpi_size, d))
		return -1;
	if (r->mpi_size > 1 && jobs > 1)
		return fx_diag_error(d, NULL, "under MPI each rank takes its share of the schemes: "
				     "--jobs does not apply");
	r->ex.batch = batch;
	r->ex.ctx = r;
	return 0;
}

const fx_plan_exec *fx_plan_runner_exec(fx_plan_runner *r)
{
	return r->jobs > 1 || r->mpi_size > 1 ? &r->ex : NULL;
}

void fx_plan_runner_release(fx_plan_runner *r)
{
	fx_space_mpi_end();
	memset(r, 0, sizeof *r);
}

typedef struct flip_lines {
	fx_plan_problem *p;
	const fx_plan_result *r;
	fx_plan_flip *f;
	size_t n;
	/* the next task: each worker or rank takes the next when it is done
	 * with one (the tasks' costs differ by 3x and are not known before) */
	fx_lines_counter *next;
} flip_lines;

static int flip_work(void *ctx, int w, int jobs, FILE *out, fx_diag *d)
{
	(void)w;
	(void)jobs;
	flip_lines *fl = ctx;
	for (size_t i = fx_lines_counter_next(fl->next); i < fl->n; i = fx_lines_counter_next(fl->next)) {
		if (fx_plan_flip_run(fl->p, fl->r, &fl->f[i], d) ||
		    fx_plan_flip_line(&fl->f[i], i, out))
			return -1;
		fflush(out);
	}
	return 0;
}

static int flip_take(void *ctx, const char *line)
{
	flip_lines *fl = ctx;
	return fx_plan_flip_take(fl->f, fl->n, line);
}

long fx_plan_runner_flips(fx_plan_runner *run, fx_plan_problem *p, const fx_plan_result *r,
			  fx_plan_flip **out, fx_diag *d)
{
	size_t n = fx_plan_flip_tasks(p, r, out, d);
	if (d->status == FX_EXIT_INTERNAL)
		return -1;
	flip_lines fl = {p, r, *out, n, NULL};
	fx_lines_job job = {flip_work, flip_take, NULL, &fl};
	int rc = 0;
	if (n >= 2 && (run->mpi_size > 1 || run->jobs > 1)) {
		/* the probes meet mostly the schemes the search bounded feasible:
		 * their collectives routed first, shared over the workers, so
		 * each probe's worker inherits them rather than routing them
		 * again (times are kept as parts: bandwidth and alpha probes
		 * scale them without routing) */
		uint64_t *idx = fx_xmalloc((r->nrec + 1) * sizeof *idx);
		size_t m = 0;
		for (size_t i = 0; i < r->nrec; i++)
			if (r->rec[i].rule == FX_PR_NONE)
				idx[m++] = r->rec[i].idx;
		rc = route_first(run, p, &p->knobs, r, idx, m, d);
		free(idx);
	}
	if (rc)
		;
	else if (n >= 2 && (run->mpi_size > 1 || run->jobs > 1)) {
		if (!(fl.next = fx_lines_counter_new(run->mpi_size, d)))
			return -1;
		rc = run->mpi_size > 1 ? fx_lines_mpi(&job, run->mpi_rank, run->mpi_size, d)
				       : fx_lines_parallel(&job, run->jobs < (int)n ? run->jobs : (int)n, n, d);
		fx_lines_counter_free(fl.next);
	} else {
		rc = 0;
		for (size_t i = 0; i < n && rc == 0; i++)
			rc = fx_plan_flip_run(p, r, &(*out)[i], d);
	}
	return rc ? -1 : (long)n;
}
