/*
 * ECMP split on up/down layered fabrics: a round of flows in one upward
 * sweep by source and one downward sweep by destination (issue #15).
 *
 * The grouped push (ecmp_sweep.c) pushes each destination group down its
 * own shortest-path DAG.  On a fat-tree every push from another pod
 * reaches all (k/2)^2 core switches, so a pairwise round of n flows costs
 * n/(k/2) pushes of k^2/4 cores: O(n^(4/3)) a round.  Here the fabric's
 * layered structure does the aggregation instead, and only where the
 * built fabric is shown to have it:
 *
 * Levels are distances from the devices (hosts 0, leaves 1, aggregation
 * 2, cores 3; vertices that neither are devices nor relay carry nothing
 * and are left out).  A link from level l to l+1 is an up link.  The
 * cone of a target T is T and every vertex with a path of down links to T
 * (relaying on the way).  The property, checked for every target from its
 * own relay-aware search (the reference's distances, routing/bfs.c)
 * the first time a round asks for it: at every vertex v
 * that reaches T, the reference's next hops towards T are exactly
 *   - v's up links, when v is outside T's cone;
 *   - the down links into T's cone (to T or a relaying vertex), inside.
 * Any mismatch, a target at the top level, or a vertex of no level, and
 * the router goes back to the grouped push for good (rounds already done
 * had every target checked).
 *
 * Under the property the bytes climbing out of v are split over v's up
 * links whatever their destination, so a round is:
 *   - up: level by level, each vertex's entries (target, bytes) are
 *     merged; those whose target's cone holds v turn down, the rest climb:
 *     their sum is split once over the up links (the loads), and each
 *     entry is carried to the vertex above by its share;
 *   - the top: entries at the level below the top (A) are grouped by the
 *     target's class, the set of level-below-top vertices in its cone that
 *     may take the bytes; every top vertex splits a class's bytes the same
 *     way.  A class's bytes load A's up links and each top vertex's down
 *     links once, and A's weights through the top to each vertex a below
 *     it (the sum over top vertices of up share x down share) send each
 *     entry on to a;
 *   - down: from where an entry turned (or arrived from the top), by the
 *     target's down split in its cone, to the target; home targets then
 *     take the last hop as ecmp_sweep.c does.
 * On a fat-tree a shifted round keeps one or two targets per leaf and
 * O(k) per aggregation switch: O(V + E) a round, not O(n^(4/3)).
 *
 * Exactness: the same next hops and split weights as the reference, summed
 * in another order, so loads agree to rounding (tests/unit/test_sweep.c
 * holds them to 1e-12 relative).  Hops and latencies come from each
 * target's search, started as ecmp_sweep.c starts it (at the home with the
 * last hop's worst latency), so they are the reference's exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

/* An incidence position (vertex v, link e) as the sweeps read it. */
typedef struct ud_slot {
	int64_t nbr;  /* the other end */
	int64_t dl;   /* directed link out of v */
	double w;     /* count x bandwidth: the reference's split weight */
} ud_slot;

/* Per target vertex, built from its search on first use. */
typedef struct ud_target {
	int state;        /* 0 not built, 1 checked */
	int32_t cls;      /* its class at the top */
	int64_t ncone;    /* cone vertices below the top, by id */
	int64_t *cone;
	int64_t *nh_off;  /* [ncone + 1]: their next-hop positions in nh */
	int64_t *nh;
	double *nh_tot;   /* summed weight of each one's next hops */
} ud_target;

/* Hops and worst latency from every source key to one target started at
 * latency l0 (home targets: off = 1, the last hop). */
typedef struct ud_rec {
	double l0;
	int off;
	int32_t *dist;
	double *lat;
	struct ud_rec *next;
} ud_rec;

/* The vertices below the top that a class's bytes go down to, and each
 * top vertex's next hops into them. */
typedef struct ud_class {
	int64_t n, *region;  /* sorted */
	int64_t *off;        /* [ntop + 1] into nh, by top index */
	int64_t *nh;
	double *tot;         /* [ntop] */
	int32_t next;        /* the next class whose region starts at the same vertex */
} ud_class;

/* The vertices of one level in a sweep and their entries. */
typedef struct ud_front {
	int64_t n;
	size_t cap, cape;
	int64_t *v, *off, *cnt;  /* entries off[i] .. off[i] + cnt[i] - 1 */
	int64_t ne;
	int64_t *T;
	double *amt;
} ud_front;

struct fx_updown {
	const fx_fabric *f;
	const fx_inc *inc;
	const int64_t *inc_off;
	ud_slot *slot;
	int32_t *lev, ltop;
	double *up_tot;      /* per vertex: summed weight of its up links */
	int64_t *home;       /* per device: its one relaying neighbour, or -1 */
	double *home_lat;
	int64_t *kid, nk;    /* source key index (homes, unhomed devices), or -1 */
	int64_t *topi, ntop, *tops;
	ud_target *tg;       /* per vertex */
	ud_rec **rec;        /* per vertex */
	ud_class *cls;
	int32_t ncls;
	size_t capcls;
	int32_t *cls_first;  /* per vertex: the first class whose region starts there */
	int bad;             /* the property failed for some target */
	/* scratch */
	int32_t *dist;
	double *lat;
	int32_t *queue;
	uint64_t *mark, gen; /* stamps: mark[v] == gen */
	int64_t *pos;        /* per vertex: an index, valid under its stamp */
	uint64_t *tmark;     /* per vertex, as a target: stamp of pos_t */
	int64_t *pos_t;
	double *into;        /* per device: bytes addressed to it this round */
	ud_front fr[2];
	double *hw;          /* per vertex: weight through the top (stamped by mark) */
	int64_t *hlist;      /* over the top: per class, its id, fill and start */
	size_t caph;
	int64_t *ord;        /* over the top: entries by class */
	size_t capord;
	int64_t **used;
	size_t *nused, *capused;
};

static inline void bump(fx_updown *s, double *load, int64_t l, double bytes)
{
	fx_load_add(load, l, bytes, s->used, s->nused, s->capused);
}

static int inert(const fx_fabric *f, int64_t v)
{
	return v >= f->ndev && !fx_fabric_relays(f, v);
}

fx_updown *fx_updown_new(const fx_fabric *f, const fx_inc *inc)
{
	if (f->ndev < 2)
		return NULL;
	const int64_t *inc_off = inc->off, *inc_edge = inc->edge;
	size_t nv = (size_t)f->nv, np = (size_t)(inc_off[f->nv] ? inc_off[f->nv] : 1);
	/* levels: distance from the devices, every device a seed; a vertex
	 * that is no device and does not relay is reached but has none */
	int32_t *lev = fx_xmalloc(nv * sizeof *lev), *q = fx_xmalloc(nv * sizeof *q);
	fx_bfs b = {.dist = lev, .queue = q};
	fx_bfs_start(&b, f->nv);
	for (int64_t v = 0; v < f->ndev; v++)
		fx_bfs_seed(&b, v, 0);
	fx_bfs_grow(&b, inc, -1, INT32_MAX);
	int32_t ltop = 0;
	for (int64_t v = 0; v < f->nv; v++) {
		if (inert(f, v))
			lev[v] = -1;
		ltop = lev[v] > ltop ? lev[v] : ltop;
	}
	int ok = ltop >= 1;
	for (int64_t v = 0; v < f->nv && ok; v++)
		ok = lev[v] >= 0 || inert(f, v);
	if (!ok) {
		free(lev);
		free(q);
		return NULL;
	}
	fx_updown *s = fx_xcalloc(1, sizeof *s);
	s->f = f;
	s->inc = inc;
	s->inc_off = inc_off;
	s->queue = q;
	s->lev = lev;
	s->ltop = ltop;
	s->slot = fx_xmalloc(np * sizeof *s->slot);
	s->up_tot = fx_xcalloc(nv, sizeof *s->up_tot);
	for (int64_t v = 0; v < f->nv; v++)
		for (int64_t t = inc_off[v]; t < inc_off[v + 1]; t++) {
			int64_t e = inc_edge[t];
			ud_slot *sl = &s->slot[t];
			sl->nbr = fx_fabric_other(f, e, v);
			sl->dl = fx_fabric_dirlink(f, e, v);
			sl->w = f->e[e].count * f->e[e].bw;
			if (lev[v] >= 0 && lev[sl->nbr] == lev[v] + 1)
				s->up_tot[v] += sl->w;
		}
	/* homes exactly as ecmp_sweep.c finds them */
	size_t nd = (size_t)f->ndev;
	s->home = fx_xmalloc(nd * sizeof *s->home);
	s->home_lat = fx_xcalloc(nd, sizeof *s->home_lat);
	fx_inc_homes(inc, f->ndev, s->home, s->home_lat);
	s->kid = fx_xmalloc(nv * sizeof *s->kid);
	for (int64_t v = 0; v < f->nv; v++)
		s->kid[v] = -1;
	for (int64_t d = 0; d < f->ndev; d++) {
		int64_t k = s->home[d] >= 0 ? s->home[d] : d;
		if (s->kid[k] < 0)
			s->kid[k] = s->nk++;
	}
	s->topi = fx_xmalloc(nv * sizeof *s->topi);
	s->tops = fx_xmalloc(nv * sizeof *s->tops);
	for (int64_t v = 0; v < f->nv; v++) {
		s->topi[v] = lev[v] == ltop ? s->ntop : -1;
		if (lev[v] == ltop)
			s->tops[s->ntop++] = v;
	}
	s->tg = fx_xcalloc(nv, sizeof *s->tg);
	s->rec = fx_xcalloc(nv, sizeof *s->rec);
	s->cls_first = fx_xmalloc(nv * sizeof *s->cls_first);
	for (int64_t v = 0; v < f->nv; v++)
		s->cls_first[v] = -1;
	s->dist = fx_xmalloc(nv * sizeof *s->dist);
	s->lat = fx_xmalloc(nv * sizeof *s->lat);
	s->mark = fx_xcalloc(nv, sizeof *s->mark);
	s->pos = fx_xmalloc(nv * sizeof *s->pos);
	s->tmark = fx_xcalloc(nv, sizeof *s->tmark);
	s->pos_t = fx_xmalloc(nv * sizeof *s->pos_t);
	s->into = fx_xcalloc(nd, sizeof *s->into);
	s->hw = fx_xmalloc(nv * sizeof *s->hw);
	return s;
}

static void front_free(ud_front *fr)
{
	free(fr->v);
	free(fr->off);
	free(fr->cnt);
	free(fr->T);
	free(fr->amt);
}

void fx_updown_free(fx_updown *s)
{
	if (!s)
		return;
	for (int64_t v = 0; v < s->f->nv; v++) {
		ud_target *g = &s->tg[v];
		free(g->cone);
		free(g->nh_off);
		free(g->nh);
		free(g->nh_tot);
		for (ud_rec *r = s->rec[v], *nx; r; r = nx) {
			nx = r->next;
			free(r->dist);
			free(r->lat);
			free(r);
		}
	}
	for (int32_t k = 0; k < s->ncls; k++) {
		free(s->cls[k].region);
		free(s->cls[k].off);
		free(s->cls[k].nh);
		free(s->cls[k].tot);
	}
	free(s->cls);
	free(s->cls_first);
	free(s->tg);
	free(s->rec);
	free(s->lev);
	free(s->slot);
	free(s->up_tot);
	free(s->home);
	free(s->home_lat);
	free(s->kid);
	free(s->topi);
	free(s->tops);
	free(s->dist);
	free(s->lat);
	free(s->queue);
	free(s->mark);
	free(s->pos);
	free(s->tmark);
	free(s->pos_t);
	free(s->into);
	free(s->hw);
	free(s->hlist);
	free(s->ord);
	front_free(&s->fr[0]);
	front_free(&s->fr[1]);
	free(s);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* The class of a region (sorted), made on first sight: every top vertex's
 * next hops into the region. */
static int32_t class_of(fx_updown *s, const int64_t *region, int64_t n)
{
	for (int32_t k = s->cls_first[region[0]]; k >= 0; k = s->cls[k].next)
		if (s->cls[k].n == n && memcmp(s->cls[k].region, region, (size_t)n * sizeof *region) == 0)
			return k;
	s->cls = fx_xgrow(s->cls, &s->capcls, (size_t)s->ncls + 1, sizeof *s->cls);
	int32_t k = s->ncls++;
	ud_class *c = &s->cls[k];
	c->n = n;
	c->region = fx_xmalloc((size_t)n * sizeof *c->region);
	memcpy(c->region, region, (size_t)n * sizeof *region);
	c->next = s->cls_first[region[0]];
	s->cls_first[region[0]] = k;
	uint64_t g = ++s->gen;
	for (int64_t i = 0; i < n; i++)
		s->mark[region[i]] = g;
	c->off = fx_xmalloc((size_t)(s->ntop + 1) * sizeof *c->off);
	c->tot = fx_xcalloc((size_t)(s->ntop ? s->ntop : 1), sizeof *c->tot);
	size_t len = 0, cap = 0;
	c->nh = NULL;
	for (int64_t i = 0; i < s->ntop; i++) {
		int64_t C = s->tops[i];
		c->off[i] = (int64_t)len;
		for (int64_t t = s->inc_off[C]; t < s->inc_off[C + 1]; t++)
			if (s->mark[s->slot[t].nbr] == g && s->lev[s->slot[t].nbr] == s->ltop - 1) {
				c->nh = fx_xgrow(c->nh, &cap, len + 1, sizeof *c->nh);
				c->nh[len++] = t;
				c->tot[i] += s->slot[t].w;
			}
	}
	c->off[s->ntop] = (int64_t)len;
	return k;
}

/* Checks the property for target T from the search in s->dist (just run)
 * and keeps its cone and class; 0, or -1 when it fails. */
static int build_target(fx_updown *s, int64_t T)
{
	const fx_fabric *f = s->f;
	const int32_t *lev = s->lev, *dist = s->dist;
	if (lev[T] < 0 || lev[T] >= s->ltop)
		return -1;
	/* the cone: up from T through vertices that may pass bytes on */
	uint64_t g = ++s->gen;
	int32_t *q = s->queue;
	int64_t head = 0, tail = 0;
	s->mark[T] = g;
	q[tail++] = (int32_t)T;
	while (head < tail) {
		int64_t v = q[head++];
		if (v != T && !fx_fabric_relays(f, v))
			continue;
		for (int64_t t = s->inc_off[v]; t < s->inc_off[v + 1]; t++) {
			int64_t w = s->slot[t].nbr;
			if (lev[w] == lev[v] + 1 && s->mark[w] != g) {
				s->mark[w] = g;
				q[tail++] = (int32_t)w;
			}
		}
	}
	/* the reference's next hops, at every vertex that reaches T */
	for (int64_t v = 0; v < f->nv; v++) {
		if (dist[v] <= 0 || inert(f, v))  /* inert: never holds bytes */
			continue;
		int in = s->mark[v] == g;
		for (int64_t t = s->inc_off[v]; t < s->inc_off[v + 1]; t++) {
			int64_t w = s->slot[t].nbr;
			int hop = dist[w] == dist[v] - 1 && (w == T || fx_fabric_relays(f, w));
			int want = in ? lev[w] == lev[v] - 1 && s->mark[w] == g &&
						(w == T || fx_fabric_relays(f, w))
				      : lev[v] >= 0 && lev[w] == lev[v] + 1;
			if (hop != want)
				return -1;
		}
	}
	ud_target *tg = &s->tg[T];
	int64_t n = 0, *region = fx_xmalloc((size_t)tail * sizeof *region), nr = 0;
	for (int64_t i = 0; i < tail; i++) {
		int64_t v = q[i];
		if (lev[v] < s->ltop)
			n++;
		if (lev[v] == s->ltop - 1 && (v == T || fx_fabric_relays(f, v)))
			region[nr++] = v;
	}
	if (nr == 0) {
		free(region);
		return -1;
	}
	qsort(region, (size_t)nr, sizeof *region, cmp_i64);
	tg->cls = class_of(s, region, nr);
	free(region);
	tg->ncone = n;
	tg->cone = fx_xmalloc((size_t)n * sizeof *tg->cone);
	n = 0;
	for (int64_t i = 0; i < tail; i++)
		if (lev[q[i]] < s->ltop)
			tg->cone[n++] = q[i];
	qsort(tg->cone, (size_t)n, sizeof *tg->cone, cmp_i64);
	tg->nh_off = fx_xmalloc((size_t)(n + 1) * sizeof *tg->nh_off);
	tg->nh_tot = fx_xcalloc((size_t)(n ? n : 1), sizeof *tg->nh_tot);
	size_t len = 0, cap = 0;
	for (int64_t i = 0; i < n; i++) {
		int64_t v = tg->cone[i];
		tg->nh_off[i] = (int64_t)len;
		for (int64_t t = s->inc_off[v]; v != T && t < s->inc_off[v + 1]; t++) {
			int64_t w = s->slot[t].nbr;
			if (dist[w] == dist[v] - 1 && (w == T || fx_fabric_relays(f, w))) {
				tg->nh = fx_xgrow(tg->nh, &cap, len + 1, sizeof *tg->nh);
				tg->nh[len++] = t;
				tg->nh_tot[i] += s->slot[t].w;
			}
		}
	}
	tg->nh_off[n] = (int64_t)len;
	tg->state = 1;
	return 0;
}

/* Target T's hops and latencies started at l0; NULL when the property
 * fails for T. */
static ud_rec *rec_get(fx_updown *s, int64_t T, double l0, int off)
{
	for (ud_rec *r = s->rec[T]; r; r = r->next)
		if (r->l0 == l0 && r->off == off)
			return r;
	fx_bfs b = {.dist = s->dist, .lat = s->lat, .queue = s->queue};
	fx_bfs_from(&b, s->inc, T, l0);  /* the reference's search */
	if (!s->tg[T].state && build_target(s, T) < 0)
		return NULL;
	ud_rec *r = fx_xmalloc(sizeof *r);
	r->l0 = l0;
	r->off = off;
	r->dist = fx_xmalloc((size_t)s->nk * sizeof *r->dist);
	r->lat = fx_xmalloc((size_t)s->nk * sizeof *r->lat);
	for (int64_t v = 0; v < s->f->nv; v++)
		if (s->kid[v] >= 0) {
			r->dist[s->kid[v]] = s->dist[v];
			r->lat[s->kid[v]] = s->lat[v];
		}
	r->next = s->rec[T];
	s->rec[T] = r;
	return r;
}

/* Position of v in T's cone (below the top), or -1. */
static int64_t cone_index(const ud_target *tg, int64_t v)
{
	int64_t lo = 0, hi = tg->ncone;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (tg->cone[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < tg->ncone && tg->cone[lo] == v ? lo : -1;
}

/* Bytes at cone vertex v (index ci) down T's split to T. */
static void push_down(fx_updown *s, int64_t T, int64_t ci, double m, double *load)
{
	const ud_target *tg = &s->tg[T];
	for (int64_t p = tg->nh_off[ci]; p < tg->nh_off[ci + 1]; p++) {
		const ud_slot *sl = &s->slot[tg->nh[p]];
		double share = m * sl->w / tg->nh_tot[ci];
		bump(s, load, sl->dl, share);
		if (sl->nbr != T)
			push_down(s, T, cone_index(tg, sl->nbr), share, load);
	}
}

/* Room for one more vertex and `more` more entries in fr. */
static void front_room(ud_front *fr, int64_t more)
{
	if ((size_t)fr->n + 1 <= fr->cap && (size_t)(fr->ne + more) <= fr->cape)
		return;
	size_t c = fr->cap;
	fr->v = fx_xgrow(fr->v, &c, (size_t)fr->n + 1, sizeof *fr->v);
	c = fr->cap;
	fr->off = fx_xgrow(fr->off, &c, (size_t)fr->n + 1, sizeof *fr->off);
	fr->cnt = fx_xgrow(fr->cnt, &fr->cap, (size_t)fr->n + 1, sizeof *fr->cnt);
	c = fr->cape;
	fr->T = fx_xgrow(fr->T, &c, (size_t)(fr->ne + more), sizeof *fr->T);
	fr->amt = fx_xgrow(fr->amt, &fr->cape, (size_t)(fr->ne + more), sizeof *fr->amt);
}

/* Adds m bytes for target T to the vertex being filled (the last of fr),
 * merging with its entry for T. */
static void front_add(fx_updown *s, ud_front *fr, uint64_t stamp, int64_t T, double m)
{
	if (s->tmark[T] == stamp) {
		fr->amt[s->pos_t[T]] += m;
		return;
	}
	s->tmark[T] = stamp;
	s->pos_t[T] = fr->ne;
	fr->T[fr->ne] = T;
	fr->amt[fr->ne++] = m;
	fr->cnt[fr->n - 1]++;
}

static void front_open(ud_front *fr, int64_t v, int64_t more)
{
	front_room(fr, more);
	fr->v[fr->n] = v;
	fr->off[fr->n] = fr->ne;
	fr->cnt[fr->n] = 0;
	fr->n++;
}

/* The top: A's climbing entries (fr's vertex i) over the top to the level
 * below it, and on down to their targets. */
static void over_top(fx_updown *s, ud_front *fr, int64_t i, double *load)
{
	int64_t A = fr->v[i], e0 = fr->off[i], ne = fr->cnt[i];
	/* the entries by class (a counting sort; tmark/pos_t are indexed by
	 * class id here: there are no more classes than vertices) */
	uint64_t cstamp = ++s->gen;
	int64_t nk = 0;
	s->ord = fx_xgrow(s->ord, &s->capord, (size_t)(ne + 1), sizeof *s->ord);
	for (int64_t j = 0; j < ne; j++) {
		int32_t k = s->tg[fr->T[e0 + j]].cls;
		if (s->tmark[k] != cstamp) {
			s->tmark[k] = cstamp;
			s->pos_t[k] = nk;
			s->hlist = fx_xgrow(s->hlist, &s->caph, (size_t)(3 * nk + 3), sizeof *s->hlist);
			s->hlist[3 * nk] = k;
			s->hlist[3 * nk + 1] = 0;  /* entries, then where they start */
			s->lat[nk] = 0;            /* borrowed: the class's bytes */
			nk++;
		}
		s->hlist[3 * s->pos_t[k] + 1]++;
		s->lat[s->pos_t[k]] += fr->amt[e0 + j];
	}
	for (int64_t ki = 0, at = 0; ki < nk; ki++) {
		s->hlist[3 * ki + 2] = at;
		at += s->hlist[3 * ki + 1];
		s->hlist[3 * ki + 1] = s->hlist[3 * ki + 2];  /* fill pointer */
	}
	for (int64_t j = 0; j < ne; j++) {
		int64_t ki = s->pos_t[s->tg[fr->T[e0 + j]].cls];
		s->ord[s->hlist[3 * ki + 1]++] = e0 + j;
	}
	/* per class: loads over the top, then each entry to the vertices below */
	for (int64_t ki = 0; ki < nk; ki++) {
		const ud_class *c = &s->cls[s->hlist[3 * ki]];
		double Y = s->lat[ki];
		uint64_t hstamp = ++s->gen;
		int64_t nh = 0;
		for (int64_t t = s->inc_off[A]; t < s->inc_off[A + 1]; t++) {
			const ud_slot *up = &s->slot[t];
			int64_t ti = s->topi[up->nbr];
			if (ti < 0)
				continue;
			double x = Y * up->w / s->up_tot[A], fu = up->w / s->up_tot[A];
			for (int64_t p = c->off[ti]; p < c->off[ti + 1]; p++) {
				const ud_slot *dn = &s->slot[c->nh[p]];
				bump(s, load, dn->dl, x * dn->w / c->tot[ti]);
				int64_t a = dn->nbr;
				if (s->mark[a] != hstamp) {
					s->mark[a] = hstamp;
					s->hw[a] = 0;
					s->queue[nh++] = (int32_t)a;  /* borrowed: the vertices reached */
				}
				s->hw[a] += fu * (dn->w / c->tot[ti]);
			}
		}
		for (int64_t o = s->hlist[3 * ki + 2]; o < s->hlist[3 * ki + 1]; o++) {
			int64_t j = s->ord[o], T = fr->T[j];
			for (int64_t h = 0; h < nh; h++) {
				int64_t a = s->queue[h];
				if (a != T)
					push_down(s, T, cone_index(&s->tg[T], a), fr->amt[j] * s->hw[a], load);
			}
		}
	}
}

/* The last hop of a home target to device d, as ecmp_sweep.c splits it. */
static void last_hop(fx_updown *s, int64_t d, double m, double *load)
{
	double total = 0;
	for (int64_t t = s->inc_off[d]; t < s->inc_off[d + 1]; t++)
		total += s->slot[t].w;
	for (int64_t t = s->inc_off[d]; t < s->inc_off[d + 1]; t++) {
		/* the link u -> d: d's position's directed link reversed */
		int64_t dl = s->slot[t].dl;
		bump(s, load, dl ^ 1, m * s->slot[t].w / total);
	}
}

int fx_updown_add(fx_updown *s, const fx_flow *flows, size_t n, double *load, fx_path_stats *st,
		  int64_t **used, size_t *nused, size_t *capused)
{
	if (s->bad)
		return 1;
	s->used = used;
	s->nused = nused;
	s->capused = capused;
	/* hops and latencies, and every target checked, before any load */
	int64_t hops = st->max_hops;
	double latm = st->max_latency;
	for (size_t i = 0; i < n; i++) {
		const fx_flow *fl = &flows[i];
		if (fl->src == fl->dst || fl->bytes == 0)
			continue;
		int64_t d = fl->dst, u = s->home[d], T = u >= 0 ? u : d;
		ud_rec *r = rec_get(s, T, u >= 0 ? s->home_lat[d] : 0, u >= 0);
		if (!r) {
			s->bad = 1;
			return 1;
		}
		int64_t src = fl->src, hs = s->home[src], k = s->kid[hs >= 0 ? hs : src];
		int32_t dd = r->dist[k];
		if (dd < 0)
			return -1;
		double l = r->lat[k];
		if (hs >= 0) {  /* src hangs off hs: one hop more, its slowest link */
			double best = 0;
			for (int64_t t = s->inc_off[src]; t < s->inc_off[src + 1]; t++)
				if (t == s->inc_off[src] || l + s->inc->lat[t] > best)
					best = l + s->inc->lat[t];
			l = best;
			dd++;
		}
		if (dd + r->off > hops)
			hops = dd + r->off;
		if (l > latm)
			latm = l;
	}
	st->max_hops = hops;
	st->max_latency = latm;
	/* level 0: each source's entries, merged by target */
	ud_front *cur = &s->fr[0], *nxt = &s->fr[1];
	cur->n = cur->ne = 0;
	uint64_t vstamp = ++s->gen;
	int64_t *cnt_at = s->pos;  /* per source: its index in cur */
	for (size_t i = 0; i < n; i++) {  /* sources in order of first flow */
		const fx_flow *fl = &flows[i];
		if (fl->src == fl->dst || fl->bytes == 0 || s->mark[fl->src] == vstamp)
			continue;
		s->mark[fl->src] = vstamp;
		cnt_at[fl->src] = cur->n;
		front_room(cur, 0);
		cur->v[cur->n] = fl->src;
		cur->cnt[cur->n++] = 0;
	}
	for (size_t i = 0; i < n; i++) {
		const fx_flow *fl = &flows[i];
		if (fl->src != fl->dst && fl->bytes != 0)
			cur->cnt[cnt_at[fl->src]]++;
	}
	int64_t tot = 0;
	for (int64_t i = 0; i < cur->n; i++) {
		cur->off[i] = tot;
		tot += cur->cnt[i];
	}
	front_room(cur, tot);
	int64_t *fill = fx_xmalloc((size_t)(cur->n ? cur->n : 1) * sizeof *fill);
	for (int64_t i = 0; i < cur->n; i++)
		fill[i] = cur->off[i];
	for (size_t i = 0; i < n; i++) {
		const fx_flow *fl = &flows[i];
		if (fl->src == fl->dst || fl->bytes == 0)
			continue;
		int64_t d = fl->dst, T = s->home[d] >= 0 ? s->home[d] : d;
		if (s->home[d] >= 0)
			s->into[d] += fl->bytes;
		int64_t j = fill[cnt_at[fl->src]]++;
		cur->T[j] = T;
		cur->amt[j] = fl->bytes;
	}
	free(fill);
	for (int64_t i = 0; i < cur->n; i++) {  /* merge a source's entries by target */
		uint64_t stamp = ++s->gen;
		int64_t w = cur->off[i];
		for (int64_t j = cur->off[i]; j < cur->off[i] + cur->cnt[i]; j++) {
			int64_t T = cur->T[j];
			if (s->tmark[T] == stamp) {
				cur->amt[s->pos_t[T]] += cur->amt[j];
				continue;
			}
			s->tmark[T] = stamp;
			s->pos_t[T] = w;
			cur->T[w] = T;
			cur->amt[w++] = cur->amt[j];
		}
		cur->cnt[i] = w - cur->off[i];
	}
	cur->ne = tot;
	for (int32_t l = 0; l < s->ltop; l++) {
		/* turn what is below, split the rest over the up links */
		vstamp = ++s->gen;
		for (int64_t i = 0; i < cur->n; i++) {
			int64_t v = cur->v[i], w = cur->off[i];
			double c = 0;
			for (int64_t j = cur->off[i]; j < cur->off[i] + cur->cnt[i]; j++) {
				int64_t T = cur->T[j];
				double m = cur->amt[j];
				if (T == v)
					continue;  /* arrived */
				/* a cone holds its target and vertices above it */
				int64_t ci = s->lev[v] > s->lev[T] ? cone_index(&s->tg[T], v) : -1;
				if (ci >= 0) {
					push_down(s, T, ci, m, load);
					continue;
				}
				cur->T[w] = T;
				cur->amt[w++] = m;
				c += m;
			}
			cur->cnt[i] = w - cur->off[i];
			s->mark[v] = vstamp;
			s->pos[v] = i;
			if (c == 0)
				continue;
			for (int64_t t = s->inc_off[v]; t < s->inc_off[v + 1]; t++)
				if (s->lev[s->slot[t].nbr] == l + 1)
					bump(s, load, s->slot[t].dl, c * s->slot[t].w / s->up_tot[v]);
		}
		if (l == s->ltop - 1) {
			for (int64_t i = 0; i < cur->n; i++)
				if (cur->cnt[i] > 0)
					over_top(s, cur, i, load);
			break;
		}
		/* the level above pulls each of its down neighbours' entries */
		nxt->n = nxt->ne = 0;
		uint64_t wstamp = ++s->gen;
		int64_t nw = 0;
		for (int64_t i = 0; i < cur->n; i++) {
			if (cur->cnt[i] == 0)
				continue;
			int64_t v = cur->v[i];
			for (int64_t t = s->inc_off[v]; t < s->inc_off[v + 1]; t++) {
				int64_t w = s->slot[t].nbr;
				if (s->lev[w] == l + 1 && s->mark[w] != wstamp) {
					s->mark[w] = wstamp;
					s->queue[nw++] = (int32_t)w;
				}
			}
		}
		/* pos[] of level-l vertices is still valid: mark[] of level l+1
		 * vertices changed, so test cur membership by the vertex itself */
		for (int64_t wi = 0; wi < nw; wi++) {
			int64_t w = s->queue[wi];
			front_open(nxt, w, 0);
			uint64_t stamp = ++s->gen;
			for (int64_t t = s->inc_off[w]; t < s->inc_off[w + 1]; t++) {
				int64_t v = s->slot[t].nbr;
				if (s->lev[v] != l || s->mark[v] != vstamp)
					continue;
				int64_t i = s->pos[v];
				double fr = s->slot[t].w / s->up_tot[v];
				front_room(nxt, cur->cnt[i]);
				for (int64_t j = cur->off[i]; j < cur->off[i] + cur->cnt[i]; j++)
					front_add(s, nxt, stamp, cur->T[j], cur->amt[j] * fr);
			}
		}
		ud_front *sw = cur;
		cur = nxt;
		nxt = sw;
	}
	/* last hops of home targets */
	for (size_t i = 0; i < n; i++) {
		int64_t d = flows[i].dst;
		if (s->into[d] != 0) {
			last_hop(s, d, s->into[d], load);
			s->into[d] = 0;
		}
	}
	return 0;
}

int fx_updown_check_all(fx_updown *s)
{
	for (int64_t d = 0; d < s->f->ndev && !s->bad; d++) {
		int64_t u = s->home[d];
		if (!rec_get(s, u >= 0 ? u : d, u >= 0 ? s->home_lat[d] : 0, u >= 0))
			s->bad = 1;
	}
	return !s->bad;
}

double fx_updown_check_steps(const fx_updown *s)
{
	return (double)s->nk * (double)(s->f->nv + s->inc_off[s->f->nv]);
}
