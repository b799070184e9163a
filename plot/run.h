/*
 * plot/run: gnuplot as a child process, inside plot/ only.
 *
 * The program is started with posix_spawnp (no shell, nothing of the script
 * on its command line), SIGPIPE and the other signals a program may have
 * set aside restored to their defaults and none blocked.  The script goes
 * in over a socket written with MSG_NOSIGNAL; the picture comes back on a
 * pipe and is copied into `out`; the first line gnuplot prints on its
 * standard error becomes the message when it fails.  Every call retries
 * on EINTR, and the child is always waited for.
 */
#ifndef FX_PLOT_RUN_H
#define FX_PLOT_RUN_H

#include <stdio.h>

/* Runs gnuplot on script[len], its output into out.  0 when gnuplot exited
 * 0 after writing something and every write to out succeeded;
 * FX_PLOT_NO_GNUPLOT when there is no gnuplot to start; -1 otherwise, with
 * why in err. */
int fx_plot_run(const char *script, size_t len, FILE *out, char *err, size_t errlen);

/* Writes s into g as a gnuplot string literal that nothing inside can end
 * (plot.c has the rules): every text fabricx hands gnuplot goes so. */
void fx_plot_quote(FILE *g, const char *s);
/* Runs gnuplot on text[len] into path through the confined writer
 * (core/outfile.h): 0, FX_PLOT_NO_GNUPLOT, or -1 with why in err. */
int fx_plot_emit(const char *text, size_t len, const char *path, char *err, size_t errlen);
/* One panel of points (plot/scatter.c): its axes, series and data. */
struct fx_plot;
struct fx_plot_panel;
int fx_plot_scatter_panel(FILE *g, const struct fx_plot *pl, const struct fx_plot_panel *p);

#endif
