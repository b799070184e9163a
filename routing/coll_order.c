/*
 * Rings that follow a lattice's wires (issue 30): when a collective's ranks
 * fill a block of a torus or mesh (a box of the lattice: a tray, a rack, a
 * tile, or the whole fabric), the ring visits them along links, one hop a
 * step, instead of in device order (2-hop diagonals in a 2x2 tray, an
 * 8-hop return across a 5x5 tile).
 *
 * The box's sides of more than one device are its dimensions.  One: a line
 * of w devices is a ring of one-hop steps when it is a whole ring of the
 * torus; otherwise the interleaved order 0, 2, 4, ..., 5, 3, 1 (WaferLLM's
 * MeshGEMM ring, collectives.md §5) whose steps are at most 2 hops, each
 * directed link carrying one flow.  Two or more: the first dimension is x
 * (W devices), the others are walked by a boustrophedon path P (H cells,
 * consecutive ones a hop apart), and the W x H grid is toured by
 *   - H even: along x at P[0], then rows P[1..H-1] over x = 1..W-1 back
 *     and forth, and home along x = 0: every step one hop;
 *   - W even: the same with x and P swapped;
 *   - both odd: no grid of an odd number of cells has a cycle of one-hop
 *     steps (it is bipartite), so the tour takes one 2-hop step: rows
 *     P[1..H-3] as above, the last two rows column by column from x = W-1
 *     down to x = 1, then the diagonal to (0, P[H-1]) and home along x = 0;
 *   - a whole 2-D torus whose sides divide (5x5): a helix, row y started
 *     one column left of row y-1, round the wrap links: every step one hop.
 * The ring is used only when its longest step is shorter than rank
 * order's (or as long, with fewer hops in all), so rings that already
 * follow the wires keep their order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "internal.h"

/* Hops between lattice coordinates a and b, dimension by dimension the
 * short way (round the wrap where there is one). */
static int64_t lattice_hops(const fx_fabric *f, const int *a, const int *b)
{
	int64_t h = 0;
	for (int i = 0; i < f->ndims; i++) {
		int d = abs(a[i] - b[i]);
		if (f->wrap[i] && f->dims[i] - d < d)
			d = f->dims[i] - d;
		h += d;
	}
	return h;
}

/* The longest step and all steps' hops of the ring order[] (coordinates
 * xs of rank indexes). */
static void ring_hops(const fx_fabric *f, const int *xs, const int64_t *order, int64_t n,
		      int64_t *longest, int64_t *total)
{
	int D = f->ndims;
	*longest = *total = 0;
	for (int64_t i = 0; i < n && n > 1; i++) {
		int64_t h = lattice_hops(f, xs + order[i] * D, xs + order[(i + 1) % n] * D);
		*total += h;
		if (h > *longest)
			*longest = h;
	}
}

/* The interleaved order of a line of w: 0, 2, 4, ..., then the odd ones
 * back down to 1. */
static void interleave(int64_t w, int64_t *pos)
{
	int64_t k = 0;
	for (int64_t x = 0; x < w; x += 2)
		pos[k++] = x;
	for (int64_t x = (w % 2 == 0 ? w - 1 : w - 2); x >= 1; x -= 2)
		pos[k++] = x;
}

int64_t fx_line_next(int k, int wrap, int x)
{
	if (wrap || k <= 2)
		return (x + 1) % k;
	if (x % 2 == 0)
		return x + 2 < k ? x + 2 : (k % 2 == 0 ? k - 1 : k - 2);
	return x >= 3 ? x - 2 : 0;
}

int fx_lattice_ring(const fx_fabric *f, const int64_t *ranks, int64_t n, int64_t *order,
		    char *how, size_t howlen)
{
	if (!fx_fabric_is(f, FX_KIND_LATTICE) || fx_fabric_degraded(f) || n < 3 || f->ndims == 0)
		return 0;
	int D = f->ndims;
	int lo[FX_MAX_DIMS], hi[FX_MAX_DIMS];
	int *xs = fx_xmalloc((size_t)n * (size_t)D * sizeof *xs);
	for (int64_t i = 0; i < n; i++) {
		if (ranks[i] < 0 || ranks[i] >= f->ndev) {
			free(xs);
			return 0;
		}
		fx_fabric_coords(f, ranks[i], xs + i * D);
		for (int d = 0; d < D; d++) {
			int c = xs[i * D + d];
			if (i == 0 || c < lo[d])
				lo[d] = c;
			if (i == 0 || c > hi[d])
				hi[d] = c;
		}
	}
	/* a box: its cells number n, each held by one rank */
	int64_t cells = 1;
	int side[FX_MAX_DIMS], eff[FX_MAX_DIMS], ne = 0;
	for (int d = 0; d < D; d++) {
		side[d] = hi[d] - lo[d] + 1;
		cells *= side[d];
		if (side[d] > 1)
			eff[ne++] = d;
	}
	int rc = 0;
	int64_t *cell = NULL, *ord = NULL;
	if (cells != n || ne == 0)
		goto done;
	cell = fx_xmalloc((size_t)n * sizeof *cell);  /* box cell -> rank index */
	for (int64_t c = 0; c < n; c++)
		cell[c] = -1;
	for (int64_t i = 0; i < n; i++) {
		int64_t c = 0, m = 1;
		for (int d = 0; d < D; d++) {
			c += (int64_t)(xs[i * D + d] - lo[d]) * m;
			m *= side[d];
		}
		if (cell[c] >= 0)
			goto done;  /* a device twice */
		cell[c] = i;
	}
	/* the tour as box coordinates, eff[0] = x and the rest along P */
	ord = fx_xmalloc((size_t)n * sizeof *ord);
	int64_t W = side[eff[0]], H = n / W;
	int64_t *P = fx_xmalloc((size_t)(H ? H : 1) * sizeof *P);  /* P's cells, x = 0 */
	{
		/* boustrophedon over the dimensions eff[1..]: a reflected
		 * mixed-radix count, consecutive cells one hop apart */
		int digit[FX_MAX_DIMS] = {0}, dir[FX_MAX_DIMS];
		for (int j = 1; j < ne; j++)
			dir[j] = 1;
		for (int64_t t = 0; t < H; t++) {
			int64_t c = 0;
			for (int j = 1; j < ne; j++) {
				int64_t m = 1;
				for (int d = 0; d < eff[j]; d++)
					m *= side[d];
				c += digit[j] * m;
			}
			P[t] = c;
			for (int j = 1; j < ne; j++) {  /* the next cell: lowest digit that can move */
				int nx = digit[j] + dir[j];
				if (nx >= 0 && nx < side[eff[j]]) {
					digit[j] = nx;
					break;
				}
				dir[j] = -dir[j];
			}
		}
	}
	int64_t xstride = 1;
	for (int d = 0; d < eff[0]; d++)
		xstride *= side[d];
#define AT(x, y) (P[(y)] + (int64_t)(x) * xstride)
	int64_t k = 0;
	const char *shape;
	int full0 = f->wrap[eff[0]] && side[eff[0]] == f->dims[eff[0]] && W >= 3;
	if (ne == 1) {
		int64_t *pos = fx_xmalloc((size_t)W * sizeof *pos);
		if (full0)
			for (int64_t x = 0; x < W; x++)
				pos[x] = x;
		else
			interleave(W, pos);
		for (int64_t x = 0; x < W; x++)
			ord[k++] = AT(pos[x], 0);
		free(pos);
		shape = full0 ? "round the ring" : "interleaved along the line, at most 2 hops a step";
	} else if (ne == 2 && full0 && f->wrap[eff[1]] && side[eff[1]] == f->dims[eff[1]] && H >= 3 &&
		   W % 2 == 1 && H % 2 == 1 && H % W == 0) {
		for (int64_t y = 0; y < H; y++)  /* the helix */
			for (int64_t t = 0; t < W; t++)
				ord[k++] = AT(((t - y) % W + W) % W, y);
		shape = "a helix round the wrap links, one hop a step";
	} else if (H % 2 == 0 || W % 2 == 0) {
		int swap = H % 2 != 0;  /* tour along the even side */
		int64_t A = swap ? H : W, B = swap ? W : H;
#define CELL(a, b) (swap ? AT((b), (a)) : AT((a), (b)))
		for (int64_t a = 0; a < A; a++)
			ord[k++] = CELL(a, 0);
		for (int64_t b = 1; b < B; b++)
			for (int64_t i = 0; i < A - 1; i++)
				ord[k++] = CELL(b % 2 ? A - 1 - i : 1 + i, b);
		for (int64_t b = B - 1; b >= 1; b--)
			ord[k++] = CELL(0, b);
#undef CELL
		shape = "snaking through the block, one hop a step";
	} else {
		for (int64_t x = 0; x < W; x++)
			ord[k++] = AT(x, 0);
		for (int64_t y = 1; y <= H - 3; y++)
			for (int64_t i = 0; i < W - 1; i++)
				ord[k++] = AT(y % 2 ? W - 1 - i : 1 + i, y);
		for (int64_t x = W - 1; x >= 1; x--) {  /* the last two rows, column by column */
			int down = (W - 1 - x) % 2 == 0;
			ord[k++] = AT(x, down ? H - 2 : H - 1);
			ord[k++] = AT(x, down ? H - 1 : H - 2);
		}
		for (int64_t y = H - 1; y >= 1; y--)
			ord[k++] = AT(0, y);
		shape = "snaking through the block, one hop a step but one 2-hop step (an odd block has "
			"no one-hop cycle)";
	}
#undef AT
	free(P);
	if (k != n)
		goto done;
	for (int64_t i = 0; i < n; i++)
		ord[i] = cell[ord[i]];
	/* only when shorter than rank order's ring */
	int64_t *id = fx_xmalloc((size_t)n * sizeof *id);
	for (int64_t i = 0; i < n; i++)
		id[i] = i;
	int64_t l0, t0, l1, t1;
	ring_hops(f, xs, id, n, &l0, &t0);
	ring_hops(f, xs, ord, n, &l1, &t1);
	free(id);
	if (l1 < l0 || (l1 == l0 && t1 < t0)) {
		memcpy(order, ord, (size_t)n * sizeof *order);
		char box[64];
		size_t len = 0;
		for (int j = 0; j < ne && len < sizeof box; j++)
			len += (size_t)snprintf(box + len, sizeof box - len, "%s%d", j ? "x" : "", side[eff[j]]);
		snprintf(how, howlen, "a ring over the %s block %s (longest step %lld hop%s, rank order's "
			 "%lld)", box, shape, (long long)l1, l1 == 1 ? "" : "s", (long long)l0);
		rc = 1;
	}
done:
	free(ord);
	free(cell);
	free(xs);
	return rc;
}
