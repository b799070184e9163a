/* Diagrams: the DOT parses back with cgraph, its clusters, boxes and link
 * counts match the fabric, every shipped spec renders in every view, and
 * the loads and placement views colour what they should. */
#include <cgraph.h>
#include <gvc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/xalloc.h"
#include "../../placement/placement.h"
#include "../../render/render.h"
#include "../../render/render_internal.h"
#include "../../routing/routing.h"
#include "helpers.h"

static const char *const shipped[] = {
	"specs/cm384.yaml", "specs/dgx-h100-256.yaml", "specs/dgx1.yaml", "specs/fat-tree-k8.yaml",
	"specs/hgx-h100.yaml", "specs/nvl72.yaml", "specs/switched-64.yaml",
	"specs/torus-8x8x8.yaml", "specs/tpu-v4-cube.yaml", "specs/wse2.yaml",
	"specs/hgx-h100-x2.yaml", "specs/hgx-h100-x8.yaml", NULL,
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
	/* GPU links to the 4 chips are 5/4/4/5: 16 bundles of each, their
	 * labels one line per switch in the legend (32 in one band do not read) */
	int64_t five = 0, four = 0;
	for (Agnode_t *v = agfstnode(w.g); v; v = agnxtnode(w.g, v))
		for (Agedge_t *e = agfstout(w.g, v); e; e = agnxtout(w.g, e)) {
			five += strcmp(get(e, "links"), "5") == 0;
			four += strcmp(get(e, "links"), "4") == 0;
		}
	ck_assert_int_eq(five, 16);
	ck_assert_int_eq(four, 16);
	ck_assert_ptr_nonnull(strstr(get(w.g, "label"), "nvswitch.0: 5 x 25 GB/s each"));
	ck_assert_ptr_nonnull(strstr(get(w.g, "label"), "nvswitch.1: 4 x 25 GB/s each"));
	/* tiers: switches one rank, GPUs the next; the rack and node that hold
	 * everything are not drawn (dot would not keep the GPUs in order) */
	ck_assert_ptr_null(agsubg(w.g, "cluster_rack0", 0));
	Agraph_t *r0 = agsubg(w.g, "rank0_0", 0), *r1 = agsubg(w.g, "rank1_0", 0);
	ck_assert(r0 && r1);
	ck_assert_str_eq(get(r0, "rank"), "same");
	ck_assert_int_eq(agnnodes(r0), 4);
	ck_assert_int_eq(agnnodes(r1), 8);
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
	fx_render_ext x = {.info = &info};
	draw(&w, &fx, &o, &x);
	ck_assert(info.aggregated);
	/* 48 node boxes (NPUs and CPUs), 4 in each of 12 rack clusters, all in
	 * one area; the L1 chips out of them in plane columns */
	ck_assert_int_eq(count_class(w.g, "node"), 48);
	Agraph_t *area = agsubg(w.g, "cluster_bottom", 0);
	ck_assert_ptr_nonnull(area);
	ck_assert_str_eq(get(area, "label"), "racks 0–11");
	for (int r = 0; r < 12; r++) {
		snprintf(name, sizeof name, "cluster_rack%d", r);
		Agraph_t *rack = agsubg(area, name, 0);
		ck_assert_msg(rack != NULL, "no %s", name);
		ck_assert_int_eq(agnnodes(rack), 4);
		for (int k = 0; k < 4; k++) {
			snprintf(name, sizeof name, "node%d", 4 * r + k);
			Agnode_t *v = agnode(rack, name, 0);
			ck_assert_msg(v != NULL, "%s not in rack %d", name, r);
			ck_assert_ptr_nonnull(strstr(get(v, "label"), "8 NPUs · 4 CPUs"));
			ck_assert_ptr_null(strstr(get(v, "label"), "L1"));
		}
	}
	/* 7 plane columns: plane p's 16 L2 chips over its 48 L1 chips (one a
	 * node), in a cluster of their own */
	ck_assert_int_eq(count_class(w.g, "switch-group"), 14);
	for (int p = 0; p < 7; p++) {
		snprintf(name, sizeof name, "cluster_plane%d", p);
		Agraph_t *col = agsubg(w.g, name, 0);
		ck_assert_msg(col != NULL, "no %s", name);
		snprintf(name, sizeof name, "L2.p%d", p);
		Agnode_t *v = agnode(col, name, 0);
		ck_assert_msg(v != NULL, "no plane group %s in its column", name);
		ck_assert_ptr_nonnull(strstr(get(v, "label"), "16 chips"));
		snprintf(name, sizeof name, "L1.p%d", p);
		v = agnode(col, name, 0);
		ck_assert_msg(v != NULL, "no plane group %s in its column", name);
		ck_assert_ptr_nonnull(strstr(get(v, "label"), "48 chips"));
	}
	/* each plane's L2s reach its L1s alone, 48 x 16 x 1 = 768 links; its
	 * L1s reach the 48 nodes over 20 links each (8 NPUs x 2 + 4 CPUs x 1):
	 * one edge per plane into the racks' area */
	ck_assert_int_eq(w.edges, 14);
	for (Agnode_t *v = agfstnode(w.g); v; v = agnxtnode(w.g, v))
		for (Agedge_t *e = agfstout(w.g, v); e; e = agnxtout(w.g, e))
			if (strcmp(get(e, "style"), "invis")) {
				const char *t = agnameof(agtail(e)), *h = agnameof(aghead(e));
				int area = get(e, "lhead")[0] != '\0';
				ck_assert_str_eq(get(e, "links"), area ? "960" : "768");
				if (area)
					ck_assert_str_eq(get(e, "lhead"), "cluster_bottom");
				else  /* L2.pP -- L1.pP */
					ck_assert_msg(strcmp(t + 2, h + 2) == 0, "%s -- %s", t, h);
			}
	int per_node = 0;
	for (Agnode_t *v = agfstnode(w.g); v; v = agnxtnode(w.g, v))
		for (Agedge_t *e = agfstout(w.g, v); e; e = agnxtout(w.g, e))
			per_node += strstr(get(e, "label"), "(20 per node)") != NULL;
	ck_assert_int_eq(per_node, 7);
	check_totals(&w, &fx.f, "cm384");
	ck_assert_int_eq(w.links, 12096);
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
			if (full)  /* (wraparound stubs end in points) */
				ck_assert_int_eq(w.nodes - count_class(w.g, "wrap-end"), fx.f.nv);
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
	/* a 4x4x4 cube whole: pinned positions, 48 wraparounds, each drawn as
	 * two dashed stubs pointing out of the grid (never across it) */
	load_ok(&fx, "specs/tpu-v4-cube.yaml", NULL);
	draw(&w, &fx, &o, NULL);
	ck_assert_int_eq(count_class(w.g, "device"), 64);
	ck_assert_int_eq(count_class(w.g, "wrap-end"), 96);
	ck_assert_int_eq(w.edges, 144 + 2 * 48);
	ck_assert_int_eq(w.links, 192);
	ck_assert_ptr_nonnull(strstr(get(w.g, "label"), "dashed stubs: a wraparound"));
	int64_t dashed = 0, pinned = 0;
	for (Agnode_t *v = agfstnode(w.g); v; v = agnxtnode(w.g, v)) {
		const char *pos = get(v, "pos");
		pinned += *pos && pos[strlen(pos) - 1] == '!';
		for (Agedge_t *e = agfstout(w.g, v); e; e = agnxtout(w.g, e))
			dashed += strcmp(get(e, "style"), "dashed") == 0;
	}
	ck_assert_int_eq(pinned, 64 + 96);
	ck_assert_int_eq(dashed, 96);
	ck_assert_ptr_nonnull(agsubg(w.g, "cluster_node0", 0));  /* trays of 4 */
	undraw(&w);
	fixture_release(&fx);
	/* the WSE-2 as its 7 x 12 dies in the wafer's outline: 6 x 12 edges
	 * across x, 7 x 11 across y */
	load_ok(&fx, "specs/wse2.yaml", NULL);
	draw(&w, &fx, &o, NULL);
	ck_assert_int_eq(count_class(w.g, "lattice-block"), 84);
	ck_assert_int_eq(w.edges, 6 * 12 + 7 * 11);
	ck_assert_ptr_nonnull(agsubg(w.g, "cluster_wafer", 0));
	undraw(&w);
	fixture_release(&fx);
	/* more dies than the grid has PEs along x: 8 x 8 blocks, no outline */
	const char *wide[] = {"fabric.dies=[758,12]", NULL};
	load_ok(&fx, "specs/wse2.yaml", wide);
	draw(&w, &fx, &o, NULL);
	ck_assert_int_eq(count_class(w.g, "lattice-block"), 64);
	ck_assert_int_eq(w.edges, 2 * 8 * 7);
	ck_assert_ptr_null(agsubg(w.g, "cluster_wafer", 0));
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
	fixture_messages(&fx);
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
	double *u = a2a_util(&fx.f, 2);  /* GPUs 0 and 1 only: the other links idle */
	fx_render_opts o = {FX_VIEW_LOADS, 0, NULL, u, NULL};
	fx_render_ext x = {.loads_caption = "all-to-all between GPUs 0 and 1"};
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
				ck_assert_str_eq(get(e, "style"), "dotted");  /* visibly idle */
			} else {
				busy++;
				ck_assert_ptr_nonnull(strstr(get(e, "tooltip"), "busy"));
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

/* ---- layout: tiers, order and size, as Graphviz lays them out ---- */

/* A laid-out box: Graphviz's "plain" output (inches, y up). */
typedef struct placed {
	char name[32];
	double x, y;
} placed;

/* Lays spec's physical view out as fabricx does and reads the positions. */
static placed *lay_out(fixture *fx, int64_t *n)
{
	char dir[] = "/tmp/fx-render-XXXXXX", path[128], line[512];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/x.plain", dir);
	fx_render_opts o = {FX_VIEW_PHYSICAL, 0, NULL, NULL, NULL};
	ck_assert_int_eq(fx_render_file(&fx->f, &o, "plain", path, &fx->d), 0);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	placed *p = NULL;
	size_t cap = 0;
	*n = 0;
	while (fgets(line, sizeof line, f)) {
		placed q;
		if (sscanf(line, "node %31s %lf %lf", q.name, &q.x, &q.y) != 3)
			continue;
		if (q.name[0] == '"')  /* quoted names: node names here have no spaces */
			memmove(q.name, q.name + 1, strlen(q.name)), q.name[strlen(q.name) - 1] = '\0';
		p = fx_xgrow(p, &cap, (size_t)*n + 1, sizeof *p);
		p[(*n)++] = q;
	}
	fclose(f);
	unlink(path);
	rmdir(dir);
	return p;
}

static const placed *find_placed(const placed *p, int64_t n, const char *name)
{
	for (int64_t i = 0; i < n; i++)
		if (strcmp(p[i].name, name) == 0)
			return &p[i];
	return NULL;
}

/* Collects the boxes of each tier level (subgraphs rankL_*) of the DOT. */
static void level_boxes(Agraph_t *g, const placed *p, int64_t n, double *ymin, double *ymax, int nmax)
{
	for (Agraph_t *s = agfstsubg(g); s; s = agnxtsubg(s)) {
		int l;
		if (sscanf(agnameof(s), "rank%d_", &l) == 1 && l >= 0 && l < nmax)
			for (Agnode_t *v = agfstnode(s); v; v = agnxtnode(s, v)) {
				const placed *q = find_placed(p, n, agnameof(v));
				ck_assert_msg(q != NULL, "%s not laid out", agnameof(v));
				ymin[l] = fmin(ymin[l], q->y);
				ymax[l] = fmax(ymax[l], q->y);
			}
		level_boxes(s, p, n, ymin, ymax, nmax);
	}
}

/* Checks spec's physical view as laid out: each tier level of the DOT is
 * one rank, level 0 on top; the boxes prefix0 .. prefix<n-1> (GPUs, nodes,
 * racks) read in order, left to right and row by row, below every switch. */
static void check_order(const char *spec, const char *prefix, int64_t nbox)
{
	fixture fx;
	drawing w;
	char name[32];
	int64_t n;
	load_ok(&fx, spec, NULL);
	placed *p = lay_out(&fx, &n);
	fx_render_opts o = {FX_VIEW_PHYSICAL, 0, NULL, NULL, NULL};
	draw(&w, &fx, &o, NULL);
	ck_assert_str_eq(w.engine, "dot");
	double ymin[16], ymax[16], low_switch = 1e18;
	for (int l = 0; l < 16; l++) {
		ymin[l] = 1e18;
		ymax[l] = -1e18;
	}
	level_boxes(w.g, p, n, ymin, ymax, 16);
	int levels = 0;
	for (int l = 0; l < 16 && ymax[l] > -1e18; l++, levels++) {
		ck_assert_msg(ymax[l] - ymin[l] < 0.01, "%s: level %d not one rank", spec, l);
		if (l > 0)
			ck_assert_msg(ymin[l] < ymin[l - 1], "%s: level %d not below level %d", spec, l, l - 1);
	}
	ck_assert_msg(levels >= 2, "%s: %d tier levels", spec, levels);
	for (Agnode_t *v = agfstnode(w.g); v; v = agnxtnode(w.g, v))
		if (strncmp(get(v, "class"), "switch", 6) == 0)
			low_switch = fmin(low_switch, find_placed(p, n, agnameof(v))->y);
	double px = 0, py = 0;
	for (int64_t i = 0; i < nbox; i++) {
		snprintf(name, sizeof name, "%s%lld", prefix, (long long)i);
		const placed *q = find_placed(p, n, name);
		ck_assert_msg(q != NULL, "%s: no %s", spec, name);
		ck_assert_msg(q->y < low_switch, "%s: %s not below the switches", spec, name);
		ck_assert_msg(i == 0 || (fabs(q->y - py) < 0.01 && q->x > px) || q->y < py - 0.01,
			      "%s: %s at (%.2f, %.2f) out of order after (%.2f, %.2f)", spec, name, q->x,
			      q->y, px, py);
		px = q->x;
		py = q->y;
	}
	undraw(&w);
	free(p);
	fixture_release(&fx);
}

START_TEST(test_tiers_in_order)
{
	check_order("specs/hgx-h100.yaml", "gpu", 8);
	check_order("specs/nvl72.yaml", "node", 18);
	check_order("specs/cm384.yaml", "node", 48);
	check_order("specs/dgx-h100-256.yaml", "node", 32);
	check_order("specs/fat-tree-k8.yaml", "pod", 8);
	check_order("tests/specs/leaf-spine-512.yaml", "rack", 16);
	check_order("tests/specs/fat-tree-1024.yaml", "pod", 16);  /* 2 racks a pod */
}
END_TEST

/* The busiest figure of a class's row of the loads chart: the text cell
 * after its bar (a drawn cell). */
static double chart_busiest(const char *row)
{
	const char *bar = strstr(row, "FIXEDSIZE");
	ck_assert_ptr_nonnull(bar);
	const char *cell = strstr(bar, "<TD ALIGN=\"LEFT\">");
	ck_assert_ptr_nonnull(cell);
	return atof(cell + strlen("<TD ALIGN=\"LEFT\">"));
}

/* A 2:1 tapered leaf-spine under all-to-all: the uplinks are the busiest
 * class, drawn at the top of the scale; the host links inside the racks
 * about half as busy, not red. */
START_TEST(test_loads_taper)
{
	fixture fx;
	drawing w;
	load_ok(&fx, "tests/specs/leaf-spine-512.yaml", NULL);
	double *u = a2a_util(&fx.f, fx.f.ndev);
	fx_render_opts o = {FX_VIEW_LOADS, 0, NULL, u, NULL};
	draw(&w, &fx, &o, NULL);
	double umax = atof(get(w.g, "util_max"));
	ck_assert(umax > 0.5);
	int64_t up = 0, racks = 0;
	for (Agnode_t *v = agfstnode(w.g); v; v = agnxtnode(w.g, v)) {
		if (strcmp(get(v, "class"), "rack") == 0) {
			racks++;
			ck_assert(atof(get(v, "inner_util")) < 0.7 * umax);
			ck_assert(!reddish(get(v, "color")));
		}
		for (Agedge_t *e = agfstout(w.g, v); e; e = agnxtout(w.g, e)) {
			if (strcmp(get(e, "style"), "invis") == 0)
				continue;
			ck_assert_ptr_nonnull(strstr(get(agtail(e), "label"), "spine"));
			ck_assert(fabs(atof(get(e, "util")) - umax) < 1e-3);
			ck_assert_msg(reddish(get(e, "color")), "uplinks drawn %s", get(e, "color"));
			up++;
		}
	}
	ck_assert_int_eq(racks, 16);
	ck_assert_int_eq(up, 1);
	const char *label = get(w.g, "label");
	ck_assert_ptr_nonnull(strstr(label, "relative to the busiest of all"));
	const char *ls = strstr(label, "leaf–spine"), *dl = strstr(label, "device–leaf");
	ck_assert(ls && dl);
	ck_assert(chart_busiest(ls) > 1.5 * chart_busiest(dl));
	undraw(&w);
	free(u);
	fixture_release(&fx);
	/* a lattice's classes are its dimensions */
	load_ok(&fx, "specs/tpu-v4-cube.yaml", NULL);
	u = a2a_util(&fx.f, fx.f.ndev);
	fx_render_opts t = {FX_VIEW_LOADS, 0, NULL, u, NULL};
	draw(&w, &fx, &t, NULL);
	label = get(w.g, "label");
	ck_assert(strstr(label, "x links") && strstr(label, "y links") && strstr(label, "z links"));
	undraw(&w);
	free(u);
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

/* Every shipped spec (and two 512- and 1,024-device builds) in every view
 * it has, through Graphviz: the SVG is one, and the PNG (96 dpi) is within
 * 2,400 px on its long side and 3:1, as fx_render_info says. */
START_TEST(test_every_spec_every_view)
{
	static const char *const other[] = {"collectives", "accelerator", "sessions", "inventory",
					    "layout", "serve", NULL};
	const char *specs[16];
	int n = 0, nshipped;
	while (shipped[n])
		specs[n] = shipped[n], n++;
	nshipped = n;
	specs[n++] = "tests/specs/leaf-spine-512.yaml";
	specs[n++] = "tests/specs/fat-tree-1024.yaml";
	char dir[] = "/tmp/fx-render-XXXXXX", path[256];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (int i = 0; i < n; i++) {
		const char *spec = specs[i];
		fixture fx;
		load_ok(&fx, spec, NULL);
		fx_workload wl;
		ck_assert_int_eq(fx_workload_place_parse(&fx.d, &fx.s, other, &wl), 0);
		for (int view = 0; view < FX_VIEWS; view++) {
			double *u = NULL;
			int64_t *inst = NULL;
			if (view == FX_VIEW_PLACEMENT && (!wl.present || i >= nshipped))
				continue;
			if (view == FX_VIEW_FLOOR || view == FX_VIEW_RACKS)  /* the bill's racks: fx_render_floor,
									       * fx_render_racks (tests/cli) */
				continue;
			if (view == FX_VIEW_LOADS)
				u = a2a_util(&fx.f, fx.f.ndev);
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
			fx_render_ext x = {.info = &info};
			const char *vn = fx_view_name((fx_view)view);
			snprintf(path, sizeof path, "%s/%d-%s.svg", dir, i, vn);
			int rc = fx_render_file_ext(&fx.f, &o, &x, "svg", path, &fx.d);
			fflush(fx.err);
			ck_assert_msg(rc == 0 && fx.d.nerr == 0, "%s %s failed", spec, vn);
			ck_assert_msg(svg_ok(path), "%s: no SVG in %s", spec, path);
			ck_assert(info.vertices > 0 && info.vertices <= 200);  /* readable sizes */
			unlink(path);
			snprintf(path, sizeof path, "%s/%d-%s.png", dir, i, vn);
			ck_assert_int_eq(fx_render_file_ext(&fx.f, &o, &x, "png", path, &fx.d), 0);
			int64_t w = 0, h = 0;
			ck_assert_msg(png_size(path, &w, &h) == 0, "%s: no PNG", spec);
			ck_assert_msg(w <= 2400 && h <= 2400 && w <= 3 * h && h <= 3 * w,
				      "%s %s: %lld x %lld px", spec, vn, (long long)w, (long long)h);
			ck_assert_msg(llabs(w - info.width_px) <= 2 && llabs(h - info.height_px) <= 2,
				      "%s %s: %lld x %lld px, said %lld x %lld", spec, vn, (long long)w,
				      (long long)h, (long long)info.width_px, (long long)info.height_px);
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
	fx_render_ext x = {.engine = "nosuchengine"};
	ck_assert_int_ne(fx_render_file_ext(&fx.f, &o, &x, "svg", path, &fx.d), 0);
	ck_assert_int_ne(access(path, F_OK), 0);
	fixture_messages(&fx);
	ck_assert_msg(strstr(fx.msg, "Graphviz layout") && strstr(fx.msg, "nosuchengine"), "%s", fx.msg);
	rmdir(dir);
	fixture_release(&fx);
}
END_TEST

/* ---- pinned lattices: straight edges are what the router drew ---- */

/* The edge lines of g laid out by neato under splines (Graphviz's
 * "plain": "edge tail head n x1 y1 .. xn yn [label xl yl] style color"). */
static char *plain_edges(Agraph_t *g, const char *splines)
{
	GVC_t *gvc = rd_gv_context();
	ck_assert_ptr_nonnull(gvc);
	agsafeset(g, "splines", (char *)splines, "");
	ck_assert_int_eq(gvLayout(gvc, g, "neato"), 0);
	char *data = NULL;
	unsigned int len = 0;
	ck_assert_int_eq(gvRenderData(gvc, g, "plain", &data, &len), 0);
	char *s = fx_xmalloc(len + 1), *o = s;
	for (char *p = data, *end = data + len; p < end;) {  /* keep the edge lines */
		char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p + 1) : (size_t)(end - p);
		if (n > 5 && strncmp(p, "edge ", 5) == 0) {
			memcpy(o, p, n);
			o += n;
		}
		p += n;
	}
	*o = '\0';
	gvFreeRenderData(data);
	gvFreeLayout(gvc, g);
	return s;
}

/* Compares two plain edge lists word by word: names and styles exactly,
 * numbers within tol inches (the label positions are rounded apart:
 * "plain" prints 3 decimals, so two roundings differ by up to 0.001, a
 * hair more once read back as doubles). */
static void same_edges(const char *a, const char *b, double tol)
{
	char *x = fx_xstrdup(a), *y = fx_xstrdup(b), *sx, *sy;
	int64_t words = 0;
	for (char *p = strtok_r(x, " \n", &sx), *q = strtok_r(y, " \n", &sy); p || q;
	     p = strtok_r(NULL, " \n", &sx), q = strtok_r(NULL, " \n", &sy), words++) {
		ck_assert_msg(p && q, "one layout has more words (%lld)", (long long)words);
		char *ep, *eq;
		double u = strtod(p, &ep), v = strtod(q, &eq);
		if (*ep == '\0' && *eq == '\0' && ep != p && eq != q)
			ck_assert_msg(fabs(u - v) <= tol, "word %lld: %s vs %s", (long long)words, p, q);
		else
			ck_assert_str_eq(p, q);
	}
	ck_assert_int_gt(words, 0);
	free(x);
	free(y);
}

START_TEST(test_pinned_straight)
{
	static const struct {
		const char *spec, *set, *splines;
	} cases[] = {
		{"specs/wse2.yaml", NULL, "false"},                          /* 7 x 12 dies */
		{"specs/wse2.yaml", "fabric.dies=[758,12]", "false"},        /* 8 x 8 blocks */
		{"specs/wse2.yaml", "fabric.grid=[40,24]", "false"},
		{"specs/torus-8x8x8.yaml", NULL, "false"},                   /* a ring of racks */
		{"specs/torus-8x8x8.yaml", "fabric.dims=[12]", "false"},     /* a ring, whole */
		/* wrap stubs (not compared: their points touch the boxes, and
		 * neato falls back to straight lines under splines=true too) */
		{"specs/tpu-v4-cube.yaml", NULL, "false"},
		/* 40 x 40 in 8 x 8 blocks: wraparounds jump the grid, the
		 * router takes them round the boxes between */
		{"specs/torus-8x8x8.yaml", "fabric.dims=[40,40]", "true"},
	};
	fx_render_opts o = {FX_VIEW_PHYSICAL, 0, NULL, NULL, NULL};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fixture fx;
		const char *sets[] = {cases[i].set, NULL};
		load_ok(&fx, cases[i].spec, cases[i].set ? sets : NULL);
		char *dot = NULL;
		ck_assert_int_eq(fx_render_dot(&fx.f, &o, &dot, &fx.d), 0);
		Agraph_t *g = agmemread(dot);
		ck_assert_ptr_nonnull(g);
		ck_assert_msg(strcmp(get(g, "splines"), cases[i].splines) == 0, "%s %s: splines=%s",
			      cases[i].spec, cases[i].set ? cases[i].set : "", get(g, "splines"));
		if (strcmp(cases[i].splines, "false") == 0 && !strstr(cases[i].spec, "tpu")) {
			char *fast = plain_edges(g, "false"), *routed = plain_edges(g, "true");
			same_edges(fast, routed, 1.5e-3);
			free(fast);
			free(routed);
		}
		agclose(g);
		free(dot);
		fixture_release(&fx);
	}
}
END_TEST

START_TEST(test_format_known)
{
	static const char *const yes[] = {"svg", "png", "pdf", "dot", "plain"};
	static const char *const no[] = {"SVG", "jpg", "", "svg ", "gif"};
	for (size_t i = 0; i < 5; i++) {
		ck_assert(fx_render_format_known(yes[i]));
		ck_assert(!fx_render_format_known(no[i]));
	}
	ck_assert(!fx_render_format_known(NULL));
	/* the page checks against the same list */
	fixture fx;
	load_ok(&fx, "specs/dgx1.yaml", NULL);
	fx_render_panel p = {.f = &fx.f, .o = {FX_VIEW_PHYSICAL, 0, NULL, NULL, NULL}};
	ck_assert_int_ne(fx_render_page(&p, 1, NULL, "jpg", "/nonexistent/x.jpg", NULL, &fx.d), 0);
	fixture_messages(&fx);
	ck_assert_msg(strstr(fx.msg, "unknown format 'jpg'"), "%s", fx.msg);
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
	tcase_add_test(tc, test_format_known);
	suite_add_tcase(s, tc);
	tc = tcase_create("files");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_every_spec_every_view);
	tcase_add_test(tc, test_tiers_in_order);
	tcase_add_test(tc, test_loads_taper);
	tcase_add_test(tc, test_pinned_straight);
	suite_add_tcase(s, tc);
	return s;
}
