/*
 * space_mpi: a space's points across machines with MPI (Open MPI from
 * Debian).  `mpirun -np N fabricx explore SPEC`: every rank loads the spec,
 * chooses the same points (the choice depends only on the space, the seed
 * and results every rank holds), evaluates every N-th point of each batch
 * and all ranks gather every line (MPI_Allgatherv), so a sampled space
 * refines around the same front everywhere; rank 0 writes out/<name>/.
 *
 * MPI starts only under an MPI launcher (its environment says so): a
 * plain run never touches it.  Built without MPI (no libopenmpi-dev), a
 * launched run says so instead of computing the space N times.
 */
#define _DEFAULT_SOURCE  /* MAP_ANONYMOUS: the forked workers' shared counter */
#ifdef FX_MPI
#include <mpi.h>
#endif
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../core/xalloc.h"
#include "run.h"

struct fx_lines_counter {
	atomic_size_t *shared;  /* forked workers: a shared page; NULL under MPI */
	int mpi;
#ifdef FX_MPI
	MPI_Win win;
	uint64_t *cell;         /* the window's memory (rank 0's holds the count) */
#endif
};

static int launched(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE");
}

#ifdef FX_MPI
static int started;

int fx_space_mpi_begin(int *rank, int *size, fx_diag *d)
{
	*rank = 0;
	*size = 1;
	if (!launched())
		return 0;
	int ok = 0;
	MPI_Initialized(&ok);
	if (!ok) {
		if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
			return fx_diag_internal(d, "MPI_Init failed");
		started = 1;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, rank);
	MPI_Comm_size(MPI_COMM_WORLD, size);
	return 0;
}

void fx_space_mpi_end(void)
{
	if (started)
		MPI_Finalize();
	started = 0;
}

int fx_lines_mpi(const fx_lines_job *job, int rank, int size, fx_diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		fx_xalloc_failed();
	fx_diag own;
	fx_diag_init(&own);
	/* every rank still joins the gather; the line stops them all */
	if (job->work(job->ctx, rank, size, f, &own))
		fprintf(f, "!%d %s\n", own.status ? own.status : 1, own.last ? own.last : "failed");
	fx_diag_release(&own);
	fclose(f);
	if (len > (size_t)INT32_MAX / 2) {
		free(buf);
		return fx_diag_internal(d, "MPI: one rank's lines exceed 1 GiB of text");
	}
	int mine = (int)len, *lens = fx_xcalloc((size_t)size, sizeof *lens);
	int *offs = fx_xcalloc((size_t)size, sizeof *offs);
	MPI_Allgather(&mine, 1, MPI_INT, lens, 1, MPI_INT, MPI_COMM_WORLD);
	long long total = 0;
	for (int i = 0; i < size; i++) {
		offs[i] = (int)total;
		total += lens[i];
	}
	int rc = 0;
	if (total > INT32_MAX) {
		rc = fx_diag_internal(d, "MPI: a batch's lines exceed 2 GiB of text");
	} else {
		char *all = fx_xmalloc((size_t)total + 1);
		MPI_Allgatherv(buf, mine, MPI_CHAR, all, lens, offs, MPI_CHAR, MPI_COMM_WORLD);
		all[total] = '\0';
		char *save = NULL;
		for (char *line = strtok_r(all, "\n", &save); line && rc == 0;
		     line = strtok_r(NULL, "\n", &save)) {
			if (line[0] == '!') {
				const char *msg = strchr(line, ' ');
				rc = atoi(line + 1) == 2 ? fx_diag_error(d, NULL, "%s", msg ? msg + 1 : "")
							 : fx_diag_internal(d, "%s", msg ? msg + 1 : "");
			} else if (job->take(job->ctx, line)) {
				rc = fx_diag_internal(d, "MPI: a rank sent a line fabricx cannot read");
			}
		}
		free(all);
	}
	free(buf);
	free(lens);
	free(offs);
	return rc;
}

#else

int fx_space_mpi_begin(int *rank, int *size, fx_diag *d)
{
	*rank = 0;
	*size = 1;
	if (launched())
		return fx_diag_error(d, NULL, "started by an MPI launcher, but this fabricx was built "
				     "without MPI (install libopenmpi-dev and rebuild)");
	return 0;
}

void fx_space_mpi_end(void)
{
}

int fx_lines_mpi(const fx_lines_job *job, int rank, int size, fx_diag *d)
{
	(void)job;
	(void)rank;
	(void)size;
	return fx_diag_internal(d, "MPI: not built in");
}

#endif

/* Forked workers share a page; under MPI the count lives in a window on
 * rank 0.  The window is allocated by MPI (MPI_Win_allocate: Open MPI's
 * shared memory component takes no window over memory of the program's
 * own, MPI_Win_create), set to 0 on rank 0 inside an exclusive lock of its
 * own, and only drawn from after a barrier; each draw is one atomic
 * fetch-and-add on rank 0's cell, which needs no matching call there. */
fx_lines_counter *fx_lines_counter_new(int mpi_size, fx_diag *d)
{
	fx_lines_counter *c = fx_xcalloc(1, sizeof *c);
	if (mpi_size > 1) {
#ifdef FX_MPI
		int rank = 0;
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
		c->mpi = 1;
		if (MPI_Win_allocate(rank == 0 ? (MPI_Aint)sizeof *c->cell : 0, (int)sizeof *c->cell,
				     MPI_INFO_NULL, MPI_COMM_WORLD, &c->cell, &c->win) != MPI_SUCCESS) {
			free(c);
			fx_diag_internal(d, "MPI: no window for the task counter");
			return NULL;
		}
		if (rank == 0) {
			MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, c->win);
			*c->cell = 0;
			MPI_Win_unlock(0, c->win);
		}
		MPI_Barrier(MPI_COMM_WORLD);
		MPI_Win_lock_all(0, c->win);
		return c;
#else
		free(c);
		fx_diag_internal(d, "MPI: not built in");
		return NULL;
#endif
	}
	void *m = mmap(NULL, sizeof(atomic_size_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	if (m == MAP_FAILED) {
		free(c);
		fx_diag_internal(d, "no shared page for the workers' task counter");
		return NULL;
	}
	c->shared = m;
	atomic_init(c->shared, 0);
	return c;
}

size_t fx_lines_counter_take(fx_lines_counter *c, size_t k)
{
#ifdef FX_MPI
	if (c->mpi) {
		uint64_t add = k, got = 0;
		MPI_Fetch_and_op(&add, &got, MPI_UINT64_T, 0, 0, MPI_SUM, c->win);
		MPI_Win_flush(0, c->win);
		return (size_t)got;
	}
#endif
	return atomic_fetch_add(c->shared, k);
}

size_t fx_lines_counter_next(fx_lines_counter *c)
{
	return fx_lines_counter_take(c, 1);
}

void fx_lines_counter_free(fx_lines_counter *c)
{
	if (!c)
		return;
#ifdef FX_MPI
	if (c->mpi) {
		MPI_Win_unlock_all(c->win);
		MPI_Win_free(&c->win);  /* frees the cell too */
	}
#endif
	if (c->shared)
		munmap(c->shared, sizeof *c->shared);
	free(c);
}

/* A space batch: each rank takes the next point not yet taken (points of
 * different sizes cost very differently: a 16^3 torus against a 4^3). */
typedef struct mpi_space {
	fx_space_run *r;
	const uint64_t *idx;
	size_t n;
	fx_lines_counter *next;
} mpi_space;

static int mpi_work(void *ctx, int w, int jobs, FILE *f, fx_diag *d)
{
	(void)w;
	(void)jobs;
	mpi_space *m = ctx;
	/* points are drawn in chunks of about 1/64 of a rank's share: a draw
	 * is an atomic on rank 0 that completes only when rank 0 next enters
	 * MPI, which one draw per point (a 4^3 torus point takes 0.1 ms) made
	 * a cost of every point; 64 chunks a rank still even out points of
	 * unequal cost to within a chunk */
	size_t chunk = m->n / ((size_t)m->r->mpi_size * 64);
	if (chunk < 1)
		chunk = 1;
	for (size_t k0 = fx_lines_counter_take(m->next, chunk); k0 < m->n;
	     k0 = fx_lines_counter_take(m->next, chunk))
		for (size_t k = k0; k < k0 + chunk && k < m->n; k++) {
			fx_space_pt p;
			if (fx_space_evaluate(m->r->ev, m->idx[k], &p, d)) {
				fx_space_pt_release(&p);
				return -1;
			}
			fx_space_write_line(m->r->ev, &p, f, 0);
			fx_space_pt_release(&p);
		}
	return 0;
}

static int mpi_take(void *ctx, const char *line)
{
	return fx_space_run_take_line(((mpi_space *)ctx)->r, line, 0, NULL, 0);
}

int fx_space_mpi_batch(fx_space_run *r, const uint64_t *idx, size_t n)
{
	mpi_space m = {r, idx, n, fx_lines_counter_new(r->mpi_size, r->d)};
	if (!m.next)
		return -1;
	fx_lines_job job = {mpi_work, mpi_take, NULL, &m};
	int rc = fx_lines_mpi(&job, r->mpi_rank, r->mpi_size, r->d);
	fx_lines_counter_free(m.next);
	return rc;
}
