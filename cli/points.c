/*
 * points: one design-space point evaluated by the commands' report code
 * (cli/points.h), and its CSV line.
 */
#include "points.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/limits.h"
#include "../core/xalloc.h"
#include "report.h"

static const char *const status_names[FX_PT_NSTATUS] = {
	[FX_PT_FEASIBLE] = "feasible",
	[FX_PT_INFEASIBLE] = "infeasible",
	[FX_PT_UNDECIDED] = "not decided",
	[FX_PT_INVALID] = "invalid",
};

const char *fx_pt_status_name(fx_pt_status s)
{
	return s < FX_PT_NSTATUS ? status_names[s] : "?";
}

static size_t add_name(char ***v, size_t n, char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp((*v)[i], name) == 0)
			return n;
	*v = fx_xrealloc(*v, (n + 1) * sizeof **v);
	(*v)[n] = name;
	return n + 1;
}

size_t fx_pt_names(const fx_space *s, char ***out)
{
	char **v = NULL;
	size_t n = 0;
	for (size_t i = 0; i < s->nmetrics; i++)
		n = add_name(&v, n, s->metrics[i]);
	for (size_t i = 0; i < s->nobj; i++)
		n = add_name(&v, n, s->obj[i].metric);
	for (size_t i = 0; i < s->ncons; i++)
		n = add_name(&v, n, s->cons[i].metric);
	*out = v;
	return n;
}

void fx_pt_release(fx_pt *p)
{
	free(p->reason);
	free(p->m);
	*p = (fx_pt){0};
}

/* ---- the report sections a point may need, cheapest first ---- */

static int run_metrics(fx_cli *c, const fx_pt_eval *ev)
{
	(void)ev;
	return fx_report_metrics(&c->design, NULL, fx_cli_sink(c), &c->d);
}

static int run_power(fx_cli *c, const fx_pt_eval *ev)
{
	(void)ev;
	return fx_report_power(&c->design, NULL, fx_cli_sink(c), &c->d) ? -1 : 0;
}

static int run_collectives(fx_cli *c, const fx_pt_eval *ev)
{
	(void)ev;
	return fx_report_collectives(&c->design, NULL, fx_cli_sink(c), &c->d);
}

static int run_placement(fx_cli *c, const fx_pt_eval *ev)
{
	if (!c->design.work.present)
		return 1;  /* nothing to place: its fields stay unknown */
	fx_place_report_opts o = {.time_limit = ev->time_limit, .node_limit = ev->node_limit,
				  .fault = &c->fault};
	return fx_report_place(&c->design, &o, fx_cli_sink(c), &c->d);
}

/* The bill of materials: cost, cable and fibre lengths, per GB/s of
 * bisection (report/bom.c), as objectives and constraints. */
static int run_bom(fx_cli *c, const fx_pt_eval *ev)
{
	(void)ev;
	return fx_report_bom(&c->design, NULL, fx_cli_sink(c), &c->d);
}

/* The plan of the point's build (no flip thresholds: each is a search). */
static int run_plan(fx_cli *c, const fx_pt_eval *ev)
{
	if (!fx_plan_applies(&c->design))
		return 1;  /* nothing to plan: its fields stay unknown */
	fx_plan_opts o = {.context = -1, .tie = -1, .margin = -1};
	if (ev->plan)
		o = *ev->plan;
	o.flips = o.sensitivity = 0;
	o.csv = o.plot = NULL;
	o.jobs = 1;
	return fx_cli_plan(c, &o);
}

static const struct pt_section {
	const char *name;
	int (*run)(fx_cli *c, const fx_pt_eval *ev);  /* 0, 1 not applicable, -1 failed */
} sections[] = {
	{.name = "metrics", .run = run_metrics},
	{.name = "power", .run = run_power},
	{.name = "collectives", .run = run_collectives},
	{.name = "placement", .run = run_placement},
	{.name = "bom", .run = run_bom},
	{.name = "plan", .run = run_plan},
};
enum { NSEC = sizeof sections / sizeof sections[0] };

/* ---- finding a metric in the captured tables ---- */

/* Whether cell (row, col) of t shows `want` (text as is, numbers as read). */
static int cell_is(const fx_table *t, size_t row, size_t col, const char *want)
{
	const fx_cell *c = &t->cells[row * t->ncol + col];
	char *end;
	double w = strtod(want, &end);
	int num = *want && !*end;
	switch (c->type) {
	case FX_CELL_TEXT: return c->text && strcmp(c->text, want) == 0;
	case FX_CELL_NUM: return num && c->num == w;
	case FX_CELL_INT: return num && (double)c->i == w;
	case FX_CELL_BOOL: return strcmp(want, c->i ? "true" : "false") == 0;
	default: return 0;
	}
}

static int col_of(const fx_table *t, const char *field, size_t len)
{
	for (size_t k = 0; k < t->ncol; k++)
		if (strlen(t->cols[k].field) == len && strncmp(t->cols[k].field, field, len) == 0)
			return (int)k;
	return -1;
}

/* Whether a table's name or JSON key is table[0..len): a table is named
 * as its CSV file or as its JSON key (metrics' per-role table is the CSV's
 * "switches" and the JSON's "switch_roles", since "switches" is a count). */
static int named(const char *name, const char *table, size_t len)
{
	return name && strlen(name) == len && strncmp(name, table, len) == 0;
}

/* 1 found (*v; NaN for null), 0 not in these tables, -1 found but text. */
static int lookup(const fx_cli *c, const char *name, double *v)
{
	const char *table = NULL, *sel = NULL, *field = name;
	size_t tlen = 0, slen = 0;
	const char *br = strchr(name, '['), *dot;
	if (br) {
		const char *close = strchr(br, ']');
		if (!close || close[1] != '.')
			return 0;
		table = name, tlen = (size_t)(br - name);
		sel = br + 1, slen = (size_t)(close - br - 1);
		field = close + 2;
	} else if ((dot = strchr(name, '.'))) {
		table = name, tlen = (size_t)(dot - name);
		field = dot + 1;
	}
	char *selcol = NULL;
	const char *selval = NULL;
	if (sel) {
		selcol = fx_xstrndup(sel, slen);
		char *eq = strchr(selcol, '=');
		if (!eq) {
			free(selcol);
			return 0;
		}
		*eq = '\0';
		selval = eq + 1;
	}
	int found = 0;
	for (size_t i = 0; !found && i < c->ncaptured; i++) {
		const fx_table *t = c->captured[i];
		if (!t->typed || (table && !named(t->name, table, tlen) && !named(t->key, table, tlen)))
			continue;
		int k = col_of(t, field, strlen(field));
		if (k < 0)
			continue;
		size_t rows = fx_table_rows(t), row = 0;
		if (selcol) {
			int sc = col_of(t, selcol, strlen(selcol));
			while (sc >= 0 && row < rows && !cell_is(t, row, (size_t)sc, selval))
				row++;
			if (sc < 0 || row == rows)
				continue;
		} else if (rows == 0) {
			continue;
		}
		const fx_cell *cell = &t->cells[row * t->ncol + (size_t)k];
		found = 1;
		switch (cell->type) {
		case FX_CELL_NUM: *v = cell->num; break;
		case FX_CELL_INT: case FX_CELL_BOOL: *v = (double)cell->i; break;
		case FX_CELL_NULL: *v = NAN; break;
		default: found = -1; break;
		}
	}
	free(selcol);
	return found;
}

/* The fields a point's tables hold, for the message naming an unknown
 * metric. */
static char *known_fields(const fx_cli *c)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		fx_xalloc_failed();
	int n = 0;
	for (size_t i = 0; i < c->ncaptured; i++) {
		const fx_table *t = c->captured[i];
		for (size_t k = 0; t->typed && k < t->ncol; k++)
			if (t->cols[k].kind != FX_F_TEXT)
				fprintf(f, "%s%s.%s", n++ ? ", " : "", t->name, t->cols[k].field);
	}
	fclose(f);
	return s;
}

/* ---- one point ---- */

static char *one_line(const char *msg)
{
	char *s = fx_xstrdup(msg ? msg : "failed without a message (a bug)");
	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return s;
}

static fx_pt_status status_of(int exit)
{
	return exit == FX_EXIT_INFEASIBLE ? FX_PT_INFEASIBLE
	       : exit == FX_EXIT_UNDECIDED ? FX_PT_UNDECIDED : FX_PT_INVALID;
}

/* The reason a point breaks constraint k. */
static char *broken(const fx_space_constraint *k, double v)
{
	if (isnan(v))
		return fx_xasprintf("%s is not available here (constraint %s)", k->metric, k->text);
	return fx_xasprintf("%s = %.6g is outside %s", k->metric, v, k->text);
}

int fx_pt_evaluate(const fx_pt_eval *ev, uint64_t i, fx_pt *out, fx_diag *run)
{
	*out = (fx_pt){.index = i, .m = fx_xmalloc((ev->nnames + 1) * sizeof *out->m)};
	for (size_t k = 0; k < ev->nnames; k++)
		out->m[k] = NAN;
	size_t cap = ev->nsets + 64;
	const char **sets = fx_xmalloc(cap * sizeof *sets);
	for (size_t k = 0; k < ev->nsets; k++)
		sets[k] = ev->sets[k];
	char *own[64];
	size_t nown = fx_space_point(ev->space, i, own, 64);
	for (size_t k = 0; k < nown && k < 64; k++)
		sets[ev->nsets + k] = own[k];

	fx_cli c;
	memset(&c, 0, sizeof c);
	fx_diag_init(&c.d);
	static FILE *sink;  /* a point's messages become its reason, not stderr */
	if (!sink && !(sink = fopen("/dev/null", "w")))
		return fx_diag_internal(run, "cannot open /dev/null");
	c.d.out = sink;
	c.cmd = "explore";
	c.spec_path = ev->spec_path;
	c.fault.at = -1;
	c.quiet = 1;
	c.capture = 1;
	int rc = 0;
	if (fx_design_load_text(&c.design, ev->spec_path, ev->spec_text, sets,
				ev->nsets + (nown < 64 ? nown : 64), &ev->limits, &c.d)) {
		out->status = status_of(c.d.status);
		out->reason = one_line(c.d.first);
		goto done;
	}
	/* run sections until every metric is found */
	size_t left = ev->nnames;
	char *seen = fx_xcalloc(ev->nnames + 1, 1);
	for (int s = 0; s < NSEC && left; s++) {
		int r = sections[s].run(&c, ev);
		if (r < 0) {
			int st = c.d.status ? c.d.status : FX_EXIT_INTERNAL;
			if (st == FX_EXIT_INTERNAL) {
				rc = fx_diag_internal(run, "point %llu: %s: %s", (unsigned long long)i,
						      sections[s].name, c.d.last ? c.d.last : "failed");
			} else {
				out->status = status_of(st);
				out->reason = fx_xasprintf("%s: %s", sections[s].name,
							   c.d.last ? c.d.last : "failed");
				char *r1 = one_line(out->reason);
				free(out->reason);
				out->reason = r1;
			}
			break;
		}
		for (size_t k = 0; k < ev->nnames; k++) {
			if (seen[k])
				continue;
			int f = lookup(&c, ev->names[k], &out->m[k]);
			if (f < 0) {
				rc = fx_diag_error(run, NULL, "metric '%s' is text, not a number: a "
						   "constraint or objective needs a number", ev->names[k]);
				break;
			}
			if (f > 0)
				seen[k] = 1, left--;
		}
		if (rc)
			break;
	}
	if (rc == 0 && !out->reason && left) {
		size_t k = 0;
		while (seen[k])
			k++;
		char *known = known_fields(&c);
		rc = fx_diag_error(run, NULL, "no report gives the metric '%s' (docs/output.md; here: %s)",
				   ev->names[k], known);
		free(known);
	}
	free(seen);
	if (rc == 0 && !out->reason) {
		/* constraints in the space's order: the first broken is the reason */
		for (size_t k = 0; k < ev->space->ncons && !out->reason; k++) {
			const fx_space_constraint *con = &ev->space->cons[k];
			size_t j = 0;
			while (strcmp(ev->names[j], con->metric))
				j++;
			double v = out->m[j];
			if (isnan(v) || v < con->lo || v > con->hi) {
				out->status = FX_PT_INFEASIBLE;
				out->reason = broken(con, v);
			}
		}
	}
done:
	for (size_t k = 0; k < c.ncaptured; k++)
		fx_table_free(c.captured[k]);
	free(c.captured);
	fx_design_release(&c.design);
	fx_diag_release(&c.d);
	for (size_t k = 0; k < nown && k < 64; k++)
		free(own[k]);
	free(sets);
	return rc;
}

/* ---- CSV lines ---- */

void fx_pt_write_header(const fx_pt_eval *ev, FILE *f, int with_pareto)
{
	fputs("point", f);
	for (size_t a = 0; a < ev->space->naxes; a++)
		for (size_t p = 0; p < ev->space->axes[a].npaths; p++) {
			fputc(',', f);
			fx_csv_text(f, ev->space->axes[a].paths[p]);
		}
	for (size_t k = 0; k < ev->nnames; k++) {
		fputc(',', f);
		fx_csv_text(f, ev->names[k]);
	}
	fputs(",feasible,status,reason", f);
	fputs(with_pareto ? ",pareto\n" : "\n", f);
}

void fx_pt_write_line(const fx_pt_eval *ev, const fx_pt *p, FILE *f, int with_pareto)
{
	fprintf(f, "%llu", (unsigned long long)p->index);
	char *own[64];
	size_t n = fx_space_point(ev->space, p->index, own, 64);
	for (size_t k = 0; k < n && k < 64; k++) {
		fputc(',', f);
		fx_csv_text(f, strchr(own[k], '=') + 1);
		free(own[k]);
	}
	for (size_t k = 0; k < ev->nnames; k++) {
		fputc(',', f);
		if (!isnan(p->m[k]))
			fx_csv_num(f, p->m[k]);
	}
	fprintf(f, ",%s,", p->status == FX_PT_FEASIBLE ? "true" : "false");
	fx_csv_text(f, fx_pt_status_name(p->status));
	fputc(',', f);
	if (p->reason)
		fx_csv_text(f, p->reason);
	if (with_pareto)
		fputs(p->pareto ? ",true" : ",false", f);
	fputc('\n', f);
}

/* The next RFC 4180 field of *s into a malloc'd string; *s moves past its
 * comma.  NULL at the end of the line or on a malformed quote. */
static char *csv_field(const char **s, int *end)
{
	const char *p = *s;
	size_t cap = strlen(p) + 1, n = 0;
	char *v = fx_xmalloc(cap);
	if (*p == '"') {
		for (p++;; p++) {
			if (!*p) {
				free(v);
				return NULL;
			}
			if (*p == '"' && p[1] == '"')
				v[n++] = '"', p++;
			else if (*p == '"')
				break;
			else
				v[n++] = *p;
		}
		p++;
	} else {
		while (*p && *p != ',' && *p != '\n' && *p != '\r')
			v[n++] = *p++;
	}
	v[n] = '\0';
	*end = *p != ',';
	if (*p == ',')
		p++;
	else if (*p && *p != '\n' && *p != '\r') {
		free(v);
		return NULL;
	}
	*s = p;
	return v;
}

int fx_pt_read_line(const fx_pt_eval *ev, const char *line, fx_pt *p, int with_pareto)
{
	*p = (fx_pt){.m = fx_xmalloc((ev->nnames + 1) * sizeof *p->m)};
	size_t nparams = 0;
	for (size_t a = 0; a < ev->space->naxes; a++)
		nparams += ev->space->axes[a].npaths;
	size_t want = 1 + nparams + ev->nnames + 3 + (with_pareto ? 1 : 0);
	const char *s = line;
	int end = 0, bad = 0;
	char *own[64];
	size_t nown = 0;
	int feasible = -1;
	for (size_t k = 0; k < want && !bad; k++) {
		if (end) {
			bad = 1;
			break;
		}
		char *v = csv_field(&s, &end), *e = NULL;
		if (!v) {
			bad = 1;
			break;
		}
		if (k == 0) {
			unsigned long long idx = strtoull(v, &e, 10);
			bad = !*v || *e || v[0] == '-' || idx >= fx_space_count(ev->space);
			p->index = idx;
			if (!bad)
				nown = fx_space_point(ev->space, idx, own, 64);
		} else if (k <= nparams) {
			/* a line of another space (a resumed run whose space changed) */
			bad = k > nown || strcmp(strchr(own[k - 1], '=') + 1, v) != 0;
		} else if (k > nparams && k <= nparams + ev->nnames) {
			double x = *v ? strtod(v, &e) : NAN;
			bad = *v && *e;
			p->m[k - nparams - 1] = x;
		} else if (k == nparams + ev->nnames + 1) {
			feasible = strcmp(v, "true") == 0 ? 1 : strcmp(v, "false") == 0 ? 0 : -1;
			bad = feasible < 0;
		} else if (k == nparams + ev->nnames + 2) {
			int st = 0;
			while (st < FX_PT_NSTATUS && strcmp(status_names[st], v))
				st++;
			bad = st == FX_PT_NSTATUS;
			p->status = (fx_pt_status)st;
		} else if (k == nparams + ev->nnames + 3) {
			if (*v)
				p->reason = fx_xstrdup(v);
		} else if (with_pareto && k == want - 1) {
			p->pareto = strcmp(v, "true") == 0;
		}
		free(v);
	}
	for (size_t k = 0; k < nown && k < 64; k++)
		free(own[k]);
	/* feasible, status and reason say one thing: a point is feasible with
	 * no reason, or not and why */
	if (bad || !end || (p->status == FX_PT_FEASIBLE) != !p->reason ||
	    feasible != (p->status == FX_PT_FEASIBLE)) {
		fx_pt_release(p);
		return -1;
	}
	return 0;
}
