/*
 * Vertex selectors for user-given cuts (metrics --cut A:B) and the spec's
 * `groups:`:
 *
 *   node=0-23   rack=1   plane=0-3   device=0-31   x=0-3,y=0-1   d2=4
 *   switch=5   power=0
 *
 * Terms joined by ',' must all hold.  node and rack select every vertex
 * packaged there (devices, CPUs, switches in the node); plane selects
 * switches; device selects devices by index, switch switch chips by index
 * (in vertex order: fx_vertex.index); power every vertex of the nodes of a
 * power domain (packaging.nodes_per_power_domain); coordinates select
 * lattice devices.  A range reaching past what the fabric has (node=0-99 on 16
 * nodes) is an error, not silently clipped.
 *
 * Errors name the selector: an option ("--cut (side A): 'colour=1' has ...")
 * or, for a spec value, its dotted key at its position ("'groups.tp0' has
 * ...", with the source line and a caret).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "fabric.h"

#define SEL_KEYS "node, rack, plane, device, switch, power, x, y, z, w, d0..d7"
#define SEL_MAX_TERMS 16

typedef enum { SEL_NODE, SEL_RACK, SEL_PLANE, SEL_DEVICE, SEL_SWITCH, SEL_POWER, SEL_COORD } sel_key;

typedef struct term {
	sel_key key;
	int dim;
	long lo, hi;
} term;

/* Who the selector belongs to, for messages. */
typedef struct sel_ctx {
	const char *expr;       /* the whole selector */
	const char *where;      /* an option name, when node is NULL */
	const fx_snode *node;   /* a spec value */
	fx_diag *d;
} sel_ctx;

/* Reports "<subject> <predicate>": the spec key at its position, or the
 * option and the selector text. */
static int sel_error(const sel_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sel_error(const sel_ctx *x, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (x->node)
		return fx_snode_error(x->d, x->node, "'%s' %s", x->node->path, buf);
	return fx_diag_error(x->d, NULL, "%s: '%s' %s", x->where, x->expr, buf);
}

/* A decimal number without sign or spaces; -1 when t does not start with
 * one.  Values past LONG_MAX read as LONG_MAX (out of every range). */
static long number(const char *t, const char **end)
{
	if (!isdigit((unsigned char)*t)) {
		*end = t;
		return -1;
	}
	char *e;
	errno = 0;
	long v = strtol(t, &e, 10);
	*end = e;
	return v;
}

/* The values key k takes in this fabric: [*lo, *hi], or *hi < 0 for none. */
static void key_range(const fx_fabric *f, const term *t, long *lo, long *hi)
{
	*lo = -1;
	*hi = -1;
	if (t->key == SEL_DEVICE) {
		*lo = 0;
		*hi = (long)f->ndev - 1;
		return;
	}
	if (t->key == SEL_COORD) {
		*lo = 0;
		*hi = f->dims[t->dim] - 1;
		return;
	}
	if (t->key == SEL_SWITCH) {
		*lo = 0;
		*hi = (long)f->nsw - 1;
		return;
	}
	for (int64_t v = 0; v < f->nv; v++) {
		const fx_vertex *x = &f->v[v];
		long val = t->key == SEL_NODE ? x->node : t->key == SEL_RACK ? x->rack
			 : t->key == SEL_POWER ? (long)fx_fabric_power_domain(f, v)
			 : x->type == FX_V_SWITCH ? x->plane : -1;
		if (val < 0)
			continue;
		if (*hi < 0 || val < *lo)
			*lo = val;
		if (val > *hi)
			*hi = val;
	}
}

static int parse_term(const fx_fabric *f, char *t, term *out, const sel_ctx *x)
{
	char *eq = strchr(t, '=');
	if (!eq)
		return sel_error(x, "has a term '%s' that is not KEY=RANGE (keys: " SEL_KEYS ")", t);
	*eq = '\0';
	const char *k = t, *r = eq + 1;
	static const char *const axes = "xyzw";
	if (strcmp(k, "node") == 0)
		out->key = SEL_NODE;
	else if (strcmp(k, "rack") == 0)
		out->key = SEL_RACK;
	else if (strcmp(k, "plane") == 0)
		out->key = SEL_PLANE;
	else if (strcmp(k, "device") == 0)
		out->key = SEL_DEVICE;
	else if (strcmp(k, "switch") == 0)
		out->key = SEL_SWITCH;
	else if (strcmp(k, "power") == 0)
		out->key = SEL_POWER;
	else if ((strlen(k) == 1 && strchr(axes, *k)) ||
		 (k[0] == 'd' && k[1] >= '0' && k[1] <= '7' && k[2] == '\0')) {
		out->key = SEL_COORD;
		out->dim = k[0] == 'd' ? k[1] - '0' : (int)(strchr(axes, *k) - axes);
		if (out->dim >= f->ndims) {
			if (f->ndims == 0)
				return sel_error(x, "selects by '%s', but this fabric has no lattice "
						 "coordinates (use node, rack, plane or device)", k);
			return sel_error(x, "selects by '%s', which is not a coordinate of this "
					 "fabric (it has %d lattice dimensions)", k, f->ndims);
		}
	} else {
		return sel_error(x, "has an unknown selector '%s' (expected " SEL_KEYS ")", k);
	}
	const char *end;
	out->lo = number(r, &end);
	out->hi = out->lo;
	if (out->lo >= 0 && *end == '-')
		out->hi = number(end + 1, &end);
	if (out->lo < 0 || out->hi < 0 || *end != '\0' || out->hi < out->lo)
		return sel_error(x, "has a bad range '%s' for '%s' (expected N or LO-HI, "
				 "e.g. %s=0-3)", r, k, k);
	long lo, hi;
	key_range(f, out, &lo, &hi);
	static const char *const what[] = {"nodes", "racks", "switch planes", "devices",
					   "switch chips", "power domains"};
	if (hi < 0 && out->key == SEL_POWER)
		return sel_error(x, "selects by 'power', but this fabric has no power domains "
				 "(set packaging.nodes_per_power_domain)");
	if (hi < 0)
		return sel_error(x, "selects by '%s', but this fabric has no %s", k,
				 what[out->key]);
	if (out->lo < lo || out->hi > hi) {
		if (out->key == SEL_COORD)
			return sel_error(x, "asks for %s %s, but coordinate '%s' runs from %ld to "
					 "%ld in this fabric", k, r, k, lo, hi);
		return sel_error(x, "asks for %s %s, but this fabric's %s are %ld to %ld", k, r,
				 what[out->key], lo, hi);
	}
	return 0;
}

static int match(const fx_fabric *f, int64_t v, const term *t)
{
	const fx_vertex *x = &f->v[v];
	long val;
	switch (t->key) {
	case SEL_NODE: val = x->node; break;
	case SEL_RACK: val = x->rack; break;
	case SEL_PLANE: val = x->type == FX_V_SWITCH ? x->plane : -1; break;
	case SEL_DEVICE: val = x->type == FX_V_DEVICE ? x->index : -1; break;
	case SEL_SWITCH: val = x->type == FX_V_SWITCH ? x->index : -1; break;
	case SEL_POWER: val = (long)fx_fabric_power_domain(f, v); break;
	case SEL_COORD: {
		int c[FX_MAX_DIMS];
		if (x->type != FX_V_DEVICE)
			return 0;
		fx_fabric_coords(f, v, c);
		val = c[t->dim];
		break;
	}
	default: return 0;
	}
	return val >= t->lo && val <= t->hi;
}

static int select_vertices(const fx_fabric *f, const sel_ctx *x, uint8_t *sel)
{
	char *copy = fx_xstrdup(x->expr), *save = NULL;
	term terms[SEL_MAX_TERMS];
	int nt = 0, rc = 0;
	for (char *t = strtok_r(copy, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
		if (nt == SEL_MAX_TERMS) {
			rc = sel_error(x, "has more than %d terms", SEL_MAX_TERMS);
			break;
		}
		rc = parse_term(f, t, &terms[nt++], x);
	}
	free(copy);
	if (rc)
		return -1;
	if (nt == 0)
		return sel_error(x, "is empty (expected KEY=RANGE terms joined by ',', e.g. "
				 "'node=0-1' or 'x=0-3,y=0')");
	int64_t n = 0;
	for (int64_t v = 0; v < f->nv; v++) {
		int ok = 1;
		for (int i = 0; i < nt && ok; i++)
			ok = match(f, v, &terms[i]);
		sel[v] = (uint8_t)ok;
		n += ok;
	}
	if (n == 0)
		return sel_error(x, "selects nothing in this fabric");
	return 0;
}

int fx_fabric_select(const fx_fabric *f, const char *expr, const char *where, uint8_t *sel,
		     fx_diag *d)
{
	if (!fx_fabric_built(f) || !expr || !sel)
		return fx_diag_error(d, NULL, "fx_fabric_select: no %s", !expr ? "selector" : !sel ?
				     "array to mark" : "fabric (NULL, or one whose load failed)");
	sel_ctx x = {expr, where, NULL, d};
	return select_vertices(f, &x, sel);
}

int fx_fabric_select_node(const fx_fabric *f, const fx_snode *n, uint8_t *sel, fx_diag *d)
{
	if (!fx_fabric_built(f) || !n || !sel)
		return fx_diag_error(d, NULL, "fx_fabric_select_node: no %s", !n ? "selector" : !sel ?
				     "array to mark" : "fabric (NULL, or one whose load failed)");
	if (n->kind != FX_SNODE_SCALAR)
		return fx_snode_error(d, n, "'%s' must be a selector string such as 'node=0-1', "
				      "got %s", n->path, fx_snode_kind_name(n));
	sel_ctx x = {n->text, NULL, n, d};
	return select_vertices(f, &x, sel);
}
