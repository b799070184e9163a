/* The lattice bisection against a brute-force minimum balanced cut, on
 * every torus and mesh shape of 2 to 64 devices (extents of 2 or more, in
 * non-increasing order; the order does not change the graph).
 *
 * The brute force is a dynamic programme over the devices in an order of
 * small bandwidth b (each dimension's ring folded: 0, k-1, 1, k-2, ...):
 * its state is the sides of the last b devices and how many are on side 1,
 * so it finds the true minimum.  It is itself checked against plain
 * enumeration of every balanced split on shapes of up to 20 devices.
 * Shapes whose best order needs more than MAX_BITS bits of state are left
 * to the closed form's own proof and counted. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/xalloc.h"
#include "../../routing/routing.h"
#include "helpers.h"

#define MAX_BITS 16
#define MAX_N 64

typedef struct shape {
	int nd, dims[8], wrap;
} shape;

typedef struct graph {
	int n;
	int m;
	int ends[2 * 8 * MAX_N];
} graph;

/* The fabric's edges as a plain list (bundles, one each: count is 1). */
static void graph_of(const fx_fabric *f, graph *g)
{
	g->n = (int)f->ndev;
	g->m = (int)f->ne;
	ck_assert_int_le(g->m, 8 * MAX_N);
	for (int64_t e = 0; e < f->ne; e++) {
		ck_assert_int_eq(f->e[e].count, 1);
		g->ends[2 * e] = (int)f->ends[2 * e];
		g->ends[2 * e + 1] = (int)f->ends[2 * e + 1];
	}
}

/* Every split of floor(n/2) devices on side 0: the least edge cut. */
static int enumerate(const graph *g)
{
	int best = 1 << 30, half = g->n / 2;
	for (uint32_t s = 0; s < (1u << g->n); s++) {
		if (__builtin_popcount(s) != g->n - half)
			continue;
		int c = 0;
		for (int e = 0; e < g->m; e++)
			c += ((s >> g->ends[2 * e]) & 1) != ((s >> g->ends[2 * e + 1]) & 1);
		if (c < best)
			best = c;
	}
	return best;
}

static int fold(int c, int k, int cyc)
{
	return !cyc ? c : c < k - c ? 2 * c : 2 * (k - 1 - c) + 1;
}

/* The order of small bandwidth for f: pos[v]; returns the bandwidth. */
static int order_of(const fx_fabric *f, int *pos)
{
	int nd = f->ndims, perm[8], best_perm[8], best = 1 << 30;
	for (int i = 0; i < nd; i++)
		perm[i] = i;
	/* every permutation of the dimensions (Heap's algorithm, iteratively) */
	int cnt[8] = {0}, i = 0;
	for (;;) {
		int stride = 1, bw = 0;
		for (int j = 0; j < nd; j++) {
			int d = perm[j], reach = f->wrap[d] ? 2 : 1;
			if (reach * stride > bw)
				bw = reach * stride;
			stride *= f->dims[d];
		}
		if (bw < best) {
			best = bw;
			memcpy(best_perm, perm, sizeof perm);
		}
		while (i < nd && cnt[i] >= i) {
			cnt[i] = 0;
			i++;
		}
		if (i >= nd)
			break;
		int a = i % 2 ? cnt[i] : 0, t = perm[a];
		perm[a] = perm[i];
		perm[i] = t;
		cnt[i]++;
		i = 0;
	}
	int x[FX_MAX_DIMS];
	for (int64_t v = 0; v < f->ndev; v++) {
		fx_fabric_coords(f, v, x);
		int p = 0;
		for (int j = nd - 1; j >= 0; j--) {
			int d = best_perm[j];
			p = p * f->dims[d] + fold(x[d], f->dims[d], f->wrap[d]);
		}
		pos[v] = p;
	}
	return best;
}

/* The minimum balanced cut by the dynamic programme, or -1 past MAX_BITS. */
static int dp_min(const fx_fabric *f, const graph *g)
{
	int n = g->n, pos[MAX_N], at[MAX_N];
	int b = order_of(f, pos);
	if (b > MAX_BITS)
		return -1;
	for (int v = 0; v < n; v++)
		at[pos[v]] = v;
	/* back[p]: bit j set when the device at p is joined to the one at p-1-j */
	uint32_t back[MAX_N] = {0};
	for (int e = 0; e < g->m; e++) {
		int p = pos[g->ends[2 * e]], q = pos[g->ends[2 * e + 1]];
		if (p < q) {
			int t = p;
			p = q;
			q = t;
		}
		ck_assert_int_le(p - q, b);
		ck_assert(p != q);
		back[p] |= 1u << (p - q - 1);
	}
	(void)at;
	int ones = n - n / 2, W = 1 << b, H = ones + 1;
	uint16_t *cur = fx_xmalloc((size_t)W * H * sizeof *cur);
	uint16_t *nxt = fx_xmalloc((size_t)W * H * sizeof *nxt);
	const uint16_t INF = 0xffff;
	for (int i = 0; i < W * H; i++)
		cur[i] = INF;
	cur[0] = 0;
	uint32_t mask = (uint32_t)W - 1;
	for (int p = 0; p < n; p++) {
		for (int i = 0; i < W * H; i++)
			nxt[i] = INF;
		int live = p < b ? p : b;  /* bits that hold real devices */
		uint32_t lim = 1u << live;
		int clo = p - n / 2 > 0 ? p - n / 2 : 0, chi = p < ones ? p : ones;
		for (uint32_t s = 0; s < lim; s++)
			for (int c = clo; c <= chi; c++) {
				uint16_t v = cur[s * H + c];
				if (v == INF)
					continue;
				for (int side = 0; side < 2; side++) {
					int c2 = c + side;
					if (c2 > ones || (p + 1 - c2) > n / 2)
						continue;
					uint32_t nb = back[p] & (lim - 1);
					int cost = __builtin_popcount(side ? nb & ~s : nb & s);
					uint32_t s2 = ((s << 1) | (uint32_t)side) & mask;
					uint16_t *t = &nxt[s2 * H + c2];
					if (v + cost < *t)
						*t = (uint16_t)(v + cost);
				}
			}
		uint16_t *sw = cur;
		cur = nxt;
		nxt = sw;
	}
	int best = INF;
	for (int s = 0; s < W; s++)
		if (cur[s * H + ones] < best)
			best = cur[s * H + ones];
	free(cur);
	free(nxt);
	return best;
}

/* Calls fn on every shape: non-increasing extents >= 2, product <= 64. */
static void shapes(shape *s, int prod, int maxd, void (*fn)(const shape *, void *), void *ctx)
{
	if (s->nd > 0)
		fn(s, ctx);
	if (s->nd == 8)
		return;
	for (int k = 2; k <= maxd && prod * k <= MAX_N; k++) {
		s->dims[s->nd++] = k;
		shapes(s, prod * k, k, fn, ctx);
		s->nd--;
	}
}

typedef struct tally {
	int shapes, exact, bound, dp, enumerated, skipped;
} tally;

static void check_shape(const shape *sh, void *ctx)
{
	tally *t = ctx;
	char dims[64] = "", text[256];
	size_t used = 0;
	for (int i = 0; i < sh->nd; i++)
		used += (size_t)snprintf(dims + used, sizeof dims - used, "%s%d", i ? "," : "", sh->dims[i]);
	snprintf(text, sizeof text, "name: t\nfabric:\n  kind: %s\n  dims: [%s]\n"
		 "  link: {bandwidth: 1 GB/s, latency: 1 ns}\n", sh->wrap ? "torus" : "mesh", dims);
	fixture fx;
	ck_assert_msg(fixture_load(&fx, "shape.yaml", text, NULL) == 0, "%s", fx.msg);
	graph g;
	graph_of(&fx.f, &g);
	fx_cut c;
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_route_bisection(&fx.f, &c, &d), 0);
	fx_diag_release(&d);
	int truth = dp_min(&fx.f, &g);
	if (g.n <= 20) {
		int e = enumerate(&g);
		ck_assert_msg(truth == e, "%s [%s]: programme %d, enumeration %d",
			      sh->wrap ? "torus" : "mesh", dims, truth, e);
		t->enumerated++;
	}
	t->shapes++;
	t->exact += c.exact;
	t->bound += !c.exact;
	ck_assert_int_eq(c.side[0] + c.side[1], g.n);
	ck_assert_int_eq(c.side[0] < c.side[1] ? c.side[0] : c.side[1], g.n / 2);
	if (truth < 0) {
		t->skipped++;
		if (getenv("FX_TEST_VERBOSE"))
			printf("  past the brute force: %s [%s], %s %g links\n", sh->wrap ? "torus" : "mesh",
			       dims, c.method, c.links);
	} else {
		t->dp++;
		ck_assert_msg(c.links >= truth, "%s [%s]: %g links is below the minimum %d",
			      sh->wrap ? "torus" : "mesh", dims, c.links, truth);
		if (c.exact)
			ck_assert_msg(c.links == truth, "%s [%s]: 'exact' %g links, but the minimum "
				      "balanced cut is %d", sh->wrap ? "torus" : "mesh", dims, c.links,
				      truth);
	}
	fixture_release(&fx);
}

START_TEST(bisection_brute_force)
{
	tally t = {0};
	for (int wrap = 0; wrap < 2; wrap++) {
		shape s = {0, {0}, wrap};
		shapes(&s, 1, MAX_N, check_shape, &t);
	}
	/* 197 multisets of extents >= 2 with product <= 64, as torus and mesh */
	ck_assert_int_eq(t.shapes, 394);
	ck_assert_int_eq(t.shapes, t.dp + t.skipped);
	/* the proofs cover most shapes; the rest are labelled bounds */
	ck_assert_int_gt(t.exact, t.shapes / 2);
	ck_assert_int_eq(t.skipped, 20);  /* all tori but [2^6] and [3,3,3,2] mesh: see the list with FX_TEST_VERBOSE=1 */
	printf("bisection: %d shapes, %d exact, %d bounds; brute force on %d (%d also by "
	       "enumeration), %d past %d bits of state\n", t.shapes, t.exact, t.bound, t.dp,
	       t.enumerated, t.skipped, MAX_BITS);
}
END_TEST

/* The reproducers: a 2 x 999 mesh is 3 links, not 999; a 4 x 9 torus has a
 * balanced cut of 10, so 18 is not exact. */
START_TEST(bisection_odd_reproducers)
{
	fixture fx;
	const char *mesh = "name: t\nfabric: {kind: mesh, dims: [2, 999], "
			   "link: {bandwidth: 1 GB/s, latency: 1 ns}}\n";
	ck_assert_msg(fixture_load(&fx, "mesh.yaml", mesh, NULL) == 0, "%s", fx.msg);
	fx_cut c;
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_route_bisection(&fx.f, &c, &d), 0);
	ck_assert_double_eq(c.links, 3);
	ck_assert(c.exact);
	fixture_release(&fx);
	const char *torus = "name: t\nfabric: {kind: torus, dims: [4, 9], "
			    "link: {bandwidth: 1 GB/s, latency: 1 ns}}\n";
	ck_assert_msg(fixture_load(&fx, "torus.yaml", torus, NULL) == 0, "%s", fx.msg);
	ck_assert_int_eq(fx_route_bisection(&fx.f, &c, &d), 0);
	ck_assert_double_le(c.links, 10);
	fixture_release(&fx);
	fx_diag_release(&d);
}
END_TEST

Suite *suite_bisection(void)
{
	Suite *s = suite_create("bisection");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, bisection_brute_force);
	tcase_add_test(tc, bisection_odd_reproducers);
	suite_add_tcase(s, tc);
	return s;
}
