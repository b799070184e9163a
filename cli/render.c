/*
 * fabricx render: architecture diagrams of a fabric with Graphviz.
 *
 *   physical   racks, nodes, planes; large fabrics aggregated
 *   loads      a collective's link utilisation (busy time / completion time)
 *              (default: all-to-all 32 MiB direct over every device, as
 *              explore draws it), relative to the busiest link or
 *              (--scale absolute) as a fraction of each link's capacity
 *   placement  where the spec's workload instances go (fx_place)
 *   floor      the racks on the bill of materials' floor plan (cli/bom.c)
 *   racks      rack elevations: each rack's trays and switch boxes (cli/bom.c)
 *
 * Several specs (or SPEC@KEY=VALUE,... variants, as compare takes them) go
 * side by side on one page, and --fail SEL draws one spec before and after
 * those vertices fail, loads recomputed round them; one scale for the page
 * (cli/render_page.c, render/page.c).
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
#include "render.h"

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void fx_rnd_caption(const char *pattern, const char *algo, double size, int64_t ranks,
		    const fx_coll_result *res, const double *util, int64_t nlinks, char *buf,
		    size_t len)
{
	char b1[32], b2[32], b3[32], nr[32];
	int64_t top = -1;  /* the busiest link: the largest share of the time busy */
	for (int64_t l = 0; l < nlinks; l++)
		if (top < 0 || util[l] > util[top])
			top = l;
	snprintf(nr, sizeof nr, "%lld", (long long)ranks);
	for (int k = (int)strlen(nr) - 3; k > 0; k -= 3) {  /* 753,972 */
		memmove(nr + k + 1, nr + k, strlen(nr + k) + 1);
		nr[k] = ',';
	}
	/* one buffer per figure: sharing one printed the message size where
	 * the busiest link's bytes belong (issue 14) */
	snprintf(buf, len, "%s %s per rank, %s, %s ranks, timing %s: %s, busiest link %s, %.1f%% busy",
		 pattern, fx_unit_format(size, FX_UNIT_SIZE, b1, sizeof b1), algo, nr,
		 fx_timing_name(res->timing), fx_unit_format(res->time, FX_UNIT_TIME, b2, sizeof b2),
		 fx_unit_format(top >= 0 ? res->link_bytes[top] : 0, FX_UNIT_SIZE, b3, sizeof b3),
		 top >= 0 ? 100 * util[top] : 0);
}

/* One collective's link utilisation: util[2 ne] = busy time / completion
 * time, and its caption. */
static int run_loads(fx_cli *c, const uint8_t *failed, const uint8_t *dead, const char *pattern,
		     const char *algo,
		     double size, const int64_t *ranks, int64_t n, double **util, char *caption,
		     size_t caplen)
{
	fx_coll_req q = {0};
	q.size = size;
	q.pattern = pattern;
	q.algo = fx_coll_find(pattern, algo)->name;
	q.ranks = ranks;
	q.n = n;
	/* the failed vertices go into the fabric's failure mask (fabric/fail.c)
	 * while the collective runs, so routing goes round them (dimension
	 * order gives way to ECMP on the degraded graph); the intact fabric is
	 * put back for the drawing.  A rank the failure cuts off has no route:
	 * 1, not reported (no_way_round says it). */
	fx_fabric *ff = &c->design.fab;
	fx_fail_saved keep;
	fx_fabric_fail_save(ff, &keep);
	int damaged = failed || dead;
	if (damaged)
		fx_fabric_fail_mark(ff, failed, dead);
	fx_router *r = fx_router_new(&c->design.fab, 0);
	fx_coll_result res;
	fx_diag quiet;
	fx_diag_init(&quiet);
	quiet.max_shown = 0;
	int rc = fx_coll_run(&c->design.fab, r, &q, &c->design.coll, &res, damaged ? &quiet : &c->d);
	fx_diag_release(&quiet);
	fx_fabric_fail_restore(ff, &keep);
	if (rc && damaged)
		rc = 1;
	if (rc == 0) {
		const fx_fabric *f = &c->design.fab;
		*util = fx_xcalloc((size_t)(2 * f->ne + 1), sizeof **util);
		for (int64_t l = 0; l < 2 * f->ne; l++)
			(*util)[l] = res.time > 0 && res.link_bytes[l] > 0 ? res.link_busy[l] / res.time : 0;
		fx_rnd_caption(q.pattern, q.algo, q.size, q.n, &res, *util, 2 * f->ne, caption, caplen);
		fx_coll_result_release(&res);
	}
	fx_router_free(r);
	return rc;  /* 1: the routing cannot avoid the failure (not reported) */
}

static int no_way_round(fx_cli *c, const char *what)
{
	return fx_diag_error(&c->d, NULL, "render: %s cannot avoid the failed elements: they "
			     "cut a rank off from the others; try --view physical", what);
}

/* Runs the loads collective: --pattern (--algo, --size), else the one
 * default explore draws too (FX_RND_DEFAULT_PATTERN, cli/render.h). */
static int loads(fx_cli *c, const uint8_t *failed, const uint8_t *dead, double **util, char *caption,
		 size_t caplen)
{
	const char *pattern = fx_cli_opt(c, "pattern"), *algo = fx_cli_opt(c, "algo");
	const char *size = fx_cli_opt(c, "size");
	double bytes = FX_RND_DEFAULT_SIZE;
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
	if (!pattern) {
		pattern = FX_RND_DEFAULT_PATTERN;
		algo = FX_RND_DEFAULT_ALGO;
	}
	int rc = run_loads(c, failed, dead, pattern, algo, bytes, ranks, n, util, caption, caplen);
	free(ranks);
	return rc > 0 ? no_way_round(c, pattern) : rc;
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

int fx_rnd_scale(fx_cli *c, int paged)
{
	const char *s = fx_cli_opt(c, "scale");
	if (!s)
		return paged;
	return strcmp(s, "absolute") == 0 ? 1 : strcmp(s, "relative") == 0 ? 0 : -1;
}

const fx_opt fx_rnd_opts[] = {
	{"view", "V", "physical (default), loads, placement, floor (the racks on the floor plan) or "
		      "racks (rack elevations: each rack's trays and switch boxes in rack order)"},
	{"format", "F", "svg, png, pdf or dot (default: -o FILE's extension, else svg)"},
	{"output", "FILE", "write here, also -o FILE, its format from its extension unless "
			   "--format (default: out/<name>/<view>.<format>)"},
	{"detail", "full", "draw every vertex (refused past 4,000 vertices)"},
	{"pattern", "P", "loads: collective pattern (default: all-to-all, direct, as explore draws)"},
	{"algo", "A", "loads: algorithm, with --pattern (default: the pattern's first)"},
	{"size", "SIZE", "loads: bytes per rank (default 32 MiB)"},
	{"ranks", "N", "loads: the first N devices (default: all)"},
	{"group", "G", "loads: a group the spec defines"},
	{"scale", "S", "loads: relative (colours relative to the busiest link; the default for one "
		       "picture) or absolute (the busy fraction of each link's capacity on a fixed "
		       "ramp; the default side by side and with --fail)"},
	{"fail", "SEL", "draw the fabric before and after these fail: vertices a selector as "
			"--cut takes picks, or A~B the links between two sets (repeatable); loads "
			"recomputed"},
	{NULL, NULL, NULL},
};

int fx_rnd_view_get(fx_cli *c, int view, const uint8_t *failed, const uint8_t *dead,
		    fx_rnd_view *v)
{
	if (view == FX_VIEW_LOADS)
		return loads(c, failed, dead, &v->util, v->caption, sizeof v->caption);
	if (view == FX_VIEW_PLACEMENT)
		return placement(c, failed, &v->instance, &v->group);
	return 0;
}

void fx_rnd_view_release(fx_rnd_view *v)
{
	free(v->util);
	free(v->instance);
	free(v->group);
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

static int render_main(int argc, char **argv)
{
	fx_cli c;
	double t0 = wall();
	fx_rnd_specs sp;
	fx_rnd_specs_read(&sp, argc, argv);
	int rc = fx_cli_parse(&c, "render",
			      "render SPEC[@KEY=VALUE,...]... [--view physical|loads|placement|floor|racks] "
			      "[--format svg|png|pdf|dot] "
			      "[-o FILE] [--detail full] [--pattern P --algo A --size SIZE --ranks N] "
			      "[--scale relative|absolute] "
			      "[--fail SEL]... [--json]",
			      fx_rnd_opts, sp.argc, sp.argv);
	if (rc == 0 && sp.bad >= 0)
		rc = fx_diag_error(&c.d, NULL, "render: expected SPEC@KEY=VALUE,... in '%s' (an empty or "
				   "unbalanced override)", sp.v[sp.bad].arg);
	if (rc) {
		rc = fx_cli_finish(&c, rc > 0 ? 0 : -1);
		goto out;
	}
	int paged = sp.n > 1 || fx_cli_opt(&c, "fail");
	const char *vname = fx_cli_opt(&c, "view"), *format = fx_cli_opt(&c, "format");
	const char *detail = fx_cli_opt(&c, "detail");
	int view = vname ? fx_view_find(vname) : FX_VIEW_PHYSICAL;
	if (out_format(&c.d, fx_cli_opt(&c, "output"), &format))
		rc = -1;
	else if (view < 0)
		rc = fx_diag_error(&c.d, NULL, "render: unknown view '%s' (expected physical, loads, "
				   "placement, floor or racks)", vname);
	else if ((view == FX_VIEW_FLOOR || view == FX_VIEW_RACKS) && (paged || detail))
		rc = fx_diag_error(&c.d, NULL, "render: --view %s draws one build, without --fail or "
				   "--detail", fx_view_name((fx_view)view));
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
					   fx_cli_opt(&c, "group") || fx_cli_opt(&c, "scale")))
		rc = fx_diag_error(&c.d, NULL, "render: --pattern, --algo, --size, --ranks, --group and "
				   "--scale go with --view loads");
	else if (fx_rnd_scale(&c, paged) < 0)
		rc = fx_diag_error(&c.d, NULL, "render: --scale takes relative or absolute, got '%s'",
				   fx_cli_opt(&c, "scale"));
	if (rc == 0)
		rc = fx_cli_load(&c);
	/* out/<name> holds the picture unless -o puts it elsewhere */
	if (rc == 0 && (!fx_cli_opt(&c, "output") || c.out_given))
		rc = fx_cli_outdir(&c);
	char path[640];
	fx_render_info info = {0};
	if (rc == 0 && paged) {
		rc = fx_rnd_page(&c, view, format, &sp, path, sizeof path, &info);
	} else if (rc == 0) {
		fx_rnd_view v = {0};
		rc = fx_rnd_view_get(&c, view, NULL, NULL, &v);
		const char *out = fx_cli_opt(&c, "output");
		if (out)
			snprintf(path, sizeof path, "%s", out);
		else
			snprintf(path, sizeof path, "%s/%s.%s", c.outdir, fx_view_name((fx_view)view), format);
		if (rc == 0 && !out)
			rc = fx_cli_may_write(&c, strrchr(path, '/') + 1);
		if (rc == 0 && (view == FX_VIEW_FLOOR || view == FX_VIEW_RACKS))
			rc = fx_bom_floor_picture(&c, view, format, path, &info);
		else if (rc == 0) {
			fx_render_opts o = {(fx_view)view, detail != NULL, NULL, v.util, v.instance};
			fx_render_ext x = {.group = v.group, .loads_caption = v.caption[0] ? v.caption : NULL,
					   .info = &info, .util_absolute = fx_rnd_scale(&c, 0) == 1};
			rc = fx_render_file_ext(&c.design.fab, &o, &x, format, path, &c.d);
		}
		fx_rnd_view_release(&v);
	}
	double secs = wall() - t0;
	if (rc == 0) {
		if (!c.out_given)  /* the picture is the file asked for; the record's CSV only with --out */
			c.outdir[0] = '\0';
		fx_cli_begin(&c);
		rc = fx_cli_table(&c, render_record(view, format, path, &info, paged ? (sp.n > 1 ? sp.n : 2) : 1,
						    secs));
		fx_cli_end(&c);
	}
	rc = fx_cli_finish(&c, rc);
out:
	fx_rnd_specs_release(&sp);
	return rc;
}

const fx_command fx_command_render = {
	.name = "render",
	.summary = "architecture diagrams: physical, loads, placement (Graphviz)",
	.main = render_main,
};
