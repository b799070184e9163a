#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void fx_diag_init(fx_diag *d)
{
	memset(d, 0, sizeof *d);
	d->out = stderr;
	d->max_shown = 25;
}

void fx_diag_release(fx_diag *d)
{
	for (size_t i = 0; i < d->nsrc; i++) {
		free(d->src[i].name);
		free(d->src[i].text);
	}
	free(d->src);
	d->src = NULL;
	d->nsrc = d->capsrc = 0;
}

const char *fx_diag_add_source(fx_diag *d, const char *name, const char *text)
{
	d->src = fx_xgrow(d->src, &d->capsrc, d->nsrc + 1, sizeof *d->src);
	d->src[d->nsrc].name = fx_xstrdup(name);
	d->src[d->nsrc].text = fx_xstrdup(text);
	return d->src[d->nsrc++].name;
}

static const char *find_source(const fx_diag *d, const char *name)
{
	for (size_t i = d->nsrc; i-- > 0;)
		if (strcmp(d->src[i].name, name) == 0)
			return d->src[i].text;
	return NULL;
}

/* Prints the source line of loc and a caret under its column. */
static void show_line(const fx_diag *d, const fx_loc *loc)
{
	const char *t = find_source(d, loc->file);
	if (!t || loc->line < 1)
		return;
	for (int l = 1; l < loc->line && *t; t++)
		if (*t == '\n')
			l++;
	const char *e = strchr(t, '\n');
	int len = e ? (int)(e - t) : (int)strlen(t);
	if (len > 200)
		len = 200;
	fprintf(d->out, "    %.*s\n    ", len, t);
	for (int c = 1; c < loc->col && c <= len; c++)
		fputc(t[c - 1] == '\t' ? '\t' : ' ', d->out);
	fputs("^\n", d->out);
}

static void vreport(fx_diag *d, const fx_loc *loc, const char *kind,
		    const char *fmt, va_list ap)
{
	if (loc && loc->file && loc->line > 0)
		fprintf(d->out, "%s:%d:%d: %s: ", loc->file, loc->line, loc->col, kind);
	else if (loc && loc->file)
		fprintf(d->out, "%s: %s: ", loc->file, kind);
	else
		fprintf(d->out, "fabricx: %s: ", kind);
	vfprintf(d->out, fmt, ap);
	fputc('\n', d->out);
	if (loc && loc->file)
		show_line(d, loc);
}

static int count(fx_diag *d, int status)
{
	d->nerr++;
	/* bad input outranks infeasibility; an internal error outranks both */
	if (d->status == 0 || status == FX_EXIT_INTERNAL ||
	    (status == FX_EXIT_INPUT && d->status == FX_EXIT_INFEASIBLE))
		d->status = status;
	return d->nerr <= d->max_shown;
}

int fx_diag_error(fx_diag *d, const fx_loc *loc, const char *fmt, ...)
{
	if (count(d, FX_EXIT_INPUT)) {
		va_list ap;
		va_start(ap, fmt);
		vreport(d, loc, "error", fmt, ap);
		va_end(ap);
	}
	return -1;
}

int fx_diag_internal(fx_diag *d, const char *fmt, ...)
{
	if (count(d, FX_EXIT_INTERNAL)) {
		va_list ap;
		va_start(ap, fmt);
		vreport(d, NULL, "internal error", fmt, ap);
		va_end(ap);
	}
	return -1;
}

int fx_diag_infeasible(fx_diag *d, const char *fmt, ...)
{
	if (count(d, FX_EXIT_INFEASIBLE)) {
		va_list ap;
		va_start(ap, fmt);
		vreport(d, NULL, "infeasible", fmt, ap);
		va_end(ap);
	}
	return -1;
}

void fx_diag_note(fx_diag *d, const fx_loc *loc, const char *fmt, ...)
{
	if (d->nerr > d->max_shown)
		return;
	va_list ap;
	va_start(ap, fmt);
	vreport(d, loc, "note", fmt, ap);
	va_end(ap);
}
