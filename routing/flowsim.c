/*
 * Flow-level timing (the maxmin and events modes, routing.h fx_timing):
 * flows over fixed routes share the links max-min fairly, each flow first
 * waiting out its own delay (its route's latency), as SimGrid's CM02
 * network model does.
 *
 * Max-min fairness by progressive filling: every unfrozen flow's rate
 * rises with one level t (rate = weight x t); the link whose capacity the
 * rising rates use up first freezes the flows through it at that level;
 * then the next, until every flow is frozen.  A flow uses link l with
 * coefficient frac (its share of the flow's bytes there: 1 on a single
 * path, the ECMP split's share otherwise), so a link's constraint is
 * sum frac x rate <= count x bandwidth.  Weights: 1 (fair), or 1 / the
 * flow's route latency, SimGrid CM02's sharing penalty (a flow's share is
 * inversely proportional to its RTT: network_cm02.cpp sets the penalty to
 * the route's latency, plus weight-S / bandwidth per link, 0 in CM02).
 *
 * The simulation is event driven: a flow becomes active when its delay
 * has passed, and finishes when its bytes have gone; each such event
 * changes the rates of the flows that share links with it, transitively
 * (its component), so only that component is filled again.  Flows of a
 * ring on distinct links are components of one; a round of flows all
 * crossing one switch is one component, filled once per batch of events
 * (events at the same instant are taken together).  A flow's remaining
 * bytes are brought up to date only when its rate changes.
 *
 * Cost: per event batch O(P log P) for P the (flow, link) pairs of the
 * components it touches; a schedule whose flows finish at few distinct
 * instants is about linear in its flows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

/* A flow's life: released, then (latency first) waiting its delay, sharing
 * links, done; or (trailing) sharing links at once, then its delay, done. */
enum { ST_WAIT = 0, ST_DELAY, ST_ACTIVE, ST_TAIL, ST_DONE };

typedef struct ev {
	double t;
	int32_t flow;
	int32_t ver;     /* the flow's version when queued; stale if it changed */
} ev;

struct fx_fsim {
	const fx_fabric *f;
	int weighted;
	int trailing;        /* the delay after the bytes, not before */
	const fx_paths *paths;
	/* flows */
	size_t n, cap;
	int32_t *path;
	double *bytes, *delay, *rem, *rate, *tlast, *finish;
	int32_t *ver;
	uint8_t *state;
	int32_t **slot;      /* active flows: position in each link's list */
	/* per directed link: its active flows (id, index into the path) */
	int32_t **lf;
	int32_t **lfi;
	int32_t *nlf, *caplf;
	/* event heap */
	ev *heap;
	size_t nheap, capheap;
	double now;
	/* filling scratch, per link */
	double *capr, *wsum;
	int32_t *nfree;
	uint8_t *lmark;
	int64_t *ltouch;
	size_t nltouch, capltouch;
	/* scratch: component flows */
	int32_t *comp;
	size_t ncomp, capcomp;
	uint8_t *fmark;
	/* events of the batch being taken */
	int32_t *batch;
	size_t nbatch, capbatch;
	/* flows reported to the caller: arrived, and whose bytes have left */
	int32_t *done, *sent;
	size_t ndone, capdone, nsent, capsent;
	double max_finish;
	size_t finished;     /* flows done so far */
};

fx_fsim *fx_fsim_new(const fx_fabric *f, const fx_paths *paths, int weighted)
{
	fx_fsim *s = fx_xcalloc(1, sizeof *s);
	size_t nl = (size_t)(2 * f->ne) + 1;
	s->f = f;
	s->paths = paths;
	s->weighted = weighted;
	s->lf = fx_xcalloc(nl, sizeof *s->lf);
	s->lfi = fx_xcalloc(nl, sizeof *s->lfi);
	s->nlf = fx_xcalloc(nl, sizeof *s->nlf);
	s->caplf = fx_xcalloc(nl, sizeof *s->caplf);
	s->capr = fx_xcalloc(nl, sizeof *s->capr);
	s->wsum = fx_xcalloc(nl, sizeof *s->wsum);
	s->nfree = fx_xcalloc(nl, sizeof *s->nfree);
	s->lmark = fx_xcalloc(nl, 1);
	return s;
}

void fx_fsim_free(fx_fsim *s)
{
	if (!s)
		return;
	size_t nl = (size_t)(2 * s->f->ne) + 1;
	for (size_t l = 0; l < nl; l++) {
		free(s->lf[l]);
		free(s->lfi[l]);
	}
	for (size_t i = 0; i < s->n; i++)
		free(s->slot ? s->slot[i] : NULL);
	free(s->lf);
	free(s->lfi);
	free(s->nlf);
	free(s->caplf);
	free(s->capr);
	free(s->wsum);
	free(s->nfree);
	free(s->lmark);
	free(s->ltouch);
	free(s->path);
	free(s->bytes);
	free(s->delay);
	free(s->rem);
	free(s->rate);
	free(s->tlast);
	free(s->finish);
	free(s->ver);
	free(s->state);
	free(s->slot);
	free(s->heap);
	free(s->comp);
	free(s->fmark);
	free(s->batch);
	free(s->done);
	free(s->sent);
	free(s);
}

void fx_fsim_reserve(fx_fsim *s, size_t n)
{
	if (n <= s->cap)
		return;
	size_t c = s->cap;
	s->path = fx_xgrow(s->path, &c, n, sizeof *s->path);
#define GROW(a) do { size_t c2 = s->cap; (a) = fx_xgrow((a), &c2, n, sizeof *(a)); } while (0)
	GROW(s->bytes);
	GROW(s->delay);
	GROW(s->rem);
	GROW(s->rate);
	GROW(s->tlast);
	GROW(s->finish);
	GROW(s->ver);
	GROW(s->state);
	GROW(s->slot);
	GROW(s->fmark);
#undef GROW
	s->cap = c;
}

int32_t fx_fsim_add(fx_fsim *s, int32_t path, double bytes, double delay)
{
	fx_fsim_reserve(s, s->n + 1);
	size_t i = s->n++;
	s->path[i] = path;
	s->bytes[i] = bytes;
	s->delay[i] = delay;
	s->rem[i] = bytes;
	s->rate[i] = 0;
	s->tlast[i] = 0;
	s->finish[i] = -1;
	s->ver[i] = 0;
	s->state[i] = ST_WAIT;
	s->slot[i] = NULL;
	s->fmark[i] = 0;
	return (int32_t)i;
}

/* ---- the event heap ---- */

static void heap_push(fx_fsim *s, double t, int32_t flow)
{
	s->heap = fx_xgrow(s->heap, &s->capheap, s->nheap + 1, sizeof *s->heap);
	size_t i = s->nheap++;
	ev e = {t, flow, s->ver[flow]};
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (s->heap[p].t <= t)
			break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i] = e;
}

static ev heap_pop(fx_fsim *s)
{
	ev top = s->heap[0], last = s->heap[--s->nheap];
	size_t i = 0, n = s->nheap;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && s->heap[c + 1].t < s->heap[c].t)
			c++;
		if (last.t <= s->heap[c].t)
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (n)
		s->heap[i] = last;
	return top;
}

void fx_fsim_release(fx_fsim *s, int32_t i, double t)
{
	s->state[i] = ST_DELAY;
	s->ver[i]++;
	heap_push(s, s->trailing ? t : t + s->delay[i], i);
}

void fx_fsim_set_trailing(fx_fsim *s, int on)
{
	s->trailing = on;
}

/* ---- progressive filling over one component ---- */

typedef struct lkey {
	double t;
	int64_t l;
} lkey;

static void lheap_push(lkey **h, size_t *n, size_t *cap, double t, int64_t l)
{
	*h = fx_xgrow(*h, cap, *n + 1, sizeof **h);
	size_t i = (*n)++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if ((*h)[p].t <= t)
			break;
		(*h)[i] = (*h)[p];
		i = p;
	}
	(*h)[i] = (lkey){t, l};
}

static lkey lheap_pop(lkey *h, size_t *n)
{
	lkey top = h[0], last = h[--*n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1].t < h[c].t)
			c++;
		if (last.t <= h[c].t)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = last;
	return top;
}

static double weight(const fx_fsim *s, int32_t i)
{
	double lat = s->paths->lat[s->path[i]];
	return s->weighted && lat > 0 ? 1 / lat : 1;
}

static void touch_link(fx_fsim *s, int64_t l)
{
	if (s->lmark[l])
		return;
	s->lmark[l] = 1;
	s->ltouch = fx_xgrow(s->ltouch, &s->capltouch, s->nltouch + 1, sizeof *s->ltouch);
	s->ltouch[s->nltouch++] = l;
	const fx_link *lk = &s->f->e[l / 2];
	s->capr[l] = lk->count * lk->bw;
	s->wsum[l] = 0;
	s->nfree[l] = 0;
}

/* Adds flow i to the component (once). */
static void comp_add(fx_fsim *s, int32_t i)
{
	if (s->fmark[i])
		return;
	s->fmark[i] = 1;
	s->comp = fx_xgrow(s->comp, &s->capcomp, s->ncomp + 1, sizeof *s->comp);
	s->comp[s->ncomp++] = i;
}

/* Grows the component from its seeds over shared links, then fills it:
 * every member's rate set, its remaining bytes brought to now first. */
static void fill(fx_fsim *s)
{
	const fx_paths *P = s->paths;
	for (size_t k = 0; k < s->ncomp; k++) {  /* the component grows as it is read */
		int32_t i = s->comp[k];
		int32_t p = s->path[i];
		for (size_t j = P->off[p]; j < P->off[p + 1]; j++) {
			int64_t l = P->link[j];
			if (s->lmark[l])
				continue;
			touch_link(s, l);
			for (int32_t m = 0; m < s->nlf[l]; m++)
				comp_add(s, s->lf[l][m]);
		}
	}
	/* every member up to now; then the links' weight sums */
	for (size_t k = 0; k < s->ncomp; k++) {
		int32_t i = s->comp[k];
		if (s->state[i] != ST_ACTIVE)
			continue;
		s->rem[i] -= s->rate[i] * (s->now - s->tlast[i]);
		if (s->rem[i] < 0)
			s->rem[i] = 0;
		s->tlast[i] = s->now;
		double w = weight(s, i);
		int32_t p = s->path[i];
		for (size_t j = P->off[p]; j < P->off[p + 1]; j++) {
			s->wsum[P->link[j]] += P->frac[j] * w;
			s->nfree[P->link[j]]++;
		}
	}
	lkey *h = NULL;
	size_t nh = 0, caph = 0;
	for (size_t u = 0; u < s->nltouch; u++) {
		int64_t l = s->ltouch[u];
		if (s->nfree[l] > 0)
			lheap_push(&h, &nh, &caph, s->capr[l] / s->wsum[l], l);
	}
	while (nh) {
		lkey top = lheap_pop(h, &nh);
		int64_t l = top.l;
		if (s->nfree[l] == 0 || top.t != s->capr[l] / s->wsum[l])
			continue;  /* stale */
		double level = top.t;
		for (int32_t m = 0; m < s->nlf[l]; m++) {
			int32_t i = s->lf[l][m];
			if (!s->fmark[i] || s->fmark[i] == 2)
				continue;
			s->fmark[i] = 2;  /* frozen */
			double w = weight(s, i), rate = w * level;
			s->rate[i] = rate;
			s->ver[i]++;
			int32_t p = s->path[i];
			for (size_t j = P->off[p]; j < P->off[p + 1]; j++) {
				int64_t l2 = P->link[j];
				s->capr[l2] -= P->frac[j] * rate;
				s->wsum[l2] -= P->frac[j] * w;
				if (--s->nfree[l2] > 0 && l2 != l) {
					if (s->capr[l2] < 0)
						s->capr[l2] = 0;
					if (s->wsum[l2] <= 0)  /* rounding: recount */
						s->wsum[l2] = 1e-300;
					lheap_push(&h, &nh, &caph, s->capr[l2] / s->wsum[l2], l2);
				}
			}
		}
	}
	free(h);
	for (size_t k = 0; k < s->ncomp; k++) {
		int32_t i = s->comp[k];
		s->fmark[i] = 0;
		if (s->state[i] == ST_ACTIVE && s->rate[i] > 0)
			heap_push(s, s->now + s->rem[i] / s->rate[i], i);
	}
	for (size_t u = 0; u < s->nltouch; u++)
		s->lmark[s->ltouch[u]] = 0;
	s->nltouch = 0;
	s->ncomp = 0;
}

/* ---- link membership ---- */

static void link_join(fx_fsim *s, int32_t i)
{
	const fx_paths *P = s->paths;
	int32_t p = s->path[i];
	size_t len = P->off[p + 1] - P->off[p];
	s->slot[i] = fx_xmalloc((len ? len : 1) * sizeof *s->slot[i]);
	for (size_t j = 0; j < len; j++) {
		int64_t l = P->link[P->off[p] + j];
		if (s->nlf[l] == s->caplf[l]) {
			size_t c = (size_t)s->caplf[l];
			s->lf[l] = fx_xgrow(s->lf[l], &c, (size_t)s->nlf[l] + 1, sizeof *s->lf[l]);
			c = (size_t)s->caplf[l];
			s->lfi[l] = fx_xgrow(s->lfi[l], &c, (size_t)s->nlf[l] + 1, sizeof *s->lfi[l]);
			s->caplf[l] = (int32_t)c;
		}
		s->slot[i][j] = s->nlf[l];
		s->lf[l][s->nlf[l]] = i;
		s->lfi[l][s->nlf[l]] = (int32_t)j;
		s->nlf[l]++;
	}
}

/* Removes flow i from its links, seeding the component with the flows it
 * leaves behind. */
static void link_leave(fx_fsim *s, int32_t i)
{
	const fx_paths *P = s->paths;
	int32_t p = s->path[i];
	size_t len = P->off[p + 1] - P->off[p];
	for (size_t j = 0; j < len; j++) {
		int64_t l = P->link[P->off[p] + j];
		int32_t at = s->slot[i][j], last = --s->nlf[l];
		if (at != last) {
			int32_t mv = s->lf[l][last], mj = s->lfi[l][last];
			s->lf[l][at] = mv;
			s->lfi[l][at] = mj;
			s->slot[mv][mj] = at;
		}
		for (int32_t m = 0; m < s->nlf[l] && m < 1; m++)
			comp_add(s, s->lf[l][m]);  /* one suffices: the rest join through l */
	}
	free(s->slot[i]);
	s->slot[i] = NULL;
}

/* ---- the run ---- */

/* Takes the next batch of events (all at the earliest instant, to a
 * relative 1e-12): flows whose delay ends join their links, flows whose
 * bytes are gone leave them (sent; done too unless a trailing delay
 * follows), trailing delays end (done); returns how many are done, or -1
 * when nothing is left, after a batch in which some flow was sent or
 * done. */
int fx_fsim_step(fx_fsim *s)
{
	s->ndone = 0;
	s->nsent = 0;
	for (;;) {
		while (s->nheap && s->heap[0].ver != s->ver[s->heap[0].flow])
			heap_pop(s);
		if (!s->nheap)
			return s->ndone || s->nsent ? (int)s->ndone : -1;
		double t = s->heap[0].t;
		s->now = t > s->now ? t : s->now;
		double horizon = s->now + fabs(s->now) * 1e-12;
		s->nbatch = 0;
		while (s->nheap && (s->heap[0].ver != s->ver[s->heap[0].flow] || s->heap[0].t <= horizon)) {
			ev e = heap_pop(s);
			if (e.ver != s->ver[e.flow])
				continue;
			s->batch = fx_xgrow(s->batch, &s->capbatch, s->nbatch + 1, sizeof *s->batch);
			s->batch[s->nbatch++] = e.flow;
		}
		for (size_t k = 0; k < s->nbatch; k++) {
			int32_t i = s->batch[k];
			int32_t p = s->path[i];
			int sent = 0;
			s->ver[i]++;
			if (s->state[i] == ST_DELAY) {
				if (s->paths->off[p + 1] == s->paths->off[p] || s->rem[i] <= 0) {
					sent = 1;  /* no link to cross */
				} else {
					s->state[i] = ST_ACTIVE;
					s->tlast[i] = s->now;
					s->rate[i] = 0;
					link_join(s, i);
					comp_add(s, i);
					continue;
				}
			} else if (s->state[i] == ST_ACTIVE) {
				s->rem[i] = 0;
				link_leave(s, i);
				sent = 1;
			} else if (s->state[i] != ST_TAIL) {
				continue;
			}
			if (sent) {
				s->sent = fx_xgrow(s->sent, &s->capsent, s->nsent + 1, sizeof *s->sent);
				s->sent[s->nsent++] = i;
				if (s->trailing && s->delay[i] > 0) {
					s->state[i] = ST_TAIL;
					heap_push(s, s->now + s->delay[i], i);
					continue;
				}
			}
			s->state[i] = ST_DONE;
			s->finish[i] = s->now;
			s->finished++;
			s->done = fx_xgrow(s->done, &s->capdone, s->ndone + 1, sizeof *s->done);
			s->done[s->ndone++] = i;
			if (s->now > s->max_finish)
				s->max_finish = s->now;
		}
		/* finished flows are not refilled */
		size_t w = 0;
		for (size_t k = 0; k < s->ncomp; k++) {
			int32_t i = s->comp[k];
			if (s->state[i] == ST_ACTIVE)
				s->comp[w++] = i;
			else
				s->fmark[i] = 0;
		}
		s->ncomp = w;
		if (s->ncomp)
			fill(s);
		if (s->ndone || s->nsent)
			return (int)s->ndone;
	}
}

const int32_t *fx_fsim_sent(const fx_fsim *s, size_t *n)
{
	*n = s->nsent;
	return s->sent;
}

const int32_t *fx_fsim_done(const fx_fsim *s, size_t *n)
{
	*n = s->ndone;
	return s->done;
}

double fx_fsim_now(const fx_fsim *s)
{
	return s->now;
}

double fx_fsim_finish(const fx_fsim *s, int32_t i)
{
	return s->finish[i];
}

double fx_fsim_makespan(const fx_fsim *s)
{
	return s->max_finish;
}

size_t fx_fsim_flows(const fx_fsim *s)
{
	return s->n;
}

size_t fx_fsim_finished(const fx_fsim *s)
{
	return s->finished;
}
