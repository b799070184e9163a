/*
 * plot_batch: charts gathered, then drawn on worker processes (see
 * plot_batch.h).  Task t is chart t / 2 in format t % 2 (SVG, PNG); a
 * worker takes the next task not taken and writes one line per task:
 * "t 0" drawn, "t 1 why" no gnuplot, "t 2 why" failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "plot_batch.h"
#include "../space/run.h"

typedef struct chart {
	char *file;
	fx_plot pl;
	fx_plot_panel panel;
	fx_plot_series *ser;
	fx_plot_tic *tics;
} chart;

struct fx_plot_batch {
	chart *c;
	size_t n, cap;
	/* a run's outcome, by task */
	int *st;
	char **why;
	const char *dir;
	fx_lines_counter *next;  /* the workers' next task */
};

static const char *const ext[2] = {"svg", "png"};

fx_plot_batch *fx_plot_batch_new(void)
{
	return fx_xcalloc(1, sizeof(fx_plot_batch));
}

static char *dup_or_null(const char *s)
{
	return s ? fx_xstrdup(s) : NULL;
}

static double *dup_nums(const double *v, size_t n)
{
	double *o = fx_xmalloc((n + 1) * sizeof *o);
	if (n)
		memcpy(o, v, n * sizeof *o);
	return o;
}

void fx_plot_batch_add(fx_plot_batch *b, const char *file, const fx_plot *pl)
{
	b->c = fx_xgrow(b->c, &b->cap, b->n + 1, sizeof *b->c);
	chart *c = &b->c[b->n++];
	memset(c, 0, sizeof *c);
	c->file = fx_xstrdup(file);
	c->pl = *pl;
	c->pl.title = dup_or_null(pl->title);
	c->pl.xlabel = dup_or_null(pl->xlabel);
	c->tics = fx_xcalloc(pl->nxtics + 1, sizeof *c->tics);
	for (size_t i = 0; i < pl->nxtics; i++)
		c->tics[i] = (fx_plot_tic){dup_or_null(pl->xtics[i].label), pl->xtics[i].at};
	c->pl.xtics = pl->xtics ? c->tics : NULL;
	const fx_plot_panel *p = &pl->p[0];
	c->panel = *p;
	c->panel.ylabel = dup_or_null(p->ylabel);
	c->ser = fx_xcalloc(p->ns + 1, sizeof *c->ser);
	for (size_t i = 0; i < p->ns; i++) {
		c->ser[i] = p->s[i];
		c->ser[i].title = dup_or_null(p->s[i].title);
		c->ser[i].color = dup_or_null(p->s[i].color);
		c->ser[i].x = dup_nums(p->s[i].x, p->s[i].n);
		c->ser[i].y = dup_nums(p->s[i].y, p->s[i].n);
		if (p->s[i].labels) {
			char **lab = fx_xcalloc(p->s[i].n + 1, sizeof *lab);
			for (size_t k = 0; k < p->s[i].n; k++)
				lab[k] = dup_or_null(p->s[i].labels[k]);
			c->ser[i].labels = (const char *const *)lab;
		}
	}
	c->panel.s = c->ser;
	c->pl.p = NULL;  /* &c->panel at drawing: the array moves as it grows */
	c->pl.np = 1;
}

size_t fx_plot_batch_count(const fx_plot_batch *b)
{
	return b->n;
}

/* Task t drawn: its status (0, 1 no gnuplot, 2 failed) and why. */
static int draw_task(const fx_plot_batch *b, size_t t, char *why, size_t len)
{
	const chart *c = &b->c[t / 2];
	char *path = fx_xasprintf("%s/%s.%s", b->dir, c->file, ext[t % 2]);
	why[0] = '\0';
	fx_plot pl = c->pl;
	pl.p = &c->panel;
	int st = fx_plot_draw(&pl, path, why, len);
	free(path);
	return st == FX_PLOT_NO_GNUPLOT ? 1 : st ? 2 : 0;
}

static void keep(fx_plot_batch *b, size_t t, int st, const char *why)
{
	b->st[t] = st;
	free(b->why[t]);
	b->why[t] = fx_xstrdup(why);
}

/* Workers draw the next task when done with one, the PNGs first (cairo
 * takes about three times an SVG's time): every-jobs-th task gave one
 * of two workers every SVG and the other every PNG. */
static int work(void *ctx, int w, int jobs, FILE *f, fx_diag *d)
{
	(void)d;
	(void)w;
	(void)jobs;
	const fx_plot_batch *b = ctx;
	for (size_t q = fx_lines_counter_next(b->next); q < 2 * b->n;
	     q = fx_lines_counter_next(b->next)) {
		size_t t = q < b->n ? 2 * q + 1 : 2 * (q - b->n);
		char why[256];
		int st = draw_task(b, t, why, sizeof why);
		for (char *p = why; *p; p++)  /* one line each */
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		fprintf(f, "%zu %d %s\n", t, st, why);
	}
	return 0;
}

static int take(void *ctx, const char *line)
{
	fx_plot_batch *b = ctx;
	size_t t;
	int st, used = 0;
	if (sscanf(line, "%zu %d%n", &t, &st, &used) != 2 || t >= 2 * b->n || st < 0 || st > 2)
		return -1;
	const char *why = line + used;
	keep(b, t, st, *why == ' ' ? why + 1 : why);
	return 0;
}

int fx_plot_batch_draw(fx_plot_batch *b, const char *dir, int jobs, char *skip, size_t skiplen,
		       fx_diag *d)
{
	skip[0] = '\0';
	size_t nt = 2 * b->n;
	if (nt == 0)
		return 0;
	b->dir = dir;
	b->st = fx_xmalloc(nt * sizeof *b->st);
	b->why = fx_xcalloc(nt, sizeof *b->why);
	for (size_t t = 0; t < nt; t++)
		b->st[t] = -1;  /* not drawn */
	int rc = 0;
	if (jobs > (int)nt)
		jobs = (int)nt;
	if (jobs > 1) {
		/* every task answers, drawn or not (no gnuplot fails at once) */
		fx_lines_job job = {work, take, NULL, b};
		if (!(b->next = fx_lines_counter_new(1, d)))
			rc = -1;
		else
			rc = fx_lines_parallel(&job, jobs, nt, d);
		fx_lines_counter_free(b->next);
		b->next = NULL;
	} else {
		for (size_t t = 0; t < nt; t++) {
			char why[256];
			int st = draw_task(b, t, why, sizeof why);
			keep(b, t, st, why);
			if (st)
				break;
		}
	}
	/* the outcome by task order, whoever drew them */
	for (size_t t = 0; t < nt && rc == 0; t++) {
		if (b->st[t] == 1) {
			snprintf(skip, skiplen, "%s", b->why[t]);
			break;
		}
		if (b->st[t] == 2) {
			char *path = fx_xasprintf("%s/%s.%s", dir, b->c[t / 2].file, ext[t % 2]);
			rc = fx_diag_error(d, NULL, "plot '%s': %s", path, b->why[t]);
			free(path);
		}
	}
	for (size_t t = 0; t < nt; t++)
		free(b->why[t]);
	free(b->why);
	free(b->st);
	b->why = NULL;
	b->st = NULL;
	return rc;
}

void fx_plot_batch_free(fx_plot_batch *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++) {
		chart *c = &b->c[i];
		free(c->file);
		free((char *)c->pl.title);
		free((char *)c->pl.xlabel);
		for (size_t k = 0; k < c->pl.nxtics; k++)
			free((char *)c->tics[k].label);
		free(c->tics);
		free((char *)c->panel.ylabel);
		for (size_t k = 0; k < c->panel.ns; k++) {
			free((char *)c->ser[k].title);
			free((char *)c->ser[k].color);
			free((double *)c->ser[k].x);
			free((double *)c->ser[k].y);
			if (c->ser[k].labels) {
				for (size_t j = 0; j < c->ser[k].n; j++)
					free((char *)c->ser[k].labels[j]);
				free((void *)c->ser[k].labels);
			}
		}
		free(c->ser);
	}
	free(b->c);
	free(b);
}
