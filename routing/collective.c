/*
 * Collectives: the registry of pattern x algorithm, and the time model that
 * routes each round on the real fabric.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/limits.h"
#include "../core/units.h"
#include "../core/xalloc.h"
#include "internal.h"

const fx_coll_algo *const fx_coll_algos[] = {
	&fx_ar_ring, &fx_ar_tree, &fx_ar_rhd, &fx_ar_swing, &fx_ar_torus, &fx_ar_hier,
	&fx_ar_dbtree, &fx_ar_swing_torus, &fx_ar_rec_torus, &fx_ar_swing_torus_lat,
	&fx_ar_rec_torus_lat,
	&fx_rs_ring, &fx_rs_rec, &fx_rs_swing, &fx_rs_swing_torus, &fx_rs_rec_torus,
	&fx_ag_ring, &fx_ag_rec, &fx_ag_swing, &fx_ag_swing_torus, &fx_ag_rec_torus,
	&fx_a2a_direct, &fx_a2a_pairwise,
	&fx_bc_tree, &fx_bc_chain,
	&fx_rd_tree, &fx_rd_chain,
	&fx_ar_pipeline, &fx_ar_mesh_ring, &fx_ar_ktree,
	&fx_gemm_cannon, &fx_gemm_summa, &fx_gemm_meshgemm,
	NULL,
};

const fx_coll_algo *fx_coll_find(const char *pattern, const char *algo)
{
	if (!pattern)
		return NULL;
	for (const fx_coll_algo *const *a = fx_coll_algos; *a; a++)
		if (strcmp((*a)->pattern, pattern) == 0 && (!algo || strcmp((*a)->name, algo) == 0))
			return *a;
	return NULL;
}

void fx_sched_release(fx_sched *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->r[i].flows);
		for (size_t k = 0; k < s->r[i].namong; k++)
			free(s->r[i].among[k].dev);
		free(s->r[i].among);
	}
	free(s->r);
	free(s->ranks);
	memset(s, 0, sizeof *s);
}

fx_round *fx_sched_round(fx_sched *s, int64_t repeat, const char *label)
{
	s->r = fx_xgrow(s->r, &s->cap, s->n + 1, sizeof *s->r);
	fx_round *r = &s->r[s->n++];
	memset(r, 0, sizeof *r);
	r->repeat = repeat;
	snprintf(r->label, sizeof r->label, "%s", label);
	return r;
}

void fx_sched_shift(fx_sched *s, fx_round *r, const fx_coll_req *q, int64_t k, double bytes)
{
	if (!s->ranks) {
		s->ranks = fx_xmalloc((size_t)(q->n ? q->n : 1) * sizeof *s->ranks);
		memcpy(s->ranks, q->ranks, (size_t)q->n * sizeof *s->ranks);
	}
	r->shift_ranks = s->ranks;
	r->shift_n = q->n;
	r->shift = k;
	r->shift_bytes = bytes;
}

/* As fx_sched_flow lists them: rank indexes equal or no bytes, no flow. */
const fx_flow *fx_round_flows(const fx_round *rd, fx_flow **buf, size_t *cap, size_t *n)
{
	if (!rd->shift_ranks) {
		*n = rd->n;
		return rd->flows;
	}
	int64_t m = rd->shift_n;
	*buf = fx_xgrow(*buf, cap, (size_t)(m ? m : 1), sizeof **buf);
	size_t c = 0;
	for (int64_t i = 0; i < m && rd->shift_bytes > 0; i++) {
		int64_t b = (i + rd->shift) % m;
		if (b == i)
			continue;
		(*buf)[c].src = rd->shift_ranks[i];
		(*buf)[c].dst = rd->shift_ranks[b];
		(*buf)[c++].bytes = rd->shift_bytes;
	}
	*n = c;
	return *buf;
}

double fx_sched_nflows(const fx_sched *s)
{
	double n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += (double)(s->r[i].shift_ranks ? s->r[i].shift_n : (int64_t)s->r[i].n);
	return n;
}

void fx_sched_reserve(fx_round *r, size_t n)
{
	r->flows = fx_xgrow(r->flows, &r->cap, r->n + n, sizeof *r->flows);
}

void fx_sched_flow(fx_round *r, const fx_coll_req *q, int64_t a, int64_t b, double bytes)
{
	if (a == b || bytes <= 0)
		return;
	r->flows = fx_xgrow(r->flows, &r->cap, r->n + 1, sizeof *r->flows);
	r->flows[r->n].src = q->ranks[a];
	r->flows[r->n].dst = q->ranks[b];
	r->flows[r->n].bytes = bytes;
	r->n++;
}

/* Appends an all-to-all among n devices (a copy of dev). */
static void round_among(fx_round *r, const int64_t *dev, int64_t n, double bytes)
{
	r->among = fx_xrealloc(r->among, (r->namong + 1) * sizeof *r->among);
	fx_among *a = &r->among[r->namong++];
	a->dev = fx_xmalloc((size_t)(n ? n : 1) * sizeof *a->dev);
	memcpy(a->dev, dev, (size_t)n * sizeof *dev);
	a->n = n;
	a->bytes = bytes;
}

void fx_sched_among(fx_round *r, const fx_coll_req *q, double bytes)
{
	if (q->n > 1 && bytes > 0)
		round_among(r, q->ranks, q->n, bytes);
}

double fx_flows_1n(const fx_fabric *f, const fx_coll_req *q)
{
	(void)f;
	return (double)q->n;
}

double fx_flows_2n(const fx_fabric *f, const fx_coll_req *q)
{
	return 2 * fx_flows_1n(f, q);
}

double fx_flows_4n(const fx_fabric *f, const fx_coll_req *q)
{
	return 4 * fx_flows_1n(f, q);
}

double fx_flows_6n(const fx_fabric *f, const fx_coll_req *q)
{
	return 6 * fx_flows_1n(f, q);
}

#define WIRES_MAX_RANKS 16
#define WIRES_PASSES 20

/* The schedule's summed busiest-link seconds (each round x its repeats),
 * latency left out: what placing ranks on the links can change. */
static double sched_link_time(fx_router *r, const fx_sched *s, double *load)
{
	double sum = 0;
	fx_flow *buf = NULL;
	size_t cap = 0, nf;
	for (size_t i = 0; i < s->n; i++) {
		const fx_flow *fl = fx_round_flows(&s->r[i], &buf, &cap, &nf);
		sum += fx_router_busiest(r, fl, nf, load, NULL) * (double)s->r[i].repeat;
	}
	free(buf);
	return sum;
}

void fx_sched_over_wires(const fx_fabric *f, const fx_coll_req *q, fx_sched_fill fill,
			 const void *ctx, fx_sched *s)
{
	int64_t n = q->n;
	int direct = 0;
	if (fx_fabric_is(f, FX_KIND_EXPLICIT) && n >= 3 && n <= WIRES_MAX_RANKS)
		for (int64_t e = 0; e < f->ne && !direct; e++)
			direct = f->ends[2 * e + 1] < f->ndev;  /* a device-device link */
	if (!direct) {
		fill(s, q, ctx);
		return;
	}
	fx_router *r = fx_router_new(f, 0);
	double *load = fx_xcalloc((size_t)(2 * f->ne + 1), sizeof *load);
	int64_t *ranks = fx_xmalloc((size_t)n * sizeof *ranks);
	memcpy(ranks, q->ranks, (size_t)n * sizeof *ranks);
	fx_coll_req x = *q;
	x.ranks = ranks;
	fx_sched t = {0};
	fill(&t, &x, ctx);
	double best = sched_link_time(r, &t, load), start = best;
	fx_sched_release(&t);
	int moved = 0;
	for (int pass = 0, again = 1; pass < WIRES_PASSES && again; pass++) {
		again = 0;
		for (int64_t i = 0; i < n; i++)
			for (int64_t j = i + 1; j < n; j++) {
				int64_t v = ranks[i];
				ranks[i] = ranks[j];
				ranks[j] = v;
				fill(&t, &x, ctx);
				double c = sched_link_time(r, &t, load);
				fx_sched_release(&t);
				if (c < best * (1 - 1e-12)) {
					best = c;
					again = moved = 1;
				} else {
					ranks[j] = ranks[i];
					ranks[i] = v;
				}
			}
	}
	fill(s, &x, ctx);
	if (moved) {
		char b[24];
		size_t len = (size_t)snprintf(s->plan, sizeof s->plan, "ranks placed on the links "
					      "(busiest links' time %.3g of rank order's); device of rank 0..%lld:",
					      best / start, (long long)(n - 1));
		for (int64_t i = 0; i < n && len < sizeof s->plan; i++)
			len += (size_t)snprintf(s->plan + len, sizeof s->plan - len, " %s",
						fx_fabric_vertex_name(f, ranks[i], b, sizeof b));
	}
	free(ranks);
	free(load);
	fx_router_free(r);
}

int fx_is_pow2(int64_t n)
{
	return n > 0 && (n & (n - 1)) == 0;
}

int fx_log2(int64_t n)
{
	int l = 0;
	while ((int64_t)1 << (l + 1) <= n)
		l++;
	return l;
}

int fx_need_pow2(const fx_coll_req *q, fx_diag *d)
{
	return fx_diag_error(d, NULL, "%s/%s needs a power-of-two number of ranks, got %lld "
			     "(use --ranks)", q->pattern, q->algo, (long long)q->n);
}

/* nccl-tests (src/, the *GetBw functions): allreduce 2(n-1)/n; reduce-scatter,
 * all-gather, all-to-all (n-1)/n; broadcast and reduce 1. */
double fx_coll_bus_factor(const char *pattern, int64_t n)
{
	if (!pattern)
		return NAN;
	if (n < 2)
		return 0;
	if (strcmp(pattern, "allreduce") == 0)
		return 2.0 * (double)(n - 1) / (double)n;
	if (strcmp(pattern, "reduce-scatter") == 0 || strcmp(pattern, "all-gather") == 0 ||
	    strcmp(pattern, "all-to-all") == 0)
		return (double)(n - 1) / (double)n;
	return 1;
}

void fx_coll_result_release(fx_coll_result *res)
{
	if (!res)
		return;
	free(res->per_round);
	free(res->link_bytes);
	free(res->link_busy);
	memset(res, 0, sizeof *res);
}

/*
 * ECMP on explicit graphs builds one shortest-path table per destination
 * (a breadth-first search over the graph, cached across rounds up to the
 * router's cache), so a ring collective over n devices of a custom ring
 * costs n searches of O(n): quadratic (1k, 2k, 4k devices: 0.26, 0.67,
 * 2.2 s; 20k devices would take minutes and past the cache rebuild the
 * tables).  The distinct destinations are counted before any is routed and
 * a schedule past FX_MAX_ROUTE_WORK (core/limits.h) vertex and edge visits
 * is refused (about 10 s at the measured 2.6e7 visits a second of the
 * searches), whatever the memory estimate allows.  Structured fabrics route in closed form and are
 * not counted.
 *
 * Small shallow graphs of unhomed devices (hypercubes, tori written out)
 * route from the distance table (routing/dist_table.c): 64 targets'
 * searches in one pass of words, grown only as deep as the flows ask, and
 * a push per target over its shortest-path DAG; a round that repeats an
 * earlier one is not routed at all (round_twin.c).  Counting a whole
 * search per destination there refused a 2^13 hypercube's swing (5e8
 * "visits") that routes in 4.5e8 steps, 4.3 s; and it did not count the
 * pushes, which are what grows (a pairwise all-to-all on 2^11 took 15 s,
 * allowed).  So there the router counts its own steps as it goes
 * (fx_router_work: per layer of a block 2V plus the incidences expanded,
 * per push the incidences of each vertex pushed from) and the run stops
 * past FX_MAX_TABLE_WORK, about 10 s at the slowest measured rate (1.1e8
 * steps a second, a 2^14 hypercube's pushes out of cache).  What the
 * count cannot know before routing (how deep each block goes, how wide
 * each DAG is) it therefore never guesses.
 */

/* The steps of one relay-aware search on f, measured: from the device
 * with the most links, the vertices it reaches and the incidences of
 * those it expands. */
static double probe_steps(const fx_fabric *f, fx_router *r)
{
	(void)r;
	fx_inc g;
	fx_inc_build(&g, f);
	int64_t src = 0;
	for (int64_t v = 1; v < f->ndev; v++)
		if (g.off[v + 1] - g.off[v] > g.off[src + 1] - g.off[src])
			src = v;
	fx_bfs b = {.dist = fx_xmalloc((size_t)f->nv * sizeof *b.dist),
		    .queue = fx_xmalloc((size_t)f->nv * sizeof *b.queue)};
	fx_bfs_from(&b, &g, src, 0);
	double steps = (double)b.tail;
	for (int64_t k = 0; k < b.tail; k++) {
		int64_t v = b.queue[k];
		if (v == src || g.relays[v])
			steps += (double)(g.off[v + 1] - g.off[v]);
	}
	free(b.dist);
	free(b.queue);
	fx_inc_release(&g);
	return steps;
}

/* 0: within the limit; 1: over it by the estimate, but the estimate is
 * of whole searches where listed flows make the grouped push search only
 * as deep as their sources (a ring's neighbours: one hop), so the run is
 * bounded as it goes instead (*est: the estimate); else refused. */
static int route_work(const fx_fabric *f, fx_router *r, const fx_sched *s, const char *pattern,
		      int64_t n, int hash, double *est, fx_diag *d)
{
	/* a lattice with failed elements routes by searches too (its
	 * dimension order gave way to ECMP, routing/route.c) */
	int fallback = fx_fabric_degraded(f) && f->builder->router == FX_ROUTER_DOR;
	/* the hash policy searches and pushes per destination on every ECMP
	 * fabric (split ECMP on structured ones goes by pods and homes) */
	int per_dst = hash && (f->builder->router == FX_ROUTER_ECMP || fallback);
	double limit = per_dst ? FX_MAX_HASH_WORK : FX_MAX_ROUTE_WORK;
	if ((!fx_fabric_is(f, FX_KIND_EXPLICIT) && !fallback && !per_dst) || f->nv == 0)
		return 0;
	/* listed flows routed from the distance table are counted as they
	 * are routed, steps the router takes (run_sched sets the bound);
	 * only all-pairs rounds are counted here */
	int table = !per_dst && !fallback && fx_router_takes_table(r);
	/* split ECMP: searches as the grouped push makes them (one per home,
	 * device class or pod), each as costly as a probe search measured on
	 * this graph, and its push as much again */
	fx_sweep *sw = !per_dst && !fallback && !table ? fx_router_sweep(r) : NULL;
	uint8_t *seen = fx_xcalloc((size_t)(2 * f->nv), 1);
	double searches = 0, per = (double)f->nv + (double)f->ne, pair_searches = 0;
	int counted_pairs = 0;
	fx_flow *buf = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < s->n; i++) {
		const fx_round *rd = &s->r[i];
		size_t nf = 0;
		const fx_flow *fl = table ? NULL : fx_round_flows(rd, &buf, &cap, &nf);
		for (size_t k = 0; k < nf; k++) {
			int64_t dst = fl[k].dst;
			if (dst < 0 || dst >= f->nv)
				continue;
			int64_t key = sw && dst < f->ndev ? fx_sweep_target(sw, dst) : dst;
			if (!seen[key]) {
				seen[key] = 1;
				searches++;
			}
		}
		for (size_t k = 0; k < rd->namong && !table; k++)
			for (int64_t j = 0; j < rd->among[k].n; j++) {
				int64_t dst = rd->among[k].dev[j];
				if (dst >= 0 && dst < f->nv && !seen[dst]) {
					seen[dst] = 1;
					searches++;
				}
			}
		if (rd->all_pairs > 0 && !counted_pairs) {
			pair_searches = sw ? fx_sweep_all_pairs_searches(sw) : (double)f->ndev;
			searches += pair_searches;
			counted_pairs = 1;
		}
	}
	free(seen);
	free(buf);
	/* the probe only when the bound (every vertex and incidence, twice)
	 * is past the limit: placement measures thousands of small groups */
	if (sw && searches * 2 * ((double)f->nv + 2 * (double)f->ne) > limit)
		per = 2 * probe_steps(f, r);
	else if (sw)
		per = 2 * ((double)f->nv + 2 * (double)f->ne);
	*est = searches * per;
	if (searches * per <= limit)
		return 0;
	if (sw && pair_searches * per <= limit)
		return 1;
	/* work limits leave a valid question not decided (exit 4); only the
	 * memory limit refuses a schedule as input (check_size, exit 2) */
	return fx_diag_undecided(d, "%s over %lld ranks routes by shortest paths on %s: %.3g "
				 "searches of %.3g steps%s, about %.3g steps (about %.0f s at %.3g "
				 "a second), past fabricx's limit of %.3g steps (fewer ranks, or an "
				 "algorithm with fewer rounds)", pattern, (long long)n,
				 fallback ? "the degraded graph"
				 : per_dst ? "every destination (hash policy)" : "an explicit graph",
				 searches, per, sw ? " (a probe search and its push, measured)" : "",
				 searches * per, searches * per / (per_dst ? FX_HASH_STEPS_PER_S
									 : FX_ROUTE_STEPS_PER_S),
				 per_dst ? FX_HASH_STEPS_PER_S : FX_ROUTE_STEPS_PER_S, limit);
}

/* Raises st's longest path and slowest latency to more's. */
static void stats_raise(fx_path_stats *st, const fx_path_stats *more)
{
	if (more->max_hops > st->max_hops)
		st->max_hops = more->max_hops;
	if (more->max_latency > st->max_latency)
		st->max_latency = more->max_latency;
}

struct fx_coll_sparse {
	const fx_fabric *f;
	double *bytes, *busy, *load;  /* [2 ne], zero outside the listed links */
	uint8_t *mark;                /* [2 ne]: listed */
	int64_t *links;               /* the links the last run loaded */
	size_t nlinks, cap;
};

fx_coll_sparse *fx_coll_sparse_new(const fx_fabric *f)
{
	size_t nl = (size_t)(f->ne ? 2 * f->ne : 1);
	fx_coll_sparse *sp = fx_xcalloc(1, sizeof *sp);
	sp->f = f;
	sp->bytes = fx_xcalloc(nl, sizeof *sp->bytes);
	sp->busy = fx_xcalloc(nl, sizeof *sp->busy);
	sp->load = fx_xcalloc(nl, sizeof *sp->load);
	sp->mark = fx_xcalloc(nl, 1);
	return sp;
}

void fx_coll_sparse_free(fx_coll_sparse *sp)
{
	if (!sp)
		return;
	free(sp->bytes);
	free(sp->busy);
	free(sp->load);
	free(sp->mark);
	free(sp->links);
	free(sp);
}

size_t fx_coll_sparse_links(const fx_coll_sparse *sp, const int64_t **links, const double **bytes)
{
	*links = sp->links;
	*bytes = sp->bytes;
	return sp->nlinks;
}

/* Zeroes what the last run listed. */
static void sparse_clear(fx_coll_sparse *sp)
{
	for (size_t k = 0; k < sp->nlinks; k++) {
		int64_t l = sp->links[k];
		sp->bytes[l] = sp->busy[l] = 0;
		sp->mark[l] = 0;
	}
	sp->nlinks = 0;
}

/* Lists link l as loaded by this run (once). */
static void sparse_mark(fx_coll_sparse *sp, int64_t l)
{
	if (sp->mark[l])
		return;
	sp->mark[l] = 1;
	sp->links = fx_xgrow(sp->links, &sp->cap, sp->nlinks + 1, sizeof *sp->links);
	sp->links[sp->nlinks++] = l;
}

/* Routes every round of s and times it; releases s.  With sp, the
 * per-link arrays are sp's (see fx_coll_run_groups_sparse). */
static int run_sched(const fx_fabric *f, fx_router *r, fx_sched s, const char *pattern, int64_t n,
		     double size, const fx_coll_time *tm, fx_coll_sparse *sp, fx_coll_result *out,
		     fx_diag *d)
{
	size_t nl = (size_t)(2 * f->ne);
	const fx_wafer_state *wafer = fx_fabric_wafer(f);  /* beta per routing stage */
	if (sp && (fx_router_summary(r) || tm->timing != FX_TIMING_BOUND))
		sp = NULL;  /* dense inside; the caller still reads sp's list */
	out->link_bytes = sp ? sp->bytes : fx_xcalloc(nl ? nl : 1, sizeof *out->link_bytes);
	out->link_busy = sp ? sp->busy : fx_xcalloc(nl ? nl : 1, sizeof *out->link_busy);
	out->per_round = fx_xcalloc(s.n ? s.n : 1, sizeof *out->per_round);
	out->nround = s.n;
	/* per-link loads of a round not summarised: made when one comes */
	double *load = sp ? sp->load : NULL;
	out->chunks = s.chunks;
	out->chunk_bytes = s.chunk_bytes;
	snprintf(out->plan, sizeof out->plan, "%s", s.plan);
	int rc = fx_timing_check(f, &s, tm, d);
	double est = 0;
	int as_it_goes = 0;
	if (rc == 0) {
		rc = route_work(f, r, &s, pattern, n, fx_route_policy_pins(tm->policy), &est, d);
		as_it_goes = rc == 1;
		if (as_it_goes)
			rc = 0;
	}
	/* the distance table's routing is bounded as it goes (route_work),
	 * and so is the grouped push's where the estimate is past the limit */
	int bounded = rc == 0 && !fx_route_policy_pins(tm->policy) && fx_fabric_is(f, FX_KIND_EXPLICIT) &&
		      fx_router_takes_table(r);
	double work0 = fx_router_work(r), bound = as_it_goes ? FX_MAX_ROUTE_WORK : FX_MAX_TABLE_WORK;
	bounded |= as_it_goes;
	if (bounded)
		fx_router_set_work_limit(r, work0 + bound);
	size_t at = 0;  /* the round being routed */
	/* lattices: rounds of listed flows summarised from their breakpoints
	 * (routing/dor_sum.c), O(flows) a round instead of O(links) */
	fx_dorsum *sum = fx_router_summary(r);
	/* a round that repeats an earlier one takes its loads, or with the
	 * summary its kept breakpoint sums (an allreduce's all-gather repeats
	 * its reduce-scatter) */
	fx_twins *twins = rc || fx_router_per_cable(r) ? NULL : fx_twins_new(&s);
	fx_flow *buf = NULL;  /* a shift round's flows, listed in turn */
	size_t cap = 0;
	for (size_t i = 0; i < s.n && rc == 0; i++) {
		const fx_round *rd = &s.r[i];
		size_t nf;
		const fx_flow *flows = fx_round_flows(rd, &buf, &cap, &nf);
		fx_round_result *rr = &out->per_round[i];
		fx_path_stats st;
		int summed = sum && rd->all_pairs == 0 && rd->namong == 0;
		const int64_t *used;
		const double *kept;
		size_t nused;
		double worst = 0;  /* seconds the busiest link needs */
		int replayed = 0;  /* a summed round's figures came from its twin */
		if (!summed && !load)
			load = fx_xcalloc(nl ? nl : 1, sizeof *load);
		if (twins && fx_twins_get(twins, i, &used, &kept, &nused, &st) &&
		    (!summed || (replayed = fx_dorsum_replay(sum, fx_twins_of(twins, i), rd->repeat,
							     &rr->max_link_bytes,
							     &rr->total_link_bytes, &worst)))) {
			for (size_t u = 0; u < nused; u++)
				load[used[u]] = kept[u];
		} else {
			if (summed)  /* at least one segment of two breakpoints a flow */
				fx_dorsum_expect(sum, 2.0 * (double)nf);
			fx_router_summarise(r, summed);
			rc = fx_router_add(r, flows, nf, load, &st, d);
			fx_router_summarise(r, 0);
			fx_path_stats st2;
			if (rc == 0 && rd->all_pairs > 0) {
				rc = fx_router_add_all_pairs(r, rd->all_pairs, load, &st2, d);
				stats_raise(&st, &st2);
			}
			for (size_t k = 0; k < rd->namong && rc == 0; k++) {
				rc = fx_router_add_among(r, &rd->among[k], load, &st2, d);
				stats_raise(&st, &st2);
			}
			nused = fx_router_used(r, &used);
			if (rc) {
				at = i;
				break;
			}
			if (twins)
				fx_twins_put(twins, i, used, nused, load, &st);
		}
		if (rd->all_pairs > 0)
			out->sent_bytes += rd->all_pairs * (double)f->ndev * (double)(f->ndev - 1) *
					   (double)rd->repeat;
		for (size_t k = 0; k < rd->namong; k++) {
			const fx_among *a = &rd->among[k];
			out->sent_bytes += a->bytes * (double)a->n * (double)(a->n - 1) *
					   (double)rd->repeat;
		}
		if (summed && !replayed) {
			if (twins && fx_twins_wanted(twins, i))
				fx_dorsum_keep_next(sum, i);
			fx_dorsum_round(sum, rd->repeat, &rr->max_link_bytes, &rr->total_link_bytes,
					&worst);
		}
		/* visit only the links this round used, or all of them in order
		 * when that is most of them (cheaper than jumping about) */
		int dense = nused * 4 > nl;
		size_t nvisit = dense ? nl : nused;
		int scale_out = 0;  /* a flow crossed the scale-out network */
		for (size_t u = 0; u < nvisit; u++) {
			int64_t l = dense ? (int64_t)u : used[u];
			if (load[l] == 0)
				continue;
			const fx_link *lk = &f->e[l / 2];
			scale_out |= lk->scale_out;
			double busy = fx_router_link_busy(r, l, load[l]);
			if (busy > worst)
				worst = busy;
			if (load[l] > rr->max_link_bytes)
				rr->max_link_bytes = load[l];
			rr->total_link_bytes += load[l];
			if (sp)
				sparse_mark(sp, l);
			out->link_bytes[l] += load[l] * (double)rd->repeat;
			out->link_busy[l] += busy * (double)rd->repeat;
			load[l] = 0;
		}
		for (size_t k = 0; k < nf; k++)
			out->sent_bytes += flows[k].bytes * (double)rd->repeat;
		rr->repeat = rd->repeat;
		snprintf(rr->label, sizeof rr->label, "%s", rd->label);
		rr->max_hops = st.max_hops;
		rr->stages = rd->stages;
		rr->latency = st.max_latency;
		/* a round with a flow over the scale-out network waits out that
		 * network's overhead (the chapter "Supernodes" §6.5.1: every
		 * round of a ring across two HGX servers waits on the NIC hop) */
		double alpha = scale_out && tm->network_alpha_set ? tm->network_alpha : tm->alpha;
		rr->time = alpha + (tm->alpha_replaces_latency ? 0 : st.max_latency) + worst +
			   (double)rd->stages * (wafer ? wafer->routing_latency : 0);
		out->time += rr->time * (double)rd->repeat;
		out->rounds += rd->repeat;
		out->total_link_bytes += rr->total_link_bytes * (double)rd->repeat;
	}
	fx_twins_free(twins);
	free(buf);
	if (bounded)
		fx_router_set_work_limit(r, 0);
	if (rc == FX_SWEEP_OVER && as_it_goes)
		rc = fx_diag_undecided(d, "%s over %lld ranks routes by shortest paths on an "
				       "explicit graph: its searches and pushes passed fabricx's "
				       "limit of %.3g steps (about %.0f s) in round %zu of %zu, on "
				       "course for about %.3g steps (about %.0f s; %.3g by whole "
				       "searches, each once) (fewer ranks, or an algorithm with fewer "
				       "rounds)", pattern, (long long)n, FX_MAX_ROUTE_WORK,
				       FX_MAX_ROUTE_WORK / FX_ROUTE_STEPS_PER_S, at + 1, s.n,
				       FX_MAX_ROUTE_WORK * (double)s.n / (double)(at + 1),
				       FX_MAX_ROUTE_WORK * (double)s.n / (double)(at + 1) /
				       FX_ROUTE_STEPS_PER_S, est);
	else if (rc == FX_SWEEP_OVER)
		rc = fx_diag_undecided(d, "%s over %lld ranks routes by shortest paths on an "
				       "explicit graph: its distance table and pushes passed "
				       "fabricx's limit of %.3g steps in round %zu of %zu (fewer "
				       "ranks, or an algorithm with fewer rounds)", pattern,
				       (long long)n, FX_MAX_TABLE_WORK, at + 1, s.n);
	if (sum)
		fx_dorsum_finish(sum, out->link_bytes, out->link_busy);
	out->timing = tm->timing;
	out->sharing = tm->sharing;
	if (rc == 0 && tm->timing != FX_TIMING_BOUND)
		rc = fx_timing_run(f, r, &s, tm, out, d);
	for (size_t k = 0; k < (sp ? sp->nlinks : nl); k++) {
		size_t l = sp ? (size_t)sp->links[k] : k;
		if (out->link_bytes[l] > out->max_link_bytes)
			out->max_link_bytes = out->link_bytes[l];
	}
	if (out->time > 0) {
		out->algbw = size / out->time;
		out->busbw = out->algbw * fx_coll_bus_factor(pattern, n);
	}
	if (sp) {
		if (rc)  /* a round stopped halfway: its loads are anywhere */
			memset(sp->load, 0, (nl ? nl : 1) * sizeof *sp->load);
		out->link_bytes = out->link_busy = NULL;
	} else {
		free(load);
	}
	fx_sched_release(&s);
	if (rc)
		fx_coll_result_release(out);
	return rc;
}

/* Refuses, before generating them, schedules whose flows (nflow of them,
 * held `copies` times) and per-link arrays would not fit the run's memory
 * limit (f->max_bytes, from --max-memory). */
static int check_size(const fx_fabric *f, const fx_coll_req *q, double nflow, double copies,
		      fx_diag *d)
{
	if (f->max_bytes <= 0)
		return 0;
	double bytes = nflow * copies * (double)sizeof(fx_flow) +
		       4.0 * 2.0 * (double)f->ne * (double)sizeof(double);
	if (bytes <= f->max_bytes)
		return 0;
	char need[32], have[32];
	fx_unit_format(bytes, FX_UNIT_SIZE, need, sizeof need);
	fx_unit_format(f->max_bytes, FX_UNIT_SIZE, have, sizeof have);
	return fx_diag_error(d, NULL, "%s/%s over %lld ranks lists about %.3g flows, which need "
			     "about %s of memory, over the limit of %s (see --max-memory; "
			     "fewer ranks, or an algorithm with fewer rounds)",
			     q->pattern, q->algo ? q->algo : "(default)", (long long)q->n, nflow,
			     need, have);
}

/* Refuses a schedule that routes more than FX_MAX_SCHED_FLOWS flows in
 * all: shift rounds are listed only when routed, so memory no longer
 * bounds how many there are (a pairwise all-to-all over 262,144 ranks:
 * 6.9e10 flows, hours). */
static int check_total(const fx_coll_req *q, const fx_sched *s, fx_diag *d)
{
	double total = fx_sched_nflows(s);
	if (total <= FX_MAX_SCHED_FLOWS)
		return 0;
	return fx_diag_undecided(d, "%s/%s over %lld ranks lists about %.3g flows over its "
				 "rounds, past fabricx's limit of %.3g (fewer ranks, or an algorithm "
				 "with fewer rounds)", q->pattern, q->algo ? q->algo : "(default)",
				 (long long)q->n, total, FX_MAX_SCHED_FLOWS);
}

/* A request's ranks, size and pieces, checked before any algorithm reads
 * them: every rank is a device of f (a rank of -1 or of ndev once wrote
 * outside the per-device arrays, or ran as nothing in no time).  A device
 * may be given twice: tests and the round-twin path rely on it. */
static int check_req(const char *fn, const fx_fabric *f, const fx_coll_req *q, fx_diag *d)
{
	if (!q || !q->pattern)
		return fx_diag_error(d, NULL, "%s: no collective (pattern) given", fn);
	if (q->n < 1 || !q->ranks)
		return fx_diag_error(d, NULL, "%s: %s needs one rank or more, got %lld%s", fn, q->pattern,
				     (long long)q->n, q->ranks ? "" : " and no rank list");
	if (!isfinite(q->size) || q->size < 0)
		return fx_diag_error(d, NULL, "%s: size %g must be a finite number of bytes, 0 or more",
				     fn, q->size);
	if (q->chunks < 0)
		return fx_diag_error(d, NULL, "%s: chunks %lld must be 0 (the algorithm's) or more", fn,
				     (long long)q->chunks);
	for (int64_t i = 0; i < q->n; i++)
		if (q->ranks[i] < 0 || q->ranks[i] >= f->ndev)
			return fx_diag_error(d, NULL, "%s: rank %lld is device %lld, not one of the "
					     "fabric's %lld devices (0 to %lld)", fn, (long long)i,
					     (long long)q->ranks[i], (long long)f->ndev,
					     (long long)f->ndev - 1);
	return 0;
}

/* What every collective entry needs besides its requests. */
static int check_run(const char *fn, const fx_fabric *f, const fx_router *r, const fx_coll_time *tm,
		     fx_coll_result *out, fx_diag *d)
{
	if (out)
		memset(out, 0, sizeof *out);
	if (!fx_fabric_built(f))
		return fx_diag_error(d, NULL, "%s: no fabric (NULL, or one whose load failed)", fn);
	if (!r || fx_router_fabric(r) != f)
		return fx_diag_error(d, NULL, "%s: %s", fn, r ? "the router was made for another fabric"
				     : "no router (fx_router_new)");
	if (!tm || !out)
		return fx_diag_error(d, NULL, "%s: no %s", fn, tm ? "result to fill" : "time model");
	return 0;
}

/* A collective of one rank, or of 0 bytes, has nothing to move: it does
 * nothing and costs nothing, whatever the algorithm (NCCL returns at once
 * for a count of 0 and for a communicator of one rank).  Its schedule is
 * generated all the same, so a request no algorithm takes is still
 * refused, then dropped: no round pays the per-round overhead or a hop's
 * latency for no data (a 1-rank tree had cost 2 overheads, a 0-byte ring
 * nothing where 1 byte paid every round's latency). */
static int nothing_to_move(const fx_coll_req *q)
{
	return q->n < 2 || q->size == 0;
}

/* Nodes the ranks span (devices outside any node count one each). */
static int64_t nodes_spanned(const fx_fabric *f, const int64_t *ranks, int64_t n)
{
	int64_t k = 0, loose = 0;
	int32_t seen[64];
	int32_t *set = n <= 64 ? seen : fx_xmalloc((size_t)n * sizeof *set);
	for (int64_t i = 0; i < n; i++) {
		int32_t node = ranks[i] >= 0 && ranks[i] < f->nv ? f->v[ranks[i]].node : -1;
		if (node < 0) {
			loose++;
			continue;
		}
		int64_t j = 0;
		while (j < k && set[j] != node)
			j++;
		if (j == k)
			set[k++] = node;
	}
	if (set != seen)
		free(set);
	return k + loose;
}

/* A measured curve that covers the call replaces the model's time
 * (collective.measured); the result says which it is either way. */
static void take_measured(const fx_fabric *f, const fx_coll_req *q, const char *algo,
			  const fx_coll_time *tm, fx_coll_result *out)
{
	out->modelled_time = out->time;
	out->measured = 0;
	snprintf(out->time_source, sizeof out->time_source, "modelled");
	if (!tm->measured || nothing_to_move(q))
		return;
	double t = 0;
	/* a curve of "any algorithm" stands for what the library chose, so
	 * it answers for every algorithm of the pattern */
	fx_coll_match mt = fx_coll_measured_lookup(tm->measured, q->pattern, algo, q->n,
						   nodes_spanned(f, q->ranks, q->n), q->size, &t,
						   out->time_source, sizeof out->time_source);
	if (mt != FX_COLL_MEASURED)
		return;
	out->measured = 1;
	out->time = t;
	out->algbw = q->size / t;
	out->busbw = out->algbw * fx_coll_bus_factor(q->pattern, q->n);
}

int fx_coll_run(const fx_fabric *f, fx_router *r, const fx_coll_req *q, const fx_coll_time *tm,
		fx_coll_result *out, fx_diag *d)
{
	if (check_run("fx_coll_run", f, r, tm, out, d) || check_req("fx_coll_run", f, q, d))
		return -1;
	if (!fx_route_policy_applies(f->builder->router, tm->policy))
		return fx_diag_error(d, NULL, "routing %s applies to %s; this is a %s fabric",
				     fx_route_policy_name(tm->policy), fx_route_policy_scope(tm->policy),
				     f->builder->kind);
	if ((tm->policy == FX_ROUTE_PXN || tm->policy == FX_ROUTE_RAIL) && !f->domain_of)
		return fx_diag_error(d, NULL, "routing '%s' relays between a composite's domains: "
				     "'%s' is a %s fabric, with no scale-up domains and network "
				     "(fabric.kind: composite)", fx_route_policy_name(tm->policy), f->name,
				     f->builder->kind);
	fx_router_set_policy(r, tm->policy);
	const fx_coll_algo *a = fx_coll_find(q->pattern, q->algo);
	if (!a)
		return fx_diag_error(d, NULL, "unknown collective %s/%s", q->pattern,
				     q->algo ? q->algo : "(default)");
	if (check_size(f, q, a->flows(f, q), 1, d))
		return -1;
	fx_sched s = {0};
	if (a->gen(f, q, &s, d) || check_total(q, &s, d)) {
		fx_sched_release(&s);
		return -1;
	}
	if (nothing_to_move(q)) {
		fx_sched_release(&s);
		s = (fx_sched){0};
	}
	int rc = run_sched(f, r, s, q->pattern, q->n, q->size, tm, NULL, out, d);
	if (rc == 0)
		take_measured(f, q, q->algo ? q->algo : a->name, tm, out);
	return rc;
}

/* Appends round `rd` (its flows) to merged round m. */
static void merge_flows(fx_round *m, const fx_round *rd)
{
	fx_flow *buf = NULL;
	size_t cap = 0, nf;
	const fx_flow *fl = fx_round_flows(rd, &buf, &cap, &nf);
	for (size_t k = 0; k < nf; k++) {
		m->flows = fx_xgrow(m->flows, &m->cap, m->n + 1, sizeof *m->flows);
		m->flows[m->n++] = fl[k];
	}
	free(buf);
	m->all_pairs += rd->all_pairs;
	for (size_t k = 0; k < rd->namong; k++)
		round_among(m, rd->among[k].dev, rd->among[k].n, rd->among[k].bytes);
}

static int run_groups(const fx_fabric *f, fx_router *r, const fx_coll_req *groups, size_t ngroups,
		      const fx_coll_time *tm, fx_coll_sparse *sp, fx_coll_result *out, fx_diag *d)
{
	if (check_run("fx_coll_run_groups", f, r, tm, out, d))
		return -1;
	if (ngroups && !groups)
		return fx_diag_error(d, NULL, "fx_coll_run_groups: %zu groups but no list of them", ngroups);
	for (size_t g = 0; g < ngroups; g++)
		if (check_req("fx_coll_run_groups", f, &groups[g], d))
			return -1;
	fx_sched *each = fx_xcalloc(ngroups ? ngroups : 1, sizeof *each);
	size_t *at = fx_xcalloc(ngroups ? ngroups : 1, sizeof *at);  /* current round */
	int64_t *left = fx_xcalloc(ngroups ? ngroups : 1, sizeof *left);  /* its repeats left */
	int rc = 0;
	/* the groups' flows, and their merged copy (exact when the groups run
	 * the same algorithm on equal rank counts, as TP/EP groups do) */
	double nflow = 0;
	for (size_t g = 0; g < ngroups && rc == 0; g++) {
		const fx_coll_algo *a = fx_coll_find(groups[g].pattern, groups[g].algo);
		if (a)
			nflow += a->flows(f, &groups[g]);
	}
	if (ngroups)
		rc = check_size(f, &groups[0], nflow, 2, d);
	for (size_t g = 0; g < ngroups && rc == 0; g++) {
		const fx_coll_algo *a = fx_coll_find(groups[g].pattern, groups[g].algo);
		if (!a)
			rc = fx_diag_error(d, NULL, "unknown collective %s/%s", groups[g].pattern,
					   groups[g].algo ? groups[g].algo : "(default)");
		else
			rc = a->gen(f, &groups[g], &each[g], d);
		if (rc == 0 && nothing_to_move(&groups[g])) {
			fx_sched_release(&each[g]);
			each[g] = (fx_sched){0};
		}
		if (each[g].n)
			left[g] = each[g].r[0].repeat;
	}
	/* shift rounds are listed here, in the merged copy: their flows in
	 * all must fit (the estimate above counted one round of each) */
	int shifts = 0;
	double listed = 0;
	for (size_t g = 0; g < ngroups && rc == 0; g++) {
		shifts |= each[g].ranks != NULL;
		listed += fx_sched_nflows(&each[g]);
		rc = check_total(&groups[g], &each[g], d);
	}
	if (rc == 0 && shifts)
		rc = check_size(f, &groups[0], listed, 2, d);
	fx_sched m = {0};
	fx_router_set_policy(r, tm->policy);
	while (rc == 0) {
		/* the next merged round lasts as long as the shortest run of
		 * identical rounds among the groups still going */
		int64_t rep = 0;
		for (size_t g = 0; g < ngroups; g++)
			if (at[g] < each[g].n && (rep == 0 || left[g] < rep))
				rep = left[g];
		if (rep == 0)
			break;
		fx_round *mr = NULL;
		for (size_t g = 0; g < ngroups; g++) {
			if (at[g] >= each[g].n)
				continue;
			if (!mr)
				mr = fx_sched_round(&m, rep, each[g].r[at[g]].label);
			merge_flows(mr, &each[g].r[at[g]]);
			if (each[g].r[at[g]].stages > mr->stages)
				mr->stages = each[g].r[at[g]].stages;
			if ((left[g] -= rep) == 0 && ++at[g] < each[g].n)
				left[g] = each[g].r[at[g]].repeat;
		}
	}
	for (size_t g = 0; g < ngroups; g++)
		fx_sched_release(&each[g]);
	free(each);
	free(at);
	free(left);
	if (rc) {
		fx_sched_release(&m);
		return rc;
	}
	rc = run_sched(f, r, m, ngroups ? groups[0].pattern : "", ngroups ? groups[0].n : 0,
		       ngroups ? groups[0].size : 0, tm, sp, out, d);
	if (rc == 0 && ngroups == 1) {
		take_measured(f, &groups[0], groups[0].algo ? groups[0].algo :
			      fx_coll_find(groups[0].pattern, NULL)->name, tm, out);
	} else if (rc == 0) {
		/* a measurement of one group alone says nothing of groups that
		 * share links: the model stands, and says so when it matters */
		take_measured(f, &groups[0], groups[0].algo ? groups[0].algo :
			      fx_coll_find(groups[0].pattern, NULL)->name, tm, out);
		if (out->measured) {
			out->time = out->modelled_time;
			out->measured = 0;
			out->algbw = out->time > 0 ? groups[0].size / out->time : 0;
			out->busbw = out->algbw * fx_coll_bus_factor(groups[0].pattern, groups[0].n);
			snprintf(out->time_source, sizeof out->time_source, "modelled: %zu groups run "
				 "together, and the measured curve is of one group alone", ngroups);
		}
	}
	return rc;
}

int fx_coll_run_groups(const fx_fabric *f, fx_router *r, const fx_coll_req *groups, size_t ngroups,
		       const fx_coll_time *tm, fx_coll_result *out, fx_diag *d)
{
	return run_groups(f, r, groups, ngroups, tm, NULL, out, d);
}

int fx_coll_run_groups_sparse(const fx_fabric *f, fx_router *r, const fx_coll_req *groups,
			      size_t ngroups, const fx_coll_time *tm, fx_coll_sparse *sp,
			      fx_coll_result *out, fx_diag *d)
{
	if (!sp || sp->f != f)
		return fx_diag_error(d, NULL, "fx_coll_run_groups_sparse: %s",
				     sp ? "arrays of another fabric" : "no arrays");
	sparse_clear(sp);
	int rc = run_groups(f, r, groups, ngroups, tm, sp, out, d);
	if (rc == 0 && out->link_bytes) {  /* it went dense: list what it loaded */
		size_t nl = (size_t)(2 * f->ne);
		for (size_t l = 0; l < nl; l++)
			if (out->link_bytes[l] != 0 || out->link_busy[l] != 0) {
				sparse_mark(sp, (int64_t)l);
				sp->bytes[l] = out->link_bytes[l];
				sp->busy[l] = out->link_busy[l];
			}
		free(out->link_bytes);
		free(out->link_busy);
		out->link_bytes = out->link_busy = NULL;
	}
	return rc;
}

int fx_coll_time_parse(fx_diag *d, const fx_spec *spec, fx_coll_time *tm)
{
	static const char *const keys[] = {"overhead", "network_overhead", "includes_path_latency",
					   "routing", "timing", "sharing", "measured", NULL};
	const fx_snode *c;
	const char *pol = NULL, *timing = NULL, *sharing = NULL;
	if (!tm)
		return fx_diag_error(d, NULL, "fx_coll_time_parse: no time model to fill");
	tm->alpha = 0;
	tm->network_alpha_set = 0;
	tm->network_alpha = 0;
	tm->alpha_replaces_latency = 0;
	tm->policy = FX_ROUTE_SPLIT;
	tm->measured = NULL;
	tm->timing = FX_TIMING_BOUND;
	tm->sharing = FX_SHARING_RTT;
	if (!spec || !spec->root)
		return fx_diag_error(d, NULL, "fx_coll_time_parse: no spec (NULL, or one that failed to "
				     "load)");
	if (fx_spec_map(d, spec->root, "collective", 0, &c))
		return -1;
	if (!c)
		return 0;
	int rc = fx_spec_keys(d, c, keys) |
		 fx_spec_qty_opt(d, c, "overhead", FX_UNIT_TIME, 0, 0, &tm->alpha) |
		 fx_spec_qty_opt(d, c, "network_overhead", FX_UNIT_TIME, 0, 0, &tm->network_alpha) |
		 fx_spec_bool_opt(d, c, "includes_path_latency", &tm->alpha_replaces_latency) |
		 fx_spec_str_opt(d, c, "routing", &pol) |
		 fx_spec_str_opt(d, c, "timing", &timing) |
		 fx_spec_str_opt(d, c, "sharing", &sharing);
	tm->network_alpha_set = fx_snode_get(c, "network_overhead") != NULL;
	const fx_snode *rn = fx_snode_get(c, "routing");
	if (rc == 0 && pol && fx_route_policy_parse(pol, &tm->policy))
		return fx_snode_error(d, rn, "'%s' must be " FX_ROUTE_POLICY_LIST ", got '%s'", rn->path,
				      pol);
	/* valiant and ugal choose intermediate groups: dragonflies only */
	const fx_snode *fab = fx_snode_get(spec->root, "fabric");
	const fx_snode *kn = fab ? fx_snode_get(fab, "kind") : NULL;
	const fx_builder *b = kn && kn->text ? fx_builder_find(kn->text) : NULL;
	if (rc == 0 && pol && b && !fx_route_policy_applies(b->router, tm->policy))
		return fx_snode_error(d, rn, "'%s' %s applies to %s; 'fabric.kind' is '%s'", rn->path,
				      pol, fx_route_policy_scope(tm->policy), b->kind);
	if (rc == 0 && timing && fx_timing_parse(timing, &tm->timing))
		rc = fx_snode_error(d, fx_snode_get(c, "timing"), "'%s' must be bound, maxmin or "
				    "events, got '%s'", fx_snode_get(c, "timing")->path, timing);
	if (rc == 0 && sharing && fx_sharing_parse(sharing, &tm->sharing))
		rc = fx_snode_error(d, fx_snode_get(c, "sharing"), "'%s' must be fair or rtt, got "
				    "'%s'", fx_snode_get(c, "sharing")->path, sharing);
	fx_coll_measured *m = NULL;
	rc |= fx_coll_measured_parse(d, fx_snode_get(c, "measured"), spec->file, &m);
	tm->measured = m;
	return rc;
}

static double time_of(const fx_fabric *f, fx_router *r, const fx_coll_req *q, const char *algo,
		      double size, const fx_coll_time *tm, fx_diag *d)
{
	fx_coll_req x = *q;
	fx_coll_result res;
	x.algo = algo;
	x.size = size;
	if (fx_coll_run(f, r, &x, tm, &res, d))
		return NAN;
	double t = res.time;
	fx_coll_result_release(&res);
	return t;
}

double fx_coll_crossover(const fx_fabric *f, fx_router *r, const fx_coll_req *q,
			 const char *algo_a, const char *algo_b, const fx_coll_time *tm,
			 double lo, double hi, fx_diag *d)
{
	fx_coll_result res;
	if (check_run("fx_coll_crossover", f, r, tm, &res, d) || check_req("fx_coll_crossover", f, q, d))
		return -1;
	if (!algo_a || !algo_b || !(lo >= 0) || !(hi >= lo) || !isfinite(hi))
		return fx_diag_error(d, NULL, "fx_coll_crossover: needs two algorithms and sizes 0 <= lo "
				     "<= hi, finite");
	double dlo = time_of(f, r, q, algo_a, lo, tm, d) - time_of(f, r, q, algo_b, lo, tm, d);
	double dhi = time_of(f, r, q, algo_a, hi, tm, d) - time_of(f, r, q, algo_b, hi, tm, d);
	if (isnan(dlo) || isnan(dhi) || (dlo > 0) == (dhi > 0))
		return -1;
	for (int it = 0; it < 100 && hi - lo > 0.5; it++) {
		double mid = (lo + hi) / 2;
		double dm = time_of(f, r, q, algo_a, mid, tm, d) - time_of(f, r, q, algo_b, mid, tm, d);
		if (isnan(dm))
			return -1;
		if ((dm > 0) == (dlo > 0))
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}
