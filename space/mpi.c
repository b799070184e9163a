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
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "run.h"

static int launched(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE");
}

#ifdef FX_MPI
#include <mpi.h>

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

/* A space batch: each rank evaluates every size-th point. */
typedef struct mpi_space {
	fx_space_run *r;
	const uint64_t *idx;
	size_t n;
} mpi_space;

static int mpi_work(void *ctx, int w, int jobs, FILE *f, fx_diag *d)
{
	mpi_space *m = ctx;
	for (size_t k = (size_t)w; k < m->n; k += (size_t)jobs) {
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
	mpi_space m = {r, idx, n};
	fx_lines_job job = {mpi_work, mpi_take, NULL, &m};
	return fx_lines_mpi(&job, r->mpi_rank, r->mpi_size, r->d);
}
