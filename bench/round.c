/*
 * Times the router alone on shifted rounds (rank i sends to i + s): the
 * routing part of a pairwise all-to-all's round, without the schedule
 * (whose n(n-1) flows the CLI keeps in memory).  64 shifts spread over
 * 1 .. n-1; split ECMP through the up/down sweep (where it applies) and
 * through the grouped push.
 *   cc ... bench/round.c build/libfabricx.a  (see bench/round.sh)
 *   round SPEC [KEY=VALUE]...   prints "devices updown_s push_s updown_first_s
 *   push_first_s": seconds a round, then the first round's
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/diag.h"
#include "../design/design.h"
#include "../fabric/fabric.h"
#include "../routing/internal.h"

#define SHIFTS 64

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);  /* CPU: steadier on a shared machine */
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds per round over SHIFTS rounds, after one untimed round (shift
 * n/2, every target's search built: a pairwise all-to-all pays that once
 * for its n - 1 rounds); *first: that round's seconds. */
static double per_round(const fx_fabric *f, int updown, fx_diag *d, double *first)
{
	int64_t n = f->ndev;
	fx_flow *fl = malloc((size_t)n * sizeof *fl);
	double *load = calloc((size_t)(2 * f->ne), sizeof *load);
	fx_router *r = fx_router_new(f, 0);
	fx_router_set_updown(r, updown);
	double t0 = now();
	for (int k = -1; k < SHIFTS; k++) {
		int64_t s = k < 0 ? n / 2 : 1 + (int64_t)k * (n - 1) / SHIFTS;
		if (k == 0) {
			*first = now() - t0;
			t0 = now();
		}
		for (int64_t i = 0; i < n; i++)
			fl[i] = (fx_flow){i, (i + s) % n, 1e6};
		fx_path_stats st = {0, 0};
		if (fx_router_add(r, fl, (size_t)n, load, &st, d) != 0)
			exit(1);
		const int64_t *used;
		size_t nu = fx_router_used(r, &used);
		for (size_t j = 0; j < nu; j++)  /* as run_sched clears a round */
			load[used[j]] = 0;
	}
	double t = (now() - t0) / SHIFTS;
	fx_router_free(r);
	free(fl);
	free(load);
	return t;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: round SPEC [KEY=VALUE]...\n");
		return 2;
	}
	fx_igraph_quiet();
	fx_diag d;
	fx_diag_init(&d);
	fx_design ds;
	const fx_design_limits lim = {.max_memory = 8e9};
	int rc = fx_design_load(&ds, argv[1], (const char *const *)argv + 2, (size_t)argc - 2, &lim, &d);
	if (rc == 0) {
		const fx_fabric *f = &ds.fab;
		double fa, fb, a = per_round(f, 1, &d, &fa), b = per_round(f, 0, &d, &fb);
		printf("%lld %.6f %.6f %.6f %.6f\n", (long long)f->ndev, a, b, fa, fb);
	} else {
		rc = 1;
	}
	fx_design_release(&ds);
	fx_diag_release(&d);
	return rc ? 1 : 0;
}
