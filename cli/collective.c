/*
 * fabricx collective: per-link loads and completion time of one collective
 * on the fabric; also the collectives section of `explore`.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../calib/calib.h"
#include "../core/outfile.h"
#include "../core/units.h"
#include "../core/xalloc.h"
#include "cli.h"
#include "report.h"

/* One collective's result as a record; versus/cross: the --versus
 * crossover (cross <= 0: none found), versus NULL: not asked. */
static fx_table *result_record(const fx_coll_req *q, const fx_coll_algo *a,
			       const fx_coll_result *res, const char *router, const fx_coll_time *tm,
			       const char *versus, double cross)
{
	fx_table *t = fx_record_new("collective", "Collective", NULL);
	fx_record_text(t, "pattern", "pattern", "%s", q->pattern);
	fx_record_text(t, "algo", "algorithm", "%s", a->name);
	fx_record_text(t, "algo_summary", "how", "%s", a->summary);
	fx_record_int(t, "ranks", "ranks", q->n);
	fx_record_num(t, "size_bytes", "size per rank", FX_F_BYTES, q->size);
	fx_record_text(t, "router", "router", "%s", router);
	fx_record_text(t, "routing_policy", "routing policy", "%s", fx_route_policy_name(tm->policy));
	fx_record_text(t, "timing", "timing", "%s", fx_timing_name(res->timing));
	if (res->timing != FX_TIMING_BOUND)
		fx_record_text(t, "sharing", "link sharing", "%s", fx_sharing_name(res->sharing));
	fx_record_num(t, "alpha_s", "alpha per round", FX_F_SECONDS, tm->alpha);
	if (tm->network_alpha_set)
		fx_record_num(t, "network_alpha_s", "alpha per round over the network", FX_F_SECONDS,
			      tm->network_alpha);
	fx_record_bool(t, "alpha_replaces_latency", "alpha replaces path latency",
		       tm->alpha_replaces_latency);
	fx_record_int(t, "rounds", "rounds", res->rounds);
	if (res->plan[0])
		fx_record_text(t, "layout", "layout", "%s", res->plan);
	else
		fx_record_null(t, "layout", "layout", FX_F_TEXT, "-");
	fx_record_int(t, "chunks", q->chunks > 0 ? "pipeline chunks (--chunks)" :
		      "pipeline chunks", res->chunks);
	fx_record_num(t, "chunk_bytes", "chunk size", FX_F_BYTES, res->chunk_bytes);
	fx_record_num(t, "time_s", "time", FX_F_SECONDS, res->time);
	fx_record_text(t, "time_source", "time", "%s", res->measured ? "measured" : "modelled");
	fx_record_text(t, "time_note", "time from", "%s", res->time_source[0] ? res->time_source
											       : "modelled");
	if (res->measured)
		fx_record_num(t, "modelled_time_s", "the model's time", FX_F_SECONDS,
			      res->modelled_time);
	fx_record_num(t, "algbw_Bps", "algbw", FX_F_BPS, res->algbw);
	fx_record_num(t, "busbw_Bps", "busbw", FX_F_BPS, res->busbw);
	fx_record_num(t, "max_link_bytes", "busiest link (all rounds)", FX_F_BYTES,
		      res->max_link_bytes);
	fx_record_num(t, "total_link_bytes", "bytes over all links", FX_F_BYTES,
		      res->total_link_bytes);
	fx_record_num(t, "sent_bytes", "bytes sent by ranks", FX_F_BYTES, res->sent_bytes);
	if (versus) {
		fx_record_text(t, "versus", "versus", "%s", versus);
		if (cross > 0)
			fx_record_num(t, "crossover_bytes", "equal time at (per rank)", FX_F_BYTES, cross);
		else
			fx_record_null(t, "crossover_bytes", "equal time at (per rank)", FX_F_BYTES,
				       "none between 1 B and 1 TB");
	}
	return t;
}

/* Identical consecutive rounds once, with their count: --chunks 1000000
 * must not print a million rows. */
static fx_table *rounds_table(const fx_coll_result *res)
{
	static const fx_col cols[] = {
		{"first_round", "round", FX_F_INT}, {"repeat", "x", FX_F_INT},
		{"phase", "phase", FX_F_TEXT}, {"max_link_bytes", "busiest link", FX_F_BYTES},
		{"total_link_bytes", "all links", FX_F_BYTES}, {"max_hops", "max hops", FX_F_INT},
		{"routing_stages", "routing stages", FX_F_INT},
		{"latency_s", "path latency", FX_F_SECONDS}, {"time_s", "time each", FX_F_SECONDS},
		{NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("rounds", "Rounds (identical consecutive rounds shown once)", cols);
	fx_table_json_key(t, "per_round");
	int64_t first = 1;
	for (size_t i = 0; i < res->nround; i++) {
		const fx_round_result *rr = &res->per_round[i];
		fx_table_int(t, first);
		fx_table_int(t, rr->repeat);
		fx_table_cell(t, "%s", rr->label);
		fx_table_num(t, rr->max_link_bytes);
		fx_table_num(t, rr->total_link_bytes);
		fx_table_int(t, rr->max_hops);
		fx_table_int(t, rr->stages);
		fx_table_num(t, rr->latency);
		fx_table_num(t, rr->time);
		first += rr->repeat;
	}
	return t;
}

int fx_cli_write_links(fx_cli *c, const char *path, const fx_coll_result *res)
{
	return fx_report_links_csv(&c->design.fab, path, res, &c->d);
}

/* WaferLLM's PLMR figures (routing.h fx_plmr) against the wafer's router
 * table (routes_per_pe) and PE memory (pe_memory). */
static int plmr_table(fx_cli *c, const fx_coll_req *q, const fx_plmr *p)
{
	const fx_wafer_state *w = fx_fabric_wafer(&c->design.fab);  /* plmr runs on wafers only */
	const fx_fabric *f = &c->design.fab;
	char l1[96], l2[96], l3[96];
	int shift = strcmp(q->pattern, "gemm-shift") == 0;
	const char *per = shift ? " per shift step" : "";
	fx_table *t = fx_record_new("plmr", "PLMR (WaferLLM)", "plmr");
	fx_record_int(t, "paths_per_pe", p->paths_per_pe > w->routes_per_pe ?
		      "routing paths per PE (over the router table: software routing)" :
		      "routing paths per PE", p->paths_per_pe);
	fx_record_int(t, "routes_per_pe", "router table routes per PE", w->routes_per_pe);
	snprintf(l1, sizeof l1, "critical-path hops%s", per);
	fx_record_int(t, "critical_hops", l1, p->critical_hops);
	snprintf(l2, sizeof l2, "software routing stages%s", per);
	fx_record_int(t, "routing_stages", l2, p->routing_stages);
	fx_record_num(t, "memory_per_pe_bytes", "memory per PE", FX_F_BYTES, p->memory_per_pe);
	fx_record_num(t, "pe_memory_bytes", "PE memory", FX_F_BYTES, w->pe_memory);
	fx_record_bool(t, "fits_memory", "fits PE memory", p->memory_per_pe <= w->pe_memory);
	fx_record_bool(t, "fits_routes", "fits the router table", p->paths_per_pe <= w->routes_per_pe);
	snprintf(l3, sizeof l3, "latency alpha*hops + beta*stages%s", per);
	fx_record_num(t, "latency_s", l3, FX_F_SECONDS, p->latency);
	fx_record_num(t, "hop_latency_s", "alpha (per hop)", FX_F_SECONDS, f->ne ? f->e[0].lat : 0);
	fx_record_num(t, "stage_latency_s", "beta (per routing stage)", FX_F_SECONDS,
		      w->routing_latency);
	return fx_cli_table(c, t);
}

/* --versus-measured: the model at each measured size of q's pattern and
 * ranks, against the measurement (calib/calib.c). */
static int measured_table(fx_cli *c, fx_router *r, const fx_coll_req *q, const fx_coll_time *tm,
			  const char *file)
{
	fx_meas_set ms;
	if (fx_meas_read(file, q->pattern, 0, &ms, &c->d))
		return -1;
	const fx_meas **pt = fx_xmalloc((ms.n ? ms.n : 1) * sizeof *pt);
	double *model = fx_xmalloc((ms.n ? ms.n : 1) * sizeof *model);
	size_t n;
	int rc = fx_calib_versus(&c->design.fab, r, q, tm, &ms, pt, model, &n, &c->d);
	if (rc == 0) {
		static const fx_col cols[] = {
			{"size_bytes", "size", FX_F_BYTES}, {"model_s", "model", FX_F_SECONDS},
			{"measured_s", "measured", FX_F_SECONDS}, {"ratio", "model/measured", FX_F_NUM},
			{NULL, NULL, 0},
		};
		fx_table *t = fx_table_typed("versus_measured", "Model against measured "
					     "(--versus-measured)", cols);
		for (size_t i = 0; i < n; i++) {
			fx_table_num(t, pt[i]->size);
			fx_table_num(t, model[i]);
			fx_table_num(t, pt[i]->time);
			fx_table_num(t, model[i] / pt[i]->time);
		}
		rc = fx_cli_table(c, t);
	}
	free(pt);
	free(model);
	fx_meas_release(&ms);
	return rc;
}

/* Runs one collective and prints its report. */
static int run_one(fx_cli *c, fx_router *r, const fx_coll_req *q, const fx_coll_time *tm,
		   const char *links, const char *versus)
{
	const fx_coll_algo *a = fx_coll_find(q->pattern, q->algo);
	fx_coll_result res;
	if (fx_coll_run(&c->design.fab, r, q, tm, &res, &c->d))
		return -1;
	int rc = 0;
	double cross = -1;
	if (versus) {
		cross = fx_coll_crossover(&c->design.fab, r, q, a->name, versus, tm, 1, 1e12, &c->d);
		if (c->d.nerr)
			rc = -1;
	}
	rc |= fx_cli_table(c, result_record(q, a, &res, fx_router_name(r), tm, versus, cross));
	rc |= fx_cli_failed_table(c);
	rc |= fx_cli_table(c, rounds_table(&res));
	fx_plmr pm;
	if (a->plmr) {
		if (a->plmr(&c->design.fab, q, &pm, &c->d))
			rc = -1;
		else
			rc |= plmr_table(c, q, &pm);
	}
	if (links && rc == 0)
		rc = fx_cli_write_links(c, links, &res);
	fx_coll_result_release(&res);
	if (rc == 0 && fx_cli_opt(c, "versus-measured"))
		rc = measured_table(c, r, q, tm, fx_cli_opt(c, "versus-measured"));
	return rc;
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

int fx_cmd_collective(int argc, char **argv)
{
	fx_cli c;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--list") == 0) {
			int json = 0;
			for (int k = 1; k < argc; k++)
				json |= strcmp(argv[k], "--json") == 0;
			return list_algos(json);
		}
	int rc = fx_cli_parse(&c, "collective",
			      "collective SPEC --pattern P [--algo A] --size SIZE [--ranks N | --group G] "
			      "[--alpha T] [--links FILE.csv] [--json]\n"
			      "       fabricx collective SPEC --pattern P --sizes LO:HI:xF [--algo A,B,... | all]", coll_opts, argc, argv);
	if (rc)
		return fx_cli_finish(&c, rc > 0 ? 0 : -1);
	const char *pattern = fx_cli_opt(&c, "pattern"), *algo = fx_cli_opt(&c, "algo");
	const char *size = fx_cli_opt(&c, "size"), *tie = fx_cli_opt(&c, "tie");
	const char *sizes = fx_cli_opt(&c, "sizes");
	fx_coll_req q = {0};
	fx_coll_time tm;
	int64_t *ranks = NULL;
	if (!pattern || (!size && !sizes))
		rc = fx_diag_error(&c.d, NULL, "collective: --pattern and --size (or --sizes) are "
				   "required (see --help)");
	else if (size && sizes)
		rc = fx_diag_error(&c.d, NULL, "collective: give --size or --sizes, not both");
	else if (!sizes && fx_cli_opt(&c, "plot"))
		rc = fx_diag_error(&c.d, NULL, "collective: --plot draws a sweep and needs --sizes");
	else if (fx_cli_opt(&c, "plot") && (!strrchr(fx_cli_opt(&c, "plot"), '.') ||
		 (strcmp(strrchr(fx_cli_opt(&c, "plot"), '.'), ".svg") &&
		  strcmp(strrchr(fx_cli_opt(&c, "plot"), '.'), ".png"))))
		rc = fx_diag_error(&c.d, NULL, "collective: --plot: '%s' must end in .svg or .png",
				   fx_cli_opt(&c, "plot"));
	else if (sizes && (fx_cli_opt(&c, "versus") || fx_cli_opt(&c, "links") ||
			   fx_cli_opt(&c, "versus-measured")))
		rc = fx_diag_error(&c.d, NULL, "collective: --sizes reports crossovers itself and "
				   "takes no --versus, --versus-measured or --links");
	else if (!fx_coll_find(pattern, NULL))
		rc = fx_diag_error(&c.d, NULL, "collective: unknown pattern '%s' (see --list)", pattern);
	else if (sizes)
		;  /* --algo a,b,c is checked by the sweep */
	else if (algo && !fx_coll_find(pattern, algo))
		rc = fx_diag_error(&c.d, NULL, "collective: no algorithm '%s' for %s (see --list)", algo, pattern);
	else if (fx_cli_opt(&c, "versus") && !fx_coll_find(pattern, fx_cli_opt(&c, "versus")))
		rc = fx_diag_error(&c.d, NULL, "collective: --versus: no algorithm '%s' for %s",
				   fx_cli_opt(&c, "versus"), pattern);
	else if (tie && strcmp(tie, "split") && strcmp(tie, "plus"))
		rc = fx_diag_error(&c.d, NULL, "collective: --tie must be split or plus, got '%s'", tie);
	if (rc == 0 && size)
		rc = fx_cli_qty(&c, "--size", size, FX_UNIT_SIZE, &q.size);
	/* a billion pieces is past any pipeline, and keeps n + chunks in range */
	if (rc == 0 && fx_cli_opt(&c, "chunks"))
		rc = fx_cli_int(&c, "--chunks", fx_cli_opt(&c, "chunks"), 1, 1000000000, &q.chunks);
	if (rc == 0)
		rc = fx_cli_load(&c);
	if (rc == 0)
		rc = time_model(&c, fx_cli_opt(&c, "alpha"), &tm);
	if (rc == 0)
		rc = fx_cli_ranks(&c, fx_cli_opt(&c, "ranks"), fx_cli_opt(&c, "group"), &ranks, &q.n);
	if (rc == 0)
		rc = fx_cli_outdir_asked(&c);
	if (rc == 0) {
		q.pattern = pattern;
		q.algo = sizes ? NULL : fx_coll_find(pattern, algo)->name;
		q.ranks = ranks;
		fx_router *r = fx_router_new(&c.design.fab, tie && strcmp(tie, "plus") == 0);
		fx_cli_begin(&c);
		if (sizes)
			rc = fx_coll_sweep(&c, r, &q, &tm, algo, sizes, fx_cli_opt(&c, "plot"));
		else
			rc = run_one(&c, r, &q, &tm, fx_cli_opt(&c, "links"), fx_cli_opt(&c, "versus"));
		fx_cli_end(&c);
		fx_router_free(r);
	}
	free(ranks);
	return fx_cli_finish(&c, rc);
}

