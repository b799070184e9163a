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

#include "../cli/cli.h"

/* Keep each input cheap: refuse fabrics over 16 MiB, as --max-memory would,
 * and only run the metrics on small ones. */
#define FUZZ_MAX_MEMORY (16.0 * 1024 * 1024)
#define FUZZ_MAX_METRIC_VERTICES 512

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *devnull(void)
{
	static FILE *f;
	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

static void metrics(fx_cli *c)
{
	const fx_fabric *f = &c->design.fab;
	if (f->nv > FUZZ_MAX_METRIC_VERTICES)
		return;
	fx_hops h;
	if (fx_route_hops(f, &h, &c->d) == 0)
		fx_hops_release(&h);
	fx_cut cut;
	(void)fx_route_bisection(f, &cut, &c->d);
	if (f->ndev >= 2) {
		(void)fx_cli_coll_time(c, "allreduce", "ring", f->ndev, 1 << 20);
		(void)fx_cli_coll_time(c, "all-to-all", NULL, f->ndev, 1 << 20);
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
		fx_cli_init();
		ready = 1;
	}
	fx_cli c;
	memset(&c, 0, sizeof c);
	fx_diag_init(&c.d);
	c.d.out = devnull();
	c.cmd = "fuzz";
	c.out_root = "out";
	c.max_mem = FUZZ_MAX_MEMORY;
	size_t len = strlen(buf);
	for (size_t at = len + 1; at < size && c.nsets < FX_CLI_MAX_SETS; ) {
		c.sets[c.nsets++] = buf + at;
		at += strlen(buf + at) + 1;
	}
	if (fx_cli_load_text(&c, "fuzz.yaml", buf) == 0)
		metrics(&c);
	/* fx_cli_finish reports hidden errors on stderr; keep the fuzzer quiet */
	c.d.max_shown = c.d.nerr;
	(void)fx_cli_finish(&c, 0);
	free(buf);
	return 0;
}
