/*
 * fabricx failures: the options of the failures report
 * (fx_report_failures, report/failures.c, which says what it measures).
 */
#include <stdint.h>
#include <string.h>

#include "cli.h"
#include "report.h"

static const fx_opt opts[] = {
	{"kind", "K", "what fails: switch (default), link, node, rack, plane or power"},
	{"all", NULL, "evaluate every element, not one of each class proven alike"},
	{"fail", "SEL", "fail these instead, one at a time: a selector as --cut takes, or A~B "
	 "for the links between two (repeatable)"},
	{"k", "K", "fail 1 (default) or 2 elements at once: every pair, or a sample"},
	{"sample", "N", "with --k 2: at most N pairs, drawn at random past N (default 100)"},
	{"seed", "S", "the sample's seed (SplitMix64; default 1)"},
	{NULL, NULL, NULL},
};

static int failures_run(fx_cli *c)
{
	int rc = fx_cli_load(c);
	const char *fails[64];
	fx_failures_opts o = {.kind = fx_cli_opt(c, "kind"), .fails = fails, .k = 1,
			      .sample = 100, .seed = 1, .all = fx_cli_opt(c, "all") != NULL};
	int nfail = fx_cli_opt_each(c, "fail", fails, 64);
	o.nfail = nfail < 64 ? nfail : 64;
	const char *v;
	int64_t x;
	if (rc == 0 && (v = fx_cli_opt(c, "k"))) {
		rc = fx_cli_int(c, "--k", v, 1, 2, &x);
		o.k = (int)x;
	}
	if (rc == 0 && (v = fx_cli_opt(c, "sample"))) {
		rc = fx_cli_int(c, "--sample", v, 1, 10000, &x);
		o.sample = x;
	}
	if (rc == 0 && (v = fx_cli_opt(c, "seed"))) {
		rc = fx_cli_int(c, "--seed", v, 0, INT64_MAX, &x);
		o.seed = (uint64_t)x;
	}
	if (rc == 0 && o.k == 1 && (fx_cli_opt(c, "sample") || fx_cli_opt(c, "seed")))
		rc = fx_diag_error(&c->d, NULL, "--sample and --seed need --k 2");
	if (rc == 0)
		rc = fx_cli_outdir_asked(c);
	if (rc == 0) {
		fx_cli_begin(c);
		o.spec = c->spec_path;
		rc = fx_report_failures(&c->design, &o, fx_cli_sink(c), &c->d);
		fx_cli_end(c);
	}
	return rc;
}

const fx_command fx_command_failures = {
	.name = "failures",
	.summary = "what losing a switch chip or a link does to bisection and devices",
	.usage = "failures SPEC [--kind switch|link|node|rack|plane|power] "
		  "[--fail SEL]... [--all] [--k 1|2] [--sample N] [--seed S] [--json]",
	.opts = opts,
	.run = failures_run,
};
