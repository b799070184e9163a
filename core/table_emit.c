/*
 * The emitters of the result model (core/table.h): text and Markdown show
 * what fx_table_show() gives (rescaled); CSV and JSON write the raw values
 * under the field names.
 */
#include "table.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "xalloc.h"

/* The text grid: header labels then shown cells; a record is printed
 * as metric/value rows.  Returns rows x cols strings (owned). */
static char **grid(const fx_table *t, size_t *nrow, size_t *ncol)
{
	char buf[256];
	char **g;
	if (t->record) {
		*ncol = 2;
		*nrow = t->ncol + 1;
		g = fx_xcalloc(*nrow * 2, sizeof *g);
		g[0] = fx_xstrdup("metric");
		g[1] = fx_xstrdup("value");
		for (size_t c = 0; c < t->ncol && t->ncell >= t->ncol; c++) {
			g[2 * (c + 1)] = fx_xstrdup(t->cols[c].label);
			g[2 * (c + 1) + 1] = fx_xstrdup(fx_table_show(t, 0, c, buf, sizeof buf));
		}
		for (size_t i = 0; i < *nrow * 2; i++)
			if (!g[i])
				g[i] = fx_xstrdup("");
		return g;
	}
	*ncol = t->ncol;
	*nrow = fx_table_rows(t) + 1;
	g = fx_xcalloc(*nrow * *ncol, sizeof *g);
	for (size_t c = 0; c < t->ncol; c++)
		g[c] = fx_xstrdup(t->cols[c].label);
	for (size_t r = 1; r < *nrow; r++)
		for (size_t c = 0; c < t->ncol; c++)
			g[r * t->ncol + c] = fx_xstrdup(fx_table_show(t, r - 1, c, buf, sizeof buf));
	return g;
}

static void grid_free(char **g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(g[i]);
	free(g);
}

static int numeric(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	return isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]));
}

/* Display width of a UTF-8 string (counts code points, not bytes). */
static size_t width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			w++;
	return w;
}

void fx_table_print(const fx_table *t, FILE *f)
{
	if (t->verbatim) {
		fputs(t->title, f);
		return;
	}
	size_t nrow, ncol;
	char **g = grid(t, &nrow, &ncol);
	if (ncol == 0) {
		grid_free(g, 0);
		return;
	}
	size_t *w = fx_xcalloc(ncol, sizeof *w);
	int *right = fx_xcalloc(ncol, sizeof *right);
	/* numbers right-aligned: a column of numbers and "-" for none */
	for (size_t c = 0; c < ncol; c++) {
		int nums = 0, other = 0;
		for (size_t r = 0; r < nrow; r++) {
			const char *s = g[r * ncol + c];
			if (width(s) > w[c])
				w[c] = width(s);
			if (r > 0 && *s && strcmp(s, "-"))
				*(numeric(s) ? &nums : &other) += 1;
		}
		right[c] = nums > 0 && !other;
	}
	if (*t->title)
		fprintf(f, "%s\n", t->title);
	for (size_t r = 0; r < nrow; r++) {
		fputs("  ", f);
		for (size_t c = 0; c < ncol; c++) {
			const char *s = g[r * ncol + c];
			size_t pad = w[c] - width(s);
			int last = c + 1 == ncol;
			if (right[c])
				fprintf(f, "%*s%s", (int)pad, "", s);
			else
				fprintf(f, "%s%*s", s, last ? 0 : (int)pad, "");
			if (!last)
				fputs("  ", f);
		}
		fputc('\n', f);
		if (r == 0) {
			fputs("  ", f);
			for (size_t c = 0; c < ncol; c++) {
				for (size_t i = 0; i < w[c]; i++)
					fputc('-', f);
				if (c + 1 < ncol)
					fputs("  ", f);
			}
			fputc('\n', f);
		}
	}
	grid_free(g, nrow * ncol);
	free(w);
	free(right);
}

void fx_table_write_markdown(const fx_table *t, FILE *f)
{
	if (t->verbatim) {
		fprintf(f, "```\n%s```\n\n", t->title);
		return;
	}
	size_t nrow, ncol;
	char **g = grid(t, &nrow, &ncol);
	if (*t->title)
		fprintf(f, "### %s\n\n", t->title);
	for (size_t r = 0; ncol && r < nrow; r++) {
		fputc('|', f);
		for (size_t c = 0; c < ncol; c++) {
			fputc(' ', f);
			for (const char *s = g[r * ncol + c]; *s; s++) {
				if (*s == '|')
					fputc('\\', f);
				fputc(*s, f);
			}
			fputs(" |", f);
		}
		fputc('\n', f);
		if (r == 0) {
			fputc('|', f);
			for (size_t c = 0; c < ncol; c++)
				fputs("---|", f);
			fputc('\n', f);
		}
	}
	fputc('\n', f);
	grid_free(g, nrow * ncol);
}

/* RFC 4180: a field holding a comma, quote or line break is quoted, and
 * quotes inside are doubled. */
void fx_csv_text(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

size_t fx_csv_text_buf(const char *s, char *out)
{
	size_t k = 0;
	if (!strpbrk(s, ",\"\r\n")) {
		size_t n = strlen(s);
		memcpy(out, s, n);
		return n;
	}
	out[k++] = '"';
	for (; *s; s++) {
		if (*s == '"')
			out[k++] = '"';
		out[k++] = *s;
	}
	out[k++] = '"';
	return k;
}

/* The shortest of %.15g, %.16g, %.17g that reads back as the same double:
 * full precision, without 7.6003200000000011e-05 for 7.60032e-05.
 * Integers below 10^15 in magnitude (link bytes, mostly) are what %.15g
 * prints for them, digit by digit: no snprintf and strtod round trip
 * (tests/unit/test_table.c checks both ways agree). */
size_t fx_csv_num_text(double v, char *buf)
{
	if (v < 1e15 && v > -1e15 && v == (double)(long long)v && !(v == 0 && signbit(v))) {
		char tmp[24];
		unsigned long long u = v < 0 ? (unsigned long long)-(long long)v
					     : (unsigned long long)(long long)v;
		size_t n = 0, k = 0;
		do {
			tmp[n++] = (char)('0' + u % 10);
			u /= 10;
		} while (u);
		if (v < 0)
			buf[k++] = '-';
		while (n)
			buf[k++] = tmp[--n];
		buf[k] = 0;
		return k;
	}
	int len = 0;
	for (int p = 15; p <= 17; p++) {
		len = snprintf(buf, 40, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return (size_t)len;
}

static void csv_num(FILE *f, double v)
{
	char buf[40];
	fx_csv_num_text(v, buf);
	fputs(buf, f);
}

void fx_csv_num(FILE *f, double v)
{
	csv_num(f, v);
}

static void csv_cell(FILE *f, const fx_cell *c)
{
	switch (c->type) {
	case FX_CELL_TEXT: fx_csv_text(f, c->text); break;
	case FX_CELL_NUM: csv_num(f, c->num); break;
	case FX_CELL_INT: fprintf(f, "%lld", c->i); break;
	case FX_CELL_BOOL: fputs(c->i ? "true" : "false", f); break;
	case FX_CELL_LIST:
		for (size_t i = 0; i < c->nlist; i++) {
			if (i)
				fputc(' ', f);
			csv_num(f, c->list[i]);
		}
		break;
	default: break;  /* null: an empty field */
	}
}

void fx_table_csv(const fx_table *t, FILE *f)
{
	for (size_t c = 0; c < t->ncol; c++) {
		fx_csv_text(f, t->typed ? t->cols[c].field : t->cols[c].label);
		fputc(c + 1 < t->ncol ? ',' : '\n', f);
	}
	for (size_t i = 0; t->ncol && i < t->ncell; i++) {
		const fx_cell *c = &t->cells[i];
		if (t->typed)
			csv_cell(f, c);
		else
			fx_csv_text(f, c->type == FX_CELL_TEXT ? c->text : "");
		fputc((i + 1) % t->ncol ? ',' : '\n', f);
	}
}

int fx_table_write_csv(const fx_table *t, const char *dir)
{
	char *path = fx_xasprintf("%s/%s.csv", dir, t->name);
	int rc = fx_table_write_csv_file(t, path);
	free(path);
	return rc;
}

int fx_table_write_csv_file(const fx_table *t, const char *path)
{
	fx_outfile o;
	FILE *f = fx_outfile_open(&o, path);
	if (!f)
		return -1;
	fx_table_csv(t, f);
	return fx_outfile_close(&o, 1);
}

static void json_cell(fx_json *j, const char *key, const fx_cell *c)
{
	switch (c->type) {
	case FX_CELL_TEXT: fx_json_str(j, key, c->text); break;
	case FX_CELL_NUM: fx_json_num(j, key, c->num); break;
	case FX_CELL_INT: fx_json_int(j, key, c->i); break;
	case FX_CELL_BOOL: fx_json_bool(j, key, (int)c->i); break;
	case FX_CELL_LIST:
		fx_json_arr_begin(j, key);
		for (size_t i = 0; i < c->nlist; i++)
			fx_json_num(j, NULL, c->list[i]);
		fx_json_arr_end(j);
		break;
	default: fx_json_null(j, key); break;
	}
}

void fx_table_write_json(const fx_table *t, fx_json *j)
{
	if (!t->typed || t->no_json)
		return;
	if (t->json_close) {
		fx_json_obj_end(j);
		return;
	}
	if (t->record) {
		if (t->key)
			fx_json_obj_begin(j, t->key);
		for (size_t c = 0; c < t->ncol && c < t->ncell; c++)
			json_cell(j, t->cols[c].field, &t->cells[c]);
		if (t->key && !t->json_open)
			fx_json_obj_end(j);
		return;
	}
	if (t->json_values) {
		fx_json_arr_begin(j, t->key ? t->key : t->name);
		for (size_t r = 0; t->ncol && r < fx_table_rows(t); r++)
			json_cell(j, NULL, &t->cells[r * t->ncol]);
		fx_json_arr_end(j);
		return;
	}
	fx_json_arr_begin(j, t->key ? t->key : t->name);
	for (size_t r = 0; r < fx_table_rows(t); r++) {
		fx_json_obj_begin(j, NULL);
		for (size_t c = 0; c < t->ncol; c++)
			json_cell(j, t->cols[c].field, &t->cells[r * t->ncol + c]);
		fx_json_obj_end(j);
	}
	fx_json_arr_end(j);
}
