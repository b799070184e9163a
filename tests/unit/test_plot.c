/* The size-sweep plot's script (plot/sweep.c), on a sweep worked by hand:
 * sizes 1, 2, 4, 8 B; algorithms a and b take 1, 2, 4, 8 us (a tie at
 * every size), c 3 us at every size.  So: two series, "a = b" and "c";
 * the fastest is a = b at 1 and 2 B (1 and 2 us < 3) and c at 4 and 8 B
 * (3 < 4, 8), named where it changes (1 B: "a = b", 4 B: "c"); the sweep's
 * crossovers a/c and b/c at 3 B are one crossing of the tie with c; the
 * peak bus bandwidth is c's at 8 B. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#include "../../plot/plot.h"

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* The datablock called name, as text (caller frees). */
static char *block(const char *script, const char *name)
{
	char head[64];
	snprintf(head, sizeof head, "%s << EOD\n", name);
	const char *p = strstr(script, head);
	ck_assert_msg(p != NULL, "no datablock %s", name);
	p += strlen(head);
	const char *e = strstr(p, "EOD\n");
	ck_assert_ptr_nonnull(e);
	return strndup(p, (size_t)(e - p));
}

START_TEST(plot_sweep_winner)
{
	static const double size[] = {1, 2, 4, 8};
	double t[12], bw[12];
	for (int i = 0; i < 4; i++) {
		t[i] = t[4 + i] = size[i] * 1e-6;  /* a, b */
		t[8 + i] = 3e-6;                   /* c */
	}
	for (int k = 0; k < 12; k++)
		bw[k] = size[k % 4] / t[k];
	static const char *const algo[] = {"a", "b", "c"};
	static const fx_plot_cross cross[] = {{0, 2, 3}, {1, 2, 3}};
	fx_plot_sweep s = {"t", 3, 4, algo, size, t, bw, cross, 2};
	char *text;
	size_t len;
	ck_assert_int_eq(fx_plot_sweep_script(&s, "svg", &text, &len), 0);
	ck_assert_uint_eq(count(text, " << EOD\n"), 2 + 4);  /* $g0 $g1 $best $wins $cross $peak */
	ck_assert_ptr_null(strstr(text, "$g2 << EOD"));
	ck_assert_uint_eq(count(text, "title 'a = b'"), 2);  /* one series in each panel */
	ck_assert_ptr_null(strstr(text, "title 'b'"));
	char *best = block(text, "$best"), *wins = block(text, "$wins"), *x = block(text, "$cross");
	double bs[4], bt[4], bb[4];
	const char *p = best;
	for (int i = 0; i < 4; i++) {
		int n;
		ck_assert_int_eq(sscanf(p, "%lf %lf %lf%n", &bs[i], &bt[i], &bb[i], &n), 3);
		p += n;
	}
	ck_assert_double_eq_tol(bt[0], 1, 1e-9);
	ck_assert_double_eq_tol(bt[1], 2, 1e-9);
	ck_assert_double_eq_tol(bt[2], 3, 1e-9);
	ck_assert_double_eq_tol(bt[3], 3, 1e-9);
	ck_assert_uint_eq(count(wins, "\n"), 2);
	ck_assert_ptr_nonnull(strstr(wins, "\"a = b\""));
	ck_assert(strncmp(strstr(wins, "\"a = b\"") + 8, "4 ", 2) == 0);  /* c from 4 B on */
	ck_assert_ptr_nonnull(strstr(wins, "\"c\""));
	ck_assert_uint_eq(count(x, "\n"), 1);
	ck_assert_ptr_nonnull(strstr(x, "\"a = b / c: 3 B\""));
	ck_assert_ptr_nonnull(strstr(text, "set arrow 1 from 3, graph 0 to 3, graph 1"));
	ck_assert_ptr_null(strstr(text, "set arrow 2 "));
	/* the peak: c at 8 B, 8 / 3e-6 B/s = 2.667e-3 GB/s */
	ck_assert_ptr_nonnull(strstr(text, "peak bus bandwidth 0.002667 GB/s (c at 8 B)"));
	/* every power of two from 1 to 8 B ticked, each labelled (4 <= 15) */
	ck_assert_ptr_nonnull(strstr(text, "'1 B' 1 0, '2 B' 2 0, '4 B' 4 0, '8 B' 8 0"));
	free(best);
	free(wins);
	free(x);
	free(text);
}
END_TEST

/* Names reach gnuplot as data strings that cannot end early and as quoted
 * literals: a hostile name neither closes its string nor runs a command. */
START_TEST(plot_sweep_hostile_name)
{
	static const double size[] = {1, 2};
	const double t[] = {1e-6, 2e-6}, bw[] = {1, 1};
	static const char *const algo[] = {"x\"\nsystem('touch y')\n'"};
	fx_plot_sweep s = {"t\nsecond line", 1, 2, algo, size, t, bw, NULL, 0};
	char *text;
	size_t len;
	ck_assert_int_eq(fx_plot_sweep_script(&s, "svg", &text, &len), 0);
	char *wins = block(text, "$wins");
	ck_assert_ptr_nonnull(strstr(wins, "\"x??system??touch y????\""));
	ck_assert_ptr_null(strstr(text, "\nsystem("));
	free(wins);
	free(text);
	/* nothing to draw: refused */
	s.na = 0;
	ck_assert_int_eq(fx_plot_sweep_script(&s, "svg", &text, &len), -1);
}
END_TEST

/* A panel of points (plot/scatter.c): three feasible points at (64, 1),
 * one of them twice more at the same place (drawn once, "x3"), two
 * infeasible hollow (pt 6), a front of two filled and joined in order of
 * x with their designs; x from 64 to 4,096 spans 64x: log, said so; y
 * from 1 to 3 does not. */
START_TEST(plot_scatter_kinds)
{
	const double fx[] = {64, 64, 64, 128}, fy[] = {1, 1, 1, 2};
	const double ix[] = {256, 512}, iy[] = {3, 3};
	const double px[] = {4096, 1024}, py[] = {1.5, 2.5};
	static const char *const design[] = {"[16, 16, 16]", "[\"10\"]"};
	fx_plot_series s[3] = {
		{"feasible", fx, fy, 4, 1, "#9400d3", NULL},
		{"infeasible", ix, iy, 2, 3, "#e51e10", NULL},
		{"Pareto front", px, py, 2, 2, "#0072b2", design},
	};
	fx_plot_panel p = {"y (GB/s)", 0, s, 3};
	fx_plot pl = {"t", "devices", 0, NULL, &p, 1, 0};
	char *text;
	size_t len;
	ck_assert_int_eq(fx_plot_script(&pl, "svg", &text, &len), 0);
	ck_assert_ptr_nonnull(strstr(text, "set logscale x 2\n"));
	ck_assert_ptr_nonnull(strstr(text, "unset logscale y\n"));
	ck_assert_ptr_nonnull(strstr(text, "set xlabel 'devices (log)'"));
	ck_assert_ptr_nonnull(strstr(text, "with points pt 7 ps 0.8 lc rgb '#9400d3' title 'feasible'"));
	ck_assert_ptr_nonnull(strstr(text, "with points pt 6 ps 1.0 lc rgb '#e51e10' title 'infeasible'"));
	ck_assert_ptr_nonnull(strstr(text, "with linespoints pt 7 ps 1.3 lw 1.5 lc rgb '#0072b2' title 'Pareto front'"));
	/* the feasible points: (64, 1) once, then (128, 2); its count label */
	ck_assert_ptr_nonnull(strstr(text, "\n64 1\n128 2\ne\n64 1 \"x3\"\ne\n"));
	/* the front in order of x, labelled; a quote in a label is no quote */
	ck_assert_ptr_nonnull(strstr(text, "\n1024 2.5\n4096 1.5\ne\n1024 2.5 \"[?10?]\"\n4096 1.5 \"[16, 16, 16]\"\ne\n"));
	free(text);
}
END_TEST

Suite *suite_plot(void)
{
	Suite *s = suite_create("plot");
	TCase *tc = tcase_create("sweep");
	tcase_add_test(tc, plot_sweep_winner);
	tcase_add_test(tc, plot_sweep_hostile_name);
	tcase_add_test(tc, plot_scatter_kinds);
	suite_add_tcase(s, tc);
	return s;
}
