/*
 * render: several pictures on one page, to one scale.
 *
 * Each panel is built, emitted and laid out by itself, with its own engine
 * (tiered dot, pinned neato for lattices), exactly as a picture of its own
 * would be but for its legend, which the page draws once.  The panels are
 * then moved into place and written, laid out, as DOT clusters of one
 * graph that Graphviz renders with the nop2 engine (positions as given).
 * Laying panels out one by one keeps each as it would be alone; one graph
 * keeps every format (SVG, PNG, PDF) and one scale for the whole page: a
 * box is as large in every panel, and Graphviz scales the page down as a
 * whole when it does not fit FX_RENDER_MAX_INCHES.
 */
#include <errno.h>
#include <gvc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/outfile.h"
#include "../core/xalloc.h"
#include "render_internal.h"

#define GAP 21.6  /* points between panels (0.3 inch) */

/* ---- moving a laid-out graph ---- */

static void move_pt(pointf *p, double dx, double dy)
{
	p->x += dx;
	p->y += dy;
}

static void move_label(textlabel_t *l, double dx, double dy)
{
	if (l)
		move_pt(&l->pos, dx, dy);
}

static void move_clusters(Agraph_t *g, double dx, double dy)
{
	move_pt(&GD_bb(g).LL, dx, dy);
	move_pt(&GD_bb(g).UR, dx, dy);
	move_label(GD_label(g), dx, dy);
	for (int i = 1; i <= GD_n_cluster(g); i++)
		move_clusters(GD_clust(g)[i], dx, dy);
}

/* Moves everything Graphviz placed in g by (dx, dy) points. */
static void move_graph(Agraph_t *g, double dx, double dy)
{
	for (Agnode_t *n = agfstnode(g); n; n = agnxtnode(g, n)) {
		move_pt(&ND_coord(n), dx, dy);
		move_label(ND_xlabel(n), dx, dy);
		for (Agedge_t *e = agfstout(g, n); e; e = agnxtout(g, e)) {
			splines *s = ED_spl(e);
			for (int i = 0; s && i < s->size; i++) {
				bezier *b = &s->list[i];
				for (int k = 0; k < b->size; k++)
					move_pt(&b->list[k], dx, dy);
				move_pt(&b->sp, dx, dy);
				move_pt(&b->ep, dx, dy);
			}
			if (s) {
				move_pt(&s->bb.LL, dx, dy);
				move_pt(&s->bb.UR, dx, dy);
			}
			move_label(ED_label(e), dx, dy);
			move_label(ED_xlabel(e), dx, dy);
			move_label(ED_head_label(e), dx, dy);
			move_label(ED_tail_label(e), dx, dy);
		}
	}
	move_clusters(g, dx, dy);
}

/* ---- arranging panels ---- */

typedef struct box2 {
	double w, h;     /* size, points */
	double x, y;     /* lower left corner on the page */
} box2;

/* Places n panels in rows of k (the last row may hold fewer) with the
 * legend below them; returns the page's width and height. */
static void arrange(box2 *p, int n, int k, box2 *legend, double *W, double *H)
{
	int rows = (n + k - 1) / k;
	double width = legend->w, height = legend->h;
	double rowh[FX_RENDER_MAX_PANELS] = {0};
	for (int r = 0; r < rows; r++) {
		double w = 0;
		for (int i = r * k; i < n && i < (r + 1) * k; i++) {
			w += (i > r * k ? GAP : 0) + p[i].w;
			rowh[r] = fmax(rowh[r], p[i].h);
		}
		width = fmax(width, w);
		height += GAP + rowh[r];
	}
	/* rows from the top down; each panel hangs from its row's top */
	double top = height;
	for (int r = 0; r < rows; r++) {
		double x = 0;
		for (int i = r * k; i < n && i < (r + 1) * k; i++) {
			p[i].x = x;
			p[i].y = top - p[i].h;
			x += p[i].w + GAP;
		}
		top -= rowh[r] + GAP;
	}
	legend->x = 0;
	legend->y = 0;
	*W = width;
	*H = height;
}

/* The number of panels per row that draws them largest within the bound,
 * an aspect ratio past 3:1 counting as a loss; on a tie, the page nearer
 * 3:2 landscape. */
static int best_row(box2 *p, int n, box2 *legend)
{
	double cap = FX_RENDER_MAX_INCHES * 72, best = -1, best_tie = 0;
	int k_best = n;
	for (int k = 1; k <= n; k++) {
		double W, H;
		arrange(p, n, k, legend, &W, &H);
		double s = fmin(1, fmin(cap / W, cap / H)), a = fmax(W, H) / fmax(1, fmin(W, H));
		double score = s * (a > 3 ? 3 / a : 1), tie = -fabs(log(W / H) - log(1.5));
		if (score > best * 1.001 || (score > best * 0.999 && tie > best_tie)) {
			best = score;
			best_tie = tie;
			k_best = k;
		}
	}
	return k_best;
}

/* ---- the page ---- */

/* The laid-out DOT text of g with its first line ("graph NAME {")
 * replaced by head; closing lines go on after it. */
static int panel_text(GVC_t *gvc, Agraph_t *g, FILE *out, const char *head, const char *tail,
		      fx_diag *d)
{
	char *data = NULL;
	unsigned int len = 0;
	int rc = gvRenderData(gvc, g, "dot", &data, &len) != 0 ? -1 : 0;
	rc |= rd_gv_check(d, "panel output");
	if (rc == 0) {
		const char *body = memchr(data, '\n', len), *end = data + len;
		while (end > data && (end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (end > data && end[-1] == '}')  /* the graph's closing brace, ours follows */
			end--;
		if (!body || end <= body)
			rc = fx_diag_internal(d, "render: Graphviz wrote no panel");
		else
			fprintf(out, "%s%.*s\n%s}\n", head, (int)(end - body), body, tail);
	}
	if (data)
		gvFreeRenderData(data);
	return rc;
}

/* The legend: one plain node whose HTML label dot sizes for us. */
static Agraph_t *legend_graph(const rd_legend *l, const char *heading)
{
	Agraph_t *g = agopen("legend", Agundirected, NULL);
	Agnode_t *n = g ? agnode(g, "legend", 1) : NULL;
	char *html = rd_legend_html(l, heading);
	if (n) {
		agsafeset(n, "shape", "plain", "");
		agsafeset(n, "fontname", "Helvetica", "");
		agsafeset(n, "fontsize", "12", "");
		Agsym_t *sym = agattr(g, AGNODE, "label", "");
		char *h = sym ? agstrdup_html(g, html) : NULL;
		if (h) {
			agxset(n, sym, h);
			agstrfree(g, h);
		}
	}
	free(html);
	return n ? g : (g ? (agclose(g), NULL) : NULL);
}

typedef struct page {
	int n;
	rd_model m[FX_RENDER_MAX_PANELS];
	fx_render_ext x[FX_RENDER_MAX_PANELS];
	Agraph_t *g[FX_RENDER_MAX_PANELS];
	int laid[FX_RENDER_MAX_PANELS];
	char prefix[FX_RENDER_MAX_PANELS][16];
	Agraph_t *lg;
	int lg_laid;
	rd_legend legend;
} page;

static void page_release(page *pg, GVC_t *gvc)
{
	for (int i = 0; i < pg->n; i++) {
		if (pg->laid[i])
			gvFreeLayout(gvc, pg->g[i]);
		if (pg->g[i])
			agclose(pg->g[i]);
		rd_model_release(&pg->m[i]);
	}
	if (pg->lg_laid)
		gvFreeLayout(gvc, pg->lg);
	if (pg->lg)
		agclose(pg->lg);
}

/* Builds every panel, scales them alike, lays each out. */
static int panels(page *pg, GVC_t *gvc, const fx_render_panel *p, const char *heading, fx_diag *d)
{
	double umax = 0;
	for (int i = 0; i < pg->n; i++) {
		pg->x[i] = p[i].x;
		pg->x[i].info = NULL;
		pg->x[i].engine = NULL;
		pg->x[i].util_scale = 0;
		if (p[i].o.view != p[0].o.view)
			return fx_diag_internal(d, "render: the panels of a page show different views");
		if ((p[i].o.view == FX_VIEW_LOADS && !p[i].o.utilisation) ||
		    (p[i].o.view == FX_VIEW_PLACEMENT && !p[i].o.instance) || p[i].o.view >= FX_VIEWS ||
		    p[i].o.view == FX_VIEW_FLOOR || p[i].o.view == FX_VIEW_RACKS)
			return fx_diag_internal(d, "render: panel %d lacks what its view needs", i + 1);
		if (p[i].o.detail_full)
			return fx_diag_error(d, NULL, "render: --detail full draws one fabric at a time");
		if (rd_model_build(&pg->m[i], p[i].f, &p[i].o, &pg->x[i], d))
			return -1;
		for (int64_t k = 0; k < pg->m[i].nedge; k++)
			umax = fmax(umax, pg->m[i].edge[k].util);
		for (int64_t b = 0; b < pg->m[i].nbox; b++)
			umax = fmax(umax, pg->m[i].box[b].in_util);
	}
	for (int i = 0; i < pg->n; i++) {
		pg->x[i].util_scale = umax;  /* the busiest link of all panels */
		snprintf(pg->prefix[i], sizeof pg->prefix[i], "p%d_", i + 1);
		pg->m[i].prefix = pg->prefix[i];
		pg->m[i].legend = &pg->legend;
		int rc = rd_emit(&pg->m[i], &pg->g[i], d);
		rc |= rd_gv_check(d, "graph");
		if (rc == 0) {
			rc = gvLayout(gvc, pg->g[i], pg->m[i].engine) != 0 ? -1 : 0;
			pg->laid[i] = rc == 0;
			rc |= rd_gv_check(d, "layout");
		}
		if (rc)
			return d && d->nerr ? -1 : fx_diag_internal(d, "render: Graphviz could not lay out panel %d",
								  i + 1);
	}
	if (!(pg->lg = legend_graph(&pg->legend, heading)))
		return fx_diag_internal(d, "render: Graphviz could not create the legend");
	int rc = gvLayout(gvc, pg->lg, "dot") != 0 ? -1 : 0;
	pg->lg_laid = rc == 0;
	rc |= rd_gv_check(d, "legend layout");
	return rc;
}

/* The page as laid-out DOT text (malloc'd), panels moved into place. */
static int page_text(page *pg, GVC_t *gvc, char **text, fx_diag *d)
{
	box2 b[FX_RENDER_MAX_PANELS], lb;
	for (int i = 0; i < pg->n; i++) {
		b[i].w = GD_bb(pg->g[i]).UR.x - GD_bb(pg->g[i]).LL.x;
		b[i].h = GD_bb(pg->g[i]).UR.y - GD_bb(pg->g[i]).LL.y;
	}
	lb.w = GD_bb(pg->lg).UR.x - GD_bb(pg->lg).LL.x;
	lb.h = GD_bb(pg->lg).UR.y - GD_bb(pg->lg).LL.y;
	double W, H;
	arrange(b, pg->n, best_row(b, pg->n, &lb), &lb, &W, &H);
	for (int i = 0; i < pg->n; i++)
		move_graph(pg->g[i], b[i].x - GD_bb(pg->g[i]).LL.x, b[i].y - GD_bb(pg->g[i]).LL.y);
	move_graph(pg->lg, lb.x - GD_bb(pg->lg).LL.x, lb.y - GD_bb(pg->lg).LL.y);
	size_t len = 0;
	FILE *out = open_memstream(text, &len);
	if (!out)
		return fx_diag_internal(d, "render: no memory for the page");
	/* the page's own attributes first: a panel's would otherwise become
	 * the page's defaults (cgraph declares an attribute at the root the
	 * first time any subgraph names it) */
	fprintf(out, "graph page {\n\tgraph [layout=nop2, bb=\"0,0,%.2f,%.2f\", pad=0.3, size=\"%g,%g\", "
		"label=\"\", fontname=Helvetica, fontsize=12, outputorder=edgesfirst, "
		"style=\"rounded,filled\", fillcolor=\"#f7f7f7\", color=\"#9a9a9a\"];\n", W, H,
		FX_RENDER_MAX_INCHES, FX_RENDER_MAX_INCHES);
	int rc = 0;
	for (int i = 0; i < pg->n && rc == 0; i++) {
		char head[48];
		snprintf(head, sizeof head, "subgraph cluster_panel%d {", i + 1);
		/* a panel's frame: white, so its racks' grey stands out */
		rc = panel_text(gvc, pg->g[i], out, head, "\tgraph [style=rounded, fillcolor=\"#ffffff\", "
				"color=\"#bdbdbd\"];\n", d);
	}
	if (rc == 0)
		rc = panel_text(gvc, pg->lg, out, "subgraph legend {", "", d);
	fputs("}\n", out);
	if (fclose(out) != 0 && rc == 0)
		rc = fx_diag_internal(d, "render: no memory for the page");
	return rc;
}

int fx_render_page(const fx_render_panel *p, int n, const char *heading, const char *format,
		   const char *path, fx_render_info *info, fx_diag *d)
{
	if (!fx_render_format_known(format))
		return fx_diag_error(d, NULL, "render: unknown format '%s' (expected svg, png, pdf or dot)",
				     format);
	if (n < 1 || n > FX_RENDER_MAX_PANELS)
		return fx_diag_error(d, NULL, "render: a page holds 1 to %d pictures, not %d",
				     FX_RENDER_MAX_PANELS, n);
	for (int i = 0; i < n; i++)
		if (!p[i].f || p[i].f->nv == 0)
			return fx_diag_error(d, NULL, "render: panel %d has no vertices to draw", i + 1);
	page *pg = fx_xcalloc(1, sizeof *pg);
	pg->n = n;
	rd_gv_begin();
	GVC_t *gvc = rd_gv_context();
	int rc = gvc ? 0 : fx_diag_internal(d, "render: Graphviz could not start");
	rc |= rd_gv_check(d, "start-up");
	char *text = NULL, *data = NULL;
	unsigned int len = 0;
	Agraph_t *all = NULL;
	int all_laid = 0;
	int64_t px_w = 0, px_h = 0;
	if (rc == 0)
		rc = panels(pg, gvc, p, heading, d);
	if (rc == 0)
		rc = page_text(pg, gvc, &text, d);
	if (rc == 0 && strcmp(format, "dot") != 0) {
		/* read in creation order: cgraph's default would order the
		 * panels' clusters by where their names sit in the heap */
		FILE *in = fmemopen(text, strlen(text), "r");
		all = in ? agread(in, rd_ordered_disc()) : NULL;
		if (in)
			fclose(in);
		rc = rd_gv_check(d, "page");
		if (rc == 0 && !all)
			rc = fx_diag_internal(d, "render: Graphviz could not read the page back");
		if (rc == 0) {
			rc = gvLayout(gvc, all, "nop2") != 0 ? -1 : 0;
			all_laid = rc == 0;
			rc |= rd_gv_check(d, "page layout");
		}
		if (rc == 0) {
			rd_picture_size(all, 0, &px_w, &px_h);
			rc = gvRenderData(gvc, all, format, &data, &len) != 0 ? -1 : 0;
			rc |= rd_gv_check(d, "output");
			if (rc && (!d || d->nerr == 0))
				rc = fx_diag_internal(d, "render: Graphviz could not produce %s", format);
		}
	} else if (rc == 0) {
		data = NULL;
		len = (unsigned int)strlen(text);
	}
	FILE *out = NULL;
	fx_outfile of;
	if (rc == 0 && !(out = fx_outfile_open(&of, path)))
		rc = fx_diag_error(d, NULL, "render: cannot write '%s': %s", path, strerror(errno));
	if (rc == 0 && fwrite(data ? data : text, 1, len, out) != len)
		rc = -1;  /* reported with the real errno at the close */
	int werr = out && ferror(out);
	if (out && fx_outfile_close(&of, rc == 0 || werr) && (rc == 0 || werr))
		rc = fx_diag_error(d, NULL, "render: cannot write '%s': %s", path, strerror(errno));
	if (info) {
		memset(info, 0, sizeof *info);
		for (int i = 0; i < n; i++) {
			info->vertices += pg->m[i].nbox;
			info->edges += pg->m[i].nedge;
			info->aggregated |= pg->m[i].aggregated;
		}
		snprintf(info->engine, sizeof info->engine, "nop2");
		info->width_px = px_w;
		info->height_px = px_h;
	}
	if (data)
		gvFreeRenderData(data);
	if (all_laid)
		gvFreeLayout(gvc, all);
	if (all)
		agclose(all);
	free(text);
	page_release(pg, gvc);
	free(pg);
	rd_gv_check(d, "clean-up");
	rd_gv_end();
	return rc;
}
