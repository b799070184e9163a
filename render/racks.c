/*
 * render/racks: the racks view — rack elevations.  Each rack of a bill of
 * materials (bom/bom.h: compute racks, then the network racks of
 * packaging.switches) is a cluster, its boxes stacked top to bottom in
 * rack order: the nodes (compute trays, servers) in node order with what
 * each holds, then (or, where the kind says so, among the nodes: bom.h's
 * switches_mid, NVL72's switch trays in the middle) the switch boxes (switch trays: chips_per_box chips of
 * one role), then anything else the rack holds outside nodes and boxes.
 * Laid out by dot, the racks in rows so the picture stays near square.
 *
 * Bounded as the other views are: past RACKS_MAX_UNITS boxes a rack's
 * alike neighbours (same kind, same contents) are drawn as one box with
 * their count, past RACKS_MAX_COLS columns alike neighbouring racks as
 * one column, and what still does not fit is one "+N more" box that says
 * what it stands for: nothing held is left uncounted.
 *
 * Every box carries class= (compute, switch, other, more) and units= (the
 * boxes of one rack it stands for), devices=, cpus= and switch_chips= (per
 * unit); every rack cluster kind= (compute, network, none, more) and racks=
 * (the racks it stands for), so tests read the elevation off the DOT.
 */
#include <gvc.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bom/bom.h"
#include "../core/xalloc.h"
#include "render_internal.h"

#define RACKS_MAX_UNITS 28  /* boxes a rack shows one by one (NVL72: 18 + 9) */
#define RACKS_MAX_COLS 24   /* racks drawn side by side, in rows */
#define BOX_W 2.2           /* inches */
#define BOX_H 0.3
#define BOX_H2 0.45         /* a box of two lines (alike boxes merged) */

enum { U_NODE = 0, U_BOX, U_OTHER };

/* One box of a rack: a node, a switch box, or the rest outside both. */
typedef struct unit {
	int kind;
	int64_t rack;             /* -1: in no rack (sorted last) */
	int64_t id;               /* node or box number (U_OTHER: 0) */
	int64_t ndev, ncpu, nsw[FX_MAX_ROLES];
} unit;

/* Drawn boxes of a rack column: runs of alike units. */
typedef struct run {
	size_t u0, n;             /* first unit, how many */
} run;

typedef struct col {
	int64_t r0, r1;           /* racks it stands for (r0 == r1: one); -1: no rack */
	size_t u0, nu;            /* the first rack's units */
	int64_t more;             /* the "+N more racks" column: racks it counts, else 0 */
	double height;            /* estimated, inches */
} col;

static void set(void *obj, const char *key, const char *val)
{
	agsafeset(obj, (char *)key, (char *)val, "");
}

static void setf(void *obj, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void setf(void *obj, const char *key, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	set(obj, key, buf);
}

static int unit_cmp(const void *pa, const void *pb)
{
	const unit *a = pa, *b = pb;
	uint64_t ra = (uint64_t)a->rack, rb = (uint64_t)b->rack;  /* -1 last */
	if (ra != rb)
		return ra < rb ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind - b->kind;
	return (a->id > b->id) - (a->id < b->id);
}

/* Alike: the same kind holding the same. */
static int alike(const unit *a, const unit *b)
{
	if (a->kind != b->kind || a->ndev != b->ndev || a->ncpu != b->ncpu)
		return 0;
	return memcmp(a->nsw, b->nsw, sizeof a->nsw) == 0;
}

static int64_t chips(const unit *u)
{
	int64_t n = 0;
	for (int r = 0; r < FX_MAX_ROLES; r++)
		n += u->nsw[r];
	return n;
}

/* "8 NPU · 4 CPU · 7 L1" */
static void contents(const fx_fabric *f, const char *noun, const unit *u, char *buf, size_t len)
{
	size_t k = 0;
	buf[0] = '\0';
#define PUT(...) (k += (size_t)snprintf(buf + k, k < len ? len - k : 0, __VA_ARGS__), k = k < len ? k : len - 1)
	if (u->ndev)  /* "8 GPU", but "8 devices" */
		PUT("%lld %s%s", (long long)u->ndev, noun, u->ndev != 1 && !strcmp(noun, "device") ? "s" : "");
	if (u->ncpu)
		PUT("%s%lld CPU", k ? " · " : "", (long long)u->ncpu);
	for (int r = 0; r < f->nroles && r < FX_MAX_ROLES; r++)
		if (u->nsw[r])
			PUT("%s%lld %s", k ? " · " : "", (long long)u->nsw[r], f->roles[r].name);
	if (!k)
		PUT("empty");
#undef PUT
}

/* The kind's physical order (bom switches_mid): in each compute rack
 * holding both, fx_bom_above(n) of its n nodes, then its switch boxes,
 * then the other nodes.  u is sorted by rack, kind, number. */
static void interleave(unit *u, size_t n)
{
	unit *t = fx_xcalloc(n ? n : 1, sizeof *t);
	for (size_t i = 0; i < n;) {
		size_t j = i, nn = 0, nb = 0;
		while (j < n && u[j].rack == u[i].rack) {
			nn += u[j].kind == U_NODE;
			nb += u[j].kind == U_BOX;
			j++;
		}
		if (u[i].rack >= 0 && nn && nb) {  /* nodes [i, i+nn), boxes [i+nn, i+nn+nb) */
			size_t above = (size_t)fx_bom_above((int64_t)nn), k = 0;
			memcpy(t + k, u + i, above * sizeof *t), k += above;
			memcpy(t + k, u + i + nn, nb * sizeof *t), k += nb;
			memcpy(t + k, u + i + above, (nn - above) * sizeof *t), k += nn - above;
			memcpy(u + i, t, k * sizeof *t);
		}
		i = j;
	}
	free(t);
}

/* The units of every rack, sorted by rack then kind then number (then,
 * for kinds with switches_mid, in the kind's tray order). */
static unit *build_units(const fx_bom *b, const fx_fabric *f, size_t *n)
{
	int64_t nn = f->nnodes, nb = b->switch_boxes, nr = b->compute_racks + b->network_racks;
	size_t cap = (size_t)(nn + nb + nr + 2);
	unit *u = fx_xcalloc(cap, sizeof *u);
	/* index: nodes, then boxes, then the rest per rack (nr: no rack) */
	for (int64_t i = 0; i < (int64_t)cap; i++)
		u[i].rack = -2;  /* unused until a vertex lands in it */
	for (int64_t v = 0; v < f->nv; v++) {
		const fx_vertex *x = &f->v[v];
		int64_t r = b->vertex_rack[v];
		size_t i;
		int kind;
		if (x->node >= 0 && x->node < nn)
			i = (size_t)x->node, kind = U_NODE;
		else if (b->vertex_box[v] >= 0 && b->vertex_box[v] < nb)
			i = (size_t)(nn + b->vertex_box[v]), kind = U_BOX;
		else
			i = (size_t)(nn + nb + (r >= 0 && r < nr ? r : nr)), kind = U_OTHER;
		unit *x2 = &u[i];
		if (x2->rack == -2) {
			x2->kind = kind;
			x2->rack = r >= 0 && r < nr ? r : -1;
			x2->id = kind == U_NODE ? x->node : kind == U_BOX ? b->vertex_box[v] : 0;
		}
		if (x->type == FX_V_DEVICE)
			x2->ndev++;
		else if (x->type == FX_V_CPU)
			x2->ncpu++;
		else if (x->role >= 0 && x->role < FX_MAX_ROLES)
			x2->nsw[x->role]++;
		else
			x2->nsw[0]++;  /* a switch without a role: counted with the first */
	}
	size_t k = 0;
	for (size_t i = 0; i < cap; i++)
		if (u[i].rack != -2)
			u[k++] = u[i];
	if (k > 1)
		qsort(u, k, sizeof *u, unit_cmp);
	if (b->switches_mid)
		interleave(u, k);
	*n = k;
	return u;
}

/* Runs of a rack's units: one unit each when they fit, else runs of alike
 * neighbours.  Returns how many runs (at most RACKS_MAX_UNITS; *more: the
 * units after them, drawn as one "+N more" box). */
static size_t runs_of(const unit *u, size_t n, run *out, size_t *more)
{
	size_t k = 0;
	*more = 0;
	if (n <= RACKS_MAX_UNITS) {
		for (size_t i = 0; i < n; i++)
			out[k++] = (run){i, 1};
		return k;
	}
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && alike(&u[i], &u[j]))
			j++;
		if (k == RACKS_MAX_UNITS - 1 && j < n) {  /* the rest: one box */
			*more = n - i;
			return k;
		}
		out[k++] = (run){i, j - i};
		i = j;
	}
	return k;
}

static double col_height(const unit *u, size_t n)
{
	run r[RACKS_MAX_UNITS];
	size_t more, k = runs_of(u, n, r, &more);
	double h = 0.55;  /* the cluster's label and margins */
	for (size_t i = 0; i < k; i++)
		h += (r[i].n > 1 ? BOX_H2 : BOX_H) + 0.07;
	return h + (more ? BOX_H2 + 0.07 : 0);
}

/* Two racks alike: the same units, alike one by one. */
static int racks_alike(const unit *u, const col *a, size_t u0, size_t nu)
{
	if (a->nu != nu)
		return 0;
	for (size_t i = 0; i < nu; i++)
		if (!alike(&u[a->u0 + i], &u[u0 + i]))
			return 0;
	return 1;
}

/* The columns: one a rack, or (past RACKS_MAX_COLS) one a run of alike
 * racks, and a "+N more racks" column for what is left. */
static col *build_cols(const fx_bom *b, const unit *u, size_t nu, size_t *ncol, int *merged)
{
	col *c = fx_xcalloc(nu + 2, sizeof *c);
	size_t n = 0;
	for (size_t i = 0; i < nu;) {
		size_t j = i;
		while (j < nu && u[j].rack == u[i].rack)
			j++;
		c[n++] = (col){u[i].rack, u[i].rack, i, j - i, 0, 0};
		i = j;
	}
	*merged = 0;
	if (n > RACKS_MAX_COLS) {
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			if (k && c[k - 1].r0 >= 0 && c[i].r0 >= 0 && c[k - 1].r1 + 1 == c[i].r0 &&
			    (b->rack[c[k - 1].r0].network == b->rack[c[i].r0].network) &&
			    racks_alike(u, &c[k - 1], c[i].u0, c[i].nu)) {
				c[k - 1].r1 = c[i].r1;
				*merged = 1;
			} else
				c[k++] = c[i];
		}
		n = k;
	}
	if (n > RACKS_MAX_COLS) {
		int64_t rest = 0;
		for (size_t i = RACKS_MAX_COLS - 1; i < n; i++)
			rest += c[i].r0 >= 0 ? c[i].r1 - c[i].r0 + 1 : 0;
		c[RACKS_MAX_COLS - 1] = (col){-1, -1, 0, 0, rest > 0 ? rest : 1, 0};
		n = RACKS_MAX_COLS;
		*merged = 1;
	}
	for (size_t i = 0; i < n; i++)
		*merged |= c[i].nu > RACKS_MAX_UNITS;
	for (size_t i = 0; i < n; i++)
		c[i].height = c[i].more ? 0.55 + BOX_H2 : col_height(u + c[i].u0, c[i].nu);
	*ncol = n;
	return c;
}

/* Racks a row: the count that brings the picture nearest square, the
 * legend (about 6.5 x 2 inches) on top. */
static size_t per_row(const col *c, size_t n)
{
	size_t best = 1;
	double best_score = INFINITY;
	for (size_t r = 1; r <= n; r++) {
		double w = fmax((double)r * (BOX_W + 0.45), 6.5), h = 2.0;
		for (size_t i = 0; i < n; i += r) {
			double hi = 0;
			for (size_t j = i; j < i + r && j < n; j++)
				hi = fmax(hi, c[j].height);
			h += hi + 0.3;
		}
		double score = fmax(w / h, h / w) + (w > FX_RENDER_MAX_INCHES - 1 ? 10 : 0);
		if (score < best_score - 1e-9)
			best = r, best_score = score;
	}
	return best;
}

static void box_attrs(Agnode_t *n, const char *cls, int64_t units, const unit *u, const char *label,
		      double h, const char *fill)
{
	set(n, "class", cls);
	setf(n, "units", "%lld", (long long)units);
	setf(n, "devices", "%lld", u ? (long long)u->ndev : 0LL);
	setf(n, "cpus", "%lld", u ? (long long)u->ncpu : 0LL);
	setf(n, "switch_chips", "%lld", u ? (long long)chips(u) : 0LL);
	set(n, "label", label);
	setf(n, "height", "%.2f", h);
	set(n, "fillcolor", fill);
}

static const char *unit_class(const unit *u)
{
	return u->kind == U_NODE ? "compute" : u->kind == U_BOX ? "switch" : "other";
}

static const char *unit_fill(const unit *u)
{
	return u->kind == U_NODE ? "#eeeeee" : u->kind == U_BOX ? "#d9e7f5" : "white";
}

/* One rack's column: its boxes chained top to bottom; the first and last
 * drawn box out. */
static void draw_col(Agraph_t *g, const fx_bom *b, const fx_fabric *f, const char *noun, const unit *u,
		     const col *c, size_t ci, Agnode_t **top, Agnode_t **bottom, int64_t *boxes)
{
	char name[64], label[256], what[160];
	snprintf(name, sizeof name, "cluster_rack%zu", ci);
	Agraph_t *s = agsubg(g, name, 1);
	int network = c->r0 >= 0 && b->rack[c->r0].network;
	int64_t nr = c->more ? c->more : c->r0 >= 0 ? c->r1 - c->r0 + 1 : 0;
	set(s, "kind", c->more ? "more" : c->r0 < 0 ? "none" : network ? "network" : "compute");
	setf(s, "racks", "%lld", (long long)nr);
	if (c->more)
		snprintf(label, sizeof label, "+%lld more racks", (long long)c->more);
	else if (c->r0 < 0)
		snprintf(label, sizeof label, "in no rack");
	else if (c->r0 == c->r1)
		snprintf(label, sizeof label, "rack %lld · %s", (long long)c->r0, network ? "network" : "compute");
	else
		snprintf(label, sizeof label, "racks %lld–%lld · %s\n(%lld alike)", (long long)c->r0,
			 (long long)c->r1, network ? "network" : "compute", (long long)nr);
	set(s, "label", label);
	set(s, "style", "filled");
	set(s, "fillcolor", network ? "#f2f7fc" : "#fafafa");
	Agnode_t *prev = NULL;
	*top = *bottom = NULL;
	if (c->more) {
		snprintf(name, sizeof name, "r%zu_more", ci);
		Agnode_t *n = agnode(s, name, 1);
		snprintf(label, sizeof label, "%lld racks more\n(racks %lld on, as the bill counts them)",
			 (long long)c->more, (long long)(c[-1].r1 + 1));
		box_attrs(n, "more", 0, NULL, label, BOX_H2, "white");
		*top = *bottom = n;
		(*boxes)++;
		return;
	}
	run r[RACKS_MAX_UNITS];
	size_t more, k = runs_of(u + c->u0, c->nu, r, &more);
	int one = c->r0 == c->r1;  /* numbers only when the column is one rack */
	for (size_t i = 0; i <= k; i++) {
		if (i == k && !more)
			break;
		snprintf(name, sizeof name, "r%zu_%zu", ci, i);
		Agnode_t *n = agnode(s, name, 1);
		if (i == k) {  /* the rest of a rack too full to draw */
			int64_t nodes = 0, sboxes = 0, other = 0;
			for (size_t j = c->nu - more; j < c->nu; j++) {
				const unit *x = &u[c->u0 + j];
				nodes += x->kind == U_NODE, sboxes += x->kind == U_BOX, other += x->kind == U_OTHER;
			}
			snprintf(label, sizeof label, "+%zu more boxes\n%lld nodes · %lld switch boxes%s", more,
				 (long long)nodes, (long long)sboxes, other ? " · the rest" : "");
			box_attrs(n, "more", (int64_t)more, NULL, label, BOX_H2, "white");
		} else {
			const unit *x = &u[c->u0 + r[i].u0], *y = &u[c->u0 + r[i].u0 + r[i].n - 1];
			const char *kind = x->kind == U_NODE ? "node" : x->kind == U_BOX ? "switch box" : "not in a node";
			contents(f, noun, x, what, sizeof what);
			if (x->kind == U_OTHER)
				snprintf(label, sizeof label, "%s: %s", kind, what);
			else if (r[i].n == 1 && one)
				snprintf(label, sizeof label, "%s %lld · %s", kind, (long long)x->id, what);
			else if (r[i].n == 1)
				snprintf(label, sizeof label, "%s · %s", kind, what);
			else if (one)
				snprintf(label, sizeof label, "%ss %lld–%lld (%zu alike)\n%s each",
					 x->kind == U_NODE ? "node" : "switch boxe", (long long)x->id, (long long)y->id,
					 r[i].n, what);
			else
				snprintf(label, sizeof label, "%zu %ss alike\n%s each", r[i].n,
					 x->kind == U_NODE ? "node" : "switch boxe", what);
			box_attrs(n, unit_class(x), (int64_t)r[i].n, x, label, r[i].n > 1 ? BOX_H2 : BOX_H,
				  unit_fill(x));
		}
		(*boxes)++;
		if (prev) {
			Agedge_t *e = agedge(g, prev, n, NULL, 1);
			set(e, "style", "invis");
		} else
			*top = n;
		prev = n;
	}
	*bottom = prev;
}

static Agraph_t *racks_graph(const fx_bom *b, const fx_fabric *f, const char *title, int64_t *boxes,
			     int *merged)
{
	size_t nu, ncol;
	unit *u = build_units(b, f, &nu);
	col *c = build_cols(b, u, nu, &ncol, merged);
	char noun[32];
	fx_fabric_device_noun(f, noun, sizeof noun);
	Agraph_t *g = agopen((char *)"racks", Agundirected, rd_ordered_disc());
	agattr(g, AGRAPH, "layout", "dot");
	agattr(g, AGRAPH, "rankdir", "TB");
	agattr(g, AGRAPH, "ranksep", "0.07");
	agattr(g, AGRAPH, "nodesep", "0.45");
	agattr(g, AGRAPH, "ordering", "out");
	agattr(g, AGRAPH, "newrank", "true");
	agattr(g, AGRAPH, "fontname", "Helvetica");
	agattr(g, AGRAPH, "fontsize", "12");
	agattr(g, AGRAPH, "labelloc", "t");
	agattr(g, AGRAPH, "labeljust", "l");
	agattr(g, AGRAPH, "pad", "0.3");
	char buf[64];
	snprintf(buf, sizeof buf, "%g,%g", FX_RENDER_MAX_INCHES, FX_RENDER_MAX_INCHES);
	agattr(g, AGRAPH, "size", buf);
	agattr(g, AGNODE, "shape", "box");
	agattr(g, AGNODE, "style", "filled");
	agattr(g, AGNODE, "fixedsize", "false");  /* width and height the least: a long label widens its box */
	agattr(g, AGNODE, "fontname", "Helvetica");
	agattr(g, AGNODE, "fontsize", "9");
	snprintf(buf, sizeof buf, "%.2f", BOX_W);
	agattr(g, AGNODE, "width", buf);
	agattr(g, AGNODE, "height", "0.3");
	agattr(g, AGNODE, "fillcolor", "white");
	agattr(g, AGNODE, "label", "");
	agattr(g, AGEDGE, "style", "");
	agattr(g, AGEDGE, "weight", "1");
	int64_t nr = b->compute_racks + b->network_racks;
	char *legend = fx_xasprintf(
		"%s: rack elevations\\l%lld rack%s: %lld compute, %lld network (packaging.switches)\\l"
		/* short lines: a rack of one box stays within 3:1 under them */
		"each cluster a rack, its boxes top to bottom in rack order:\\l"
		"  grey: a node (compute tray, server) in node order,\\l"
		"    with what it holds;\\l"
		"  blue: a switch box (tray) of packaging.switches'\\l"
		"    chips_per_box chips of one role (1 without)\\l"
		"%s%s",
		title ? title : "", (long long)nr, nr == 1 ? "" : "s", (long long)b->compute_racks, (long long)b->network_racks,
		b->switches_mid ? "  switch trays between compute trays, as the\\l"
				  "    kind's racks are built (bom/bom.h)\\l" : "",
		*merged ? "past 24 racks or 28 boxes a rack, alike neighbours\\l"
			  "  are one box or column with their count\\l"
			: "");
	agattr(g, AGRAPH, "label", legend);
	free(legend);
	size_t row = per_row(c, ncol);
	/* rows of racks: a row's tops on one rank (newrank lets a rank span
	 * clusters), one rank under the previous row's tallest rack; the
	 * ordering edges weigh nothing, so they pull no box sideways */
	Agnode_t *tallest = NULL;
	*boxes = 0;
	for (size_t i = 0; i < ncol; i += row) {
		Agnode_t *next_tallest = NULL;
		double hmax = -1;
		char rname[32];
		snprintf(rname, sizeof rname, "row%zu", i / row);
		Agraph_t *same = agsubg(g, rname, 1);
		set(same, "rank", "same");
		for (size_t j = i; j < i + row && j < ncol; j++) {
			Agnode_t *top, *bot;
			draw_col(g, b, f, noun, u, &c[j], j, &top, &bot, boxes);
			if (top)
				agsubnode(same, top, 1);
			if (tallest && top) {
				Agedge_t *e = agedge(g, tallest, top, NULL, 1);
				set(e, "style", "invis");
				set(e, "weight", "0");
			}
			if (bot && c[j].height > hmax)
				hmax = c[j].height, next_tallest = bot;
		}
		tallest = next_tallest;
	}
	free(c);
	free(u);
	return g;
}

int fx_render_racks(const fx_bom *b, const fx_fabric *f, const char *title, const char *format,
		    const char *path, fx_render_info *info, fx_diag *d)
{
	if (!b || !b->rack || !b->vertex_rack || !b->vertex_box || !fx_fabric_built(f) || !path)
		return fx_diag_internal(d, "render: the racks view needs a bill of materials and its fabric");
	if (!fx_render_format_known(format))
		return fx_diag_error(d, NULL, "render: unknown format '%s' (expected svg, png, pdf or dot)",
				     format);
	int64_t boxes = 0, w = 0, h = 0;
	int merged = 0;
	rd_gv_begin();
	Agraph_t *g = racks_graph(b, f, title, &boxes, &merged);
	int rc = rd_gv_check(d, "graph");
	if (rc == 0)
		rc = rd_gv_layout_write(g, "dot", RD_GV_RATIO, format, path, &w, &h, d);
	if (g)
		agclose(g);
	rd_gv_end();
	if (info) {
		memset(info, 0, sizeof *info);
		info->vertices = boxes;
		info->edges = 0;
		info->aggregated = merged;
		snprintf(info->engine, sizeof info->engine, "dot");
		info->width_px = w;
		info->height_px = h;
	}
	return rc;
}
