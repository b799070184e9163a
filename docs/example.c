/*
 * docs/example.c: fabricx as a library.  Loads the spec given on the
 * command line (with any KEY=VALUE overrides after it), then prints its
 * bisection bandwidth and the time of an all-to-all of 32 MiB per rank over
 * every device, the figures `fabricx metrics` and `fabricx collective
 * --pattern all-to-all --size '32 MiB'` report.
 *
 *   cc -o example docs/example.c $(pkg-config --cflags --libs fabricx)
 *   ./example specs/torus-8x8x8.yaml fabric.dims=[4,4,4]
 */
#include <fabricx.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s SPEC [KEY=VALUE]...\n", argv[0]);
		return 2;
	}
	/* igraph aborts on an error unless told otherwise; fabricx checks every
	 * igraph call, so it wants the error back as a return code */
	fx_igraph_quiet();
	fx_diag d;
	fx_diag_init(&d);  /* messages go to stderr, with file:line:column */
	fx_design ds;
	int status = 0;
	if (fx_design_load(&ds, argv[1], (const char *const *)argv + 2, (size_t)argc - 2, NULL, &d)) {
		status = d.status;
		goto out;
	}
	const fx_fabric *f = &ds.fab;
	fx_cut bis;
	if (fx_route_bisection(f, &bis, &d)) {
		status = d.status;
		goto out;
	}
	printf("%s: %s fabric, %lld devices\n", ds.name, f->builder->kind, (long long)f->ndev);
	printf("bisection_bandwidth_Bps %.17g\n", bis.bandwidth);

	int64_t *ranks = malloc((size_t)f->ndev * sizeof *ranks);
	if (!ranks) {
		status = 1;
		goto out;
	}
	for (int64_t i = 0; i < f->ndev; i++)
		ranks[i] = i;
	/* the pattern's first algorithm, as `fabricx collective` picks it */
	fx_coll_req q = {"all-to-all", fx_coll_find("all-to-all", NULL)->name, ranks, f->ndev,
			 32.0 * 1024 * 1024, 0};
	fx_router *r = fx_router_new(f, 0);
	fx_coll_result res;
	if (fx_coll_run(f, r, &q, &ds.coll, &res, &d) == 0) {
		printf("all_to_all_time_s %.17g\n", res.time);
		fx_coll_result_release(&res);
	} else {
		status = d.status;
	}
	fx_router_free(r);
	free(ranks);
out:
	fx_design_release(&ds);
	fx_diag_release(&d);
	return status;
}
