/*
 * The SMPI side of `export --to simgrid`: `--to smpi` writes a C program
 * that runs the spec's collectives (workload.collectives, or an allreduce
 * of 1 MiB over every device) as fabricx schedules them -- every round's
 * flows as MPI_Isend / MPI_Irecv between the ranks, repeated as the
 * schedule says, a rank going on to its next round once its own sends and
 * receives of this one are done -- and prints each one's simulated time;
 * `--to simgrid-hosts` writes the host file (h0, h1, ... one per line) in
 * rank order.  With the platform of `--to simgrid`:
 *
 *   smpicc -O2 prog.c -o prog
 *   smpirun -platform p.xml -hostfile hosts -np N ./prog
 *
 * No data is reduced (the program moves bytes only), so SMPI times the
 * network alone, as fabricx does.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "export_internal.h"

#define SMPI_MAX_FLOWS 1e6

int fx_export_simgrid_hosts(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d)
{
	(void)d;
	const fx_fabric *f = &ds->fab;
	for (int64_t v = 0; v < f->ndev; v++)
		fprintf(out, "h%lld\n", (long long)v);
	info->vertices = f->ndev;
	info->edges = 0;
	fx_export_lost(info, "only the hosts, in rank order: the platform is --to simgrid's");
	return 0;
}

/* One collective's rounds as C arrays named c<k>_r<i>. */
static int write_coll(const fx_design *ds, FILE *out, int k, const fx_wl_coll *w, int64_t *nrounds,
		      fx_diag *d)
{
	const fx_fabric *f = &ds->fab;
	int64_t *ranks = fx_xmalloc((size_t)(f->ndev ? f->ndev : 1) * sizeof *ranks);
	int64_t n = 0;
	if (w->group) {
		n = fx_design_group_devices(ds, w->group, ranks, d);
	} else {
		n = w->nranks ? w->nranks : f->ndev;
		for (int64_t i = 0; i < n; i++)
			ranks[i] = i;
	}
	const fx_coll_algo *a = fx_coll_find(w->pattern, w->algo);
	int rc = n <= 0 || !a ? fx_diag_error(d, NULL, "export smpi: collective %d: no ranks or no "
					      "algorithm", k) : 0;
	fx_sched s = {0};
	if (rc == 0) {
		fx_coll_req q = {w->pattern, a->name, ranks, n, w->size, 0};
		rc = a->gen(f, &q, &s, d);
	}
	fx_flow *buf = NULL;
	size_t cap = 0;
	/* the program lists every flow: refused past a million of them */
	if (rc == 0 && fx_sched_nflows(&s) > SMPI_MAX_FLOWS)
		rc = fx_diag_error(d, NULL, "export smpi: %s/%s over %lld ranks lists %.0f flows, past "
				   "the program's %.0f (give the collective fewer ranks in "
				   "workload.collectives)", w->pattern, a->name, (long long)n,
				   fx_sched_nflows(&s), SMPI_MAX_FLOWS);
	for (size_t i = 0; rc == 0 && i < s.n; i++) {
		size_t nf;
		const fx_flow *fl = fx_round_flows(&s.r[i], &buf, &cap, &nf);
		if (s.r[i].all_pairs > 0 || s.r[i].namong) {
			rc = fx_diag_error(d, NULL, "export smpi: %s/%s sends to every rank at once (not "
					   "listed flows); use a listed algorithm (all-to-all: "
					   "pairwise)", w->pattern, a->name);
			break;
		}
		fprintf(out, "static const flow c%d_r%zu[] = {", k, i);
		for (size_t j = 0; j < nf; j++)
			fprintf(out, "%s{%lld, %lld, %.17g}", j ? ", " : "", (long long)fl[j].src,
				(long long)fl[j].dst, fl[j].bytes);
		fprintf(out, "%s};\n", nf ? "" : "{0, 0, 0}");
	}
	if (rc == 0) {
		fprintf(out, "static const round_t c%d[] = {", k);
		for (size_t i = 0; i < s.n; i++) {
			size_t nf;
			fx_round_flows(&s.r[i], &buf, &cap, &nf);
			fprintf(out, "%s{%lld, %zu, c%d_r%zu}", i ? ", " : "", (long long)s.r[i].repeat, nf,
				k, i);
		}
		fprintf(out, "};\n");
		*nrounds = (int64_t)s.n;
	}
	free(buf);
	fx_sched_release(&s);
	free(ranks);
	return rc;
}

int fx_export_smpi(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d)
{
	const fx_fabric *f = &ds->fab;
	fx_wl_coll dflt = {"allreduce", "ring", NULL, 1048576, 0};
	const fx_wl_coll *w = ds->nwl ? ds->wl : &dflt;
	size_t nw = ds->nwl ? ds->nwl : 1;
	fprintf(out, "/* fabricx export of %s: its collectives as fabricx schedules them, each\n"
		     " * round's flows as MPI point-to-point.  Run with the --to simgrid\n"
		     " * platform and the --to simgrid-hosts host file:\n"
		     " *   smpicc -O2 THIS.c -o prog && smpirun -platform P.xml -hostfile HOSTS"
		     " -np %lld ./prog */\n"
		     "#include <mpi.h>\n#include <stdio.h>\n#include <stdlib.h>\n\n"
		     "typedef struct { int src, dst; double bytes; } flow;\n"
		     "typedef struct { long repeat; int n; const flow *f; } round_t;\n\n",
		ds->name, (long long)f->ndev);
	int64_t *nr = fx_xcalloc(nw, sizeof *nr);
	int rc = 0;
	for (size_t k = 0; k < nw && rc == 0; k++)
		rc = write_coll(ds, out, (int)k, &w[k], &nr[k], d);
	if (rc == 0) {
		fprintf(out, "\nstatic const struct { const char *name; int nrounds; const round_t *r; } "
			     "colls[] = {\n");
		for (size_t k = 0; k < nw; k++)
			fprintf(out, "\t{\"%s/%s %.17g B\", %lld, c%zu},\n", w[k].pattern,
				w[k].algo ? w[k].algo : fx_coll_find(w[k].pattern, NULL)->name, w[k].size,
				(long long)nr[k], k);
		fprintf(out, "};\n\n"
			"int main(int argc, char **argv)\n{\n"
			"\tint me, np;\n"
			"\tMPI_Init(&argc, &argv);\n"
			"\tMPI_Comm_rank(MPI_COMM_WORLD, &me);\n"
			"\tMPI_Comm_size(MPI_COMM_WORLD, &np);\n"
			"\tdouble most = 1;\n"
			"\tfor (size_t k = 0; k < sizeof colls / sizeof colls[0]; k++)\n"
			"\t\tfor (int i = 0; i < colls[k].nrounds; i++)\n"
			"\t\t\tfor (int j = 0; j < colls[k].r[i].n; j++)\n"
			"\t\t\t\tif (colls[k].r[i].f[j].bytes > most)\n"
			"\t\t\t\t\tmost = colls[k].r[i].f[j].bytes;\n"
			"\tchar *sbuf = malloc((size_t)most + 1), *rbuf = malloc((size_t)most + 1);\n"
			"\tfor (size_t k = 0; k < sizeof colls / sizeof colls[0]; k++) {\n"
			"\t\tMPI_Barrier(MPI_COMM_WORLD);\n"
			"\t\tdouble t0 = MPI_Wtime();\n"
			"\t\tfor (int i = 0; i < colls[k].nrounds; i++) {\n"
			"\t\t\tconst round_t *r = &colls[k].r[i];\n"
			"\t\t\tMPI_Request *rq = malloc((size_t)(2 * r->n + 1) * sizeof *rq);\n"
			"\t\t\tfor (long rep = 0; rep < r->repeat; rep++) {\n"
			"\t\t\t\tint nq = 0;\n"
			"\t\t\t\tfor (int j = 0; j < r->n; j++) {\n"
			"\t\t\t\t\tint cnt = (int)(r->f[j].bytes + 0.5), tag = j %% 32767;\n"
			"\t\t\t\t\tif (r->f[j].dst == me)\n"
			"\t\t\t\t\t\tMPI_Irecv(rbuf, cnt, MPI_BYTE, r->f[j].src, tag, MPI_COMM_WORLD, &rq[nq++]);\n"
			"\t\t\t\t\tif (r->f[j].src == me)\n"
			"\t\t\t\t\t\tMPI_Isend(sbuf, cnt, MPI_BYTE, r->f[j].dst, tag, MPI_COMM_WORLD, &rq[nq++]);\n"
			"\t\t\t\t}\n"
			"\t\t\t\tMPI_Waitall(nq, rq, MPI_STATUSES_IGNORE);\n"
			"\t\t\t}\n"
			"\t\t\tfree(rq);\n"
			"\t\t}\n"
			"\t\t/* from the last rank's start (the barrier lets ranks go at\n"
			"\t\t * different moments; fabricx starts them together) to the\n"
			"\t\t * last rank's end */\n"
			"\t\tdouble t1 = MPI_Wtime(), s0, e1;\n"
			"\t\tMPI_Reduce(&t0, &s0, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n"
			"\t\tMPI_Reduce(&t1, &e1, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);\n"
			"\t\tdouble tmax = e1 - s0;\n"
			"\t\tif (me == 0)\n"
			"\t\t\tprintf(\"fabricx-smpi: %%s %%.9g s\\n\", colls[k].name, tmax);\n"
			"\t}\n"
			"\t(void)np;\n"
			"\tfree(sbuf);\n"
			"\tfree(rbuf);\n"
			"\tMPI_Finalize();\n"
			"\treturn 0;\n}\n");
	}
	fx_export_lost(info, "the per-round overhead (collective.overhead): SMPI charges its own "
		       "per-message costs (smpi/os, smpi/or; 0 unless configured)");
	fx_export_lost(info, "no data is reduced: the program moves the schedule's bytes only");
	info->vertices = f->ndev;
	info->edges = 0;
	free(nr);
	return rc;
}
