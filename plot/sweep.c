/*
 * plot/sweep: the size-sweep plot, drawn to show the winner.
 *
 * Every algorithm gets its own colour and marker; algorithms whose times
 * are equal at every size are one series, "ring = hier", so none hides
 * another; where curves meet only in part, the earlier ones are drawn
 * wider underneath.  The fastest at each size is circled and named where
 * the winner changes; each crossover the sweep found is a dashed vertical
 * line with a cross on the curve and its size; the busbw panel draws the
 * peak bus bandwidth as a line.  Sizes are ticked at every power of two,
 * labelled every 1, 2, 5 or 10 powers.
 *
 * What reaches gnuplot: our own commands, numbers we print, and texts as
 * quoted literals (fx_plot_quote).  The curves go in as datablocks, and
 * the names on the curves (a `with labels` column) as data strings made of
 * letters, digits and " =+-./:" only.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "plot.h"
#include "run.h"

static const char *const colours[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
	"#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#000080", "#808000",
};
static const int markers[] = {7, 5, 9, 11, 13, 15, 1, 2, 3, 4, 6, 8};
#define NSTYLE (sizeof colours / sizeof colours[0])

/* A data string: only characters that cannot end it or mean anything. */
static void datum(FILE *g, const char *s)
{
	fputc('"', g);
	for (; s && *s; s++)
		fputc(strchr(" =+-./:", *s) || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') ? *s : '?', g);
	fputc('"', g);
}

/* "8 B", "1 KiB", "512 MiB" for 2^k bytes. */
static void size_name(char *buf, size_t len, int k)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	int u = k >= 0 ? k / 10 : 0;
	if (u > 5)
		u = 5;
	snprintf(buf, len, "%.0f %s", ldexp(1, k - 10 * u), unit[u]);
}

/* "384 KiB" or "1.5 MiB" for any size. */
static void bytes_name(char *buf, size_t len, double b)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	int u = 0;
	while (u < 4 && b >= 1024)
		b /= 1024, u++;
	snprintf(buf, len, "%.3g %s", b, unit[u]);
}

static int same_curve(const fx_plot_sweep *s, size_t a, size_t b)
{
	for (size_t i = 0; i < s->ns; i++) {
		double x = s->time[a * s->ns + i], y = s->time[b * s->ns + i];
		if (!(fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y))))
			return 0;
	}
	return 1;
}

/* Groups of tied algorithms: grp[a] the group of a, the first algorithm
 * of each group leads it; returns the number of groups. */
static size_t tie_groups(const fx_plot_sweep *s, size_t *grp, size_t *lead)
{
	size_t ng = 0;
	for (size_t a = 0; a < s->na; a++) {
		grp[a] = ng;
		for (size_t g = 0; g < ng; g++)
			if (same_curve(s, lead[g], a)) {
				grp[a] = g;
				break;
			}
		if (grp[a] == ng)
			lead[ng++] = a;
	}
	return ng;
}

static void group_title(const fx_plot_sweep *s, const size_t *grp, size_t g, char *buf, size_t len)
{
	size_t k = 0;
	buf[0] = '\0';
	for (size_t a = 0; a < s->na; a++)
		if (grp[a] == g) {
			k += (size_t)snprintf(buf + k, k < len ? len - k : 0, "%s%s", k ? " = " : "", s->algo[a]);
			if (k >= len)
				break;
		}
}

/* The fastest algorithm's group at size i (ties: the first). */
static size_t winner(const fx_plot_sweep *s, const size_t *grp, size_t i)
{
	size_t best = 0;
	for (size_t a = 1; a < s->na; a++)
		if (s->time[a * s->ns + i] < s->time[best * s->ns + i])
			best = a;
	return grp[best];
}

/* The curve of algorithm a at size x, log-log between the sweep's sizes. */
static double at_size(const fx_plot_sweep *s, size_t a, double x)
{
	const double *t = s->time + a * s->ns;
	for (size_t i = 0; i + 1 < s->ns; i++)
		if (x >= s->size[i] && x <= s->size[i + 1] && t[i] > 0 && t[i + 1] > 0) {
			double f = log(x / s->size[i]) / log(s->size[i + 1] / s->size[i]);
			return exp(log(t[i]) + f * (log(t[i + 1]) - log(t[i])));
		}
	return t[0];
}

static void xtics(FILE *g, const fx_plot_sweep *s)
{
	double lo = s->size[0], hi = s->size[0];
	for (size_t i = 0; i < s->ns; i++)
		lo = fmin(lo, s->size[i]), hi = fmax(hi, s->size[i]);
	int k0 = (int)floor(log2(lo) + 1e-9), k1 = (int)ceil(log2(hi) - 1e-9);
	static const int steps[] = {1, 2, 5, 10};
	int step = 10;
	for (size_t i = 0; i < 4; i++)
		if ((k1 - k0) / steps[i] + 1 <= 15) {
			step = steps[i];
			break;
		}
	fprintf(g, "set xrange [%.17g:%.17g]\nset xtics (", ldexp(1, k0) / 1.2, ldexp(1, k1) * 1.2);
	for (int k = k0; k <= k1; k++) {
		char name[32];
		int labelled = ((k % step) + step) % step == 0;
		size_name(name, sizeof name, k);
		fprintf(g, "%s", k > k0 ? ", " : "");
		fx_plot_quote(g, labelled ? name : "");
		fprintf(g, " %.17g %d", ldexp(1, k), labelled ? 0 : 1);
	}
	fprintf(g, ") rotate by -40 left\nset mxtics 1\n");
}

int fx_plot_sweep_script(const fx_plot_sweep *s, const char *term, char **text, size_t *len)
{
	*text = NULL;
	*len = 0;
	if (!s || !s->na || !s->ns || !s->algo || !s->size || !s->time || !s->busbw)
		return -1;
	for (size_t i = 0; i < s->ns; i++)
		if (!(s->size[i] > 0) || !isfinite(s->size[i]))
			return -1;
	FILE *g = open_memstream(text, len);
	if (!g)
		return -1;
	size_t *grp = fx_xcalloc(s->na, sizeof *grp), *lead = fx_xcalloc(s->na, sizeof *lead);
	size_t ng = tie_groups(s, grp, lead);
	char buf[512];
	/* the data: per group its curves, the fastest per size, the winners'
	 * names where the winner changes, the crossovers, the peak */
	for (size_t gi = 0; gi < ng; gi++) {
		fprintf(g, "$g%zu << EOD\n", gi);
		for (size_t i = 0; i < s->ns; i++) {
			double t = s->time[lead[gi] * s->ns + i], b = s->busbw[lead[gi] * s->ns + i];
			fprintf(g, "%.17g %.17g %.17g\n", s->size[i], t > 0 ? t * 1e6 : NAN,
				b > 0 ? b / 1e9 : NAN);
		}
		fprintf(g, "EOD\n");
	}
	fprintf(g, "$best << EOD\n");
	for (size_t i = 0; i < s->ns; i++) {
		size_t w = lead[winner(s, grp, i)];
		fprintf(g, "%.17g %.17g %.17g\n", s->size[i], s->time[w * s->ns + i] * 1e6,
			s->busbw[w * s->ns + i] / 1e9);
	}
	fprintf(g, "EOD\n$wins << EOD\n");
	for (size_t i = 0; i < s->ns; i++) {
		size_t w = winner(s, grp, i);
		if (i && w == winner(s, grp, i - 1))
			continue;
		group_title(s, grp, w, buf, sizeof buf);
		fprintf(g, "%.17g %.17g %.17g ", s->size[i], s->time[lead[w] * s->ns + i] * 1e6,
			s->busbw[lead[w] * s->ns + i] / 1e9);
		datum(g, buf);
		fputc('\n', g);
	}
	fprintf(g, "EOD\n$cross << EOD\n");
	size_t ncross = 0;
	double tmax = 0;  /* the crossovers' names hang from near the top */
	for (size_t i = 0; i < s->na * s->ns; i++)
		tmax = fmax(tmax, s->time[i]);
	double *xat = fx_xcalloc(s->ncross + 1, sizeof *xat);
	for (size_t k = 0; k < s->ncross; k++) {
		const fx_plot_cross *x = &s->cross[k];
		if (x->a >= s->na || x->b >= s->na || !(x->at > 0) || grp[x->a] == grp[x->b])
			continue;
		int dup = 0;  /* a tie's members cross the same curve at the same size: once */
		for (size_t j = 0; j < k && !dup; j++) {
			const fx_plot_cross *y = &s->cross[j];
			dup = y->a < s->na && y->b < s->na && fabs(y->at - x->at) <= 1e-9 * x->at &&
			      ((grp[y->a] == grp[x->a] && grp[y->b] == grp[x->b]) ||
			       (grp[y->a] == grp[x->b] && grp[y->b] == grp[x->a]));
		}
		if (dup)
			continue;
		char n[32], ta[200], tb[200];
		bytes_name(n, sizeof n, x->at);
		group_title(s, grp, grp[x->a], ta, sizeof ta);
		group_title(s, grp, grp[x->b], tb, sizeof tb);
		snprintf(buf, sizeof buf, "%s / %s: %s", ta, tb, n);
		fprintf(g, "%.17g %.17g %.17g ", x->at, at_size(s, x->a, x->at) * 1e6, tmax * 1e6 / 1.6);
		datum(g, buf);
		fputc('\n', g);
		xat[ncross++] = x->at;
	}
	size_t pa = 0, pi = 0;  /* the peak bus bandwidth */
	for (size_t a = 0; a < s->na; a++)
		for (size_t i = 0; i < s->ns; i++)
			if (s->busbw[a * s->ns + i] > s->busbw[pa * s->ns + pi])
				pa = a, pi = i;
	double peak = s->busbw[pa * s->ns + pi];
	fprintf(g, "EOD\n$peak << EOD\n%.17g %.17g\n%.17g %.17g\nEOD\n", s->size[0] / 1.2, peak / 1e9,
		s->size[s->ns - 1] * 1.2, peak / 1e9);

	/* the picture */
	fprintf(g, "set terminal %s\nset output\nset multiplot layout 1,2 title ", term);
	fx_plot_quote(g, s->title);
	fprintf(g, "\nset grid xtics ytics mxtics\nset logscale x 2\nset logscale y 10\n"
		   "set key outside below left horizontal maxcols 3 spacing 1.1\n"
		   "set xlabel 'size per rank (bytes, powers of two)'\nset bmargin 12\n");
	xtics(g, s);
	/* the crossovers' lines, behind the curves, in both panels */
	for (size_t k = 0; k < ncross; k++)
		fprintf(g, "set arrow %zu from %.17g, graph 0 to %.17g, graph 1 nohead back dt 2 lw 1.2 "
			   "lc rgb '#aa3333'\n", k + 1, xat[k], xat[k]);
	for (int panel = 0; panel < 2; panel++) {
		fprintf(g, "set ylabel ");
		fx_plot_quote(g, panel ? "bus bandwidth (GB/s, log)" : "time (us, log)");
		fprintf(g, "\nplot ");
		int col = panel ? 3 : 2;
		for (size_t gi = 0; gi < ng; gi++) {
			double lw = ng > 1 ? 1.2 + 3.0 * (double)(ng - 1 - gi) / (double)(ng - 1) : 2;
			fprintf(g, "%s$g%zu using 1:%d with linespoints lw %.2f lc rgb '%s' pt %d ps 1.1 "
				   "dt %zu title ", gi ? ", " : "", gi, col, lw, colours[gi % NSTYLE],
				markers[(gi + gi / NSTYLE) % NSTYLE], 1 + gi / NSTYLE);
			group_title(s, grp, gi, buf, sizeof buf);
			fx_plot_quote(g, buf);
		}
		fprintf(g, ", $best using 1:%d with points pt 6 ps 2.4 lw 1.5 lc rgb 'black' title ", col);
		fx_plot_quote(g, "fastest at each size (circled)");
		fprintf(g, ", $wins using 1:%d:4 with labels left offset 0.6,1.6 font ',10' tc rgb 'black' "
			   "notitle",
			col);
		if (panel == 0 && ncross) {
			fprintf(g, ", $cross using 1:2 with points pt 3 ps 2 lw 2 lc rgb '#aa3333' title ");
			fx_plot_quote(g, "crossover (equal time; dashed line)");
			fprintf(g, ", $cross using 1:3:4 with labels rotate by 90 offset -0.8,0 right "
				   "font ',9' tc rgb '#aa3333' notitle");
		}
		if (panel == 1 && peak > 0) {
			char n[32];
			bytes_name(n, sizeof n, s->size[pi]);
			snprintf(buf, sizeof buf, "peak bus bandwidth %.4g GB/s (%s at %s)", peak / 1e9,
				 s->algo[pa], n);
			fprintf(g, ", $peak using 1:2 with lines dt 3 lw 2 lc rgb '#444444' title ");
			fx_plot_quote(g, buf);
		}
		fputc('\n', g);
	}
	fprintf(g, "unset multiplot\n");
	free(grp);
	free(lead);
	free(xat);
	if (fclose(g)) {
		free(*text);
		*text = NULL;
		return -1;
	}
	return 0;
}

int fx_plot_sweep_draw(const fx_plot_sweep *s, const char *path, char *err, size_t errlen)
{
	if (!path || !err || !errlen)
		return -1;
	const char *dot = strrchr(path, '.');
	const char *term;
	if (dot && strcmp(dot, ".png") == 0)
		term = "pngcairo size 1400,640 font 'Helvetica,10'";
	else if (dot && strcmp(dot, ".svg") == 0)
		term = "svg size 1400,640 dynamic font 'Helvetica,10'";
	else {
		snprintf(err, errlen, "the file's name must end in .svg or .png");
		return -1;
	}
	char *text;
	size_t len;
	if (fx_plot_sweep_script(s, term, &text, &len)) {
		snprintf(err, errlen, "no sweep to plot (no algorithm, no size, or a size not above 0)");
		return -1;
	}
	int rc = fx_plot_emit(text, len, path, err, errlen);
	free(text);
	return rc;
}
