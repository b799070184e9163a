/*
 * Vertex selectors for user-given cuts (metrics --cut A:B):
 *
 *   node=0-23   rack=1   plane=0-3   device=0-31   x=0-3,y=0-1   d2=4
 *
 * Terms joined by ',' must all hold.  node and rack select every vertex
 * packaged there (devices, CPUs, switches in the node); plane selects
 * switches; device selects devices by index; coordinates select lattice
 * devices.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "fabric.h"

typedef enum { SEL_NODE, SEL_RACK, SEL_PLANE, SEL_DEVICE, SEL_COORD } sel_key;

typedef struct term {
	sel_key key;
	int dim;
	long lo, hi;
} term;

static int parse_term(const fx_fabric *f, char *t, const char *where, term *out, fx_diag *d)
{
	char *eq = strchr(t, '=');
	fx_loc l = {NULL, 0, 0};
	if (!eq)
		return fx_diag_error(d, &l, "%s: '%s' is not KEY=RANGE (keys: node, rack, plane, "
				     "device, x, y, z, d0..d7)", where, t);
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
	else if ((strlen(k) == 1 && strchr(axes, *k)) ||
		 (k[0] == 'd' && k[1] >= '0' && k[1] <= '9' && k[2] == '\0')) {
		out->key = SEL_COORD;
		out->dim = k[0] == 'd' ? k[1] - '0' : (int)(strchr(axes, *k) - axes);
		if (out->dim >= f->ndims)
			return fx_diag_error(d, &l, "%s: '%s' is not a coordinate of this fabric "
					     "(it has %d lattice dimensions)", where, k, f->ndims);
	} else {
		return fx_diag_error(d, &l, "%s: unknown selector '%s' (expected node, rack, plane, "
				     "device, x, y, z, d0..d7)", where, k);
	}
	char *end;
	out->lo = strtol(r, &end, 10);
	out->hi = out->lo;
	if (end != r && *end == '-') {
		const char *h = end + 1;
		out->hi = strtol(h, &end, 10);
		if (end == h)
			end = (char *)h - 1;
	}
	if (end == r || *end != '\0' || out->lo < 0 || out->hi < out->lo)
		return fx_diag_error(d, &l, "%s: bad range '%s' for '%s' (expected N or LO-HI)",
				     where, r, k);
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

int fx_fabric_select(const fx_fabric *f, const char *expr, const char *where, uint8_t *sel,
		     fx_diag *d)
{
	char *copy = fx_xstrdup(expr), *save = NULL;
	term terms[16];
	int nt = 0, rc = 0;
	for (char *t = strtok_r(copy, ",", &save); t && rc == 0; t = strtok_r(NULL, ",", &save)) {
		if (nt == 16) {
			fx_loc l = {NULL, 0, 0};
			rc = fx_diag_error(d, &l, "%s: at most 16 terms", where);
			break;
		}
		rc = parse_term(f, t, where, &terms[nt++], d);
	}
	free(copy);
	if (rc)
		return -1;
	if (nt == 0) {
		fx_loc l = {NULL, 0, 0};
		return fx_diag_error(d, &l, "%s: empty selector", where);
	}
	int64_t n = 0;
	for (int64_t v = 0; v < f->nv; v++) {
		int ok = 1;
		for (int i = 0; i < nt && ok; i++)
			ok = match(f, v, &terms[i]);
		sel[v] = (uint8_t)ok;
		n += ok;
	}
	if (n == 0) {
		fx_loc l = {NULL, 0, 0};
		return fx_diag_error(d, &l, "%s: '%s' selects nothing in this fabric", where, expr);
	}
	return 0;
}
