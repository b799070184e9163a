#include "diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

void fx_diag_init(fx_diag *d)
{
	if (!d)
		return;
	memset(d, 0, sizeof *d);
	d->out = stderr;
	d->max_shown = 25;
}

void fx_diag_release(fx_diag *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nsrc; i++) {
		free(d->src[i].name);
		free(d->src[i].text);
	}
	free(d->src);
	free(d->last);
	d->last = NULL;
	free(d->first);
	free((char *)d->first_loc.file);
	free(d->first_key);
	d->first = d->first_key = NULL;
	d->first_loc.file = NULL;
	d->src = NULL;
	d->nsrc = d->capsrc = 0;
}

const char *fx_diag_add_source(fx_diag *d, const char *name, const char *text)
{
	if (!d || !name || !text)
		return NULL;
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

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t k = s[0] < 0xc2 ? 0 : s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : s[0] < 0xf5 ? 4 : 0;
	if (k == 0 || k > n)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return k;
}

/* Writes n bytes of text that came from the user (a spec's line, a key, a
 * value) so that it cannot drive the terminal: control bytes and bytes that
 * are not UTF-8 print as '?', one for one, so a caret still lines up. */
static void put_clean(FILE *f, const char *text, size_t n)
{
	const unsigned char *s = (const unsigned char *)text;
	for (size_t i = 0; i < n;) {
		if (s[i] >= 0x80) {
			size_t k = utf8_len(s + i, n - i);
			if (k) {
				fwrite(s + i, 1, k, f);
				i += k;
				continue;
			}
			fputc('?', f);
		} else {
			fputc(s[i] < 0x20 && s[i] != '\t' && s[i] != '\n' ? '?' : s[i] == 0x7f ? '?' : s[i], f);
		}
		i++;
	}
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
	fputs("    ", d->out);
	put_clean(d->out, t, (size_t)len);
	fputs("\n    ", d->out);
	for (int c = 1; c < loc->col && c <= len; c++)
		fputc(t[c - 1] == '\t' ? '\t' : ' ', d->out);
	fputs("^\n", d->out);
}

static void vreport(fx_diag *d, const fx_loc *loc, const char *kind,
		    const char *fmt, va_list ap)
{
	char *msg = fx_xvasprintf(fmt, ap);  /* messages quote user text: clean it */
	if (d->out) {  /* NULL: kept (first, last), not shown */
		if (loc && loc->file && loc->line > 0)
			fprintf(d->out, "%s:%d:%d: %s: ", loc->file, loc->line, loc->col, kind);
		else if (loc && loc->file)
			fprintf(d->out, "%s: %s: ", loc->file, kind);
		else
			fprintf(d->out, "fabricx: %s: ", kind);
		put_clean(d->out, msg, strlen(msg));
		fputc('\n', d->out);
		if (loc && loc->file)
			show_line(d, loc);
	}
	if (strcmp(kind, "note") != 0) {
		free(d->last);
		d->last = msg;
	} else {
		free(msg);
	}
}

void fx_diag_adopt(fx_diag *to, const fx_diag *from)
{
	if (to->first || !from->first)
		return;
	to->first = fx_xstrdup(from->first);
	if (from->first_loc.file) {
		to->first_loc.file = fx_xstrdup(from->first_loc.file);
		to->first_loc.line = from->first_loc.line;
		to->first_loc.col = from->first_loc.col;
	}
	if (from->first_key)
		to->first_key = fx_xstrdup(from->first_key);
}

void fx_diag_key(fx_diag *d, const char *key)
{
	if (d && d->nerr == 1 && !d->first_key && key)
		d->first_key = fx_xstrdup(key);
}

int fx_diag_gravity(int status)
{
	/* an internal error outranks bad input, which outranks a proof of
	 * infeasibility, which outranks an open question */
	static const int rank[] = {[FX_EXIT_OK] = 0, [FX_EXIT_UNDECIDED] = 1,
				   [FX_EXIT_INFEASIBLE] = 2, [FX_EXIT_INPUT] = 3,
				   [FX_EXIT_INTERNAL] = 4};
	return status >= 0 && status <= FX_EXIT_UNDECIDED ? rank[status] : rank[FX_EXIT_INTERNAL];
}

/* Counts a message of the given status and prints it (unless past
 * max_shown).  Always -1, what the callers return. */
static int report(fx_diag *d, int status, const fx_loc *loc, const char *kind, const char *fmt,
		  va_list ap)
{
	if (!d) {  /* a library caller that passed no fx_diag still hears why */
		char *msg = fx_xvasprintf(fmt, ap);
		fprintf(stderr, "fabricx: %s: ", kind);
		put_clean(stderr, msg, strlen(msg));
		fputc('\n', stderr);
		free(msg);
		return -1;
	}
	d->nerr++;
	if (!d->first) {
		va_list aq;
		va_copy(aq, ap);
		d->first = fx_xvasprintf(fmt, aq);
		va_end(aq);
		if (loc && loc->file) {
			d->first_loc.file = fx_xstrdup(loc->file);
			d->first_loc.line = loc->line;
			d->first_loc.col = loc->col;
		}
	}
	if (fx_diag_gravity(status) > fx_diag_gravity(d->status))
		d->status = status;
	if (d->nerr <= d->max_shown)
		vreport(d, loc, kind, fmt, ap);
	return -1;
}

int fx_diag_error(fx_diag *d, const fx_loc *loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(d, FX_EXIT_INPUT, loc, "error", fmt, ap);
	va_end(ap);
	return -1;
}

int fx_diag_internal(fx_diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(d, FX_EXIT_INTERNAL, NULL, "internal error", fmt, ap);
	va_end(ap);
	return -1;
}

int fx_diag_infeasible(fx_diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(d, FX_EXIT_INFEASIBLE, NULL, "infeasible", fmt, ap);
	va_end(ap);
	return -1;
}

int fx_diag_undecided(fx_diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report(d, FX_EXIT_UNDECIDED, NULL, "not decided", fmt, ap);
	va_end(ap);
	return -1;
}

void fx_diag_note(fx_diag *d, const fx_loc *loc, const char *fmt, ...)
{
	if (!d || d->nerr > d->max_shown)
		return;
	va_list ap;
	va_start(ap, fmt);
	vreport(d, loc, "note", fmt, ap);
	va_end(ap);
}
