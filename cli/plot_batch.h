/*
 * plot_batch: a report's plots gathered, then drawn at once on worker
 * processes (fx_lines_parallel), each worker starting gnuplot for its
 * share, so a space's dozen charts in two formats use every core instead
 * of running one after another on the parent (issue #31 item 5).
 *
 * A batch owns copies of everything a chart needs (titles, series, ticks),
 * so the caller may free its own at once.  Each chart is drawn into
 * dir/file.svg and dir/file.png through plot/ (fx_plot_draw: the confined
 * atomic writer, text quoted as data), in a fixed order of tasks; the
 * first failure by that order is the one reported, however the tasks were
 * split.  No gnuplot is not an error: nothing is drawn and *skip says why.
 */
#ifndef FX_CLI_PLOT_BATCH_H
#define FX_CLI_PLOT_BATCH_H

#include <stddef.h>

#include "../core/diag.h"
#include "../plot/plot.h"

typedef struct fx_plot_batch fx_plot_batch;

fx_plot_batch *fx_plot_batch_new(void);
/* Adds a chart of one panel (pl->np == 1) to be drawn as file.svg and
 * file.png; copies it. */
void fx_plot_batch_add(fx_plot_batch *b, const char *file, const fx_plot *pl);
size_t fx_plot_batch_count(const fx_plot_batch *b);
/* Draws every chart into dir on up to `jobs` worker processes (1: here).
 * 0; or -1 after reporting the first failure through d.  When gnuplot is
 * missing, 0 with why in skip (else skip[0] = '\0'). */
int fx_plot_batch_draw(fx_plot_batch *b, const char *dir, int jobs, char *skip, size_t skiplen,
		       fx_diag *d);
void fx_plot_batch_free(fx_plot_batch *b);

#endif
