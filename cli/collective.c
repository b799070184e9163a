/*
 * fabricx collective: per-link loads and completion time of one collective
 * on the fabric (report/coll_one.c), or a size sweep (cli/sweep.c).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

int fx_cli_write_links(fx_cli *c, const char *path, const fx_coll_result *res)
{
	return fx_report_links_csv(&c->design.fab, path, res, &c->d);
}

static int list_algos(int json)
{
	static const fx_col cols[] = {
		{"pattern", "pattern", FX_F_TEXT},
		{"algo", "algorithm", FX_F_TEXT},
		{"summary", "how it works", FX_F_TEXT},
		{NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("algorithms", "Collective algorithms (--pattern, --algo)", cols);
	for (const fx_coll_algo *const *a = fx_coll_algos; *a; a++) {
		fx_table_cell(t, "%s", (*a)->pattern);
		fx_table_cell(t, "%s", (*a)->name);
		fx_table_cell(t, "%s", (*a)->summary);
	}
	fx_cli_print_list(t, json);
	return 0;
}

/* --alpha replaces the spec's overhead and the path latency, as the "Supernodes" chapter's
 * alpha does; otherwise the spec's collective.overhead plus path latency.
 * --routing replaces the spec's collective.routing. */
static int time_model(fx_cli *c, const char *alpha, fx_coll_time *tm)
{
	*tm = c->design.coll;
	const char *pol = fx_cli_opt(c, "routing"), *timing = fx_cli_opt(c, "timing");
	if (pol && fx_route_policy_parse(pol, &tm->policy))
		return fx_diag_error(&c->d, NULL, "collective: --routing must be " FX_ROUTE_POLICY_LIST
				     ", got '%s'", pol);
	if (pol && !fx_route_policy_applies(c->design.fab.builder->router, tm->policy))
		return fx_diag_error(&c->d, NULL, "collective: --routing %s applies to %s; this is a %s "
				     "fabric", pol, fx_route_policy_scope(tm->policy),
				     c->design.fab.builder->kind);
	if (timing && fx_timing_parse(timing, &tm->timing))
		return fx_diag_error(&c->d, NULL, "collective: --timing must be bound, maxmin or events, "
				     "got '%s'", timing);
	if (!alpha)
		return 0;
	tm->alpha_replaces_latency = 1;
	tm->network_alpha_set = 0;  /* one alpha for every round */
	return fx_cli_qty(c, "--alpha", alpha, FX_UNIT_TIME, &tm->alpha);
}

static const fx_opt coll_opts[] = {
	FX_CLI_FAIL_OPT,
	{"pattern", "P", "allreduce, reduce-scatter, all-gather, all-to-all, broadcast, reduce, gemm-shift"},
	{"algo", "A", "algorithm (default: the pattern's first; see --list)"},
	{"size", "SIZE", "bytes per rank, e.g. '10 KiB' (all-to-all: what each rank sends in all)"},
	{"plot", "FILE", "with --sizes: draw time and busbw against size (log axes) into FILE.svg "
	 "or FILE.png with gnuplot"},
	{"sizes", "LO:HI:xF", "sweep sizes LO, LO*F, ... HI (1 B to 1 TiB), e.g. 8B:1GiB:x2; with "
	 "--algo a,b,c or all (the default): nccl-tests tables, fastest per size, crossovers"},
	{"ranks", "N", "the first N devices (default: all)"},
	{"group", "G", "a group the spec defines (groups: or custom nodes' group:)"},
	{"alpha", "T", "per-round overhead replacing spec overhead and path latency, e.g. 0.822us"},
	{"chunks", "C", "pieces of pipelined algorithms: chain (default 8); allreduce tree and dbtree "
	 "(default NCCL's: 512 KiB chunks, smaller for short pipelines; 1 = unpipelined, book Eq. "
	 "6-10); allreduce/ktree: groups G"},
	{"tie", "split|plus", "even rings: split ties half and half (default) or always go +"},
	{"routing", "P", "equal-cost paths: split (fluid, default; = minimal), hash, dmodk or smodk "
	 "(one path per flow; dmodk/smodk per cable, as SimGrid's fat-tree), rail or pxn "
	 "(composites), valiant (via every other group) or ugal (minimal or Valiant per pair of "
	 "groups by load) on dragonflies"},
	{"timing", "bound|maxmin|events", "how rounds are timed: alpha + slowest path + busiest link "
	 "per round (default, the book's Eq. 6-9), max-min sharing per round, or eager rounds with "
	 "no barrier (collective.timing)"},
	{"links", "FILE.csv", "write src,dst,bytes,busy_s,utilisation per directed link"},
	{"versus", "A2", "also find the size where this algorithm and A2 take equal time"},
	{"versus-measured", "FILE", "the model at each size measured in FILE (nccl-tests or "
	 "rccl-tests output, or a CSV pattern,ranks,size_bytes,time_s) for this pattern and "
	 "ranks, with the ratio"},
	{"list", NULL, "list every pattern and algorithm"},
	{NULL, NULL, NULL},
};

static int collective_run(fx_cli *c)
{
	int rc = 0;
	const char *pattern = fx_cli_opt(c, "pattern"), *algo = fx_cli_opt(c, "algo");
	const char *size = fx_cli_opt(c, "size"), *tie = fx_cli_opt(c, "tie");
	const char *sizes = fx_cli_opt(c, "sizes");
	fx_coll_req q = {0};
	fx_coll_time tm;
	int64_t *ranks = NULL;
	if (!pattern || (!size && !sizes))
		rc = fx_diag_error(&c->d, NULL, "collective: --pattern and --size (or --sizes) are "
				   "required (see --help)");
	else if (size && sizes)
		rc = fx_diag_error(&c->d, NULL, "collective: give --size or --sizes, not both");
	else if (!sizes && fx_cli_opt(c, "plot"))
		rc = fx_diag_error(&c->d, NULL, "collective: --plot draws a sweep and needs --sizes");
	else if (fx_cli_opt(c, "plot") && (!strrchr(fx_cli_opt(c, "plot"), '.') ||
		 (strcmp(strrchr(fx_cli_opt(c, "plot"), '.'), ".svg") &&
		  strcmp(strrchr(fx_cli_opt(c, "plot"), '.'), ".png"))))
		rc = fx_diag_error(&c->d, NULL, "collective: --plot: '%s' must end in .svg or .png",
				   fx_cli_opt(c, "plot"));
	else if (sizes && (fx_cli_opt(c, "versus") || fx_cli_opt(c, "links") ||
			   fx_cli_opt(c, "versus-measured")))
		rc = fx_diag_error(&c->d, NULL, "collective: --sizes reports crossovers itself and "
				   "takes no --versus, --versus-measured or --links");
	else if (!fx_coll_find(pattern, NULL))
		rc = fx_diag_error(&c->d, NULL, "collective: unknown pattern '%s' (see --list)", pattern);
	else if (sizes)
		;  /* --algo a,b,c is checked by the sweep */
	else if (algo && !fx_coll_find(pattern, algo))
		rc = fx_diag_error(&c->d, NULL, "collective: no algorithm '%s' for %s (see --list)", algo, pattern);
	else if (fx_cli_opt(c, "versus") && !fx_coll_find(pattern, fx_cli_opt(c, "versus")))
		rc = fx_diag_error(&c->d, NULL, "collective: --versus: no algorithm '%s' for %s",
				   fx_cli_opt(c, "versus"), pattern);
	else if (tie && strcmp(tie, "split") && strcmp(tie, "plus"))
		rc = fx_diag_error(&c->d, NULL, "collective: --tie must be split or plus, got '%s'", tie);
	if (rc == 0 && size)
		rc = fx_cli_qty(c, "--size", size, FX_UNIT_SIZE, &q.size);
	/* a billion pieces is past any pipeline, and keeps n + chunks in range */
	if (rc == 0 && fx_cli_opt(c, "chunks"))
		rc = fx_cli_int(c, "--chunks", fx_cli_opt(c, "chunks"), 1, 1000000000, &q.chunks);
	if (rc == 0)
		rc = fx_cli_load(c);
	if (rc == 0)
		rc = time_model(c, fx_cli_opt(c, "alpha"), &tm);
	if (rc == 0)
		rc = fx_cli_ranks(c, fx_cli_opt(c, "ranks"), fx_cli_opt(c, "group"), &ranks, &q.n);
	if (rc == 0)
		rc = fx_cli_outdir_asked(c);
	if (rc == 0) {
		q.pattern = pattern;
		q.algo = sizes ? NULL : fx_coll_find(pattern, algo)->name;
		q.ranks = ranks;
		fx_router *r = fx_router_new(&c->design.fab, tie && strcmp(tie, "plus") == 0);
		fx_cli_begin(c);
		if (sizes)
			rc = fx_coll_sweep(c, r, &q, &tm, algo, sizes, fx_cli_opt(c, "plot"));
		else
		{
			fx_collective_opts o = {.req = q, .tm = &tm, .versus = fx_cli_opt(c, "versus"),
						.versus_measured = fx_cli_opt(c, "versus-measured"),
						.links = fx_cli_opt(c, "links")};
			rc = fx_report_collective(&c->design, r, &o, fx_cli_sink(c), &c->d);
		}
		/* several jobs: each one's collectives alone and beside the others
		 * (report/jobs.c) */
		if (rc == 0 && c->design.njobs)
			rc = fx_report_jobs(&c->design, NULL, fx_cli_sink(c), &c->d);
		fx_cli_end(c);
		fx_router_free(r);
	}
	free(ranks);
	return rc;
}

#define COLLECTIVE_SUMMARY "link loads and completion time of a collective"

/* the report; fx_command_collective takes --list first */
static const fx_command collective_report = {
	.name = "collective",
	.summary = COLLECTIVE_SUMMARY,
	.usage = "collective SPEC --pattern P [--algo A] --size SIZE [--ranks N | --group G] "
		  "[--alpha T] [--links FILE.csv] [--json]\n"
		  "       fabricx collective SPEC --pattern P --sizes LO:HI:xF [--algo A,B,... | all]",
	.opts = coll_opts,
	.run = collective_run,
};

/* --list needs no SPEC, which the parser requires: it is looked for first. */
static int collective_main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--list") == 0) {
			int json = 0;
			for (int k = 1; k < argc; k++)
				json |= strcmp(argv[k], "--json") == 0;
			return list_algos(json);
		}
	return fx_cli_main(&collective_report, argc, argv);
}

const fx_command fx_command_collective = {
	.name = "collective",
	.summary = COLLECTIVE_SUMMARY,
	.main = collective_main,
};

