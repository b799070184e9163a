#include "table.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "xalloc.h"

fx_table *fx_table_new(const char *name, const char *title, const char *const *cols)
{
	fx_table *t = fx_xcalloc(1, sizeof *t);
	t->name = fx_xstrdup(name);
	t->title = fx_xstrdup(title ? title : "");
	while (cols[t->ncol])
		t->ncol++;
	for (size_t i = 0; i < t->ncol; i++)
		fx_table_cell(t, "%s", cols[i]);
	return t;
}

void fx_table_free(fx_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ncell; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->name);
	free(t->title);
	free(t);
}

void fx_table_cell(fx_table *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = fx_xvasprintf(fmt, ap);
	va_end(ap);
	t->cells = fx_xgrow(t->cells, &t->capcell, t->ncell + 1, sizeof *t->cells);
	t->cells[t->ncell++] = s;
}

size_t fx_table_rows(const fx_table *t)
{
	return t->ncol ? t->ncell / t->ncol - 1 : 0;
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
	size_t nrow = t->ncell / t->ncol;
	size_t *w = fx_xcalloc(t->ncol, sizeof *w);
	int *right = fx_xcalloc(t->ncol, sizeof *right);
	for (size_t c = 0; c < t->ncol; c++) {
		right[c] = nrow > 1;
		for (size_t r = 0; r < nrow; r++) {
			const char *s = t->cells[r * t->ncol + c];
			if (width(s) > w[c])
				w[c] = width(s);
			if (r > 0 && *s && !numeric(s))
				right[c] = 0;
		}
	}
	if (*t->title)
		fprintf(f, "%s\n", t->title);
	for (size_t r = 0; r < nrow; r++) {
		fputs("  ", f);
		for (size_t c = 0; c < t->ncol; c++) {
			const char *s = t->cells[r * t->ncol + c];
			size_t pad = w[c] - width(s);
			int last = c + 1 == t->ncol;
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
			for (size_t c = 0; c < t->ncol; c++) {
				for (size_t i = 0; i < w[c]; i++)
					fputc('-', f);
				if (c + 1 < t->ncol)
					fputs("  ", f);
			}
			fputc('\n', f);
		}
	}
	free(w);
	free(right);
}

void fx_table_write_markdown(const fx_table *t, FILE *f)
{
	size_t nrow = t->ncell / t->ncol;
	if (*t->title)
		fprintf(f, "### %s\n\n", t->title);
	for (size_t r = 0; r < nrow; r++) {
		fputc('|', f);
		for (size_t c = 0; c < t->ncol; c++) {
			fputc(' ', f);
			for (const char *s = t->cells[r * t->ncol + c]; *s; s++) {
				if (*s == '|')
					fputc('\\', f);
				fputc(*s, f);
			}
			fputs(" |", f);
		}
		fputc('\n', f);
		if (r == 0) {
			fputc('|', f);
			for (size_t c = 0; c < t->ncol; c++)
				fputs("---|", f);
			fputc('\n', f);
		}
	}
	fputc('\n', f);
}

static void csv_cell(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
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
	for (size_t i = 0; i < t->ncell; i++) {
		csv_cell(f, t->cells[i]);
		fputc((i + 1) % t->ncol ? ',' : '\n', f);
	}
	return fx_outfile_close(&o, 1);
}
