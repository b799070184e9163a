/*
 * The result model (core/table.h): tables and records of typed fields, and
 * how text shows a value.  The emitters are in table_emit.c.
 */
#include "table.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"
#include "xalloc.h"

static const char *const suffixes[FX_F_KINDS] = {
	[FX_F_SECONDS] = "_s", [FX_F_BYTES] = "_bytes", [FX_F_BPS] = "_Bps",
	[FX_F_WATTS] = "_W", [FX_F_JOULES] = "_J", [FX_F_METRES] = "_m",
	[FX_F_GPU_SECONDS] = "_s",
};

const char *fx_field_suffix(fx_field_kind k)
{
	return k < FX_F_KINDS && suffixes[k] ? suffixes[k] : "";
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);
	return n > m && strcmp(s + n - m, tail) == 0;
}

/* The naming convention, enforced where fields are declared: a unit kind
 * needs its suffix, and no unitless field may look like it has one. */
static void check_field(const char *field, fx_field_kind k)
{
	const char *want = fx_field_suffix(k);
	/* the unit alone is a name too: "bytes" */
	int ok = *want ? ends_with(field, want) || strcmp(field, want + 1) == 0 : 1;
	for (int i = 0; ok && !*want && i < FX_F_KINDS; i++)
		if (suffixes[i] && ends_with(field, suffixes[i]))
			ok = 0;
	if (!ok) {
		fprintf(stderr, "fabricx: internal error: field '%s' does not end in '%s' (core/table.h)\n",
			field, want);
		abort();
	}
}

static fx_table *table_alloc(const char *name, const char *title)
{
	fx_table *t = fx_xcalloc(1, sizeof *t);
	t->name = fx_xstrdup(name);
	t->title = fx_xstrdup(title ? title : "");
	return t;
}

static void add_col(fx_table *t, const char *field, const char *label, fx_field_kind k)
{
	if (t->typed)
		check_field(field, k);
	t->cols = fx_xgrow(t->cols, &t->capcol, t->ncol + 1, sizeof *t->cols);
	t->cols[t->ncol].field = fx_xstrdup(field);
	t->cols[t->ncol].label = fx_xstrdup(label ? label : field);
	t->cols[t->ncol].kind = k;
	t->ncol++;
}

fx_table *fx_table_new(const char *name, const char *title, const char *const *cols)
{
	fx_table *t = table_alloc(name, title);
	for (size_t i = 0; cols[i]; i++)
		add_col(t, cols[i], cols[i], FX_F_TEXT);
	return t;
}

fx_table *fx_table_verbatim(const char *name, const char *text)
{
	fx_table *t = table_alloc(name, text);
	t->verbatim = 1;
	return t;
}

fx_table *fx_record_open(const char *name, const char *key)
{
	fx_table *t = fx_record_new(name, "", key);
	t->json_open = 1;
	t->no_text = 1;
	return t;
}

fx_table *fx_record_close(const char *name)
{
	fx_table *t = fx_record_new(name, "", NULL);
	t->json_close = 1;
	t->no_text = 1;
	return t;
}

fx_table *fx_table_typed(const char *name, const char *title, const fx_col *cols)
{
	fx_table *t = table_alloc(name, title);
	t->typed = 1;
	for (size_t i = 0; cols[i].field; i++)
		add_col(t, cols[i].field, cols[i].label, cols[i].kind);
	return t;
}

fx_table *fx_record_new(const char *name, const char *title, const char *key)
{
	fx_table *t = table_alloc(name, title);
	t->typed = 1;
	t->record = 1;
	t->key = key ? fx_xstrdup(key) : NULL;
	return t;
}

void fx_table_add_col(fx_table *t, const char *field, const char *label, fx_field_kind k)
{
	add_col(t, field, label, k);
}

void fx_table_json_key(fx_table *t, const char *key)
{
	free(t->key);
	t->key = key ? fx_xstrdup(key) : NULL;
}

void fx_table_free(fx_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ncell; i++) {
		free(t->cells[i].text);
		free(t->cells[i].list);
	}
	for (size_t i = 0; i < t->ncol; i++) {
		free(t->cols[i].field);
		free(t->cols[i].label);
	}
	free(t->cells);
	free(t->cols);
	free(t->name);
	free(t->title);
	free(t->key);
	free(t);
}

static fx_cell *next_cell(fx_table *t)
{
	t->cells = fx_xgrow(t->cells, &t->capcell, t->ncell + 1, sizeof *t->cells);
	fx_cell *c = &t->cells[t->ncell++];
	memset(c, 0, sizeof *c);
	return c;
}

__attribute__((format(printf, 2, 0)))
static void text_cell(fx_table *t, const char *fmt, va_list ap)
{
	char *s = fx_xvasprintf(fmt, ap);
	fx_cell *c = next_cell(t);
	c->type = FX_CELL_TEXT;
	c->text = s;
}

void fx_table_cell(fx_table *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	text_cell(t, fmt, ap);
	va_end(ap);
}

void fx_table_num(fx_table *t, double v)
{
	fx_cell *c = next_cell(t);
	c->type = isfinite(v) ? FX_CELL_NUM : FX_CELL_NULL;
	c->num = v + 0.0;  /* no "-0" */
}

void fx_table_int(fx_table *t, long long v)
{
	fx_cell *c = next_cell(t);
	c->type = FX_CELL_INT;
	c->i = v;
}

void fx_table_bool(fx_table *t, int v)
{
	fx_cell *c = next_cell(t);
	c->type = FX_CELL_BOOL;
	c->i = v != 0;
}

void fx_table_null(fx_table *t, const char *shown)
{
	fx_cell *c = next_cell(t);
	c->type = FX_CELL_NULL;
	c->text = shown ? fx_xstrdup(shown) : NULL;
}

void fx_table_list(fx_table *t, const double *v, size_t n)
{
	fx_cell *c = next_cell(t);
	c->type = FX_CELL_LIST;
	c->list = fx_xmalloc((n ? n : 1) * sizeof *c->list);
	if (n)
		memcpy(c->list, v, n * sizeof *v);
	c->nlist = n;
}

void fx_record_num(fx_table *t, const char *field, const char *label, fx_field_kind k, double v)
{
	add_col(t, field, label, k);
	fx_table_num(t, v);
}

void fx_record_int(fx_table *t, const char *field, const char *label, long long v)
{
	add_col(t, field, label, FX_F_INT);
	fx_table_int(t, v);
}

void fx_record_bool(fx_table *t, const char *field, const char *label, int v)
{
	add_col(t, field, label, FX_F_BOOL);
	fx_table_bool(t, v);
}

void fx_record_text(fx_table *t, const char *field, const char *label, const char *fmt, ...)
{
	add_col(t, field, label, FX_F_TEXT);
	va_list ap;
	va_start(ap, fmt);
	text_cell(t, fmt, ap);
	va_end(ap);
}

void fx_record_null(fx_table *t, const char *field, const char *label, fx_field_kind k,
		    const char *shown)
{
	add_col(t, field, label, k);
	fx_table_null(t, shown);
}

size_t fx_table_rows(const fx_table *t)
{
	return t->ncol ? t->ncell / t->ncol : 0;
}

/* Joules and metres: fx_unit_format knows neither. */
static void show_si(double v, const char *unit, char *buf, size_t len)
{
	static const struct { double f; const char *p; } steps[] = {
		{1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}, {1e-3, "m"},
	};
	size_t i = 0;
	while (i + 1 < sizeof steps / sizeof steps[0] && fabs(v) < steps[i].f * 0.9995)
		i++;
	if (v == 0)
		i = 3;
	snprintf(buf, len, "%.4g %s%s", v / steps[i].f, steps[i].p, unit);
}

static void show_num(double v, fx_field_kind k, char *buf, size_t len)
{
	static const char *const zero[FX_F_KINDS] = {
		[FX_F_SECONDS] = "0 s", [FX_F_BYTES] = "0 B", [FX_F_BPS] = "0 B/s",
		[FX_F_WATTS] = "0 W", [FX_F_JOULES] = "0 J", [FX_F_METRES] = "0 m",
		[FX_F_GPU_SECONDS] = "0 GPU-s",
	};
	if (v == 0 && zero[k]) {  /* not "0 ps": zero has no scale */
		snprintf(buf, len, "%s", zero[k]);
		return;
	}
	switch (k) {
	case FX_F_SECONDS: fx_unit_format(v, FX_UNIT_TIME, buf, len); break;
	case FX_F_BYTES: fx_unit_format(v, FX_UNIT_SIZE, buf, len); break;
	case FX_F_BPS: fx_unit_format(v, FX_UNIT_BANDWIDTH, buf, len); break;
	case FX_F_WATTS: fx_unit_format(v, FX_UNIT_POWER, buf, len); break;
	case FX_F_JOULES: show_si(v, "J", buf, len); break;
	case FX_F_METRES: show_si(v, "m", buf, len); break;
	case FX_F_GPU_SECONDS:  /* no SI prefix: "mGPU-s" reads as nothing */
		snprintf(buf, len, fabs(v) >= 1e4 && fabs(v) < 1e15 ? "%.0f GPU-s" : "%.4g GPU-s", v);
		break;
	case FX_F_FRACTION: snprintf(buf, len, "%.2f%%", 100 * v); break;
	case FX_F_INT: snprintf(buf, len, "%.0f", v); break;
	default:  /* whole numbers whole: "1048576 connections", not 1.04858e+06 */
		snprintf(buf, len, v == floor(v) && fabs(v) < 1e15 ? "%.0f" : "%.6g", v);
		break;
	}
}

/* A list as text, cut with "..." where buf ends: runs of whole numbers
 * ("0-3,8-11"), other kinds shown one by one. */
static void show_list(const fx_cell *c, fx_field_kind k, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < c->nlist && used + 32 < len;) {
		size_t j = i;
		if (k == FX_F_INT)
			while (j + 1 < c->nlist && c->list[j + 1] == c->list[j] + 1)
				j++;
		char one[40];
		if (k != FX_F_INT)
			show_num(c->list[i], k, one, sizeof one);
		else if (j > i)
			snprintf(one, sizeof one, "%.0f-%.0f", c->list[i], c->list[j]);
		else
			snprintf(one, sizeof one, "%.0f", c->list[i]);
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? (k == FX_F_INT ? "," : " / ")
					 : "", one);
		i = j + 1;
		if (i < c->nlist && used + 32 >= len)
			snprintf(buf + used, len - used, " ...");
	}
	if (c->nlist == 0)
		snprintf(buf, len, "-");
}

void fx_field_format(double v, fx_field_kind k, char *buf, size_t len)
{
	show_num(v, k < FX_F_KINDS ? k : FX_F_NUM, buf, len);
}

const char *fx_table_show(const fx_table *t, size_t row, size_t col, char *buf, size_t len)
{
	const fx_cell *c = &t->cells[row * t->ncol + col];
	switch (c->type) {
	case FX_CELL_LIST: show_list(c, t->cols[col].kind, buf, len); return buf;
	case FX_CELL_TEXT: return c->text;
	case FX_CELL_NULL: return c->text ? c->text : "-";
	case FX_CELL_BOOL: return c->i ? "yes" : "no";
	case FX_CELL_INT: snprintf(buf, len, "%lld", c->i); return buf;
	default: show_num(c->num, t->cols[col].kind, buf, len); return buf;
	}
}
