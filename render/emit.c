/*
 * The model as a cgraph graph, styled for its view.
 *
 * Shapes: devices are boxes, CPUs rounded boxes, switches hexagons;
 * aggregates (blocks, groups) get a double border and node boxes a grey
 * fill.  Physical view: links coloured by medium and thickened by count.
 * Loads: by utilisation, grey when idle, green through red.  Placement:
 * devices filled by instance, alternate groups lighter.  The graph label
 * holds the title, how the drawing aggregates, and the legend.
 */
#include <cgraph.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sort.h"
#include "../core/units.h"
#include "../core/xalloc.h"
#include "render_internal.h"

#define C_DEVICE "#cfe2ff"
#define C_DEVICE_LINE "#3d6fb6"
#define C_CPU "#d4edda"
#define C_CPU_LINE "#3c8d52"
#define C_SWITCH "#ffe2b3"
#define C_SWITCH_LINE "#c77c12"
#define C_NODE "#f0f0f0"
#define C_NODE_LINE "#555555"
#define C_IDLE "#b4b4b4"
#define C_UNPLACED "#ffffff"
#define C_FAILED "#d62728"
#define MAX_CELLS 32       /* device cells in a placement box */
#define LEGEND_INSTANCES 16

static const char *const medium_colour[FX_MEDIUMS] = {"#555555", "#2b7bb9", "#8c6bb1"};
/* Fans of edges leaving each switch, told apart (dark enough for labels). */
static const char *const fan_colour[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b",
					 "#e377c2", "#17a2b8", "#7f7f00", "#ff7f0e", "#555555"};
#define FANS (int)(sizeof fan_colour / sizeof fan_colour[0])

/* ---- a growing string ---- */

typedef struct sbuf {
	char *s;
	size_t n, cap;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		if (k < 0)
			return;
		if (b->s && b->n + (size_t)k < b->cap) {
			b->n += (size_t)k;
			return;
		}
		b->s = fx_xgrow(b->s, &b->cap, b->n + (size_t)k + 64, 1);
	}
}

static void sb_reset(sbuf *b)
{
	b->n = 0;
	if (b->s)
		b->s[0] = '\0';
	else
		sb_add(b, "%s", "");
}

/* Appends s with &, <, > escaped for HTML-like labels. */
static void sb_html(sbuf *b, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&': sb_add(b, "&amp;"); break;
		case '<': sb_add(b, "&lt;"); break;
		case '>': sb_add(b, "&gt;"); break;
		default: sb_add(b, "%c", *s);
		}
}

/* A name from the spec (a vertex, a role) in a label or a tooltip.
 * Graphviz reads backslash escapes in both (\N the node's name, \G the
 * graph's, \L, \n, \l ...).  In a label each backslash of the name is
 * doubled, and the name is drawn as written.  A tooltip is read for
 * escapes twice by Graphviz 2.42 (Debian 12) and may be once by others,
 * so no number of backslashes is right everywhere: there a name's
 * backslash is shown as U+29F5 (reverse solidus operator), which nothing
 * reads. */
#define TIP_BACKSLASH "\xe2\xa7\xb5"

static void sb_text(sbuf *b, const char *s, int tip)
{
	for (; *s; s++)
		if (*s == '\\')
			sb_add(b, "%s", tip ? TIP_BACKSLASH : "\\\\");
		else
			sb_add(b, "%c", *s);
}

/* The same into a fixed buffer (always terminated, the name cut short
 * when it does not fit). */
static const char *esc_text(const char *s, char *buf, size_t len, int tip)
{
	size_t k = 0;
	for (; *s && k + 4 < len; s++)
		if (*s == '\\') {
			memcpy(buf + k, tip ? TIP_BACKSLASH : "\\\\", tip ? 3 : 2);
			k += tip ? 3 : 2;
		} else {
			buf[k++] = *s;
		}
	buf[k] = '\0';
	return buf;
}

/* ---- colours ---- */

static const char *hsv(double h, double s, double v, char *buf)
{
	h = fmod(h, 1.0) * 6;
	int i = (int)h;
	double f = h - i, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
	double r, g, b;
	switch (i % 6) {
	case 0: r = v; g = t; b = p; break;
	case 1: r = q; g = v; b = p; break;
	case 2: r = p; g = v; b = t; break;
	case 3: r = p; g = q; b = v; break;
	case 4: r = t; g = p; b = v; break;
	default: r = v; g = p; b = q; break;
	}
	snprintf(buf, 8, "#%02x%02x%02x", (int)lround(r * 255), (int)lround(g * 255),
		 (int)lround(b * 255));
	return buf;
}

/* Utilisation 0 (idle, grey) .. 1 (red), through green and yellow. */
static const char *util_colour(double u, char *buf)
{
	if (!(u > 0))
		return strcpy(buf, C_IDLE);
	if (u > 1)
		u = 1;
	return hsv(0.33 * (1 - u), 0.85, 0.88 - 0.1 * u, buf);
}

static const char *instance_colour(int64_t inst, int64_t group, char *buf)
{
	if (inst < 0)
		return strcpy(buf, C_UNPLACED);
	double h = fmod((double)inst * 0.618033988749895 + 0.08, 1.0);
	return hsv(h, group % 2 ? 0.30 : 0.55, 0.98, buf);
}

/* ---- emission ---- */

typedef struct emit {
	const rd_model *m;
	const fx_fabric *f;
	const fx_render_opts *o;
	Agraph_t *g;
	Agraph_t **cg;          /* [ncl] */
	Agnode_t **nd;          /* [nbox] */
	int fail;
	sbuf sb, tip;
	int uniform;            /* every edge alike: its label goes to the title */
	int64_t *dev_start;     /* placement: devices of each box, CSR */
	int64_t *dev_list;
	int64_t ninst;
	unsigned media;         /* media drawn */
	int fans;               /* physical: edges coloured by their upper end */
	int64_t *fan;           /* [nbox] fan colour index of a tail box, -1 */
	int kinds[8];           /* box kinds drawn */
	int fan_labels;         /* physical fans whose edges are alike: labels in the legend */
	double umax;            /* loads: the busiest directed link drawn (scale of colours) */
	int64_t *box_failed;    /* [nbox] failed vertices in each box (NULL: none failed) */
	int64_t *in_failed;     /* [nbox] failed links inside each box */
	int64_t *edge_failed;   /* [nedge] failed links of each drawn edge */
	int64_t nfailed, nfailed_links;
} emit;

/* Loads: u relative to the busiest link, so a uniformly busy fabric does
 * not draw all red and a taper shows (0 when nothing is busy). */
static double rel(const emit *e, double u)
{
	return e->umax > 0 ? u / e->umax : 0;
}

/* Cluster i's name; a panel's prefix goes after "cluster" (Graphviz draws
 * only subgraphs named cluster... as boxes). */
static const char *cl_name(const emit *e, int64_t i, char *buf, size_t len)
{
	const char *n = e->m->cl[i].name, *p = e->m->prefix;
	if (p && strncmp(n, "cluster", 7) == 0)
		snprintf(buf, len, "cluster_%s%s", p, n + 7 + (n[7] == '_'));
	else
		snprintf(buf, len, "%s%s", p ? p : "", n);
	return buf;
}

/* A node's name without the panel's prefix, for text. */
static const char *plain_name(const emit *e, Agnode_t *n)
{
	const char *s = agnameof(n);
	size_t k = e->m->prefix ? strlen(e->m->prefix) : 0;
	return strncmp(s, e->m->prefix ? e->m->prefix : "", k) == 0 ? s + k : s;
}

static void set(emit *e, void *obj, const char *key, const char *val)
{
	if (agsafeset(obj, (char *)key, (char *)val, "") != 0)
		e->fail = 1;
}

static void setf(emit *e, void *obj, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void setf(emit *e, void *obj, const char *key, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	set(e, obj, key, buf);
}

static void set_html(emit *e, void *obj, const char *key, const char *html)
{
	char *h = agstrdup_html(e->g, (char *)html);
	if (!h) {
		e->fail = 1;
		return;
	}
	set(e, obj, key, h);
	agstrfree(e->g, h);
}

static const char *bw(double v, char *buf)
{
	return fx_unit_format(v, FX_UNIT_BANDWIDTH, buf, 32);
}

static void plural(sbuf *b, int64_t n, const char *noun)
{
	char c[32];
	sb_add(b, "%s %s%s", rd_int(n, c, sizeof c), noun, n == 1 ? "" : "s");
}

/* "8 NPUs · 4 CPUs · 7 L1" */
static void contents(emit *e, const rd_box *x, sbuf *b, const char *sep)
{
	int first = 1;
	if (x->n[FX_V_DEVICE]) {
		plural(b, x->n[FX_V_DEVICE], e->m->noun);
		first = 0;
	}
	if (x->n[FX_V_CPU]) {
		sb_add(b, "%s", first ? "" : sep);
		plural(b, x->n[FX_V_CPU], "CPU");
		first = 0;
	}
	for (int r = 0; r < e->f->nroles; r++)
		if (x->nrole[r]) {
			char c[32];
			sb_add(b, "%s%s ", first ? "" : sep, rd_int(x->nrole[r], c, sizeof c));
			sb_text(b, e->f->roles[r].name, b == &e->tip);
			first = 0;
		}
}

/* "inside: 140 x 28 GB/s" */
static void inner(emit *e, const rd_box *x, sbuf *b, const char *nl)
{
	char c[32], w[32];
	if (!x->in_links)
		return;
	if (x->in_link_bw > 0)
		sb_add(b, "%sinside: %s x %s", nl, rd_int(x->in_links, c, sizeof c), bw(x->in_link_bw, w));
	else
		sb_add(b, "%sinside: %s links, %s", nl, rd_int(x->in_links, c, sizeof c), bw(x->in_bw, w));
	if (e->o->view == FX_VIEW_LOADS)
		sb_add(b, "%sbusiest inside: %.0f%%", nl, 100 * x->in_util);
}

static void range_name(emit *e, const rd_box *x, sbuf *b)
{
	const fx_vertex *a = &e->f->v[x->first], *z = &e->f->v[x->last];
	const char *noun = a->type == FX_V_CPU ? "CPU" : e->m->noun;
	sb_add(b, "%ss %d–%d", noun, a->index, z->index);
}

static void lattice_name(emit *e, const rd_box *x, sbuf *b, const char *nl)
{
	static const char axis[] = "xyzuvwst";
	int nd = e->f->ndims;
	char c[32];
	if (x->unit[0])
		sb_add(b, "%s %d%s", x->unit, x->unit_id, nl);
	int64_t size = 1;
	for (int i = 0; i < nd; i++)
		size *= x->hi[i] - x->lo[i] + 1;
	plural(b, size, e->m->noun);
	sb_add(b, " (");
	for (int i = 0; i < nd; i++)
		sb_add(b, "%s%d", i ? "×" : "", x->hi[i] - x->lo[i] + 1);
	sb_add(b, ")%s", nl);
	for (int i = 0; i < nd; i++) {
		if (x->lo[i] == x->hi[i])
			sb_add(b, "%s%c %d", i ? " · " : "", axis[i], x->lo[i]);
		else
			sb_add(b, "%s%c %d–%d", i ? " · " : "", axis[i], x->lo[i], x->hi[i]);
	}
	if (x->units > 1)
		sb_add(b, "%s%s nodes", nl, rd_int(x->units, c, sizeof c));
}

/* The plain text label of a box. */
static void box_label(emit *e, const rd_box *x, sbuf *b)
{
	char name[64], c[32];
	const fx_fabric *f = e->f;
	switch (x->kind) {
	case RD_DEVICE:
	case RD_CPU:
	case RD_SWITCH:
		sb_text(b, fx_fabric_vertex_name(f, x->first, name, sizeof name), b == &e->tip);
		break;
	case RD_NODE:
		sb_add(b, "node %d\\n", x->node);
		contents(e, x, b, " · ");
		break;
	case RD_RACK: {
		int64_t nodes = 0;
		for (int64_t v = x->first; v <= x->last; v++)
			nodes += e->m->box_of[v] == e->m->box_of[x->first] && e->f->v[v].node >= 0 &&
				 (v == x->first || e->f->v[v].node != e->f->v[v - 1].node);
		if (x->rack_hi > x->rack)
			sb_add(b, "%ss %d–%d\\n", e->m->unit, x->rack, x->rack_hi);
		else
			sb_add(b, "%s %d\\n", e->m->unit, x->rack);
		if (nodes)
			sb_add(b, "%s node%s · ", rd_int(nodes, c, sizeof c), nodes == 1 ? "" : "s");
		contents(e, x, b, " · ");
		break;
	}
	case RD_BLOCK:
		range_name(e, x, b);
		break;
	case RD_GROUP: {
		const fx_role *r = &f->roles[x->role];
		if (x->plane >= 0) {
			sb_text(b, r->name, b == &e->tip);
			sb_add(b, " plane %d\\n%s chips", x->plane, rd_int(x->n[FX_V_SWITCH], c, sizeof c));
		} else {
			sb_add(b, "%s ", rd_int(x->n[FX_V_SWITCH], c, sizeof c));
			sb_text(b, r->name, b == &e->tip);
		}
		if (e->m->tiers_derived)  /* the spec gives no tiers: say where they came from */
			sb_add(b, "\\ntier %d (by hops)", x->tier);
		if (r->radix > 0)
			sb_add(b, "\\n%d ports each", r->radix);
		break;
	}
	case RD_LATTICE:
		lattice_name(e, x, b, "\\n");
		break;
	}
	inner(e, x, b, "\\n");
}

static int id_cmp(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

#define SHOWN 4  /* instances listed in a box with too many cells */

/* Placement: an HTML table with one cell per device, filled by instance. */
static void placement_label(emit *e, int64_t bi, const rd_box *x, sbuf *b)
{
	const int64_t *inst = e->o->instance, *grp = e->m->x->group;
	int64_t n = e->dev_start[bi + 1] - e->dev_start[bi];
	const int64_t *dev = e->dev_list + e->dev_start[bi];
	char col[8];
	sbuf head = {0};
	sb_reset(&head);
	switch (x->kind) {
	case RD_NODE: sb_add(&head, "node %d", x->node); break;
	case RD_RACK:
		if (x->rack_hi > x->rack)
			sb_add(&head, "%ss %d–%d", e->m->unit, x->rack, x->rack_hi);
		else
			sb_add(&head, "%s %d", e->m->unit, x->rack);
		break;
	case RD_BLOCK: range_name(e, x, &head); break;
	case RD_LATTICE: lattice_name(e, x, &head, "\n"); break;
	default: break;
	}
	sb_add(b, "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"1\" CELLPADDING=\"2\">");
	int cols = n <= 8 ? (int)(n > 0 ? n : 1) : 8;
	sb_add(b, "<TR><TD BORDER=\"0\" COLSPAN=\"%d\">", cols);
	for (char *p = head.s; *p; p++) {  /* lines of the heading */
		char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = fx_xstrndup(p, len);
		sb_html(b, line);
		free(line);
		if (!nl)
			break;
		sb_add(b, "<BR/>");
		p = nl;
	}
	free(head.s);
	sb_add(b, "</TD></TR>");
	if (n <= MAX_CELLS) {
		for (int64_t k = 0; k < n; k++) {
			int64_t v = dev[k], i = inst ? inst[v] : -1;
			if (k % cols == 0)
				sb_add(b, "<TR>");
			instance_colour(i, grp && i >= 0 ? grp[v] : 0, col);
			if (i >= 0)
				sb_add(b, "<TD BGCOLOR=\"%s\"><FONT POINT-SIZE=\"8\">%lld</FONT></TD>", col,
				       (long long)i);
			else
				sb_add(b, "<TD BGCOLOR=\"%s\"><FONT POINT-SIZE=\"8\" COLOR=\"#999999\">-</FONT></TD>",
				       col);
			if (k % cols == cols - 1 || k == n - 1)
				sb_add(b, "</TR>");
		}
	} else {  /* too many cells: the instances present, most devices first */
		int64_t *ids = fx_xmalloc((size_t)n * sizeof *ids), m = 0, none = 0;
		for (int64_t k = 0; k < n; k++) {
			int64_t i = inst ? inst[dev[k]] : -1;
			if (i < 0)
				none++;
			else
				ids[m++] = i;
		}
		fx_sort_r(ids, (size_t)m, sizeof *ids, id_cmp, NULL);
		/* runs of one instance: the SHOWN largest (ties: lower number) */
		int64_t top[SHOWN], topn[SHOWN], ntop = 0, ninst = 0, listed = 0;
		for (int64_t k = 0, j; k < m; k = j) {
			for (j = k; j < m && ids[j] == ids[k]; j++)
				;
			ninst++;
			int64_t cnt = j - k, t = ntop < SHOWN ? ntop++ : SHOWN;
			while (t > 0 && topn[t - 1] < cnt) {
				if (t < SHOWN) {
					top[t] = top[t - 1];
					topn[t] = topn[t - 1];
				}
				t--;
			}
			if (t < SHOWN) {
				top[t] = ids[k];
				topn[t] = cnt;
			}
		}
		free(ids);
		for (int64_t t = 0; t < ntop; t++) {
			sb_add(b, "<TR><TD BGCOLOR=\"%s\" COLSPAN=\"%d\">instance %lld: %lld</TD></TR>",
			       instance_colour(top[t], 0, col), cols, (long long)top[t], (long long)topn[t]);
			listed += topn[t];
		}
		if (ninst > ntop)  /* never hide what the box holds */
			sb_add(b, "<TR><TD COLSPAN=\"%d\">+%lld more (%lld %ss)</TD></TR>", cols,
			       (long long)(ninst - ntop), (long long)(m - listed), e->m->noun);
		if (none)
			sb_add(b, "<TR><TD COLSPAN=\"%d\">unplaced: %lld</TD></TR>", cols, (long long)none);
	}
	sb_add(b, "</TABLE>");
}

/* A box holding failed vertices or links: red and dashed, greyed when all
 * it holds failed, its label saying how many (not in placement cells). */
static void mark_failed_box(emit *e, Agnode_t *n, int64_t bi, int cells)
{
	const rd_box *x = &e->m->box[bi];
	int64_t held = x->n[0] + x->n[1] + x->n[2], k = e->box_failed[bi];
	char c[32];
	/* partly failed: dashed in its own colour, which may show its load */
	set(e, n, "style", x->kind == RD_CPU ? "rounded,filled,dashed" : "filled,dashed");
	if (k == held) {
		set(e, n, "color", C_FAILED);
		set(e, n, "penwidth", "2");
		set(e, n, "fillcolor", "#e4e4e4");
	}
	setf(e, n, "failed", "%lld", (long long)k);
	if (cells)
		return;
	if (k == held && held == 1)
		sb_add(&e->sb, "\\nfailed");
	else if (k)
		sb_add(&e->sb, "\\n%s failed", rd_int(k, c, sizeof c));
	else
		sb_add(&e->sb, "\\n%s links failed", rd_int(e->in_failed[bi], c, sizeof c));
	set(e, n, "label", e->sb.s);
}

static void style_box(emit *e, Agnode_t *n, int64_t bi)
{
	const rd_box *x = &e->m->box[bi];
	char col[8];
	e->kinds[x->kind] = 1;
	switch (x->kind) {
	case RD_DEVICE:
	case RD_BLOCK:
	case RD_LATTICE:
		set(e, n, "shape", "box");
		set(e, n, "fillcolor", x->n[FX_V_CPU] && !x->n[FX_V_DEVICE] ? C_CPU : C_DEVICE);
		set(e, n, "color", x->n[FX_V_CPU] && !x->n[FX_V_DEVICE] ? C_CPU_LINE : C_DEVICE_LINE);
		if (x->kind != RD_DEVICE)
			set(e, n, "peripheries", "2");
		set(e, n, "class", x->kind == RD_DEVICE ? "device" : x->kind == RD_BLOCK ? "block" : "lattice-block");
		break;
	case RD_CPU:
		set(e, n, "shape", "box");
		set(e, n, "style", "rounded,filled");
		set(e, n, "fillcolor", C_CPU);
		set(e, n, "color", C_CPU_LINE);
		set(e, n, "class", "cpu");
		break;
	case RD_SWITCH:
	case RD_GROUP:
		set(e, n, "shape", "hexagon");
		set(e, n, "fillcolor", C_SWITCH);
		set(e, n, "color", C_SWITCH_LINE);
		if (x->kind == RD_GROUP)
			set(e, n, "peripheries", "2");
		set(e, n, "class", x->kind == RD_GROUP ? "switch-group" : "switch");
		break;
	case RD_NODE:
	case RD_RACK:
		set(e, n, "shape", "box");
		set(e, n, "fillcolor", C_NODE);
		set(e, n, "color", C_NODE_LINE);
		set(e, n, "class", x->kind == RD_NODE ? "node" : "rack");
		if (x->kind == RD_RACK)
			set(e, n, "peripheries", "2");
		break;
	}
	if (x->in_links) {
		setf(e, n, "inner_links", "%lld", (long long)x->in_links);
		setf(e, n, "inner_bandwidth", "%.6g", x->in_bw);
		if (e->o->view == FX_VIEW_LOADS) {
			set(e, n, "color", util_colour(rel(e, x->in_util), col));
			setf(e, n, "penwidth", "%.2f", 1 + 4 * rel(e, x->in_util));
			setf(e, n, "inner_util", "%.4f", x->in_util);
		}
	}
	if (x->pinned)
		setf(e, n, "pos", "%.3f,%.3f!", x->x, x->y);
	/* the label */
	sb_reset(&e->sb);
	int cells = e->o->view == FX_VIEW_PLACEMENT && e->o->instance && x->n[FX_V_DEVICE] &&
		    x->kind != RD_DEVICE;
	if (cells) {
		placement_label(e, bi, x, &e->sb);
		set_html(e, n, "label", e->sb.s);
		set(e, n, "margin", "0.05");
	} else {
		box_label(e, x, &e->sb);
		set(e, n, "label", e->sb.s);
	}
	if (e->o->view == FX_VIEW_PLACEMENT && e->o->instance && x->kind == RD_DEVICE) {
		int64_t v = x->first, i = e->o->instance[v];
		set(e, n, "fillcolor", instance_colour(i, e->m->x->group && i >= 0 ? e->m->x->group[v] : 0, col));
		if (i >= 0) {
			sb_add(&e->sb, "\\ninstance %lld", (long long)i);
			set(e, n, "label", e->sb.s);
			setf(e, n, "instance", "%lld", (long long)i);
		}
	}
	if (e->box_failed && (e->box_failed[bi] || e->in_failed[bi]))
		mark_failed_box(e, n, bi, cells);
	/* the tooltip: the label's facts on one line */
	sb_reset(&e->tip);
	box_label(e, x, &e->tip);
	for (char *p = e->tip.s; *p; p++)  /* our line breaks, not a name's doubled backslash */
		if (p[0] == '\\' && p[1] == 'n')
			p[0] = ';', p[1] = ' ';
		else if (p[0] == '\\' && p[1])
			p++;
	set(e, n, "tooltip", e->tip.s);
}

static void edge_label(emit *e, const rd_edge *x, sbuf *b, int with_count, int with_util)
{
	char c[32], w[32], t[32];
	const char *nl = "";
	if (with_count) {
		if (x->link_bw > 0)
			sb_add(b, "%s x %s", rd_int(x->links, c, sizeof c), bw(x->link_bw, w));
		else
			sb_add(b, "%s links", rd_int(x->links, c, sizeof c));
		if (x->links >= 10 || x->link_bw <= 0)
			sb_add(b, "\\n= %s", bw(x->bw, t));
		if ((x->ltail >= 0 || x->lhead >= 0) && x->parts > 1 && x->links % x->parts == 0)
			sb_add(b, "\\n(%s per %s)", rd_int(x->links / x->parts, c, sizeof c),
			       e->m->box[x->b].kind != RD_RACK ? "node" :
			       e->m->box[x->b].rack_hi > e->m->box[x->b].rack ? "range" : e->m->unit);
		nl = "\\n";
	}
	if (with_util && e->o->view == FX_VIEW_LOADS)
		sb_add(b, x->util > 0 ? "%sutil %.0f%%" : "%sidle", nl, 100 * x->util);
}

/* A lattice of one dimension that wraps is drawn as a circle: its
 * wraparound is a neighbour like any other (lattice.c, place()). */
static int drawn_ring(const rd_model *m)
{
	int eff = 0, wrap = 0;
	for (int i = 0; i < m->f->ndims; i++)
		if (m->f->dims[i] > 1) {
			eff++;
			wrap = m->f->wrap[i];
		}
	return m->lattice && eff == 1 && wrap;
}

/* Whether dot draws edge x within one rank: its ends on one level of a
 * tiered drawing (rank=same per level; other edges have minlen >= 1). */
static int flat_edge(const rd_model *m, const rd_edge *x)
{
	if (m->cube)  /* a cube's face diagonals cross mid-face: labels placed beside, apart */
		return 1;
	return m->nlevels && strcmp(m->engine, "dot") == 0 && m->box[x->a].level >= 0 &&
	       m->box[x->a].level == m->box[x->b].level;
}

static void style_edge(emit *e, Agedge_t *g, const rd_edge *x)
{
	char col[8], c[32], w[32], t[32], na[200], nb[200];
	const rd_model *m = e->m;
	int medium = -1;
	for (int k = 0; k < FX_MEDIUMS; k++)
		if (x->media == 1u << k)
			medium = k;
	e->media |= x->media;
	setf(e, g, "links", "%lld", (long long)x->links);
	setf(e, g, "bandwidth", "%.6g", x->bw);
	switch (e->o->view) {
	case FX_VIEW_LOADS:
		set(e, g, "color", util_colour(rel(e, x->util), col));
		setf(e, g, "penwidth", "%.2f", 1 + (m->nedge > 24 ? 2.5 : 5) * rel(e, x->util));
		if (!(x->util > 0))
			set(e, g, "style", "dotted");  /* idle: visibly not carrying anything */
		setf(e, g, "util", "%.4f", x->util);
		break;
	case FX_VIEW_PLACEMENT:
		set(e, g, "color", "#b0b0b0");
		break;
	default:
		if (e->fans) {
			set(e, g, "color", fan_colour[e->fan[x->a]]);
			set(e, g, "fontcolor", fan_colour[e->fan[x->a]]);
		} else {
			set(e, g, "color", medium >= 0 ? medium_colour[medium] : "#333333");
		}
		setf(e, g, "penwidth", "%.2f", 1 + fmin(3, log10((double)x->links)));
		break;
	}
	if (x->wrap && !drawn_ring(m)) {  /* wraparounds: long by nature, drawn lightly */
		set(e, g, "style", "dashed");
		if (e->o->view == FX_VIEW_PHYSICAL)
			set(e, g, "color", "#a8a8a8");
	}
	char cn[96];
	if (x->ltail >= 0)
		set(e, g, "ltail", cl_name(e, x->ltail, cn, sizeof cn));
	if (x->lhead >= 0)
		set(e, g, "lhead", cl_name(e, x->lhead, cn, sizeof cn));
	if (x->lhead >= 0 && m->nlevels > 2)  /* rows sit close: room to enter the area */
		set(e, g, "minlen", "3");
	/* an edge within one rank of a tiered dot drawing is a flat edge: its
	 * label goes beside it (xlabel), never on it.  Graphviz 2.43 makes room
	 * for flat edges' labels by adding a rank above the top one
	 * (flat_edges, abomination) and with clusters then frees that array
	 * twice in gvFreeLayout: a rail-optimised custom graph without tiers
	 * (tests/specs/rail-512.yaml) aborted with "free(): invalid pointer". */
	const char *lkey = flat_edge(m, x) ? "xlabel" : "label";
	sb_reset(&e->sb);
	edge_label(e, x, &e->sb, !e->uniform, !m->uniform_util);
	if (m->edge_labels && e->sb.n && !e->fan_labels)
		set(e, g, lkey, e->sb.s);
	int64_t i = x - m->edge;
	if (e->edge_failed && i >= 0 && i < m->nedge && e->edge_failed[i]) {
		set(e, g, "color", C_FAILED);
		set(e, g, "style", "dashed");
		setf(e, g, "failed", "%lld", (long long)e->edge_failed[i]);
		if (m->edge_labels && e->edge_failed[i] < x->links) {
			sb_add(&e->sb, "%s%s failed", e->sb.n ? "\\n" : "", rd_int(e->edge_failed[i], c, sizeof c));
			set(e, g, lkey, e->sb.s);
		} else if (m->edge_labels) {
			set(e, g, lkey, "failed");
		}
	}
	/* tooltip */
	sb_reset(&e->tip);
	esc_text(x->ltail >= 0 ? m->cl[x->ltail].label : plain_name(e, e->nd[x->a]), na, sizeof na, 1);
	esc_text(x->lhead >= 0 ? m->cl[x->lhead].label : plain_name(e, e->nd[x->b]), nb, sizeof nb, 1);
	sb_add(&e->tip, "%s – %s: %s links", na, nb, rd_int(x->links, c, sizeof c));
	if (x->link_bw > 0)
		sb_add(&e->tip, " x %s", bw(x->link_bw, w));
	sb_add(&e->tip, " = %s per direction", bw(x->bw, t));
	for (int k = 0; k < FX_MEDIUMS; k++)
		if (x->media & 1u << k)
			sb_add(&e->tip, ", %s", fx_medium_name((fx_medium)k));
	if (e->o->view == FX_VIEW_LOADS)
		sb_add(&e->tip, "; busiest directed link %.1f%% busy", 100 * x->util);
	set(e, g, "tooltip", e->tip.s);
}

/* A unique node name for box b (after the panel's prefix, if any). */
static void box_name(emit *e, int64_t bi, char *buf, size_t len)
{
	const rd_box *x = &e->m->box[bi];
	char name[64];
	size_t pre = snprintf(buf, len, "%s", e->m->prefix ? e->m->prefix : "");
	buf += pre < len ? pre : len - 1;
	len -= pre < len ? pre : len - 1;
	switch (x->kind) {
	case RD_NODE: snprintf(buf, len, "node%d", x->node); break;
	case RD_RACK: snprintf(buf, len, "%s%d", e->m->unit, x->rack); break;
	case RD_BLOCK:
		snprintf(buf, len, "%s%d-%d", e->f->v[x->first].type == FX_V_CPU ? "cpu" : "dev",
			 e->f->v[x->first].index, e->f->v[x->last].index);
		break;
	case RD_GROUP:
		if (x->plane >= 0)
			snprintf(buf, len, "%s.p%d", e->f->roles[x->role].name, x->plane);
		else
			snprintf(buf, len, "%s", e->f->roles[x->role].name);
		if (x->rack >= 0 && e->f->nracks > 1) {
			size_t k = strlen(buf);
			snprintf(buf + k, len - k, ".%s%d", e->m->unit, x->rack);
		}
		break;
	case RD_LATTICE:
		if (x->unit[0])
			snprintf(buf, len, "%s%d", x->unit, x->unit_id);
		else
			snprintf(buf, len, "block%lld", (long long)bi);
		break;
	default:
		snprintf(buf, len, "%s", fx_fabric_vertex_name(e->f, x->first, name, sizeof name));
	}
	/* custom vertex names may clash with generated ones */
	if (agnode(e->g, buf - pre, 0)) {
		size_t k = strlen(buf);
		snprintf(buf + k, len - k, "#%lld", (long long)bi);
	}
}

/* Legend swatches are drawn (table cells: filled, outlined, bars), not
 * glyphs: converters of SVG to PNG or PDF drop what their fonts lack. */
typedef enum swatch { SW_FILL, SW_HOLLOW, SW_DOUBLE, SW_ROUND, SW_LINE, SW_DASHED, SW_DOTTED } swatch;

/* A row of legend cells inside an open cell of the title. */
static void leg_open(sbuf *b)
{
	sb_add(b, "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"1\"><TR>");
}

static void leg_close(sbuf *b)
{
	if (b->n >= 4 && strcmp(b->s + b->n - 4, "<TR>") == 0)
		sb_add(b, "<TD></TD>");  /* an empty row is an HTML label syntax error */
	sb_add(b, "</TR></TABLE>");
}

/* Graphviz stretches a nested table to its cell, spreading the extra
 * width evenly over the columns: text sits left in its cell and each
 * swatch right in its own, so a swatch stays beside its text. */
static void leg_text(sbuf *b, const char *text)
{
	sb_add(b, "<TD ALIGN=\"LEFT\">");
	sb_html(b, text);
	sb_add(b, "</TD><TD WIDTH=\"12\"></TD>");
}

static void swatch_cell(sbuf *b, const char *colour, swatch s, int width)
{
	static const int w[] = {[SW_FILL] = 12, [SW_HOLLOW] = 12, [SW_DOUBLE] = 12, [SW_ROUND] = 12,
				[SW_LINE] = 22, [SW_DASHED] = 22, [SW_DOTTED] = 22};
	int h = s >= SW_LINE ? (s == SW_LINE ? 3 : 4) : 12;
	sb_add(b, "<TD WIDTH=\"%d\" HEIGHT=\"%d\" FIXEDSIZE=\"TRUE\" ALIGN=\"%s\"", width > 0 ? width : w[s], h,
	       width > 0 ? "LEFT" : "RIGHT");
	switch (s) {
	case SW_FILL: case SW_LINE: sb_add(b, " BGCOLOR=\"%s\"", colour); break;
	case SW_ROUND: sb_add(b, " BGCOLOR=\"%s\" STYLE=\"rounded\"", colour); break;
	case SW_HOLLOW: sb_add(b, " BORDER=\"1\" COLOR=\"%s\"", colour); break;
	case SW_DOUBLE: sb_add(b, " BORDER=\"2\" COLOR=\"%s\" BGCOLOR=\"#f0f0f0\"", colour); break;
	case SW_DASHED: sb_add(b, " BORDER=\"1\" COLOR=\"%s\" STYLE=\"dashed\"", colour); break;
	case SW_DOTTED: sb_add(b, " BORDER=\"1\" COLOR=\"%s\" STYLE=\"dotted\"", colour); break;
	}
	sb_add(b, "></TD>%s", width > 0 ? "" : "<TD WIDTH=\"3\"></TD>");
}

/* A legend entry: a drawn swatch, then the text. */
static void legend_item(sbuf *b, const char *colour, swatch s, const char *text)
{
	swatch_cell(b, colour, s, 0);
	leg_text(b, text);
}

static void row_open(sbuf *b)
{
	sb_add(b, "<TR><TD ALIGN=\"LEFT\">");
	leg_open(b);
}

static void row_close(sbuf *b)
{
	leg_close(b);
	sb_add(b, "</TD></TR>");
}

/* A link's class: the kinds of its two ends ("leaf–spine", "GPU–nvswitch"),
 * or on a lattice its dimension ("z links"). */
static void link_class(const emit *e, int64_t l, char *buf, size_t len)
{
	const fx_fabric *f = e->f;
	int64_t u = f->ends[2 * l], v = f->ends[2 * l + 1];
	if (f->ndims > 0 && f->v[u].type == FX_V_DEVICE && f->v[v].type == FX_V_DEVICE) {
		/* lattices: by dimension (a long dimension is a bottleneck) */
		static const char axis[] = "xyzuvwst";
		int a[FX_MAX_DIMS], b[FX_MAX_DIMS], k = 0;
		fx_fabric_coords(f, u, a);
		fx_fabric_coords(f, v, b);
		while (k < f->ndims - 1 && a[k] == b[k])
			k++;
		snprintf(buf, len, "%c links", axis[k < 8 ? k : 7]);
		return;
	}
	const char *n[2];
	int t[2];
	for (int k = 0; k < 2; k++) {
		const fx_vertex *v = &e->f->v[e->f->ends[2 * l + k]];
		n[k] = v->type == FX_V_SWITCH && v->role >= 0 ? e->f->roles[v->role].name :
		       v->type == FX_V_CPU ? "CPU" : e->m->noun;
		t[k] = v->type == FX_V_SWITCH && v->role >= 0 ? e->f->roles[v->role].tier : -1;
	}
	int lo = t[0] > t[1] || (t[0] == t[1] && strcmp(n[0], n[1]) > 0);
	snprintf(buf, len, "%s–%s", n[lo], n[!lo]);
}

#define MAX_CLASSES 8

/* Loads: busiest and mean utilisation per link class as a small bar chart,
 * so that a picture of even colours still says where the bottleneck is. */
static void class_chart(emit *e, sbuf *b)
{
	const fx_fabric *f = e->f;
	const double *u = e->o->utilisation;
	char name[MAX_CLASSES][48], c[48], col[8];
	double top[MAX_CLASSES] = {0}, sum[MAX_CLASSES] = {0};
	int64_t cnt[MAX_CLASSES] = {0};
	int n = 0;
	for (int64_t l = 0; l < f->ne && u; l++) {
		link_class(e, l, c, sizeof c);
		int k = 0;
		while (k < n && strcmp(name[k], c))
			k++;
		if (k == n) {
			if (n == MAX_CLASSES)
				return;  /* too many classes for a chart */
			snprintf(name[n++], sizeof name[0], "%s", c);
		}
		for (int d = 0; d < 2; d++) {
			top[k] = fmax(top[k], u[2 * l + d]);
			sum[k] += u[2 * l + d] * f->e[l].count;
			cnt[k] += f->e[l].count;
		}
	}
	if (n < 2)
		return;
	sb_add(b, "<TR><TD ALIGN=\"LEFT\">by link class, busiest (filled bar) and mean (outlined) "
	       "utilisation:</TD></TR>");
	/* one table, a row per class: its columns line up */
	sb_add(b, "<TR><TD ALIGN=\"LEFT\"><TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"1\">");
	for (int k = 0; k < n; k++) {
		int bars = (int)lround(20 * rel(e, top[k])), mbars = (int)lround(20 * rel(e, sum[k] / cnt[k]));
		char t[48];
		sb_add(b, "<TR>");
		leg_text(b, name[k]);
		swatch_cell(b, util_colour(rel(e, top[k]), col), SW_FILL, 6 * (bars > 1 ? bars : 1));
		snprintf(t, sizeof t, "%.3g%%", 100 * top[k]);
		leg_text(b, t);
		swatch_cell(b, "#777777", SW_HOLLOW, 6 * (mbars > 1 ? mbars : 1));
		snprintf(t, sizeof t, "%.3g%% mean", 100 * sum[k] / cnt[k]);
		leg_text(b, t);
		sb_add(b, "</TR>");
	}
	sb_add(b, "</TABLE></TD></TR>");
}

/* The legend's swatches and scale: whole rows of the title's table. */
static void legend(sbuf *b, const rd_legend *l)
{
	char col[8], c1[32];
	switch (l->view) {
	case FX_VIEW_LOADS: {
		static const double steps[] = {0.1, 0.25, 0.5, 0.75, 1.0};
		if (l->absolute)
			sb_add(b, "<TR><TD ALIGN=\"LEFT\">colour and width (absolute scale): a drawn edge's "
			       "busiest directed link, the fraction of the time it is busy at its capacity "
			       "per direction; a box's border: its busiest link inside</TD></TR>");
		else
			sb_add(b, "<TR><TD ALIGN=\"LEFT\">colour and width (relative scale): a drawn edge's "
			       "busiest directed link, relative to the busiest of all (%.3g%% busy); a box's "
			       "border: its busiest link inside</TD></TR>", 100 * l->umax);
		row_open(b);
		legend_item(b, C_IDLE, SW_DOTTED, "idle");
		for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
			char t[48];
			if (l->absolute)
				snprintf(t, sizeof t, "%.0f%% busy", 100 * steps[i]);
			else
				snprintf(t, sizeof t, "%.0f%% (%.3g%% busy)", 100 * steps[i],
					 100 * steps[i] * l->umax);
			legend_item(b, util_colour(steps[i], col), SW_FILL, t);
		}
		break;
	}
	case FX_VIEW_PLACEMENT: {
		row_open(b);
		leg_text(b, "instance:");
		int64_t shown = l->ninst < LEGEND_INSTANCES ? l->ninst : LEGEND_INSTANCES;
		for (int64_t i = 0; i < shown; i++) {
			char t[32];
			snprintf(t, sizeof t, "%lld", (long long)i);
			legend_item(b, instance_colour(i, 0, col), SW_FILL, t);
		}
		if (l->ninst > shown) {  /* on a row of its own: the legend stays narrow */
			char t[96];
			snprintf(t, sizeof t, "… %s instances (colours repeat; cells give the number)",
				 rd_int(l->ninst, c1, sizeof c1));
			row_close(b);
			row_open(b);
			leg_text(b, t);
		}
		legend_item(b, "#cccccc", SW_HOLLOW, "unplaced");
		if (l->group)
			leg_text(b, "(lighter: odd groups of an instance)");
		break;
	}
	default:
		row_open(b);
		if (l->kinds[RD_DEVICE] || l->kinds[RD_BLOCK] || l->kinds[RD_LATTICE])
			legend_item(b, C_DEVICE_LINE, SW_FILL, l->noun);
		if (l->kinds[RD_CPU])
			legend_item(b, C_CPU_LINE, SW_FILL, "CPU");
		if (l->kinds[RD_SWITCH] || l->kinds[RD_GROUP])
			legend_item(b, C_SWITCH_LINE, SW_ROUND, "switch");
		if (l->kinds[RD_NODE])
			legend_item(b, C_NODE_LINE, SW_HOLLOW, "node box");
		if (l->kinds[RD_RACK]) {
			char t[24];
			snprintf(t, sizeof t, "%s box", l->unit[0] ? l->unit : "rack");
			legend_item(b, C_NODE_LINE, SW_DOUBLE, t);
		}
		if (l->kinds[RD_BLOCK] || l->kinds[RD_GROUP] || l->kinds[RD_LATTICE])
			leg_text(b, "(double border: several)");
		if (l->fans)
			leg_text(b, "links:");
		for (int k = 0; k < FX_MEDIUMS; k++)
			if (l->media & 1u << k)
				legend_item(b, l->fans ? "#333333" : medium_colour[k], SW_LINE,
					    fx_medium_name((fx_medium)k));
		if (l->fans) {
			char t[80];
			snprintf(t, sizeof t, "(%sedges coloured by the switch they leave)",
				 l->panels > l->fans ? "some panels' " : "");
			leg_text(b, t);
		}
		break;
	}
	if (l->failed)
		legend_item(b, C_FAILED, SW_DASHED, "failed, with its links");
	row_close(b);
}

/* Physical fans whose edges are alike: each fan's label (its colour, its
 * edges' links), in the open cell. */
static void fan_legend(emit *e, sbuf *b)
{
	const rd_model *m = e->m;
	leg_open(b);
	for (int64_t i = 0; i < m->nedge; i++) {
		const rd_edge *x = &m->edge[i];
		int first = 1;
		for (int64_t j = 0; j < i && first; j++)
			first = m->edge[j].a != x->a;
		if (!first)
			continue;
		sbuf l = {0};
		sb_reset(&l);
		sb_add(&l, "%s: ", plain_name(e, e->nd[x->a]));
		edge_label(e, x, &l, 1, 0);
		sb_add(&l, " each");
		for (char *p = l.s; (p = strstr(p, "\\n")); p++) {
			p[0] = ' ';
			p[1] = ' ';
		}
		legend_item(b, fan_colour[e->fan[x->a]], SW_LINE, l.s);
		free(l.s);
	}
	leg_close(b);
}

/* What e drew, for a legend. */
static void legend_of(const emit *e, rd_legend *l)
{
	memset(l, 0, sizeof *l);
	l->view = e->o->view;
	memcpy(l->kinds, e->kinds, sizeof l->kinds);
	l->media = e->media;
	l->fans = e->fans != 0;
	l->panels = 1;
	l->ninst = e->ninst;
	l->group = e->m->x->group != NULL;
	l->failed = e->nfailed > 0;
	l->umax = e->umax;
	l->absolute = e->m->x->util_absolute != 0;
	snprintf(l->noun, sizeof l->noun, "%s", e->m->noun);
	snprintf(l->unit, sizeof l->unit, "%s", e->m->unit);
}

static int wrap_stubs(const rd_model *m);
static int ocs_drawn(const emit *e);
static int straight_edges(const rd_model *m);

/* The graph label: title, what is drawn, legend. */
static void title(emit *e, sbuf *b)
{
	const fx_fabric *f = e->f;
	const rd_model *m = e->m;
	static const char *const views[] = {"physical view", "loads view", "placement view"};
	char c1[32], c2[32], c3[32], c4[32];
	sb_add(b, "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"3\">");
	sb_add(b, "<TR><TD ALIGN=\"LEFT\"><FONT POINT-SIZE=\"18\"><B>");
	sb_html(b, e->o->title ? e->o->title : f->name ? f->name : "fabric");
	sb_add(b, "</B></FONT>  <FONT POINT-SIZE=\"14\">%s</FONT></TD></TR>", views[e->o->view]);
	sb_add(b, "<TR><TD ALIGN=\"LEFT\">");
	sb_html(b, f->builder ? f->builder->kind : "custom");
	sb_add(b, " fabric · ");
	sbuf nouns = {0};
	sb_reset(&nouns);
	plural(&nouns, f->ndev, m->noun);
	sb_html(b, nouns.s);
	free(nouns.s);
	if (f->nsw)
		sb_add(b, " · %s switch chips", rd_int(f->nsw, c1, sizeof c1));
	if (f->ncpu)
		sb_add(b, " · %s CPUs", rd_int(f->ncpu, c2, sizeof c2));
	sb_add(b, " · %s links in %s bundles</TD></TR>", rd_int(fx_fabric_links(f), c3, sizeof c3),
	       rd_int(f->ne, c4, sizeof c4));
	sb_add(b, "<TR><TD ALIGN=\"LEFT\">");
	sb_html(b, m->how);
	sb_add(b, "</TD></TR>");
	if ((e->uniform || m->uniform_util) && m->nedge) {
		sbuf l = {0};
		sb_reset(&l);
		edge_label(e, &m->edge[0], &l, e->uniform, m->uniform_util);
		for (char *p = l.s; (p = strstr(p, "\\n")); p++) {
			p[0] = ' ';
			p[1] = ' ';
		}
		sb_add(b, "<TR><TD ALIGN=\"LEFT\">every drawn edge: ");
		sb_html(b, l.s);
		int wraps = 0;
		for (int64_t i = 0; i < m->nedge; i++)
			wraps |= m->edge[i].wrap && !drawn_ring(m);
		sb_add(b, "%s</TD></TR>", !wraps ? "" : wrap_stubs(m) ?
			" (dashed stubs: a wraparound to the far end of the row)" : " (dashed: wraparound)");
		free(l.s);
	}
	if (!m->edge_labels && !(e->uniform && (m->uniform_util || e->o->view != FX_VIEW_LOADS)))
		sb_add(b, "<TR><TD ALIGN=\"LEFT\">%s edges: their labels are in the SVG tooltips</TD></TR>",
		       rd_int(m->nedge, c1, sizeof c1));
	if (e->o->view == FX_VIEW_LOADS && e->m->x->loads_caption) {
		sb_add(b, "<TR><TD ALIGN=\"LEFT\">loads: ");
		sb_html(b, e->m->x->loads_caption);
		sb_add(b, "</TD></TR>");
	}
	if (ocs_drawn(e))
		sb_add(b, "<TR><TD ALIGN=\"LEFT\">optical edges between cubes: circuits through the "
		       "%s optical circuit switches (boxes below; a circuit joins two cubes' faces)</TD></TR>",
		       rd_int(f->ocs_switches, c1, sizeof c1));
	if (e->m->x->note) {
		sb_add(b, "<TR><TD ALIGN=\"LEFT\">");
		sb_html(b, e->m->x->note);
		sb_add(b, "</TD></TR>");
	}
	if (e->nfailed)
		sb_add(b, "<TR><TD ALIGN=\"LEFT\"><FONT COLOR=\"%s\">failed: %s of the drawn vertices and "
		       "their %s links (red, dashed; boxes partly failed: dashed)</FONT></TD></TR>", C_FAILED,
		       rd_int(e->nfailed, c1, sizeof c1), rd_int(e->nfailed_links, c2, sizeof c2));
	rd_legend l;
	legend_of(e, &l);
	if (m->legend) {  /* a panel: the page has the legend */
		rd_legend *p = m->legend;
		for (int k = 0; k < 8; k++)
			p->kinds[k] |= l.kinds[k];
		p->view = l.view;
		p->media |= l.media;
		p->fans += l.fans;
		p->panels++;
		p->ninst = p->ninst > l.ninst ? p->ninst : l.ninst;
		p->group |= l.group;
		p->failed |= l.failed;
		p->umax = l.umax;
		p->absolute |= l.absolute;
		if (!p->noun[0])
			memcpy(p->noun, l.noun, sizeof p->noun);
		if (!p->unit[0])
			memcpy(p->unit, l.unit, sizeof p->unit);
		if (e->fan_labels) {
			sb_add(b, "<TR><TD ALIGN=\"LEFT\">");
			fan_legend(e, b);
			sb_add(b, "</TD></TR>");
		}
		if (e->o->view == FX_VIEW_LOADS)
			class_chart(e, b);
		sb_add(b, "</TABLE>");
		return;
	}
	legend(b, &l);
	if (e->o->view == FX_VIEW_LOADS)
		class_chart(e, b);
	if (e->fan_labels) {  /* each fan: its edges' label */
		sb_add(b, "<TR><TD ALIGN=\"LEFT\">");
		fan_legend(e, b);
		sb_add(b, "</TD></TR>");
	}
	sb_add(b, "</TABLE>");
}

static void graph_attrs(emit *e)
{
	const rd_model *m = e->m;
	Agraph_t *g = e->g;
	set(e, g, "layout", m->engine);
	if (e->o->view == FX_VIEW_LOADS) {
		setf(e, g, "util_max", "%.4f", e->umax);
		set(e, g, "util_scale", e->m->x->util_absolute ? "absolute" : "relative");
	}
	set(e, g, "fontname", "Helvetica");
	set(e, g, "fontsize", "12");
	set(e, g, "labelloc", "t");
	set(e, g, "labeljust", "l");
	set(e, g, "outputorder", "edgesfirst");
	set(e, g, "pad", "0.3");
	/* bounded by default: past FX_RENDER_MAX_INCHES Graphviz scales down */
	if (!e->o->detail_full)
		setf(e, g, "size", "%g,%g", FX_RENDER_MAX_INCHES, FX_RENDER_MAX_INCHES);
	if (strcmp(m->engine, "dot") == 0) {
		set(e, g, "rankdir", m->lr ? "LR" : "TB");
		/* few tiers: room between them for the fans (HGX stays under 3:1);
		 * rows of an area: close (dot doubles the ranks of labelled graphs) */
		set(e, g, "ranksep", m->nlevels == 2 && !m->compound ? "1.5" :
				     m->nlevels > 2 && m->compound ? "0.45" : m->compound ? "1.0" : "0.7");
		set(e, g, "nodesep", "0.3");
		if (m->compound)
			set(e, g, "compound", "true");
	} else if (strcmp(m->engine, "neato") == 0) {
		/* a grid's edges join neighbours: straight; wrap stubs stay short;
		 * pinned neighbours need no router (straight_edges) */
		set(e, g, "splines", m->nedge <= 600 && !wrap_stubs(m) && !straight_edges(m) ?
			"true" : "false");
		set(e, g, "overlap", "true");
	} else if (strcmp(m->engine, "fdp") == 0) {
		/* fdp's spline router and its default 600 iterations are what take
		 * the time on clustered fabrics (fat-tree-k8 whole: 15 s with
		 * splines, 0.1 s without; CloudMatrix384 whole: 14 s, 2.5 s at 100) */
		set(e, g, "splines", m->nedge <= 60 ? "true" : "false");
		/* the initial placement from a fixed seed: two runs give the same
		 * picture (pictures.sh once saw two PNGs of a dragonfly differ) */
		set(e, g, "start", "1");
		if (m->nbox > 300)
			set(e, g, "maxiter", "100");
	} else if (strcmp(m->engine, "sfdp") == 0) {
		set(e, g, "overlap", "prism");
		set(e, g, "splines", "false");
		set(e, g, "start", "1");
	}
	if (agattr(g, AGNODE, "fontname", "Helvetica") == NULL ||
	    agattr(g, AGNODE, "fontsize", m->lattice && !m->aggregated ? "9" : "10") == NULL ||
	    agattr(g, AGNODE, "style", "filled") == NULL ||
	    agattr(g, AGNODE, "margin", "0.08,0.04") == NULL ||
	    agattr(g, AGEDGE, "fontname", "Helvetica") == NULL ||
	    agattr(g, AGEDGE, "fontsize", "8") == NULL ||
	    agattr(g, AGEDGE, "fontcolor", "#333333") == NULL ||
	    agattr(g, AGRAPH, "style", "rounded,filled") == NULL ||
	    agattr(g, AGRAPH, "fillcolor", "#f7f7f7") == NULL ||
	    agattr(g, AGRAPH, "color", "#9a9a9a") == NULL)
		e->fail = 1;
}

/* Physical view of a two-tier picture where switches fan out to many boxes
 * (HGX: 4 switches x 8 GPUs; CloudMatrix384: 7 planes x 12 racks): each
 * switch's fan gets a colour of its own, so the crossing fans can be told
 * apart.  Needs one medium, 2..FANS tails with >= 4 edges each, and no box
 * that is both a tail and a head. */
static int fan_out(emit *e)
{
	const rd_model *m = e->m;
	if (e->o->view != FX_VIEW_PHYSICAL || m->lattice || m->nedge < 8)
		return 0;
	unsigned media = 0;
	int64_t *deg = fx_xcalloc((size_t)m->nbox, sizeof *deg);
	uint8_t *head = fx_xcalloc((size_t)m->nbox, 1);
	for (int64_t i = 0; i < m->nedge; i++) {
		media |= m->edge[i].media;
		deg[m->edge[i].a]++;
		head[m->edge[i].b] = 1;
	}
	int tails = 0, ok = (media & (media - 1)) == 0;
	for (int64_t b = 0; b < m->nbox && ok; b++) {
		if (!deg[b])
			continue;
		e->fan[b] = tails++;
		ok = deg[b] >= 4 && !head[b];
	}
	free(deg);
	free(head);
	return ok && tails >= 2 && tails <= FANS;
}

/* Wraparounds of a pinned lattice drawn whole as a grid (not a ring, where
 * they are neighbours): a wrap edge crosses the grid and its labels, so
 * each end gets a short dashed stub pointing outward instead. */
static int wrap_stubs(const rd_model *m)
{
	int eff = 0;
	for (int i = 0; i < m->f->ndims; i++)
		eff += m->f->dims[i] > 2;
	return m->lattice && !m->aggregated && eff >= 2;
}

/* Whether every box is pinned and every edge joins two neighbours of the
 * drawing (grid or block neighbours, or a ring's chords): a straight line
 * between them crosses no other box, which is all neato's spline router
 * would find, at most of the time (WSE-2's 8 x 8 blocks: the 112 edges
 * routed round 64 obstacles took 0.3-0.6 s per diagram).  A wraparound
 * that jumps the grid keeps the router, to go round the boxes between. */
static int straight_edges(const rd_model *m)
{
	if (!m->lattice && !m->circle)
		return 0;
	for (int64_t b = 0; b < m->nbox; b++)
		if (!m->box[b].pinned)
			return 0;
	if (drawn_ring(m) || m->circle)
		return 1;
	for (int64_t i = 0; i < m->nedge; i++)
		if (m->edge[i].wrap)
			return 0;
	return 1;
}

#define STUB_INCHES 0.32

/* The two stubs of wrap edge x: the first carries its links and styling,
 * the second the styling only, so links still add up over the drawing. */
static void stub_edges(emit *e, const rd_edge *x, int64_t i)
{
	const rd_box *a = &e->m->box[x->a], *b = &e->m->box[x->b];
	double dx = a->x - b->x, dy = a->y - b->y, len = sqrt(dx * dx + dy * dy);
	if (len <= 0)
		len = 1;
	/* from the centre past the box's border (about 0.8 x 0.5 inch) */
	double ux = fabs(dx) / len, uy = fabs(dy) / len;
	double edge = fmin(ux > 0 ? 0.42 / ux : 1e9, uy > 0 ? 0.27 / uy : 1e9);
	for (int end = 0; end < 2 && !e->fail; end++) {
		const rd_box *p = end ? b : a;
		double s = (end ? -1 : 1) * (edge + STUB_INCHES) / len;
		char name[48];
		snprintf(name, sizeof name, "%swrap%lld.%d", e->m->prefix ? e->m->prefix : "",
			 (long long)i, end);
		Agnode_t *n = agnode(e->g, name, 1);
		Agedge_t *ge = n ? agedge(e->g, e->nd[end ? x->b : x->a], n, NULL, 1) : NULL;
		if (!ge) {
			e->fail = 1;
			return;
		}
		set(e, n, "shape", "point");
		set(e, n, "width", "0.04");
		set(e, n, "class", "wrap-end");
		setf(e, n, "pos", "%.3f,%.3f!", p->x + s * dx, p->y + s * dy);
		style_edge(e, ge, x);
		set(e, ge, "label", "");
		if (end == 1) {  /* the links are counted on the first stub */
			set(e, ge, "links", "0");
			set(e, ge, "bandwidth", "0");
		}
		set(e, ge, "class", "wrap-stub");
	}
}

/* Whether every edge of each fan stands for the same links (HGX: each
 * switch reaches every GPU over 5 or 4 links): in a tiered drawing their
 * 32 labels would stack in one band, so each fan's goes in the legend. */
static int fans_alike(const rd_model *m)
{
	for (int64_t i = 0; i < m->nedge; i++)
		for (int64_t j = 0; j < i; j++)
			if (m->edge[j].a == m->edge[i].a &&
			    (m->edge[j].links != m->edge[i].links || m->edge[j].link_bw != m->edge[i].link_bw ||
			     m->edge[i].link_bw <= 0 || m->edge[j].lhead >= 0 || m->edge[i].lhead >= 0))
				return 0;
	return 1;
}

/*
 * Object IDs in creation order.  cgraph's default discipline makes a
 * name's ID the address of its interned string, and keeps subgraphs in ID
 * order, so clusters came out in a different order from run to run (ASLR):
 * explore's loads.svg was not byte-identical across identical runs.  Here
 * a named object gets the even ID 2(i+1) for the i-th new name, an
 * anonymous one the next odd ID, so the same graph gives the same file.
 */
typedef struct ids {
	Agraph_t *g;      /* the root graph, whose string pool holds the names */
	char **name;      /* [n] in creation order, interned (agstrdup): cgraph
			   * reads a flag stored before each name it prints */
	size_t n, cap;
	int64_t *slot;    /* [nslot] hash of names: index into name, or -1 */
	size_t nslot;
	IDTYPE anon;      /* the last odd ID handed out */
} ids;

static size_t id_hash(const char *s)
{
	size_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

static void *id_open(Agraph_t *g, Agdisc_t *disc)
{
	(void)disc;
	ids *t = fx_xcalloc(1, sizeof *t);
	t->g = g;
	t->anon = 1;
	return t;
}

/* The slot where name is, or where it would go. */
static size_t id_find(const ids *t, const char *name)
{
	size_t i = id_hash(name) & (t->nslot - 1);
	while (t->slot[i] >= 0 && strcmp(t->name[t->slot[i]], name) != 0)
		i = (i + 1) & (t->nslot - 1);
	return i;
}

static void id_rehash(ids *t)
{
	free(t->slot);
	t->nslot = t->nslot ? 2 * t->nslot : 64;
	t->slot = fx_xmalloc(t->nslot * sizeof *t->slot);
	for (size_t i = 0; i < t->nslot; i++)
		t->slot[i] = -1;
	for (size_t k = 0; k < t->n; k++)
		t->slot[id_find(t, t->name[k])] = (int64_t)k;
}

static long id_map(void *state, int objtype, char *str, IDTYPE *id, int createflag)
{
	(void)objtype;
	ids *t = state;
	if (!str) {
		t->anon += 2;
		*id = t->anon;
		return 1;
	}
	if (2 * (t->n + 1) > t->nslot)
		id_rehash(t);
	size_t i = id_find(t, str);
	if (t->slot[i] < 0) {
		if (!createflag)
			return 0;
		t->name = fx_xgrow(t->name, &t->cap, t->n + 1, sizeof *t->name);
		t->name[t->n] = agstrdup(t->g, str);
		t->slot[i] = (int64_t)t->n++;
	}
	*id = 2 * ((IDTYPE)t->slot[i] + 1);
	return 1;
}

static long id_alloc(void *state, int objtype, IDTYPE id)
{
	(void)state;
	(void)objtype;
	(void)id;
	return 1;
}

static void id_free(void *state, int objtype, IDTYPE id)
{
	(void)state;
	(void)objtype;
	(void)id;
}

static char *id_print(void *state, int objtype, IDTYPE id)
{
	(void)objtype;
	ids *t = state;
	return id % 2 == 0 && id / 2 - 1 < t->n ? t->name[id / 2 - 1] : NULL;
}

static void id_close(void *state)
{
	ids *t = state;
	for (size_t k = 0; k < t->n; k++)  /* before agclose closes the pool */
		agstrfree(t->g, t->name[k]);
	free(t->name);
	free(t->slot);
	free(t);
}

static void id_register(void *state, int objtype, void *obj)
{
	(void)state;
	(void)objtype;
	(void)obj;
}

static Agiddisc_t ordered_ids = {id_open, id_map, id_alloc, id_free, id_print, id_close,
				 id_register};
static Agdisc_t ordered_disc = {NULL, &ordered_ids, NULL};
/* ...and for reading DOT text back (page.c), with cgraph's reader. */
static Agdisc_t ordered_read_disc = {&AgMemDisc, &ordered_ids, &AgIoDisc};

Agdisc_t *rd_ordered_disc(void)
{
	return &ordered_read_disc;
}

/* Counts the failed vertices of each box and the failed links (those of
 * a failed vertex, and those failed alone) of each box and drawn edge. */
static void find_failed(emit *e)
{
	const rd_model *m = e->m;
	const fx_fabric *f = m->f;
	const uint8_t *dead = m->x->failed, *lost = m->x->failed_links;
	e->box_failed = fx_xcalloc((size_t)m->nbox + 1, sizeof *e->box_failed);
	e->in_failed = fx_xcalloc((size_t)m->nbox + 1, sizeof *e->in_failed);
	e->edge_failed = fx_xcalloc((size_t)m->nedge + 1, sizeof *e->edge_failed);
	for (int64_t v = 0; dead && v < f->nv; v++)
		if (dead[v]) {
			e->box_failed[m->box_of[v]]++;
			e->nfailed++;
		}
	for (int64_t l = 0; l < f->ne; l++) {
		int64_t u = f->ends[2 * l], v = f->ends[2 * l + 1];
		if (!(dead && (dead[u] || dead[v])) && !(lost && lost[l]))
			continue;
		int64_t a = m->box_of[u], b = m->box_of[v];
		e->nfailed_links += f->e[l].count;
		if (a == b) {
			e->in_failed[a] += f->e[l].count;
			continue;
		}
		for (int64_t i = 0; i < m->nedge; i++)  /* failures are few: a scan will do */
			if ((m->edge[i].a == a && m->edge[i].b == b) || (m->edge[i].a == b && m->edge[i].b == a)) {
				e->edge_failed[i] += f->e[l].count;
				break;
			}
	}
}

char *rd_legend_html(const rd_legend *l, const char *heading)
{
	sbuf b = {0};
	sb_reset(&b);
	sb_add(&b, "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"3\">");
	if (heading) {
		sb_add(&b, "<TR><TD ALIGN=\"LEFT\"><FONT POINT-SIZE=\"16\"><B>");
		sb_html(&b, heading);
		sb_add(&b, "</B></FONT></TD></TR>");
	}
	sb_add(&b, "<TR><TD ALIGN=\"LEFT\">every panel to one scale: a box is as large in each%s</TD></TR>",
	       l->view == FX_VIEW_LOADS ? ", and colours and widths are relative to the busiest "
	       "link of all panels" : "");
	legend(&b, l);
	sb_add(&b, "</TABLE>");
	return b.s;
}

/* The optical circuit switches of a torus of cubes (fabric.ocs), drawn as
 * one box per dimension below the cubes when the cubes are the boxes: the
 * OCS are no vertices of the fabric (a circuit is the edge between two
 * cubes' faces), so the drawn optical edges are the circuits and these
 * boxes count the switches and fibres behind them.  Dimension i has a
 * switch per link leaving a cube's face (count x the face's chips), each
 * taking 2 ports per cube (the + and - faces): fibres = switches x ports. */
static int ocs_dims(const fx_fabric *f, int64_t *sw)
{
	int64_t per = 0;  /* face chips summed over the dimensions with switches */
	int n = 0;
	for (int i = 0; i < f->ndims; i++) {
		sw[i] = 0;
		if (f->dims[i] < 3 || !f->wrap[i] || f->ocs_cube[i] <= 0 || f->dims[i] == f->ocs_cube[i])
			continue;
		int64_t face = 1;
		for (int j = 0; j < f->ndims; j++)
			face *= j == i ? 1 : f->ocs_cube[j];
		sw[i] = face;
		per += face;
		n++;
	}
	if (per <= 0 || f->ocs_switches % per)
		return 0;
	for (int i = 0; i < f->ndims; i++)
		sw[i] *= f->ocs_switches / per;  /* x links per neighbour */
	return n;
}

static int ocs_drawn(const emit *e)
{
	const rd_model *m = e->m;
	return m->f->ocs_switches > 0 && m->lattice && m->aggregated && !m->prefix &&
	       e->o->view == FX_VIEW_PHYSICAL && m->nbox > 0 && strcmp(m->box[0].unit, "rack") == 0;
}

static void ocs_boxes(emit *e)
{
	const rd_model *m = e->m;
	const fx_fabric *f = m->f;
	int64_t sw[FX_MAX_DIMS];
	int n = ocs_dims(f, sw);
	if (!ocs_drawn(e) || n == 0)
		return;
	double x0 = m->box[0].x, x1 = x0, y0 = m->box[0].y;
	for (int64_t b = 1; b < m->nbox; b++) {
		x0 = fmin(x0, m->box[b].x);
		x1 = fmax(x1, m->box[b].x);
		y0 = fmin(y0, m->box[b].y);
	}
	static const char axis[] = "xyzwvuts";
	char c1[32], c2[32], name[32];
	for (int i = 0, k = 0; i < f->ndims && !e->fail; i++) {
		if (!sw[i])
			continue;
		snprintf(name, sizeof name, "ocs_%c", axis[i]);
		Agnode_t *nd = agnode(e->g, name, 1);
		if (!nd) {
			e->fail = 1;
			return;
		}
		int64_t fibres = sw[i] * f->ocs_ports;
		sb_reset(&e->sb);
		sb_add(&e->sb, "OCS, dimension %c\\n%s switches × %lld ports (%lld used)\\n%s fibres: "
		       "2 per cube per switch", axis[i], rd_int(sw[i], c1, sizeof c1),
		       (long long)f->ocs_radix, (long long)f->ocs_ports, rd_int(fibres, c2, sizeof c2));
		set(e, nd, "label", e->sb.s);
		set(e, nd, "shape", "box3d");
		set(e, nd, "style", "filled");
		set(e, nd, "fillcolor", C_SWITCH);
		set(e, nd, "color", medium_colour[FX_MEDIUM_OPTICAL]);
		set(e, nd, "class", "ocs");
		setf(e, nd, "ocs_switches", "%lld", (long long)sw[i]);
		setf(e, nd, "ocs_fibres", "%lld", (long long)fibres);
		double x = n > 1 ? x0 + (x1 - x0) * k / (n - 1) : (x0 + x1) / 2;
		setf(e, nd, "pos", "%.3f,%.3f!", x, y0 - 2.5);
		set(e, nd, "tooltip", e->sb.s);
		k++;
	}
}

int rd_emit(const rd_model *m, Agraph_t **out, fx_diag *d)
{
	emit e = {0};
	e.m = m;
	e.f = m->f;
	e.o = m->o;
	*out = NULL;
	e.g = agopen("fabric", Agundirected, &ordered_disc);
	if (!e.g)
		return fx_diag_internal(d, "render: Graphviz could not create a graph");
	e.uniform = m->uniform;
	e.fan = fx_xmalloc((size_t)(m->nbox + 1) * sizeof *e.fan);
	for (int64_t b = 0; b <= m->nbox; b++)
		e.fan[b] = -1;
	for (int64_t i = 0; i < m->nedge; i++)
		e.umax = fmax(e.umax, m->edge[i].util);
	for (int64_t b = 0; b < m->nbox; b++)
		e.umax = fmax(e.umax, m->box[b].in_util);
	if (m->x->util_scale > 0)  /* one scale for pictures to compare */
		e.umax = m->x->util_scale;
	if (m->x->util_absolute)  /* the fixed ramp: 100% is a link busy all the time */
		e.umax = 1;
	if (m->x->failed || m->x->failed_links)
		find_failed(&e);
	e.fans = fan_out(&e);
	e.fan_labels = e.fans && !e.uniform && m->nlevels && fans_alike(m);
	graph_attrs(&e);
	if (m->o->view == FX_VIEW_PLACEMENT && m->o->instance) {
		const fx_fabric *f = m->f;
		e.dev_start = fx_xcalloc((size_t)m->nbox + 1, sizeof *e.dev_start);
		e.dev_list = fx_xmalloc((size_t)(f->ndev + 1) * sizeof *e.dev_list);
		for (int64_t v = 0; v < f->ndev; v++) {
			e.dev_start[m->box_of[v] + 1]++;
			if (m->o->instance[v] + 1 > e.ninst)
				e.ninst = m->o->instance[v] + 1;
		}
		for (int64_t b = 0; b < m->nbox; b++)
			e.dev_start[b + 1] += e.dev_start[b];
		int64_t *fill = fx_xmalloc((size_t)(m->nbox + 1) * sizeof *fill);
		memcpy(fill, e.dev_start, (size_t)(m->nbox + 1) * sizeof *fill);
		for (int64_t v = 0; v < f->ndev; v++)
			e.dev_list[fill[m->box_of[v]]++] = v;
		free(fill);
	}
	/* clusters, parents first (an area made last may hold earlier ones).
	 * Flat edges between clusters do not order them in dot; the order they
	 * are declared does: top-level ones come out left to right as
	 * declared, those nested in an area right to left (found by drawing
	 * fat-tree-k8 and CloudMatrix384; the tests check the positions). */
	e.cg = fx_xcalloc((size_t)m->ncl + 1, sizeof *e.cg);
	int64_t *held = fx_xcalloc((size_t)m->ncl + 1, sizeof *held);
	for (int64_t b = 0; b < m->nbox; b++)
		for (int64_t c = m->box[b].cluster; c >= 0; c = m->cl[c].parent)
			held[c]++;
	for (int64_t made = 0, pass = 0; made < m->ncl && !e.fail; pass++)
	for (int64_t k = 0; k < 2 * m->ncl && !e.fail; k++) {
		/* roots first in order, then nested ones last first */
		int64_t i = k < m->ncl ? k : 2 * m->ncl - 1 - k;
		const rd_cluster *c = &m->cl[i];
		if (pass > m->ncl) {
			e.fail = 1;  /* a cycle of parents: a bug */
			break;
		}
		/* (only dot: fdp crashes on the other order, cm384 whole) */
		int late = m->nlevels ? c->parent >= 0 : 0;
		if (!m->nlevels && k >= m->ncl)
			break;
		if (e.cg[i] || late != (k >= m->ncl) || (c->parent >= 0 && !e.cg[c->parent]))
			continue;
		Agraph_t *parent = c->parent >= 0 ? e.cg[c->parent] : e.g;
		made++;
		/* tiers: a cluster of every box says nothing the title does not,
		 * and inside a cluster dot ignores the flat edges that order a
		 * level (HGX's GPUs came out 6, 1, 4, ...) */
		if (m->nlevels && held[i] == m->nbox) {
			e.cg[i] = parent;
			continue;
		}
		char cn[96];
		if (!(e.cg[i] = agsubg(parent, (char *)cl_name(&e, i, cn, sizeof cn), 1))) {
			e.fail = 1;
			break;
		}
		/* pinned rows of a lattice leave no room for cluster labels */
		char cl[3 * sizeof c->label];
		int tip = m->lattice && c->kind == 1;
		set(&e, e.cg[i], tip ? "tooltip" : "label", esc_text(c->label, cl, sizeof cl, tip));
		if (c->kind == 1 || c->kind == 3)
			set(&e, e.cg[i], "fillcolor", "#ffffff");
		else if (c->kind == 2)
			set(&e, e.cg[i], "fillcolor", "#fff8ec");
	}
	/* boxes */
	e.nd = fx_xcalloc((size_t)m->nbox + 1, sizeof *e.nd);
	for (int64_t b = 0; b < m->nbox && !e.fail; b++) {
		char name[96];
		box_name(&e, b, name, sizeof name);
		Agraph_t *parent = m->box[b].cluster >= 0 ? e.cg[m->box[b].cluster] : e.g;
		if (!(e.nd[b] = agnode(parent, name, 1))) {
			e.fail = 1;
			break;
		}
		style_box(&e, e.nd[b], b);
	}
	/* edges */
	int stubs = wrap_stubs(m);
	for (int64_t i = 0; i < m->nedge && !e.fail; i++) {
		const rd_edge *x = &m->edge[i];
		if (stubs && x->wrap) {
			stub_edges(&e, x, i);
			continue;
		}
		Agedge_t *ge = agedge(e.g, e.nd[x->a], e.nd[x->b], NULL, 1);
		if (!ge) {
			e.fail = 1;
			break;
		}
		style_edge(&e, ge, x);
	}
	/* invisible edges stacking node boxes (dot) */
	for (int64_t b = 0; b < m->nbox + m->ninvis && !e.fail && strcmp(m->engine, "dot") == 0; b++) {
		int64_t t = b < m->nbox ? b : m->invis[b - m->nbox][0];
		int64_t h = b < m->nbox ? m->box[b].chain_next : m->invis[b - m->nbox][1];
		if (h < 0)
			continue;
		Agedge_t *ge = agedge(e.g, e.nd[t], e.nd[h], NULL, 1);
		if (!ge) {
			e.fail = 1;
			break;
		}
		set(&e, ge, "style", "invis");
		if (b >= m->nbox && m->invis[b - m->nbox][2])
			set(&e, ge, "minlen", "0");
	}
	/* tiers: each level one rank.  Not with newrank, under which dot
	 * ignores flat edges (HGX's GPUs came out 6, 1, 4, ...): a rank=same
	 * subgraph per level inside each cluster, and the invisible edges
	 * between levels (their chains keep each level level across racks). */
	for (int l = 0; l < m->nlevels && !e.fail; l++)
		for (int64_t c = -1; c < m->ncl && !e.fail; c++) {
			Agraph_t *r = NULL;
			for (int64_t b = 0; b < m->nbox && !e.fail; b++) {
				if (m->box[b].level != l || m->box[b].cluster != c)
					continue;
				if (!r) {
					char name[48];
					Agraph_t *in = c >= 0 ? e.cg[c] : e.g;  /* (a dropped cluster: e.g) */
					snprintf(name, sizeof name, "%srank%d_%lld", m->prefix ? m->prefix : "", l,
						 in == e.g ? 0 : (long long)c + 1);
					if (!(r = agsubg(in, name, 1))) {
						e.fail = 1;
						break;
					}
					set(&e, r, "rank", "same");
				}
				if (!agsubnode(r, e.nd[b], 1))
					e.fail = 1;
			}
		}
	if (!e.fail)
		ocs_boxes(&e);
	if (!e.fail) {
		sbuf t = {0};
		sb_reset(&t);
		title(&e, &t);
		set_html(&e, e.g, "label", t.s);
		free(t.s);
	}
	free(e.sb.s);
	free(e.tip.s);
	free(e.cg);
	free(held);
	free(e.nd);
	free(e.dev_start);
	free(e.dev_list);
	free(e.fan);
	free(e.box_failed);
	free(e.in_failed);
	free(e.edge_failed);
	if (e.fail) {
		agclose(e.g);
		return fx_diag_internal(d, "render: Graphviz refused part of the drawing");
	}
	*out = e.g;
	return 0;
}
