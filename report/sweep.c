/*
 * A size sweep as nccl-tests prints it: for every algorithm asked for, one
 * row per size with time, algbw, busbw and the busiest link, then the
 * fastest algorithm per size and the sizes where two algorithms take
 * equal time.  Sizes and algorithms come parsed (cli/ reads --sizes and
 * --algo); the figures are kept for a caller that draws them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "report.h"

/* One algorithm's row at one size. */
typedef struct sweep_pt {
	double time, algbw, busbw, busiest;
	int64_t rounds, chunks;
} sweep_pt;

/* Runs one point; 1 when the algorithm refuses these ranks (its reason in
 * why, without the program's "error: " prefix), -1 on an internal
 * failure.  The refusal is a finding of the sweep, not an error of the
 * run, so it goes to a diagnostics stream of its own. */
static int run_point(const fx_fabric *f, fx_router *r, fx_coll_req q, const fx_coll_time *tm,
		     sweep_pt *p, char *why, size_t whylen, fx_diag *d)
{
	fx_coll_result res;
	fx_diag quiet;
	fx_diag_init(&quiet);
	quiet.out = tmpfile();
	int bad = fx_coll_run(f, r, &q, tm, &res, &quiet);
	why[0] = '\0';
	if (bad && quiet.out) {
		rewind(quiet.out);
		size_t m = fread(why, 1, whylen - 1, quiet.out);
		why[m] = '\0';
		char *nl = strchr(why, '\n');
		if (nl)
			*nl = '\0';
		const char *tag = strstr(why, "error: ");
		if (tag)
			memmove(why, tag + 7, strlen(tag + 7) + 1);
	}
	if (quiet.out)
		fclose(quiet.out);
	int internal = quiet.status == FX_EXIT_INTERNAL;
	fx_diag_release(&quiet);
	if (internal)
		return fx_diag_internal(d, "collective %s/%s failed", q.pattern, q.algo);
	if (bad)
		return 1;
	*p = (sweep_pt){res.time, res.algbw, res.busbw, res.max_link_bytes, res.rounds, res.chunks};
	fx_coll_result_release(&res);
	return 0;
}

static const fx_col algo_cols[] = {
	{"size_bytes", "size", FX_F_BYTES}, {"time_s", "time", FX_F_SECONDS},
	{"algbw_Bps", "algbw", FX_F_BPS}, {"busbw_Bps", "busbw", FX_F_BPS},
	{"max_link_bytes", "busiest link", FX_F_BYTES}, {"rounds", "rounds", FX_F_INT},
	{"chunks", "chunks", FX_F_INT}, {NULL, NULL, 0},
};
static const fx_col long_cols[] = {
	{"algo", "algo", FX_F_TEXT}, {"size_bytes", "size", FX_F_BYTES},
	{"time_s", "time", FX_F_SECONDS}, {"algbw_Bps", "algbw", FX_F_BPS},
	{"busbw_Bps", "busbw", FX_F_BPS}, {"max_link_bytes", "busiest link", FX_F_BYTES},
	{"rounds", "rounds", FX_F_INT}, {"chunks", "chunks", FX_F_INT}, {NULL, NULL, 0},
};

/* One nccl-tests table per algorithm (text and CSV), and every row in one
 * long table (CSV and JSON). */
static int row_tables(const fx_sweep_opts *o, const sweep_pt *pt, const int *ok, fx_sink *out,
		      fx_diag *d)
{
	size_t na = o->nalgos, ns = o->nsizes;
	int rc = 0;
	fx_table *all = fx_table_typed("sweep", "Sweep (all algorithms)", long_cols);
	all->no_text = 1;  /* the per-algorithm tables show these rows */
	for (size_t a = 0; a < na; a++) {
		if (!ok[a])
			continue;
		char name[48], title[96];
		snprintf(name, sizeof name, "sweep-%s", o->algos[a]->name);
		snprintf(title, sizeof title, "%s / %s over %lld ranks", o->req.pattern,
			 o->algos[a]->name, (long long)o->req.n);
		fx_table *t = fx_table_typed(name, title, algo_cols);
		t->no_json = 1;  /* the long table carries these rows */
		for (size_t i = 0; i < ns; i++) {
			const sweep_pt *p = &pt[a * ns + i];
			fx_table_cell(all, "%s", o->algos[a]->name);
			double v[5] = {o->sizes[i], p->time, p->algbw, p->busbw, p->busiest};
			for (int k = 0; k < 5; k++) {
				fx_table_num(t, v[k]);
				fx_table_num(all, v[k]);
			}
			fx_table_int(t, p->rounds);
			fx_table_int(all, p->rounds);
			fx_table_int(t, p->chunks);
			fx_table_int(all, p->chunks);
		}
		rc |= fx_sink_put(out, t, d);
	}
	if (rc) {
		fx_table_free(all);
		return rc;
	}
	return fx_sink_put(out, all, d);
}

/* Where each pair of algorithms that both ran crosses between two sizes
 * of the sweep (bisection, fx_coll_crossover).  *xs is malloc'd. */
static int crossings(const fx_design *ds, fx_router *r, const fx_sweep_opts *o,
		     const fx_coll_time *tm, const sweep_pt *pt, const int *ok, fx_sweep_cross **xs,
		     size_t *nx, fx_diag *d)
{
	size_t na = o->nalgos, ns = o->nsizes, cap = 0;
	*xs = NULL;
	*nx = 0;
	for (size_t a = 0; a < na; a++)
		for (size_t b = a + 1; b < na; b++) {
			if (!ok[a] || !ok[b])
				continue;
			for (size_t i = 0; i + 1 < ns; i++) {
				double d0 = pt[a * ns + i].time - pt[b * ns + i].time;
				double d1 = pt[a * ns + i + 1].time - pt[b * ns + i + 1].time;
				if (d0 == 0 || d1 == 0 || (d0 > 0) == (d1 > 0))
					continue;
				double x = fx_coll_crossover(&ds->fab, r, &o->req, o->algos[a]->name,
							     o->algos[b]->name, tm, o->sizes[i],
							     o->sizes[i + 1], d);
				if (d->nerr)
					return -1;
				if (x > 0) {
					*xs = fx_xgrow(*xs, &cap, *nx + 1, sizeof **xs);
					(*xs)[(*nx)++] = (fx_sweep_cross){a, b, x};
				}
			}
		}
	return 0;
}

/* The fastest per size, the crossovers (and which side is faster just
 * below each) and the algorithms that did not run. */
static int summary_tables(const fx_design *ds, fx_router *r, const fx_sweep_opts *o,
			  const fx_coll_time *tm, const sweep_pt *pt, const int *ok,
			  char (*why)[160], const fx_sweep_cross *xs, size_t nx, fx_sink *out,
			  fx_diag *d)
{
	size_t na = o->nalgos, ns = o->nsizes;
	static const fx_col fcols[] = {
		{"size_bytes", "size", FX_F_BYTES}, {"algo", "fastest", FX_F_TEXT},
		{"time_s", "time", FX_F_SECONDS}, {"busbw_Bps", "busbw", FX_F_BPS},
		{NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("sweep-fastest", "Fastest algorithm per size", fcols);
	fx_table_json_key(t, "fastest");
	for (size_t i = 0; i < ns; i++) {
		size_t best = na;
		for (size_t a = 0; a < na; a++)
			if (ok[a] && (best == na || pt[a * ns + i].time < pt[best * ns + i].time))
				best = a;
		if (best == na)
			break;
		fx_table_num(t, o->sizes[i]);
		fx_table_cell(t, "%s", o->algos[best]->name);
		fx_table_num(t, pt[best * ns + i].time);
		fx_table_num(t, pt[best * ns + i].busbw);
	}
	int rc = fx_sink_put(out, t, d);
	static const fx_col xcols[] = {
		{"algo_a", "algorithm", FX_F_TEXT}, {"algo_b", "and", FX_F_TEXT},
		{"size_bytes", "equal time at", FX_F_BYTES},
		{"faster_below", "faster below", FX_F_TEXT}, {NULL, NULL, 0},
	};
	t = fx_table_typed("sweep-crossovers", "Crossovers (equal time; none: no rows)", xcols);
	fx_table_json_key(t, "crossovers");
	for (size_t k = 0; k < nx; k++) {
		const char *an = o->algos[xs[k].a]->name, *bn = o->algos[xs[k].b]->name;
		fx_coll_req q = o->req;
		sweep_pt pa, pb;
		char w[160];
		q.size = xs[k].size_bytes * 0.999;
		q.algo = an;
		int ea = run_point(&ds->fab, r, q, tm, &pa, w, sizeof w, d);
		q.algo = bn;
		int eb = run_point(&ds->fab, r, q, tm, &pb, w, sizeof w, d);
		fx_table_cell(t, "%s", an);
		fx_table_cell(t, "%s", bn);
		fx_table_num(t, xs[k].size_bytes);
		if (ea || eb)
			fx_table_null(t, "-");
		else
			fx_table_cell(t, "%s", pa.time < pb.time ? an : bn);
	}
	rc |= fx_sink_put(out, t, d);
	static const fx_col scols[] = {
		{"algo", "skipped", FX_F_TEXT}, {"reason", "why", FX_F_TEXT}, {NULL, NULL, 0},
	};
	char title[96];
	snprintf(title, sizeof title, "Algorithms of %s skipped", o->req.pattern);
	t = fx_table_typed("sweep-skipped", title, scols);
	fx_table_json_key(t, "skipped");
	for (size_t a = 0; a < na; a++)
		if (!ok[a]) {
			fx_table_cell(t, "%s", o->algos[a]->name);
			fx_table_cell(t, "%s", why[a]);
		}
	return rc | fx_sink_put(out, t, d);
}

/* The figures the caller draws: only what ran, in the sweep's order. */
static void keep_result(const fx_sweep_opts *o, const sweep_pt *pt, const int *ok,
			fx_sweep_cross *xs, size_t nx, fx_sweep_result *k)
{
	size_t na = o->nalgos, ns = o->nsizes;
	*k = (fx_sweep_result){.nalgos = na, .nsizes = ns, .cross = xs, .ncross = nx};
	k->ran = fx_xcalloc(na + 1, sizeof *k->ran);
	k->time_s = fx_xcalloc(na * ns + 1, sizeof *k->time_s);
	k->busbw_Bps = fx_xcalloc(na * ns + 1, sizeof *k->busbw_Bps);
	for (size_t a = 0; a < na; a++) {
		k->ran[a] = ok[a];
		for (size_t i = 0; ok[a] && i < ns; i++) {
			k->time_s[a * ns + i] = pt[a * ns + i].time;
			k->busbw_Bps[a * ns + i] = pt[a * ns + i].busbw;
		}
	}
}

void fx_sweep_result_release(fx_sweep_result *res)
{
	if (!res)
		return;
	free(res->ran);
	free(res->time_s);
	free(res->busbw_Bps);
	free(res->cross);
	memset(res, 0, sizeof *res);
}

int fx_report_sweep(const fx_design *ds, fx_router *r, const fx_sweep_opts *o, fx_sink *out,
		    fx_diag *d)
{
	if (!ds || !r || !o || !out || (o->nalgos && !o->algos) || (o->nsizes && !o->sizes))
		return fx_diag_internal(d, "fx_report_sweep: a NULL argument");
	const fx_coll_time *tm = o->tm ? o->tm : &ds->coll;
	size_t na = o->nalgos, ns = o->nsizes;
	sweep_pt *pt = fx_xcalloc(na * ns + 1, sizeof *pt);
	int *ok = fx_xcalloc(na + 1, sizeof *ok);
	char (*why)[160] = fx_xcalloc(na + 1, sizeof *why);
	int rc = 0;
	for (size_t a = 0; a < na && rc == 0; a++) {
		ok[a] = 1;
		for (size_t i = 0; i < ns && rc == 0 && ok[a]; i++) {
			fx_coll_req q = o->req;
			q.algo = o->algos[a]->name;
			q.size = o->sizes[i];
			int k = run_point(&ds->fab, r, q, tm, &pt[a * ns + i], why[a], sizeof why[a], d);
			if (k < 0)
				rc = -1;
			else if (k > 0)
				ok[a] = 0;
		}
	}
	fx_table *t = fx_record_new("sweep_run", "Sweep", NULL);
	fx_record_text(t, "pattern", "pattern", "%s", o->req.pattern);
	fx_record_int(t, "ranks", "ranks", o->req.n);
	fx_record_text(t, "routing_policy", "routing policy", "%s", fx_route_policy_name(tm->policy));
	fx_record_text(t, "timing", "timing", "%s", fx_timing_name(tm->timing));
	fx_record_num(t, "alpha_s", "alpha per round", FX_F_SECONDS, tm->alpha);
	rc |= fx_sink_put(out, t, d);
	if (rc == 0)
		rc = row_tables(o, pt, ok, out, d);
	fx_sweep_cross *xs = NULL;
	size_t nx = 0;
	if (rc == 0)
		rc = crossings(ds, r, o, tm, pt, ok, &xs, &nx, d);
	if (rc == 0 && ns)
		rc = summary_tables(ds, r, o, tm, pt, ok, why, xs, nx, out, d);
	if (rc == 0 && o->keep) {
		keep_result(o, pt, ok, xs, nx, o->keep);
		xs = NULL;
	}
	free(xs);
	free(why);
	free(ok);
	free(pt);
	return rc;
}
