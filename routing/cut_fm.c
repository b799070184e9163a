/*
 * Refining a balanced split of the devices: Fiduccia-Mattheyses passes
 * (Fiduccia and Mattheyses, "A linear-time heuristic for improving network
 * partitions", DAC 1982).
 *
 * A pass moves every device at most once, always the unlocked one of
 * highest gain (capacity it takes out of the cut) from the side that keeps
 * the halves within one device of balance, updates the gains of its
 * neighbours, and keeps the best balanced prefix of moves.  FM's gain
 * buckets need integer gains; capacities here are bytes/s, so each side
 * keeps its devices in an indexed binary heap instead: a move costs
 * O(degree log n), a pass O(E log V).  The Kernighan-Lin pass this replaces
 * rescanned every device for every swap, Θ(n^2) per pass (a 64x64 torus
 * written out as a custom graph took 2.4 s).
 *
 * Switches and CPUs do not move during a pass; between passes each goes to
 * the side where fewer of its links cross (fx_fm_settle).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

static double capacity(const fx_fabric *f, int64_t e)
{
	return fx_fabric_edge_up(f, e) ? f->e[e].count * f->e[e].bw : 0;  /* failed: nothing */
}

void fx_fm_init(fx_fm *m, const fx_fabric *f)
{
	memset(m, 0, sizeof *m);
	m->f = f;
	size_t nv = (size_t)f->nv;
	/* incident edges per vertex (CSR), in edge order */
	m->off = fx_xcalloc(nv + 1, sizeof *m->off);
	m->inc = fx_xmalloc((size_t)(2 * f->ne + 1) * sizeof *m->inc);
	for (int64_t e = 0; e < f->ne; e++) {
		m->off[f->ends[2 * e] + 1]++;
		m->off[f->ends[2 * e + 1] + 1]++;
	}
	for (size_t v = 0; v < nv; v++)
		m->off[v + 1] += m->off[v];
	int64_t *at = fx_xmalloc((nv ? nv : 1) * sizeof *at);
	memcpy(at, m->off, nv * sizeof *at);
	for (int64_t e = 0; e < f->ne; e++) {
		m->inc[at[f->ends[2 * e]]++] = e;
		m->inc[at[f->ends[2 * e + 1]]++] = e;
	}
	free(at);
	m->side = fx_xmalloc(nv ? nv : 1);
	m->gain = fx_xmalloc((nv ? nv : 1) * sizeof *m->gain);
	size_t nd = (size_t)(f->ndev ? f->ndev : 1);
	m->heap[0] = fx_xmalloc(nd * sizeof *m->heap[0]);
	m->heap[1] = fx_xmalloc(nd * sizeof *m->heap[1]);
	m->pos = fx_xmalloc(nd * sizeof *m->pos);
	m->moves = fx_xmalloc(nd * sizeof *m->moves);
}

void fx_fm_release(fx_fm *m)
{
	free(m->off);
	free(m->inc);
	free(m->side);
	free(m->gain);
	free(m->heap[0]);
	free(m->heap[1]);
	free(m->pos);
	free(m->moves);
	memset(m, 0, sizeof *m);
}

void fx_fm_gains(fx_fm *m)
{
	const fx_fabric *f = m->f;
	for (int64_t v = 0; v < f->nv; v++)
		m->gain[v] = 0;
	for (int64_t e = 0; e < f->ne; e++) {
		int64_t a = f->ends[2 * e], b = f->ends[2 * e + 1];
		double w = capacity(f, e) * (m->side[a] != m->side[b] ? 1 : -1);
		m->gain[a] += w;
		m->gain[b] += w;
	}
}

/* ---- indexed max-heaps of devices by gain (ties: lower id first) ---- */

static int above(const fx_fm *m, int64_t a, int64_t b)
{
	return m->gain[a] > m->gain[b] || (m->gain[a] == m->gain[b] && a < b);
}

static void heap_put(fx_fm *m, int s, int64_t i, int64_t v)
{
	m->heap[s][i] = v;
	m->pos[v] = i;
}

static void heap_up(fx_fm *m, int s, int64_t i)
{
	int64_t v = m->heap[s][i];
	while (i > 0 && above(m, v, m->heap[s][(i - 1) / 2])) {
		heap_put(m, s, i, m->heap[s][(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_put(m, s, i, v);
}

static void heap_down(fx_fm *m, int s, int64_t i)
{
	int64_t v = m->heap[s][i], n = m->nheap[s];
	for (;;) {
		int64_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && above(m, m->heap[s][c + 1], m->heap[s][c]))
			c++;
		if (!above(m, m->heap[s][c], v))
			break;
		heap_put(m, s, i, m->heap[s][c]);
		i = c;
	}
	heap_put(m, s, i, v);
}

static int64_t heap_pop(fx_fm *m, int s)
{
	int64_t v = m->heap[s][0];
	m->pos[v] = -1;
	if (--m->nheap[s] > 0) {
		m->heap[s][0] = m->heap[s][m->nheap[s]];
		heap_down(m, s, 0);
	}
	return v;
}

/* Moves v to the other side; its neighbours' gains change by twice the
 * capacity between them (the edge went from cut to uncut or back), and
 * those still in a heap move up or down it. */
void fx_fm_flip(fx_fm *m, int64_t v)
{
	const fx_fabric *f = m->f;
	m->side[v] ^= 1;
	m->gain[v] = -m->gain[v];
	for (int64_t t = m->off[v]; t < m->off[v + 1]; t++) {
		int64_t e = m->inc[t], u = fx_fabric_other(f, e, v);
		if (u == v)
			continue;  /* a loop is never cut */
		double dg = (m->side[u] == m->side[v] ? -2 : 2) * capacity(f, e);
		m->gain[u] += dg;
		if (u < f->ndev && m->pos && m->pos[u] >= 0) {
			if (dg > 0)
				heap_up(m, m->side[u], m->pos[u]);
			else
				heap_down(m, m->side[u], m->pos[u]);
		}
	}
}

void fx_fm_settle(fx_fm *m)
{
	for (int pass = 0; pass < 8; pass++) {
		int moved = 0;
		for (int64_t v = m->f->ndev; v < m->f->nv; v++)
			if (m->gain[v] > 1e-9) {
				fx_fm_flip(m, v);
				moved = 1;
			}
		if (!moved)
			break;
	}
}

double fx_fm_pass(fx_fm *m)
{
	const fx_fabric *f = m->f;
	int64_t n = f->ndev, want = 0, c0 = 0;
	m->nheap[0] = m->nheap[1] = 0;
	for (int64_t v = 0; v < n; v++) {
		int s = m->side[v];
		heap_put(m, s, m->nheap[s]++, v);
		c0 += s == 0;
	}
	want = c0;  /* the pass keeps side 0 at this many devices */
	for (int s = 0; s < 2; s++)
		for (int64_t i = m->nheap[s] / 2; i-- > 0;)
			heap_down(m, s, i);
	int64_t steps = 0, best_steps = 0;
	double run = 0, best = 0;
	for (;;) {
		/* from the larger side; when balanced, the better of the two */
		int s = c0 > want ? 0 : c0 < want ? 1 : -1;
		if (s < 0) {
			if (!m->nheap[0] || !m->nheap[1])
				break;
			s = above(m, m->heap[0][0], m->heap[1][0]) ? 0 : 1;
		}
		if (!m->nheap[s])
			break;
		int64_t v = heap_pop(m, s);
		run += m->gain[v];
		fx_fm_flip(m, v);
		c0 += s == 0 ? -1 : 1;
		m->moves[steps++] = v;
		if (c0 == want && run > best + 1e-9) {
			best = run;
			best_steps = steps;
		}
	}
	for (int64_t s = 0; s < 2; s++)  /* heaps empty or abandoned */
		for (int64_t i = 0; i < m->nheap[s]; i++)
			m->pos[m->heap[s][i]] = -1;
	m->nheap[0] = m->nheap[1] = 0;
	for (int64_t i = steps; i-- > best_steps;)  /* undo past the best prefix */
		fx_fm_flip(m, m->moves[i]);
	return best;
}

void fx_fm_refine(fx_fm *m)
{
	for (int64_t v = 0; v < m->f->ndev; v++)
		m->pos[v] = -1;
	fx_fm_gains(m);
	fx_fm_settle(m);
	for (int pass = 0; pass < 20; pass++) {
		double g = fx_fm_pass(m);
		fx_fm_settle(m);
		if (g <= 1e-9)
			break;
	}
}
