/*
 * plot: line charts for sweeps and model curves, drawn by gnuplot.
 *
 * gnuplot (Debian's gnuplot-nox; `make deps` installs it) runs as a
 * program with the data inline on its standard input, so nothing but the
 * picture touches disk; one module owns that, so every plot in fabricx
 * looks alike: a title, labelled axes with units, a legend, log axes where
 * the quantity spans decades.  SVG or PNG by the file's extension.
 */
#ifndef FX_PLOT_H
#define FX_PLOT_H

#include <stddef.h>

typedef struct fx_plot_series {
	const char *title;
	const double *x, *y;     /* n points; y <= 0 is drawn at the axis floor */
	size_t n;
	int scatter;             /* 0 joined; 1 points alone; 2 filled, larger points
				  * (a Pareto front over the others) */
	const char *color;       /* "#rrggbb", or NULL: gnuplot's next colour (a
				  * kind of point keeps its colour from plot to
				  * plot only when it is named) */
} fx_plot_series;

typedef struct fx_plot_panel {
	const char *ylabel;      /* with its unit, e.g. "time (us)" */
	int logy;
	const fx_plot_series *s;
	size_t ns;
} fx_plot_panel;

typedef struct fx_plot {
	const char *title, *xlabel;  /* a '\n' in the title starts a second line */
	int logx;                /* base-2 log axis when set */
	const char *xtics;       /* gnuplot xtics list, or NULL */
	const fx_plot_panel *p;  /* side by side */
	size_t np;
} fx_plot;

/* Draws pl into path (.svg or .png).  0, or -1 with why in err. */
int fx_plot_draw(const fx_plot *pl, const char *path, char *err, size_t errlen);

#endif
