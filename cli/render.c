/*
 * fabricx render: architecture diagrams of a fabric with Graphviz.
 *
 *   physical   racks, nodes, planes; large fabrics aggregated
 *   loads      a collective's link utilisation (busy time / completion time)
 *              (default: the least even of the workload's heaviest
 *              collective, all-to-all 32 MiB direct and allreduce 32 MiB)
 *   placement  where the spec's workload instances go (fx_place)
 *
 * Several specs (or SPEC@KEY=VALUE,... variants, as compare takes them) go
 * side by side on one page, and --fail SEL draws one spec before and after
 * those vertices fail, loads recomputed round them; one scale for the page
 * (render/page.c).
 *
 * Writes out/<name>/<view>.<format> (<view>-side-by-side, <view>-failed)
 * unless -o/--output says otherwise; -o's extension gives the format.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "../core/limits.h"
#include "../core/units.h"
#include "../core/xalloc.h"
#include "../render/render.h"
#include "cli.h"
#include "compare.h"

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One collective's link utilisation: util[2 ne] = busy time / completion
 * time, and its caption. */
static int run_loads(fx_cli *c, const uint8_t *failed, const char *pattern, const char *algo,
		     double size, const int64_t *ranks, int64_t n, double **util, char *caption,
		     size_t caplen)
{
	fx_coll_req q = {0};
	char b1[32], b2[32], b3[32];
	q.size = size;
	q.pattern = pattern;
	q.algo = fx_coll_find(pattern, algo)->name;
	q.ranks = ranks;
	q.n = n;
	/* failed links carry (almost) nothing: a billionth of their bandwidth
	 * while the collective runs, so ECMP steers round them (a bandwidth of
	 * 0 would divide 0 by 0 at a dead switch); restored for the drawing */
	fx_fabric *ff = &c->design.fab;
	double *keep = failed ? fx_xmalloc((size_t)(ff->ne + 1) * sizeof *keep) : NULL;
	for (int64_t e = 0; keep && e < ff->ne; e++) {
		keep[e] = ff->e[e].bw;
		if (failed[ff->ends[2 * e]] || failed[ff->ends[2 * e + 1]])
			ff->e[e].bw *= 1e-9;
	}
	fx_router *r = fx_router_new(&c->design.fab, 0);
	fx_coll_result res;
	int rc = fx_coll_run(&c->design.fab, r, &q, &c->design.coll, &res, &c->d);
	for (int64_t e = 0; keep && e < ff->ne; e++)
		ff->e[e].bw = keep[e];
	free(keep);
	double most = 0;
	for (int64_t l = 0; rc == 0 && failed && l < 2 * ff->ne; l++)
		most = fmax(most, res.link_bytes[l]);
	for (int64_t l = 0; rc == 0 && failed && l < 2 * ff->ne; l++)
		if (failed[ff->ends[l / 2 * 2]] || failed[ff->ends[l / 2 * 2 + 1]]) {
			if (!(res.link_bytes[l] <= 1e-6 * most)) {
				/* the routing (dimension order; ECMP over shortest
				 * paths only) has no way round the failure */
				fx_coll_result_release(&res);
				rc = 1;
			} else {
				res.link_bytes[l] = res.link_busy[l] = 0;
			}
		}
	if (rc == 0) {
		const fx_fabric *f = &c->design.fab;
		*util = fx_xcalloc((size_t)(2 * f->ne + 1), sizeof **util);
		int64_t top = -1;  /* the busiest link: the largest share of the time busy */
		for (int64_t l = 0; l < 2 * f->ne; l++) {
			(*util)[l] = res.time > 0 && res.link_bytes[l] > 0 ? res.link_busy[l] / res.time : 0;
			if (top < 0 || (*util)[l] > (*util)[top])
				top = l;
		}
		char nr[32];
		snprintf(nr, sizeof nr, "%lld", (long long)q.n);
		for (int k = (int)strlen(nr) - 3; k > 0; k -= 3) {  /* 753,972 */
			memmove(nr + k + 1, nr + k, strlen(nr + k) + 1);
			nr[k] = ',';
		}
		/* one buffer per figure: sharing one printed the message size
		 * where the busiest link's bytes belong (issue 14) */
		snprintf(caption, caplen, "%s %s per rank, %s, %s ranks: %s, busiest link %s, %.1f%% busy",
			 q.pattern, fx_unit_format(q.size, FX_UNIT_SIZE, b1, sizeof b1), q.algo, nr,
			 fx_unit_format(res.time, FX_UNIT_TIME, b2, sizeof b2),
			 fx_unit_format(top >= 0 ? res.link_bytes[top] : 0, FX_UNIT_SIZE, b3, sizeof b3),
			 top >= 0 ? 100 * (*util)[top] : 0);
		fx_coll_result_release(&res);
	}
	fx_router_free(r);
	return rc;  /* 1: the routing cannot avoid the failure (not reported) */
}

static int no_way_round(fx_cli *c, const char *what)
{
	return fx_diag_error(&c->d, NULL, "render: the routing of %s cannot avoid the failed "
			     "elements (it keeps to dimension order or shortest paths); try --view "
			     "physical or another --pattern", what);
}

/* How much a collective's picture singles out its bottleneck: the share of
 * the links it uses that are not within 10% of the busiest (0: every link
 * alike, nothing to see; a 2:1 taper under all-to-all: 2/3, the uplinks
 * stand out).  Idle links do not count, or a ring would always win by
 * using few. */
static double unevenness(const double *u, int64_t n)
{
	double top = 0;
	int64_t busy = 0, near = 0;
	for (int64_t l = 0; l < n; l++)
		top = u[l] > top ? u[l] : top;
	for (int64_t l = 0; l < n; l++)
		if (u[l] > 0) {
			busy++;
			near += u[l] >= 0.9 * top;
		}
	return busy ? 1 - (double)near / (double)busy : 0;
}

/* Runs the loads collective.  Without --pattern: the pattern of the
 * workload's heaviest collective (bytes x calls), all-to-all and allreduce
 * are run over the ranks at --size (32 MiB) and the least even is drawn (a
 * uniform picture shows nothing). */
static int loads(fx_cli *c, const uint8_t *failed, double **util, char *caption, size_t caplen)
{
	const char *pattern = fx_cli_opt(c, "pattern"), *algo = fx_cli_opt(c, "algo");
	const char *size = fx_cli_opt(c, "size");
	double bytes = 32.0 * 1024 * 1024;
	if (pattern && !fx_coll_find(pattern, NULL))
		return fx_diag_error(&c->d, NULL, "render: unknown pattern '%s' (see fabricx collective --list)",
				     pattern);
	if (pattern && algo && !fx_coll_find(pattern, algo))
		return fx_diag_error(&c->d, NULL, "render: no algorithm '%s' for %s (see fabricx "
				     "collective --list)", algo, pattern);
	if (!pattern && algo)
		return fx_diag_error(&c->d, NULL, "render: --algo goes with --pattern");
	if (size && fx_cli_qty(c, "--size", size, FX_UNIT_SIZE, &bytes))
		return -1;
	int64_t *ranks = NULL, n = 0;
	if (fx_cli_ranks(c, fx_cli_opt(c, "ranks"), fx_cli_opt(c, "group"), &ranks, &n))
		return -1;
	int64_t kept = 0;  /* failed devices take no part */
	for (int64_t i = 0; i < n; i++)
		if (!failed || !failed[ranks[i]])
			ranks[kept++] = ranks[i];
	n = kept;
	int rc;
	if (pattern) {
		rc = run_loads(c, failed, pattern, algo, bytes, ranks, n, util, caption, caplen);
		free(ranks);
		return rc > 0 ? no_way_round(c, pattern) : rc;
	}
	/* candidates: the workload's heaviest collective first (ties keep it) */
	const char *cp[3], *ca[3];
	double cs[3];
	int nc = 0, heavy = -1;
	for (int k = 0; c->design.work.present && k < FX_GROUP_KINDS; k++) {
		const fx_group_traffic *t = &c->design.work.traffic[k];
		if (t->pattern[0] && t->bytes > 0 && fx_coll_find(t->pattern, t->algo[0] ? t->algo : NULL) &&
		    (heavy < 0 || t->bytes * t->count > c->design.work.traffic[heavy].bytes * c->design.work.traffic[heavy].count))
			heavy = k;
	}
	if (heavy >= 0) {
		const fx_group_traffic *t = &c->design.work.traffic[heavy];
		cp[nc] = t->pattern;
		ca[nc] = t->algo[0] ? t->algo : NULL;
		cs[nc++] = bytes;  /* its own message may be latency-bound: nothing to see */
	}
	static const char *const pat[] = {"all-to-all", "allreduce"}, *const alg[] = {"direct", NULL};
	for (int i = 0; i < 2; i++)
		if (!(heavy >= 0 && strcmp(cp[0], pat[i]) == 0)) {
			cp[nc] = pat[i];
			ca[nc] = alg[i];
			cs[nc++] = bytes;
		}
	double best = -1;
	char cap[256];
	rc = 0;
	for (int i = 0; i < nc && rc == 0; i++) {
		double *u = NULL;
		rc = run_loads(c, failed, cp[i], ca[i], cs[i], ranks, n, &u, cap, sizeof cap);
		if (rc > 0) {  /* after a failure: try the others */
			rc = 0;
			continue;
		}
		if (rc)
			break;
		double x = unevenness(u, 2 * c->design.fab.ne);
		if (x > best + 0.02) {  /* a clearly less even picture */
			best = x;
			free(*util);
			*util = u;
			const char *why = heavy >= 0 && i == 0 ?
				" (the workload's heaviest collective, no more even than the others)" :
				heavy >= 0 ? " (the least even of the workload's heaviest, all-to-all and allreduce)" :
				" (the least even of all-to-all and allreduce)";
			size_t k = strlen(cap);
			memcpy(caption, cap, k < caplen ? k + 1 : caplen);
			if (k + 1 < caplen)
				memcpy(caption + k, why, strlen(why) + 1 < caplen - k ? strlen(why) + 1 : caplen - k);
			caption[caplen - 1] = '\0';
		} else {
			free(u);
		}
	}
	free(ranks);
	if (rc == 0 && !*util)
		return no_way_round(c, "the default collectives");
	return rc;
}

/* Places the spec's workload; instance[ndev] and group[ndev] (TP group). */
static int placement(fx_cli *c, const uint8_t *failed, int64_t **instance, int64_t **group)
{
	const fx_fabric *f = &c->design.fab;
	if (!c->design.work.present)
		return fx_diag_error(&c->d, NULL, "%s: the spec has no workload to place, so there is no "
				     "placement view (add 'workload: {scheme: {tp: 2, ep: 4}, ...}'; "
				     "see docs/spec.md)", c->spec_path);
	fx_place_opts o = {.time_limit = FX_DEFAULT_TIME_LIMIT, .tm = c->design.coll,
			     .accel = c->design.accel.hbm > 0 ? &c->design.accel : NULL, .sessions = &c->design.sessions,
			     .failed = failed};
	fx_placement p;
	if (fx_place(f, &c->design.work, &c->design.power, &o, &p, &c->d))
		return -1;
	int64_t D = fx_workload_devices(&c->design.work), tp = c->design.work.dims[FX_GROUP_TP];
	*instance = fx_xmalloc((size_t)(f->ndev + 1) * sizeof **instance);
	*group = fx_xmalloc((size_t)(f->ndev + 1) * sizeof **group);
	for (int64_t v = 0; v < f->ndev; v++)
		(*instance)[v] = (*group)[v] = -1;
	for (int64_t i = 0; i < p.ninst; i++)
		for (int64_t k = 0; k < D; k++) {
			int64_t v = p.inst[i].devices[k];
			(*instance)[v] = i;
			(*group)[v] = tp > 1 ? k / tp : 0;
		}
	fx_placement_release(&p);
	return 0;
}

/* The format: --format, else -o FILE's extension, else svg.  A file named
 * x.png written as SVG would mislead whoever opens it, so a contradiction
 * is refused, and so is an extension that names no format we write. */
static int out_format(fx_diag *d, const char *out, const char **format)
{
	static const char *const known[] = {"svg", "png", "pdf", "dot", NULL};
	const char *dot = out ? strrchr(out, '.') : NULL, *slash = out ? strrchr(out, '/') : NULL;
	const char *ext = dot && dot > (slash ? slash : out) && dot[1] ? dot + 1 : NULL;
	int k = 0;
	while (ext && known[k] && strcasecmp(known[k], ext))
		k++;
	if (out && *format && ext && known[k] && strcasecmp(*format, known[k]))
		return fx_diag_error(d, NULL, "render: '%s' says %s but --format says %s (drop one)",
				     out, known[k], *format);
	if (out && !*format && !(ext && known[k]))
		return fx_diag_error(d, NULL, "render: cannot tell the format of '%s' from its name "
				     "(name it .svg, .png, .pdf or .dot, or give --format)", out);
	if (!*format)
		*format = out ? known[k] : "svg";
	return 0;
}

static const fx_opt render_opts[] = {
	{"view", "V", "physical (default), loads or placement"},
	{"format", "F", "svg, png, pdf or dot (default: -o FILE's extension, else svg)"},
	{"output", "FILE", "write here, also -o FILE, its format from its extension unless "
			   "--format (default: out/<name>/<view>.<format>)"},
	{"detail", "full", "draw every vertex (refused past 4,000 vertices)"},
	{"pattern", "P", "loads: collective pattern (default: the least even of the workload's "
			 "heaviest, all-to-all and allreduce)"},
	{"algo", "A", "loads: algorithm, with --pattern (default: the pattern's first)"},
	{"size", "SIZE", "loads: bytes per rank (default 32 MiB)"},
	{"ranks", "N", "loads: the first N devices (default: all)"},
	{"group", "G", "loads: a group the spec defines"},
	{"fail", "SEL", "draw the fabric before and after these vertices fail, a selector as "
			"--cut takes (repeatable), loads recomputed"},
	{NULL, NULL, NULL},
};

/* ---- several specs, or before and after a failure, on one page ---- */

/* What a view draws besides the fabric. */
typedef struct view_data {
	double *util;
	int64_t *instance, *group;
	char caption[400];
} view_data;

static int view_data_get(fx_cli *c, int view, const uint8_t *failed, view_data *v)
{
	if (view == FX_VIEW_LOADS)
		return loads(c, failed, &v->util, v->caption, sizeof v->caption);
	if (view == FX_VIEW_PLACEMENT)
		return placement(c, failed, &v->instance, &v->group);
	return 0;
}

static void view_data_release(view_data *v)
{
	free(v->util);
	free(v->instance);
	free(v->group);
}

/* Whether argv[i] takes the next argument as its value (the spellings
 * fx_cli_parse accepts: our options with a value, the common ones, -o). */
static int takes_value(const char *a)
{
	if (strcmp(a, "-o") == 0)
		return 1;
	if (strncmp(a, "--", 2) != 0 || strchr(a, '='))
		return 0;
	static const char *const common[] = {"set", "out", "max-memory", NULL};
	for (int k = 0; common[k]; k++)
		if (strcmp(a + 2, common[k]) == 0)
			return 1;
	for (int k = 0; render_opts[k].name; k++)
		if (render_opts[k].arg && strcmp(a + 2, render_opts[k].name) == 0)
			return 1;
	return 0;
}

/* The specs on the command line (up to max into specs; returns how many)
 * and argv with all but the first of them left out, for fx_cli_parse. */
static int split_specs(int argc, char **argv, const char **specs, int max, char **one, int *none)
{
	int n = 0;
	*none = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int spec = i > 0 && (a[0] != '-' || a[1] == '\0');
		if (spec && n < max)
			specs[n] = a;
		if (!spec || n == 0)
			one[(*none)++] = argv[i];
		n += spec;
		if (i > 0 && !spec && takes_value(a) && i + 1 < argc)
			one[(*none)++] = argv[++i];
	}
	one[*none] = NULL;
	return n;
}

/* SPEC@KEY=VALUE,...: a spec with --set overrides of its own, as compare
 * takes them, so variants of one spec (plane counts, a power cap) can be
 * drawn side by side. */
#define VARIANT_SETS 16
typedef struct variant {
	const char *arg;                  /* as given */
	const char *path;                 /* the file */
	const char *sets[VARIANT_SETS];
	int nsets;
	char buf[1024];
} variant;

/* argv for spec v: one (whose spec is first) with v's file in its place
 * and v's overrides after; malloc'd, *n set. */
static char **variant_argv(char **one, int none, const char *first, const variant *v, int *n)
{
	char **a = fx_xcalloc((size_t)(none + 2 * v->nsets + 1), sizeof *a);
	*n = 0;
	for (int i = 0; i < none; i++)
		a[(*n)++] = one[i] == first ? (char *)v->path : one[i];
	for (int k = 0; k < v->nsets; k++) {
		a[(*n)++] = "--set";
		a[(*n)++] = (char *)v->sets[k];
	}
	return a;
}

/* Loads variant v into o with c's options.  Kept apart so that it can
 * become fx_design_load. */
static int load_other(fx_cli *o, char **argv_o, int n)
{
	int rc = fx_cli_parse(o, "render", "render SPEC...", render_opts, n, argv_o);
	return rc == 0 ? fx_cli_load(o) : -1;
}

/* The panels' titles: the specs' names, the arguments when names repeat. */
static const char *panel_title(fx_cli *const *cs, const variant *v, int n, int i)
{
	const char *name = cs[i]->design.fab.name;
	for (int k = 0; k < n && name; k++)
		if (k != i && cs[k]->design.fab.name && strcmp(cs[k]->design.fab.name, name) == 0)
			return v[i].arg;
	return name ? name : v[i].arg;
}

/* Draws the specs side by side, or c's one spec before and after the
 * --fail selectors, into path (default out/<name>/<view>-side-by-side or
 * -failed.<format>). */
static int page(fx_cli *c, int view, const char *format, const variant *v, int nspec,
		char **one, int none, const char *first, char *path, size_t pathlen,
		fx_render_info *info)
{
	const char *fails[64];
	int nfail = fx_cli_opt_each(c, "fail", fails, 64);
	if (nfail > 64)
		return fx_diag_error(&c->d, NULL, "render: at most 64 --fail selectors");
	if (nspec > FX_RENDER_MAX_PANELS)
		return fx_diag_error(&c->d, NULL, "render: at most %d specs on one page, not %d",
				     FX_RENDER_MAX_PANELS, nspec);
	if (nfail && nspec > 1)
		return fx_diag_error(&c->d, NULL, "render: --fail draws one spec before and after the "
				     "failure; give one spec");
	fx_cli *cs[FX_RENDER_MAX_PANELS] = {c};
	char **argv_o[FX_RENDER_MAX_PANELS] = {NULL};
	view_data vd[FX_RENDER_MAX_PANELS];
	fx_render_panel p[FX_RENDER_MAX_PANELS];
	memset(vd, 0, sizeof vd);
	memset(p, 0, sizeof p);
	uint8_t *failed = NULL;
	int np = nfail ? 2 : nspec, rc = 0;
	char titles[2][640], note[300] = "";
	for (int i = 1; i < nspec && rc == 0; i++) {
		cs[i] = fx_xcalloc(1, sizeof *cs[i]);
		int n;
		argv_o[i] = variant_argv(one, none, first, &v[i], &n);
		rc = load_other(cs[i], argv_o[i], n);
	}
	if (rc == 0 && nfail) {
		const fx_fabric *f = &c->design.fab;
		uint8_t *sel = fx_xcalloc((size_t)f->nv + 1, 1);
		failed = fx_xcalloc((size_t)f->nv + 1, 1);
		for (int i = 0; i < nfail && rc == 0; i++) {
			rc = fx_fabric_select(f, fails[i], "--fail", sel, &c->d);
			for (int64_t u = 0; rc == 0 && u < f->nv; u++)
				failed[u] |= sel[u];
		}
		free(sel);
		size_t k = 0;
		for (int i = 0; i < nfail && k < sizeof note; i++)
			k += (size_t)snprintf(note + k, sizeof note - k, "%s%s", i ? ", " : "", fails[i]);
		snprintf(titles[0], sizeof titles[0], "%s: before", panel_title(cs, v, 1, 0));
		snprintf(titles[1], sizeof titles[1], "%s: after %s fails", panel_title(cs, v, 1, 0), note);
	}
	for (int i = 0; i < np && rc == 0; i++) {
		fx_cli *ci = cs[nfail ? 0 : i];
		rc = view_data_get(ci, view, nfail && i ? failed : NULL, &vd[i]);
		p[i].f = &ci->design.fab;
		p[i].o = (fx_render_opts){(fx_view)view, 0, nfail ? titles[i] : panel_title(cs, v, nspec, i),
					  vd[i].util, vd[i].instance};
		p[i].x.group = vd[i].group;
		p[i].x.loads_caption = vd[i].caption[0] ? vd[i].caption : NULL;
		p[i].x.failed = nfail && i ? failed : NULL;
	}
	const char *out = fx_cli_opt(c, "output");
	if (out)
		snprintf(path, pathlen, "%s", out);
	else
		snprintf(path, pathlen, "%s/%s-%s.%s", c->outdir, fx_view_name((fx_view)view),
			 nfail ? "failed" : "side-by-side", format);
	if (rc == 0)
		rc = fx_render_page(p, np, nfail ? "before and after the failure" : "side by side",
				    format, path, info, &c->d);
	for (int i = 0; i < np; i++)
		view_data_release(&vd[i]);
	for (int i = 1; i < nspec; i++) {
		if (!cs[i])
			continue;
		int st = fx_cli_finish(cs[i], 0);  /* its errors were printed as they came */
		if (st > c->d.status)
			c->d.status = st;
		if (st)
			rc = -1;
		free(cs[i]);
	}
	for (int i = 0; i < FX_RENDER_MAX_PANELS; i++)
		free(argv_o[i]);
	free(failed);
	return rc;
}

/* What was drawn, for text and --json alike (docs/output.md). */
static fx_table *render_record(int view, const char *format, const char *path,
			       const fx_render_info *info, int panels, double secs)
{
	int dot = strcmp(format, "dot") == 0;
	fx_table *t = fx_record_new("render", "Render", NULL);
	fx_record_text(t, "view", "view", "%s", fx_view_name((fx_view)view));
	fx_record_text(t, "format", "format", "%s", format);
	fx_record_text(t, "file", "file", "%s", path);
	fx_record_int(t, "panels", "panels", panels);
	fx_record_int(t, "vertices_drawn", "vertices drawn", info->vertices);
	fx_record_int(t, "edges_drawn", "edges drawn", info->edges);
	fx_record_bool(t, "aggregated", "aggregated", info->aggregated);
	fx_record_text(t, "layout_engine", dot ? "layout engine (named in the DOT file)" : "layout engine",
		       "%s", info->engine);
	if (info->width_px > 0) {
		fx_record_int(t, "width_px", "width (px, 96 dpi)", info->width_px);
		fx_record_int(t, "height_px", "height (px, 96 dpi)", info->height_px);
	} else {  /* DOT: not laid out */
		fx_record_null(t, "width_px", "width (px, 96 dpi)", FX_F_INT, "- (not laid out)");
		fx_record_null(t, "height_px", "height (px, 96 dpi)", FX_F_INT, "- (not laid out)");
	}
	fx_record_num(t, "render_s", "time to build, lay out and write", FX_F_SECONDS, info->seconds);
	fx_record_num(t, "elapsed_s", "time in all (loading included)", FX_F_SECONDS, secs);
	return t;
}

int fx_cmd_render(int argc, char **argv)
{
	fx_cli c;
	double t0 = wall();
	const char *specs[FX_RENDER_MAX_PANELS + 1];
	char **one = fx_xcalloc((size_t)argc + 1, sizeof *one);
	int none, nspec = split_specs(argc, argv, specs, FX_RENDER_MAX_PANELS + 1, one, &none);
	variant *v = fx_xcalloc(FX_RENDER_MAX_PANELS + 1, sizeof *v);
	int bad = -1;
	for (int i = 0; i < nspec && i <= FX_RENDER_MAX_PANELS; i++) {
		v[i].arg = specs[i];
		v[i].nsets = fx_cmp_split(specs[i], v[i].buf, sizeof v[i].buf, &v[i].path, v[i].sets,
					  VARIANT_SETS);
		if (v[i].nsets < 0 && bad < 0)
			bad = i;
		v[i].nsets = v[i].nsets < 0 ? 0 : v[i].nsets;
	}
	int nc = none;
	char **argv_c = nspec ? variant_argv(one, none, specs[0], &v[0], &nc) : one;
	int rc = fx_cli_parse(&c, "render",
			      "render SPEC[@KEY=VALUE,...]... [--view physical|loads|placement] "
			      "[--format svg|png|pdf|dot] "
			      "[-o FILE] [--detail full] [--pattern P --algo A --size SIZE --ranks N] "
			      "[--fail SEL]... [--json]",
			      render_opts, nc, argv_c);
	if (rc == 0 && bad >= 0)
		rc = fx_diag_error(&c.d, NULL, "render: expected SPEC@KEY=VALUE,... in '%s' (an empty or "
				   "unbalanced override)", specs[bad]);
	if (rc) {
		rc = fx_cli_finish(&c, rc > 0 ? 0 : -1);
		goto out;
	}
	int paged = nspec > 1 || fx_cli_opt(&c, "fail");
	const char *vname = fx_cli_opt(&c, "view"), *format = fx_cli_opt(&c, "format");
	const char *detail = fx_cli_opt(&c, "detail");
	int view = vname ? fx_view_find(vname) : FX_VIEW_PHYSICAL;
	if (out_format(&c.d, fx_cli_opt(&c, "output"), &format))
		rc = -1;
	else if (view < 0)
		rc = fx_diag_error(&c.d, NULL, "render: unknown view '%s' (expected physical, loads or "
				   "placement)", vname);
	else if (strcmp(format, "svg") && strcmp(format, "png") && strcmp(format, "pdf") &&
		 strcmp(format, "dot"))
		rc = fx_diag_error(&c.d, NULL, "render: unknown format '%s' (expected svg, png, pdf or "
				   "dot)", format);
	else if (detail && strcmp(detail, "full"))
		rc = fx_diag_error(&c.d, NULL, "render: --detail takes 'full', got '%s'", detail);
	else if (detail && paged)
		rc = fx_diag_error(&c.d, NULL, "render: --detail full draws one fabric at a time");
	else if (view != FX_VIEW_LOADS && (fx_cli_opt(&c, "pattern") || fx_cli_opt(&c, "algo") ||
					   fx_cli_opt(&c, "size") || fx_cli_opt(&c, "ranks") ||
					   fx_cli_opt(&c, "group")))
		rc = fx_diag_error(&c.d, NULL, "render: --pattern, --algo, --size, --ranks and --group "
				   "go with --view loads");
	if (rc == 0)
		rc = fx_cli_load(&c);
	/* out/<name> holds the picture unless -o puts it elsewhere */
	if (rc == 0 && (!fx_cli_opt(&c, "output") || c.out_given))
		rc = fx_cli_outdir(&c);
	char path[640];
	fx_render_info info = {0};
	if (rc == 0 && paged) {
		rc = page(&c, view, format, v, nspec, one, none, specs[0], path, sizeof path, &info);
	} else if (rc == 0) {
		view_data v = {0};
		rc = view_data_get(&c, view, NULL, &v);
		const char *out = fx_cli_opt(&c, "output");
		if (out)
			snprintf(path, sizeof path, "%s", out);
		else
			snprintf(path, sizeof path, "%s/%s.%s", c.outdir, fx_view_name((fx_view)view), format);
		if (rc == 0) {
			fx_render_opts o = {(fx_view)view, detail != NULL, NULL, v.util, v.instance};
			fx_render_ext x = {.group = v.group, .loads_caption = v.caption[0] ? v.caption : NULL,
					   .info = &info};
			rc = fx_render_file_ext(&c.design.fab, &o, &x, format, path, &c.d);
		}
		view_data_release(&v);
	}
	double secs = wall() - t0;
	if (rc == 0) {
		if (!c.out_given)  /* the picture is the file asked for; the record's CSV only with --out */
			c.outdir[0] = '\0';
		fx_cli_begin(&c);
		rc = fx_cli_table(&c, render_record(view, format, path, &info, paged ? (nspec > 1 ? nspec : 2) : 1,
						    secs));
		fx_cli_end(&c);
	}
	rc = fx_cli_finish(&c, rc);
out:
	if (argv_c != one)
		free(argv_c);
	free(one);
	free(v);
	return rc;
}
