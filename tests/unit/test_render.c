/* Diagrams: the DOT parses back with cgraph, its clusters, boxes and link
 * counts match the fabric, every shipped spec renders in every view, and
 * the loads and placement views colour what they should. */
#include <cgraph.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/xalloc.h"
#include "../../placement/placement.h"
#include "../../render/render.h"
#include "../../routing/routing.h"
#include "helpers.h"

static const char *const shipped[] = {
	"specs/cm384.yaml", "specs/dgx-h100-256.yaml", "specs/dgx1.yaml", "specs/fat-tree-k8.yaml",
	"specs/hgx-h100.yaml", "specs/nvl72.yaml", "specs/switched-64.yaml",
	"specs/torus-8x8x8.yaml", "specs/tpu-v4-cube.yaml", "specs/wse2.yaml", NULL,
};

/* What a parsed drawing holds. */
typedef struct drawing {
	Agraph_t *g;
	int64_t nodes, edges;        /* visible edges only */
	int64_t links, inner;        /* links= on edges, inner_links= on boxes */
	double bw, inner_bw;
	char engine[16];
} drawing;

static const char *get(void *obj, const char *key)
{
	const char *v = agget(obj, (char *)key);
	return v ? v : "";
}

static int64_t count_class(Agraph_t *g, const char *cls)
{
	int64_t n = 0;
	for (Agnode_t *v = agfstnode(g); v; v = agnxtnode(g, v))
		n += strcmp(get(v, "class"), cls) == 0;
	return n;
}

/* Renders f's DOT and parses it back. */
static void draw(drawing *w, fixture *fx, const fx_render_opts *o, const fx_render_ext *x)
{
	char *dot = NULL;
	memset(w, 0, sizeof *w);
	int rc = fx_render_dot_ext(&fx->f, o, x, &dot, &fx->d);
	fflush(fx->err);
	ck_assert_msg(rc == 0 && dot, "render failed");
	w->g = agmemread(dot);
	ck_assert_msg(w->g != NULL, "the DOT does not parse:\n%.300s", dot);
	free(dot);
	snprintf(w->engine, sizeof w->engine, "%s", get(w->g, "layout"));
	for (Agnode_t *v = agfstnode(w->g); v; v = agnxtnode(w->g, v)) {
		w->nodes++;
		w->inner += atoll(get(v, "inner_links"));
		w->inner_bw += atof(get(v, "inner_bandwidth"));
		for (Agedge_t *e = agfstout(w->g, v); e; e = agnxtout(w->g, e)) {
			if (strcmp(get(e, "style"), "invis") == 0)
				continue;
			w->edges++;
			w->links += atoll(get(e, "links"));
			w->bw += atof(get(e, "bandwidth"));
		}
	}
}

static void undraw(drawing *w)
{
	if (w->g)
		agclose(w->g);
	w->g = NULL;
}

static double fabric_bw(const fx_fabric *f)
{
	double s = 0;
	for (int64_t e = 0; e < f->ne; e++)
		s += f->e[e].count * f->e[e].bw;
	return s;
}

static void check_totals(const drawing *w, const fx_fabric *f, const char *what)
{
	ck_assert_msg(w->links + w->inner == fx_fabric_links(f),
		      "%s: %lld links drawn + %lld inside != %lld", what, (long long)w->links,
		      (long long)w->inner, (long long)fx_fabric_links(f));
	double bw = fabric_bw(f);
	ck_assert_msg(fabs(w->bw + w->inner_bw - bw) <= 1e-6 * bw, "%s: bandwidth %g + %g != %g",
		      what, w->bw, w->inner_bw, bw);
}

START_TEST(test_hgx_full)
{
	fixture fx;
	drawing w;
	load_ok(&fx, "specs/hgx-h100.yaml", NULL);
	fx_render_opts o = {FX_VIEW_PHYSICAL, 0, NULL, NULL, NULL};
	draw(&w, &fx, &o, NULL);
	ck_assert_int_eq(w.nodes, 12);
	ck_assert_int_eq(count_class(w.g, "device"), 8);
	ck_assert_int_eq(count_class(w.g, "switch"), 4);
	ck_assert_int_eq(w.edges, 32);
	ck_assert_str_eq(w.engine, "dot");
	/* GPU links to the 4 chips are 5/4/4/5: 16 bundles of each */
	int64_t five = 0, four = 0;
	for (Agnode_t *v = agfstnode(w.g); v; v = agnxtnode(w.g, v))
		for (Agedge_t *e = agfstout(w.g, v); e; e = agnxtout(w.g, e)) {
			five += strcmp(get(e, "label"), "5 x 25 GB/s") == 0;
			four += strcmp(get(e, "label"), "4 x 25 GB/s") == 0;
		}
	ck_assert_int_eq(five, 16);
	ck_assert_int_eq(four, 16);
	/* rack 0 > node 0 > every vertex */
	Agraph_t *rack = agsubg(w.g, "cluster_rack0", 0);
	ck_assert_ptr_nonnull(rack);
	Agraph_t *node = agsubg(rack, "cluster_node0", 0);
	ck_assert_ptr_nonnull(node);
	ck_assert_int_eq(agnnodes(node), 12);
	check_totals(&w, &fx.f, "hgx-h100");
	undraw(&w);
	fixture_release(&fx);
}
END_TEST

START_TEST(test_cm384_aggregated)
{
	fixture fx;
	drawing w;
	char name[32];
	load_ok(&fx, "specs/cm384.yaml", NULL);
	fx_render_opts o = {FX_VIEW_PHYSICAL, 0, NULL, NULL, NULL};
	fx_render_info info;
	fx_render_ext x = {NULL, NULL, NULL, &info};
	draw(&w, &fx, &o, &x);
	ck_assert(info.aggregated);
	/* 48 node boxes, 4 in each of 12 rack clusters */
	ck_assert_int_eq(count_class(w.g, "node"), 48);
	for (int r = 0; r < 12; r++) {
		snprintf(name, sizeof name, "cluster_rack%d", r);
		Agraph_t *rack = agsubg(w.g, name, 0);
		ck_assert_msg(rack != NULL, "no %s", name);
		ck_assert_int_eq(agnnodes(rack), 4);
		for (int k = 0; k < 4; k++) {
			snprintf(name, sizeof name, "node%d", 4 * r + k);
			Agnode_t *v = agnode(rack, name, 0);
			ck_assert_msg(v != NULL, "%s not in rack %d", name, r);
			ck_assert_ptr_nonnull(strstr(get(v, "label"), "8 NPUs · 4 CPUs · 7 L1"));
			ck_assert_str_eq(get(v, "inner_links"), "140");  /* 8x7x2 + 4x7 */
		}
	}
	/* 7 plane groups of 16 L2 chips */
	ck_assert_int_eq(count_class(w.g, "switch-group"), 7);
	for (int p = 0; p < 7; p++) {
		snprintf(name, sizeof name, "L2.p%d", p);
		Agnode_t *v = agnode(w.g, name, 0);
		ck_assert_msg(v != NULL, "no plane group %s", name);
		ck_assert_ptr_nonnull(strstr(get(v, "label"), "16 chips"));
	}
	/* each rack reaches each plane over 4 nodes x 16 links, one edge per
	 * rack and plane; the title carries the label they share */
	ck_assert_int_eq(w.edges, 84);
	for (Agnode_t *v = agfstnode(w.g); v; v = agnxtnode(w.g, v))
		for (Agedge_t *e = agfstout(w.g, v); e; e = agnxtout(w.g, e))
			if (strcmp(get(e, "style"), "invis")) {
				ck_assert_str_eq(get(e, "links"), "64");
				ck_assert_ptr_nonnull(strstr(get(e, "lhead"), "cluster_rack"));
			}
	ck_assert_ptr_nonnull(strstr(get(w.g, "label"), "every drawn edge: 64 x 28 GB/s"));
	ck_assert_ptr_nonnull(strstr(get(w.g, "label"), "(16 per node)"));
	check_totals(&w, &fx.f, "cm384");
	ck_assert_int_eq(w.links, 5376);
	undraw(&w);
	fixture_release(&fx);
}
END_TEST

/* Over every shipped spec, aggregated or whole, the drawn links and the
 * links inside boxes are the fabric's links. */
START_TEST(test_links_add_up)
{
	for (int i = 0; shipped[i]; i++) {
		fixture fx;
		drawing w;
		load_ok(&fx, shipped[i], NULL);
		for (int full = 0; full <= 1; full++) {
			if (full && fx.f.nv > FX_RENDER_MAX_FULL)
				continue;
			fx_render_opts o = {FX_VIEW_PHYSICAL, full, NULL, NULL, NULL};
			draw(&w, &fx, &o, NULL);
			check_totals(&w, &fx.f, shipped[i]);
			if (full)
				ck_assert_int_eq(w.nodes, fx.f.nv);
			undraw(&w);
		}
		fixture_release(&fx);
	}
}
END_TEST

START_TEST(test_lattices)
{
	fixture fx;
	drawing w;
	fx_render_opts o = {FX_VIEW_PHYSICAL, 0, NULL, NULL, NULL};
	/* 8x8x8 in racks of 8x8x1: a ring of 8 racks, 64 z links apart */
	load_ok(&fx, "specs/torus-8x8x8.yaml", NULL);
	draw(&w, &fx, &o, NULL);
	ck_assert_int_eq(count_class(w.g, "lattice-block"), 8);
	ck_assert_int_eq(w.edges, 8);
	ck_assert_int_eq(w.links, 8 * 64);
	ck_assert_ptr_nonnull(agnode(w.g, "rack3", 0));
	ck_assert_str_eq(w.engine, "neato");
	undraw(&w);
	fixture_release(&fx);
	/* a 4x4x4 cube whole: pinned positions, 48 wraparounds */
	load_ok(&fx, "specs/tpu-v4-cube.yaml", NULL);
	draw(&w, &fx, &o, NULL);
	ck_assert_int_eq(count_class(w.g, "device"), 64);
	ck_assert_int_eq(w.edges, 192);
	int64_t dashed = 0, pinned = 0;
	for (Agnode_t *v = agfstnode(w.g); v; v = agnxtnode(w.g, v)) {
		const char *pos = get(v, "pos");
		pinned += *pos && pos[strlen(pos) - 1] == '!';
		for (Agedge_t *e = agfstout(w.g, v); e; e = agnxtout(w.g, e))
			dashed += strcmp(get(e, "style"), "dashed") == 0;
	}
	ck_assert_int_eq(pinned, 64);
	ck_assert_int_eq(dashed, 48);
	ck_assert_ptr_nonnull(agsubg(w.g, "cluster_node0", 0));  /* trays of 4 */
	undraw(&w);
	fixture_release(&fx);
	/* the WSE-2 as 8 x 8 blocks */
	load_ok(&fx, "specs/wse2.yaml", NULL);
	draw(&w, &fx, &o, NULL);
	ck_assert_int_eq(count_class(w.g, "lattice-block"), 64);
	ck_assert_int_eq(w.edges, 2 * 8 * 7);
	undraw(&w);
	fixture_release(&fx);
}
END_TEST

START_TEST(test_detail_full)
{
	fixture fx;
	drawing w;
	char *dot = NULL;
	fx_render_opts o = {FX_VIEW_PHYSICAL, 1, NULL, NULL, NULL};
	load_ok(&fx, "specs/wse2.yaml", NULL);
	ck_assert_int_ne(fx_render_dot(&fx.f, &o, &dot, &fx.d), 0);
	ck_assert_ptr_null(dot);
	ck_assert_int_eq(fx.d.status, FX_EXIT_INPUT);
	fflush(fx.err);
	rewind(fx.err);
	size_t n = fread(fx.msg, 1, sizeof fx.msg - 1, fx.err);
	fx.msg[n] = '\0';
	ck_assert_msg(strstr(fx.msg, "full detail would draw 753,972 vertices"), "%s", fx.msg);
	fixture_release(&fx);
	/* CloudMatrix384 whole: 1,024 vertices in fdp */
	load_ok(&fx, "specs/cm384.yaml", NULL);
	draw(&w, &fx, &o, NULL);
	ck_assert_int_eq(w.nodes, 1024);
	ck_assert_int_eq(w.edges, 9408);
	ck_assert_str_eq(w.engine, "fdp");
	ck_assert_int_eq(count_class(w.g, "switch"), 448);
	undraw(&w);
	fixture_release(&fx);
}
END_TEST

/* Utilisation of an all-to-all (32 MiB direct) over the given ranks. */
static double *loads(const fx_fabric *f, int64_t nranks)
{
	int64_t *ranks = fx_xmalloc((size_t)nranks * sizeof *ranks);
	for (int64_t i = 0; i < nranks; i++)
		ranks[i] = i;
	fx_coll_req q = {"all-to-all", "direct", ranks, nranks, 32.0 * 1024 * 1024, 0};
	fx_coll_time tm = {0, 0, FX_ROUTE_SPLIT};
	fx_coll_result res;
	fx_router *r = fx_router_new(f, 0);
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_coll_run(f, r, &q, &tm, &res, &d), 0);
	double *u = fx_xcalloc((size_t)(2 * f->ne + 1), sizeof *u);
	for (int64_t l = 0; l < 2 * f->ne; l++)
		u[l] = res.time > 0 ? res.link_busy[l] / res.time : 0;
	fx_coll_result_release(&res);
	fx_router_free(r);
	fx_diag_release(&d);
	free(ranks);
	return u;
}

static int reddish(const char *c)
{
	unsigned r, g, b;
	return sscanf(c, "#%2x%2x%2x", &r, &g, &b) == 3 && r > 150 && r > 2 * g && r > 2 * b;
}

START_TEST(test_loads_colours)
{
	fixture fx;
	drawing w;
	load_ok(&fx, "specs/hgx-h100.yaml", NULL);
	double *u = loads(&fx.f, 2);  /* GPUs 0 and 1 only: the other links idle */
	fx_render_opts o = {FX_VIEW_LOADS, 0, NULL, u, NULL};
	fx_render_ext x = {NULL, "all-to-all between GPUs 0 and 1", NULL, NULL};
	draw(&w, &fx, &o, &x);
	double top = -1;
	const char *top_colour = "";
	int64_t idle = 0, busy = 0;
	for (Agnode_t *v = agfstnode(w.g); v; v = agnxtnode(w.g, v))
		for (Agedge_t *e = agfstout(w.g, v); e; e = agnxtout(w.g, e)) {
			if (strcmp(get(e, "style"), "invis") == 0)
				continue;
			double util = atof(get(e, "util"));
			if (util > top) {
				top = util;
				top_colour = get(e, "color");
			}
			if (util == 0) {
				idle++;
				ck_assert_str_eq(get(e, "color"), "#b4b4b4");
				ck_assert_ptr_nonnull(strstr(get(e, "label"), "idle"));
			} else {
				busy++;
				ck_assert_ptr_nonnull(strstr(get(e, "label"), "util "));
			}
		}
	ck_assert_int_eq(busy, 8);   /* two GPUs x four chips */
	ck_assert_int_eq(idle, 24);
	ck_assert(top > 0.9);
	ck_assert_msg(reddish(top_colour), "busiest link drawn %s", top_colour);
	ck_assert_ptr_nonnull(strstr(get(w.g, "label"), "busiest directed link"));
	ck_assert_ptr_nonnull(strstr(get(w.g, "label"), "all-to-all between GPUs 0 and 1"));
	undraw(&w);
	free(u);
	fixture_release(&fx);
}
END_TEST

START_TEST(test_placement_colours)
{
	fixture fx;
	drawing w;
	load_ok(&fx, "specs/hgx-h100.yaml", NULL);
	int64_t inst[8] = {0, 0, 1, 1, 2, 2, 3, -1};
	fx_render_opts o = {FX_VIEW_PLACEMENT, 0, NULL, NULL, inst};
	draw(&w, &fx, &o, NULL);
	char fill[8][16];
	for (int v = 0; v < 8; v++) {
		char name[32];
		snprintf(name, sizeof name, "gpu%d", v);
		Agnode_t *n = agnode(w.g, name, 0);
		ck_assert_ptr_nonnull(n);
		snprintf(fill[v], sizeof fill[v], "%s", get(n, "fillcolor"));
		if (inst[v] >= 0)
			ck_assert_int_eq(atoll(get(n, "instance")), inst[v]);
	}
	ck_assert_str_eq(fill[0], fill[1]);
	ck_assert_str_ne(fill[1], fill[2]);
	ck_assert_str_ne(fill[3], fill[4]);
	ck_assert_str_eq(fill[7], "#ffffff");  /* unplaced */
	undraw(&w);
	fixture_release(&fx);
	/* aggregated: a cell per NPU inside each node box */
	load_ok(&fx, "specs/cm384.yaml", NULL);
	int64_t *all = fx_xmalloc((size_t)fx.f.ndev * sizeof *all);
	for (int64_t v = 0; v < fx.f.ndev; v++)
		all[v] = v / 8;
	fx_render_opts p = {FX_VIEW_PLACEMENT, 0, NULL, NULL, all};
	draw(&w, &fx, &p, NULL);
	Agnode_t *n = agnode(w.g, "node5", 0);
	ck_assert_ptr_nonnull(n);
	ck_assert(aghtmlstr(agget(n, "label")));
	ck_assert_ptr_nonnull(strstr(get(n, "label"), "BGCOLOR"));
	ck_assert_ptr_nonnull(strstr(get(n, "label"), ">5<"));
	undraw(&w);
	free(all);
	fixture_release(&fx);
}
END_TEST

static int svg_ok(const char *path)
{
	char head[512] = "";
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(head, 1, sizeof head - 1, f);
	head[n] = '\0';
	fclose(f);
	return strstr(head, "<svg") != NULL;
}

/* Every shipped spec in every view it has, to SVG through Graphviz. */
START_TEST(test_every_spec_every_view)
{
	static const char *const other[] = {"collectives", "accelerator", "sessions", NULL};
	char dir[] = "/tmp/fx-render-XXXXXX", path[256];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (int i = 0; shipped[i]; i++) {
		fixture fx;
		load_ok(&fx, shipped[i], NULL);
		fx_workload wl;
		ck_assert_int_eq(fx_workload_place_parse(&fx.d, &fx.s, other, &wl), 0);
		for (int view = 0; view < FX_VIEWS; view++) {
			double *u = NULL;
			int64_t *inst = NULL;
			if (view == FX_VIEW_PLACEMENT && !wl.present)
				continue;
			if (view == FX_VIEW_LOADS)
				u = loads(&fx.f, fx.f.ndev);
			if (view == FX_VIEW_PLACEMENT) {
				fx_power_config pc;
				fx_placement pl;
				fx_place_opts po = {.time_limit = 1000};
				ck_assert_int_eq(fx_power_parse(&fx.d, &fx.s, &pc), 0);
				ck_assert_int_eq(fx_place(&fx.f, &wl, &pc, &po, &pl, &fx.d), 0);
				inst = fx_xmalloc((size_t)fx.f.ndev * sizeof *inst);
				for (int64_t v = 0; v < fx.f.ndev; v++)
					inst[v] = -1;
				for (int64_t k = 0; k < pl.ninst; k++)
					for (int64_t j = 0; j < fx_workload_devices(&wl); j++)
						inst[pl.inst[k].devices[j]] = k;
				fx_placement_release(&pl);
			}
			fx_render_opts o = {(fx_view)view, 0, NULL, u, inst};
			fx_render_info info;
			fx_render_ext x = {NULL, NULL, NULL, &info};
			snprintf(path, sizeof path, "%s/%d-%s.svg", dir, i, fx_view_name((fx_view)view));
			int rc = fx_render_file_ext(&fx.f, &o, &x, "svg", path, &fx.d);
			fflush(fx.err);
			ck_assert_msg(rc == 0 && fx.d.nerr == 0, "%s %s failed", shipped[i],
				      fx_view_name((fx_view)view));
			ck_assert_msg(svg_ok(path), "%s: no SVG in %s", shipped[i], path);
			ck_assert(info.vertices > 0 && info.vertices <= 200);  /* readable sizes */
			unlink(path);
			free(u);
			free(inst);
		}
		fixture_release(&fx);
	}
	rmdir(dir);
}
END_TEST

START_TEST(test_errors)
{
	fixture fx;
	load_ok(&fx, "specs/dgx1.yaml", NULL);
	fx_render_opts o = {FX_VIEW_PHYSICAL, 0, NULL, NULL, NULL};
	ck_assert_int_ne(fx_render_file(&fx.f, &o, "gif", "/tmp/x.gif", &fx.d), 0);
	ck_assert_int_eq(fx.d.status, FX_EXIT_INPUT);
	ck_assert_int_ne(fx_render_file(&fx.f, &o, "svg", "/nonexistent/dir/x.svg", &fx.d), 0);
	fx_render_opts l = {FX_VIEW_LOADS, 0, NULL, NULL, NULL};  /* no utilisation */
	char *dot = NULL;
	ck_assert_int_ne(fx_render_dot(&fx.f, &l, &dot, &fx.d), 0);
	ck_assert_ptr_null(dot);
	/* an unknown layout engine is Graphviz's error, reported, and no file is left */
	char dir[] = "/tmp/fx-render-XXXXXX", path[128];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/x.svg", dir);
	fx_render_ext x = {NULL, NULL, "nosuchengine", NULL};
	ck_assert_int_ne(fx_render_file_ext(&fx.f, &o, &x, "svg", path, &fx.d), 0);
	ck_assert_int_ne(access(path, F_OK), 0);
	fflush(fx.err);
	rewind(fx.err);
	size_t n = fread(fx.msg, 1, sizeof fx.msg - 1, fx.err);
	fx.msg[n] = '\0';
	ck_assert_msg(strstr(fx.msg, "Graphviz layout") && strstr(fx.msg, "nosuchengine"), "%s", fx.msg);
	rmdir(dir);
	fixture_release(&fx);
}
END_TEST

Suite *suite_render(void)
{
	Suite *s = suite_create("render");
	TCase *tc = tcase_create("dot");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_hgx_full);
	tcase_add_test(tc, test_cm384_aggregated);
	tcase_add_test(tc, test_links_add_up);
	tcase_add_test(tc, test_lattices);
	tcase_add_test(tc, test_detail_full);
	tcase_add_test(tc, test_loads_colours);
	tcase_add_test(tc, test_placement_colours);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("files");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_every_spec_every_view);
	suite_add_tcase(s, tc);
	return s;
}
