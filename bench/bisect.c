/*
 * Times fx_route_bisection alone (no hop counts, no report): the bench
 * scripts use it to measure the bisection's growth on custom graphs.
 *   cc ... bench/bisect.c build/libfabricx.a  (see bench/bisect.sh)
 *   bisect SPEC [KEY=VALUE]...   prints "seconds links method how"
 */
#include <stdio.h>
#include <time.h>

#include "../core/diag.h"
#include "../design/design.h"
#include "../fabric/fabric.h"
#include "../routing/routing.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bisect SPEC [KEY=VALUE]...\n");
		return 2;
	}
	fx_igraph_quiet();  /* as the CLI: ARPACK may not converge */
	fx_diag d;
	fx_diag_init(&d);
	fx_design ds;
	const fx_design_limits lim = {.max_memory = 8e9};
	int rc = fx_design_load(&ds, argv[1], (const char *const *)argv + 2, (size_t)argc - 2, &lim, &d);
	if (rc == 0) {
		const fx_fabric *f = &ds.fab;
		struct timespec t0, t1;
		fx_cut c;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		rc = fx_route_bisection(f, &c, &d);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (rc == 0)
			printf("%.3f %.17g %s (%s)\n",
			       (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
			       c.links, c.method, c.how);
	} else {
		rc = 1;
	}
	fx_design_release(&ds);
	fx_diag_release(&d);
	return rc ? 1 : 0;
}
