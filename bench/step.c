/*
 * Times the step model alone (step/step.h: fx_step_eval), the cost per
 * scheme a planner pays: every layout of a spec's model over TP, EP, PP
 * (with micro-batches), CP and batch, communication from the closed form
 * behind fx_step_cache (so each distinct collective is asked once, as a
 * planner reusing routed results would), and once more routed on the
 * spec's fabric (fx_design_step: routing included, the first time and
 * cached).
 *   cc ... bench/step.c build/libfabricx.a  (see bench/step.sh)
 *   step SPEC [KEY=VALUE]...   prints "schemes ns_per_scheme_cached
 *   ns_per_scheme_uncached cache_hits cache_misses routed_first_ms"
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../core/diag.h"
#include "../design/design.h"
#include "../step/step.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);  /* CPU: steadier on a shared machine */
	return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Every layout of the sweep once; returns how many and a checksum (so the
 * work is not optimised away). */
static long sweep(const fx_design *ds, fx_step_comm_fn fn, void *ctx, double *sum)
{
	static const int64_t tps[] = {1, 2, 4, 8}, eps[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
	static const int64_t pps[] = {1, 2, 4}, cps[] = {1, 2}, batches[] = {0, 1, 8, 64};
	long n = 0;
	for (size_t a = 0; a < 4; a++)
		for (size_t b = 0; b < 9; b++)
			for (size_t c = 0; c < 3; c++)
				for (size_t e = 0; e < 2; e++)
					for (size_t f = 0; f < 4; f++) {
						fx_step_layout l = ds->step_layout;
						l.tp = tps[a];
						l.ep = eps[b];
						l.pp = pps[c];
						l.microbatches = pps[c] * 2;
						l.cp = cps[e];
						fx_step_load ld = ds->step_load;
						ld.batch = batches[f];
						fx_step_result r;
						fx_step_eval(&ds->step, &ds->step_hw, &l, &ld, fn, ctx, &r);
						*sum += r.step;
						n++;
					}
	return n;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: step SPEC [KEY=VALUE]...\n");
		return 2;
	}
	fx_diag d;
	fx_diag_init(&d);
	fx_design ds;
	if (fx_design_load(&ds, argv[1], (const char *const *)argv + 2, (size_t)(argc - 2), NULL, &d) ||
	    !ds.have_step) {
		fprintf(stderr, "step: %s: %s\n", argv[1], d.first ? d.first : "no model to step");
		return 1;
	}
	fx_step_closed nv = {8, 0.822e-6, 450e9, 5e-6, 50e9};
	double sum = 0;
	/* uncached: the closed form asked every time */
	long n = 0;
	double t0 = now();
	for (int k = 0; k < 20; k++)
		n += sweep(&ds, fx_step_comm_closed, &nv, &sum);
	double unc = (now() - t0) / (double)n;
	/* cached: warm the cache once, then the sweep again and again */
	fx_step_cache *c = fx_step_cache_new(fx_step_comm_closed, &nv);
	sweep(&ds, fx_step_comm_cached, c, &sum);
	n = 0;
	t0 = now();
	for (int k = 0; k < 20; k++)
		n += sweep(&ds, fx_step_comm_cached, c, &sum);
	double cached = (now() - t0) / (double)n;
	int64_t hits, misses;
	fx_step_cache_stats(c, &hits, &misses);
	fx_step_cache_free(c);
	/* routed on the fabric: the spec's own layout, routing included */
	fx_step_result r;
	t0 = now();
	int rc = fx_design_step(&ds, NULL, 0, NULL, &r, &d);
	double routed = now() - t0;
	printf("%ld %.0f %.0f %lld %lld %.3f %s\n", n / 20, cached * 1e9, unc * 1e9, (long long)hits,
	       (long long)misses, rc ? -1.0 : routed * 1e3, sum > 0 ? "" : "(no step)");
	fx_design_release(&ds);
	fx_diag_release(&d);
	return 0;
}
