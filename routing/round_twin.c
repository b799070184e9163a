/*
 * Rounds that repeat an earlier round exactly (issue #15).
 *
 * An allreduce's all-gather replays its reduce-scatter's rounds backwards:
 * the same flows, the same bytes.  Routing is a function of the flow list
 * alone (the router's caches change how fast, not what), so such a round's
 * loads and path figures are the earlier round's, bit for bit.  The
 * schedule's rounds are hashed once; a round that some later round repeats
 * keeps its loads (the links it loaded and their bytes) until the end, up
 * to TWIN_BYTES; a repeat takes them instead of being routed.  Flows are
 * compared byte for byte, so equal-valued doubles of other bits (0.0 and
 * -0.0) are routed again, never confused.
 *
 * Time complexity: O(flows) to hash, O(R log R) to sort R rounds.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/sort.h"
#include "../core/xalloc.h"
#include "internal.h"

#define TWIN_BYTES (64.0 * 1024 * 1024)  /* kept loads, at most */

typedef struct twin_keep {
	int64_t *links;
	double *bytes;
	size_t n;
	fx_path_stats st;
	int kept;
} twin_keep;

struct fx_twins {
	size_t n;
	size_t *first;    /* per round: the earliest identical round, or itself */
	uint8_t *wanted;  /* per round: a later round repeats it */
	twin_keep *keep;
	double bytes;     /* kept so far */
};

/* Scratch for listing shift rounds' flows (fx_round_flows). */
typedef struct twin_buf {
	fx_flow *f;
	size_t cap;
} twin_buf;

/* A hash of the flows' bits (a filter: equal rounds are compared whole). */
static uint64_t round_hash(const fx_round *rd, twin_buf *buf)
{
	size_t n;
	const fx_flow *fl = fx_round_flows(rd, &buf->f, &buf->cap, &n);
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	for (size_t k = 0; k < n; k++) {
		uint64_t b;
		memcpy(&b, &fl[k].bytes, sizeof b);
		h = (h ^ (uint64_t)fl[k].src) * 0xff51afd7ed558ccdULL;
		h = (h ^ (uint64_t)fl[k].dst) * 0xc4ceb9fe1a85ec53ULL;
		h = (h ^ b) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}

/* The flows of both, listed (a shift round's in turn), byte for byte. */
static int same_round(const fx_round *a, const fx_round *b, twin_buf *buf)
{
	if (a->all_pairs != 0 || b->all_pairs != 0 || a->namong != 0 || b->namong != 0)
		return 0;
	size_t na, nb;
	const fx_flow *fa = fx_round_flows(a, &buf[0].f, &buf[0].cap, &na);
	const fx_flow *fb = fx_round_flows(b, &buf[1].f, &buf[1].cap, &nb);
	return na == nb && (na == 0 || memcmp(fa, fb, na * sizeof *fa) == 0);
}

static int by_hash(const void *a, const void *b, void *ctx)
{
	const uint64_t *h = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (h[x] != h[y])
		return h[x] < h[y] ? -1 : 1;
	return (x > y) - (x < y);
}

fx_twins *fx_twins_new(const fx_sched *s)
{
	fx_twins *t = fx_xcalloc(1, sizeof *t);
	size_t n = s->n ? s->n : 1;
	t->n = s->n;
	t->first = fx_xmalloc(n * sizeof *t->first);
	t->wanted = fx_xcalloc(n, 1);
	t->keep = fx_xcalloc(n, sizeof *t->keep);
	uint64_t *h = fx_xmalloc(n * sizeof *h);
	size_t *ord = fx_xmalloc(n * sizeof *ord);
	twin_buf buf[2] = {{NULL, 0}, {NULL, 0}};
	for (size_t i = 0; i < s->n; i++) {
		h[i] = round_hash(&s->r[i], &buf[0]);
		ord[i] = i;
		t->first[i] = i;
	}
	fx_sort_r(ord, s->n, sizeof *ord, by_hash, h);
	/* within a run of equal hashes (in round order), each round takes the
	 * earliest one it equals */
	for (size_t a = 0; a < s->n;) {
		size_t b = a + 1;
		while (b < s->n && h[ord[b]] == h[ord[a]])
			b++;
		for (size_t i = a + 1; i < b; i++)
			for (size_t j = a; j < i; j++) {
				size_t x = ord[i], y = ord[j];
				if (t->first[y] == y && same_round(&s->r[x], &s->r[y], buf)) {
					t->first[x] = y;
					t->wanted[y] = 1;
					break;
				}
			}
		a = b;
	}
	free(h);
	free(ord);
	free(buf[0].f);
	free(buf[1].f);
	return t;
}

void fx_twins_free(fx_twins *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->keep[i].links);
		free(t->keep[i].bytes);
	}
	free(t->keep);
	free(t->first);
	free(t->wanted);
	free(t);
}

size_t fx_twins_of(const fx_twins *t, size_t i)
{
	return t->first[i];
}

int fx_twins_wanted(const fx_twins *t, size_t i)
{
	return t->wanted[i];
}

int fx_twins_get(const fx_twins *t, size_t i, const int64_t **links, const double **bytes,
		 size_t *n, fx_path_stats *st)
{
	const twin_keep *k = &t->keep[t->first[i]];
	if (t->first[i] == i || !k->kept)
		return 0;
	*links = k->links;
	*bytes = k->bytes;
	*n = k->n;
	*st = k->st;
	return 1;
}

void fx_twins_put(fx_twins *t, size_t i, const int64_t *links, size_t n, const double *load,
		  const fx_path_stats *st)
{
	if (!t->wanted[i] || t->bytes + (double)n * 16 > TWIN_BYTES)
		return;
	twin_keep *k = &t->keep[i];
	k->links = fx_xmalloc((n ? n : 1) * sizeof *k->links);
	k->bytes = fx_xmalloc((n ? n : 1) * sizeof *k->bytes);
	for (size_t u = 0; u < n; u++) {
		k->links[u] = links[u];
		k->bytes[u] = load[links[u]];
	}
	k->n = n;
	k->st = *st;
	k->kept = 1;
	t->bytes += (double)n * 16;
}
