/*
 * fabricx collective: per-link loads and completion time of one collective
 * on the fabric; also the collectives section of `explore`.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/outfile.h"
#include "../core/units.h"
#include "../core/xalloc.h"
#include "cli.h"
#include "report.h"

static const char *fmt(double v, fx_unit_kind k, char *buf)
{
	return fx_unit_format(v, k, buf, 32);
}

static void json_result(fx_json *j, const fx_coll_req *q, const fx_coll_algo *a,
			const fx_coll_result *res, const char *router, const fx_coll_time *tm)
{
	fx_json_str(j, "pattern", q->pattern);
	fx_json_str(j, "algo", a->name);
	fx_json_int(j, "ranks", q->n);
	fx_json_num(j, "size_bytes", q->size);
	fx_json_int(j, "rounds", res->rounds);
	fx_json_num(j, "time_us", res->time * 1e6);
	fx_json_num(j, "max_link_bytes", res->max_link_bytes);
	fx_json_num(j, "total_link_bytes", res->total_link_bytes);
	fx_json_num(j, "algbw_GBps", res->algbw / 1e9);
	fx_json_num(j, "busbw_GBps", res->busbw / 1e9);
	fx_json_num(j, "sent_bytes", res->sent_bytes);
	fx_json_int(j, "chunks", res->chunks);
	fx_json_str(j, "layout", res->plan);
	fx_json_num(j, "chunk_bytes", res->chunk_bytes);
	fx_json_str(j, "router", router);
	fx_json_str(j, "routing_policy", fx_route_policy_name(tm->policy));
	fx_json_num(j, "alpha_us", tm->alpha * 1e6);
	fx_json_bool(j, "alpha_replaces_latency", tm->alpha_replaces_latency);
	/* identical consecutive rounds once, with their count, as in the
	 * table: --chunks 1000000 must not print a million objects */
	fx_json_arr_begin(j, "per_round");
	for (size_t i = 0; i < res->nround; i++) {
		const fx_round_result *r = &res->per_round[i];
		fx_json_obj_begin(j, NULL);
		fx_json_int(j, "repeat", r->repeat);
		fx_json_str(j, "phase", r->label);
		fx_json_num(j, "max_link_bytes", r->max_link_bytes);
		fx_json_num(j, "total_link_bytes", r->total_link_bytes);
		fx_json_int(j, "max_hops", r->max_hops);
		fx_json_int(j, "routing_stages", r->stages);
		fx_json_num(j, "latency_us", r->latency * 1e6);
		fx_json_num(j, "time_us", r->time * 1e6);
		fx_json_obj_end(j);
	}
	fx_json_arr_end(j);
}

int fx_cli_write_links(fx_cli *c, const char *path, const fx_coll_result *res)
{
	fx_outfile of;
	FILE *out = fx_outfile_open(&of, path);
	if (!out)
		return fx_diag_error(&c->d, NULL, "cannot write '%s': %s", path, strerror(errno));
	const fx_fabric *f = &c->design.fab;
	char a[64], b[64];
	fprintf(out, "src,dst,bytes,busy_us,utilisation\n");
	for (int64_t l = 0; l < 2 * f->ne; l++) {
		int64_t e = l / 2, from = f->ends[2 * e + (l & 1)], to = f->ends[2 * e + 1 - (l & 1)];
		fprintf(out, "%s,%s,%.17g,%.9g,%.6f\n", fx_fabric_vertex_name(f, from, a, sizeof a),
			fx_fabric_vertex_name(f, to, b, sizeof b), res->link_bytes[l],
			res->link_busy[l] * 1e6, res->time > 0 ? res->link_busy[l] / res->time : 0);
	}
	if (fx_outfile_close(&of, 1))
		return fx_diag_error(&c->d, NULL, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

/* WaferLLM's PLMR figures (routing.h fx_plmr) against the wafer's router
 * table (routes_per_pe) and PE memory (pe_memory). */
static int plmr_table(fx_cli *c, const fx_coll_req *q, const fx_plmr *p)
{
	const fx_wafer_state *w = fx_fabric_wafer(&c->design.fab);  /* plmr runs on wafers only */
	const fx_fabric *f = &c->design.fab;
	char b1[32], b2[32], b3[32];
	double alpha = f->ne ? f->e[0].lat : 0;
	const char *per = strcmp(q->pattern, "gemm-shift") == 0 ? " per shift step" : "";
	fx_table *t = fx_table_new("plmr", "PLMR (WaferLLM)", (const char *[]){"metric", "value", NULL});
	fx_table_cell(t, "routing paths per PE");
	fx_table_cell(t, "%lld of %lld routes per PE%s", (long long)p->paths_per_pe,
		      (long long)w->routes_per_pe,
		      p->paths_per_pe > w->routes_per_pe ? " (exceeds the router table: software routing)" : "");
	fx_table_cell(t, "critical-path hops"); fx_table_cell(t, "%lld%s", (long long)p->critical_hops, per);
	fx_table_cell(t, "software routing stages"); fx_table_cell(t, "%lld%s", (long long)p->routing_stages, per);
	fx_table_cell(t, "memory per PE");
	if (p->memory_per_pe > w->pe_memory)
		fx_table_cell(t, "%s of %s (exceeds PE memory by %s)", fmt(p->memory_per_pe, FX_UNIT_SIZE, b1),
			      fmt(w->pe_memory, FX_UNIT_SIZE, b2),
			      fmt(p->memory_per_pe - w->pe_memory, FX_UNIT_SIZE, b3));
	else
		fx_table_cell(t, "%s of %s", fmt(p->memory_per_pe, FX_UNIT_SIZE, b1),
			      fmt(w->pe_memory, FX_UNIT_SIZE, b2));
	fx_table_cell(t, "latency alpha*hops + beta*stages");
	fx_table_cell(t, "%.4f us%s (alpha %s, beta %s)", p->latency * 1e6, per,
		      fmt(alpha, FX_UNIT_TIME, b1), fmt(w->routing_latency, FX_UNIT_TIME, b2));
	return fx_cli_table(c, t);
}

static void json_plmr(fx_json *j, const fx_fabric *f, const fx_plmr *p)
{
	const fx_wafer_state *w = fx_fabric_wafer(f);
	fx_json_obj_begin(j, "plmr");
	fx_json_int(j, "paths_per_pe", p->paths_per_pe);
	fx_json_int(j, "routes_per_pe", w->routes_per_pe);
	fx_json_int(j, "critical_hops", p->critical_hops);
	fx_json_int(j, "routing_stages", p->routing_stages);
	fx_json_num(j, "memory_per_pe_bytes", p->memory_per_pe);
	fx_json_num(j, "pe_memory_bytes", w->pe_memory);
	fx_json_num(j, "latency_us", p->latency * 1e6);
	fx_json_bool(j, "fits_memory", p->memory_per_pe <= w->pe_memory);
	fx_json_bool(j, "fits_routes", p->paths_per_pe <= w->routes_per_pe);
	fx_json_obj_end(j);
}

/* Runs one collective and prints its report. */
static int run_one(fx_cli *c, fx_router *r, const fx_coll_req *q, const fx_coll_time *tm,
		   const char *links, const char *versus)
{
	const fx_coll_algo *a = fx_coll_find(q->pattern, q->algo);
	fx_coll_result res;
	char b1[32], b2[32];
	if (fx_coll_run(&c->design.fab, r, q, tm, &res, &c->d))
		return -1;
	int rc = 0;
	fx_table *t = fx_table_new("collective", "Collective", (const char *[]){"metric", "value", NULL});
	fx_table_cell(t, "pattern / algorithm"); fx_table_cell(t, "%s / %s", q->pattern, a->name);
	fx_table_cell(t, "algorithm"); fx_table_cell(t, "%s", a->summary);
	fx_table_cell(t, "ranks"); fx_table_cell(t, "%lld", (long long)q->n);
	fx_table_cell(t, "size per rank"); fx_table_cell(t, "%s (%.0f B)", fmt(q->size, FX_UNIT_SIZE, b1), q->size);
	fx_table_cell(t, "routing"); fx_table_cell(t, "%s, %s", fx_router_name(r),
						  tm->policy == FX_ROUTE_HASH ? "hash (one path per flow)" :
						  "split (fluid over equal-cost paths)");
	fx_table_cell(t, "alpha per round");
	fx_table_cell(t, "%s%s", fmt(tm->alpha, FX_UNIT_TIME, b1),
		      tm->alpha_replaces_latency ? " (replaces path latency)" : " + path latency");
	fx_table_cell(t, "rounds"); fx_table_cell(t, "%lld", (long long)res.rounds);
	if (res.plan[0]) {
		fx_table_cell(t, "layout");
		fx_table_cell(t, "%s", res.plan);
	}
	if (res.chunks > 0) {
		fx_table_cell(t, "pipeline");
		fx_table_cell(t, "%lld chunks of %s%s", (long long)res.chunks,
			      fmt(res.chunk_bytes, FX_UNIT_SIZE, b1),
			      q->chunks > 0 ? " (--chunks)" : " (NCCL's tree chunking)");
	}
	fx_table_cell(t, "time"); fx_table_cell(t, "%.4f us", res.time * 1e6);
	fx_table_cell(t, "algbw / busbw");
	fx_table_cell(t, "%s / %s", fmt(res.algbw, FX_UNIT_BANDWIDTH, b1), fmt(res.busbw, FX_UNIT_BANDWIDTH, b2));
	fx_table_cell(t, "busiest link (all rounds)"); fx_table_cell(t, "%s", fmt(res.max_link_bytes, FX_UNIT_SIZE, b1));
	fx_table_cell(t, "bytes over all links"); fx_table_cell(t, "%s", fmt(res.total_link_bytes, FX_UNIT_SIZE, b1));
	fx_table_cell(t, "bytes sent by ranks"); fx_table_cell(t, "%s", fmt(res.sent_bytes, FX_UNIT_SIZE, b1));
	rc |= fx_cli_table(c, t);

	t = fx_table_new("rounds", "Rounds (identical consecutive rounds shown once)",
			 (const char *[]){"round", "x", "phase", "busiest link", "all links", "max hops",
					  "path latency", "time each", NULL});
	int64_t first = 1;
	for (size_t i = 0; i < res.nround; i++) {
		const fx_round_result *rr = &res.per_round[i];
		if (rr->repeat > 1)
			fx_table_cell(t, "%lld-%lld", (long long)first, (long long)(first + rr->repeat - 1));
		else
			fx_table_cell(t, "%lld", (long long)first);
		fx_table_cell(t, "%lld", (long long)rr->repeat);
		fx_table_cell(t, "%s", rr->label);
		fx_table_cell(t, "%s", fmt(rr->max_link_bytes, FX_UNIT_SIZE, b1));
		fx_table_cell(t, "%s", fmt(rr->total_link_bytes, FX_UNIT_SIZE, b1));
		fx_table_cell(t, "%lld", (long long)rr->max_hops);
		fx_table_cell(t, "%s", fmt(rr->latency, FX_UNIT_TIME, b1));
		fx_table_cell(t, "%.4f us", rr->time * 1e6);
		first += rr->repeat;
	}
	rc |= fx_cli_table(c, t);

	fx_plmr pm;
	int has_plmr = 0;
	if (a->plmr) {
		if (a->plmr(&c->design.fab, q, &pm, &c->d))
			rc = -1;
		else {
			has_plmr = 1;
			rc |= plmr_table(c, q, &pm);
		}
	}

	double cross = -1;
	const char *other = NULL;
	if (versus) {
		other = versus;
		cross = fx_coll_crossover(&c->design.fab, r, q, a->name, versus, tm, 1, 1e12, &c->d);
		if (c->d.nerr)
			rc = -1;
		else if (fx_cli_text(c)) {
			if (cross > 0)
				printf("%s and %s take equal time at %s per rank (%.0f B)\n\n", a->name, versus,
				       fmt(cross, FX_UNIT_SIZE, b1), cross);
			else
				printf("%s and %s do not cross between 1 B and 1 TB\n\n", a->name, versus);
		}
	}
	if (c->json) {
		json_result(&c->js, q, a, &res, fx_router_name(r), tm);
		if (has_plmr)
			json_plmr(&c->js, &c->design.fab, &pm);
		if (other) {
			fx_json_str(&c->js, "versus", other);
			if (cross > 0)
				fx_json_num(&c->js, "crossover_bytes", cross);
			else
				fx_json_null(&c->js, "crossover_bytes");
		}
	}
	if (links && rc == 0)
		rc = fx_cli_write_links(c, links, &res);
	fx_coll_result_release(&res);
	return rc;
}

static int list_algos(int json)
{
	fx_json j;
	if (json) {
		fx_json_init(&j, stdout);
		fx_json_obj_begin(&j, NULL);
		fx_json_arr_begin(&j, "algorithms");
	}
	for (const fx_coll_algo *const *a = fx_coll_algos; *a; a++) {
		if (!json) {
			printf("%-15s %-10s %s\n", (*a)->pattern, (*a)->name, (*a)->summary);
			continue;
		}
		fx_json_obj_begin(&j, NULL);
		fx_json_str(&j, "pattern", (*a)->pattern);
		fx_json_str(&j, "algo", (*a)->name);
		fx_json_str(&j, "summary", (*a)->summary);
		fx_json_obj_end(&j);
	}
	if (json) {
		fx_json_arr_end(&j);
		fx_json_obj_end(&j);
		putchar('\n');
	}
	return 0;
}

/* --alpha replaces the spec's overhead and the path latency, as the "Supernodes" chapter's
 * alpha does; otherwise the spec's collective.overhead plus path latency.
 * --routing replaces the spec's collective.routing. */
static int time_model(fx_cli *c, const char *alpha, fx_coll_time *tm)
{
	*tm = c->design.coll;
	const char *pol = fx_cli_opt(c, "routing");
	if (pol && fx_route_policy_parse(pol, &tm->policy))
		return fx_diag_error(&c->d, NULL, "collective: --routing must be split or hash, got '%s'",
				     pol);
	if (!alpha)
		return 0;
	tm->alpha_replaces_latency = 1;
	return fx_cli_qty(c, "--alpha", alpha, FX_UNIT_TIME, &tm->alpha);
}

static const fx_opt coll_opts[] = {
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
	{"routing", "split|hash", "equal-cost paths: fluid split (default) or one path per flow "
	 "(destination-mod-k)"},
	{"links", "FILE.csv", "write src,dst,bytes,busy_us,utilisation per directed link"},
	{"versus", "A2", "also find the size where this algorithm and A2 take equal time"},
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
	else if (sizes && (fx_cli_opt(&c, "versus") || fx_cli_opt(&c, "links")))
		rc = fx_diag_error(&c.d, NULL, "collective: --sizes reports crossovers itself and "
				   "takes no --versus or --links");
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
		rc = fx_cli_outdir(&c);
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

/* explore's section: the workload's collectives, or allreduce 10 KiB (ring
 * and tree) and all-to-all 32 MiB over all devices.  All-to-all is shown
 * under both routing policies (fluid split and per-flow hash), the two
 * ends of what ECMP gives. */
int fx_report_collectives(fx_cli *c)
{
	static const fx_wl_coll dflt[] = {
		{"allreduce", "ring", NULL, 10 * 1024, 0},
		{"allreduce", "tree", NULL, 10 * 1024, 0},
		{"all-to-all", "direct", NULL, 32 * 1024 * 1024, 0},
	};
	const fx_wl_coll *w = c->design.nwl ? c->design.wl : dflt;
	size_t n = c->design.nwl ? c->design.nwl : sizeof dflt / sizeof dflt[0];
	fx_router *r = fx_router_new(&c->design.fab, 0);
	char b1[32], b2[32], nr[32];
	int rc = 0;
	fx_table *t = fx_table_new("collectives", c->design.nwl ? "Collectives (workload)" : "Collectives (defaults)",
				   (const char *[]){"pattern", "algo", "ranks", "size", "routing", "rounds",
						    "time", "busbw", "busiest link", NULL});
	if (c->json)
		fx_json_arr_begin(&c->js, "collectives");
	for (size_t i = 0; i < n && rc == 0; i++) {
		int64_t *ranks = NULL;
		fx_coll_req q = {0};
		snprintf(nr, sizeof nr, "%lld", (long long)w[i].nranks);
		rc = fx_cli_ranks(c, w[i].nranks ? nr : NULL, w[i].group, &ranks, &q.n);
		if (rc)
			break;
		q.pattern = w[i].pattern;
		q.algo = fx_coll_find(w[i].pattern, w[i].algo)->name;
		q.ranks = ranks;
		q.size = w[i].size;
		int passes = strcmp(q.pattern, "all-to-all") == 0 ? 2 : 1;
		for (int pass = 0; pass < passes && rc == 0; pass++) {
			fx_coll_time tm = c->design.coll;
			if (pass == 1)  /* the other end of ECMP */
				tm.policy = tm.policy == FX_ROUTE_HASH ? FX_ROUTE_SPLIT : FX_ROUTE_HASH;
			fx_coll_result res;
			fx_diag quiet;  /* a power-of-two algorithm on other rank counts: say so in the row */
			fx_diag_init(&quiet);
			quiet.out = fopen("/dev/null", "w");
			int bad = fx_coll_run(&c->design.fab, r, &q, &tm, &res, &quiet);
			if (quiet.out)
				fclose(quiet.out);
			if (quiet.status == FX_EXIT_INTERNAL)
				rc = fx_diag_internal(&c->d, "collective %s/%s failed", q.pattern, q.algo);
			fx_diag_release(&quiet);
			fx_table_cell(t, "%s", q.pattern);
			fx_table_cell(t, "%s", q.algo);
			fx_table_cell(t, "%lld", (long long)q.n);
			fx_table_cell(t, "%s", fmt(q.size, FX_UNIT_SIZE, b1));
			fx_table_cell(t, "%s", fx_route_policy_name(tm.policy));
			if (bad) {
				fx_table_cell(t, "-");
				fx_table_cell(t, "not applicable");
				fx_table_cell(t, "-");
				fx_table_cell(t, "-");
			} else {
				fx_table_cell(t, "%lld", (long long)res.rounds);
				fx_table_cell(t, "%.3f us", res.time * 1e6);
				size_t u = strlen(c->sum.colls);
				snprintf(c->sum.colls + u, sizeof c->sum.colls - u, "%s%s/%s %s%s: %.3f us",
					 u ? "; " : "", q.pattern, q.algo, fmt(q.size, FX_UNIT_SIZE, b1),
					 passes > 1 ? (tm.policy == FX_ROUTE_HASH ? " hash" : " split") : "",
					 res.time * 1e6);
				fx_table_cell(t, "%s", fmt(res.busbw, FX_UNIT_BANDWIDTH, b2));
				fx_table_cell(t, "%s", fmt(res.max_link_bytes, FX_UNIT_SIZE, b2));
			}
			if (c->json) {
				fx_json_obj_begin(&c->js, NULL);
				if (bad) {
					fx_json_str(&c->js, "pattern", q.pattern);
					fx_json_str(&c->js, "algo", q.algo);
					fx_json_int(&c->js, "ranks", q.n);
					fx_json_num(&c->js, "size_bytes", q.size);
					fx_json_str(&c->js, "routing_policy", fx_route_policy_name(tm.policy));
					fx_json_null(&c->js, "time_us");
				} else {
					json_result(&c->js, &q, fx_coll_find(q.pattern, q.algo), &res,
						    fx_router_name(r), &tm);
				}
				fx_json_obj_end(&c->js);
			}
			if (!bad)
				fx_coll_result_release(&res);
		}
		free(ranks);
	}
	if (c->json)
		fx_json_arr_end(&c->js);
	rc |= fx_cli_table(c, t);
	fx_router_free(r);
	return rc;
}
