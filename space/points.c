/*
 * points: one design-space point evaluated by the reports into a capture
 * sink (space/space.h), and its CSV line.
 */
#include "space.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/limits.h"
#include "../core/sink.h"
#include "../core/xalloc.h"
#include "../report/report.h"

static const char *const status_names[FX_SPACE_NSTATUS] = {
	[FX_SPACE_FEASIBLE] = "feasible",
	[FX_SPACE_INFEASIBLE] = "infeasible",
	[FX_SPACE_UNDECIDED] = "not decided",
	[FX_SPACE_INVALID] = "invalid",
};

const char *fx_space_status_name(fx_space_status s)
{
	return s < FX_SPACE_NSTATUS ? status_names[s] : "?";
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

size_t fx_space_names(const fx_space *s, char ***out)
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

void fx_space_pt_release(fx_space_pt *p)
{
	free(p->reason);
	free(p->m);
	*p = (fx_space_pt){0};
}

/* ---- the reports a point may need, cheapest first ---- */

/* What a point's reports share: its design, the capture they fill, and
 * its own diagnostics (whose first message becomes the point's reason). */
typedef struct pt_ctx {
	fx_design design;
	fx_sink cap;
	fx_diag d;
} pt_ctx;

static int run_metrics(pt_ctx *c, const fx_space_eval *ev)
{
	(void)ev;
	return fx_report_metrics(&c->design, NULL, &c->cap, &c->d);
}

static int run_power(pt_ctx *c, const fx_space_eval *ev)
{
	(void)ev;
	return fx_report_power(&c->design, NULL, &c->cap, &c->d) ? -1 : 0;
}

static int run_collectives(pt_ctx *c, const fx_space_eval *ev)
{
	(void)ev;
	return fx_report_collectives(&c->design, NULL, &c->cap, &c->d);
}

static int run_placement(pt_ctx *c, const fx_space_eval *ev)
{
	if (!c->design.work.present)
		return 1;  /* nothing to place: its fields stay unknown */
	fx_fault none = {.at = -1};
	fx_place_report_opts o = {.time_limit = ev->time_limit, .node_limit = ev->node_limit,
				  .fault = &none};
	return fx_report_place(&c->design, &o, &c->cap, &c->d);
}

/* The bill of materials: cost, cable and fibre lengths, per GB/s of
 * bisection (report/bom.c), as objectives and constraints. */
static int run_bom(pt_ctx *c, const fx_space_eval *ev)
{
	(void)ev;
	return fx_report_bom(&c->design, NULL, &c->cap, &c->d);
}

/* The plan of the point's build, searched here in this process: the
 * point is already one worker's or one rank's share of the space (no flip
 * thresholds: each is a search of its own). */
static int run_plan(pt_ctx *c, const fx_space_eval *ev)
{
	if (!fx_plan_applies(&c->design))
		return 1;  /* nothing to plan: its fields stay unknown */
	fx_plan_opts o = {.context = -1, .tie = -1, .margin = -1};
	if (ev->plan)
		o = *ev->plan;
	o.flips = o.sensitivity = 0;
	o.csv = o.plot = NULL;
	o.jobs = 1;
	o.exec = NULL;
	o.flips_run = NULL;
	o.flips_ctx = NULL;
	o.follower = 0;
	return fx_report_plan(&c->design, &o, &c->cap, &c->d);
}

static const struct pt_section {
	const char *name;
	int (*run)(pt_ctx *c, const fx_space_eval *ev);  /* 0, 1 not applicable, -1 failed */
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

/* 1 found (*v; NaN for null), 0 not in these tables or not a metric name,
 * -1 found but text.  The name is split as the header says and read back
 * with fx_sink_value. */
static int lookup(const fx_sink *cap, const char *name, double *v)
{
	char *table = NULL, *sel = NULL, *selval = NULL;
	const char *field = name;
	const char *br = strchr(name, '['), *dot;
	if (br) {
		const char *close = strchr(br, ']');
		const char *eq = memchr(br, '=', close ? (size_t)(close - br) : 0);
		if (!close || close[1] != '.' || !eq)
			return 0;
		table = fx_xstrndup(name, (size_t)(br - name));
		sel = fx_xstrndup(br + 1, (size_t)(eq - br - 1));
		selval = fx_xstrndup(eq + 1, (size_t)(close - eq - 1));
		field = close + 2;
	} else if ((dot = strchr(name, '.'))) {
		table = fx_xstrndup(name, (size_t)(dot - name));
		field = dot + 1;
	}
	fx_value x;
	int found = fx_sink_value(cap, table, sel, selval, field, &x);
	if (found)
		switch (x.type) {
		case FX_CELL_NUM: case FX_CELL_INT: case FX_CELL_BOOL: *v = x.num; break;
		case FX_CELL_NULL: *v = NAN; break;
		default: found = -1; break;
		}
	free(table);
	free(sel);
	free(selval);
	return found;
}

/* The fields a point's tables hold, for the message naming an unknown
 * metric. */
static char *known_fields(const fx_sink *cap)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);
	if (!f)
		fx_xalloc_failed();
	int n = 0;
	for (size_t i = 0; i < fx_sink_count(cap); i++) {
		const fx_table *t = fx_sink_table(cap, i);
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

static fx_space_status status_of(int exit)
{
	return exit == FX_EXIT_INFEASIBLE ? FX_SPACE_INFEASIBLE
	       : exit == FX_EXIT_UNDECIDED ? FX_SPACE_UNDECIDED : FX_SPACE_INVALID;
}

/* The reason a point breaks constraint k. */
static char *broken(const fx_space_constraint *k, double v)
{
	if (isnan(v))
		return fx_xasprintf("%s is not available here (constraint %s)", k->metric, k->text);
	return fx_xasprintf("%s = %.6g is outside %s", k->metric, v, k->text);
}

int fx_space_evaluate(const fx_space_eval *ev, uint64_t i, fx_space_pt *out, fx_diag *run)
{
	*out = (fx_space_pt){.index = i, .m = fx_xmalloc((ev->nnames + 1) * sizeof *out->m)};
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

	pt_ctx c;
	memset(&c, 0, sizeof c);
	fx_diag_init(&c.d);
	c.d.out = NULL;  /* a point's messages become its reason, not stderr */
	fx_sink_capture_init(&c.cap);
	int rc = 0;
	size_t nsets = ev->nsets + (nown < 64 ? nown : 64);
	int bad;
	if (ev->spec && ev->spec_text) {
		/* the point's messages show spec lines as a load from text would */
		fx_diag_add_source(&c.d, ev->spec_path, ev->spec_text);
		bad = fx_design_load_spec(&c.design, ev->spec, sets, nsets, &ev->limits, &c.d);
	} else if (ev->spec_text) {
		bad = fx_design_load_text(&c.design, ev->spec_path, ev->spec_text, sets, nsets,
					  &ev->limits, &c.d);
	} else {
		bad = fx_design_load(&c.design, ev->spec_path, sets, nsets, &ev->limits, &c.d);
	}
	if (bad) {
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
			int f = lookup(&c.cap, ev->names[k], &out->m[k]);
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
		char *known = known_fields(&c.cap);
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
				out->status = FX_SPACE_INFEASIBLE;
				out->reason = broken(con, v);
			}
		}
	}
done:
	fx_sink_release(&c.cap);
	fx_design_release(&c.design);
	fx_diag_release(&c.d);
	for (size_t k = 0; k < nown && k < 64; k++)
		free(own[k]);
	free(sets);
	return rc;
}

/* ---- CSV lines ---- */

void fx_space_write_header(const fx_space_eval *ev, FILE *f, int with_pareto)
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

void fx_space_write_line(const fx_space_eval *ev, const fx_space_pt *p, FILE *f, int with_pareto)
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
	fprintf(f, ",%s,", p->status == FX_SPACE_FEASIBLE ? "true" : "false");
	fx_csv_text(f, fx_space_status_name(p->status));
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

int fx_space_read_line(const fx_space_eval *ev, const char *line, fx_space_pt *p, int with_pareto)
{
	*p = (fx_space_pt){.m = fx_xmalloc((ev->nnames + 1) * sizeof *p->m)};
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
			while (st < FX_SPACE_NSTATUS && strcmp(status_names[st], v))
				st++;
			bad = st == FX_SPACE_NSTATUS;
			p->status = (fx_space_status)st;
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
	if (bad || !end || (p->status == FX_SPACE_FEASIBLE) != !p->reason ||
	    feasible != (p->status == FX_SPACE_FEASIBLE)) {
		fx_space_pt_release(p);
		return -1;
	}
	return 0;
}
