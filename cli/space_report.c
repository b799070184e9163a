/*
 * space_report: what explore writes for a space, into out/<name>/:
 *
 *   points.csv   one row per point: its parameters, metrics, whether it is
 *                feasible, its status and reason, whether it is on the front
 *   pareto.csv   the rows of the Pareto-optimal points
 *   report.md, report.json   the space, the counts, the best point per
 *                objective, the knee and the front
 *   plot-<metric>-vs-<parameter>.svg/.png   each objective against each
 *                swept parameter; front-<a>-vs-<b>.svg/.png the 2-D front
 *
 * The knee is the front point nearest the utopia point once each
 * objective is scaled to [0, 1] over the front (0 the front's best, 1 its
 * worst): the compromise that gives up least on every objective at once.
 * Ties go to the lower point index, so the report is the same however the
 * space was split.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/outfile.h"
#include "../core/units.h"
#include "../core/xalloc.h"
#include "../plot/plot.h"
#include "plot_batch.h"
#include "space_run.h"

static int cmp_pt(const void *a, const void *b)
{
	uint64_t x = (*(const fx_space_pt *const *)a)->index, y = (*(const fx_space_pt *const *)b)->index;
	return (x > y) - (x < y);
}

/* The points this run reports, by index. */
static const fx_space_pt **reported(const fx_space_run *r, size_t *n)
{
	const fx_space_pt **v = fx_xmalloc((r->ntodo + 1) * sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < r->ntodo; i++) {
		const fx_space_pt *p = fx_space_run_find(r, r->todo[i]);
		if (p)
			v[k++] = p;
	}
	qsort(v, k, sizeof *v, cmp_pt);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (u == 0 || v[u - 1]->index != v[i]->index)
			v[u++] = v[i];
	*n = u;
	return v;
}

static size_t metric_col(const fx_space_eval *ev, const char *metric)
{
	size_t j = 0;
	while (strcmp(ev->names[j], metric))
		j++;
	return j;
}

static fx_field_kind kind_of(const char *field)
{
	size_t n = strlen(field);
	/* device time (plan's cost) is seconds by name, GPU-seconds to read */
	static const char *const gpu[] = {"gpu_time_s", "gpu_time_per_on_time_s"};
	for (size_t i = 0; i < sizeof gpu / sizeof gpu[0]; i++) {
		size_t m = strlen(gpu[i]);
		if (n >= m && strcmp(field + n - m, gpu[i]) == 0 &&
		    (n == m || field[n - m - 1] == '.' || field[n - m - 1] == '_'))
			return FX_F_GPU_SECONDS;
	}
	for (int k = 0; k < FX_F_KINDS; k++) {
		const char *s = fx_field_suffix((fx_field_kind)k);
		size_t m = strlen(s);
		if (m && n > m && strcmp(field + n - m, s) == 0)
			return (fx_field_kind)k;
	}
	return FX_F_NUM;
}

static int write_csv(const char *dir, const char *name, const fx_space_eval *ev, const fx_space_pt **v,
		     size_t n, int front_only, fx_diag *d)
{
	char *path = fx_xasprintf("%s/%s", dir, name);
	fx_outfile of;
	FILE *f = fx_outfile_open(&of, path);
	if (!f) {
		fx_diag_error(d, NULL, "cannot write '%s': %s", path, strerror(errno));
		free(path);
		return -1;
	}
	fx_space_write_header(ev, f, 1);
	for (size_t i = 0; i < n; i++)
		if (!front_only || v[i]->pareto)
			fx_space_write_line(ev, v[i], f, 1);
	if (fx_outfile_close(&of, 1)) {
		fx_diag_error(d, NULL, "cannot write '%s': %s", path, strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

/* ---- the tables of the report ---- */

/* A table of points (the front, the best ones) in the result model. */
static fx_table *points_table(const fx_space_eval *ev, const char *name, const char *title,
			      const char *first, const char *first_label)
{
	fx_col none[] = {{NULL, NULL, 0}};
	fx_table *t = fx_table_typed(name, title, none);
	if (first)
		fx_table_add_col(t, first, first_label, FX_F_TEXT);
	fx_table_add_col(t, "point", "point", FX_F_INT);
	for (size_t a = 0; a < ev->space->naxes; a++)
		for (size_t p = 0; p < ev->space->axes[a].npaths; p++)
			fx_table_add_col(t, ev->space->axes[a].paths[p], ev->space->axes[a].paths[p],
					 FX_F_TEXT);
	for (size_t k = 0; k < ev->nnames; k++)
		fx_table_add_col(t, ev->names[k], ev->names[k], kind_of(ev->names[k]));
	return t;
}

static void point_row(fx_table *t, const fx_space_eval *ev, const fx_space_pt *p)
{
	fx_table_int(t, (long long)p->index);
	char *own[64];
	size_t n = fx_space_point(ev->space, p->index, own, 64);
	for (size_t k = 0; k < n && k < 64; k++) {
		fx_table_cell(t, "%s", strchr(own[k], '=') + 1);
		free(own[k]);
	}
	for (size_t k = 0; k < ev->nnames; k++)
		if (isnan(p->m[k]))
			fx_table_null(t, "-");
		else
			fx_table_num(t, p->m[k]);
}

/* The best feasible point per objective; among points tied on it, one on
 * the front (a tied point the others dominate is no answer), then the
 * lowest index. */
static const fx_space_pt *best(const fx_space_pt **v, size_t n, size_t col, fx_space_sense sense)
{
	const fx_space_pt *b = NULL;
	for (size_t i = 0; i < n; i++) {
		double x = v[i]->m[col];
		if (v[i]->status != FX_SPACE_FEASIBLE || isnan(x))
			continue;
		if (!b || (sense == FX_SPACE_MAX ? x > b->m[col] : x < b->m[col]) ||
		    (x == b->m[col] && v[i]->pareto && !b->pareto))
			b = v[i];
	}
	return b;
}

static const fx_space_pt *knee(const fx_space_eval *ev, const fx_space_pt **v, size_t n)
{
	const fx_space *s = ev->space;
	double lo[64], hi[64];
	size_t m = s->nobj < 64 ? s->nobj : 64;
	for (size_t k = 0; k < m; k++)
		lo[k] = INFINITY, hi[k] = -INFINITY;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; v[i]->pareto && k < m; k++) {
			double x = v[i]->m[metric_col(ev, s->obj[k].metric)];
			lo[k] = fmin(lo[k], x), hi[k] = fmax(hi[k], x);
		}
	const fx_space_pt *best_p = NULL;
	double best_d = INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (!v[i]->pareto)
			continue;
		double dist = 0;
		for (size_t k = 0; k < m; k++) {
			double x = v[i]->m[metric_col(ev, s->obj[k].metric)];
			double span = hi[k] - lo[k];
			double u = span > 0 ? (x - lo[k]) / span : 0;
			if (s->obj[k].sense == FX_SPACE_MAX)
				u = span > 0 ? 1 - u : 0;
			dist += u * u;
		}
		if (dist < best_d)
			best_d = dist, best_p = v[i];
	}
	return best_p;
}

/* ---- plots ---- */

/* A file-name piece: letters, digits, '_' and '.', others as '_'. */
static char *safe(const char *s)
{
	char *t = fx_xstrdup(s);
	for (char *p = t; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_' || *p == '.' || *p == '-'))
			*p = '_';
	return t;
}

static const char *unit_of(fx_unit_kind k)
{
	static const char *const u[FX_UNIT_KINDS] = {
		[FX_UNIT_BANDWIDTH] = "B/s", [FX_UNIT_TIME] = "s", [FX_UNIT_POWER] = "W",
		[FX_UNIT_SIZE] = "B", [FX_UNIT_FREQUENCY] = "Hz", [FX_UNIT_COMPUTE] = "FLOP/s",
	};
	return k < FX_UNIT_KINDS ? u[k] : NULL;
}

/* Axis a's value per value index as a number (plain or a quantity in base
 * units) when every value is one; else 0 and the caller plots indices. */
static int axis_numbers(const fx_space_axis *ax, double *x, fx_unit_kind *unit)
{
	*unit = FX_UNIT_NONE;
	for (size_t v = 0; v < ax->nvals; v++) {
		fx_unit_kind got = FX_UNIT_NONE;
		const char *t = ax->vals[v * ax->npaths];
		fx_unit_status st = fx_unit_parse(t, FX_UNIT_NONE, &x[v], &got);
		if (st == FX_UNIT_WRONG_KIND)
			st = fx_unit_parse(t, got, &x[v], NULL);
		else
			got = FX_UNIT_NONE;
		if (st != FX_UNIT_OK || (v && got != *unit))
			return 0;
		*unit = got;
	}
	return 1;
}

/* The label of a quantity with base unit `unit` (NULL: a plain number)
 * whose largest magnitude is top, scaled to a readable prefix: returns the
 * divisor, e.g. 1e9 and "bisection_per_device_Bps (GB/s)". */
static double scaled(const char *name, const char *unit, double top, char *buf, size_t len)
{
	static const struct { double f; const char *p; } pre[] = {
		{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}, {1e-3, "m"}, {1e-6, "u"},
		{1e-9, "n"},
	};
	/* a field's name read as words: "bisection_per_device_Bps" is
	 * "bisection per device", its unit after it */
	char words[160];
	snprintf(words, sizeof words, "%s", name);
	static const char *const tails[] = {"_Bps", "_bytes", "_s", "_W", "_J", "_m", NULL};
	size_t wl = strlen(words);
	for (int t = 0; unit && tails[t]; t++) {
		size_t tl = strlen(tails[t]);
		if (wl > tl && strcmp(words + wl - tl, tails[t]) == 0) {
			words[wl - tl] = '\0';
			break;
		}
	}
	for (char *c = words; *c; c++)
		if (*c == '_')
			*c = ' ';
	name = words;
	if (!unit) {
		snprintf(buf, len, "%s", name);
		return 1;
	}
	if (strcmp(unit, "GPU-s") == 0) {  /* no prefix: "mGPU-s" reads as nothing */
		snprintf(buf, len, "%s (GPU-s)", name);
		return 1;
	}
	size_t k = 0;
	while (k + 1 < sizeof pre / sizeof pre[0] && top < pre[k].f)
		k++;
	if (!(top > 0))
		k = 4;
	snprintf(buf, len, "%s (%s%s)", name, pre[k].p, unit);
	return pre[k].f;
}

static const char *field_unit(const char *field)
{
	static const char *const unit[FX_F_KINDS] = {
		[FX_F_SECONDS] = "s", [FX_F_BYTES] = "B", [FX_F_BPS] = "B/s", [FX_F_WATTS] = "W",
		[FX_F_JOULES] = "J", [FX_F_METRES] = "m", [FX_F_GPU_SECONDS] = "GPU-s",
	};
	return unit[kind_of(field)];
}

static double top_of(const fx_space_pt **v, size_t n, const double *xs, size_t col)
{
	double t = 0;
	for (size_t i = 0; i < n; i++) {
		double x = xs ? xs[i] : v[i]->m[col];
		if (!isnan(x))
			t = fmax(t, fabs(x));
	}
	return t;
}

/* A point's design, for the front's labels: its parameters' values. */
static char *design_label(const fx_space *sp, const fx_space_pt *p)
{
	size_t dig[64];
	fx_space_digits(sp, p->index, dig);
	char buf[256];
	size_t k = 0;
	buf[0] = '\0';
	for (size_t a = 0; a < sp->naxes && a < 64 && k < sizeof buf; a++)
		k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%s", a ? ", " : "",
				      sp->axes[a].vals[dig[a] * sp->axes[a].npaths]);
	return fx_xstrdup(buf);
}

/* Feasible (filled), infeasible (hollow) and front (joined, labelled
 * with each point's design) series of (x, y) over the points, into the
 * batch (drawn once all are gathered; plot/scatter.c draws coinciding
 * points once, with their count). */
static void draw(fx_plot_batch *pb, const fx_space *sp, const char *file, const char *title,
		 const char *xlabel, const char *ylabel, const fx_plot_tic *xtics, size_t ntics,
		 const fx_space_pt **v, size_t n, const double *xs, double xdiv, size_t ycol, double ydiv)
{
	double *x = fx_xmalloc(3 * (n + 1) * sizeof *x), *y = fx_xmalloc(3 * (n + 1) * sizeof *y);
	char **lab = fx_xcalloc(n + 1, sizeof *lab);
	size_t cnt[3] = {0, 0, 0};
	for (size_t i = 0; i < n; i++) {
		double yv = v[i]->m[ycol];
		if (isnan(yv) || isnan(xs[i]))
			continue;
		int s = v[i]->pareto ? 2 : v[i]->status == FX_SPACE_FEASIBLE ? 0 : 1;
		if (s == 2)
			lab[cnt[2]] = design_label(sp, v[i]);
		x[s * (n + 1) + cnt[s]] = xs[i] / xdiv;
		y[s * (n + 1) + cnt[s]] = yv / ydiv;
		cnt[s]++;
	}
	static const char *const names[3] = {"feasible", "infeasible", "Pareto front"};
	/* the same colour for a kind of point in every plot, whichever are drawn */
	static const char *const colors[3] = {"#9400d3", "#e51e10", "#0072b2"};
	fx_plot_series ser[3];
	size_t ns = 0;
	for (int s = 0; s < 3; s++)
		if (cnt[s])
			ser[ns++] = (fx_plot_series){names[s], &x[s * (n + 1)], &y[s * (n + 1)], cnt[s],
						     s == 2 ? 2 : s == 1 ? 3 : 1, colors[s],
						     s == 2 ? (const char *const *)lab : NULL};
	if (ns) {
		fx_plot_panel panel = {ylabel, 0, ser, ns};
		fx_plot pl = {title, xlabel, 0, xtics, &panel, 1, ntics};
		fx_plot_batch_add(pb, file, &pl);
	}
	for (size_t i = 0; i < cnt[2]; i++)
		free(lab[i]);
	free(lab);
	free(x);
	free(y);
}

/* The report's line for a plot: its title on one line. */
static void md_plot(FILE *md, const char *title, const char *file)
{
	fputs("- ![", md);
	for (const char *c = title; *c; c++)
		fputc(*c == '\n' ? ' ' : *c, md);
	fprintf(md, "](%s.svg) ([PNG](%s.png))\n", file, file);
}

/* Every chart gathered, then drawn at once on `jobs` workers; the
 * report's lines for them written after, none when gnuplot is missing. */
static int plots(const char *dir, const fx_space_eval *ev, const fx_space_pt **v, size_t n, FILE *md,
		 int jobs, char *skip, size_t skiplen, fx_diag *d)
{
	const fx_space *s = ev->space;
	double *xs = fx_xmalloc((n + 1) * sizeof *xs);
	int rc = 0;
	fx_plot_batch *pb = fx_plot_batch_new();
	char *lines = NULL;
	size_t nlines = 0;
	FILE *ml = open_memstream(&lines, &nlines);
	if (!ml) {
		free(xs);
		fx_plot_batch_free(pb);
		return fx_diag_internal(d, "plots: %s", strerror(errno));
	}
	char yl[256], xl[256];
	for (size_t a = 0; a < s->naxes && rc == 0 && !*skip; a++) {
		const fx_space_axis *ax = &s->axes[a];
		double *val = fx_xmalloc((ax->nvals + 1) * sizeof *val);
		fx_unit_kind unit;
		int numeric = axis_numbers(ax, val, &unit);
		fx_plot_tic *tics = NULL;
		if (!numeric) {  /* values as labels at their index (plot/ quotes them) */
			tics = fx_xcalloc(ax->nvals + 1, sizeof *tics);
			for (size_t k = 0; k < ax->nvals; k++) {
				tics[k] = (fx_plot_tic){ax->vals[k * ax->npaths], (double)k};
				val[k] = (double)k;
			}
		}
		size_t dig[64];
		for (size_t i = 0; i < n; i++) {
			fx_space_digits(s, v[i]->index, dig);
			xs[i] = val[dig[a]];
		}
		double xdiv = scaled(ax->paths[0], unit_of(unit), top_of(v, n, xs, 0), xl, sizeof xl);
		/* the objectives; without any, every metric */
		size_t nplot = s->nobj ? s->nobj : ev->nnames;
		for (size_t o = 0; o < nplot && rc == 0 && !*skip; o++) {
			const char *m = s->nobj ? s->obj[o].metric : ev->names[o];
			char *sm = safe(m), *sp = safe(ax->paths[0]);
			char *file = fx_xasprintf("plot-%s-vs-%s", sm, sp);
			/* on two lines when one would not fit a 600-pixel plot */
			int two = strlen(m) + strlen(ax->paths[0]) > 44;
			char *title = fx_xasprintf("%s%sagainst %s%s", m, two ? "\n" : " ", ax->paths[0], !s->nobj ? ""
						   : s->obj[o].sense == FX_SPACE_MAX ? " (maximised)"
						   : " (minimised)");
			size_t col = metric_col(ev, m);
			double ydiv = scaled(m, field_unit(m), top_of(v, n, NULL, col), yl, sizeof yl);
			draw(pb, s, file, title, xl, yl, tics, tics ? ax->nvals : 0, v, n, xs, xdiv, col, ydiv);
			md_plot(ml, title, file);
			free(file), free(title), free(sm), free(sp);
		}
		free(tics);
		free(val);
	}
	/* the front in the plane of the first two objectives */
	if (s->nobj >= 2 && rc == 0 && !*skip) {
		const char *m0 = s->obj[0].metric, *m1 = s->obj[1].metric;
		size_t c0 = metric_col(ev, m0);
		for (size_t i = 0; i < n; i++)
			xs[i] = v[i]->m[c0];
		char *s0 = safe(m0), *s1 = safe(m1);
		char *file = fx_xasprintf("front-%s-vs-%s", s1, s0);
		char *title = fx_xasprintf("Pareto front: %s (%s)\nagainst %s (%s)", m1,
					   s->obj[1].sense == FX_SPACE_MAX ? "max" : "min", m0,
					   s->obj[0].sense == FX_SPACE_MAX ? "max" : "min");
		size_t c1 = metric_col(ev, m1);
		double xdiv = scaled(m0, field_unit(m0), top_of(v, n, NULL, c0), xl, sizeof xl);
		double ydiv = scaled(m1, field_unit(m1), top_of(v, n, NULL, c1), yl, sizeof yl);
		draw(pb, s, file, title, xl, yl, NULL, 0, v, n, xs, xdiv, c1, ydiv);
		md_plot(ml, title, file);
		free(file), free(title), free(s0), free(s1);
	}
	fclose(ml);
	free(xs);
	rc = fx_plot_batch_draw(pb, dir, jobs, skip, skiplen, d);
	fx_plot_batch_free(pb);
	if (*skip)  /* the report lists none rather than the few drawn */
		fprintf(md, "Plots skipped: %s.\n", skip);
	else if (lines)
		fputs(lines, md);
	free(lines);
	fputc('\n', md);
	return rc;
}

/* ---- the report ---- */

/* A constraint's bound: null when open (infinite). */
static void bound(fx_json *j, const char *key, double v)
{
	if (isinf(v))
		fx_json_null(j, key);
	else
		fx_json_num(j, key, v);
}

/* The space as run, into report.json: parameters, objectives, constraints. */
static void definition(fx_json *j, const fx_space *s)
{
	fx_json_obj_begin(j, "definition");
	fx_json_arr_begin(j, "parameters");
	for (size_t a = 0; a < s->naxes; a++) {
		const fx_space_axis *ax = &s->axes[a];
		fx_json_obj_begin(j, NULL);
		fx_json_arr_begin(j, "paths");
		for (size_t p = 0; p < ax->npaths; p++)
			fx_json_str(j, NULL, ax->paths[p]);
		fx_json_arr_end(j);
		fx_json_arr_begin(j, "values");  /* per value, one text per path */
		for (size_t v = 0; v < ax->nvals; v++) {
			fx_json_arr_begin(j, NULL);
			for (size_t p = 0; p < ax->npaths; p++)
				fx_json_str(j, NULL, ax->vals[v * ax->npaths + p]);
			fx_json_arr_end(j);
		}
		fx_json_arr_end(j);
		fx_json_obj_end(j);
	}
	fx_json_arr_end(j);
	fx_json_arr_begin(j, "objectives");
	for (size_t o = 0; o < s->nobj; o++) {
		fx_json_obj_begin(j, NULL);
		fx_json_str(j, "metric", s->obj[o].metric);
		fx_json_str(j, "sense", s->obj[o].sense == FX_SPACE_MAX ? "maximize" : "minimize");
		fx_json_obj_end(j);
	}
	fx_json_arr_end(j);
	fx_json_arr_begin(j, "constraints");
	for (size_t k = 0; k < s->ncons; k++) {
		fx_json_obj_begin(j, NULL);
		fx_json_str(j, "metric", s->cons[k].metric);
		bound(j, "min", s->cons[k].lo);
		bound(j, "max", s->cons[k].hi);
		fx_json_str(j, "text", s->cons[k].text);
		fx_json_obj_end(j);
	}
	fx_json_arr_end(j);
	fx_json_obj_end(j);
}

/* Prints t when text is asked for, then hands it to the result model. */
static int emit(fx_cli *c, fx_table *t, int text)
{
	if (text) {
		fx_table_print(t, stdout);
		fputc('\n', stdout);
	}
	return fx_cli_table(c, t);
}

int fx_space_report(fx_cli *c, fx_space_run *r, const char *dir, int diagrams, int text)
{
	const fx_space_eval *ev = r->ev;
	const fx_space *s = ev->space;
	size_t n;
	const fx_space_pt **v = reported(r, &n);
	size_t cnt[FX_SPACE_NSTATUS] = {0}, front = 0;
	for (size_t i = 0; i < n; i++) {
		cnt[v[i]->status]++;
		front += (size_t)v[i]->pareto;
	}
	if (c->json)
		definition(&c->js, s);
	int rc = write_csv(dir, "points.csv", ev, v, n, 0, &c->d);
	if (rc == 0)
		rc = write_csv(dir, "pareto.csv", ev, v, n, 1, &c->d);

	/* the summary record */
	fx_table *t = fx_record_new("space", "Design space", "space");
	fx_record_int(t, "points_total", "points in the space", (long long)r->total);
	fx_record_int(t, "points_evaluated", "points evaluated", (long long)n);
	fx_record_int(t, "points_computed", "computed by this run (not resumed or merged)",
		      (long long)r->evaluated);
	fx_record_bool(t, "sampled", "sampled", r->sampled);
	if (r->sampled) {
		fx_record_int(t, "sample_points", "Latin hypercube sample", (long long)r->nsample);
		fx_record_int(t, "sample_seed", "seed", (long long)r->seed);
		fx_record_int(t, "refinement_rounds", "rounds around the front", (long long)r->rounds);
	}
	if (r->shard_n)
		fx_record_text(t, "shard", "shard", "%d/%d", r->shard_i + 1, r->shard_n);
	fx_record_int(t, "points_feasible", "feasible", (long long)cnt[FX_SPACE_FEASIBLE]);
	fx_record_int(t, "points_infeasible", "infeasible", (long long)cnt[FX_SPACE_INFEASIBLE]);
	fx_record_int(t, "points_not_decided", "not decided", (long long)cnt[FX_SPACE_UNDECIDED]);
	fx_record_int(t, "points_invalid", "invalid (bad input)", (long long)cnt[FX_SPACE_INVALID]);
	fx_record_int(t, "points_pareto", "on the Pareto front", (long long)front);
	rc |= emit(c, t, text);

	/* the best point of each objective, and the knee */
	fx_table *b = points_table(ev, "best", "Best feasible point per objective", "objective",
				   "objective");
	for (size_t o = 0; o < s->nobj; o++) {
		const fx_space_pt *p = best(v, n, metric_col(ev, s->obj[o].metric), s->obj[o].sense);
		if (!p)
			continue;
		fx_table_cell(b, "%s %s", s->obj[o].sense == FX_SPACE_MAX ? "maximize" : "minimize",
			      s->obj[o].metric);
		point_row(b, ev, p);
	}
	const fx_space_pt *k = s->nobj ? knee(ev, v, n) : NULL;
	if (k && s->nobj > 1) {
		fx_table_cell(b, "knee of the front");
		point_row(b, ev, k);
	}
	rc |= emit(c, b, text && fx_table_rows(b) > 0);

	/* the front; a space without objectives shows its points instead */
	int all = s->nobj == 0;
	fx_table *f = points_table(ev, all ? "points" : "pareto", all ? "Points" : "Pareto front",
				   NULL, NULL);
	size_t rows = 0;
	for (size_t i = 0; i < n; i++)
		if (all || v[i]->pareto)
			point_row(f, ev, v[i]), rows++;
	rc |= emit(c, f, text && rows <= 30);
	if (text && rows > 30)
		printf("%zu %s: %s\n\n", rows, all ? "points" : "points on the Pareto front",
		       all ? "points.csv" : "pareto.csv");

	/* why points failed: each distinct reason's count, in order of first sight */
	fx_col rcols[] = {{"status", "status", FX_F_TEXT}, {"points", "points", FX_F_INT},
			  {"first_point", "first", FX_F_INT}, {"reason", "reason", FX_F_TEXT},
			  {NULL, NULL, 0}};
	fx_table *why = fx_table_typed("reasons", "Why points fall out (the first 20 reasons)", rcols);
	size_t shown = 0;
	for (size_t i = 0; i < n && shown < 20; i++) {
		if (!v[i]->reason)
			continue;
		size_t j = 0, m = 0;
		while (j < i && !(v[j]->reason && strcmp(v[j]->reason, v[i]->reason) == 0))
			j++;
		if (j < i)
			continue;  /* counted at its first sight */
		for (size_t q = i; q < n; q++)
			m += v[q]->reason && strcmp(v[q]->reason, v[i]->reason) == 0;
		fx_table_cell(why, "%s", fx_space_status_name(v[i]->status));
		fx_table_int(why, (long long)m);
		fx_table_int(why, (long long)v[i]->index);
		fx_table_cell(why, "%s", v[i]->reason);
		shown++;
	}
	rc |= emit(c, why, text && fx_table_rows(why) > 0);

	if (rc == 0 && diagrams && c->md) {
		fprintf(c->md, "## Plots\n\n");
		/* the charts on as many workers as the points had (MPI's other
		 * ranks are done by now: rank 0 forks in their place, as many as
		 * this machine has cores, the ranks being spread over machines) */
		int jobs = r->jobs;
		if (r->mpi_size > jobs) {
			long cores = sysconf(_SC_NPROCESSORS_ONLN);
			jobs = cores > 0 && cores < r->mpi_size ? (int)cores : r->mpi_size;
		}
		rc = plots(dir, ev, v, n, c->md, jobs, r->plots_skipped, sizeof r->plots_skipped,
			   &c->d);
		if (rc == 0 && r->plots_skipped[0]) {  /* said once, in the report and here */
			fprintf(c->d.out ? c->d.out : stderr, "fabricx: note: plots skipped: %s\n",
				r->plots_skipped);
			if (c->json)
				fx_json_str(&c->js, "plots_skipped", r->plots_skipped);
		}
	}
	free(v);
	return rc;
}
