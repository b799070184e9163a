/*
 * collective --sizes: the options of a size sweep (--sizes LO:HI:xF,
 * --algo a,b,c) and its --plot; the sweep itself is fx_report_sweep
 * (report/sweep.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/units.h"
#include "../core/xalloc.h"
#include "../plot/plot.h"
#include "cli.h"
#include "report.h"

#define SWEEP_MIN 1.0                                /* 1 B */
#define SWEEP_MAX (1024.0 * 1024 * 1024 * 1024)      /* 1 TiB */
#define SWEEP_MAX_SIZES 256

/* "LO:HI" or "LO:HI:xF": sizes LO, LO F, LO F^2, ... up to HI (F = 2 by
 * default, as nccl-tests' -f 2).  *out is malloc'd. */
static int parse_sizes(fx_cli *c, const char *text, double **out, size_t *n)
{
	char buf[128];
	if (strlen(text) >= sizeof buf)
		return fx_diag_error(&c->d, NULL, "--sizes: '%s' is too long", text);
	snprintf(buf, sizeof buf, "%s", text);
	char *lo = buf, *hi = strchr(buf, ':'), *step = NULL;
	if (!hi)
		return fx_diag_error(&c->d, NULL, "--sizes: '%s' must be LO:HI or LO:HI:xF, e.g. "
				     "8B:1GiB:x2", text);
	*hi++ = '\0';
	step = strchr(hi, ':');
	if (step)
		*step++ = '\0';
	double a, b, fct = 2;
	if (fx_cli_qty(c, "--sizes", lo, FX_UNIT_SIZE, &a) || fx_cli_qty(c, "--sizes", hi, FX_UNIT_SIZE, &b))
		return -1;
	if (step) {
		char *end;
		fct = step[0] == 'x' ? strtod(step + 1, &end) : NAN;
		if (step[0] != 'x' || end == step + 1 || *end || !(fct > 1) || fct > 1024)
			return fx_diag_error(&c->d, NULL, "--sizes: the step '%s' must be xF with F a "
					     "factor above 1 and at most 1024, e.g. x2", step);
	}
	if (a < SWEEP_MIN || b > SWEEP_MAX || a > b)
		return fx_diag_error(&c->d, NULL, "--sizes: '%s' must run upwards from at least 1 B "
				     "to at most 1 TiB", text);
	size_t k = 0;
	double *v = fx_xmalloc(SWEEP_MAX_SIZES * sizeof *v);
	for (double s = a; s <= b * (1 + 1e-12); s *= fct) {
		if (k == SWEEP_MAX_SIZES) {
			free(v);
			return fx_diag_error(&c->d, NULL, "--sizes: '%s' gives more than %d sizes (use a "
					     "larger factor)", text, SWEEP_MAX_SIZES);
		}
		v[k++] = s;
	}
	*out = v;
	*n = k;
	return 0;
}

/* The algorithms of --algo a,b,c (or all of the pattern's, for "all" or
 * none given), as registry entries; *out is malloc'd. */
static int parse_algos(fx_cli *c, const char *pattern, const char *text,
		       const fx_coll_algo ***out, size_t *n)
{
	size_t cap = 0, k = 0;
	const fx_coll_algo **v = NULL;
	if (!text || strcmp(text, "all") == 0) {
		for (const fx_coll_algo *const *a = fx_coll_algos; *a; a++)
			if (strcmp((*a)->pattern, pattern) == 0) {
				v = fx_xgrow(v, &cap, k + 1, sizeof *v);
				v[k++] = *a;
			}
	} else {
		if (fx_cli_list_check(c, "--algo", text))
			return -1;
		char *copy = fx_xstrdup(text), *save = NULL;
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			const fx_coll_algo *a = fx_coll_find(pattern, t);
			if (!a) {
				int rc = fx_diag_error(&c->d, NULL, "collective: no algorithm '%s' for %s "
						       "(see --list)", t, pattern);
				free(copy);
				free(v);
				return rc;
			}
			v = fx_xgrow(v, &cap, k + 1, sizeof *v);
			v[k++] = a;
		}
		free(copy);
	}
	*out = v;
	*n = k;
	return 0;
}

/*
 * --plot FILE.svg|FILE.png: time and busbw against size, drawn to show
 * the winner and the crossovers (plot/sweep.c).
 */
static int plot_sweep(fx_cli *c, const char *path, const fx_coll_req *q0,
		      const fx_coll_algo **al, size_t na, const double *sz, size_t ns,
		      const fx_sweep_result *res)
{
	const char **name = fx_xcalloc(na + 1, sizeof *name);
	double *t = fx_xcalloc(na * ns + 1, sizeof *t), *bw = fx_xcalloc(na * ns + 1, sizeof *bw);
	size_t *at = fx_xcalloc(na + 1, sizeof *at), m = 0;
	for (size_t a = 0; a < na; a++) {
		at[a] = m;
		if (!res->ran[a])
			continue;
		name[m] = al[a]->name;
		memcpy(t + m * ns, res->time_s + a * ns, ns * sizeof *t);
		memcpy(bw + m * ns, res->busbw_Bps + a * ns, ns * sizeof *bw);
		m++;
	}
	size_t nx = res->ncross;
	fx_plot_cross *x = fx_xcalloc(nx + 1, sizeof *x);
	for (size_t k = 0; k < nx; k++)  /* the crossovers' algorithms among those drawn */
		x[k] = (fx_plot_cross){at[res->cross[k].a], at[res->cross[k].b], res->cross[k].size_bytes};
	char title[600], err[256];
	int k = snprintf(title, sizeof title, "%s over %lld ranks, %s (%zu algorithm%s)", q0->pattern,
			 (long long)q0->n, c->design.fab.name ? c->design.fab.name : "", m, m == 1 ? "" : "s");
	for (size_t a = 0, first = 1; a < na && k > 0 && (size_t)k < sizeof title; a++)
		if (!res->ran[a]) {  /* none hidden: what did not run is named */
			k += snprintf(title + k, sizeof title - (size_t)k, "%s%s", first ? "\nnot run on "
				      "this fabric (table sweep-skipped): " : ", ", al[a]->name);
			first = 0;
		}
	fx_plot_sweep s = {title, m, ns, name, sz, t, bw, x, nx};
	int rc = fx_plot_sweep_draw(&s, path, err, sizeof err);
	free(name);
	free(t);
	free(bw);
	free(at);
	free(x);
	return rc ? fx_diag_error(&c->d, NULL, "--plot: %s", err) : 0;
}

int fx_coll_sweep(fx_cli *c, fx_router *r, const fx_coll_req *q0, const fx_coll_time *tm,
		  const char *algos, const char *sizes, const char *plot)
{
	double *sz = NULL;
	size_t ns = 0, na = 0;
	const fx_coll_algo **al = NULL;
	if (parse_sizes(c, sizes, &sz, &ns) || parse_algos(c, q0->pattern, algos, &al, &na)) {
		free(sz);
		return -1;
	}
	fx_sweep_result res = {0};
	fx_sweep_opts o = {.req = *q0, .tm = tm, .algos = al, .nalgos = na, .sizes = sz,
			   .nsizes = ns, .keep = plot ? &res : NULL};
	int rc = fx_report_sweep(&c->design, r, &o, fx_cli_sink(c), &c->d);
	if (plot && rc == 0)
		rc = plot_sweep(c, plot, q0, al, na, sz, ns, &res);
	fx_sweep_result_release(&res);
	free(al);
	free(sz);
	return rc;
}
