/*
 * Fuzz target: the spec loader, --set overrides, and everything that reads
 * a spec before a command runs (power, collective, workload, groups, the
 * fabric builders), then the structural metrics on what was built.
 *
 * One input is the bytes of a spec up to the first NUL; every further
 * NUL-separated piece is one --set KEY=VALUE.  (A spec holding a NUL byte is
 * refused by fx_spec_load before parsing; tests/errors/nul-byte.yaml covers
 * that.)
 *
 * Built two ways: with clang's libFuzzer by `make fuzz`, and with a plain
 * main() (fuzz/replay.c) that runs the corpus through it under ASan/UBSan
 * in `make san-check`.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../design/design.h"
#include "../space/space.h"

/* A space: its axes, at most 4 of its points built as explore would load
 * them, a small sample and a front over made-up values. */
#define FUZZ_MAX_POINTS 4
static void space(const fx_design *ds, const char *text, const fx_design_limits *lim, fx_diag *d)
{
	fx_space s;
	int present = 0;
	if (fx_space_parse(&s, &ds->spec, d, &present) == 0 && present) {
		uint64_t n = fx_space_count(&s);
		for (uint64_t i = 0; n != (uint64_t)-1 && i < n && i < FUZZ_MAX_POINTS; i++) {
			char *own[64];
			size_t k = fx_space_point(&s, i, own, 64);
			fx_design pt;
			(void)fx_design_load_text(&pt, "fuzz.yaml", text, (const char *const *)own, k, lim, d);
			fx_design_release(&pt);
			for (size_t j = 0; j < k; j++)
				free(own[j]);
		}
		uint64_t pick[3];
		(void)fx_space_sample(&s, 3, 7, pick);
		double vals[3 * 4] = {1, 2, 3, 4, 4, 3, 2, 1, 2, 2, 2, 2};
		unsigned char feas[3] = {1, 1, 0}, par[3];
		if (s.nobj <= 4)
			fx_space_pareto(&s, 3, vals, feas, par);
	}
	fx_space_release(&s);
}

/* Keep each input cheap: refuse fabrics over 16 MiB, as --max-memory would,
 * and only run the metrics on small ones. */
#define FUZZ_MAX_MEMORY (16.0 * 1024 * 1024)
#define FUZZ_MAX_METRIC_VERTICES 512
/* as many --set pieces as the command line takes */
#define FUZZ_MAX_SETS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull(void)
{
	static FILE *f;
	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

/* The time of one collective over every device, as the commands run it. */
static void coll(const fx_design *ds, const char *pattern, const char *algo, fx_diag *d)
{
	const fx_fabric *f = &ds->fab;
	int64_t *ranks = malloc((size_t)f->ndev * sizeof *ranks);
	if (!ranks)
		return;
	for (int64_t i = 0; i < f->ndev; i++)
		ranks[i] = i;
	fx_coll_req q = {pattern, algo, ranks, f->ndev, 1 << 20, 0};
	fx_router *r = fx_router_new(f, 0);
	fx_coll_result res;
	if (fx_coll_run(f, r, &q, &ds->coll, &res, d) == 0)
		fx_coll_result_release(&res);
	fx_router_free(r);
	free(ranks);
}

static void metrics(const fx_design *ds, fx_diag *d)
{
	const fx_fabric *f = &ds->fab;
	if (f->nv > FUZZ_MAX_METRIC_VERTICES)
		return;
	fx_hops h;
	if (fx_route_hops(f, &h, d) == 0)
		fx_hops_release(&h);
	fx_cut cut;
	(void)fx_route_bisection(f, &cut, d);
	if (f->ndev >= 2) {
		coll(ds, "allreduce", "ring", d);
		coll(ds, "all-to-all", NULL, d);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a private, NUL-terminated copy: the spec, then the --set pieces */
	char *buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	static int ready;
	if (!ready) {  /* as main() does */
		fx_igraph_quiet();  /* igraph errors as return codes */
		ready = 1;
	}
	fx_diag d;
	fx_diag_init(&d);
	d.out = devnull();
	const char *sets[FUZZ_MAX_SETS];
	size_t nsets = 0, len = strlen(buf);
	for (size_t at = len + 1; at < size && nsets < FUZZ_MAX_SETS; ) {
		sets[nsets++] = buf + at;
		at += strlen(buf + at) + 1;
	}
	fx_design ds;
	fx_design_limits lim = {.max_memory = FUZZ_MAX_MEMORY};
	if (fx_design_load_text(&ds, "fuzz.yaml", buf, sets, nsets, &lim, &d) == 0) {
		metrics(&ds, &d);
		space(&ds, buf, &lim, &d);
	}
	fx_design_release(&ds);
	fx_diag_release(&d);
	free(buf);
	return 0;
}
