/*
 * The planner's collective times: every group kind of a scheme runs its
 * collective on instance 0's devices as packed (devices 0 .. D-1, a TP
 * group tp consecutive devices, a CP group every tp-th, ...), all groups
 * of the kind at once (fx_coll_run_groups: they share links), measured
 * where `collective.measured` covers the call.
 *
 * Results are cached by (pattern, algorithm, group size, stride,
 * devices per instance, bytes): schemes that share a group shape route it
 * once.  Each modelled time is kept as its parts - rounds x alpha, path
 * latency, the busiest links' bytes over their bandwidth, routing stages -
 * so the same call with every link's bandwidth or the per-round overhead
 * scaled (the flip thresholds) needs no routing:
 *
 *   T(a, b) = rounds x alpha x a + latency + stages + transfer / b
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/xalloc.h"
#include "plan_internal.h"

typedef struct entry {
	int used;
	char pattern[24], algo[16];
	int64_t n, stride, D;
	double bytes;
	int ok, measured;
	double meas, rounds, alpha, latency, stages, transfer;
	char note[200];
} entry;

struct fx_plan_cache {
	entry *e;
	size_t cap, n;
	fx_router *r;
	const fx_fabric *f;
	uint64_t routed, hits;
	double route_s;
};

fx_plan_cache *fx_plan_cache_new(void)
{
	return fx_xcalloc(1, sizeof(fx_plan_cache));
}

void fx_plan_cache_free(fx_plan_cache *c)
{
	if (!c)
		return;
	if (c->r)
		fx_router_free(c->r);
	free(c->e);
	free(c);
}

void fx_plan_cache_stats(const fx_plan_cache *c, uint64_t *routed, uint64_t *hits, double *route_s)
{
	*routed = c ? c->routed : 0;
	*hits = c ? c->hits : 0;
	*route_s = c ? c->route_s : 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static uint64_t key_hash(const char *pat, const char *algo, int64_t n, int64_t stride, int64_t D,
			 double bytes)
{
	uint64_t b;
	memcpy(&b, &bytes, sizeof b);
	uint64_t h = mix(str_hash(pat), str_hash(algo));
	h = mix(h, (uint64_t)n);
	h = mix(h, (uint64_t)stride);
	h = mix(h, (uint64_t)D);
	return mix(h, b);
}

static entry *slot(fx_plan_cache *c, const char *pat, const char *algo, int64_t n, int64_t stride,
		   int64_t D, double bytes)
{
	if (2 * (c->n + 1) > c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		entry *old = c->e;
		size_t oc = c->cap;
		c->e = fx_xcalloc(cap, sizeof *c->e);
		c->cap = cap;
		for (size_t i = 0; i < oc; i++) {
			if (!old[i].used)
				continue;
			entry *o = &old[i];
			size_t h = key_hash(o->pattern, o->algo, o->n, o->stride, o->D, o->bytes) & (cap - 1);
			while (c->e[h].used)
				h = (h + 1) & (cap - 1);
			c->e[h] = *o;
		}
		free(old);
	}
	size_t h = key_hash(pat, algo, n, stride, D, bytes) & (c->cap - 1);
	while (c->e[h].used) {
		entry *e = &c->e[h];
		if (e->n == n && e->stride == stride && e->D == D && e->bytes == bytes &&
		    strcmp(e->pattern, pat) == 0 && strcmp(e->algo, algo) == 0)
			return e;
		h = (h + 1) & (c->cap - 1);
	}
	return &c->e[h];
}

/* Routes one group shape: every group of n devices at `stride` within
 * D consecutive devices from device 0, all at once. */
static int route(fx_plan_problem *p, entry *e, fx_diag *d)
{
	fx_plan_cache *c = p->cache;
	const fx_fabric *f = &p->ds->fab;
	if (!c->r || c->f != f) {
		if (c->r)
			fx_router_free(c->r);
		c->r = fx_router_new(f, 0);
		c->f = f;
	}
	int64_t ngroups = e->D / e->n;
	int64_t *dev = fx_xmalloc((size_t)e->D * sizeof *dev);
	fx_coll_req *q = fx_xcalloc((size_t)ngroups, sizeof *q);
	/* group j: the devices sharing every index but this kind's; the
	 * kind's index moves by stride */
	int64_t span = e->n * e->stride, k = 0;
	for (int64_t j = 0; j < ngroups; j++) {
		int64_t base = (j / e->stride) * span + (j % e->stride);
		q[j] = (fx_coll_req){e->pattern, e->algo, dev + k, e->n, e->bytes, 0};
		for (int64_t i = 0; i < e->n; i++)
			dev[k++] = base + i * e->stride;
	}
	fx_coll_result res;
	fx_diag quiet;
	fx_diag_init(&quiet);
	quiet.out = fopen("/dev/null", "w");
	int rc = fx_coll_run_groups(f, c->r, q, (size_t)ngroups, &p->ds->coll, &res, &quiet);
	c->routed++;
	if (rc) {
		if (quiet.status == FX_EXIT_INTERNAL) {
			fx_diag_internal(d, "%s/%s over %lld ranks failed: %s", e->pattern, e->algo,
					 (long long)e->n, quiet.last ? quiet.last : "?");
		} else {
			e->ok = 0;
			snprintf(e->note, sizeof e->note, "%s/%s over %lld ranks: %s", e->pattern,
				 e->algo, (long long)e->n, quiet.last ? quiet.last : "cannot run");
		}
	} else {
		e->ok = 1;
		e->measured = res.measured;
		e->meas = res.time;
		const fx_coll_time *tm = &p->ds->coll;
		const fx_wafer_state *wafer = fx_fabric_wafer(f);
		double lat = 0, stages = 0;
		for (size_t i = 0; i < res.nround; i++) {
			const fx_round_result *rr = &res.per_round[i];
			if (!tm->alpha_replaces_latency)
				lat += rr->latency * (double)rr->repeat;
			stages += (double)rr->stages * (wafer ? wafer->routing_latency : 0) *
				  (double)rr->repeat;
		}
		double t = res.measured ? res.modelled_time : res.time;
		e->rounds = (double)res.rounds;
		e->alpha = tm->alpha;
		e->latency = lat;
		e->stages = stages;
		e->transfer = t - e->rounds * tm->alpha - lat - stages;
		if (e->transfer < 0)
			e->transfer = 0;  /* rounding of the sums */
		snprintf(e->note, sizeof e->note, "%s", res.time_source);
		fx_coll_result_release(&res);
	}
	if (quiet.out)
		fclose(quiet.out);
	fx_diag_release(&quiet);
	free(q);
	free(dev);
	return quiet.status == FX_EXIT_INTERNAL ? -1 : 0;
}

double fx_plan_comm_time(fx_plan_problem *p, const fx_plan_knobs *k, const fx_plan_scheme *s,
			 fx_plan_group g, const char *pattern, double bytes, int *measured,
			 char *note, size_t len, fx_diag *d)
{
	*measured = 0;
	int64_t n = s->deg[g];
	if (n < 2 || !pattern)
		return 0;
	int64_t stride = 1;
	for (int j = 0; j < (int)g; j++)
		stride *= s->deg[j];
	return fx_plan_comm_call(p, k, pattern, p->algo[g][s->algo[g]], n, stride,
				 fx_plan_scheme_devices(s), bytes, measured, note, len, d);
}

double fx_plan_comm_call(fx_plan_problem *p, const fx_plan_knobs *k, const char *pattern,
			 const char *algo, int64_t n, int64_t stride, int64_t D, double bytes,
			 int *measured, char *note, size_t len, fx_diag *d)
{
	*measured = 0;
	if (n < 2 || !pattern)
		return 0;
	fx_plan_cache *c = p->cache;
	entry *e = slot(c, pattern, algo, n, stride, D, bytes);
	if (!e->used) {
		memset(e, 0, sizeof *e);
		snprintf(e->pattern, sizeof e->pattern, "%s", pattern);
		snprintf(e->algo, sizeof e->algo, "%s", algo);
		e->n = n;
		e->stride = stride;
		e->D = D;
		e->bytes = bytes;
		e->used = 1;
		c->n++;
		double t0 = now();
		int bad = route(p, e, d);
		c->route_s += now() - t0;
		if (bad)
			return NAN;
	} else {
		c->hits++;
	}
	if (note)
		snprintf(note, len, "%s", e->note);
	if (!e->ok)
		return -1;
	if (e->measured) {
		*measured = 1;
		return e->meas * k->measured_scale;
	}
	return e->rounds * e->alpha * k->alpha_scale + e->latency + e->stages +
	       e->transfer / k->bw_scale;
}

/* ---- routing on workers: the cache's misses as lines ---- */

/* The key of group g's collective in scheme s (pattern NULL: none). */
static const char *key_of(fx_plan_problem *p, const fx_plan_scheme *s, fx_plan_group g,
			  double *bytes, int64_t *n, int64_t *stride, int64_t *D, const char **algo)
{
	fx_plan_traffic tr;
	*n = s->deg[g];
	if (*n < 2)
		return NULL;
	p->model->traffic(p, s, g, &tr);
	if (!tr.pattern || tr.count <= 0)
		return NULL;
	*stride = 1;
	for (int j = 0; j < (int)g; j++)
		*stride *= s->deg[j];
	*D = fx_plan_scheme_devices(s);
	*bytes = tr.bytes;
	*algo = p->algo[g][s->algo[g]];
	return tr.pattern;
}

int fx_plan_comm_missing(fx_plan_problem *p, const fx_plan_scheme *s, fx_plan_group g,
			 char *key, size_t len)
{
	double bytes;
	int64_t n, stride, D;
	const char *algo, *pat = key_of(p, s, g, &bytes, &n, &stride, &D, &algo);
	if (!pat)
		return 0;
	snprintf(key, len, "%s %s %lld %lld %lld %a", pat, algo, (long long)n, (long long)stride,
		 (long long)D, bytes);
	fx_plan_cache *c = p->cache;
	if (!c->cap)
		return 1;
	size_t h = key_hash(pat, algo, n, stride, D, bytes) & (c->cap - 1);
	while (c->e[h].used) {
		entry *e = &c->e[h];
		if (e->n == n && e->stride == stride && e->D == D && e->bytes == bytes &&
		    strcmp(e->pattern, pat) == 0 && strcmp(e->algo, algo) == 0)
			return 0;
		h = (h + 1) & (c->cap - 1);
	}
	return 1;
}

int fx_plan_comm_line(fx_plan_problem *p, const fx_plan_scheme *s, fx_plan_group g, FILE *f,
		      fx_diag *d)
{
	double bytes;
	int64_t n, stride, D;
	const char *algo, *pat = key_of(p, s, g, &bytes, &n, &stride, &D, &algo);
	if (!pat)
		return 0;
	int meas;
	if (isnan(fx_plan_comm_time(p, &p->knobs, s, g, pat, bytes, &meas, NULL, 0, d)))
		return -1;
	entry *e = slot(p->cache, pat, algo, n, stride, D, bytes);
	fprintf(f, "C %s %s %lld %lld %lld %a %d %d %a %a %a %a %a %a\t%s\n", e->pattern, e->algo,
		(long long)e->n, (long long)e->stride, (long long)e->D, e->bytes, e->ok, e->measured,
		e->meas, e->rounds, e->alpha, e->latency, e->stages, e->transfer, e->note);
	return 0;
}

int fx_plan_comm_take(fx_plan_problem *p, const char *line)
{
	char pat[24], algo[16];
	long long n, stride, D;
	double bytes, meas, rounds, alpha, lat, stages, transfer;
	int ok, measured, used = 0;
	if (sscanf(line, "C %23s %15s %lld %lld %lld %la %d %d %la %la %la %la %la %la%n", pat, algo,
		   &n, &stride, &D, &bytes, &ok, &measured, &meas, &rounds, &alpha, &lat, &stages,
		   &transfer, &used) != 14 || n < 2 || stride < 1 || D < n)
		return -1;
	entry *e = slot(p->cache, pat, algo, n, stride, D, bytes);
	if (e->used)
		return 0;  /* two workers routed the same: the first stands */
	memset(e, 0, sizeof *e);
	snprintf(e->pattern, sizeof e->pattern, "%s", pat);
	snprintf(e->algo, sizeof e->algo, "%s", algo);
	e->n = n;
	e->stride = stride;
	e->D = D;
	e->bytes = bytes;
	e->ok = ok;
	e->measured = measured;
	e->meas = meas;
	e->rounds = rounds;
	e->alpha = alpha;
	e->latency = lat;
	e->stages = stages;
	e->transfer = transfer;
	const char *tab = strchr(line + used, '\t');
	snprintf(e->note, sizeof e->note, "%s", tab ? tab + 1 : "");
	e->used = 1;
	p->cache->n++;
	p->cache->routed++;
	return 0;
}
