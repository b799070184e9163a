#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A gnuplot string literal: the text in single quotes, quotes doubled,
 * and the characters enhanced text would read as markup (field names'
 * underscores as subscripts) escaped. */
static void quote_as(FILE *g, const char *s, int text)
{
	fputc('\'', g);
	for (; s && *s; s++) {
		if (*s == '\'')
			fputc('\'', g);
		else if (text && *s == '\n') {  /* a line break: concatenate "\n" */
			fputs("'.\"\\n\".'", g);
			continue;
		} else if (text && strchr("_^{}@&~", *s))
			fputc('\\', g);
		fputc(*s, g);
	}
	fputc('\'', g);
}

static void quote(FILE *g, const char *s)
{
	quote_as(g, s, 1);
}

int fx_plot_draw(const fx_plot *pl, const char *path, char *err, size_t errlen)
{
	const char *dot = strrchr(path, '.');
	char term[64];
	int w = 600 * (int)(pl->np ? pl->np : 1);
	if (dot && strcmp(dot, ".png") == 0)
		snprintf(term, sizeof term, "pngcairo size %d,500", w);
	else if (dot && strcmp(dot, ".svg") == 0)
		snprintf(term, sizeof term, "svg size %d,500 dynamic", w);
	else {
		snprintf(err, errlen, "'%s' must end in .svg or .png", path);
		return -1;
	}
	FILE *probe = fopen(path, "w");
	if (!probe) {
		snprintf(err, errlen, "cannot write '%s'", path);
		return -1;
	}
	fclose(probe);
	FILE *g = popen("gnuplot 2>/dev/null", "w");
	if (!g) {
		snprintf(err, errlen, "needs gnuplot (Debian package gnuplot-nox; `make deps` installs it)");
		return -1;
	}
	fprintf(g, "set terminal %s\nset output ", term);
	quote_as(g, path, 0);  /* a file name, not text: no escapes */
	fprintf(g, "\nset multiplot layout 1,%zu title ", pl->np ? pl->np : 1);
	quote(g, pl->title);
	fprintf(g, "\nset grid\nset key left top\nset xlabel ");
	quote(g, pl->xlabel);
	fprintf(g, "\n%s", pl->logx ? "set logscale x 2\n" : "");
	if (pl->xtics)  /* named values; slanted when side by side they would run together */
		fprintf(g, "set xtics (%s)%s\n", pl->xtics,
			strlen(pl->xtics) > 60 * (pl->np ? pl->np : 1) ? " rotate by -30 left" : "");
	for (size_t k = 0; k < pl->np; k++) {
		const fx_plot_panel *p = &pl->p[k];
		int scatter = 0;
		for (size_t s = 0; s < p->ns; s++)
			scatter |= p->s[s].scatter;
		/* a scatter fills the frame: its legend goes below it */
		fprintf(g, "%s", scatter ? "set key below\nset offsets graph 0.05, graph 0.05, "
			   "graph 0.05, graph 0.05\n" : "");
		if (scatter) {  /* the margin must not push values near 0, never negative, below it */
			double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
			for (size_t s = 0; s < p->ns; s++)
				for (size_t i = 0; i < p->s[s].n; i++) {
					lo[0] = fmin(lo[0], p->s[s].x[i]), hi[0] = fmax(hi[0], p->s[s].x[i]);
					lo[1] = fmin(lo[1], p->s[s].y[i]), hi[1] = fmax(hi[1], p->s[s].y[i]);
				}
			int zx = !pl->logx && lo[0] >= 0 && lo[0] <= hi[0] / 4;
			int zy = !p->logy && lo[1] >= 0 && lo[1] <= hi[1] / 4;
			fprintf(g, "set xrange [%s:*]\nset yrange [%s:*]\n", zx ? "0" : "*", zy ? "0" : "*");
		}
		fprintf(g, "%sset ylabel ", p->logy ? "set logscale y 10\n" : "unset logscale y\n");
		quote(g, p->ylabel);
		fputc('\n', g);
		for (size_t s = 0; s < p->ns; s++) {
			/* scatter series: hollow circles, then filled for a front drawn over them */
			if (p->s[s].scatter)
				fprintf(g, "%s'-' using 1:2 with points pt %d ps %s%s%s%s title ",
					s ? ", " : "plot ", p->s[s].scatter == 2 ? 7 : 6,
					p->s[s].scatter == 2 ? "1.2" : "0.8", p->s[s].color ? " lc rgb '" : "",
					p->s[s].color ? p->s[s].color : "", p->s[s].color ? "'" : "");
			else
				fprintf(g, "%s'-' using 1:2 with linespoints title ", s ? ", " : "plot ");
			quote(g, p->s[s].title);
		}
		fputc('\n', g);
		for (size_t s = 0; s < p->ns; s++) {
			for (size_t i = 0; i < p->s[s].n; i++) {
				double y = p->s[s].y[i];
				fprintf(g, "%.17g %.17g\n", p->s[s].x[i], y > 0 || !p->logy ? y : 1e-30);
			}
			fprintf(g, "e\n");
		}
	}
	fprintf(g, "unset multiplot\n");
	int st = pclose(g);
	if (st != 0) {
		snprintf(err, errlen, "gnuplot failed (exit status %d; is gnuplot installed? Debian "
			 "package gnuplot-nox)", st);
		return -1;
	}
	return 0;
}
