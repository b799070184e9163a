#include "plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/outfile.h"
#include "run.h"

/* A gnuplot string literal holding text: in single quotes (where only a
 * doubled quote is special), quotes doubled, a line break as gnuplot's
 * "\n" concatenated in, every other control character dropped (a carriage
 * return or a form feed could end gnuplot's line), and the characters
 * enhanced text reads as markup (field names' underscores as subscripts,
 * the backslash) escaped.  Nothing inside can end the literal. */
void fx_plot_quote(FILE *g, const char *s)
{
	fputc('\'', g);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\'')
			fputc('\'', g);
		else if (c == '\n') {
			fputs("'.\"\\n\".'", g);
			continue;
		} else if (c < 0x20 || c == 0x7f)
			continue;
		else if (strchr("_^{}@&~\\", c))
			fputc('\\', g);
		fputc(c, g);
	}
	fputc('\'', g);
}

/* "#rrggbb" and nothing else reaches `lc rgb`. */
static int is_colour(const char *c)
{
	if (strlen(c) != 7 || c[0] != '#')
		return 0;
	for (int i = 1; i < 7; i++)
		if (!strchr("0123456789abcdefABCDEF", c[i]))
			return 0;
	return 1;
}

/* The whole script, text quoted, numbers printed by us: gnuplot writes the
 * picture to its standard output (`set output` with no name). */
static int script(FILE *g, const fx_plot *pl, const char *term)
{
	fprintf(g, "set terminal %s\nset output\nset multiplot layout 1,%zu title ", term,
		pl->np ? pl->np : 1);
	fx_plot_quote(g, pl->title);
	fprintf(g, "\nset grid\nset key left top\nset xlabel ");
	fx_plot_quote(g, pl->xlabel);
	fprintf(g, "\n%s", pl->logx ? "set logscale x 2\n" : "");
	if (pl->xtics && pl->nxtics) {  /* named values; slanted when side by side they would run together */
		size_t chars = 0;
		fprintf(g, "set xtics (");
		for (size_t k = 0; k < pl->nxtics; k++) {
			if (!isfinite(pl->xtics[k].at))
				return -1;
			fprintf(g, "%s", k ? ", " : "");
			fx_plot_quote(g, pl->xtics[k].label);
			fprintf(g, " %.17g", pl->xtics[k].at);
			chars += strlen(pl->xtics[k].label ? pl->xtics[k].label : "") + 6;
		}
		fprintf(g, ")%s\n", chars > 60 * (pl->np ? pl->np : 1) ? " rotate by -30 left" : "");
	}
	for (size_t k = 0; k < pl->np; k++) {
		const fx_plot_panel *p = &pl->p[k];
		int scatter = 0;
		for (size_t s = 0; s < p->ns; s++) {
			scatter |= p->s[s].scatter;
			if (p->s[s].color && !is_colour(p->s[s].color))
				return -1;
		}
		if (scatter) {  /* plot/scatter.c */
			if (fx_plot_scatter_panel(g, pl, p))
				return -1;
			continue;
		}
		fprintf(g, "%sset ylabel ", p->logy ? "set logscale y 10\n" : "unset logscale y\n");
		fx_plot_quote(g, p->ylabel);
		fputc('\n', g);
		for (size_t s = 0; s < p->ns; s++) {
			fprintf(g, "%s'-' using 1:2 with linespoints title ", s ? ", " : "plot ");
			fx_plot_quote(g, p->s[s].title);
		}
		fputc('\n', g);
		for (size_t s = 0; s < p->ns; s++) {
			for (size_t i = 0; i < p->s[s].n; i++) {
				double y = p->s[s].y[i];
				/* gnuplot reads nan and inf; a point it cannot draw is left out */
				fprintf(g, "%.17g %.17g\n", p->s[s].x[i], y > 0 || !p->logy ? y : 1e-30);
			}
			fprintf(g, "e\n");
		}
	}
	fprintf(g, "unset multiplot\n");
	return 0;
}

int fx_plot_script(const fx_plot *pl, const char *term, char **text, size_t *len)
{
	*text = NULL;
	*len = 0;
	FILE *g = open_memstream(text, len);
	if (!g)
		return -1;
	int bad = script(g, pl, term);
	if (fclose(g) || bad) {
		free(*text);
		*text = NULL;
		return -1;
	}
	return 0;
}

int fx_plot_draw(const fx_plot *pl, const char *path, char *err, size_t errlen)
{
	if (!pl || !path || !err || !errlen) {
		if (err && errlen)
			snprintf(err, errlen, "no plot or no file given");
		return -1;
	}
	const char *dot = strrchr(path, '.');
	char term[64];
	int w = 600 * (int)(pl->np ? pl->np : 1);
	if (dot && strcmp(dot, ".png") == 0)
		snprintf(term, sizeof term, "pngcairo size %d,500", w);
	else if (dot && strcmp(dot, ".svg") == 0)
		snprintf(term, sizeof term, "svg size %d,500 dynamic", w);
	else {
		snprintf(err, errlen, "the file's name must end in .svg or .png");
		return -1;
	}
	char *text;
	size_t len;
	if (fx_plot_script(pl, term, &text, &len)) {
		snprintf(err, errlen, "a tick at no finite place, a colour not #rrggbb, or out of memory");
		return -1;
	}
	int rc = fx_plot_emit(text, len, path, err, errlen);
	free(text);
	return rc;
}

int fx_plot_emit(const char *text, size_t len, const char *path, char *err, size_t errlen)
{
	fx_outfile of;
	FILE *out = fx_outfile_open(&of, path);
	if (!out) {
		snprintf(err, errlen, "cannot write: %s", errno == ELOOP ? "it is a symbolic link, "
			 "which fabricx does not follow" : strerror(errno));
		return -1;
	}
	int rc = fx_plot_run(text, len, out, err, errlen);
	if (fx_outfile_close(&of, rc == 0) && rc == 0) {
		snprintf(err, errlen, "cannot write: %s", strerror(errno));
		rc = -1;
	}
	return rc;
}
