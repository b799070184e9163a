/*
 * Several jobs on one fabric: each job's collectives routed once per
 * distinct round, then the jobs stepped through time together, a step's
 * busiest link counting the bytes of every job in a step on it at the
 * moment the step starts (placement.h says the model).
 *
 * Why stepping rather than summing: jobs with start offsets overlap only
 * part of the time, and a job slows where its own steps meet the others'
 * on a link, not where the others happen to be busy elsewhere.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "placement.h"

/* Steps a run may take in all before it is "not decided" (exit 4):
 * each step visits its round's links once. */
#define JOBS_MAX_STEPS 4000000.0

int64_t fx_job_devices(const fx_job *j)
{
	if (!j)
		return -1;
	int64_t n = 1;
	for (int k = 0; k < FX_GROUP_KINDS; k++)
		n = fx_mul_sat(n, j->dims[k]);
	return n;
}

fx_job *fx_jobs_dup(const fx_job *jobs, size_t n)
{
	fx_job *c = fx_xcalloc(n ? n : 1, sizeof *c);
	for (size_t i = 0; i < n; i++) {
		c[i] = jobs[i];
		if (jobs[i].devices) {
			size_t m = (size_t)fx_job_devices(&jobs[i]);
			c[i].devices = fx_xmalloc(m * sizeof *c[i].devices);
			memcpy(c[i].devices, jobs[i].devices, m * sizeof *c[i].devices);
		}
	}
	return c;
}

void fx_jobs_free(fx_job *jobs, size_t n)
{
	for (size_t i = 0; jobs && i < n; i++)
		free(jobs[i].devices);
	free(jobs);
}

/* One distinct round of a job: the directed links it loads and how much. */
typedef struct jround {
	int64_t *link;
	double *bytes;
	size_t n;
	double fixed;       /* alpha + path latency + routing stages: seconds */
	int64_t repeat;
} jround;

/* A group kind's calls: rounds [first, first + n) of the plan, `count` times. */
typedef struct jphase {
	size_t first, n;
	int64_t count;
} jphase;

typedef struct jplan {
	jround *r;
	size_t nr;
	jphase ph[FX_GROUP_KINDS];
	int nph;
	double steps;
} jplan;

static void plan_release(jplan *p)
{
	for (size_t i = 0; i < p->nr; i++) {
		free(p->r[i].link);
		free(p->r[i].bytes);
	}
	free(p->r);
	memset(p, 0, sizeof *p);
}

/* Routes round i of every group's schedule into load and keeps the links. */
static int route_round(const fx_fabric *f, fx_router *rt, const fx_coll_time *tm, fx_sched *each,
		       size_t ng, size_t i, double *load, jround *out, fx_diag *d)
{
	fx_path_stats st = {0}, st2;
	fx_flow *buf = NULL;
	size_t cap = 0;
	int64_t stages = 0;
	int rc = 0;
	for (size_t g = 0; g < ng && rc == 0; g++) {
		const fx_round *rd = &each[g].r[i];
		size_t nf;
		const fx_flow *fl = fx_round_flows(rd, &buf, &cap, &nf);
		rc = fx_router_add(rt, fl, nf, load, &st2, d);
		if (st2.max_latency > st.max_latency)
			st.max_latency = st2.max_latency;
		if (rc == 0 && rd->all_pairs > 0) {
			rc = fx_router_add_all_pairs(rt, rd->all_pairs, load, &st2, d);
			if (st2.max_latency > st.max_latency)
				st.max_latency = st2.max_latency;
		}
		for (size_t k = 0; k < rd->namong && rc == 0; k++) {
			rc = fx_router_add_among(rt, &rd->among[k], load, &st2, d);
			if (st2.max_latency > st.max_latency)
				st.max_latency = st2.max_latency;
		}
		if (rd->stages > stages)
			stages = rd->stages;
	}
	free(buf);
	const int64_t *used;
	size_t nu = fx_router_used(rt, &used);
	out->link = fx_xmalloc((nu ? nu : 1) * sizeof *out->link);
	out->bytes = fx_xmalloc((nu ? nu : 1) * sizeof *out->bytes);
	int scale_out = 0;
	for (size_t u = 0; u < nu; u++) {
		if (load[used[u]] > 0) {
			out->link[out->n] = used[u];
			out->bytes[out->n++] = load[used[u]];
			scale_out |= f->e[used[u] / 2].scale_out;
		}
		load[used[u]] = 0;
	}
	const fx_wafer_state *w = fx_fabric_wafer(f);
	double alpha = scale_out && tm->network_alpha_set ? tm->network_alpha : tm->alpha;
	out->fixed = alpha + (tm->alpha_replaces_latency ? 0 : st.max_latency) +
		     (double)stages * (w ? w->routing_latency : 0);
	out->repeat = each[0].r[i].repeat;
	return rc;
}

/* The ranks of group g of kind k into m[] (rank order along k). */
static void group_ranks(const fx_job *j, int k, int64_t g, int64_t *m)
{
	int64_t stride = 1;
	for (int q = 0; q < k; q++)
		stride *= j->dims[q];
	/* group g: the g-th rank whose coordinate along k is 0 */
	int64_t lo = g % stride, hi = g / stride;
	int64_t base = lo + hi * stride * j->dims[k];
	for (int64_t i = 0; i < j->dims[k]; i++)
		m[i] = j->devices[base + i * stride];
}

/* One group kind of job j: its groups' schedules, merged round by round. */
static int plan_kind(const fx_fabric *f, fx_router *rt, const fx_coll_time *tm, const fx_job *j,
		     int k, double *load, jplan *p, fx_diag *d)
{
	const fx_group_traffic *t = &j->traffic[k];
	const fx_coll_algo *a = fx_coll_find(t->pattern, t->algo[0] ? t->algo : NULL);
	if (!a)
		return fx_diag_error(d, NULL, "job '%s': no collective %s/%s", j->name, t->pattern,
				     t->algo[0] ? t->algo : "(default)");
	int64_t ng = fx_job_devices(j) / j->dims[k];
	int64_t *ranks = fx_xmalloc((size_t)fx_job_devices(j) * sizeof *ranks);
	fx_sched *each = fx_xcalloc((size_t)ng, sizeof *each);
	int rc = 0;
	for (int64_t g = 0; g < ng && rc == 0; g++) {
		int64_t *m = ranks + g * j->dims[k];
		group_ranks(j, k, g, m);
		fx_coll_req q = {t->pattern, a->name, m, j->dims[k], t->bytes, 0};
		rc = a->gen(f, &q, &each[g], d);
		if (rc == 0 && (each[g].n != each[0].n))
			rc = fx_diag_error(d, NULL, "job '%s': %s groups of unequal schedules", j->name,
					   fx_group_kind_name((fx_group_kind)k));
		for (size_t i = 0; rc == 0 && i < each[g].n; i++)
			if (each[g].r[i].repeat != each[0].r[i].repeat)
				rc = fx_diag_error(d, NULL, "job '%s': %s groups of unequal schedules",
						   j->name, fx_group_kind_name((fx_group_kind)k));
	}
	jphase *ph = &p->ph[p->nph];
	if (rc == 0) {
		ph->first = p->nr;
		ph->n = each[0].n;
		ph->count = (int64_t)t->count;
		p->r = fx_xrealloc(p->r, (p->nr + ph->n + 1) * sizeof *p->r);
		memset(p->r + p->nr, 0, (ph->n + 1) * sizeof *p->r);
		fx_router_set_policy(rt, tm->policy);
		for (size_t i = 0; i < ph->n && rc == 0; i++) {
			rc = route_round(f, rt, tm, each, (size_t)ng, i, load, &p->r[p->nr], d);
			p->steps += (double)p->r[p->nr].repeat * (double)ph->count;
			p->nr++;
		}
		p->nph++;
	}
	for (int64_t g = 0; g < ng; g++)
		fx_sched_release(&each[g]);
	free(each);
	free(ranks);
	return rc;
}

static int plan_job(const fx_fabric *f, fx_router *rt, const fx_coll_time *tm, const fx_job *j,
		    double *load, jplan *p, fx_diag *d)
{
	memset(p, 0, sizeof *p);
	for (int k = 0; k < FX_GROUP_KINDS; k++) {
		const fx_group_traffic *t = &j->traffic[k];
		if (j->dims[k] <= 1 || t->count <= 0 || !(t->bytes > 0) || !t->pattern[0])
			continue;
		if (plan_kind(f, rt, tm, j, k, load, p, d))
			return -1;
	}
	return 0;
}

/* Where a job is in its plan. */
typedef struct jcursor {
	int ph;
	int64_t call;
	size_t i;
	int64_t left;
	int active, done;
	jround *cur;
	double next, end;
	int64_t steps;
} jcursor;

/* The job's next step (its round), or NULL when it has none left. */
static jround *step_next(const jplan *p, jcursor *c)
{
	while (c->ph < p->nph) {
		const jphase *ph = &p->ph[c->ph];
		if (c->call >= ph->count || ph->n == 0) {
			c->ph++;
			c->call = 0;
			c->i = 0;
			c->left = -1;
			continue;
		}
		jround *r = &p->r[ph->first + c->i];
		if (c->left < 0)
			c->left = r->repeat;
		if (c->left == 0) {
			c->left = -1;
			if (++c->i == ph->n) {
				c->i = 0;
				c->call++;
			}
			continue;
		}
		c->left--;
		return r;
	}
	return NULL;
}

static void add_round(double *cur, const jround *r, double sign)
{
	for (size_t u = 0; u < r->n; u++)
		cur[r->link[u]] += sign * r->bytes[u];
}

static double busiest(const fx_fabric *f, const double *cur, const jround *r)
{
	double worst = 0;
	for (size_t u = 0; u < r->n; u++) {
		const fx_link *lk = &f->e[r->link[u] / 2];
		double s = cur[r->link[u]] / ((double)lk->count * lk->bw);
		if (s > worst)
			worst = s;
	}
	return worst;
}

/* Steps jobs idx[0 .. m) together from their starts; end[i] each one's end. */
static void simulate(const fx_fabric *f, const jplan *plans, const fx_job *jobs, const size_t *idx,
		     size_t m, double *cur, double *end, int64_t *steps)
{
	jcursor *c = fx_xcalloc(m, sizeof *c);
	for (size_t i = 0; i < m; i++) {
		c[i].next = jobs[idx[i]].start;
		c[i].left = -1;
	}
	for (;;) {
		double t = INFINITY;
		for (size_t i = 0; i < m; i++)
			if (!c[i].done && c[i].next < t)
				t = c[i].next;
		if (!isfinite(t))
			break;
		/* steps that end now leave the links first, so a step that
		 * starts as another ends does not count it */
		double eps = 1e-12 * fabs(t) + 1e-18;
		uint8_t *now = fx_xcalloc(m, 1);
		for (size_t i = 0; i < m; i++) {
			if (c[i].done || c[i].next > t + eps)
				continue;
			now[i] = 1;
			if (c[i].active)
				add_round(cur, c[i].cur, -1);
			c[i].active = 0;
			c[i].cur = step_next(&plans[idx[i]], &c[i]);
			if (!c[i].cur) {
				c[i].done = 1;
				c[i].end = t;
				continue;
			}
			c[i].active = 1;
			c[i].steps++;
			add_round(cur, c[i].cur, 1);
		}
		for (size_t i = 0; i < m; i++)
			if (now[i] && c[i].active)
				c[i].next = t + c[i].cur->fixed + busiest(f, cur, c[i].cur);
		free(now);
	}
	for (size_t i = 0; i < m; i++) {
		end[i] = c[i].end;
		steps[i] = c[i].steps;
	}
	free(c);
	/* what subtraction left behind is rounding, not load */
	memset(cur, 0, (size_t)(2 * f->ne) * sizeof *cur);
}

static int check_jobs(const fx_fabric *f, const fx_job *jobs, size_t n, fx_diag *d)
{
	if (!f || !fx_fabric_built(f))
		return fx_diag_error(d, NULL, "fx_jobs_run: no fabric");
	if (n && !jobs)
		return fx_diag_error(d, NULL, "fx_jobs_run: %zu jobs but no list of them", n);
	if (n > FX_JOBS_MAX)
		return fx_diag_error(d, NULL, "fx_jobs_run: %zu jobs, at most %d", n, FX_JOBS_MAX);
	uint8_t *seen = fx_xcalloc((size_t)(f->ndev ? f->ndev : 1), 1);
	int rc = 0;
	for (size_t j = 0; j < n && rc == 0; j++) {
		if (!jobs[j].devices) {
			rc = fx_diag_error(d, NULL, "fx_jobs_run: job '%s' is not placed", jobs[j].name);
			break;
		}
		for (int64_t i = 0; i < fx_job_devices(&jobs[j]) && rc == 0; i++) {
			int64_t v = jobs[j].devices[i];
			if (v < 0 || v >= f->ndev || seen[v])
				rc = fx_diag_error(d, NULL, "fx_jobs_run: job '%s' rank %lld on device %lld, "
						   "%s", jobs[j].name, (long long)i, (long long)v,
						   v < 0 || v >= f->ndev ? "not a device" : "taken twice");
			else
				seen[v] = 1;
		}
	}
	free(seen);
	return rc;
}

/* Shared links and switches from the jobs' totals. */
static void find_shared(const fx_fabric *f, size_t n, fx_jobs_result *out)
{
	size_t nl = (size_t)(2 * f->ne);
	uint64_t *vmask = fx_xcalloc((size_t)(f->nv ? f->nv : 1), sizeof *vmask);
	for (size_t l = 0; l < nl; l++) {
		int users = 0;
		int64_t e = (int64_t)l / 2;
		int64_t head = (int64_t)f->ends[l % 2 ? 2 * e : 2 * e + 1];
		for (size_t j = 0; j < n; j++)
			if (out->link_bytes[j * nl + l] > 0) {
				users++;
				vmask[head] |= (uint64_t)1 << j;
			}
		if (users < 2)
			continue;
		out->shared = fx_xrealloc(out->shared, (out->nshared + 1) * sizeof *out->shared);
		out->shared_bytes = fx_xrealloc(out->shared_bytes,
						(out->nshared + 1) * n * sizeof *out->shared_bytes);
		out->shared[out->nshared] = (int64_t)l;
		for (size_t j = 0; j < n; j++)
			out->shared_bytes[out->nshared * n + j] = out->link_bytes[j * nl + l];
		out->nshared++;
	}
	for (int64_t v = 0; v < f->nv; v++)
		if (f->v[v].type == FX_V_SWITCH && (vmask[v] & (vmask[v] - 1))) {
			out->shared_sw = fx_xrealloc(out->shared_sw,
						     (out->nshared_sw + 1) * sizeof *out->shared_sw);
			out->shared_sw[out->nshared_sw++] = v;
		}
	free(vmask);
}

int fx_jobs_run(const fx_fabric *f, const fx_job *jobs, size_t n, const fx_coll_time *tm,
		fx_jobs_result *out, fx_diag *d)
{
	if (!out || !tm)
		return fx_diag_error(d, NULL, "fx_jobs_run: no %s", out ? "time model" : "result");
	memset(out, 0, sizeof *out);
	if (check_jobs(f, jobs, n, d))
		return -1;
	size_t nl = (size_t)(2 * f->ne);
	fx_router *rt = fx_router_new(f, 0);
	if (!rt)
		return fx_diag_error(d, NULL, "fx_jobs_run: no router for the fabric");
	double *load = fx_xcalloc(nl ? nl : 1, sizeof *load);
	jplan *plans = fx_xcalloc(n ? n : 1, sizeof *plans);
	int rc = 0;
	double steps = 0;
	for (size_t j = 0; j < n && rc == 0; j++) {
		rc = plan_job(f, rt, tm, &jobs[j], load, &plans[j], d);
		steps += plans[j].steps;
	}
	/* alone and together: each step once per run */
	if (rc == 0 && 2 * steps > JOBS_MAX_STEPS)
		rc = fx_diag_undecided(d, "the jobs take %.3g steps in all (rounds x repeats x "
				       "calls), past fabricx's limit of %.3g (fewer calls per job)",
				       steps, JOBS_MAX_STEPS / 2);
	if (rc == 0) {
		out->njobs = n;
		out->alone = fx_xcalloc(n ? n : 1, sizeof *out->alone);
		out->together = fx_xcalloc(n ? n : 1, sizeof *out->together);
		out->steps = fx_xcalloc(n ? n : 1, sizeof *out->steps);
		out->link_bytes = fx_xcalloc((n ? n : 1) * (nl ? nl : 1), sizeof *out->link_bytes);
		size_t *idx = fx_xcalloc(n ? n : 1, sizeof *idx);
		double *end = fx_xcalloc(n ? n : 1, sizeof *end);
		int64_t *st = fx_xcalloc(n ? n : 1, sizeof *st);
		for (size_t j = 0; j < n; j++) {
			idx[0] = j;
			simulate(f, plans, jobs, idx, 1, load, end, st);
			out->alone[j] = end[0] - jobs[j].start;
		}
		for (size_t j = 0; j < n; j++)
			idx[j] = j;
		simulate(f, plans, jobs, idx, n, load, end, out->steps);
		for (size_t j = 0; j < n; j++) {
			out->together[j] = end[j] - jobs[j].start;
			const jplan *p = &plans[j];
			for (int q = 0; q < p->nph; q++)
				for (size_t i = p->ph[q].first; i < p->ph[q].first + p->ph[q].n; i++)
					for (size_t u = 0; u < p->r[i].n; u++)
						out->link_bytes[j * nl + (size_t)p->r[i].link[u]] +=
							p->r[i].bytes[u] * (double)p->r[i].repeat *
							(double)p->ph[q].count;
		}
		find_shared(f, n, out);
		free(idx);
		free(end);
		free(st);
	}
	for (size_t j = 0; j < n; j++)
		plan_release(&plans[j]);
	free(plans);
	free(load);
	fx_router_free(rt);
	if (rc)
		fx_jobs_result_release(out);
	return rc;
}

void fx_jobs_result_release(fx_jobs_result *r)
{
	if (!r)
		return;
	free(r->alone);
	free(r->together);
	free(r->steps);
	free(r->shared);
	free(r->shared_bytes);
	free(r->shared_sw);
	free(r->link_bytes);
	memset(r, 0, sizeof *r);
}

int fx_jobs_pack(const fx_fabric *f, fx_job *jobs, size_t n, fx_diag *d)
{
	if (!f || !fx_fabric_built(f) || (n && !jobs))
		return fx_diag_error(d, NULL, "fx_jobs_pack: no %s", jobs ? "fabric" : "jobs");
	uint8_t *taken = fx_xcalloc((size_t)(f->ndev ? f->ndev : 1), 1);
	for (size_t j = 0; j < n; j++)
		for (int64_t i = 0; jobs[j].devices && i < fx_job_devices(&jobs[j]); i++)
			if (jobs[j].devices[i] >= 0 && jobs[j].devices[i] < f->ndev)
				taken[jobs[j].devices[i]] = 1;
	int64_t v = 0;
	int rc = 0;
	for (size_t j = 0; j < n && rc == 0; j++) {
		if (jobs[j].devices)
			continue;
		int64_t need = fx_job_devices(&jobs[j]);
		int64_t *dev = fx_xmalloc((size_t)need * sizeof *dev);
		int64_t got = 0;
		for (; v < f->ndev && got < need; v++)
			if (!taken[v] && !(f->vdown && f->vdown[v]))
				dev[got++] = v;
		if (got < need) {
			free(dev);
			rc = fx_diag_infeasible(d, "job '%s' needs %lld devices, and only %lld are left "
						"after the jobs before it", jobs[j].name,
						(long long)need, (long long)got);
			break;
		}
		jobs[j].devices = dev;
	}
	free(taken);
	return rc;
}
