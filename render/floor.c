/*
 * render/floor: the floor view — the racks of a bill of materials
 * (bom/bom.h) where its floor plan stands them, compute racks and network
 * racks told apart, and one bundle per rack pair and medium between them,
 * as wide as its share of the links and labelled with its links and their
 * length.  Positions are fixed (Graphviz's "nop" engine, neato -n): the
 * picture is the plan to scale, never a layout's guess.  The legend says
 * what the plan assumed, and how many bundles were left undrawn when there
 * are more than FLOOR_MAX_SPANS.
 */
#include <gvc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bom/bom.h"
#include "../core/xalloc.h"
#include "render_internal.h"

#define FLOOR_MAX_SPANS 400   /* bundles drawn; the rest counted in the legend */
#define FLOOR_LABELS 24       /* bundles labelled when at most this many */

static void set(void *obj, const char *key, const char *val)
{
	agsafeset(obj, (char *)key, (char *)val, "");
}

/* Spans by links, most first (ties: rack order), for the ones drawn. */
static int span_more(const void *pa, const void *pb)
{
	const fx_bom_span *a = *(const fx_bom_span *const *)pa, *b = *(const fx_bom_span *const *)pb;
	if (a->links != b->links)
		return a->links > b->links ? -1 : 1;
	if (a->a != b->a)
		return a->a < b->a ? -1 : 1;
	if (a->b != b->b)
		return a->b < b->b ? -1 : 1;
	return a->medium - b->medium;
}

static Agraph_t *floor_graph(const fx_bom *b, const char *title, int64_t *nodes, int64_t *edges)
{
	int64_t nr = b->compute_racks + b->network_racks;
	Agraph_t *g = agopen((char *)"floor", Agundirected, NULL);
	const fx_bom_floor *fl = &b->floor;
	/* the scale: a rack 0.8 inch wide, less when the floor would pass
	 * FX_RENDER_MAX_INCHES (Graphviz would shrink the text with it) */
	double xmax = 0, ymax = 0;
	for (int64_t r = 0; r < nr; r++)
		xmax = fmax(xmax, b->rack[r].x_m), ymax = fmax(ymax, b->rack[r].y_m);
	double depth = fl->row_pitch_m / 2;  /* a rack's depth drawn: half the pitch, the rest aisle */
	double s = 0.8 / fl->rack_width_m;   /* inches per metre */
	double span_in = fmax(xmax + fl->rack_width_m, ymax + depth) * s;
	if (span_in > FX_RENDER_MAX_INCHES - 4)
		s *= (FX_RENDER_MAX_INCHES - 4) / span_in;
	char buf[256];
	agattr(g, AGRAPH, "splines", "curved");
	agattr(g, AGRAPH, "outputorder", "edgesfirst");
	agattr(g, AGRAPH, "fontname", "Helvetica");
	agattr(g, AGNODE, "shape", "box");
	agattr(g, AGNODE, "style", "filled");
	agattr(g, AGNODE, "fixedsize", "true");
	agattr(g, AGNODE, "fontname", "Helvetica");
	agattr(g, AGNODE, "fontsize", s * fl->rack_width_m >= 0.6 ? "10" : "7");
	agattr(g, AGNODE, "label", "");
	agattr(g, AGNODE, "pos", "");
	agattr(g, AGNODE, "width", "0.5");
	agattr(g, AGNODE, "height", "0.5");
	agattr(g, AGNODE, "fillcolor", "white");
	agattr(g, AGNODE, "color", "black");
	agattr(g, AGEDGE, "penwidth", "1");
	agattr(g, AGEDGE, "color", "black");
	agattr(g, AGEDGE, "label", "");
	agattr(g, AGEDGE, "fontname", "Helvetica");
	agattr(g, AGEDGE, "fontsize", "8");
	agattr(g, AGEDGE, "tooltip", "");
	Agnode_t **node = fx_xcalloc((size_t)nr + 1, sizeof *node);
	double w_in = fl->rack_width_m * s * 0.92, h_in = depth * s;
	for (int64_t r = 0; r < nr; r++) {
		const fx_bom_rack *k = &b->rack[r];
		snprintf(buf, sizeof buf, "r%lld", (long long)r);
		Agnode_t *n = node[r] = agnode(g, buf, 1);
		/* y grows down the page: row 0 on top (points, 72 an inch) */
		snprintf(buf, sizeof buf, "%.2f,%.2f", (k->x_m * s) * 72, -(k->y_m * s) * 72);
		set(n, "pos", buf);
		snprintf(buf, sizeof buf, "%.3f", w_in);
		set(n, "width", buf);
		snprintf(buf, sizeof buf, "%.3f", h_in);
		set(n, "height", buf);
		snprintf(buf, sizeof buf, "%lld\n%s", (long long)r, k->network ? "net" : "comp");
		set(n, "label", buf);
		set(n, "fillcolor", k->network ? "#d9e7f5" : "#eeeeee");
	}
	/* the bundles, the largest first */
	const fx_bom_span **sp = fx_xcalloc(b->nspan + 1, sizeof *sp);
	int64_t maxl = 1;
	for (size_t i = 0; i < b->nspan; i++) {
		sp[i] = &b->span[i];
		maxl = sp[i]->links > maxl ? sp[i]->links : maxl;
	}
	if (b->nspan > 1)
		qsort(sp, b->nspan, sizeof *sp, span_more);
	size_t draw = b->nspan < FLOOR_MAX_SPANS ? b->nspan : FLOOR_MAX_SPANS;
	for (size_t i = 0; i < draw; i++) {
		const fx_bom_span *x = sp[i];
		Agedge_t *e = agedge(g, node[x->a], node[x->b], NULL, 1);
		/* many bundles thin, so the floor stays visible under them */
		double range = draw > 100 ? 1.5 : 5.0;
		snprintf(buf, sizeof buf, "%.2f", 0.5 + range * sqrt((double)x->links / (double)maxl));
		set(e, "penwidth", buf);
		set(e, "color", x->medium == FX_MEDIUM_OPTICAL ? "#1f5fa8aa"
			     : x->medium == FX_MEDIUM_COPPER ? "#c0601aaa" : "#555555aa");
		snprintf(buf, sizeof buf, "%lld x %.3g m", (long long)x->links, x->length_m);
		set(e, draw <= FLOOR_LABELS ? "label" : "tooltip", buf);
	}
	/* the legend below the floor, a plain text box: what the plan is, how
	 * bundles are drawn, what was left out; it also keeps a single row's
	 * picture within 3:1 */
	double legend_y = -((ymax + depth) * s + 0.9) * 72;
	char *text = fx_xasprintf(
		"%s\\l%s floor plan:\\l  %lld racks, %lld a row, %.3g m a rack, rows %.3g m apart;\\l"
		"  a cable between racks runs %.3g m up and down at each end\\l"
		"grey: compute rack; blue: network rack\\l"
		"lines: links between two racks (blue optical, orange copper),\\l"
		"  width by links%s\\l"
		"%zu of %zu bundles drawn%s\\l"
		"cables %.0f m, fibre %.0f m in all\\l",
		title ? title : "", b->floor.given ? "bom.floor" : "assumed (no bom.floor)", (long long)nr,
		(long long)fl->racks_per_row, fl->rack_width_m, fl->row_pitch_m, fl->rise_m,
		draw <= FLOOR_LABELS ? ", labelled links x length each" : "; links x length in the tooltips",
		draw, b->nspan, draw < b->nspan ? " (the largest)" : "", b->cable_length_m, b->fibre_length_m);
	Agnode_t *lg = agnode(g, (char *)"legend", 1);
	set(lg, "shape", "plaintext");
	set(lg, "style", "");
	set(lg, "fixedsize", "false");
	set(lg, "fontsize", "11");
	set(lg, "label", text);
	free(text);
	/* at least a third as tall as wide (and at most 3 times): the legend
	 * sits lower on a flat floor */
	double wide = fmax((xmax + fl->rack_width_m) * s, 6.5), tall = (ymax + depth) * s + 2.2;
	if (wide > 3 * tall)
		legend_y -= (wide / 3 - tall) * 72;
	if (tall > 3 * wide) {  /* a long narrow floor (racks_per_row given): widened by a mark */
		Agnode_t *m = agnode(g, (char *)"edge of the picture", 1);
		set(m, "shape", "point");
		set(m, "style", "invis");
		set(m, "width", "0.01");
		snprintf(buf, sizeof buf, "%.2f,0", (tall / 3) * 72);
		set(m, "pos", buf);
	}
	snprintf(buf, sizeof buf, "%.2f,%.2f", (fmax(wide, 6.5) / 2 - fl->rack_width_m * s / 2) * 72,
		 legend_y - 0.6 * 72);
	set(lg, "pos", buf);
	free(sp);
	free(node);
	*nodes = nr;
	*edges = (int64_t)draw;
	return g;
}

int fx_render_floor(const fx_bom *b, const char *title, const char *format, const char *path,
		    fx_render_info *info, fx_diag *d)
{
	if (!b || !b->rack || !path)
		return fx_diag_internal(d, "render: the floor view needs a bill of materials");
	if (!fx_render_format_known(format))
		return fx_diag_error(d, NULL, "render: unknown format '%s' (expected svg, png, pdf or dot)",
				     format);
	if (b->compute_racks + b->network_racks == 0)
		return fx_diag_error(d, NULL, "render: the build has no racks to draw on a floor");
	int64_t nodes = 0, edges = 0, w = 0, h = 0;
	rd_gv_begin();
	Agraph_t *g = floor_graph(b, title, &nodes, &edges);
	int rc = rd_gv_check(d, "graph");
	if (rc == 0)  /* positions fixed: no second layout for the ratio (the legend keeps it) */
		rc = rd_gv_layout_write(g, "nop", 0, format, path, &w, &h, d);
	if (g)
		agclose(g);
	rd_gv_end();
	if (info) {
		memset(info, 0, sizeof *info);
		info->vertices = nodes;
		info->edges = edges;
		snprintf(info->engine, sizeof info->engine, "nop");
		info->width_px = w;
		info->height_px = h;
	}
	return rc;
}
