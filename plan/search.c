/*
 * The search: every scheme of the space generated, decided by a rule, a
 * bound or a full evaluation, and the best chosen (the chapter
 * "Supernodes", §6.7.3: pi* = argmin over the feasible schemes of J).
 *
 * The space is a list of families (one per combination of degrees and
 * SP); a family's schemes are its instance counts x micro-batches x an
 * algorithm per group of more than one member, so scheme i of the space
 * is named by its index whoever evaluates it.
 *
 * 1. Per family: the rules that depend on the degrees alone (devices,
 *    kernel support) decide all its schemes at once.
 * 2. Per scheme, without routing: the shape, keep_within, memory and power
 *    rules, and a bound on every objective from the timeline with free
 *    communication (every objective worsens as communication grows, so
 *    it is a bound; a deadline missed even so is missed).  Instances
 *    beyond the sessions only idle and are not timed (for latency and
 *    cost, the objectives such an instance cannot improve).
 * 3. The schemes left, best bound first, are evaluated in full (their
 *    collectives routed once per group shape and cached); once a bound is
 *    worse than the best found by more than the uncertainty, every scheme
 *    after it is excluded by that proven bound (with several objectives:
 *    a bound dominated by a scheme already found).  plan.exhaustive
 *    evaluates every one (the tests compare the two).
 *
 * Work travels as lines ("A idx rule objectives" for a bound, "B ... \t
 * CSV row" for a full evaluation): a worker process or an MPI rank writes
 * them, and fx_plan_take_line reads them back the same way whoever wrote
 * them, so a plan prints the same however it was split.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../core/table.h"
#include "../core/xalloc.h"
#include "plan_internal.h"

/* CPU seconds so far, this process's and its waited-for children's. */
static double cpu_now(void)
{
	struct rusage a, b;
	getrusage(RUSAGE_SELF, &a);
	getrusage(RUSAGE_CHILDREN, &b);
	return (double)(a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec + b.ru_stime.tv_sec) +
	       (double)(a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec +
			b.ru_stime.tv_usec) * 1e-6;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int fx_plan_tied(const fx_plan_problem *p, fx_plan_objective o, double a, double b)
{
	(void)o;
	if (isnan(a) || isnan(b))
		return 0;
	if (a == b)
		return 1;
	return fabs(a - b) <= p->uncertainty * fabs(b);
}

/* a better than b on o (strictly), NaN worst. */
static int obj_better(fx_plan_objective o, double a, double b)
{
	if (isnan(a))
		return 0;
	if (isnan(b))
		return 1;
	return fx_plan_objective_maximise(o) ? a > b : a < b;
}

/* ---- families ---- */

static void add_family(fx_plan_problem *p, fx_plan_result *r, const fx_plan_scheme *key,
		       size_t *cap)
{
	fx_plan_family f;
	memset(&f, 0, sizeof f);
	f.key = *key;
	int64_t D = fx_plan_scheme_devices(key);
	int lv = fx_plan_min_level(p, D);
	int64_t fit = lv < 0 ? 0 : fx_plan_fit(p, lv, D);
	f.key.level = (uint8_t)(lv < 0 ? FX_LEVEL_ANY : lv);
	if (p->kind == FX_PLAN_TRAIN || fit == 0) {
		f.inst_lo = 1;
		f.ninst = 1;
	} else if (p->all_instances) {
		f.inst_lo = 1;
		f.ninst = p->inst_max > 0 && p->inst_max < fit ? p->inst_max : fit;
	} else {
		f.inst_lo = p->inst_max > 0 && p->inst_max < fit ? p->inst_max : fit;
		f.ninst = 1;
	}
	/* micro-batches pipeline a decode's stages; training accumulates
	 * them even on one stage */
	f.nmicro = key->deg[FX_PG_PP] > 1 || p->kind == FX_PLAN_TRAIN ? p->nmicro : 1;
	f.nalgo = 1;
	for (int g = 0; g < FX_PG_N; g++)
		if (key->deg[g] > 1)
			f.nalgo *= p->nalgo[g];
	f.count = (uint64_t)f.ninst * f.nmicro * f.nalgo;
	f.first = r->counts.generated;
	f.best = f.closest = -1;
	f.best_obj = f.closest_by = NAN;
	r->counts.generated += f.count;
	r->fam = fx_xgrow(r->fam, cap, r->nfam + 1, sizeof *r->fam);
	r->fam[r->nfam++] = f;
}

static void build_families(fx_plan_problem *p, fx_plan_result *r)
{
	size_t cap = 0, n[FX_PG_N];
	for (int g = 0; g < FX_PG_N; g++)
		n[g] = p->nvals[g];
	size_t idx[FX_PG_N] = {0};
	for (;;) {
		for (size_t sp = 0; sp < p->nsp; sp++) {
			fx_plan_scheme s;
			memset(&s, 0, sizeof s);
			for (int g = 0; g < FX_PG_N; g++)
				s.deg[g] = p->vals[g][idx[g]];
			s.sp = p->sp_vals[sp];
			s.micro = 1;
			s.instances = 1;
			add_family(p, r, &s, &cap);
		}
		int g = FX_PG_N - 1;
		while (g >= 0 && ++idx[g] == n[g])
			idx[g--] = 0;
		if (g < 0)
			break;
	}
}

static size_t family_of(const fx_plan_result *r, uint64_t i)
{
	/* schemes are mostly asked in order: the last family first */
	size_t *hint = (size_t *)&r->hint;
	if (*hint < r->nfam && r->fam[*hint].first <= i && i - r->fam[*hint].first < r->fam[*hint].count)
		return *hint;
	if (*hint + 1 < r->nfam && r->fam[*hint + 1].first <= i &&
	    i - r->fam[*hint + 1].first < r->fam[*hint + 1].count)
		return ++*hint;
	size_t lo = 0, hi = r->nfam;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (r->fam[mid].first <= i)
			lo = mid;
		else
			hi = mid;
	}
	*hint = lo;
	return lo;
}

int fx_plan_scheme_at(const fx_plan_problem *p, const fx_plan_result *r, uint64_t i,
		      fx_plan_scheme *out)
{
	if (r->nfam == 0 || i >= r->counts.generated)
		return -1;
	const fx_plan_family *f = &r->fam[family_of(r, i)];
	uint64_t local = i - f->first;
	*out = f->key;
	out->instances = f->inst_lo + (int64_t)(local % (uint64_t)f->ninst);
	local /= (uint64_t)f->ninst;
	out->micro = f->nmicro > 1 ? p->micro[local % f->nmicro] : 1;
	local /= f->nmicro;
	memset(out->algo, 0, sizeof out->algo);
	for (int g = 0; g < FX_PG_N; g++) {
		if (f->key.deg[g] < 2)
			continue;
		out->algo[g] = (uint8_t)(local % p->nalgo[g]);
		local /= p->nalgo[g];
	}
	return 0;
}

/* ---- records ---- */

static size_t hash_of(uint64_t i, size_t cap)
{
	return (size_t)((i * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

const fx_plan_rec *fx_plan_rec_find(const fx_plan_result *r, uint64_t i)
{
	if (!r->caphash)
		return NULL;
	size_t h = hash_of(i, r->caphash);
	while (r->rec_of[h]) {
		if (r->rec[r->rec_of[h] - 1].idx == i)
			return &r->rec[r->rec_of[h] - 1];
		h = (h + 1) & (r->caphash - 1);
	}
	return NULL;
}

static fx_plan_rec *rec_get(fx_plan_result *r, uint64_t i)
{
	fx_plan_rec *e = (fx_plan_rec *)fx_plan_rec_find(r, i);
	if (e)
		return e;
	if (2 * (r->nrec + 1) > r->caphash) {
		size_t cap = r->caphash ? 2 * r->caphash : 1024;
		free(r->rec_of);
		r->rec_of = fx_xcalloc(cap, sizeof *r->rec_of);
		r->caphash = cap;
		for (size_t k = 0; k < r->nrec; k++) {
			size_t h = hash_of(r->rec[k].idx, cap);
			while (r->rec_of[h])
				h = (h + 1) & (cap - 1);
			r->rec_of[h] = k + 1;
		}
	}
	r->rec = fx_xgrow(r->rec, &r->caprec, r->nrec + 1, sizeof *r->rec);
	e = &r->rec[r->nrec];
	memset(e, 0, sizeof *e);
	e->idx = i;
	size_t h = hash_of(i, r->caphash);
	while (r->rec_of[h])
		h = (h + 1) & (r->caphash - 1);
	r->rec_of[h] = ++r->nrec;
	return e;
}

/* How far a rule lets a scheme get (the family's "closest" is the one
 * that got furthest). */
static int stage(int rule)
{
	static const int s[FX_PR_N] = {
		[FX_PR_NONE] = 10, [FX_PR_DEVICES] = 1, [FX_PR_KERNEL] = 2, [FX_PR_SHAPE] = 3,
		[FX_PR_IDLE] = 3, [FX_PR_KEEP] = 4, [FX_PR_MEMORY] = 5, [FX_PR_POWER] = 6,
		[FX_PR_COMM] = 7, [FX_PR_DEADLINE] = 8, [FX_PR_BOUND] = 9,
	};
	return rule >= 0 && rule < FX_PR_N ? s[rule] : 0;
}

/* A scheme's outcome into its family: obj is its objective when feasible,
 * else how far over its rule it is (its bound when pruned by one). */
static void family_take(fx_plan_result *r, uint64_t i, int rule, double obj)
{
	const fx_plan_problem *p = r->p;
	fx_plan_family *f = &r->fam[family_of(r, i)];
	fx_plan_objective o = p->obj[0];
	if (rule == FX_PR_NONE) {
		if (f->best < 0 || obj_better(o, obj, f->best_obj) ||
		    (obj == f->best_obj && (int64_t)i < f->best)) {
			f->best = (int64_t)i;
			f->best_obj = obj;
		}
		return;
	}
	/* by: how far over its rule (lower is closer); a bound's value for
	 * the pruned */
	double by = obj;
	if (rule == FX_PR_BOUND && fx_plan_objective_maximise(o))
		by = -obj;
	if (f->closest < 0 || stage(rule) > stage(f->rule) ||
	    (stage(rule) == stage(f->rule) && (isnan(f->closest_by) || by < f->closest_by))) {
		f->closest = (int64_t)i;
		f->rule = (uint8_t)rule;
		f->closest_by = by;
	}
}

/* ---- lines ---- */

static void csv_header(FILE *f, const fx_plan_problem *p)
{
	fputs("index,scheme,tp,cp,ep,pp,dp,sp,micro,instances,level,algorithms,rule", f);
	for (int o = 0; o < FX_PO_N; o++)
		fprintf(f, ",%s", fx_plan_objective_field((fx_plan_objective)o));
	fputs(",devices,nodes,devices_billed,power_W,session_s,step_s,stage_s,finish_s,on_time,"
	      "sessions,memory_per_device_bytes,weights_per_device_bytes,kv_per_device_bytes,"
	      "local_s,binds", f);
	for (int g = 0; g < FX_PG_N; g++)
		fprintf(f, ",%s_time_s", fx_plan_group_name((fx_plan_group)g));
	fputs(",time_source\n", f);
	(void)p;
}

static void csv_row(FILE *f, const fx_plan_problem *p, uint64_t i, const fx_plan_eval *e)
{
	char buf[256], algos[128];
	size_t u = 0;
	algos[0] = '\0';
	for (int g = 0; g < FX_PG_N; g++)
		if (e->s.deg[g] > 1 && u < sizeof algos)
			u += (size_t)snprintf(algos + u, sizeof algos - u, "%s%s %s", u ? " " : "",
					      fx_plan_group_name((fx_plan_group)g),
					      p->algo[g][e->s.algo[g]]);
	fprintf(f, "%llu,", (unsigned long long)i);
	fx_csv_text(f, fx_plan_scheme_text(&e->s, p, buf, sizeof buf));
	for (int g = 0; g < FX_PG_N; g++)
		fprintf(f, ",%lld", (long long)e->s.deg[g]);
	fprintf(f, ",%s,%lld,%lld,%s,", e->s.sp ? "true" : "false", (long long)e->s.micro,
		(long long)e->s.instances, fx_level_name((fx_level)e->s.level));
	fx_csv_text(f, algos);
	fprintf(f, ",%s", fx_plan_rule_name(e->rule));
	double nums[] = {(double)e->devices, (double)e->nodes, e->billed, e->power, e->session,
			 e->step, e->stage, e->finish, (double)e->on_time, (double)e->count,
			 e->mem.total, e->mem.weights, e->mem.kv, e->local.time};
	for (int o = 0; o < FX_PO_N; o++) {
		fputc(',', f);
		fx_csv_num(f, e->obj[o]);
	}
	for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
		fputc(',', f);
		if (k == 3 && !(e->power > 0))
			continue;  /* no power model: empty */
		fx_csv_num(f, nums[k]);
	}
	fprintf(f, ",%s", e->local.binds ? e->local.binds : "");
	int any = 0;
	for (int g = 0; g < FX_PG_N; g++) {
		fputc(',', f);
		fx_csv_num(f, e->comm[g]);
		any |= e->measured[g];
	}
	any |= e->local.measured;  /* the step model's own collectives */
	fprintf(f, ",%s", any ? "measured" : "modelled");
}

/* Scheme number `at` of the space, evaluated in full or bounded, into *e;
 * -1 only on an internal error (a scheme's own errors are its verdict). */
static int eval_one(fx_plan_problem *p, const fx_plan_knobs *k, int full, const fx_plan_result *r,
		    uint64_t at, fx_plan_eval *e, fx_diag *d)
{
	memset(e, 0, sizeof *e);
	if (fx_plan_scheme_at(p, r, at, &e->s))
		return fx_diag_internal(d, "plan: scheme %llu is not in the space",
					(unsigned long long)at);
	int nerr = d->nerr;
	if (full)
		fx_plan_evaluate(p, k, e, d);
	else
		fx_plan_bound(p, k, e);
	return d->nerr > nerr && d->status == FX_EXIT_INTERNAL ? -1 : 0;
}

int fx_plan_eval_lines(fx_plan_problem *p, const fx_plan_knobs *k, int full,
		       const fx_plan_result *r, const uint64_t *idx, size_t n, size_t w,
		       size_t stride, FILE *f, fx_diag *d)
{
	if (!k)
		k = &p->knobs;
	for (size_t j = w; j < n; j += stride) {
		fx_plan_eval e;
		if (eval_one(p, k, full, r, idx[j], &e, d))
			return -1;
		/* hexadecimal floating point: exact, and far cheaper to write and
		 * read than 17 decimal digits (it is most of a worker's cost) */
		fprintf(f, "%c %llu %d %d %a", full ? 'B' : 'A', (unsigned long long)idx[j],
			(int)e.rule, e.devices > 0 ? (int)(e.devices > 2147483647 ? 2147483647 : e.devices)
						   : 0, e.excess);
		for (int o = 0; o < FX_PO_N; o++)
			fprintf(f, " %a", e.obj[o]);
		if (full && p->csv_rows) {
			fputc('\t', f);
			csv_row(f, p, idx[j], &e);
		}
		fputc('\n', f);
	}
	return 0;
}

int fx_plan_prewarm(fx_plan_problem *p, const fx_plan_knobs *k, const fx_plan_result *r,
		    const uint64_t *idx, size_t n, fx_diag *d)
{
	if (!k)
		k = &p->knobs;
	for (size_t j = 0; j < n; j++) {
		fx_plan_scheme s;
		if (fx_plan_scheme_at(p, r, idx[j], &s))
			continue;
		for (int g = 0; g < FX_PG_N; g++) {
			fx_plan_traffic tr;
			if (s.deg[g] < 2)
				continue;
			p->model->traffic(p, &s, (fx_plan_group)g, &tr);
			if (!tr.pattern || tr.count <= 0)
				continue;
			int meas;
			if (isnan(fx_plan_comm_time(p, k, &s, (fx_plan_group)g, tr.pattern, tr.bytes, &meas,
						    NULL, 0, d)))
				return -1;
		}
	}
	return 0;
}

/* One scheme's outcome kept: a bound (full 0) or a full evaluation. */
static void take(fx_plan_result *r, int full, uint64_t i, int rule, double excess,
		 const double *obj)
{
	fx_plan_rec *e = rec_get(r, i);
	e->rule = (uint8_t)rule;
	e->full = (uint8_t)full;
	memcpy(e->obj, obj, sizeof e->obj);
	const fx_plan_problem *p = r->p;
	if (!full) {
		r->counts.bounded++;
		if (rule != FX_PR_NONE) {
			r->counts.excluded[rule]++;
			r->counts.deadline_bounded += rule == FX_PR_DEADLINE;
			family_take(r, i, rule, excess);
		}
		return;
	}
	r->counts.evaluated++;
	if (rule != FX_PR_NONE)
		r->counts.excluded[rule]++;
	else
		r->counts.feasible++;
	family_take(r, i, rule, rule == FX_PR_NONE ? obj[p->obj[0]] : excess);
}

static uint64_t text_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

size_t fx_plan_needs(fx_plan_problem *p, const fx_plan_result *r, const uint64_t *idx, size_t n,
		     fx_plan_need **out)
{
	fx_plan_need *v = NULL;
	size_t nv = 0, cap = 0;
	/* distinct among themselves: a shape met twice is asked once */
	size_t hcap = 1024, hn = 0;
	char **keys = fx_xcalloc(hcap, sizeof *keys);
	for (size_t j = 0; j < n; j++) {
		fx_plan_scheme s;
		if (fx_plan_scheme_at(p, r, idx[j], &s))
			continue;
		for (int g = 0; g < FX_PG_N; g++) {
			char key[128];
			if (!fx_plan_comm_missing(p, &s, (fx_plan_group)g, key, sizeof key))
				continue;
			size_t h = text_hash(key) & (hcap - 1);
			while (keys[h] && strcmp(keys[h], key))
				h = (h + 1) & (hcap - 1);
			if (keys[h])
				continue;
			keys[h] = fx_xstrdup(key);
			if (2 * ++hn > hcap) {
				char **old = keys;
				size_t oc = hcap;
				hcap *= 2;
				keys = fx_xcalloc(hcap, sizeof *keys);
				for (size_t i = 0; i < oc; i++) {
					if (!old[i])
						continue;
					size_t k2 = text_hash(old[i]) & (hcap - 1);
					while (keys[k2])
						k2 = (k2 + 1) & (hcap - 1);
					keys[k2] = old[i];
				}
				free(old);
			}
			v = fx_xgrow(v, &cap, nv + 1, sizeof *v);
			v[nv++] = (fx_plan_need){idx[j], g};
		}
	}
	for (size_t i = 0; i < hcap; i++)
		free(keys[i]);
	free(keys);
	*out = v;
	return nv;
}

int fx_plan_route_lines(fx_plan_problem *p, const fx_plan_result *r, const fx_plan_need *v,
			size_t n, size_t w, size_t stride, FILE *f, fx_diag *d)
{
	for (size_t j = w; j < n; j += stride) {
		fx_plan_scheme s;
		if (fx_plan_scheme_at(p, r, v[j].idx, &s))
			return fx_diag_internal(d, "plan: scheme %llu is not in the space",
						(unsigned long long)v[j].idx);
		if (fx_plan_comm_line(p, &s, (fx_plan_group)v[j].group, f, d))
			return -1;
	}
	return 0;
}

int fx_plan_take_route_line(fx_plan_problem *p, const char *line)
{
	return fx_plan_comm_take(p, line);
}

/* Parses "A|B idx rule devices excess o0 .. o4[\tcsv]". */
int fx_plan_take_line(fx_plan_result *r, const char *line)
{
	char kind;
	unsigned long long i;
	int rule, dev, used = 0;
	double excess;
	if (sscanf(line, "%c %llu %d %d %lf%n", &kind, &i, &rule, &dev, &excess, &used) != 5 ||
	    (kind != 'A' && kind != 'B') || rule < 0 || rule >= FX_PR_N || i >= r->counts.generated)
		return -1;
	const char *s = line + used;
	double obj[FX_PO_N];
	for (int o = 0; o < FX_PO_N; o++) {
		char *end;
		obj[o] = strtod(s, &end);
		if (end == s)
			return -1;
		s = end;
	}
	take(r, kind == 'B', i, rule, excess, obj);
	if (kind == 'B' && r->csv && *s == '\t')
		fprintf(r->csv, "%s\n", s + 1);
	return 0;
}

/* ---- running batches ---- */

static int run_batch(fx_plan_problem *p, const fx_plan_knobs *k, int full, const fx_plan_exec *ex,
		     fx_plan_result *r, const uint64_t *idx, size_t n, fx_diag *d)
{
	if (n == 0)
		return 0;
	if (ex && ex->batch) {
		int rc = ex->batch(ex->ctx, p, k, full, r, idx, n, d);
		if (rc != 1)
			return rc;
	}
	/* here: the values a line would carry, without the text (a line's
	 * hexadecimal floats read back exactly, so the two ways agree) */
	for (size_t j = 0; j < n; j++) {
		fx_plan_eval e;
		if (eval_one(p, k, full, r, idx[j], &e, d))
			return -1;
		take(r, full, idx[j], (int)e.rule, e.excess, e.obj);
		if (full && r->csv) {
			csv_row(r->csv, p, idx[j], &e);
			fputc('\n', r->csv);
		}
	}
	return 0;
}

/* ---- the search ---- */

typedef struct cand {
	uint64_t idx;
	double b;      /* the primary objective's bound */
	int devices;
} cand;

static fx_plan_objective sort_obj;

static int cand_cmp(const void *x, const void *y)
{
	const cand *a = x, *b = y;
	if (obj_better(sort_obj, a->b, b->b))
		return -1;
	if (obj_better(sort_obj, b->b, a->b))
		return 1;
	if (a->devices != b->devices)
		return a->devices < b->devices ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* Whether every objective of a is at least as good as b's and one better. */
static int dominates(const fx_plan_problem *p, const double *a, const double *b)
{
	int better = 0;
	for (size_t i = 0; i < p->nobj; i++) {
		fx_plan_objective o = p->obj[i];
		if (obj_better(o, b[o], a[o]))
			return 0;
		better |= obj_better(o, a[o], b[o]);
	}
	return better;
}

/* Only the family rules: devices (no instance count fits) and kernel
 * support decide a whole family. */
static int family_rule(fx_plan_problem *p, const fx_plan_knobs *k, fx_plan_result *r, size_t fi)
{
	fx_plan_family *f = &r->fam[fi];
	fx_plan_eval e;
	memset(&e, 0, sizeof e);
	fx_plan_scheme_at(p, r, f->first, &e.s);
	fx_plan_bound(p, k, &e);
	if (e.rule == FX_PR_DEVICES && f->ninst == 1 && f->inst_lo == 1 &&
	    fx_plan_fit(p, f->key.level, fx_plan_scheme_devices(&f->key)) == 0)
		return FX_PR_DEVICES;
	if (e.rule == FX_PR_KERNEL)
		return FX_PR_KERNEL;
	return FX_PR_NONE;
}

static int idle_applies(const fx_plan_problem *p)
{
	if (p->kind != FX_PLAN_DECODE)
		return 0;
	for (size_t i = 0; i < p->nobj; i++)
		if (p->obj[i] != FX_PO_LATENCY && p->obj[i] != FX_PO_COST)
			return 0;
	return 1;
}

int fx_plan_search(fx_plan_problem *p, const fx_plan_knobs *k, const fx_plan_exec *exec,
		   FILE *csv, fx_plan_result *out, fx_diag *d)
{
	if (!k)
		k = &p->knobs;
	fx_plan_default_objective(p);
	memset(out, 0, sizeof *out);
	out->p = p;
	out->csv = csv;
	out->best = -1;
	out->best_obj = NAN;
	double t0 = now(), c0 = cpu_now();
	build_families(p, out);
	uint64_t gen = out->counts.generated;
	uint64_t lim = p->limit && gen > p->limit ? p->limit : gen;
	out->counts.considered = lim;
	out->limited = lim < gen;
	if (csv) {
		csv_header(csv, p);
		p->csv_rows = 1;
	}
	int idle = idle_applies(p);
	/* 1-2: family rules, idle instances, then bounds */
	uint64_t *todo = NULL;
	size_t ntodo = 0, captodo = 0;
	int rc = 0;
	for (size_t fi = 0; fi < out->nfam && rc == 0; fi++) {
		fx_plan_family *f = &out->fam[fi];
		if (f->first >= lim)
			break;
		uint64_t end = f->first + f->count < lim ? f->first + f->count : lim;
		int fr = family_rule(p, k, out, fi);
		if (fr != FX_PR_NONE) {
			out->counts.excluded[fr] += end - f->first;
			family_take(out, f->first, fr, NAN);
			continue;
		}
		for (uint64_t i = f->first; i < end; i++) {
			if (idle) {
				int64_t inst = f->inst_lo + (int64_t)((i - f->first) % (uint64_t)f->ninst);
				if (inst > k->sessions) {
					out->counts.excluded[FX_PR_IDLE]++;
					family_take(out, i, FX_PR_IDLE, NAN);
					continue;
				}
			}
			todo = fx_xgrow(todo, &captodo, ntodo + 1, sizeof *todo);
			todo[ntodo++] = i;
		}
	}
	for (size_t at = 0; at < ntodo && rc == 0; at += 65536) {
		size_t n = ntodo - at < 65536 ? ntodo - at : 65536;
		rc = run_batch(p, k, 0, exec, out, todo + at, n, d);
	}
	/* 3: the candidates, best bound first */
	cand *c = fx_xmalloc((ntodo + 1) * sizeof *c);
	size_t nc = 0;
	fx_plan_objective o = p->obj[0];
	for (size_t j = 0; j < ntodo && rc == 0; j++) {
		const fx_plan_rec *e = fx_plan_rec_find(out, todo[j]);
		if (!e || e->rule != FX_PR_NONE)
			continue;
		fx_plan_scheme s;
		fx_plan_scheme_at(p, out, todo[j], &s);
		c[nc++] = (cand){todo[j], e->obj[o], (int)fx_plan_scheme_devices(&s) *
				 (int)(s.instances > 65535 ? 65535 : s.instances)};
	}
	free(todo);
	sort_obj = o;
	qsort(c, nc, sizeof *c, cand_cmp);
	/* one at a time here; elsewhere batches from one scheme, doubling
	 * each round, so a pruned search evaluates about what one process
	 * would (the exec runs a batch too small for a fork here), and an
	 * exhaustive one goes out whole */
	size_t width = exec && exec->batch && p->exhaustive ? nc : 1;
	if (width < 1)
		width = 1;
	uint64_t *batch = fx_xmalloc((nc + 1) * sizeof *batch);
	size_t pos = 0;
	/* evaluated feasible schemes' objectives, for the front's pruning */
	double *fv = NULL;
	size_t nfv = 0, capfv = 0;
	while (pos < nc && rc == 0) {
		size_t n = 0;
		while (pos < nc && n < width) {
			const fx_plan_rec *e = fx_plan_rec_find(out, c[pos].idx);
			int prune = 0;
			if (!p->exhaustive && p->nobj == 1 && out->best >= 0)
				prune = obj_better(o, out->best_obj, c[pos].b) &&
					!fx_plan_tied(p, o, c[pos].b, out->best_obj);
			else if (!p->exhaustive && p->nobj > 1)
				for (size_t j = 0; j < nfv && !prune; j++)
					prune = dominates(p, &fv[j * FX_PO_N], e->obj);
			if (prune && p->nobj == 1) {
				/* sorted: every later bound is no better */
				for (; pos < nc; pos++) {
					out->counts.excluded[FX_PR_BOUND]++;
					family_take(out, c[pos].idx, FX_PR_BOUND, c[pos].b);
				}
				break;
			}
			if (prune) {
				out->counts.excluded[FX_PR_BOUND]++;
				family_take(out, c[pos].idx, FX_PR_BOUND, c[pos].b);
				pos++;
				continue;
			}
			batch[n++] = c[pos++].idx;
		}
		rc = run_batch(p, k, 1, exec, out, batch, n, d);
		if (exec && exec->batch && width < nc)
			width *= 2;
		for (size_t j = 0; j < n && rc == 0; j++) {
			const fx_plan_rec *e = fx_plan_rec_find(out, batch[j]);
			if (!e || !e->full || e->rule != FX_PR_NONE)
				continue;
			if (out->best < 0 || obj_better(o, e->obj[o], out->best_obj)) {
				out->best = (int64_t)e->idx;
				out->best_obj = e->obj[o];
			}
			fv = fx_xgrow(fv, &capfv, nfv + 1, FX_PO_N * sizeof *fv);
			memcpy(&fv[nfv * FX_PO_N], e->obj, sizeof e->obj);
			nfv++;
		}
	}
	free(batch);
	free(c);
	free(fv);
	if (rc == 0 && p->nobj > 1) {
		/* the front among the schemes evaluated feasible */
		for (size_t j = 0; j < out->nrec; j++) {
			const fx_plan_rec *a = &out->rec[j];
			if (!a->full || a->rule != FX_PR_NONE)
				continue;
			int dom = 0;
			for (size_t i = 0; i < out->nrec && !dom; i++) {
				const fx_plan_rec *b = &out->rec[i];
				dom = i != j && b->full && b->rule == FX_PR_NONE &&
				      dominates(p, b->obj, a->obj);
			}
			if (!dom) {
				out->front = fx_xrealloc(out->front, (out->nfront + 1) * sizeof *out->front);
				out->front[out->nfront++] = (int64_t)a->idx;
			}
		}
	}
	/* among exact equals the earliest, as the sort put it */
	fx_plan_cache_stats(p->cache, &out->counts.routed, &out->counts.cache_hits,
			    &out->counts.route_s);
	out->counts.wall_s = now() - t0;
	out->counts.cpu_s = cpu_now() - c0;
	out->complete = !out->limited && rc == 0;
	if (out->best >= 0)
		snprintf(out->status, sizeof out->status, "%s", out->limited ? "best found (plan.limit "
			 "reached)" : p->nobj > 1 ? "front: every feasible scheme compared or bounded"
			 : "optimal: every feasible scheme compared or excluded by a proven bound");
	else
		snprintf(out->status, sizeof out->status, "%s", out->limited ? "none found (plan.limit "
			 "reached)" : "no feasible scheme");
	return rc;
}

void fx_plan_result_release(fx_plan_result *r)
{
	free(r->fam);
	free(r->rec);
	free(r->rec_of);
	free(r->front);
	memset(r, 0, sizeof *r);
}
