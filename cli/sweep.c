/*
 * collective --sizes: a size sweep as nccl-tests prints it (`-b 8 -e 128M
 * -f 2`): for every algorithm asked for, one row per size with time,
 * algbw, busbw and the busiest link, then the fastest algorithm per size
 * and the sizes where two algorithms take equal time.
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

/* One algorithm's row at one size. */
typedef struct sweep_pt {
	double time, algbw, busbw, busiest;
	int64_t rounds, chunks;
} sweep_pt;

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

/* Runs one point; 1 when the algorithm refuses these ranks (its reason in
 * why), -1 on an internal failure. */
static int run_point(fx_cli *c, fx_router *r, fx_coll_req q, const fx_coll_time *tm, sweep_pt *p,
		     char *why, size_t whylen)
{
	fx_coll_result res;
	fx_diag quiet;
	fx_diag_init(&quiet);
	quiet.out = tmpfile();
	int bad = fx_coll_run(&c->design.fab, r, &q, tm, &res, &quiet);
	if (bad && quiet.out) {
		rewind(quiet.out);
		size_t m = fread(why, 1, whylen - 1, quiet.out);
		why[m] = '\0';
		char *nl = strchr(why, '\n');
		if (nl)
			*nl = '\0';
		/* the reason without the program's "fabricx: error: " prefix */
		const char *tag = strstr(why, "error: ");
		if (tag)
			memmove(why, tag + 7, strlen(tag + 7) + 1);
	}
	if (quiet.out)
		fclose(quiet.out);
	int internal = quiet.status == FX_EXIT_INTERNAL;
	fx_diag_release(&quiet);
	if (internal)
		return fx_diag_internal(&c->d, "collective %s/%s failed", q.pattern, q.algo);
	if (bad)
		return 1;
	*p = (sweep_pt){res.time, res.algbw, res.busbw, res.max_link_bytes, res.rounds, res.chunks};
	fx_coll_result_release(&res);
	return 0;
}

/*
 * --plot FILE.svg|FILE.png: time and busbw against size, drawn to show
 * the winner and the crossovers (plot/sweep.c).
 */
static int plot_sweep(fx_cli *c, const char *path, const fx_coll_req *q0,
		      const fx_coll_algo **al, const int *ok, size_t na, const double *sz,
		      size_t ns, const sweep_pt *pt, const fx_plot_cross *xs, size_t nx)
{
	const char **name = fx_xcalloc(na + 1, sizeof *name);
	double *t = fx_xcalloc(na * ns + 1, sizeof *t), *bw = fx_xcalloc(na * ns + 1, sizeof *bw);
	size_t *at = fx_xcalloc(na + 1, sizeof *at), m = 0;
	for (size_t a = 0; a < na; a++) {
		at[a] = m;
		if (!ok[a])
			continue;
		name[m] = al[a]->name;
		for (size_t i = 0; i < ns; i++) {
			t[m * ns + i] = pt[a * ns + i].time;
			bw[m * ns + i] = pt[a * ns + i].busbw;
		}
		m++;
	}
	fx_plot_cross *x = fx_xcalloc(nx + 1, sizeof *x);
	for (size_t k = 0; k < nx; k++)  /* the crossovers' algorithms among those drawn */
		x[k] = (fx_plot_cross){at[xs[k].a], at[xs[k].b], xs[k].at};
	char title[600], err[256];
	int k = snprintf(title, sizeof title, "%s over %lld ranks, %s (%zu algorithm%s)", q0->pattern,
			 (long long)q0->n, c->design.fab.name ? c->design.fab.name : "", m, m == 1 ? "" : "s");
	for (size_t a = 0, first = 1; a < na && k > 0 && (size_t)k < sizeof title; a++)
		if (!ok[a]) {  /* none hidden: what did not run is named */
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
	sweep_pt *pt = fx_xcalloc(na * ns, sizeof *pt);
	int *ok = fx_xcalloc(na, sizeof *ok);
	char (*why)[160] = fx_xcalloc(na, sizeof *why);
	int rc = 0;
	for (size_t a = 0; a < na && rc == 0; a++) {
		ok[a] = 1;
		for (size_t i = 0; i < ns && rc == 0 && ok[a]; i++) {
			fx_coll_req q = *q0;
			q.algo = al[a]->name;
			q.size = sz[i];
			int k = run_point(c, r, q, tm, &pt[a * ns + i], why[a], sizeof why[a]);
			if (k < 0)
				rc = -1;
			else if (k > 0)
				ok[a] = 0;
		}
	}
	fx_table *t = fx_record_new("sweep_run", "Sweep", NULL);
	fx_record_text(t, "pattern", "pattern", "%s", q0->pattern);
	fx_record_int(t, "ranks", "ranks", q0->n);
	fx_record_text(t, "routing_policy", "routing policy", "%s", fx_route_policy_name(tm->policy));
	fx_record_text(t, "timing", "timing", "%s", fx_timing_name(tm->timing));
	fx_record_num(t, "alpha_s", "alpha per round", FX_F_SECONDS, tm->alpha);
	rc |= fx_cli_table(c, t);
	/* one nccl-tests table per algorithm (text and CSV); every row in one
	 * long table (JSON and sweep.csv) */
	static const fx_col acols[] = {
		{"size_bytes", "size", FX_F_BYTES}, {"time_s", "time", FX_F_SECONDS},
		{"algbw_Bps", "algbw", FX_F_BPS}, {"busbw_Bps", "busbw", FX_F_BPS},
		{"max_link_bytes", "busiest link", FX_F_BYTES}, {"rounds", "rounds", FX_F_INT},
		{"chunks", "chunks", FX_F_INT}, {NULL, NULL, 0},
	};
	static const fx_col lcols[] = {
		{"algo", "algo", FX_F_TEXT}, {"size_bytes", "size", FX_F_BYTES},
		{"time_s", "time", FX_F_SECONDS}, {"algbw_Bps", "algbw", FX_F_BPS},
		{"busbw_Bps", "busbw", FX_F_BPS}, {"max_link_bytes", "busiest link", FX_F_BYTES},
		{"rounds", "rounds", FX_F_INT}, {"chunks", "chunks", FX_F_INT}, {NULL, NULL, 0},
	};
	fx_table *all = fx_table_typed("sweep", "Sweep (all algorithms)", lcols);
	for (size_t a = 0; a < na && rc == 0; a++) {
		if (!ok[a])
			continue;
		char name[48], title[96];
		snprintf(name, sizeof name, "sweep-%s", al[a]->name);
		snprintf(title, sizeof title, "%s / %s over %lld ranks", q0->pattern, al[a]->name,
			 (long long)q0->n);
		t = fx_table_typed(name, title, acols);
		t->no_json = 1;  /* the long table carries these rows */
		for (size_t i = 0; i < ns; i++) {
			const sweep_pt *p = &pt[a * ns + i];
			fx_table_cell(all, "%s", al[a]->name);
			double v[5] = {sz[i], p->time, p->algbw, p->busbw, p->busiest};
			for (int k = 0; k < 5; k++) {
				fx_table_num(t, v[k]);
				fx_table_num(all, v[k]);
			}
			fx_table_int(t, p->rounds);
			fx_table_int(all, p->rounds);
			fx_table_int(t, p->chunks);
			fx_table_int(all, p->chunks);
		}
		rc |= fx_cli_table(c, t);
	}
	/* the long table goes to sweep.csv and JSON only */
	if (rc == 0 && c->outdir[0])
		rc = fx_cli_may_write(c, "sweep.csv");
	if (rc == 0 && c->outdir[0] && fx_table_write_csv(all, c->outdir))
		rc = fx_diag_error(&c->d, NULL, "cannot write '%s/sweep.csv'", c->outdir);
	if (rc == 0 && c->json)
		fx_table_write_json(all, &c->js);
	fx_table_free(all);

	/* the fastest per size, and where each pair of algorithms crosses
	 * between two sizes of the sweep (bisection, fx_coll_crossover) */
	size_t *best = fx_xcalloc(ns, sizeof *best);
	for (size_t i = 0; i < ns; i++) {
		best[i] = na;
		for (size_t a = 0; a < na; a++)
			if (ok[a] && (best[i] == na || pt[a * ns + i].time < pt[best[i] * ns + i].time))
				best[i] = a;
	}
	typedef fx_plot_cross cross;  /* the plot draws them */
	cross *xs = NULL;
	size_t nx = 0, capx = 0;
	for (size_t a = 0; a < na && rc == 0; a++)
		for (size_t b = a + 1; b < na && rc == 0; b++) {
			if (!ok[a] || !ok[b])
				continue;
			for (size_t i = 0; i + 1 < ns; i++) {
				double d0 = pt[a * ns + i].time - pt[b * ns + i].time;
				double d1 = pt[a * ns + i + 1].time - pt[b * ns + i + 1].time;
				if (d0 == 0 || d1 == 0 || (d0 > 0) == (d1 > 0))
					continue;
				double x = fx_coll_crossover(&c->design.fab, r, q0, al[a]->name, al[b]->name, tm,
							     sz[i], sz[i + 1], &c->d);
				if (c->d.nerr) {
					rc = -1;
					break;
				}
				if (x > 0) {
					xs = fx_xgrow(xs, &capx, nx + 1, sizeof *xs);
					xs[nx++] = (cross){a, b, x};
				}
			}
		}
	if (rc == 0 && ns) {
		static const fx_col fcols[] = {
			{"size_bytes", "size", FX_F_BYTES}, {"algo", "fastest", FX_F_TEXT},
			{"time_s", "time", FX_F_SECONDS}, {"busbw_Bps", "busbw", FX_F_BPS},
			{NULL, NULL, 0},
		};
		t = fx_table_typed("sweep-fastest", "Fastest algorithm per size", fcols);
		fx_table_json_key(t, "fastest");
		for (size_t i = 0; i < ns && best[i] < na; i++) {
			fx_table_num(t, sz[i]);
			fx_table_cell(t, "%s", al[best[i]]->name);
			fx_table_num(t, pt[best[i] * ns + i].time);
			fx_table_num(t, pt[best[i] * ns + i].busbw);
		}
		rc |= fx_cli_table(c, t);
		static const fx_col xcols[] = {
			{"algo_a", "algorithm", FX_F_TEXT}, {"algo_b", "and", FX_F_TEXT},
			{"size_bytes", "equal time at", FX_F_BYTES},
			{"faster_below", "faster below", FX_F_TEXT}, {NULL, NULL, 0},
		};
		t = fx_table_typed("sweep-crossovers", "Crossovers (equal time; none: no rows)", xcols);
		fx_table_json_key(t, "crossovers");
		for (size_t k = 0; k < nx; k++) {
			const cross *x = &xs[k];
			/* which one is faster just below the crossing */
			fx_coll_req q = *q0;
			sweep_pt pa, pb;
			char w[160];
			q.size = x->at * 0.999;
			q.algo = al[x->a]->name;
			int ea = run_point(c, r, q, tm, &pa, w, sizeof w);
			q.algo = al[x->b]->name;
			int eb = run_point(c, r, q, tm, &pb, w, sizeof w);
			fx_table_cell(t, "%s", al[x->a]->name);
			fx_table_cell(t, "%s", al[x->b]->name);
			fx_table_num(t, x->at);
			if (ea || eb)
				fx_table_null(t, "-");
			else
				fx_table_cell(t, "%s", pa.time < pb.time ? al[x->a]->name : al[x->b]->name);
		}
		rc |= fx_cli_table(c, t);
		static const fx_col scols[] = {
			{"algo", "skipped", FX_F_TEXT}, {"reason", "why", FX_F_TEXT}, {NULL, NULL, 0},
		};
		char title[96];
		snprintf(title, sizeof title, "Algorithms of %s skipped", q0->pattern);
		t = fx_table_typed("sweep-skipped", title, scols);
		fx_table_json_key(t, "skipped");
		for (size_t a = 0; a < na; a++)
			if (!ok[a]) {
				fx_table_cell(t, "%s", al[a]->name);
				fx_table_cell(t, "%s", why[a]);
			}
		rc |= fx_cli_table(c, t);
	}
	if (plot && rc == 0)
		rc = plot_sweep(c, plot, q0, al, ok, na, sz, ns, pt, xs, nx);
	free(xs);
	free(best);
	free(why);
	free(ok);
	free(pt);
	free(al);
	free(sz);
	return rc;
}
