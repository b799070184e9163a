/*
 * plot/scatter: a panel of points (design spaces, fronts).
 *
 * Kinds (fx_plot_series.scatter): 1 filled points, 3 hollow points (what
 * failed a constraint), 2 a front: larger filled points joined in order of
 * x and labelled with each point's label.  Points at the same place are
 * drawn once and counted ("x3" beside them), so none hides another.  An
 * axis whose values are all above 0 and span a factor of 32 or more (1.5
 * decades: 64 to 4,096 devices) is drawn
 * log (said in its label); named x ticks keep a linear axis.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "plot.h"
#include "run.h"

/* One distinct point of a series: where, how many, the first's index. */
typedef struct upt {
	double x, y;
	size_t n, first;
} upt;

static int upt_cmp(const void *pa, const void *pb)
{
	const upt *a = pa, *b = pb;
	if (a->x != b->x)
		return a->x < b->x ? -1 : 1;
	if (a->y != b->y)
		return a->y < b->y ? -1 : 1;
	return (a->first > b->first) - (a->first < b->first);
}

/* The distinct points of s, by x then y; NaN points left out. */
static upt *distinct(const fx_plot_series *s, size_t *n)
{
	upt *u = fx_xcalloc(s->n + 1, sizeof *u);
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++)
		if (!isnan(s->x[i]) && !isnan(s->y[i]))
			u[k++] = (upt){s->x[i], s->y[i], 1, i};
	if (k > 1)
		qsort(u, k, sizeof *u, upt_cmp);
	size_t m = 0;
	for (size_t i = 0; i < k; i++) {
		if (m && u[m - 1].x == u[i].x && u[m - 1].y == u[i].y)
			u[m - 1].n++;
		else
			u[m++] = u[i];
	}
	*n = m;
	return u;
}

/* A label as a data string: no quote, backslash or control character
 * reaches gnuplot (the labels are drawn noenhanced). */
static void datum(FILE *g, const char *s, size_t count)
{
	fputc('"', g);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		fputc(c < 0x20 || c == 0x7f || c == '"' || c == '\\' ? '?' : c, g);
	}
	if (count > 1)
		fprintf(g, "%sx%zu", s ? " " : "", count);
	fputc('"', g);
}

/* Whether values v (all series' x, or y) should be drawn log. */
static int spans_decades(const fx_plot_panel *p, int y)
{
	double lo = HUGE_VAL, hi = 0;
	for (size_t s = 0; s < p->ns; s++)
		for (size_t i = 0; i < p->s[s].n; i++) {
			double v = y ? p->s[s].y[i] : p->s[s].x[i];
			if (isnan(v))
				continue;
			if (!(v > 0))
				return 0;
			lo = fmin(lo, v), hi = fmax(hi, v);
		}
	return hi > 0 && hi >= 32 * lo;
}

int fx_plot_scatter_panel(FILE *g, const fx_plot *pl, const fx_plot_panel *p)
{
	int logx = pl->logx || (!(pl->xtics && pl->nxtics) && spans_decades(p, 0));
	int logy = p->logy || spans_decades(p, 1);
	double lo[2] = {HUGE_VAL, HUGE_VAL}, hi[2] = {-HUGE_VAL, -HUGE_VAL};
	for (size_t s = 0; s < p->ns; s++)
		for (size_t i = 0; i < p->s[s].n; i++) {
			lo[0] = fmin(lo[0], p->s[s].x[i]), hi[0] = fmax(hi[0], p->s[s].x[i]);
			lo[1] = fmin(lo[1], p->s[s].y[i]), hi[1] = fmax(hi[1], p->s[s].y[i]);
		}
	/* a scatter fills the frame: its legend goes below it; the margin
	 * must not push values near 0, never negative, below it */
	int zx = !logx && lo[0] >= 0 && lo[0] <= hi[0] / 4;
	int zy = !logy && lo[1] >= 0 && lo[1] <= hi[1] / 4;
	fprintf(g, "set key below\nset offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05\n"
		   "set xrange [%s:*]\nset yrange [%s:*]\n", zx ? "0" : "*", zy ? "0" : "*");
	fprintf(g, "%s%s", logx ? "set logscale x 2\n" : "unset logscale x\n",
		logy ? "set logscale y 10\n" : "unset logscale y\n");
	char *xl = fx_xasprintf("%s%s", pl->xlabel ? pl->xlabel : "", logx && !pl->logx ? " (log)" : "");
	char *yl = fx_xasprintf("%s%s", p->ylabel ? p->ylabel : "", logy && !p->logy ? " (log)" : "");
	fprintf(g, "set xlabel ");
	fx_plot_quote(g, xl);
	fprintf(g, "\nset ylabel ");
	fx_plot_quote(g, yl);
	fputc('\n', g);
	free(xl);
	free(yl);
	upt **u = fx_xcalloc(p->ns + 1, sizeof *u);
	size_t *nu = fx_xcalloc(p->ns + 1, sizeof *nu);
	int *counted = fx_xcalloc(p->ns + 1, sizeof *counted);
	const char *sep = "plot ";
	for (size_t s = 0; s < p->ns; s++) {
		const fx_plot_series *x = &p->s[s];
		u[s] = distinct(x, &nu[s]);
		for (size_t i = 0; i < nu[s]; i++)
			counted[s] |= u[s][i].n > 1;
		const char *col = x->color ? x->color : "";
		if (x->scatter == 2)
			fprintf(g, "%s'-' using 1:2 with linespoints pt 7 ps 1.3 lw 1.5%s%s%s title ", sep,
				*col ? " lc rgb '" : "", col, *col ? "'" : "");
		else
			fprintf(g, "%s'-' using 1:2 with points pt %d ps %s%s%s%s title ", sep,
				x->scatter == 3 ? 6 : 7, x->scatter == 3 ? "1.0" : "0.8", *col ? " lc rgb '" : "",
				col, *col ? "'" : "");
		fx_plot_quote(g, x->title);
		sep = ", ";
		/* the front's designs, or the counts of coinciding points */
		if (((x->scatter == 2 && x->labels) || counted[s]) && nu[s])
			fprintf(g, ", '-' using 1:2:3 with labels noenhanced left offset 0.8,0.4 font ',8'%s%s%s "
				   "notitle", *col ? " tc rgb '" : "", col, *col ? "'" : "");
	}
	fputc('\n', g);
	for (size_t s = 0; s < p->ns; s++) {
		const fx_plot_series *x = &p->s[s];
		for (size_t i = 0; i < nu[s]; i++)
			fprintf(g, "%.17g %.17g\n", u[s][i].x, u[s][i].y > 0 || !logy ? u[s][i].y : 1e-30);
		fprintf(g, "e\n");
		int labelled = x->scatter == 2 && x->labels;
		if ((!labelled && !counted[s]) || !nu[s])
			continue;
		for (size_t i = 0; i < nu[s]; i++) {
			if (!labelled && u[s][i].n < 2)
				continue;
			fprintf(g, "%.17g %.17g ", u[s][i].x, u[s][i].y > 0 || !logy ? u[s][i].y : 1e-30);
			datum(g, labelled ? x->labels[u[s][i].first] : NULL, u[s][i].n);
			fputc('\n', g);
		}
		fprintf(g, "e\n");
	}
	for (size_t s = 0; s < p->ns; s++)
		free(u[s]);
	free(u);
	free(nu);
	free(counted);
	/* the next panel starts from the figure's own axes */
	fprintf(g, "%s", pl->logx ? "" : "unset logscale x\n");
	fprintf(g, "set xlabel ");
	fx_plot_quote(g, pl->xlabel);
	fputc('\n', g);
	return 0;
}
