/*
 * A memo of communication times: a planner evaluating millions of layouts
 * asks for the same few collectives (a TP allreduce of one size over 8
 * cards, a dispatch over 64) again and again; routing each once is what
 * keeps a scheme at microseconds.  Open addressing, doubled at half full.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "step.h"

typedef struct entry {
	int used;
	fx_step_group group;
	char pattern[24], algo[24];
	int64_t n, stride;
	double bytes;
	double time;
	int measured;
} entry;

struct fx_step_cache {
	fx_step_comm_fn fn;
	void *ctx;
	entry *e;
	size_t cap, n;
	int64_t hits, misses;
};

fx_step_cache *fx_step_cache_new(fx_step_comm_fn fn, void *ctx)
{
	fx_step_cache *c = fx_xcalloc(1, sizeof *c);
	c->fn = fn;
	c->ctx = ctx;
	c->cap = 64;
	c->e = fx_xcalloc(c->cap, sizeof *c->e);
	return c;
}

void fx_step_cache_free(fx_step_cache *c)
{
	if (!c)
		return;
	free(c->e);
	free(c);
}

void fx_step_cache_stats(const fx_step_cache *c, int64_t *hits, int64_t *misses)
{
	if (hits)
		*hits = c ? c->hits : 0;
	if (misses)
		*misses = c ? c->misses : 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static uint64_t key_hash(const fx_step_call *k)
{
	uint64_t b;
	double bytes = k->bytes + 0.0;  /* -0 and 0 alike */
	memcpy(&b, &bytes, sizeof b);
	uint64_t h = mix((uint64_t)k->group, str_hash(k->pattern));
	h = mix(h, str_hash(k->algo));
	h = mix(h, (uint64_t)k->n);
	h = mix(h, (uint64_t)k->stride);
	return mix(h, b);
}

static int same(const entry *e, const fx_step_call *k)
{
	return e->group == k->group && e->n == k->n && e->stride == k->stride &&
	       e->bytes == k->bytes && strcmp(e->pattern, k->pattern) == 0 &&
	       strcmp(e->algo, k->algo ? k->algo : "") == 0;
}

static entry *slot(entry *tab, size_t cap, const fx_step_call *k)
{
	size_t i = (size_t)(key_hash(k) & (cap - 1));
	while (tab[i].used && !same(&tab[i], k))
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static void grow(fx_step_cache *c)
{
	size_t cap = c->cap * 2;
	entry *t = fx_xcalloc(cap, sizeof *t);
	for (size_t i = 0; i < c->cap; i++)
		if (c->e[i].used) {
			fx_step_call k = {c->e[i].group, c->e[i].pattern,
					  c->e[i].algo[0] ? c->e[i].algo : NULL, c->e[i].n,
					  c->e[i].stride, c->e[i].bytes};
			*slot(t, cap, &k) = c->e[i];
		}
	free(c->e);
	c->e = t;
	c->cap = cap;
}

double fx_step_comm_cached(void *cache, const fx_step_call *k, int *measured)
{
	fx_step_cache *c = cache;
	entry *e = slot(c->e, c->cap, k);
	if (e->used) {
		c->hits++;
		if (measured)
			*measured = e->measured;
		return e->time;
	}
	c->misses++;
	int m = 0;
	double t = c->fn ? c->fn(c->ctx, k, &m) : 0;
	/* names too long for the key are not kept (no pattern is) */
	if (strlen(k->pattern) < sizeof e->pattern && (!k->algo || strlen(k->algo) < sizeof e->algo)) {
		if (2 * (c->n + 1) > c->cap) {
			grow(c);
			e = slot(c->e, c->cap, k);
		}
		e->used = 1;
		e->group = k->group;
		strcpy(e->pattern, k->pattern);
		strcpy(e->algo, k->algo ? k->algo : "");
		e->n = k->n;
		e->stride = k->stride;
		e->bytes = k->bytes;
		e->time = t;
		e->measured = m;
		c->n++;
	}
	if (measured)
		*measured = m;
	return t;
}
