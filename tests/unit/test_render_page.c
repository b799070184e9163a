/* Pictures side by side (fx_render_page): both panels and one legend, one
 * loads scale across panels, failed elements marked in the after panel
 * only, the same bytes twice, and PNGs within the default bounds. */
#include <cgraph.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../core/xalloc.h"
#include "../../render/render.h"
#include "../../routing/routing.h"
#include "helpers.h"

static double max_of(const double *u, int64_t n)
{
	double m = 0;
	for (int64_t i = 0; i < n; i++)
		m = fmax(m, u[i]);
	return m;
}

static const char *get(void *obj, const char *key)
{
	const char *v = agget(obj, (char *)key);
	return v ? v : "";
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = fx_xmalloc((size_t)n + 1);
	ck_assert_int_eq(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return s;
}

/* Per panel of a parsed page: its subgraph, its busiest drawn edge and
 * that edge's width, and the busiest link inside a box (a pod's). */
typedef struct panel_seen {
	Agraph_t *sg;
	double util_max, top_util, top_width, top_inner;
	int64_t failed_nodes, failed_edges;
} panel_seen;

static void look(Agraph_t *page, const char *name, panel_seen *p)
{
	memset(p, 0, sizeof *p);
	p->sg = agsubg(page, (char *)name, 0);
	ck_assert_msg(p->sg != NULL, "no %s", name);
	p->util_max = atof(get(p->sg, "util_max"));
	for (Agnode_t *v = agfstnode(p->sg); v; v = agnxtnode(p->sg, v)) {
		p->failed_nodes += get(v, "failed")[0] != '\0';
		p->top_inner = fmax(p->top_inner, atof(get(v, "inner_util")));
		for (Agedge_t *e = agfstout(p->sg, v); e; e = agnxtout(p->sg, e)) {
			p->failed_edges += get(e, "failed")[0] != '\0';
			double u = atof(get(e, "util"));
			if (u > p->top_util) {
				p->top_util = u;
				p->top_width = atof(get(e, "penwidth"));
			}
		}
	}
}

START_TEST(test_page_two_builds)
{
	fixture a, b;
	load_ok(&a, "tests/specs/leaf-spine-512.yaml", NULL);  /* 2:1 taper: busy uplinks */
	load_ok(&b, "specs/fat-tree-k8.yaml", NULL);            /* full bisection */
	double *ua = a2a_util(&a.f, a.f.ndev), *ub = a2a_util(&b.f, b.f.ndev);
	double ma = max_of(ua, 2 * a.f.ne), mb = max_of(ub, 2 * b.f.ne);
	fx_render_panel p[2] = {
		{&a.f, {FX_VIEW_LOADS, 0, "taper", ua, NULL}, {0}},
		{&b.f, {FX_VIEW_LOADS, 0, "full", ub, NULL}, {0}},
	};
	char dir[] = "/tmp/fx-page-XXXXXX", path[128];
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/page.dot", dir);
	fx_render_info info;
	ck_assert_int_eq(fx_render_page(p, 2, "two builds", "dot", path, &info, &a.d), 0);
	size_t len;
	char *text = slurp(path, &len);
	Agraph_t *g = agmemread(text);
	ck_assert_ptr_nonnull(g);
	ck_assert_str_eq(get(g, "layout"), "nop2");
	/* both panels, captioned, and one legend */
	panel_seen s[2];
	look(g, "cluster_panel1", &s[0]);
	look(g, "cluster_panel2", &s[1]);
	ck_assert_ptr_nonnull(strstr(get(s[0].sg, "label"), "taper"));
	ck_assert_ptr_nonnull(strstr(get(s[1].sg, "label"), "full"));
	ck_assert_ptr_null(strstr(get(s[0].sg, "label"), "colour and width"));
	ck_assert_ptr_null(agsubg(g, "cluster_panel3", 0));
	int legends = 0;
	for (Agnode_t *v = agfstnode(g); v; v = agnxtnode(g, v))
		legends += strstr(get(v, "label"), "colour and width") != NULL;
	ck_assert_int_eq(legends, 1);
	ck_assert_ptr_nonnull(agnode(g, "legend", 0));
	/* one scale: both panels' 100% is the busiest link of both */
	double top = fmax(ma, mb);
	ck_assert(fabs(s[0].util_max - top) < 1e-3 && fabs(s[1].util_max - top) < 1e-3);
	/* each panel's busiest link is drawn: on an edge or inside a box
	 * (fat-tree-k8's pods hold their leaf and aggregation links) */
	ck_assert(fabs(fmax(s[0].top_util, s[0].top_inner) - ma) < 1e-3 &&
		  fabs(fmax(s[1].top_util, s[1].top_inner) - mb) < 1e-3);
	/* widths too: 1 + 5 u / top in both (panels of at most 24 edges), so
	 * the less busy build's busiest edge is drawn thinner */
	for (int i = 0; i < 2; i++)
		ck_assert_msg(fabs((s[i].top_width - 1) / 5 - s[i].top_util / top) < 0.01,
			      "panel %d: width %g for %g of %g", i + 1, s[i].top_width, s[i].top_util, top);
	ck_assert_int_eq(s[0].failed_nodes + s[1].failed_nodes, 0);
	agclose(g);
	free(text);
	/* the same bytes twice, and a PNG within 2,400 px and 3:1 */
	snprintf(path, sizeof path, "%s/page.svg", dir);
	ck_assert_int_eq(fx_render_page(p, 2, "two builds", "svg", path, NULL, &a.d), 0);
	char *one = slurp(path, &len);
	size_t len2;
	ck_assert_int_eq(fx_render_page(p, 2, "two builds", "svg", path, NULL, &a.d), 0);
	char *two = slurp(path, &len2);
	free(one);
	free(two);
	snprintf(path, sizeof path, "%s/page.png", dir);
	ck_assert_int_eq(fx_render_page(p, 2, "two builds", "png", path, &info, &a.d), 0);
	int64_t w, h;
	ck_assert_int_eq(png_size(path, &w, &h), 0);
	ck_assert_msg(w <= 2450 && h <= 2450, "page %lld x %lld px", (long long)w, (long long)h);
	ck_assert_msg(fmax(w, h) <= 3 * fmin(w, h), "page %lld x %lld px", (long long)w, (long long)h);
	ck_assert(labs((long)(w - info.width_px)) <= 2 && labs((long)(h - info.height_px)) <= 2);
	unlink(path);
	snprintf(path, sizeof path, "%s/page.svg", dir);
	unlink(path);
	snprintf(path, sizeof path, "%s/page.dot", dir);
	unlink(path);
	rmdir(dir);
	free(ua);
	free(ub);
	fixture_release(&a);
	fixture_release(&b);
}
END_TEST

/* Before and after a failure: the after panel marks the failed vertices
 * and their links, the before panel nothing. */
START_TEST(test_page_failure)
{
	fixture a;
	load_ok(&a, "specs/cm384.yaml", NULL);
	uint8_t *dead = fx_xcalloc((size_t)a.f.nv + 1, 1);
	ck_assert_int_eq(fx_fabric_select(&a.f, "plane=0", "--fail", dead, &a.d), 0);
	fx_render_panel p[2] = {
		{&a.f, {FX_VIEW_PHYSICAL, 0, "before", NULL, NULL}, {0}},
		{&a.f, {FX_VIEW_PHYSICAL, 0, "after", NULL, NULL}, {.failed = dead}},
	};
	char path[] = "/tmp/fx-page-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(fx_render_page(p, 2, NULL, "dot", path, NULL, &a.d), 0);
	size_t len;
	char *text = slurp(path, &len);
	Agraph_t *g = agmemread(text);
	ck_assert_ptr_nonnull(g);
	panel_seen s[2];
	look(g, "cluster_panel1", &s[0]);
	look(g, "cluster_panel2", &s[1]);
	ck_assert_int_eq(s[0].failed_nodes + s[0].failed_edges, 0);
	ck_assert(s[1].failed_nodes > 0 && s[1].failed_edges > 0);
	ck_assert_ptr_nonnull(strstr(get(s[1].sg, "label"), "failed"));
	agclose(g);
	free(text);
	unlink(path);
	/* a page of one view only, within its bounds */
	fx_render_panel mixed[2] = {p[0], p[1]};
	mixed[1].o.view = FX_VIEW_LOADS;
	ck_assert_int_ne(fx_render_page(mixed, 2, NULL, "dot", path, NULL, &a.d), 0);
	ck_assert_int_ne(fx_render_page(p, 0, NULL, "dot", path, NULL, &a.d), 0);
	ck_assert_int_ne(fx_render_page(p, 2, NULL, "gif", path, NULL, &a.d), 0);
	unlink(path);
	free(dead);
	fixture_release(&a);
}
END_TEST

Suite *suite_render_page(void)
{
	Suite *s = suite_create("render_page");
	TCase *tc = tcase_create("page");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_page_two_builds);
	tcase_add_test(tc, test_page_failure);
	suite_add_tcase(s, tc);
	return s;
}
