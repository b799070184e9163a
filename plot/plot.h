/*
 * plot: line charts for sweeps and model curves, drawn by gnuplot.
 *
 * gnuplot (Debian's gnuplot-nox; `make deps` installs it) runs as a child
 * program, started without a shell, with the script and the data on its
 * standard input and the picture on its standard output, which this module
 * copies into the file through the confined, atomic writer (core/outfile.h):
 * a symlink is refused, a failed or cut drawing leaves the previous file as
 * it was, a full disk is an error.  The file's name never reaches gnuplot,
 * and every text (titles, labels, tick names) reaches it as a quoted string
 * literal with its control characters removed, so nothing a user writes can
 * become a gnuplot command.  One module owns that, so every plot in fabricx
 * looks alike: a title, labelled axes with units, a legend, log axes where
 * the quantity spans decades.  SVG or PNG by the file's extension.
 *
 * Signals: the script goes to gnuplot over a socket written with
 * MSG_NOSIGNAL, so a gnuplot that dies early is an EPIPE here, never a
 * SIGPIPE: the library sets no signal disposition (that is the program's).
 */
#ifndef FX_PLOT_H
#define FX_PLOT_H

#include <stddef.h>

typedef struct fx_plot_series {
	const char *title;
	const double *x, *y;     /* n points; y <= 0 is drawn at the axis floor */
	size_t n;
	int scatter;             /* 0 joined; points alone (plot/scatter.c): 1 filled,
				  * 3 hollow (what fails a constraint), 2 a front:
				  * larger filled points joined in order of x and
				  * labelled with `labels` */
	const char *color;       /* "#rrggbb", or NULL: gnuplot's next colour (a
				  * kind of point keeps its colour from plot to
				  * plot only when it is named) */
	const char *const *labels;  /* scatter 2: n labels, each point's design, or NULL */
} fx_plot_series;

/* A panel of scatter series draws points at one place once, with their
 * count beside them, and an axis log when its values (all > 0) span two
 * a factor of 32 or more (and no named ticks are given), saying "(log)". */
typedef struct fx_plot_panel {
	const char *ylabel;      /* with its unit, e.g. "time (us)" */
	int logy;
	const fx_plot_series *s;
	size_t ns;
} fx_plot_panel;

/* A named tick on the x axis: label drawn at x = at. */
typedef struct fx_plot_tic {
	const char *label;
	double at;
} fx_plot_tic;

typedef struct fx_plot {
	const char *title, *xlabel;  /* a '\n' in the title starts a second line */
	int logx;                /* base-2 log axis when set */
	const fx_plot_tic *xtics;  /* nxtics named ticks, or NULL: gnuplot's own */
	const fx_plot_panel *p;  /* side by side */
	size_t np;
	size_t nxtics;
} fx_plot;

/* fx_plot_draw's answer when gnuplot is not installed (not found on PATH):
 * nothing was drawn and the file is untouched; err says so. */
#define FX_PLOT_NO_GNUPLOT (-2)

/* Draws pl into path (.svg or .png).  0; FX_PLOT_NO_GNUPLOT; or -1 with
 * why in err (a bad extension, a path the writer refuses, a write that
 * failed, gnuplot's own error). */
int fx_plot_draw(const fx_plot *pl, const char *path, char *err, size_t errlen);

/* The script and data fx_plot_draw hands gnuplot for terminal term, into
 * *text (the caller frees it): 0, or -1 (a tick at no finite place, a
 * colour not #rrggbb).  For tests. */
int fx_plot_script(const fx_plot *pl, const char *term, char **text, size_t *len);

/* ---- the size sweep (plot/sweep.c) ---- */

/* Two algorithms' times are equal at size `at` (bytes), between two sizes
 * of the sweep. */
typedef struct fx_plot_cross {
	size_t a, b;             /* algorithms, indices into fx_plot_sweep.algo */
	double at;
} fx_plot_cross;

/* A sweep of na algorithms over ns sizes: time and bus bandwidth against
 * size, drawn to show the winner (sweep.c says how: ties merged into one
 * series "a = b", the fastest per size circled and named where it changes,
 * crossovers drawn, the peak bus bandwidth a line, power-of-two ticks). */
typedef struct fx_plot_sweep {
	const char *title;       /* a '\n' starts a second line */
	size_t na, ns;
	const char *const *algo; /* [na] */
	const double *size;      /* [ns] bytes per rank, ascending, > 0 */
	const double *time;      /* [na * ns] seconds; algorithm a's at a * ns */
	const double *busbw;     /* [na * ns] B/s */
	const fx_plot_cross *cross;
	size_t ncross;
} fx_plot_sweep;

/* Draws s into path (.svg or .png), as fx_plot_draw. */
int fx_plot_sweep_draw(const fx_plot_sweep *s, const char *path, char *err, size_t errlen);
/* The gnuplot script and data fx_plot_sweep_draw hands gnuplot for
 * terminal term, into *text (the caller frees it): 0, or -1 for an empty
 * sweep or a size not above 0.  For tests. */
int fx_plot_sweep_script(const fx_plot_sweep *s, const char *term, char **text, size_t *len);

#endif
