/*
 * The numbers the hashing policies (hash, dmodk, smodk) take mod k: a
 * device's position in the tree, as SimGrid's fat-tree numbers its hosts
 * (FatTreeZone: leaf by leaf, the hosts of a leaf consecutive), not its
 * device number.  On a fat-tree the two are the same; on a rail-optimised
 * Clos they are not: endpoint e = s R + r sits on the leaf of rail r, so
 * the endpoints of one leaf are R apart and share their residue mod every
 * divisor of R: d-mod-k on device numbers sent every flow into a leaf over
 * one spine (tests/peer/rail-clos-*: 82.1 us where SimGrid's d-mod-k takes
 * 48.5 us, a 16-endpoint 2:1 rail Clos's pairwise all-to-all).
 */
#include <stdlib.h>

#include "../core/sort.h"
#include "../core/xalloc.h"
#include "internal.h"

/* Sort key: (attachment switch, device number). */
static int by_home(const void *a, const void *b, void *ctx)
{
	const int64_t *home = ctx;
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	if (home[x] != home[y])
		return (home[x] > home[y]) - (home[x] < home[y]);
	return (x > y) - (x < y);
}

int64_t *fx_route_tree_positions(const fx_fabric *f)
{
	if (f->ndev < 2)
		return NULL;
	/* a device's leaf: the switch across its first bundle (edge order:
	 * plane 0's on multi-plane builds, chip 0 on an NVSwitch board) */
	int64_t *home = fx_xmalloc((size_t)f->ndev * sizeof *home);
	for (int64_t v = 0; v < f->ndev; v++)
		home[v] = -1;
	for (int64_t e = 0; e < f->ne; e++)
		for (int side = 0; side < 2; side++) {
			int64_t v = f->ends[2 * e + side], w = f->ends[2 * e + 1 - side];
			if (v < f->ndev && home[v] < 0 && f->v[w].type == FX_V_SWITCH)
				home[v] = w;
		}
	int64_t *ord = fx_xmalloc((size_t)f->ndev * sizeof *ord);
	int direct = 0;
	for (int64_t v = 0; v < f->ndev; v++) {
		ord[v] = v;
		direct |= home[v] < 0;
	}
	int64_t *pos = NULL;
	if (!direct) {  /* devices that relay (no leaf) keep their numbers */
		fx_sort_r(ord, (size_t)f->ndev, sizeof *ord, by_home, home);
		int same = 1;
		for (int64_t i = 0; i < f->ndev; i++)
			same &= ord[i] == i;
		if (!same) {
			pos = fx_xmalloc((size_t)f->ndev * sizeof *pos);
			for (int64_t i = 0; i < f->ndev; i++)
				pos[ord[i]] = i;
		}
	}
	free(ord);
	free(home);
	return pos;
}
