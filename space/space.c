/*
 * space: reading a space (the spec's `space:` block and --vary) and
 * naming its points.  Sampling and Pareto fronts are in space/front.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "space.h"

/* ---- values as YAML flow text ---- */

typedef struct sbuf {
	char *s;
	size_t n, cap;
} sbuf;

static void put(sbuf *b, const char *t)
{
	size_t k = strlen(t);
	if (b->n + k + 1 > b->cap) {
		b->cap = (b->n + k + 1) * 2;
		b->s = fx_xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->n, t, k + 1);
	b->n += k;
}

static int has_control(const char *t)
{
	for (; *t; t++)
		if ((unsigned char)*t < 0x20 || *t == 0x7f)
			return 1;
	return 0;
}

/* A scalar is written as it was unless quoting was what kept it a
 * string, flow syntax would split it or it holds a control character:
 * then double-quoted with YAML's escapes, so a value stays one line (points.csv, the workers' pipes) and
 * a newline or tab in it survives the round trip. */
static void put_scalar(sbuf *b, const fx_snode *n)
{
	const char *t = n->text;
	if (n->plain && !strpbrk(t, ",[]{}:#\"'") && t[0] != ' ' && !has_control(t)) {
		put(b, t);
		return;
	}
	put(b, "\"");
	for (const char *p = t; *p; p++) {
		char c[8] = {*p, 0};
		unsigned char u = (unsigned char)*p;
		if (*p == '"' || *p == '\\')
			c[0] = '\\', c[1] = *p;
		else if (*p == '\n')
			snprintf(c, sizeof c, "\\n");
		else if (*p == '\t')
			snprintf(c, sizeof c, "\\t");
		else if (u < 0x20 || u == 0x7f)
			snprintf(c, sizeof c, "\\x%02x", u);
		put(b, c);
	}
	put(b, "\"");
}

static void put_node(sbuf *b, const fx_snode *n)
{
	if (n->kind == FX_SNODE_SCALAR) {
		put_scalar(b, n);
		return;
	}
	put(b, n->kind == FX_SNODE_SEQ ? "[" : "{");
	for (size_t i = 0; i < n->n; i++) {
		if (i)
			put(b, ", ");
		if (n->kind == FX_SNODE_MAP) {
			fx_snode key = {.kind = FX_SNODE_SCALAR, .text = n->keys[i], .plain = 1};
			put_scalar(b, &key);
			put(b, ": ");
		}
		put_node(b, n->items[i]);
	}
	put(b, n->kind == FX_SNODE_SEQ ? "]" : "}");
}

char *fx_snode_flow_new(const fx_snode *n)
{
	sbuf b = {0};
	put(&b, "");
	put_node(&b, n);
	return b.s;
}

/* ---- ranges ---- */

/* The unit a range's values are written in: the base unit of its kind,
 * so a value is exact ("80000 W") whatever prefix the bounds used. */
static const char *base_unit(fx_unit_kind k)
{
	static const char *const sym[FX_UNIT_KINDS] = {
		[FX_UNIT_NONE] = "", [FX_UNIT_BANDWIDTH] = " B/s", [FX_UNIT_TIME] = " s",
		[FX_UNIT_POWER] = " W", [FX_UNIT_SIZE] = " B", [FX_UNIT_FREQUENCY] = " Hz",
		[FX_UNIT_COMPUTE] = " FLOP/s",
	};
	return sym[k];
}

/* A bound of a range: a number, or a quantity whose kind the first bound
 * fixes (*k == FX_UNIT_KINDS: not yet fixed). */
static int range_qty(const char *text, fx_unit_kind *k, double *out, const char **why)
{
	fx_unit_kind got = FX_UNIT_NONE;
	fx_unit_kind want = *k == FX_UNIT_KINDS ? FX_UNIT_NONE : *k;
	fx_unit_status st = fx_unit_parse(text, want, out, &got);
	if (st == FX_UNIT_WRONG_KIND && *k == FX_UNIT_KINDS)
		st = fx_unit_parse(text, want = got, out, NULL);
	if (st != FX_UNIT_OK) {
		*why = st == FX_UNIT_WRONG_KIND ? "has a unit of another kind than the range's start"
		     : st == FX_UNIT_MISSING ? "needs the unit the range's start has"
					     : "is not a number or a quantity";
		return -1;
	}
	*k = want;
	return 0;
}

/* Values from, from+step, ... up to to (step > 0), or from, from*times,
 * ... (times > 1).  A relative slack of 1e-9 keeps `to` itself when
 * decimal steps do not add up exactly in binary. */
static int range_values(double from, double to, double step, int geometric, fx_unit_kind k,
			fx_space_axis *a, const char **why)
{
	if (!(to >= from)) {
		*why = "ends before it starts";
		return -1;
	}
	if (geometric ? !(step > 1) || !(from > 0) : !(step > 0)) {
		*why = geometric ? "needs times > 1 and a positive start" : "needs a positive step";
		return -1;
	}
	double count = geometric ? floor(log(to / from) / log(step) + 1e-9) + 1
				 : floor((to - from) / step * (1 + 1e-12) + 1e-9) + 1;
	if (!(count <= FX_SPACE_MAX_POINTS)) {
		*why = "has more values than a space may hold";
		return -1;
	}
	a->nvals = (size_t)count;
	a->vals = fx_xcalloc(a->nvals, sizeof *a->vals);
	for (size_t i = 0; i < a->nvals; i++) {
		double v = geometric ? from * pow(step, (double)i) : from + (double)i * step;
		char buf[64];
		/* 15 digits: 0.1 steps print as 0.3, not 0.30000000000000004 */
		snprintf(buf, sizeof buf, "%.15g%s", v, base_unit(k));
		a->vals[i] = fx_xstrdup(buf);
	}
	return 0;
}

/* ---- the axes ---- */

static fx_space_axis *add_axis(fx_space *s, const char *path)
{
	for (size_t i = 0; i < s->naxes; i++) {
		fx_space_axis *a = &s->axes[i];
		if (a->npaths == 1 && strcmp(a->paths[0], path) == 0) {
			for (size_t v = 0; v < a->nvals; v++)
				free(a->vals[v]);
			free(a->vals);
			a->vals = NULL;
			a->nvals = 0;
			return a;
		}
	}
	s->axes = fx_xrealloc(s->axes, (s->naxes + 1) * sizeof *s->axes);
	fx_space_axis *a = &s->axes[s->naxes++];
	*a = (fx_space_axis){.npaths = 1, .paths = fx_xcalloc(1, sizeof(char *))};
	a->paths[0] = fx_xstrdup(path);
	return a;
}

static int vary_node(fx_space *s, const char *path, const fx_snode *v, fx_diag *d)
{
	fx_space_axis *a = add_axis(s, path);
	if (v->kind == FX_SNODE_SEQ) {
		if (v->n == 0)
			return fx_snode_error(d, v, "'%s' varies over no values", path);
		a->nvals = v->n;
		a->vals = fx_xcalloc(v->n, sizeof *a->vals);
		for (size_t i = 0; i < v->n; i++)
			a->vals[i] = fx_snode_flow_new(v->items[i]);
		return 0;
	}
	const fx_snode *from = v->kind == FX_SNODE_MAP ? fx_snode_get(v, "from") : NULL;
	if (!from)
		return fx_snode_error(d, v, "'%s' must be a list of values or a range "
				      "{from, to, step} or {from, to, times}", path);
	static const char *const keys[] = {"from", "to", "step", "times", NULL};
	if (fx_spec_keys(d, v, keys))
		return -1;
	const fx_snode *to = fx_snode_get(v, "to"), *step = fx_snode_get(v, "step"),
		      *times = fx_snode_get(v, "times");
	if (!to || !step == !times)
		return fx_snode_error(d, v, "range '%s' needs 'to' and one of 'step' or 'times'", path);
	const fx_snode *parts[3] = {from, to, step ? step : times};
	double q[3];
	fx_unit_kind k = FX_UNIT_KINDS;
	for (int i = 0; i < 3; i++) {
		const char *why = NULL;
		fx_unit_kind ki = i == 2 && times ? FX_UNIT_NONE : k;
		if (parts[i]->kind != FX_SNODE_SCALAR ||
		    range_qty(parts[i]->text, &ki, &q[i], &why))
			return fx_snode_error(d, parts[i], "range '%s': '%s' %s", path,
					      parts[i]->text ? parts[i]->text : "(not a value)",
					      why ? why : "must be a single value");
		if (!(i == 2 && times))
			k = ki;
	}
	const char *why;
	if (range_values(q[0], q[1], q[2], times != NULL, k, a, &why))
		return fx_snode_error(d, v, "range '%s' %s", path, why);
	return 0;
}

static int zip_axes(fx_space *s, const fx_snode *zip, fx_diag *d)
{
	if (zip->kind != FX_SNODE_SEQ)
		return fx_snode_error(d, zip, "'space.zip' must be a list of lists of paths");
	for (size_t z = 0; z < zip->n; z++) {
		const fx_snode *g = zip->items[z];
		if (g->kind != FX_SNODE_SEQ || g->n < 2)
			return fx_snode_error(d, g, "a zip names two or more varied paths");
		size_t first = s->naxes, nvals = 0;
		for (size_t p = 0; p < g->n; p++) {
			const fx_snode *pn = g->items[p];
			size_t i = 0;
			while (pn->kind == FX_SNODE_SCALAR && i < s->naxes &&
			       !(s->axes[i].npaths == 1 && strcmp(s->axes[i].paths[0], pn->text) == 0))
				i++;
			if (pn->kind != FX_SNODE_SCALAR || i == s->naxes)
				return fx_snode_error(d, pn, "zip names '%s', which 'space.vary' does "
						      "not vary (or another zip took)",
						      pn->text ? pn->text : "(not a path)");
			for (size_t q = 0; q < p; q++)  /* merged once, a second time it is gone */
				if (strcmp(g->items[q]->text, pn->text) == 0)
					return fx_snode_error(d, pn, "zip names '%s' twice", pn->text);
			if (p && s->axes[i].nvals != nvals)
				return fx_snode_error(d, pn, "'%s' has %zu values but '%s' has %zu: "
						      "zipped paths vary together", pn->text,
						      s->axes[i].nvals, g->items[0]->text, nvals);
			nvals = s->axes[i].nvals;
			first = i < first ? i : first;
		}
		/* merge into the first member's axis; the others leave */
		fx_space_axis m = {.npaths = g->n, .nvals = nvals};
		m.paths = fx_xcalloc(g->n, sizeof(char *));
		m.vals = fx_xcalloc(nvals * g->n, sizeof(char *));
		for (size_t p = 0; p < g->n; p++) {
			size_t i = 0;
			while (s->axes[i].npaths != 1 ||
			       strcmp(s->axes[i].paths[0], g->items[p]->text) != 0)
				i++;
			fx_space_axis *a = &s->axes[i];
			m.paths[p] = a->paths[0];
			for (size_t v = 0; v < nvals; v++)
				m.vals[v * g->n + p] = a->vals[v];
			free(a->paths);
			free(a->vals);
			a->npaths = 0;  /* removed below */
			if (i < first)
				first = i;
		}
		s->axes[first] = m;
		size_t o = 0;
		for (size_t i = 0; i < s->naxes; i++)
			if (s->axes[i].npaths)
				s->axes[o++] = s->axes[i];
		s->naxes = o;
	}
	return 0;
}

/* The kind of quantity a metric's name says it holds: its unit suffix
 * (docs/output.md's convention), or a plain number. */
static fx_unit_kind metric_kind(const char *m)
{
	static const struct { const char *suffix; fx_unit_kind k; } sfx[] = {
		{"_Bps", FX_UNIT_BANDWIDTH}, {"_s", FX_UNIT_TIME}, {"_W", FX_UNIT_POWER},
		{"_bytes", FX_UNIT_SIZE}, {"_Hz", FX_UNIT_FREQUENCY}, {"_FLOPs", FX_UNIT_COMPUTE},
	};
	size_t n = strlen(m);
	for (size_t i = 0; i < sizeof sfx / sizeof *sfx; i++) {
		size_t k = strlen(sfx[i].suffix);
		if (n > k && strcmp(m + n - k, sfx[i].suffix) == 0)
			return sfx[i].k;
	}
	return FX_UNIT_NONE;
}

static int constraint(fx_space *s, const fx_snode *c, fx_diag *d)
{
	static const char *const keys[] = {"metric", "min", "max", NULL};
	const char *metric;
	if (c->kind != FX_SNODE_MAP)
		return fx_snode_error(d, c, "a constraint is {metric: NAME, min: V, max: V}");
	if (fx_spec_keys(d, c, keys) || fx_spec_str(d, c, "metric", &metric))
		return -1;
	fx_space_constraint k = {.lo = -INFINITY, .hi = INFINITY};
	fx_unit_kind kind = metric_kind(metric);
	if (fx_spec_qty_opt(d, c, "min", kind, -INFINITY, 0, &k.lo) ||
	    fx_spec_qty_opt(d, c, "max", kind, -INFINITY, 0, &k.hi))
		return -1;
	if (!fx_snode_get(c, "min") && !fx_snode_get(c, "max"))
		return fx_snode_error(d, c, "constraint on '%s' needs 'min' or 'max'", metric);
	k.metric = fx_xstrdup(metric);
	/* as a reader writes it: "power_W <= 120 kW", "1 <= x <= 2" */
	const fx_snode *lo = fx_snode_get(c, "min"), *hi = fx_snode_get(c, "max");
	char *l = lo ? fx_snode_flow_new(lo) : NULL, *h = hi ? fx_snode_flow_new(hi) : NULL;
	k.text = lo && hi ? fx_xasprintf("%s <= %s <= %s", l, metric, h)
		 : lo ? fx_xasprintf("%s >= %s", metric, l) : fx_xasprintf("%s <= %s", metric, h);
	free(l);
	free(h);
	s->cons = fx_xrealloc(s->cons, (s->ncons + 1) * sizeof *s->cons);
	s->cons[s->ncons++] = k;
	return 0;
}

static int objective(fx_space *s, const fx_snode *o, fx_diag *d)
{
	if (o->kind != FX_SNODE_MAP || o->n != 1 ||
	    (strcmp(o->keys[0], "minimize") && strcmp(o->keys[0], "maximize")))
		return fx_snode_error(d, o, "an objective is {minimize: METRIC} or {maximize: METRIC}");
	const char *metric;
	if (fx_spec_str(d, o, o->keys[0], &metric))
		return -1;
	s->obj = fx_xrealloc(s->obj, (s->nobj + 1) * sizeof *s->obj);
	s->obj[s->nobj++] = (fx_space_objective){
		.metric = fx_xstrdup(metric),
		.sense = o->keys[0][1] == 'a' ? FX_SPACE_MAX : FX_SPACE_MIN,
	};
	return 0;
}

static int parse_space(fx_space *s, const fx_spec *spec, fx_diag *d, int *present);

int fx_space_parse(fx_space *s, const fx_spec *spec, fx_diag *d, int *present)
{
	int rc = parse_space(s, spec, d, present);
	if (rc)
		fx_space_release(s);  /* what was read before the error: nothing is kept */
	return rc;
}

static int parse_space(fx_space *s, const fx_spec *spec, fx_diag *d, int *present)
{
	*s = (fx_space){0};
	const fx_snode *sp;
	*present = 0;
	if (fx_spec_map(d, spec->root, "space", 0, &sp))
		return -1;
	if (!sp)
		return 0;
	*present = 1;
	static const char *const keys[] = {"vary", "zip", "constraints", "objectives", "metrics",
					   NULL};
	const fx_snode *vary, *zip = fx_snode_get(sp, "zip"), *cons, *obj, *met;
	if (fx_spec_keys(d, sp, keys) || fx_spec_map(d, sp, "vary", 1, &vary) ||
	    fx_spec_seq(d, sp, "constraints", 0, &cons) || fx_spec_seq(d, sp, "objectives", 0, &obj) ||
	    fx_spec_seq(d, sp, "metrics", 0, &met))
		return -1;
	for (size_t i = 0; met && i < met->n; i++) {
		const char *m;
		if (fx_snode_str(d, met->items[i], &m))
			return -1;
		s->metrics = fx_xrealloc(s->metrics, (s->nmetrics + 1) * sizeof *s->metrics);
		s->metrics[s->nmetrics++] = fx_xstrdup(m);
	}
	for (size_t i = 0; i < vary->n; i++)
		if (vary_node(s, vary->keys[i], vary->items[i], d))
			return -1;
	if (zip && zip_axes(s, zip, d))
		return -1;
	for (size_t i = 0; cons && i < cons->n; i++)
		if (constraint(s, cons->items[i], d))
			return -1;
	for (size_t i = 0; obj && i < obj->n; i++)
		if (objective(s, obj->items[i], d))
			return -1;
	return 0;
}

/* The number (from 1) of the first empty value of a comma list, outside
 * brackets and quotes ("4,,8", "4,8,": a value dropped would shrink the
 * space unseen), or 0. */
static int empty_entry(const char *text)
{
	int depth = 0, k = 1;
	char q = 0;
	const char *start = text;
	for (const char *p = text;; p++) {
		if (q && *p) {
			q = *p == q ? 0 : q;
			continue;
		}
		if (*p == '"' || *p == '\'')
			q = *p;
		else if (*p == '[' || *p == '{')
			depth++;
		else if (*p == ']' || *p == '}')
			depth--;
		else if ((*p == ',' && depth == 0) || !*p) {
			if (strspn(start, " \t") >= (size_t)(p - start))
				return k;
			if (!*p)
				return 0;
			start = p + 1;
			k++;
		}
	}
}

/* Splits text at commas outside brackets and quotes into a YAML
 * sequence's flow text: "4,6,[8,8]" -> "[4, 6, [8,8]]". */
static char *as_flow_list(const char *text)
{
	sbuf b = {0};
	put(&b, "[");
	int depth = 0;
	char q = 0;
	for (const char *p = text; *p; p++) {
		char c[2] = {*p, 0};
		if (q)
			q = *p == q ? 0 : q;
		else if (*p == '"' || *p == '\'')
			q = *p;
		else if (*p == '[' || *p == '{')
			depth++;
		else if (*p == ']' || *p == '}')
			depth--;
		else if (*p == ',' && depth == 0) {
			put(&b, ", ");
			continue;
		}
		put(&b, c);
	}
	put(&b, "]");
	return b.s;
}

int fx_space_vary(fx_space *s, const char *arg, fx_diag *d)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1])
		return fx_diag_error(d, NULL, "--vary '%s': expected PATH=V1,V2,... or "
				     "PATH=FROM:TO:STEP", arg);
	char *path = fx_xstrndup(arg, (size_t)(eq - arg));
	const char *val = eq + 1;
	/* a zipped path cannot vary alone: its partners would lose their pairing */
	for (size_t i = 0; i < s->naxes; i++) {
		const fx_space_axis *a = &s->axes[i];
		for (size_t p = 0; a->npaths > 1 && p < a->npaths; p++) {
			if (strcmp(a->paths[p], path))
				continue;
			char *with = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&with, &len);
			if (!f)
				fx_xalloc_failed();
			for (size_t q = 0, n = 0; q < a->npaths; q++)
				if (q != p)
					fprintf(f, "%s%s", n++ ? ", " : "", a->paths[q]);
			fclose(f);
			int rc = fx_diag_error(d, NULL, "--vary '%s': the space zips '%s' with %s; "
					       "change the zip in the spec, or --vary every path of it "
					       "after --set 'space.zip=[]'", arg, path, with);
			free(with);
			free(path);
			return rc;
		}
	}
	/* a range has two colons at the top level and no comma there */
	int colons = 0, commas = 0, depth = 0;
	for (const char *p = val; *p; p++) {
		depth += (*p == '[' || *p == '{') - (*p == ']' || *p == '}');
		colons += depth == 0 && *p == ':';
		commas += depth == 0 && *p == ',';
	}
	int rc;
	if (colons == 2 && commas == 0) {
		const char *c1 = strchr(val, ':'), *c2 = strchr(c1 + 1, ':');
		char *from = fx_xstrndup(val, (size_t)(c1 - val));
		char *to = fx_xstrndup(c1 + 1, (size_t)(c2 - c1 - 1));
		const char *step = c2 + 1;
		int geometric = step[0] == 'x';
		double q[3];
		fx_unit_kind k = FX_UNIT_KINDS, kn = FX_UNIT_NONE;
		const char *why = NULL;
		rc = range_qty(from, &k, &q[0], &why) || range_qty(to, &k, &q[1], &why) ||
		     range_qty(step + geometric, geometric ? &kn : &k, &q[2], &why) ? -1 : 0;
		if (!rc)
			rc = range_values(q[0], q[1], q[2], geometric, k, add_axis(s, path), &why);
		if (rc)
			fx_diag_error(d, NULL, "--vary '%s': the range %s", arg, why);
		free(from);
		free(to);
	} else if ((rc = empty_entry(val)) > 0) {
		fx_diag_error(d, NULL, "--vary '%s': value %d is empty (%s)", arg, rc,
			      rc == 1 || val[strlen(val) - 1] != ',' ? "two commas, or one at the start"
			      : "a comma at the end");
		rc = -1;
	} else {
		char *flow = as_flow_list(val);
		fx_spec tmp = {0};
		char *doc = fx_xasprintf("v: %s\n", flow);
		rc = fx_spec_load_text(&tmp, "--vary", doc, d);
		if (!rc)
			rc = vary_node(s, path, fx_snode_get(tmp.root, "v"), d);
		fx_spec_release(&tmp);
		free(doc);
		free(flow);
	}
	free(path);
	return rc;
}

void fx_space_release(fx_space *s)
{
	for (size_t i = 0; i < s->naxes; i++) {
		fx_space_axis *a = &s->axes[i];
		for (size_t p = 0; p < a->npaths; p++)
			free(a->paths[p]);
		for (size_t v = 0; v < a->nvals * a->npaths; v++)
			free(a->vals[v]);
		free(a->paths);
		free(a->vals);
	}
	for (size_t i = 0; i < s->ncons; i++)
		free(s->cons[i].metric), free(s->cons[i].text);
	for (size_t i = 0; i < s->nobj; i++)
		free(s->obj[i].metric);
	for (size_t i = 0; i < s->nmetrics; i++)
		free(s->metrics[i]);
	free(s->metrics);
	free(s->axes);
	free(s->cons);
	free(s->obj);
	*s = (fx_space){0};
}

/* ---- points ---- */

uint64_t fx_space_count(const fx_space *s)
{
	uint64_t n = 1;
	for (size_t i = 0; i < s->naxes; i++) {
		if (s->axes[i].nvals > FX_SPACE_MAX_INDEX / n)
			return (uint64_t)-1;
		n *= s->axes[i].nvals;
	}
	return n;
}

void fx_space_digits(const fx_space *s, uint64_t i, size_t *idx)
{
	for (size_t a = s->naxes; a-- > 0;) {
		idx[a] = (size_t)(i % s->axes[a].nvals);
		i /= s->axes[a].nvals;
	}
}

size_t fx_space_point(const fx_space *s, uint64_t i, char **out, size_t cap)
{
	size_t idx[64], n = 0;
	if (s->naxes > 64)
		return 0;
	fx_space_digits(s, i, idx);
	for (size_t a = 0; a < s->naxes; a++) {
		const fx_space_axis *ax = &s->axes[a];
		for (size_t p = 0; p < ax->npaths && n < cap; p++) {
			const char *v = ax->vals[idx[a] * ax->npaths + p];
			out[n++] = fx_xasprintf("%s=%s", ax->paths[p], v);
		}
	}
	return n;
}
