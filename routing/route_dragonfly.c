/*
 * Dragonfly routing (fabric/topo_dragonfly.c's groups), by classes of the
 * structure rather than searches: every link a path takes is found by
 * arithmetic on the builder's numbering (fx_dragonfly_state), and an
 * all-to-all is routed from per-switch and per-group device counts.
 *
 * Policies (fx_route_policy; Kim et al. ISCA'08 §4):
 *
 *   split (= minimal, the default)  at most one global link: source switch,
 *       to the switch of its group that holds a global link to the
 *       destination group (a local hop unless it is the source switch),
 *       the global link, then a local hop to the destination switch unless
 *       it is where the link lands.  The m global links of the pair share
 *       the flow equally.  Within a group: the local link (complete groups)
 *       or every spine equally (leaf-spine groups, Dragonfly+).
 *   hash  minimal, each flow on one path: global link number (destination
 *       device mod m); in a leaf-spine group spine (destination mod spines).
 *   valiant  Valiant's randomised routing as its expectation: a flow
 *       between groups goes minimally to an intermediate group and
 *       minimally on from where it landed; each of the g - 2 other groups
 *       takes 1/(g - 2) of it.  Flows within a group go minimally.  Under
 *       uniform traffic every inter-group byte crosses two global links
 *       instead of one: twice the global-link load.
 *   ugal  UGAL (Singh 2005) as one deterministic decision per ordered pair
 *       of groups, from the loads of the traffic handed to the router at
 *       once (a round's listed flows, its all-to-all, or one rank set's):
 *       route all of it minimally; let T_min be the busiest (in seconds) of
 *       the pair's minimal global links and T_val the mean over the
 *       intermediate groups of the busier of the two global links Valiant
 *       would take there; the pair goes by Valiant when T_min x 1 > T_val x
 *       2 (q_min H_min > q_val H_val with H the global hops, as UGAL-G with
 *       exact loads), else minimally.  Not iterated.
 *
 * Time complexity: O(m) per listed flow minimally, O((g - 2) m^2) by
 * Valiant; an all-to-all from counts in O(switches g m + g^3 m^2).
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

struct fx_dfr {
	const fx_fabric *f;
	int64_t p, a, h, g, E, S, G, m;
	int ls;                  /* leaf-spine groups */
	int64_t sw0, local0, global0, per_group_local;
	double hlat, llat, glat; /* the link classes' latencies */
	/* UGAL: minimal global loads and decisions (0 unknown, 1 minimal, 2
	 * Valiant) per ordered pair of groups */
	double *ml;
	int64_t *mused;
	size_t nmused, capmused;
	uint8_t *dec;
	int64_t *dtouched;
	size_t ndt, capdt;
	/* Valiant on leaf-spine groups: spine-to-spine transit per (group,
	 * landing spine, leaving spine), expanded over the leaves at the end */
	double *transit;
	int64_t *ttouched;
	size_t ntt, captt;
	int64_t *c2gw, *c2ld, *c2e;  /* per copy c: a pair's gateway, landing, link */
	int *c2d;
};

typedef struct sink {
	double *load;
	int64_t **used;
	size_t *nused, *capused;
} sink;

static void put(const sink *k, int64_t l, double b)
{
	if (k)
		fx_load_add(k->load, l, b, k->used, k->nused, k->capused);
}

fx_dfr *fx_dfr_new(const fx_fabric *f)
{
	const fx_dragonfly_state *st = &f->state.dragonfly;
	fx_dfr *r = fx_xcalloc(1, sizeof *r);
	r->f = f;
	r->p = st->p;
	r->a = st->a;
	r->h = st->h;
	r->g = st->g;
	r->E = st->edge;
	r->ls = st->leaves > 0;
	r->S = r->ls ? st->a : 0;
	r->G = r->E + r->S;
	r->m = st->m;
	r->sw0 = f->ndev;
	r->local0 = f->ndev;
	r->per_group_local = r->ls ? r->E * r->S : r->a * (r->a - 1) / 2;
	r->global0 = r->local0 + r->g * r->per_group_local;
	r->hlat = f->e[0].lat;
	r->llat = r->per_group_local ? f->e[r->local0].lat : 0;
	r->glat = f->e[r->global0].lat;
	r->dec = fx_xcalloc((size_t)(r->g * r->g), 1);
	r->c2gw = fx_xmalloc((size_t)r->m * sizeof *r->c2gw);
	r->c2ld = fx_xmalloc((size_t)r->m * sizeof *r->c2ld);
	r->c2e = fx_xmalloc((size_t)r->m * sizeof *r->c2e);
	r->c2d = fx_xmalloc((size_t)r->m * sizeof *r->c2d);
	return r;
}

void fx_dfr_free(fx_dfr *r)
{
	if (!r)
		return;
	free(r->ml);
	free(r->mused);
	free(r->dec);
	free(r->dtouched);
	free(r->transit);
	free(r->ttouched);
	free(r->c2gw);
	free(r->c2ld);
	free(r->c2e);
	free(r->c2d);
	free(r);
}

/* ---- the numbering (fabric/topo_dragonfly.c builds in this order) ---- */

static int64_t esw(const fx_dfr *r, int64_t grp, int64_t i)
{
	return r->sw0 + grp * r->G + i;
}

/* global switch j of a group: a router, or a spine */
static int64_t gsw(const fx_dfr *r, int64_t grp, int64_t j)
{
	return r->sw0 + grp * r->G + (r->ls ? r->E : 0) + j;
}

/* complete groups: the local link of routers i != k */
static int64_t local_edge(const fx_dfr *r, int64_t grp, int64_t i, int64_t k)
{
	int64_t lo = i < k ? i : k, hi = i < k ? k : i;
	return r->local0 + grp * r->per_group_local + lo * (2 * r->a - lo - 1) / 2 + (hi - lo - 1);
}

/* leaf-spine groups: leaf l to spine j */
static int64_t ls_edge(const fx_dfr *r, int64_t grp, int64_t l, int64_t j)
{
	return r->local0 + grp * r->per_group_local + l * r->S + j;
}

/* The c-th global link from group s to group t: its edge, the global
 * switch of s it leaves (gateway) and of t it lands on. */
static void gport(const fx_dfr *r, int64_t s, int64_t t, int64_t c, int64_t *gw, int64_t *ld,
		  int64_t *e)
{
	int64_t lo = s < t ? s : t, hi = s < t ? t : s, o = hi - lo, g = r->g;
	int64_t jl = (o - 1) + c * (g - 1), jh = (g - o - 1) + c * (g - 1);
	*e = r->global0 + (lo * (2 * g - lo - 1) / 2 + (hi - lo - 1)) * r->m + c;
	*gw = (s == lo ? jl : jh) / r->h;
	*ld = (s == lo ? jh : jl) / r->h;
}

int fx_dfr_check(const fx_dfr *r)
{
	const fx_fabric *f = r->f;
	for (int64_t d = 0; d < f->ndev; d++)
		if (f->ends[2 * d] != d || f->ends[2 * d + 1] != esw(r, d / r->p / r->E, d / r->p % r->E))
			return -1;
	for (int64_t grp = 0; grp < r->g; grp++)
		for (int64_t i = 0; i < r->E; i++)
			for (int64_t k = 0; k < (r->ls ? r->S : r->E); k++) {
				if (!r->ls && k == i)
					continue;
				int64_t e = r->ls ? ls_edge(r, grp, i, k) : local_edge(r, grp, i, k);
				int64_t x = esw(r, grp, i), y = r->ls ? gsw(r, grp, k) : esw(r, grp, k);
				if (fx_fabric_other(f, e, x) != y || (f->ends[2 * e] != x && f->ends[2 * e + 1] != x))
					return -1;
			}
	for (int64_t s = 0; s < r->g; s++)
		for (int64_t t = 0; t < r->g; t++)
			for (int64_t c = 0; t != s && c < r->m; c++) {
				int64_t gw, ld, e;
				gport(r, s, t, c, &gw, &ld, &e);
				int64_t x = gsw(r, s, gw), y = gsw(r, t, ld);
				if (e >= f->ne || f->e[e].tier != 2 || fx_fabric_other(f, e, x) != y ||
				    (f->ends[2 * e] != x && f->ends[2 * e + 1] != x))
					return -1;
			}
	return 0;
}

/* ---- path pieces: each adds bytes to k (when k is not NULL) and
 * returns the local hops it takes ---- */

static int src_leg(const fx_dfr *r, const sink *k, int64_t s, int64_t rs, int64_t gw, double b)
{
	const fx_fabric *f = r->f;
	if (r->ls) {
		put(k, fx_fabric_dirlink(f, ls_edge(r, s, rs, gw), esw(r, s, rs)), b);
		return 1;
	}
	if (rs == gw)
		return 0;
	put(k, fx_fabric_dirlink(f, local_edge(r, s, rs, gw), esw(r, s, rs)), b);
	return 1;
}

static int dst_leg(const fx_dfr *r, const sink *k, int64_t t, int64_t ld, int64_t rd, double b)
{
	const fx_fabric *f = r->f;
	if (r->ls) {
		put(k, fx_fabric_dirlink(f, ls_edge(r, t, rd, ld), gsw(r, t, ld)), b);
		return 1;
	}
	if (ld == rd)
		return 0;
	put(k, fx_fabric_dirlink(f, local_edge(r, t, ld, rd), esw(r, t, ld)), b);
	return 1;
}

/* In an intermediate group i, from the global switch a flow landed on to
 * the one it leaves from (leaf-spine: through every leaf equally). */
static int mid_leg(const fx_dfr *r, const sink *k, int64_t i, int64_t ld, int64_t gw, double b)
{
	const fx_fabric *f = r->f;
	if (ld == gw)
		return 0;
	if (!r->ls) {
		put(k, fx_fabric_dirlink(f, local_edge(r, i, ld, gw), esw(r, i, ld)), b);
		return 1;
	}
	for (int64_t l = 0; k && l < r->E; l++) {
		put(k, fx_fabric_dirlink(f, ls_edge(r, i, l, ld), gsw(r, i, ld)), b / (double)r->E);
		put(k, fx_fabric_dirlink(f, ls_edge(r, i, l, gw), esw(r, i, l)), b / (double)r->E);
	}
	return 2;
}

static void glob(const fx_dfr *r, const sink *k, int64_t gw, int64_t s, int64_t e, double b)
{
	put(k, fx_fabric_dirlink(r->f, e, gsw(r, s, gw)), b);
}

/* Within a group, between edge switches rs != rd; spine: -1 for every
 * spine equally. */
static int intra(const fx_dfr *r, const sink *k, int64_t s, int64_t rs, int64_t rd, int64_t spine,
		 double b)
{
	const fx_fabric *f = r->f;
	if (!r->ls) {
		put(k, fx_fabric_dirlink(f, local_edge(r, s, rs, rd), esw(r, s, rs)), b);
		return 1;
	}
	int64_t j0 = spine < 0 ? 0 : spine, j1 = spine < 0 ? r->S : spine + 1;
	double share = spine < 0 ? b / (double)r->S : b;
	for (int64_t j = j0; k && j < j1; j++) {
		put(k, fx_fabric_dirlink(f, ls_edge(r, s, rs, j), esw(r, s, rs)), share);
		put(k, fx_fabric_dirlink(f, ls_edge(r, s, rd, j), gsw(r, s, j)), share);
	}
	return 2;
}

static void stat_path(const fx_dfr *r, fx_path_stats *st, int locals, int globals)
{
	int64_t hops = 2 + locals + globals;
	double lat = 2 * r->hlat + locals * r->llat + globals * r->glat;
	if (hops > st->max_hops)
		st->max_hops = hops;
	if (lat > st->max_latency)
		st->max_latency = lat;
}

/* ---- listed flows, one at a time ---- */

typedef struct ends {
	int64_t s, rs, t, rd;  /* groups and edge switches within them */
	int same;              /* one edge switch */
} ends;

static ends ends_of(const fx_dfr *r, const fx_flow *fl)
{
	int64_t x = fl->src / r->p, y = fl->dst / r->p;
	return (ends){x / r->E, x % r->E, y / r->E, y % r->E, x == y};
}

static void hosts(const fx_dfr *r, const sink *k, const fx_flow *fl)
{
	put(k, fx_fabric_dirlink(r->f, fl->src, fl->src), fl->bytes);
	put(k, fx_fabric_dirlink(r->f, fl->dst, r->f->ends[2 * fl->dst + 1]), fl->bytes);
}

static void flow_minimal(const fx_dfr *r, const sink *k, const fx_flow *fl, int hash,
			 fx_path_stats *st)
{
	ends x = ends_of(r, fl);
	hosts(r, k, fl);
	if (x.same) {
		stat_path(r, st, 0, 0);
		return;
	}
	if (x.s == x.t) {
		stat_path(r, st, intra(r, k, x.s, x.rs, x.rd, hash && r->ls ? fl->dst % r->S : -1,
				       fl->bytes), 0);
		return;
	}
	int64_t c0 = hash ? fl->dst % r->m : 0, c1 = hash ? c0 + 1 : r->m;
	double share = fl->bytes / (double)(c1 - c0);
	int most = 0;
	for (int64_t c = c0; c < c1; c++) {
		int64_t gw, ld, e;
		gport(r, x.s, x.t, c, &gw, &ld, &e);
		int l = src_leg(r, k, x.s, x.rs, gw, share);
		glob(r, k, gw, x.s, e, share);
		l += dst_leg(r, k, x.t, ld, x.rd, share);
		if (l > most)
			most = l;
	}
	stat_path(r, st, most, 1);
}

/* Adds to the leaf-spine transit of group i (expanded by transit_flush). */
static void transit_add(fx_dfr *r, int64_t i, int64_t ld, int64_t gw, double b)
{
	if (!r->transit)
		r->transit = fx_xcalloc((size_t)(r->g * r->a * r->a), sizeof *r->transit);
	int64_t at = (i * r->a + ld) * r->a + gw;
	if (r->transit[at] == 0) {
		r->ttouched = fx_xgrow(r->ttouched, &r->captt, r->ntt + 1, sizeof *r->ttouched);
		r->ttouched[r->ntt++] = at;
	}
	r->transit[at] += b;
}

static void transit_flush(fx_dfr *r, const sink *k)
{
	for (size_t u = 0; u < r->ntt; u++) {
		int64_t at = r->ttouched[u], gw = at % r->a, ld = at / r->a % r->a, i = at / r->a / r->a;
		mid_leg(r, k, i, ld, gw, r->transit[at]);
		r->transit[at] = 0;
	}
	r->ntt = 0;
}

static void flow_valiant(fx_dfr *r, const sink *k, const fx_flow *fl, fx_path_stats *st)
{
	ends x = ends_of(r, fl);
	if (x.same || x.s == x.t || r->g < 3) {
		flow_minimal(r, k, fl, 0, st);
		return;
	}
	hosts(r, k, fl);
	double K = (double)(r->g - 2), m = (double)r->m;
	double leg = fl->bytes / (K * m), mid = leg / m;
	int most = 0;
	for (int64_t i = 0; i < r->g; i++) {
		if (i == x.s || i == x.t)
			continue;
		for (int64_t c2 = 0; c2 < r->m; c2++) {
			gport(r, i, x.t, c2, &r->c2gw[c2], &r->c2ld[c2], &r->c2e[c2]);
			glob(r, k, r->c2gw[c2], i, r->c2e[c2], leg);
			r->c2d[c2] = dst_leg(r, k, x.t, r->c2ld[c2], x.rd, leg);
		}
		for (int64_t c1 = 0; c1 < r->m; c1++) {
			int64_t gw, ld, e;
			gport(r, x.s, i, c1, &gw, &ld, &e);
			int l1 = src_leg(r, k, x.s, x.rs, gw, leg);
			glob(r, k, gw, x.s, e, leg);
			for (int64_t c2 = 0; c2 < r->m; c2++) {
				int lm;
				if (r->ls) {
					lm = ld == r->c2gw[c2] ? 0 : 2;
					if (k && lm)
						transit_add(r, i, ld, r->c2gw[c2], mid);
				} else {
					lm = mid_leg(r, k, i, ld, r->c2gw[c2], mid);
				}
				if (l1 + lm + r->c2d[c2] > most)
					most = l1 + lm + r->c2d[c2];
			}
		}
	}
	stat_path(r, st, most, 2);
}

/* The busiest of the minimal global links from s to t, in seconds. */
static double busiest_global(const fx_dfr *r, int64_t s, int64_t t)
{
	double worst = 0;
	for (int64_t c = 0; c < r->m; c++) {
		int64_t gw, ld, e;
		gport(r, s, t, c, &gw, &ld, &e);
		double busy = r->ml[fx_fabric_dirlink(r->f, e, gsw(r, s, gw))] /
			      (r->f->e[e].count * r->f->e[e].bw);
		if (busy > worst)
			worst = busy;
	}
	return worst;
}

/* UGAL's choice for the pair s -> t from the minimal loads in r->ml
 * (busiest: every pair's busiest_global, or NULL to work them out): 1
 * minimal, 2 Valiant. */
static int decide(fx_dfr *r, int64_t s, int64_t t, const double *busiest)
{
	uint8_t *d = &r->dec[s * r->g + t];
	if (*d)
		return *d;
	r->dtouched = fx_xgrow(r->dtouched, &r->capdt, r->ndt + 1, sizeof *r->dtouched);
	r->dtouched[r->ndt++] = s * r->g + t;
	*d = 1;
	if (r->g < 3)
		return *d;
	int64_t g = r->g;
	double tmin = busiest ? busiest[s * g + t] : busiest_global(r, s, t), tval = 0;
	for (int64_t i = 0; i < g; i++) {
		if (i == s || i == t)
			continue;
		double a = busiest ? busiest[s * g + i] : busiest_global(r, s, i);
		double b = busiest ? busiest[i * g + t] : busiest_global(r, i, t);
		tval += a > b ? a : b;
	}
	tval /= (double)(r->g - 2);
	if (tmin > 2 * tval)
		*d = 2;
	return *d;
}

static void ugal_reset(fx_dfr *r)
{
	for (size_t u = 0; u < r->nmused; u++)
		r->ml[r->mused[u]] = 0;
	r->nmused = 0;
	for (size_t u = 0; u < r->ndt; u++)
		r->dec[r->dtouched[u]] = 0;
	r->ndt = 0;
}

static sink scratch(fx_dfr *r)
{
	if (!r->ml)
		r->ml = fx_xcalloc((size_t)(2 * r->f->ne), sizeof *r->ml);
	return (sink){r->ml, &r->mused, &r->nmused, &r->capmused};
}

int fx_dfr_add(fx_dfr *r, fx_route_policy pol, const fx_flow *flows, size_t n, double *load,
	       fx_path_stats *st, int64_t **used, size_t *nused, size_t *capused)
{
	sink k = {load, used, nused, capused};
	if (pol == FX_ROUTE_UGAL) {
		sink ms = scratch(r);
		for (size_t q = 0; q < n; q++) {  /* the minimal global loads */
			const fx_flow *fl = &flows[q];
			if (fl->src == fl->dst || fl->bytes == 0)
				continue;
			ends x = ends_of(r, fl);
			for (int64_t c = 0; x.s != x.t && c < r->m; c++) {
				int64_t gw, ld, e;
				gport(r, x.s, x.t, c, &gw, &ld, &e);
				glob(r, &ms, gw, x.s, e, fl->bytes / (double)r->m);
			}
		}
	}
	for (size_t q = 0; q < n; q++) {
		const fx_flow *fl = &flows[q];
		if (fl->src == fl->dst || fl->bytes == 0)
			continue;
		int val = pol == FX_ROUTE_VALIANT;
		if (pol == FX_ROUTE_UGAL) {
			ends x = ends_of(r, fl);
			val = x.s != x.t && decide(r, x.s, x.t, NULL) == 2;
		}
		if (val)
			flow_valiant(r, &k, fl, st);
		else
			flow_minimal(r, &k, fl, pol == FX_ROUTE_HASH, st);
	}
	transit_flush(r, &k);
	if (pol == FX_ROUTE_UGAL)
		ugal_reset(r);
	return 0;
}

/* ---- every pair of a device multiset, from counts ---- */

typedef struct counts {
	double *C;       /* [switch] devices' count on each edge switch */
	double *Cg;      /* [group] */
	double *Cr;      /* hash: [switch * m + c] those with device mod m = c */
	double *Cgr;     /* hash: [group * m + c] */
	double *Cs;      /* hash, leaf-spine: [switch * S + j] device mod S = j */
	double *CgS;     /* hash, leaf-spine: [group * S + j] */
	int64_t *npres, *pres1;      /* per group: edge switches with a device, one of them */
	int64_t *npres_r, *pres1_r;  /* hash: per (group, c) */
	int pairs_on_switch;         /* two distinct counted devices share a switch */
} counts;

static void counts_make(const fx_dfr *r, const double *cnt, int hash, counts *c)
{
	int64_t nE = r->g * r->E, m = r->m;
	memset(c, 0, sizeof *c);
	c->C = fx_xcalloc((size_t)nE, sizeof *c->C);
	c->Cg = fx_xcalloc((size_t)r->g, sizeof *c->Cg);
	c->npres = fx_xcalloc((size_t)r->g, sizeof *c->npres);
	c->pres1 = fx_xcalloc((size_t)r->g, sizeof *c->pres1);
	int64_t *ndev = fx_xcalloc((size_t)nE, sizeof *ndev);
	if (hash) {
		c->Cr = fx_xcalloc((size_t)(nE * m), sizeof *c->Cr);
		c->Cgr = fx_xcalloc((size_t)(r->g * m), sizeof *c->Cgr);
		c->npres_r = fx_xcalloc((size_t)(r->g * m), sizeof *c->npres_r);
		c->pres1_r = fx_xcalloc((size_t)(r->g * m), sizeof *c->pres1_r);
		if (r->ls) {
			c->Cs = fx_xcalloc((size_t)(nE * r->S), sizeof *c->Cs);
			c->CgS = fx_xcalloc((size_t)(r->g * r->S), sizeof *c->CgS);
		}
	}
	for (int64_t d = 0; d < r->f->ndev; d++) {
		if (cnt[d] <= 0)
			continue;
		int64_t es = d / r->p, grp = es / r->E;
		c->C[es] += cnt[d];
		c->Cg[grp] += cnt[d];
		if (++ndev[es] == 2)
			c->pairs_on_switch = 1;
		if (hash) {
			c->Cr[es * m + d % m] += cnt[d];
			c->Cgr[grp * m + d % m] += cnt[d];
			if (r->ls) {
				c->Cs[es * r->S + d % r->S] += cnt[d];
				c->CgS[grp * r->S + d % r->S] += cnt[d];
			}
		}
	}
	for (int64_t es = 0; es < nE; es++) {
		int64_t grp = es / r->E;
		if (c->C[es] > 0 && c->npres[grp]++ == 0)
			c->pres1[grp] = es % r->E;
		for (int64_t x = 0; hash && x < m; x++)
			if (c->Cr[es * m + x] > 0 && c->npres_r[grp * m + x]++ == 0)
				c->pres1_r[grp * m + x] = es % r->E;
	}
	free(ndev);
}

static void counts_release(counts *c)
{
	free(c->C);
	free(c->Cg);
	free(c->Cr);
	free(c->Cgr);
	free(c->Cs);
	free(c->CgS);
	free(c->npres);
	free(c->pres1);
	free(c->npres_r);
	free(c->pres1_r);
}

/* The most local hops on a present device's side of global switch j of
 * group grp: 1 unless the only present edge switch is j itself (complete
 * groups; leaf-spine: always 1). */
static int side_max(const fx_dfr *r, int64_t npres, int64_t pres1, int64_t j)
{
	if (npres == 0)
		return -1;
	if (r->ls)
		return 1;
	return npres > 1 || pres1 != j ? 1 : 0;
}

/* Routes b bytes between every two distinct counted devices (cnt[d]
 * copies of device d), by policy pol; w[s g + t] = 1 sends the pair s -> t
 * by Valiant (NULL: none). */
static void counts_route(fx_dfr *r, const sink *k, const double *cnt, double b, int hash,
			 const uint8_t *w, fx_path_stats *st)
{
	const fx_fabric *f = r->f;
	int64_t g = r->g, E = r->E, m = r->m, nE = g * E;
	counts c;
	counts_make(r, cnt, hash, &c);
	double T = 0;
	for (int64_t grp = 0; grp < g; grp++)
		T += c.Cg[grp];
	/* device links */
	for (int64_t d = 0; d < f->ndev; d++)
		if (cnt[d] > 0) {
			double out = cnt[d] * (T - cnt[d]) * b;
			put(k, fx_fabric_dirlink(f, d, d), out);
			put(k, fx_fabric_dirlink(f, d, f->ends[2 * d + 1]), out);
		}
	if (c.pairs_on_switch)
		stat_path(r, st, 0, 0);
	/* within groups */
	for (int64_t s = 0; s < g; s++) {
		if (c.npres[s] < 2)
			continue;
		stat_path(r, st, r->ls ? 2 : 1, 0);
		for (int64_t rs = 0; rs < E; rs++) {
			double cs = c.C[s * E + rs];
			if (cs == 0)
				continue;
			if (!r->ls) {
				for (int64_t rd = 0; rd < E; rd++)
					if (rd != rs)
						put(k, fx_fabric_dirlink(f, local_edge(r, s, rs, rd), esw(r, s, rs)),
						    cs * c.C[s * E + rd] * b);
				continue;
			}
			for (int64_t j = 0; j < r->S; j++) {
				double up = hash ? cs * (c.CgS[s * r->S + j] - c.Cs[(s * E + rs) * r->S + j]) * b
						 : cs * (c.Cg[s] - cs) * b / (double)r->S;
				double down = hash ? c.Cs[(s * E + rs) * r->S + j] * (c.Cg[s] - cs) * b
						   : cs * (c.Cg[s] - cs) * b / (double)r->S;
				put(k, fx_fabric_dirlink(f, ls_edge(r, s, rs, j), esw(r, s, rs)), up);
				put(k, fx_fabric_dirlink(f, ls_edge(r, s, rs, j), gsw(r, s, j)), down);
			}
		}
	}
	/* between groups, minimally */
	for (int64_t s = 0; s < g; s++)
		for (int64_t t = 0; t < g; t++) {
			if (s == t || c.Cg[s] == 0 || c.Cg[t] == 0 || (w && w[s * g + t]))
				continue;
			for (int64_t x = 0; x < m; x++) {
				double share = hash ? c.Cgr[t * m + x] : c.Cg[t] / (double)m;
				if (share == 0)
					continue;
				int64_t gw, ld, e;
				gport(r, s, t, x, &gw, &ld, &e);
				glob(r, k, gw, s, e, c.Cg[s] * share * b);
				for (int64_t rs = 0; rs < E; rs++)
					if (c.C[s * E + rs] > 0)
						src_leg(r, k, s, rs, gw, c.C[s * E + rs] * share * b);
				double from = c.Cg[s] / (hash ? 1.0 : (double)m);
				for (int64_t rd = 0; rd < E; rd++) {
					double in = hash ? c.Cr[(t * E + rd) * m + x] : c.C[t * E + rd];
					if (in > 0)
						dst_leg(r, k, t, ld, rd, from * in * b);
				}
				int ls_ = side_max(r, c.npres[s], c.pres1[s], gw);
				int ld_ = hash ? side_max(r, c.npres_r[t * m + x], c.pres1_r[t * m + x], ld)
					       : side_max(r, c.npres[t], c.pres1[t], ld);
				stat_path(r, st, ls_ + ld_, 1);
			}
		}
	if (!w || g < 3)
		goto done;
	/* between groups, by Valiant: W[s] the counted devices of the groups s
	 * sends to by Valiant, Wc[t] of those sending to t */
	double K = (double)(g - 2), mm = (double)m;
	double *W = fx_xcalloc((size_t)g, sizeof *W), *Wc = fx_xcalloc((size_t)g, sizeof *Wc);
	double *mid = fx_xmalloc((size_t)(r->a * r->a) * sizeof *mid);
	int any = 0;
	for (int64_t s = 0; s < g; s++)
		for (int64_t t = 0; t < g; t++)
			if (s != t && w[s * g + t] && c.Cg[s] > 0 && c.Cg[t] > 0) {
				W[s] += c.Cg[t];
				Wc[t] += c.Cg[s];
				any = 1;
			}
	for (int64_t s = 0; any && s < g; s++)
		for (int64_t i = 0; i < g; i++) {
			if (i == s)
				continue;
			/* leg 1, s -> i: what s sends by Valiant to groups other than i */
			double A = W[s] - (w[s * g + i] && c.Cg[i] > 0 ? c.Cg[i] : 0);
			/* leg 2, s -> t = i... seen from the destination: what groups
			 * other than s send to i by Valiant through s */
			double B = Wc[i] - (w[s * g + i] && c.Cg[s] > 0 ? c.Cg[s] : 0);
			for (int64_t x = 0; x < m; x++) {
				int64_t gw, ld, e;
				gport(r, s, i, x, &gw, &ld, &e);
				if (A > 0 && c.Cg[s] > 0) {
					glob(r, k, gw, s, e, c.Cg[s] * A * b / K / mm);
					for (int64_t rs = 0; rs < E; rs++)
						if (c.C[s * E + rs] > 0)
							src_leg(r, k, s, rs, gw, c.C[s * E + rs] * A * b / K / mm);
				}
				if (B > 0 && c.Cg[i] > 0) {  /* s is the intermediate, i the destination */
					glob(r, k, gw, s, e, c.Cg[i] * B * b / K / mm);
					for (int64_t rd = 0; rd < E; rd++)
						if (c.C[i * E + rd] > 0)
							dst_leg(r, k, i, ld, rd, c.C[i * E + rd] * B * b / K / mm);
				}
			}
		}
	/* in each intermediate group i: from where the flows from s land
	 * (ld1) to where those to t leave (gw2); the longest path with it,
	 * from the local hops before (l1) and after (d2) */
	int64_t *ld1 = fx_xmalloc((size_t)(g * m) * sizeof *ld1), *gw2 = fx_xmalloc((size_t)(g * m) * sizeof *gw2);
	int *l1 = fx_xmalloc((size_t)(g * m) * sizeof *l1), *d2 = fx_xmalloc((size_t)(g * m) * sizeof *d2);
	double coef = b / K / (mm * mm);
	int most = -1;
	for (int64_t i = 0; any && i < g; i++) {
		memset(mid, 0, (size_t)(r->a * r->a) * sizeof *mid);
		for (int64_t x = 0; x < g; x++)
			for (int64_t y = 0; x != i && y < m; y++) {
				int64_t gw, ld, e;
				gport(r, x, i, y, &gw, &ld, &e);  /* x as the source */
				ld1[x * m + y] = ld;
				l1[x * m + y] = side_max(r, c.npres[x], c.pres1[x], gw);
				gport(r, i, x, y, &gw, &ld, &e);  /* x as the destination */
				gw2[x * m + y] = gw;
				d2[x * m + y] = side_max(r, c.npres[x], c.pres1[x], ld);
			}
		for (int64_t s = 0; s < g; s++) {
			if (s == i || c.Cg[s] == 0)
				continue;
			for (int64_t t = 0; t < g; t++) {
				if (t == i || s == t || !w[s * g + t] || c.Cg[t] == 0)
					continue;
				double amt = c.Cg[s] * c.Cg[t] * coef;
				for (int64_t x1 = 0; x1 < m; x1++) {
					int64_t base = ld1[s * m + x1] * r->a;
					for (int64_t x2 = 0; x2 < m; x2++) {
						int64_t gw = gw2[t * m + x2];
						mid[base + gw] += amt;
						int len = l1[s * m + x1] + d2[t * m + x2] +
							  (ld1[s * m + x1] == gw ? 0 : r->ls ? 2 : 1);
						if (len > most)
							most = len;
					}
				}
			}
		}
		for (int64_t x = 0; x < r->a * r->a; x++)
			if (mid[x] > 0)
				mid_leg(r, k, i, x / r->a, x % r->a, mid[x]);
	}
	if (most >= 0)
		stat_path(r, st, most, 2);
	free(ld1);
	free(gw2);
	free(l1);
	free(d2);
	free(W);
	free(Wc);
	free(mid);
done:
	(void)nE;
	counts_release(&c);
}

/* UGAL from counts: the minimal global loads, then a decision per pair. */
static void counts_ugal(fx_dfr *r, const sink *k, const double *cnt, double b, fx_path_stats *st)
{
	int64_t g = r->g;
	sink ms = scratch(r);
	double *Cg = fx_xcalloc((size_t)g, sizeof *Cg);
	for (int64_t d = 0; d < r->f->ndev; d++)
		Cg[d / r->p / r->E] += cnt[d] > 0 ? cnt[d] : 0;
	for (int64_t s = 0; s < g; s++)
		for (int64_t t = 0; t < g; t++)
			for (int64_t x = 0; s != t && x < r->m; x++) {
				int64_t gw, ld, e;
				gport(r, s, t, x, &gw, &ld, &e);
				glob(r, &ms, gw, s, e, Cg[s] * Cg[t] * b / (double)r->m);
			}
	uint8_t *w = fx_xcalloc((size_t)(g * g), 1);
	double *busiest = fx_xcalloc((size_t)(g * g), sizeof *busiest);
	for (int64_t s = 0; s < g; s++)
		for (int64_t t = 0; t < g; t++)
			if (s != t)
				busiest[s * g + t] = busiest_global(r, s, t);
	for (int64_t s = 0; s < g; s++)
		for (int64_t t = 0; t < g; t++)
			if (s != t && Cg[s] > 0 && Cg[t] > 0)
				w[s * g + t] = decide(r, s, t, busiest) == 2;
	free(busiest);
	ugal_reset(r);
	counts_route(r, k, cnt, b, 0, w, st);
	free(w);
	free(Cg);
}

int fx_dfr_counts(fx_dfr *r, fx_route_policy pol, const double *cnt, double b, double *load,
		  fx_path_stats *st, int64_t **used, size_t *nused, size_t *capused)
{
	sink k = {load, used, nused, capused};
	if (pol == FX_ROUTE_UGAL) {
		counts_ugal(r, &k, cnt, b, st);
		return 0;
	}
	uint8_t *w = NULL;
	if (pol == FX_ROUTE_VALIANT && r->g >= 3) {  /* two groups: no intermediate, minimal */
		w = fx_xmalloc((size_t)(r->g * r->g));
		memset(w, 1, (size_t)(r->g * r->g));
	}
	counts_route(r, &k, cnt, b, pol == FX_ROUTE_HASH, w, st);
	free(w);
	return 0;
}

double fx_dfr_counts_cost(const fx_dfr *r, fx_route_policy pol)
{
	double g = (double)r->g, m = (double)r->m;
	double cost = (double)r->f->ndev + g * (double)r->E * g * m + g * g * m;
	if (pol == FX_ROUTE_VALIANT || pol == FX_ROUTE_UGAL)
		cost += g * g * g * m * m;
	return cost;
}

double fx_dfr_flow_cost(const fx_dfr *r, fx_route_policy pol)
{
	double m = (double)r->m;
	if (pol == FX_ROUTE_VALIANT || pol == FX_ROUTE_UGAL)
		return (double)(r->g - 2 > 0 ? r->g - 2 : 1) * m * (m + 2);
	return m;
}
