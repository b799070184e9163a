/*
 * fabricx render: architecture diagrams of a fabric with Graphviz.
 *
 *   physical   racks, nodes, planes; large fabrics aggregated
 *   loads      a collective's link utilisation (busy time / completion time)
 *              (default: all-to-all 32 MiB direct over every device)
 *   placement  where the spec's workload instances go (fx_place)
 *
 * Writes out/<name>/<view>.<format> unless -o/--output says otherwise.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/units.h"
#include "../core/xalloc.h"
#include "../render/render.h"
#include "cli.h"

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Runs the loads collective; util[2 ne] = busy time / completion time. */
static int loads(fx_cli *c, double **util, char *caption, size_t caplen)
{
	const char *pattern = fx_cli_opt(c, "pattern"), *algo = fx_cli_opt(c, "algo");
	const char *size = fx_cli_opt(c, "size");
	fx_coll_req q = {0};
	char b1[32], b2[32], b3[32];
	if (!pattern) {
		pattern = "all-to-all";
		if (!algo)
			algo = "direct";
	}
	if (!fx_coll_find(pattern, NULL))
		return fx_diag_error(&c->d, NULL, "render: unknown pattern '%s' (see fabricx collective --list)",
				     pattern);
	if (algo && !fx_coll_find(pattern, algo))
		return fx_diag_error(&c->d, NULL, "render: no algorithm '%s' for %s (see fabricx "
				     "collective --list)", algo, pattern);
	q.size = 32.0 * 1024 * 1024;
	if (size && fx_cli_qty(c, "--size", size, FX_UNIT_SIZE, &q.size))
		return -1;
	int64_t *ranks = NULL;
	if (fx_cli_ranks(c, fx_cli_opt(c, "ranks"), fx_cli_opt(c, "group"), &ranks, &q.n))
		return -1;
	q.pattern = pattern;
	q.algo = fx_coll_find(pattern, algo)->name;
	q.ranks = ranks;
	fx_router *r = fx_router_new(&c->fab, 0);
	fx_coll_result res;
	int rc = fx_coll_run(&c->fab, r, &q, &c->coll, &res, &c->d);
	if (rc == 0) {
		const fx_fabric *f = &c->fab;
		*util = fx_xcalloc((size_t)(2 * f->ne + 1), sizeof **util);
		int64_t top = -1;  /* the busiest link: the largest share of the time busy */
		for (int64_t l = 0; l < 2 * f->ne; l++) {
			(*util)[l] = res.time > 0 ? res.link_busy[l] / res.time : 0;
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
	free(ranks);
	return rc;
}

/* Places the spec's workload; instance[ndev] and group[ndev] (TP group). */
static int placement(fx_cli *c, int64_t **instance, int64_t **group)
{
	const fx_fabric *f = &c->fab;
	if (!c->work.present)
		return fx_diag_error(&c->d, NULL, "%s: the spec has no workload to place, so there is no "
				     "placement view (add 'workload: {scheme: {tp: 2, ep: 4}, ...}'; "
				     "see docs/spec.md)", c->spec_path);
	fx_place_opts o = {.time_limit = 10, .tm = c->coll,
			     .accel = c->accel.hbm > 0 ? &c->accel : NULL, .sessions = &c->sessions};
	fx_placement p;
	if (fx_place(f, &c->work, &c->power, &o, &p, &c->d))
		return -1;
	int64_t D = fx_workload_devices(&c->work), tp = c->work.dims[FX_GROUP_TP];
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

static const fx_opt render_opts[] = {
	{"view", "V", "physical (default), loads or placement"},
	{"format", "F", "svg (default), png, pdf or dot"},
	{"output", "FILE", "write here, also -o FILE (default: out/<name>/<view>.<format>)"},
	{"detail", "full", "draw every vertex (refused past 4,000 vertices)"},
	{"pattern", "P", "loads: collective pattern (default all-to-all, algorithm direct)"},
	{"algo", "A", "loads: algorithm (default: the pattern's first)"},
	{"size", "SIZE", "loads: bytes per rank (default 32 MiB)"},
	{"ranks", "N", "loads: the first N devices (default: all)"},
	{"group", "G", "loads: a group the spec defines"},
	{NULL, NULL, NULL},
};

int fx_cmd_render(int argc, char **argv)
{
	fx_cli c;
	double t0 = wall();
	int rc = fx_cli_parse(&c, "render",
			      "render SPEC [--view physical|loads|placement] [--format svg|png|pdf|dot] "
			      "[-o FILE] [--detail full] [--pattern P --algo A --size SIZE --ranks N] [--json]",
			      render_opts, argc, argv);
	if (rc)
		return fx_cli_finish(&c, rc > 0 ? 0 : -1);
	const char *vname = fx_cli_opt(&c, "view"), *format = fx_cli_opt(&c, "format");
	const char *detail = fx_cli_opt(&c, "detail");
	int view = vname ? fx_view_find(vname) : FX_VIEW_PHYSICAL;
	if (!format)
		format = "svg";
	if (view < 0)
		rc = fx_diag_error(&c.d, NULL, "render: unknown view '%s' (expected physical, loads or "
				   "placement)", vname);
	else if (strcmp(format, "svg") && strcmp(format, "png") && strcmp(format, "pdf") &&
		 strcmp(format, "dot"))
		rc = fx_diag_error(&c.d, NULL, "render: unknown format '%s' (expected svg, png, pdf or "
				   "dot)", format);
	else if (detail && strcmp(detail, "full"))
		rc = fx_diag_error(&c.d, NULL, "render: --detail takes 'full', got '%s'", detail);
	else if (view != FX_VIEW_LOADS && (fx_cli_opt(&c, "pattern") || fx_cli_opt(&c, "algo") ||
					   fx_cli_opt(&c, "size") || fx_cli_opt(&c, "ranks") ||
					   fx_cli_opt(&c, "group")))
		rc = fx_diag_error(&c.d, NULL, "render: --pattern, --algo, --size, --ranks and --group "
				   "go with --view loads");
	if (rc == 0)
		rc = fx_cli_load(&c);
	if (rc == 0)
		rc = fx_cli_outdir(&c);
	double *util = NULL;
	int64_t *instance = NULL, *group = NULL;
	char caption[256] = "";
	if (rc == 0 && view == FX_VIEW_LOADS)
		rc = loads(&c, &util, caption, sizeof caption);
	if (rc == 0 && view == FX_VIEW_PLACEMENT)
		rc = placement(&c, &instance, &group);
	char path[640];
	const char *out = fx_cli_opt(&c, "output");
	if (out)
		snprintf(path, sizeof path, "%s", out);
	else
		snprintf(path, sizeof path, "%s/%s.%s", c.outdir, fx_view_name((fx_view)view), format);
	fx_render_info info = {0};
	if (rc == 0) {
		fx_render_opts o = {(fx_view)view, detail != NULL, NULL, util, instance};
		fx_render_ext x = {group, caption[0] ? caption : NULL, NULL, &info};
		rc = fx_render_file_ext(&c.fab, &o, &x, format, path, &c.d);
	}
	double secs = wall() - t0;
	if (rc == 0) {
		fx_table *t = fx_table_new("render", "Render",
					   (const char *[]){"view", "file", "vertices drawn", "edges drawn",
							    "layout engine", "seconds", NULL});
		fx_table_cell(t, "%s%s", fx_view_name((fx_view)view), info.aggregated ? " (aggregated)" : "");
		fx_table_cell(t, "%s", path);
		fx_table_cell(t, "%lld", (long long)info.vertices);
		fx_table_cell(t, "%lld", (long long)info.edges);
		fx_table_cell(t, "%s", strcmp(format, "dot") ? info.engine : "none (DOT names it)");
		fx_table_cell(t, "%.3f", secs);
		fx_cli_begin(&c);
		if (c.json) {
			fx_json_str(&c.js, "view", fx_view_name((fx_view)view));
			fx_json_str(&c.js, "format", format);
			fx_json_str(&c.js, "file", path);
			fx_json_int(&c.js, "vertices_drawn", info.vertices);
			fx_json_int(&c.js, "edges_drawn", info.edges);
			fx_json_bool(&c.js, "aggregated", info.aggregated);
			fx_json_str(&c.js, "layout_engine", info.engine);
			fx_json_num(&c.js, "seconds", secs);
			fx_json_num(&c.js, "render_seconds", info.seconds);
		}
		rc = fx_cli_table(&c, t);
		fx_cli_end(&c);
	}
	free(util);
	free(instance);
	free(group);
	return fx_cli_finish(&c, rc);
}
