/*
 * calib: collective times measured on a real machine, and what they say
 * about the time model (fabricx calibrate, collective --versus-measured).
 *
 * Measurements come from nccl-tests or rccl-tests output (the table each
 * *_perf binary prints: size, count, type, redop[, root], then the
 * out-of-place time in us, algbw, busbw, #wrong or error, and the
 * in-place four) or from a CSV with the header pattern,ranks,size_bytes,
 * time_s.  nccl-tests names neither the collective nor always the ranks in
 * its table: the pattern comes from the binary's name in the log
 * (all_reduce_perf, ...) or the caller, the ranks from its "#  Rank N"
 * lines.  Sizes are nccl-tests' (the size column: per rank for allreduce,
 * the whole vector for all-gather and reduce-scatter), fabricx's
 * --size convention too.
 *
 * The fit, per (pattern, ranks) group: time = R x alpha + F x size / B,
 * R the rounds of the pattern's ring algorithm (allreduce 2(n-1),
 * reduce-scatter, all-gather and all-to-all n-1, broadcast and reduce
 * ceil(log2 n)) and F nccl-tests' bus factor, so alpha is the per-round
 * startup of the chapter "Supernodes"' Eq. 6-9 and B the bus bandwidth
 * the large sizes reach.  Least squares on relative residuals (weights
 * 1 / time^2), so 8 B and 8 GiB count alike.
 *
 * These are fitted parameters ("derived", docs/spec.md): they reproduce
 * the measured points, they are not evidence for the model's structure.
 * Distinct from the measured-time table of a spec (collective.measured),
 * which stands in for the model: calibrate changes the model's inputs.
 */
#ifndef FX_CALIB_H
#define FX_CALIB_H

#include "../routing/routing.h"

typedef struct fx_meas {
	char pattern[24];     /* fabricx's pattern name (allreduce, ...) */
	int64_t ranks;
	double size;          /* bytes, nccl-tests' size column */
	double time;          /* seconds */
	int line;             /* of the file */
} fx_meas;

typedef struct fx_meas_set {
	fx_meas *m;
	size_t n, cap;
	char format[16];      /* "nccl-tests", "rccl-tests" or "csv" */
} fx_meas_set;

/* Reads measurements from path (format detected from its text).  pattern:
 * the pattern of an nccl-tests table whose binary the log does not name
 * (NULL: allreduce, said in the note); ranks > 0 the same for its ranks.
 * 0, or -1 with FILE:LINE errors through d. */
int fx_meas_read(const char *path, const char *pattern, int64_t ranks, fx_meas_set *out,
		 fx_diag *d);
void fx_meas_release(fx_meas_set *s);

typedef struct fx_calib_fit {
	char pattern[24];
	int64_t ranks;
	double rounds, factor;  /* R and F of the model */
	double alpha;           /* seconds per round */
	double bandwidth;       /* bus bandwidth, bytes/s (inf: no size term) */
	size_t n;               /* points */
	const fx_meas **pt;     /* the group's points, by size (borrowed) */
	double *model;          /* the fit's time at each point */
	double rms;             /* root mean square relative residual */
} fx_calib_fit;

/* One fit per (pattern, ranks) group with two sizes or more (*nfit of
 * them, the caller frees with fx_calib_fits_free).  -1 when no group has
 * two sizes (reported through d). */
int fx_calib_fit_all(const fx_meas_set *s, fx_calib_fit **fits, size_t *nfit, fx_diag *d);
void fx_calib_fits_free(fx_calib_fit *fits, size_t n);
/* R and F for a pattern on n ranks (R 0: a pattern with no ring form). */
void fx_calib_model(const char *pattern, int64_t n, double *rounds, double *factor);

/* The spec overlay that puts fit into the model of fabric f (spec text
 * spec_link_bw: the spec's fabric.link.bandwidth, bytes/s, 0 if none):
 * collective.overhead = alpha (with includes_path_latency, the fitted
 * alpha covering the path), and fabric.link.bandwidth scaled so the
 * model's ring bus bandwidth for the group equals B (measured on f with
 * r at the group's largest size; left out, with a reason in *why, when f
 * has fewer devices than the group's ranks).  Written to path through
 * core/outfile.h as YAML, headed by the same values as --set options. */
int fx_calib_overlay(const fx_fabric *f, fx_router *r, const fx_calib_fit *fit,
		     double spec_link_bw, const char *spec_path, const char *from,
		     const char *path, double *link_bw, char *why, size_t whylen, fx_diag *d);

/* The model against the measurements of q's pattern on q->n ranks: for
 * each measured size, the model's time (fx_coll_run under tm) into
 * model[] (room for s->n; *npt filled) with the points in pt[]. */
int fx_calib_versus(const fx_fabric *f, fx_router *r, const fx_coll_req *q,
		    const fx_coll_time *tm, const fx_meas_set *s, const fx_meas **pt,
		    double *model, size_t *npt, fx_diag *d);

#endif
