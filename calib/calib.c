/*
 * calib: measured collective times read, fitted and compared (calib.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/outfile.h"
#include "../core/xalloc.h"
#include "calib.h"

void fx_meas_release(fx_meas_set *s)
{
	free(s->m);
	memset(s, 0, sizeof *s);
}

static void meas_add(fx_meas_set *s, const char *pattern, int64_t ranks, double size, double time,
		     int line)
{
	s->m = fx_xgrow(s->m, &s->cap, s->n + 1, sizeof *s->m);
	fx_meas *m = &s->m[s->n++];
	snprintf(m->pattern, sizeof m->pattern, "%s", pattern);
	m->ranks = ranks;
	m->size = size;
	m->time = time;
	m->line = line;
}

/* nccl-tests' binaries and fabricx's patterns; reduce_perf after the two
 * longer names that contain it. */
static const struct {
	const char *bin, *pattern;
} bins[] = {
	{"all_reduce", "allreduce"}, {"reduce_scatter", "reduce-scatter"},
	{"all_gather", "all-gather"}, {"alltoall", "all-to-all"}, {"broadcast", "broadcast"},
	{"reduce", "reduce"},
};

/* The pattern a name stands for (nccl-tests' or fabricx's), or NULL. */
static const char *pattern_of(const char *name)
{
	for (size_t i = 0; i < sizeof bins / sizeof bins[0]; i++)
		if (strcmp(name, bins[i].bin) == 0 || strcmp(name, bins[i].pattern) == 0)
			return bins[i].pattern;
	if (strcmp(name, "allgather") == 0)
		return "all-gather";
	if (strcmp(name, "reducescatter") == 0)
		return "reduce-scatter";
	if (strcmp(name, "all-reduce") == 0 || strcmp(name, "all_to_all") == 0)
		return strcmp(name, "all-reduce") == 0 ? "allreduce" : "all-to-all";
	return NULL;
}

/* The pattern of the *_perf binary a log line names, or NULL. */
static const char *pattern_in_line(const char *line)
{
	const char *p = strstr(line, "_perf");
	if (!p)
		return NULL;
	for (size_t i = 0; i < sizeof bins / sizeof bins[0]; i++) {
		size_t n = strlen(bins[i].bin);
		if ((size_t)(p - line) >= n && strncmp(p - n, bins[i].bin, n) == 0 &&
		    (p - n == line || !isalnum((unsigned char)p[-(ptrdiff_t)n - 1]) ||
		     p[-(ptrdiff_t)n - 1] == '/'))
			return bins[i].pattern;
	}
	return NULL;
}

static int split(char *s, char **tok, int max, const char *sep)
{
	int n = 0;
	for (char *t = strtok(s, sep); t && n < max; t = strtok(NULL, sep))
		tok[n++] = t;
	return n;
}

static int num(const char *s, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(s, &end);
	return end != s && *end == '\0' && errno == 0 && isfinite(*v);
}

int fx_meas_read(const char *path, const char *pattern, int64_t ranks, fx_meas_set *out,
		 fx_diag *d)
{
	memset(out, 0, sizeof *out);
	FILE *in = fopen(path, "r");
	if (!in)
		return fx_diag_error(d, NULL, "calibrate: cannot read '%s': %s", path, strerror(errno));
	char line[4096];
	int ln = 0, csv = -1, time_col = -1, rc = 0;
	const char *cur = pattern ? pattern_of(pattern) : NULL;
	if (pattern && !cur) {
		fclose(in);
		return fx_diag_error(d, NULL, "calibrate: --pattern '%s' is no pattern nccl-tests times "
				     "(allreduce, reduce-scatter, all-gather, all-to-all, broadcast, "
				     "reduce)", pattern);
	}
	int64_t nrank = 0;
	int named = 0;  /* the log names its binary */
	while (rc == 0 && fgets(line, sizeof line, in)) {
		ln++;
		line[strcspn(line, "\r\n")] = '\0';
		char *s = line;
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			continue;
		if (csv < 0 && *s != '#') {
			csv = strncmp(s, "pattern,", 8) == 0;
			if (csv) {
				snprintf(out->format, sizeof out->format, "csv");
				char *tok[8], buf[4096];
				snprintf(buf, sizeof buf, "%s", s);
				int n = split(buf, tok, 8, ", \t");
				if (n != 4 || strcmp(tok[1], "ranks") || strcmp(tok[2], "size_bytes") ||
				    strcmp(tok[3], "time_s"))
					rc = fx_diag_error(d, NULL, "%s:%d: a CSV of measurements has the "
							   "header pattern,ranks,size_bytes,time_s", path, ln);
				continue;
			}
		}
		if (csv == 1) {
			char *tok[8];
			int n = split(s, tok, 8, ",");
			double r, sz, t;
			const char *p = n == 4 ? pattern_of(tok[0]) : NULL;
			if (n != 4 || !p || !num(tok[1], &r) || !num(tok[2], &sz) || !num(tok[3], &t) ||
			    r < 2 || r != floor(r) || sz <= 0 || t <= 0)
				rc = fx_diag_error(d, NULL, "%s:%d: expected pattern,ranks,size_bytes,time_s "
						   "(a pattern, ranks >= 2, size and time > 0)", path, ln);
			else
				meas_add(out, p, (int64_t)r, sz, t, ln);
			continue;
		}
		/* nccl-tests / rccl-tests */
		const char *named_p = pattern_in_line(s);
		if (named_p && !pattern) {
			cur = named_p;
			named = 1;
		}
		if (*s == '#') {
			if (strstr(s, "nThread")) {
				nrank = 0;
				time_col = -1;
			}
			if (strncmp(s, "#  Rank", 7) == 0 || strncmp(s, "# Rank", 6) == 0)
				nrank++;
			if (strstr(s, " size") && strstr(s, "count") && strstr(s, "time")) {
				char buf[4096], *tok[64];
				snprintf(buf, sizeof buf, "%s", s);
				int n = split(buf, tok, 64, " \t");
				for (int i = 0; i < n && time_col < 0; i++)
					if (strcmp(tok[i], "time") == 0)
						time_col = i - 1;  /* the data lines have no '#' */
				snprintf(out->format, sizeof out->format, "%s",
					 strstr(s, "#wrong") ? "nccl-tests" : "rccl-tests");
			}
			continue;
		}
		if (time_col < 0)
			continue;  /* not a table yet (a command line, a banner) */
		char buf[4096], *tok[64];
		snprintf(buf, sizeof buf, "%s", s);
		int n = split(buf, tok, 64, " \t");
		double size, t;
		if (n <= time_col || !num(tok[0], &size) || !num(tok[time_col], &t))
			continue;  /* "# Out of bounds", a warning line */
		int64_t r = nrank ? nrank : ranks;
		if (r < 2) {
			rc = fx_diag_error(d, NULL, "%s:%d: the log lists no '#  Rank' lines: give --ranks",
					   path, ln);
			break;
		}
		if (size <= 0 || t <= 0)
			continue;
		meas_add(out, cur ? cur : "allreduce", r, size, t * 1e-6, ln);
	}
	fclose(in);
	if (rc == 0 && out->n == 0)
		rc = fx_diag_error(d, NULL, "calibrate: '%s' holds no measurements (nccl-tests or "
				   "rccl-tests output, or a CSV pattern,ranks,size_bytes,time_s)", path);
	if (rc == 0 && !csv && !named && !pattern)
		fx_diag_note(d, NULL, "calibrate: '%s' does not name its nccl-tests binary: taken as "
			     "allreduce (--pattern says otherwise)", path);
	if (rc)
		fx_meas_release(out);
	return rc ? -1 : 0;
}

void fx_calib_model(const char *pattern, int64_t n, double *rounds, double *factor)
{
	double k = (double)(n - 1);
	int lg = 0;
	while (((int64_t)1 << lg) < n)
		lg++;
	if (strcmp(pattern, "allreduce") == 0)
		*rounds = 2 * k;
	else if (strcmp(pattern, "broadcast") == 0 || strcmp(pattern, "reduce") == 0)
		*rounds = lg;
	else
		*rounds = k;
	*factor = fx_coll_bus_factor(pattern, n);
}

static int by_group(const void *a, const void *b)
{
	const fx_meas *x = *(const fx_meas *const *)a, *y = *(const fx_meas *const *)b;
	int c = strcmp(x->pattern, y->pattern);
	if (c)
		return c;
	if (x->ranks != y->ranks)
		return x->ranks < y->ranks ? -1 : 1;
	return x->size < y->size ? -1 : x->size > y->size;
}

void fx_calib_fits_free(fx_calib_fit *fits, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(fits[i].pt);
		free(fits[i].model);
	}
	free(fits);
}

int fx_calib_fit_all(const fx_meas_set *s, fx_calib_fit **fits, size_t *nfit, fx_diag *d)
{
	*fits = NULL;
	*nfit = 0;
	const fx_meas **all = fx_xmalloc((s->n ? s->n : 1) * sizeof *all);
	for (size_t i = 0; i < s->n; i++)
		all[i] = &s->m[i];
	qsort(all, s->n, sizeof *all, by_group);
	size_t cap = 0;
	for (size_t i = 0; i < s->n;) {
		size_t j = i;
		while (j < s->n && strcmp(all[j]->pattern, all[i]->pattern) == 0 &&
		       all[j]->ranks == all[i]->ranks)
			j++;
		/* weighted least squares of t = a + b S, weights 1 / t^2, sizes
		 * scaled by the largest for conditioning */
		double smax = all[j - 1]->size, sw = 0, sx = 0, sxx = 0, sy = 0, sxy = 0;
		int sizes = 0;
		for (size_t k = i; k < j; k++) {
			double w = 1 / (all[k]->time * all[k]->time), x = all[k]->size / smax;
			sw += w;
			sx += w * x;
			sxx += w * x * x;
			sy += w * all[k]->time;
			sxy += w * x * all[k]->time;
			sizes += k == i || all[k]->size != all[k - 1]->size;
		}
		double det = sw * sxx - sx * sx;
		if (sizes >= 2 && det > 0) {
			*fits = fx_xgrow(*fits, &cap, *nfit + 1, sizeof **fits);
			fx_calib_fit *ft = &(*fits)[(*nfit)++];
			memset(ft, 0, sizeof *ft);
			snprintf(ft->pattern, sizeof ft->pattern, "%s", all[i]->pattern);
			ft->ranks = all[i]->ranks;
			fx_calib_model(ft->pattern, ft->ranks, &ft->rounds, &ft->factor);
			double a = (sxx * sy - sx * sxy) / det, b = (sw * sxy - sx * sy) / det / smax;
			ft->alpha = ft->rounds > 0 ? a / ft->rounds : a;
			ft->bandwidth = b > 0 ? ft->factor / b : INFINITY;
			ft->n = j - i;
			ft->pt = fx_xmalloc(ft->n * sizeof *ft->pt);
			ft->model = fx_xmalloc(ft->n * sizeof *ft->model);
			double ss = 0;
			for (size_t k = 0; k < ft->n; k++) {
				ft->pt[k] = all[i + k];
				ft->model[k] = a + b * all[i + k]->size;
				double r = ft->model[k] / all[i + k]->time - 1;
				ss += r * r;
			}
			ft->rms = sqrt(ss / (double)ft->n);
		}
		i = j;
	}
	free(all);
	if (*nfit == 0)
		return fx_diag_error(d, NULL, "calibrate: no pattern and rank count was measured at two "
				     "sizes or more, so nothing can be fitted");
	return 0;
}

/* The model's bus bandwidth for fit's group on f: its first algorithm at
 * the group's largest size, no overhead and no path latency. */
static double model_busbw(const fx_fabric *f, fx_router *r, const fx_calib_fit *fit, fx_diag *d)
{
	int64_t *ranks = fx_xmalloc((size_t)fit->ranks * sizeof *ranks);
	for (int64_t i = 0; i < fit->ranks; i++)
		ranks[i] = i;
	double size = fit->pt[fit->n - 1]->size;
	fx_coll_req q = {fit->pattern, NULL, ranks, fit->ranks, size, 0};
	fx_coll_time tm = {.alpha = 0, .alpha_replaces_latency = 1, .policy = FX_ROUTE_SPLIT};
	fx_coll_result res;
	double bw = -1;
	if (fx_coll_run(f, r, &q, &tm, &res, d) == 0) {
		if (res.time > 0)
			bw = fit->factor * size / res.time;
		fx_coll_result_release(&res);
	}
	free(ranks);
	return bw;
}

int fx_calib_overlay(const fx_fabric *f, fx_router *r, const fx_calib_fit *fit,
		     double spec_link_bw, const char *spec_path, const char *from,
		     const char *path, double *link_bw, char *why, size_t whylen, fx_diag *d)
{
	*link_bw = 0;
	why[0] = '\0';
	if (fit->ranks > f->ndev)
		snprintf(why, whylen, "the fabric has %lld devices, fewer than the %lld ranks measured",
			 (long long)f->ndev, (long long)fit->ranks);
	else if (!isfinite(fit->bandwidth))
		snprintf(why, whylen, "the fit has no size term (time does not grow with size)");
	else if (spec_link_bw <= 0)
		snprintf(why, whylen, "the spec gives no fabric.link.bandwidth to scale");
	else {
		double b = model_busbw(f, r, fit, d);
		if (b <= 0)
			return -1;
		*link_bw = spec_link_bw * fit->bandwidth / b;
	}
	if (!path)
		return 0;
	fx_outfile of;
	FILE *out = fx_outfile_open(&of, path);
	if (!out)
		return fx_diag_error(d, NULL, "cannot write '%s': %s", path, strerror(errno));
	fprintf(out, "# fabricx calibrate %s --from %s\n", spec_path, from);
	fprintf(out, "# %s over %lld ranks, %zu sizes: least squares (relative) of\n"
		"#   time = %.0f x alpha + %.6g x size / B;  alpha %.6g s, B %.6g B/s, rms residual "
		"%.3g %%\n", fit->pattern, (long long)fit->ranks, fit->n, fit->rounds, fit->factor,
		fit->alpha, fit->bandwidth, 100 * fit->rms);
	fprintf(out, "# derived (fitted to measurements), not sourced: see docs/spec.md\n");
	fprintf(out, "# as --set: --set collective.overhead=%.9gs --set collective.includes_path_latency=true",
		fit->alpha);
	if (*link_bw > 0)
		fprintf(out, " --set 'fabric.link.bandwidth=%.9g B/s'", *link_bw);
	fprintf(out, "\n");
	if (why[0])
		fprintf(out, "# fabric.link.bandwidth left as it is: %s\n", why);
	fprintf(out, "collective:\n  overhead: %.9g s\n  includes_path_latency: true\n", fit->alpha);
	if (*link_bw > 0)
		fprintf(out, "fabric:\n  link:\n    bandwidth: %.9g B/s\n", *link_bw);
	if (fx_outfile_close(&of, 1))
		return fx_diag_error(d, NULL, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

int fx_calib_versus(const fx_fabric *f, fx_router *r, const fx_coll_req *q,
		    const fx_coll_time *tm, const fx_meas_set *s, const fx_meas **pt,
		    double *model, size_t *npt, fx_diag *d)
{
	*npt = 0;
	for (size_t i = 0; i < s->n; i++) {
		const fx_meas *m = &s->m[i];
		if (strcmp(m->pattern, q->pattern) || m->ranks != q->n)
			continue;
		fx_coll_req x = *q;
		x.size = m->size;
		fx_coll_result res;
		if (fx_coll_run(f, r, &x, tm, &res, d))
			return -1;
		pt[*npt] = m;
		model[(*npt)++] = res.time;
		fx_coll_result_release(&res);
	}
	if (*npt == 0)
		return fx_diag_error(d, NULL, "--versus-measured: no measurement of %s over %lld ranks "
				     "(the file's: see fabricx calibrate)", q->pattern, (long long)q->n);
	return 0;
}
