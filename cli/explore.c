/*
 * fabricx explore: the design report of a fabric.  Everything fabricx can
 * say about it, written to out/<spec name>/:
 *
 *   report.md      the tables a design review needs, section by section
 *   report.json    everything in one object (also printed with --json)
 *   *.csv          each table
 *   links.csv      per directed link: bytes, busy time, utilisation of the
 *                  all-to-all the loads view shows
 *   fabric.svg, loads.svg, placement.svg   the diagrams
 *
 * and prints a short summary and where the files are.
 *
 * The report is always delivered.  Each section (fabric, collectives,
 * loads, power, bom, placement, plan, failures, diagrams) is computed on its own: one that is
 * infeasible, not decided or fails is written into the report with its
 * status and reason, and the others are complete.  A section's JSON and
 * Markdown are written apart and joined only when it succeeds, so a
 * failure halfway leaves nothing half-written.  The exit status is the
 * gravest section's (1 internal, 3 infeasible, 4 not decided; 0 when all
 * succeeded).  The folder is replaced whole (core/outdir.h): no file of an
 * earlier run or another command is left looking current.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/limits.h"
#include "../core/outfile.h"
#include "../core/sha256.h"
#include "../core/units.h"
#include "../core/version.h"
#include "../core/xalloc.h"
#include "../render/render.h"
#include "render.h"
#include "cli.h"
#include "report.h"
#include "space_run.h"

typedef struct explore {
	fx_cli *c;
	double limit;             /* placement time limit, seconds */
	long node_limit;
	int diagrams;             /* SVGs wanted */
	fx_coll_result loads;
	int have_loads;
	int a2a_kept;             /* the collectives section left its all-to-all in loads */
	fx_placement pl;
	int have_pl;
	fx_sink summary;          /* a capture of the tables the summary reads */
	int have_jobs;            /* the jobs section ran */
} explore;

typedef struct section {
	const char *name, *title;
	int (*run)(explore *e);
	int summed;               /* its tables are captured for the summary */
} section;

/* What became of a section. */
typedef struct outcome {
	const char *status;       /* ok, skipped, not applicable, infeasible, not decided, failed */
	int exit;                 /* FX_EXIT_* it calls for */
	char *reason;             /* NULL when ok */
	char *md;                 /* its Markdown when ok */
	int absent;               /* not listed at all: a section only some specs have (jobs) */
} outcome;

/* ---- the sections ---- */

static int sec_fabric(explore *e)
{
	return fx_report_metrics(&e->c->design, NULL, fx_cli_sink(e->c), &e->c->d);
}

static int sec_collectives(explore *e)
{
	/* its all-to-all is the loads section's */
	fx_collectives_opts o = {.keep_a2a = &e->loads, .kept = &e->a2a_kept};
	fprintf(e->c->md, "Each round costs the overhead α plus the slowest path's latency plus the "
		"busiest link's bytes over its bandwidth (see docs/spec.md §6a).\n\n");
	return fx_report_collectives(&e->c->design, &o, fx_cli_sink(e->c), &e->c->d);
}

/* links.csv: the loads of a direct all-to-all of 32 MiB over all devices,
 * which the loads diagram draws. */
static int sec_loads(explore *e)
{
	fx_cli *c = e->c;
	int rc = 0;
	if (!e->a2a_kept) {  /* the collectives section did not run it */
		int64_t *ranks = fx_xmalloc((size_t)c->design.fab.ndev * sizeof *ranks);
		for (int64_t i = 0; i < c->design.fab.ndev; i++)
			ranks[i] = i;
		fx_coll_req q = {FX_RND_DEFAULT_PATTERN, FX_RND_DEFAULT_ALGO, ranks, c->design.fab.ndev,
				 FX_RND_DEFAULT_SIZE, 0};
		fx_router *r = fx_router_new(&c->design.fab, 0);
		rc = fx_coll_run(&c->design.fab, r, &q, &c->design.coll, &e->loads, &c->d);
		fx_router_free(r);
		free(ranks);
		if (rc)
			return rc;
	}
	e->have_loads = 1;
	char *path = fx_xasprintf("%s/links.csv", c->outdir);
	rc = fx_cli_write_links(c, path, &e->loads);
	free(path);
	char b[32];
	fprintf(c->md, "A direct all-to-all of 32 MiB over all %lld devices takes %s; "
		"per directed link: `links.csv`.\n\n", (long long)c->design.fab.ndev,
		fx_unit_format(e->loads.time, FX_UNIT_TIME, b, sizeof b));
	return rc;
}

static int sec_power(explore *e)
{
	fx_json_obj_begin(&e->c->js, "power");
	int rc = fx_report_power(&e->c->design, NULL, fx_cli_sink(e->c), &e->c->d);
	fx_json_obj_end(&e->c->js);
	return rc;
}

/* The bill of materials (report/bom.c, as `fabricx bom` reports it): links by
 * medium and place, parts and their cost, lengths, the floor plan. */
static int sec_bom(explore *e)
{
	fx_json_obj_begin(&e->c->js, "bom");
	int rc = fx_report_bom(&e->c->design, NULL, fx_cli_sink(e->c), &e->c->d);
	fx_json_obj_end(&e->c->js);
	return rc;
}

static int sec_placement(explore *e)
{
	fx_json_obj_begin(&e->c->js, "placement");
	fx_place_report_opts o = {.time_limit = e->limit, .node_limit = e->node_limit,
				  .fault = &e->c->fault, .keep = &e->pl};
	int rc = fx_report_place(&e->c->design, &o, fx_cli_sink(e->c), &e->c->d);
	e->have_pl = rc == 0;
	fx_json_obj_end(&e->c->js);
	return rc;
}

/* The plan of the workload (book §6.7.3): the scheme, why, the flips. */
static int sec_plan(explore *e)
{
	fx_plan_opts o = {.context = -1, .tie = -1, .margin = -1, .jobs = 1, .flips = 1,
			  .sensitivity = 1};
	fx_json_obj_begin(&e->c->js, "plan_report");
	int rc = fx_cli_plan(e->c, &o);
	fx_json_obj_end(&e->c->js);
	return rc;
}

/* Several jobs (workload.jobs): each one's collectives alone and beside
 * the others, what they share, the interference-aware placement. */
static int sec_jobs(explore *e)
{
	fx_json_obj_begin(&e->c->js, "jobs");
	fx_jobs_report_opts o = {.time_limit = e->limit};
	int rc = fx_report_jobs(&e->c->design, &o, fx_cli_sink(e->c), &e->c->d);
	e->have_jobs = rc == 0;
	fx_json_obj_end(&e->c->js);
	return rc;
}

/* One switch chip per role, or one link per tier, failed. */
static int sec_failures(explore *e)
{
	fx_json_obj_begin(&e->c->js, "failures");
	fx_failures_opts o = {.kind = e->c->design.fab.nsw ? "switch" : "link", .k = 1, .spec = e->c->spec_path};
	int rc = fx_report_failures(&e->c->design, &o, fx_cli_sink(e->c), &e->c->d);
	fx_json_obj_end(&e->c->js);
	return rc;
}

/* The diagrams of what the other sections produced. */
static int sec_diagrams(explore *e)
{
	fx_cli *c = e->c;
	int rc = 0;
	fx_render_opts o = {FX_VIEW_PHYSICAL, 0, c->design.name, NULL, NULL};
	char *path = fx_xasprintf("%s/fabric.svg", c->outdir);
	rc |= fx_render_file_isolated(&c->design.fab, &o, "svg", path, &c->d);
	free(path);
	fprintf(c->md, "- Fabric: ![fabric](fabric.svg)\n");
	if (e->have_loads) {
		double *util = fx_xcalloc((size_t)(2 * c->design.fab.ne + 1), sizeof *util);
		for (int64_t l = 0; l < 2 * c->design.fab.ne; l++)
			util[l] = e->loads.time > 0 ? e->loads.link_busy[l] / e->loads.time : 0;
		o.view = FX_VIEW_LOADS;
		o.utilisation = util;
		/* render --view loads draws the same collective, captioned alike */
		char caption[400];
		fx_rnd_caption(FX_RND_DEFAULT_PATTERN, FX_RND_DEFAULT_ALGO, FX_RND_DEFAULT_SIZE,
			       c->design.fab.ndev, &e->loads, util, 2 * c->design.fab.ne, caption,
			       sizeof caption);
		fx_render_ext x = {.loads_caption = caption};
		path = fx_xasprintf("%s/loads.svg", c->outdir);
		rc |= fx_render_file_ext_isolated(&c->design.fab, &o, &x, "svg", path, &c->d);
		free(path);
		free(util);
		fprintf(c->md, "- Link loads of a direct all-to-all of 32 MiB over all devices: "
			"![loads](loads.svg)\n");
	}
	if (e->have_pl) {
		int64_t *inst = fx_xmalloc((size_t)(c->design.fab.ndev + 1) * sizeof *inst);
		for (int64_t v = 0; v < c->design.fab.ndev; v++)
			inst[v] = -1;
		int64_t D = fx_workload_devices(&c->design.work);
		for (int64_t i = 0; i < e->pl.ninst; i++)
			for (int64_t k = 0; k < D; k++)
				inst[e->pl.inst[i].devices[k]] = i;
		o.view = FX_VIEW_PLACEMENT;
		o.utilisation = NULL;
		o.instance = inst;
		path = fx_xasprintf("%s/placement.svg", c->outdir);
		rc |= fx_render_file_isolated(&c->design.fab, &o, "svg", path, &c->d);
		free(path);
		free(inst);
		fprintf(c->md, "- Placement of the workload's instances: ![placement](placement.svg)\n");
	}
	fputc('\n', c->md);
	return rc;
}

static const section sections[] = {
	{.name = "fabric", .title = "Fabric", .run = sec_fabric, .summed = 1},
	{.name = "collectives", .title = "Collectives", .run = sec_collectives, .summed = 1},
	{.name = "loads", .title = "Link loads", .run = sec_loads},
	{.name = "power", .title = "Power and cooling", .run = sec_power, .summed = 1},
	{.name = "bom", .title = "Bill of materials", .run = sec_bom},
	{.name = "placement", .title = "Placement", .run = sec_placement, .summed = 1},
	{.name = "jobs", .title = "Jobs", .run = sec_jobs, .summed = 1},
	{.name = "plan", .title = "Plan", .run = sec_plan},
	{.name = "failures", .title = "Failures", .run = sec_failures},
	{.name = "diagrams", .title = "Diagrams", .run = sec_diagrams},
};
enum { NSECTIONS = sizeof sections / sizeof sections[0] };

/* ---- running them ---- */

static const char *status_name(int status)
{
	switch (status) {
	case FX_EXIT_OK: return "ok";
	case FX_EXIT_INFEASIBLE: return "infeasible";
	case FX_EXIT_UNDECIDED: return "not decided";
	case FX_EXIT_INPUT: return "bad input";
	default: return "failed";
	}
}

/* Why a section does not apply to this design, or NULL. */
static const char *not_applicable(const explore *e, int i)
{
	const fx_cli *c = e->c;
	if (strcmp(sections[i].name, "placement") == 0 && !c->design.work.present)
		return "the spec has no workload to place";
	if (strcmp(sections[i].name, "plan") == 0 && !fx_plan_applies(&c->design))
		return "the spec has no model, accelerator and sessions (or training) to plan";
	if (strcmp(sections[i].name, "loads") == 0 && c->design.fab.ndev < 2)
		return "an all-to-all needs at least two devices";
	if (strcmp(sections[i].name, "failures") == 0 && !c->design.fab.builder->halves)
		return "an explicit graph has no canonical split to measure";
	if (strcmp(sections[i].name, "diagrams") == 0 && !e->diagrams)
		return "--no-diagrams";
	return NULL;
}

/* Runs section i apart: its JSON and Markdown are kept only if it
 * succeeds; the diagnostics' status is its own, merged afterwards. */
static void run_section(explore *e, int i, outcome *out)
{
	fx_cli *c = e->c;
	char *jtext = NULL, *mtext = NULL;
	size_t jlen = 0, mlen = 0;
	FILE *jf = open_memstream(&jtext, &jlen), *mf = open_memstream(&mtext, &mlen);
	if (!jf || !mf)
		fx_xalloc_failed();
	fx_json parent = c->js;
	fx_json_fork(&c->js, &parent, jf);
	c->md = mf;
	c->also = sections[i].summed ? &e->summary : NULL;
	int before = c->d.status;
	c->d.status = 0;
	free(c->d.last);
	c->d.last = NULL;
	int rc = sections[i].run(e);
	fclose(jf);
	fclose(mf);
	int st = c->d.status ? c->d.status : rc ? FX_EXIT_INTERNAL : FX_EXIT_OK;
	if (rc == 0 && st == FX_EXIT_OK) {
		fwrite(jtext, 1, jlen, parent.f);
		fx_json_join(&parent, &c->js);
		out->md = mtext;
		mtext = NULL;
	} else {
		out->reason = fx_xstrdup(c->d.last ? c->d.last : "failed without a message (a bug)");
	}
	out->exit = st;
	out->status = status_name(st);
	c->js = parent;
	c->md = NULL;
	c->also = NULL;
	c->d.status = fx_diag_gravity(before) >= fx_diag_gravity(st) ? before : st;
	free(jtext);
	free(mtext);
}

/* ---- the report around the sections ---- */

/* The command line as typed, quoted where a word needs it. */
static char *command_line(const fx_cli *c)
{
	char *s = fx_xstrdup("fabricx");
	for (int i = 0; i < c->argc; i++) {
		const char *a = c->argv[i];
		int plain = *a != '\0' && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
						 "0123456789-_./=:,@%+") == strlen(a);
		char *t = fx_xasprintf("%s %s%s%s", s, plain ? "" : "'", a, plain ? "" : "'");
		free(s);
		s = t;
	}
	return s;
}

/* UTC now, or SOURCE_DATE_EPOCH for reproducible reports. */
static void report_date(char *buf, size_t len)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	time_t t = sde && *sde ? (time_t)strtoll(sde, NULL, 10) : time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void fx_explore_provenance(fx_cli *c, FILE *md, const char *space_sha)
{
	char sha[65], date[32];
	if (fx_sha256_file(c->spec_path, sha))
		snprintf(sha, sizeof sha, "unreadable");
	report_date(date, sizeof date);
	char *cmd = command_line(c);
	fx_json_obj_begin(&c->js, "provenance");
	fx_json_str(&c->js, "fabricx_version", fx_version());
	fx_json_str(&c->js, "date", date);
	fx_json_str(&c->js, "spec", c->spec_path);
	fx_json_str(&c->js, "spec_sha256", sha);
	fx_json_str(&c->js, "command", cmd);
	fx_json_arr_begin(&c->js, "sets");
	for (int i = 0; i < c->nsets; i++)
		fx_json_str(&c->js, NULL, c->sets[i]);
	fx_json_arr_end(&c->js);
	if (space_sha)
		fx_json_str(&c->js, "space_sha256", space_sha);
	fx_json_obj_end(&c->js);
	fprintf(md, "Made by fabricx %s on %s from `%s` (SHA-256 %s) with `%s`", fx_version(), date,
		c->spec_path, sha, cmd);
	if (c->nsets) {
		fprintf(md, "; overrides:");
		for (int i = 0; i < c->nsets; i++)
			fprintf(md, " `%s`", c->sets[i]);
	}
	fprintf(md, ".\n\n");
	free(cmd);
}

static void md_head(fx_cli *c, FILE *md)
{
	const fx_design *ds = &c->design;
	fprintf(md, "# %s: design report\n\n", ds->name);
	if (ds->description)
		fprintf(md, "%s\n\n", ds->description);
	fprintf(md, "Spec: `%s` (%s fabric).\n\n", c->spec_path, ds->fab.builder->kind);
	if (ds->nsources) {
		fprintf(md, "Sources cited by the spec:\n\n");
		for (size_t i = 0; i < ds->nsources; i++)
			fprintf(md, "- %s\n", ds->sources[i]);
		fputc('\n', md);
	}
}

/* `files`: what the report's folder holds (its sections' files, then
 * report.md and report.json), sorted, so that another command writing
 * into the folder may add files but replace none of these
 * (fx_cli_may_write). */
static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void report_files(fx_cli *c)
{
	char **name = NULL;
	size_t n = 0, cap = 0;
	DIR *dir = opendir(c->outdir);
	for (struct dirent *e; dir && (e = readdir(dir));) {
		if (e->d_name[0] == '.')
			continue;
		name = fx_xgrow(name, &cap, n + 1, sizeof *name);
		name[n++] = fx_xstrdup(e->d_name);
	}
	if (dir)
		closedir(dir);
	if (n > 1)
		qsort(name, n, sizeof *name, by_str);
	fx_json_arr_begin(&c->js, "files");
	for (size_t i = 0; i < n; i++) {
		fx_json_str(&c->js, NULL, name[i]);
		free(name[i]);
	}
	fx_json_str(&c->js, NULL, "report.md");
	fx_json_str(&c->js, NULL, "report.json");
	fx_json_arr_end(&c->js);
	free(name);
}

/* --skip NAME (repeatable, or a comma list): every name must be a section. */
static int skipped(fx_cli *c, int skip[NSECTIONS])
{
	int rc = 0;
	const char *vals[64];
	int nv = fx_cli_opt_each(c, "skip", vals, 64);
	memset(skip, 0, NSECTIONS * sizeof *skip);
	for (int i = 0; i < nv && i < 64; i++) {
		char *list = fx_xstrdup(vals[i]), *save = NULL;
		if (strspn(list, ",") == strlen(list))
			rc = fx_diag_error(&c->d, NULL, "--skip: '%s' names no section", vals[i]);
		else if (fx_cli_list_check(c, "--skip", vals[i]))
			rc = -1;
		for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
			int k = 0;
			while (k < NSECTIONS && strcmp(sections[k].name, w) != 0)
				k++;
			if (k < NSECTIONS)
				skip[k] = 1;
			else
				rc = fx_diag_error(&c->d, NULL, "--skip: unknown section '%s' (expected: fabric, "
						   "collectives, loads, power, bom, placement, jobs, plan, "
						   "failures, diagrams)", w);
		}
		free(list);
	}
	return rc;
}

/* Writes report.md and report.json into the staging folder; the JSON text
 * is left in *json for --json. */
static int write_report(fx_cli *c, const char *md_text, size_t md_len, const char *json,
			size_t json_len)
{
	const char *names[2] = {"report.md", "report.json"};
	const char *texts[2] = {md_text, json};
	size_t lens[2] = {md_len, json_len};
	for (int k = 0; k < 2; k++) {
		char *path = fx_xasprintf("%s/%s", c->outdir, names[k]);
		int bad = fx_outfile_write(path, texts[k], lens[k]) != 0;
		int e = errno;
		if (bad) {  /* the place cannot take it (full, too large): as every writer */
			fx_diag_error(&c->d, NULL, "cannot write '%s': %s", path, strerror(e));
			free(path);
			return -1;
		}
		free(path);
	}
	return 0;
}

/* A captured figure, NaN when the summary's tables lack it. */
static double num(const explore *e, const char *table, const char *field)
{
	fx_value v;
	return fx_sink_value(&e->summary, table, NULL, NULL, field, &v) ? v.num : NAN;
}

static const char *text(const explore *e, const char *table, const char *field)
{
	fx_value v;
	return fx_sink_value(&e->summary, table, NULL, NULL, field, &v) && v.text ? v.text : "";
}

/* "allreduce/ring 10 KiB: 1.513 ms; all-to-all/direct 32 MiB split: ..."
 * from the collectives table: each row that ran, all-to-all's with its
 * routing policy (it runs under several). */
static void colls_line(const explore *e, char *buf, size_t len)
{
	const fx_table *t = fx_sink_find(&e->summary, "collectives");
	size_t u = 0;
	buf[0] = '\0';
	for (size_t r = 0; t && r < fx_table_rows(t); r++) {
		fx_value pat, algo, size, pol, time;
		if (!fx_table_value(t, r, "pattern", &pat) || !fx_table_value(t, r, "algo", &algo) ||
		    !fx_table_value(t, r, "size_bytes", &size) ||
		    !fx_table_value(t, r, "routing_policy", &pol) ||
		    !fx_table_value(t, r, "time_s", &time) || time.type != FX_CELL_NUM)
			continue;  /* not applicable: no time */
		int a2a = strcmp(pat.text, "all-to-all") == 0;
		char b1[32], b2[32];
		u += (size_t)snprintf(buf + u, len > u ? len - u : 0, "%s%s/%s %s%s%s: %s",
				      u ? "; " : "", pat.text, algo.text,
				      fx_unit_format(size.num, FX_UNIT_SIZE, b1, sizeof b1), a2a ? " " : "",
				      a2a ? pol.text : "", fx_unit_format(time.num, FX_UNIT_TIME, b2, sizeof b2));
		if (u >= len)
			break;
	}
}

/* "jobs: 2; as given 448 links shared, 100 µs of interference at most;
 * placed ..." from the jobs tables as captured. */
static void jobs_line(const explore *e)
{
	printf("jobs: %zu", e->c->design.njobs);
	const char *pre[2] = {"jobs_given", "jobs_placed"}, *what[2] = {"as given", "placed"};
	for (int k = 0; k < 2; k++) {
		char name[64], b[32];
		snprintf(name, sizeof name, "%s_per_job", pre[k]);
		const fx_table *t = fx_sink_find(&e->summary, name);
		snprintf(name, sizeof name, "%s_shared", pre[k]);
		double links = num(e, name, "shared_links");
		if (!t || isnan(links))
			continue;
		double worst = 0;
		for (size_t r = 0; r < fx_table_rows(t); r++) {
			fx_value v;
			if (fx_table_value(t, r, "interference_s", &v) && v.num > worst)
				worst = v.num;
		}
		fx_field_format(worst, FX_F_SECONDS, b, sizeof b);
		printf("; %s %lld links shared, %s of interference at most", what[k], (long long)links, b);
	}
	printf("\n");
}

/* The summary on stdout, read from the sections' tables as captured. */
static void summary(explore *e, const outcome *out, const char *final)
{
	fx_cli *c = e->c;
	const fx_fabric *f = &c->design.fab;
	printf("%s: %s fabric, %lld devices, %lld switches, %lld cpus, %lld links\n", c->design.name,
	       f->builder->kind, (long long)f->ndev, (long long)f->nsw, (long long)f->ncpu,
	       (long long)fx_fabric_links(f));
	char b1[32], b2[32];
	if (!out[0].reason && out[0].md)
		printf("diameter %lld hops; bisection %s per direction (%s per device, %s)\n",
		       (long long)num(e, "metrics", "diameter_hops"),
		       fx_unit_format(num(e, "metrics", "bisection_bandwidth_Bps"), FX_UNIT_BANDWIDTH, b1,
				      sizeof b1),
		       fx_unit_format(num(e, "metrics", "bisection_per_device_Bps"), FX_UNIT_BANDWIDTH, b2,
				      sizeof b2),
		       text(e, "metrics", "bisection_method"));
	if (out[1].md) {
		char colls[512];
		colls_line(e, colls, sizeof colls);
		printf("collectives: %s\n", colls);
	}
	double power = num(e, "power", "power_W");
	if (out[3].md && !isnan(power)) {
		const char *lim = text(e, "power", "limited_by");
		printf("power: %.4g kW for the build, %s%s\n", power / 1e3,
		       strcmp(lim, "none") ? "limited by " : "", text(e, "power", "limit"));
	} else if (out[3].md) {
		printf("power: n/a (no power model)\n");
	}
	if (e->have_pl) {  /* rescaled as the tables show it */
		char per[32];
		fx_field_format(num(e, "place_summary", "objective_per_instance_s"), FX_F_SECONDS, per,
				sizeof per);
		printf("placement: %lld instances, %s, %lld x %s of communication per step\n",
		       (long long)num(e, "place_summary", "instances_placed"),
		       text(e, "place_summary", "status"),
		       (long long)num(e, "place_summary", "instances_placed"), per);
	}
	if (e->have_jobs)
		jobs_line(e);
	for (int i = 0; i < NSECTIONS; i++)
		if (!out[i].absent && (out[i].reason || strcmp(out[i].status, "ok") != 0))
			printf("%s: %s%s%s\n", sections[i].name, out[i].status, out[i].reason ? ": " : "",
			       out[i].reason ? out[i].reason : "");
	printf("report: %s/report.md (tables), report.json, *.csv%s%s\n", final,
	       e->have_loads ? ", links.csv" : "", out[NSECTIONS - 1].md ? ", *.svg" : "");
}

static int explore_main(int argc, char **argv)
{
	static const fx_opt opts[] = {
		FX_CLI_FAIL_OPT,
		{"no-diagrams", NULL, "skip the SVG diagrams (as --skip diagrams)"},
		{"skip", "SECTION", "leave a section out: fabric, collectives, loads, power, bom, placement, "
				    "jobs, plan, failures, diagrams (repeatable, or a comma list)"},
		{"time-limit", "S", "seconds the placement solver may search (default " FX_LIMIT_TEXT(FX_DEFAULT_TIME_LIMIT) ")"},
		{"node-limit", "N", "branch-and-bound nodes the placement solver may search (default: none)"},
		{"vary", "PATH=VALUES", "explore a space: vary a spec path over V1,V2,... or "
					"FROM:TO:STEP or FROM:TO:xF (repeatable; adds to the spec's space:)"},
		{"jobs", "N", "a space's points on N worker processes ('all': one per core)"},
		{"shard", "I/N", "a space's I-th share of N, into out/NAME-shard-I-of-N (merge joins them)"},
		{"budget-points", "N", "sample a larger space: N points at most (Latin hypercube, "
				       "then around the Pareto front)"},
		{"seed", "N", "the sample's seed (default 0)"},
		{"max-points", "N", "refuse whole grids of more points (default 100000, at most "
				    "10^7; a sample is any size)"},
		{"resume", NULL, "keep the points already in out/NAME/points.csv"},
		{"quiet", NULL, "no progress line on stderr"},
		{"no-space", NULL, "the design report of the spec's base design, its space: aside"},
		{NULL, NULL, NULL},
	};
	fx_cli c;
	int rc = fx_cli_parse(&c, "explore", "explore SPEC [--json] [--set KEY=VALUE]... [--skip SECTION]...",
			      opts, argc, argv);
	if (rc)
		return fx_cli_finish(&c, rc > 0 ? 0 : -1);
	explore e = {.c = &c, .limit = FX_DEFAULT_TIME_LIMIT, .diagrams = !fx_cli_opt(&c, "no-diagrams")};
	fx_sink_capture_init(&e.summary);
	int skip[NSECTIONS];
	rc = skipped(&c, skip);
	if (rc == 0)
		rc = fx_cli_load(&c);
	int space = 0;  /* a spec with a space: or --vary explores the space */
	/* --no-space reports the base design: an option that only a space run
	 * reads would be ignored unseen (--vary most of all) */
	static const char *const space_only[] = {"vary", "jobs", "shard", "budget-points", "seed",
						 "max-points", "resume", NULL};
	for (const char *const *o = space_only; rc == 0 && *o && fx_cli_opt(&c, "no-space"); o++)
		if (fx_cli_opt(&c, *o))
			rc = fx_diag_error(&c.d, NULL, "--no-space reports the base design, which --%s "
					   "does not apply to: give one or the other", *o);
	if (rc == 0 && !fx_cli_opt(&c, "no-space"))
		rc = fx_explore_space(&c, e.diagrams && !skip[NSECTIONS - 1], &space);
	if (space || rc) {
		fx_sink_release(&e.summary);
		return fx_cli_finish(&c, rc);
	}
	const char *v;
	if (rc == 0 && (v = fx_cli_opt(&c, "time-limit")))
		rc = fx_cli_time_limit(&c, v, &e.limit);
	int64_t nl = 0;
	if (rc == 0 && (v = fx_cli_opt(&c, "node-limit")))
		rc = fx_cli_int(&c, "--node-limit", v, 1, 1000000000, &nl);
	e.node_limit = (long)nl;
	if (rc == 0)  /* out/<name> is replaced whole when the report is written */
		rc = fx_cli_outdir_begin(&c);
	if (rc) {
		fx_sink_release(&e.summary);
		return fx_cli_finish(&c, rc);
	}

	char *json = NULL, *mdt = NULL;
	size_t json_len = 0, md_len = 0;
	FILE *jf = open_memstream(&json, &json_len), *md = open_memstream(&mdt, &md_len);
	if (!jf || !md)
		fx_xalloc_failed();
	int json_stdout = c.json;
	c.json = 1;   /* the report is built as JSON and Markdown at once */
	c.quiet = 1;
	fx_json_init(&c.js, jf);
	fx_json_obj_begin(&c.js, NULL);
	fx_json_str(&c.js, "name", c.design.name);
	fx_json_str(&c.js, "spec", c.spec_path);
	md_head(&c, md);
	fx_explore_provenance(&c, md, NULL);
	outcome out[NSECTIONS];
	memset(out, 0, sizeof out);
	long failed_writes = fx_outfile_failures();
	int worst = FX_EXIT_OK;
	for (int i = 0; i < NSECTIONS; i++) {
		const char *na = not_applicable(&e, i);
		/* a spec without jobs has no jobs section, not an empty one */
		out[i].absent = strcmp(sections[i].name, "jobs") == 0 && !c.design.njobs;
		if (out[i].absent) {
			out[i].status = "not applicable";
			continue;
		}
		if (skip[i] || na) {
			out[i].status = skip[i] ? "skipped" : "not applicable";
			out[i].reason = fx_xstrdup(skip[i] ? "--skip" : na);
			continue;
		}
		run_section(&e, i, &out[i]);
		if (fx_diag_gravity(out[i].exit) > fx_diag_gravity(worst))
			worst = out[i].exit;
	}
	/* statuses first in the Markdown, then each section */
	fx_json_str(&c.js, "status", status_name(worst));
	fx_json_obj_begin(&c.js, "sections");
	fprintf(md, "| section | status | reason |\n|---|---|---|\n");
	for (int i = 0; i < NSECTIONS; i++) {
		if (out[i].absent)
			continue;
		fx_json_obj_begin(&c.js, sections[i].name);
		fx_json_str(&c.js, "status", out[i].status);
		if (out[i].reason)
			fx_json_str(&c.js, "reason", out[i].reason);
		else
			fx_json_null(&c.js, "reason");
		fx_json_obj_end(&c.js);
		fprintf(md, "| %s | %s | %s |\n", sections[i].name, out[i].status,
			out[i].reason ? out[i].reason : "");
	}
	fx_json_obj_end(&c.js);
	fputc('\n', md);
	for (int i = 0; i < NSECTIONS; i++) {
		if (out[i].absent)
			continue;
		fprintf(md, "## %s\n\n", sections[i].title);
		if (out[i].md)
			fputs(out[i].md, md);
		else
			fprintf(md, "**%s**: %s\n\n", out[i].status, out[i].reason);
	}
	report_files(&c);
	fx_json_obj_end(&c.js);
	fputc('\n', jf);
	fclose(jf);
	fclose(md);

	/* a section that failed to write its files (a full disk, a file-size
	 * limit) makes the run not whole: the report would list files that are
	 * not there, so nothing is committed and the earlier folder stays */
	int wrc = fx_outfile_failures() != failed_writes ? -1
		  : write_report(&c, mdt, md_len, json, json_len);
	/* the report stands whatever its sections say; only a report that
	 * could not be written leaves the previous folder in place */
	if (fx_cli_outdir_end(&c, wrc == 0))
		wrc = -1;
	char *final = fx_xstrdup(c.outdir);
	if (wrc == 0) {
		if (json_stdout)
			fwrite(json, 1, json_len, stdout);
		else
			summary(&e, out, final);
	}
	free(final);
	free(json);
	free(mdt);
	for (int i = 0; i < NSECTIONS; i++) {
		free(out[i].reason);
		free(out[i].md);
	}
	fx_sink_release(&e.summary);
	if (e.have_loads || e.a2a_kept)  /* kept by the collectives even if loads was skipped */
		fx_coll_result_release(&e.loads);
	if (e.have_pl)
		fx_placement_release(&e.pl);
	/* the report stands: the status is the sections', already reported */
	c.outdir[0] = '\0';
	c.json = 0;
	return fx_cli_finish(&c, wrc ? -1 : 0);
}

const fx_command fx_command_explore = {
	.name = "explore",
	.summary = "design report of a fabric (start here)",
	.main = explore_main,
};
