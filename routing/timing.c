/*
 * The flow-level timing modes over a schedule (routing.h fx_timing):
 * maxmin times each round by the flow simulation (routing/flowsim.c) with
 * every flow released at the round's start; events runs every round's
 * repetitions as one dependency graph.
 *
 * The events rule, the same for every schedule (generators list rounds,
 * not data): a flow from rank s in round instance k (round i, repetition
 * j) is released when
 *   - every flow into s of s's latest earlier instance in which s received
 *     anything has arrived (what s forwards or reduces came with them:
 *     a ring step forwards the block of the step before; a tree vertex
 *     sends a chunk up once its children's are in), and
 *   - the previous flow from s to the same destination has left s (one
 *     connection per peer, sending in order: a chain's root sends chunk
 *     c + 1 as chunk c's last byte goes; latency overlaps).
 * Flows that depend on nothing start at 0.  A flow shares the links at
 * once and arrives alpha (the per-message overhead) + its route's latency
 * (alpha alone when alpha stands for the path, includes_path_latency) +
 * beta per software routing stage of its round after its last byte left
 * (the latency trails the bytes, as data on a wire does; for a flow alone
 * the same time as latency first).  The collective ends when its last
 * flow arrives.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/limits.h"
#include "../core/xalloc.h"
#include "internal.h"

/* ---- routes per pair ---- */

void fx_paths_init(fx_paths *P, const fx_fabric *f)
{
	memset(P, 0, sizeof *P);
	P->cap = 2;
	P->off = fx_xcalloc(P->cap, sizeof *P->off);
	P->lat = fx_xcalloc(P->cap, sizeof *P->lat);
	P->load = fx_xcalloc((size_t)(2 * f->ne) + 1, sizeof *P->load);
}

void fx_paths_release(fx_paths *P)
{
	free(P->off);
	free(P->link);
	free(P->frac);
	free(P->lat);
	free(P->key);
	free(P->val);
	free(P->load);
	memset(P, 0, sizeof *P);
}

static size_t hash_slot(int64_t key, size_t cap)
{
	uint64_t h = (uint64_t)key * 0x9E3779B97F4A7C15ULL;
	return (size_t)(h >> 17) & (cap - 1);
}

static void hash_grow(fx_paths *P)
{
	size_t cap = P->hcap ? 2 * P->hcap : 1024;
	int64_t *key = fx_xmalloc(cap * sizeof *key);
	int32_t *val = fx_xmalloc(cap * sizeof *val);
	for (size_t i = 0; i < cap; i++)
		key[i] = -1;
	for (size_t i = 0; i < P->hcap; i++)
		if (P->key[i] >= 0) {
			size_t h = hash_slot(P->key[i], cap);
			while (key[h] >= 0)
				h = (h + 1) & (cap - 1);
			key[h] = P->key[i];
			val[h] = P->val[i];
		}
	free(P->key);
	free(P->val);
	P->key = key;
	P->val = val;
	P->hcap = cap;
}

int32_t fx_paths_get(fx_paths *P, fx_router *r, int64_t src, int64_t dst, fx_diag *d)
{
	if (2 * (P->hn + 1) > P->hcap)
		hash_grow(P);
	int64_t key = src * ((int64_t)1 << 31) + dst;
	size_t h = hash_slot(key, P->hcap);
	while (P->key[h] >= 0) {
		if (P->key[h] == key)
			return P->val[h];
		h = (h + 1) & (P->hcap - 1);
	}
	fx_flow fl = {src, dst, 1.0};
	fx_path_stats st;
	fx_router_summarise(r, 0);
	if (fx_router_add(r, &fl, 1, P->load, &st, d))
		return -1;
	const int64_t *used;
	size_t nu = fx_router_used(r, &used);
	size_t cap = P->cap;  /* off and lat grow alike */
	P->off = fx_xgrow(P->off, &cap, P->n + 2, sizeof *P->off);
	cap = P->cap;
	P->lat = fx_xgrow(P->lat, &cap, P->n + 2, sizeof *P->lat);
	P->cap = cap;
	size_t capl = P->capl;
	P->link = fx_xgrow(P->link, &capl, P->nl + nu, sizeof *P->link);
	capl = P->capl;
	P->frac = fx_xgrow(P->frac, &capl, P->nl + nu, sizeof *P->frac);
	P->capl = capl;
	for (size_t u = 0; u < nu; u++) {
		P->link[P->nl] = used[u];
		P->frac[P->nl++] = P->load[used[u]];
		P->load[used[u]] = 0;
	}
	P->lat[P->n] = st.max_latency;
	P->off[P->n + 1] = P->nl;
	int32_t id = (int32_t)P->n++;
	P->key[h] = key;
	P->val[h] = id;
	P->hn++;
	return id;
}

/* ---- a round's flows, listed, all-pairs and all-to-alls among sets
 * included ---- */

typedef struct round_list {
	fx_flow *fl;
	size_t n, cap;
	fx_flow *buf;   /* shift rounds' listing */
	size_t bufcap;
} round_list;

static void list_add(round_list *L, int64_t a, int64_t b, double bytes)
{
	if (a == b || bytes <= 0)
		return;
	L->fl = fx_xgrow(L->fl, &L->cap, L->n + 1, sizeof *L->fl);
	L->fl[L->n++] = (fx_flow){a, b, bytes};
}

/* The flows of round rd, or the count alone (count_only). */
static double round_flows(const fx_fabric *f, const fx_round *rd, round_list *L, int count_only)
{
	double n = (double)(rd->shift_ranks ? rd->shift_n : (int64_t)rd->n);
	if (rd->all_pairs > 0)
		n += (double)f->ndev * (double)(f->ndev - 1);
	for (size_t k = 0; k < rd->namong; k++)
		n += (double)rd->among[k].n * (double)(rd->among[k].n - 1);
	if (count_only)
		return n;
	L->n = 0;
	size_t nf;
	const fx_flow *fl = fx_round_flows(rd, &L->buf, &L->bufcap, &nf);
	for (size_t k = 0; k < nf; k++)
		list_add(L, fl[k].src, fl[k].dst, fl[k].bytes);
	if (rd->all_pairs > 0)
		for (int64_t a = 0; a < f->ndev; a++)
			for (int64_t b = 0; b < f->ndev; b++)
				list_add(L, a, b, rd->all_pairs);
	for (size_t k = 0; k < rd->namong; k++) {
		const fx_among *am = &rd->among[k];
		for (int64_t a = 0; a < am->n; a++)
			for (int64_t b = 0; b < am->n; b++)
				if (a != b)
					list_add(L, am->dev[a], am->dev[b], am->bytes);
	}
	return (double)L->n;
}

static double delay_of(const fx_paths *P, int32_t path, const fx_coll_time *tm, double stage_s,
		       int with_alpha)
{
	double d = tm->alpha_replaces_latency ? 0 : P->lat[path];
	if (with_alpha || tm->alpha_replaces_latency)
		d += tm->alpha;
	return d + stage_s;
}

static int too_many(const fx_coll_time *tm, double n, fx_diag *d)
{
	return fx_diag_undecided(d, "timing %s holds %.3g flows at once, past fabricx's limit of "
				 "%.3g (timing bound, fewer ranks, or an algorithm with fewer "
				 "rounds)", fx_timing_name(tm->timing), n, FX_MAX_TIMING_FLOWS);
}

/* ---- maxmin: each round on its own ---- */

static int run_maxmin(const fx_fabric *f, fx_router *r, const fx_sched *s, const fx_coll_time *tm,
		      fx_coll_result *out, fx_diag *d)
{
	const fx_wafer_state *wafer = fx_fabric_wafer(f);
	double beta = wafer ? wafer->routing_latency : 0;
	fx_paths P;
	fx_paths_init(&P, f);
	round_list L = {0};
	int rc = 0;
	out->time = 0;
	for (size_t i = 0; i < s->n && rc == 0; i++) {
		const fx_round *rd = &s->r[i];
		double nflow = round_flows(f, rd, &L, 1);
		if (nflow > FX_MAX_TIMING_FLOWS) {
			rc = too_many(tm, nflow, d);
			break;
		}
		round_flows(f, rd, &L, 0);
		/* rounds of distinct pairs (a pairwise all-to-all's n - 1) would
		 * keep n^2 routes: past a million, start the cache again */
		if (P.n > (1u << 20)) {
			fx_paths_release(&P);
			fx_paths_init(&P, f);
		}
		fx_fsim *sim = fx_fsim_new(f, &P, tm->sharing == FX_SHARING_RTT);
		fx_fsim_reserve(sim, L.n);
		for (size_t k = 0; k < L.n && rc == 0; k++) {
			int32_t p = fx_paths_get(&P, r, L.fl[k].src, L.fl[k].dst, d);
			if (p < 0) {
				rc = -1;
				break;
			}
			int32_t id = fx_fsim_add(sim, p, L.fl[k].bytes, delay_of(&P, p, tm, 0, 0));
			fx_fsim_release(sim, id, 0);
		}
		while (rc == 0 && fx_fsim_step(sim) >= 0)
			;
		if (rc == 0 && fx_fsim_finished(sim) != fx_fsim_flows(sim))
			rc = fx_diag_internal(d, "timing maxmin: %zu of round %zu's %zu flows never "
					      "finished", fx_fsim_flows(sim) - fx_fsim_finished(sim),
					      i + 1, fx_fsim_flows(sim));
		double t = fx_fsim_makespan(sim);
		fx_fsim_free(sim);
		fx_round_result *rr = &out->per_round[i];
		rr->time = (tm->alpha_replaces_latency ? 0 : tm->alpha) + t + (double)rd->stages * beta;
		out->time += rr->time * (double)rd->repeat;
	}
	free(L.fl);
	free(L.buf);
	fx_paths_release(&P);
	return rc;
}

/* ---- events: the whole schedule as one graph ---- */

/* Last flow per (source, destination), open addressing. */
typedef struct pairmap {
	int64_t *key;
	int32_t *val;
	size_t cap, n;
} pairmap;

static int32_t *pair_slot(pairmap *m, int64_t key)
{
	if (2 * (m->n + 1) > m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 1024;
		int64_t *k2 = fx_xmalloc(cap * sizeof *k2);
		int32_t *v2 = fx_xmalloc(cap * sizeof *v2);
		for (size_t i = 0; i < cap; i++)
			k2[i] = -1;
		for (size_t i = 0; i < m->cap; i++)
			if (m->key[i] >= 0) {
				size_t h = hash_slot(m->key[i], cap);
				while (k2[h] >= 0)
					h = (h + 1) & (cap - 1);
				k2[h] = m->key[i];
				v2[h] = m->val[i];
			}
		free(m->key);
		free(m->val);
		m->key = k2;
		m->val = v2;
		m->cap = cap;
	}
	size_t h = hash_slot(key, m->cap);
	while (m->key[h] >= 0 && m->key[h] != key)
		h = (h + 1) & (m->cap - 1);
	if (m->key[h] < 0) {
		m->key[h] = key;
		m->val[h] = -1;
		m->n++;
	}
	return &m->val[h];
}

typedef struct evgraph {
	int32_t *gate_into;   /* per flow: the gate it counts towards */
	int32_t *wait_next;   /* per flow: next flow waiting on the same gate */
	int32_t *fifo_next;   /* per flow: the next flow on its pair */
	uint8_t *pending;     /* per flow: dependencies not yet met */
	int32_t *round;       /* per flow: its round */
	size_t capf;
	int32_t *gleft;       /* per gate: flows into it not yet arrived */
	int32_t *gwait;       /* per gate: first flow waiting on it */
	size_t ng, capg;
} evgraph;

static int run_events(const fx_fabric *f, fx_router *r, const fx_sched *s, const fx_coll_time *tm,
		      fx_coll_result *out, fx_diag *d)
{
	const fx_wafer_state *wafer = fx_fabric_wafer(f);
	double beta = wafer ? wafer->routing_latency : 0;
	double total = 0;
	round_list L = {0};
	for (size_t i = 0; i < s->n; i++)
		total += round_flows(f, &s->r[i], &L, 1) * (double)s->r[i].repeat;
	if (total > FX_MAX_TIMING_FLOWS)
		return too_many(tm, total, d);
	fx_paths P;
	fx_paths_init(&P, f);
	fx_fsim *sim = fx_fsim_new(f, &P, tm->sharing == FX_SHARING_RTT);
	fx_fsim_set_trailing(sim, 1);
	fx_fsim_reserve(sim, (size_t)total);
	evgraph g = {0};
	size_t nt = (size_t)total + 1;
	g.gate_into = fx_xmalloc(nt * sizeof *g.gate_into);
	g.wait_next = fx_xmalloc(nt * sizeof *g.wait_next);
	g.fifo_next = fx_xmalloc(nt * sizeof *g.fifo_next);
	g.pending = fx_xcalloc(nt, 1);
	g.round = fx_xmalloc(nt * sizeof *g.round);
	int32_t *last_gate = fx_xmalloc((size_t)f->nv * sizeof *last_gate);
	int32_t *cur_gate = fx_xmalloc((size_t)f->nv * sizeof *cur_gate);
	int64_t *stamp = fx_xmalloc((size_t)f->nv * sizeof *stamp);
	int64_t *got = fx_xmalloc((size_t)f->nv * sizeof *got);  /* ranks given a gate this instance */
	for (int64_t v = 0; v < f->nv; v++) {
		last_gate[v] = cur_gate[v] = -1;
		stamp[v] = -1;
	}
	pairmap pm = {0};
	int rc = 0;
	int64_t inst = 0;
	for (size_t i = 0; i < s->n && rc == 0; i++) {
		const fx_round *rd = &s->r[i];
		round_flows(f, rd, &L, 0);
		int32_t *pid = fx_xmalloc((L.n ? L.n : 1) * sizeof *pid);
		for (size_t k = 0; k < L.n && rc == 0; k++)
			if ((pid[k] = fx_paths_get(&P, r, L.fl[k].src, L.fl[k].dst, d)) < 0)
				rc = -1;
		for (int64_t rep = 0; rep < rd->repeat && rc == 0; rep++, inst++) {
			size_t ngot = 0;
			for (size_t k = 0; k < L.n; k++) {
				const fx_flow *fl = &L.fl[k];
				int32_t id = fx_fsim_add(sim, pid[k], fl->bytes,
							 delay_of(&P, pid[k], tm, (double)rd->stages * beta, 1));
				g.round[id] = (int32_t)i;
				g.wait_next[id] = g.fifo_next[id] = -1;
				int32_t gt = last_gate[fl->src];
				if (gt >= 0) {
					g.pending[id]++;
					g.wait_next[id] = g.gwait[gt];
					g.gwait[gt] = id;
				}
				int32_t *prev = pair_slot(&pm, fl->src * ((int64_t)1 << 31) + fl->dst);
				if (*prev >= 0) {
					g.pending[id]++;
					g.fifo_next[*prev] = id;
				}
				*prev = id;
				if (stamp[fl->dst] != inst) {
					stamp[fl->dst] = inst;
					size_t cg = g.capg;  /* gleft and gwait grow alike */
					g.gleft = fx_xgrow(g.gleft, &cg, g.ng + 1, sizeof *g.gleft);
					cg = g.capg;
					g.gwait = fx_xgrow(g.gwait, &cg, g.ng + 1, sizeof *g.gwait);
					g.capg = cg;
					g.gleft[g.ng] = 0;
					g.gwait[g.ng] = -1;
					cur_gate[fl->dst] = (int32_t)g.ng++;
					got[ngot++] = fl->dst;
				}
				g.gate_into[id] = cur_gate[fl->dst];
				g.gleft[cur_gate[fl->dst]]++;
			}
			for (size_t k = 0; k < ngot; k++)
				last_gate[got[k]] = cur_gate[got[k]];
		}
		free(pid);
	}
	double *round_end = fx_xcalloc(s->n ? s->n : 1, sizeof *round_end);
	if (rc == 0) {
		size_t n = fx_fsim_flows(sim);
		for (size_t id = 0; id < n; id++)
			if (g.pending[id] == 0)
				fx_fsim_release(sim, (int32_t)id, 0);
		while (fx_fsim_step(sim) >= 0) {
			size_t nd;
			const int32_t *done = fx_fsim_done(sim, &nd);
			double now = fx_fsim_now(sim);
			for (size_t k = 0; k < nd; k++) {
				int32_t id = done[k];
				if (now > round_end[g.round[id]])
					round_end[g.round[id]] = now;
				int32_t gt = g.gate_into[id];
				if (--g.gleft[gt] == 0)
					for (int32_t w = g.gwait[gt]; w >= 0; w = g.wait_next[w])
						if (--g.pending[w] == 0)
							fx_fsim_release(sim, w, now);
			}
			const int32_t *sent = fx_fsim_sent(sim, &nd);
			for (size_t k = 0; k < nd; k++) {
				int32_t nx = g.fifo_next[sent[k]];
				if (nx >= 0 && --g.pending[nx] == 0)
					fx_fsim_release(sim, nx, now);
			}
		}
		if (fx_fsim_finished(sim) != fx_fsim_flows(sim))
			rc = fx_diag_internal(d, "timing events: %zu of %zu flows never finished (a "
					      "dependency never met)", fx_fsim_flows(sim) -
					      fx_fsim_finished(sim), fx_fsim_flows(sim));
		out->time = fx_fsim_makespan(sim);
		double front = 0;
		for (size_t i = 0; i < s->n; i++) {
			double inc = round_end[i] > front ? round_end[i] - front : 0;
			if (round_end[i] > front)
				front = round_end[i];
			out->per_round[i].time = s->r[i].repeat ? inc / (double)s->r[i].repeat : 0;
		}
	}
	free(round_end);
	free(g.gate_into);
	free(g.wait_next);
	free(g.fifo_next);
	free(g.pending);
	free(g.round);
	free(g.gleft);
	free(g.gwait);
	free(last_gate);
	free(cur_gate);
	free(stamp);
	free(got);
	free(pm.key);
	free(pm.val);
	free(L.fl);
	free(L.buf);
	fx_fsim_free(sim);
	fx_paths_release(&P);
	return rc;
}

int fx_timing_check(const fx_fabric *f, const fx_sched *s, const fx_coll_time *tm, fx_diag *d)
{
	/* The flow modes share a bundle as one link of its summed bandwidth and
	 * charge one overhead a round: what per-cable hashing and a scale-out
	 * overhead change is timed by bound alone, so they are refused here
	 * rather than silently dropped. */
	if (tm->timing != FX_TIMING_BOUND && (tm->policy == FX_ROUTE_DMODK || tm->policy == FX_ROUTE_SMODK))
		return fx_diag_error(d, NULL, "timing %s shares each bundle as one link; routing %s loads "
				     "its cables one by one and is timed by 'bound' only",
				     fx_timing_name(tm->timing), fx_route_policy_name(tm->policy));
	if (tm->timing != FX_TIMING_BOUND && tm->network_alpha_set)
		return fx_diag_error(d, NULL, "timing %s charges 'collective.overhead' to every round; "
				     "'collective.network_overhead' is charged by 'bound' only",
				     fx_timing_name(tm->timing));
	round_list L = {0};
	double total = 0, most = 0;
	for (size_t i = 0; i < s->n; i++) {
		double n = round_flows(f, &s->r[i], &L, 1);
		total += n * (double)s->r[i].repeat;
		if (n > most)
			most = n;
	}
	double held = tm->timing == FX_TIMING_EVENTS ? total : tm->timing == FX_TIMING_MAXMIN ? most : 0;
	return held > FX_MAX_TIMING_FLOWS ? too_many(tm, held, d) : 0;
}

int fx_timing_run(const fx_fabric *f, fx_router *r, const fx_sched *s, const fx_coll_time *tm,
		  fx_coll_result *out, fx_diag *d)
{
	out->timing = tm->timing;
	out->sharing = tm->sharing;
	if (tm->timing == FX_TIMING_MAXMIN)
		return run_maxmin(f, r, s, tm, out, d);
	if (tm->timing == FX_TIMING_EVENTS)
		return run_events(f, r, s, tm, out, d);
	return 0;
}

const char *fx_timing_name(fx_timing t)
{
	return t == FX_TIMING_MAXMIN ? "maxmin" : t == FX_TIMING_EVENTS ? "events" : "bound";
}

int fx_timing_parse(const char *s, fx_timing *out)
{
	if (strcmp(s, "bound") == 0)
		*out = FX_TIMING_BOUND;
	else if (strcmp(s, "maxmin") == 0)
		*out = FX_TIMING_MAXMIN;
	else if (strcmp(s, "events") == 0)
		*out = FX_TIMING_EVENTS;
	else
		return -1;
	return 0;
}

const char *fx_sharing_name(fx_sharing s)
{
	return s == FX_SHARING_RTT ? "rtt" : "fair";
}

int fx_sharing_parse(const char *s, fx_sharing *out)
{
	if (strcmp(s, "fair") == 0)
		*out = FX_SHARING_FAIR;
	else if (strcmp(s, "rtt") == 0)
		*out = FX_SHARING_RTT;
	else
		return -1;
	return 0;
}
