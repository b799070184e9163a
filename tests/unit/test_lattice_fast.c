/* Issue #15, a WSE-2's explore: the fast paths on lattices against the
 * paths they replace, on small meshes, wafers and tori of odd and even
 * sides.
 *
 * The summary's dense rounds and replayed rounds (routing/dor_sum.c)
 * against its sorted rounds routed one by one: every figure of every
 * round and every link's totals bit for bit, in all four combinations;
 * and the default against the per-link reference path to 1e-12 relative
 * (the summary's totals add in another order, as before).
 *
 * fx_fabric_reachable's detours on lattices that lost links (fabric/
 * fail.c) against a union-find of the live links: the same devices. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/xalloc.h"
#include "../../routing/internal.h"
#include "helpers.h"

/* Runs q with the summary's dense rounds (-1 auto, 0 never, 1 always) and
 * replays (0/1), or the per-link reference path; counts what the summary
 * did into dense/replayed.  Returns fx_coll_run's status. */
static int run_path(const fx_fabric *f, const fx_coll_req *q, fx_route_policy pol, int dense,
		    int replay, int reference, fx_coll_result *res, size_t *ndense,
		    size_t *nreplayed)
{
	fx_router *r = fx_router_new(f, 0);
	fx_router_set_reference(r, reference);
	fx_dorsum *s = fx_router_summary(r);
	if (s) {
		fx_dorsum_set_dense(s, dense);
		fx_dorsum_set_replay(s, replay);
	}
	fx_coll_time tm = {.alpha = 1e-6, .alpha_replaces_latency = 0, .policy = pol};
	fx_diag d;
	fx_diag_init(&d);
	d.max_shown = 0;
	FILE *null = fopen("/dev/null", "w");
	d.out = null;
	int rc = fx_coll_run(f, r, q, &tm, res, &d);
	fx_diag_release(&d);
	if (null)
		fclose(null);
	*ndense = *nreplayed = 0;
	if (s)
		fx_dorsum_counts(s, ndense, nreplayed);
	fx_router_free(r);
	return rc;
}

static int bits_eq(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static int close12(double a, double b)
{
	return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

/* a and b alike: bit for bit (exact), or totals to 1e-12 relative and
 * links to 1e-12 of the busiest (one link capacity: lattices). */
static void same_result(const fx_fabric *f, const fx_coll_result *a, const fx_coll_result *b,
			int exact, const char *what)
{
	ck_assert_msg(a->nround == b->nround, "%s: rounds", what);
	ck_assert_msg(a->rounds == b->rounds, "%s: rounds", what);
	for (size_t i = 0; i < a->nround; i++) {
		const fx_round_result *x = &a->per_round[i], *y = &b->per_round[i];
		ck_assert_msg(bits_eq(x->max_link_bytes, y->max_link_bytes), "%s: round %zu heaviest "
			      "%.17g vs %.17g", what, i, x->max_link_bytes, y->max_link_bytes);
		ck_assert_msg(bits_eq(x->time, y->time), "%s: round %zu time", what, i);
		ck_assert_msg(bits_eq(x->latency, y->latency) && x->max_hops == y->max_hops &&
			      x->repeat == y->repeat, "%s: round %zu path", what, i);
		ck_assert_msg(exact ? bits_eq(x->total_link_bytes, y->total_link_bytes)
				    : close12(x->total_link_bytes, y->total_link_bytes),
			      "%s: round %zu total %.17g vs %.17g", what, i, x->total_link_bytes,
			      y->total_link_bytes);
	}
	if (exact) {
		ck_assert_msg(bits_eq(a->time, b->time) && bits_eq(a->busbw, b->busbw) &&
			      bits_eq(a->total_link_bytes, b->total_link_bytes) &&
			      bits_eq(a->max_link_bytes, b->max_link_bytes) &&
			      bits_eq(a->sent_bytes, b->sent_bytes), "%s: figures", what);
		ck_assert_msg(memcmp(a->link_bytes, b->link_bytes,
				     (size_t)(2 * f->ne) * sizeof *a->link_bytes) == 0 &&
			      memcmp(a->link_busy, b->link_busy,
				     (size_t)(2 * f->ne) * sizeof *a->link_busy) == 0,
			      "%s: per-link figures", what);
		return;
	}
	ck_assert_msg(close12(a->time, b->time), "%s: time", what);
	ck_assert_msg(close12(a->total_link_bytes, b->total_link_bytes), "%s: total", what);
	ck_assert_msg(close12(a->max_link_bytes, b->max_link_bytes), "%s: max", what);
	/* a link both paths leave empty may keep the prefix sums' rounding
	 * residue (1e-9 of 3e6), different in each: to 1e-12 of the busiest */
	double mb = a->max_link_bytes, mt = mb / (f->e[0].count * f->e[0].bw);
	for (int64_t l = 0; l < 2 * f->ne; l++)
		ck_assert_msg(fabs(a->link_bytes[l] - b->link_bytes[l]) <= 1e-12 * mb &&
			      fabs(a->link_busy[l] - b->link_busy[l]) <= 1e-12 * mt,
			      "%s: link %lld %.17g vs %.17g", what, (long long)l, a->link_bytes[l],
			      b->link_bytes[l]);
}

/* One collective over all devices through every path; counts the dense
 * and replayed rounds of the default path into *nd, *nr. */
static void same_paths(const fx_fabric *f, const char *pattern, const char *algo,
		       fx_route_policy pol, const char *what, size_t *nd, size_t *nr)
{
	int64_t *ranks = fx_xmalloc((size_t)f->ndev * sizeof *ranks);
	for (int64_t i = 0; i < f->ndev; i++)
		ranks[i] = i;
	fx_coll_req q = {pattern, algo, ranks, f->ndev, 3e6, 0};
	fx_coll_result old, res;
	size_t d0, r0, d1, r1;
	/* the summary as it was: sorted rounds, each routed */
	int rc = run_path(f, &q, pol, 0, 0, 0, &old, &d0, &r0);
	ck_assert_msg(d0 == 0 && r0 == 0, "%s: old path", what);
	static const int modes[][2] = {{-1, 1}, {1, 1}, {1, 0}, {0, 1}};
	for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
		char w[320];
		snprintf(w, sizeof w, "%s dense %d replay %d", what, modes[m][0], modes[m][1]);
		ck_assert_int_eq(run_path(f, &q, pol, modes[m][0], modes[m][1], 0, &res, &d1, &r1),
				 rc);
		if (rc == 0) {
			same_result(f, &old, &res, 1, w);
			ck_assert_msg(modes[m][0] != 1 || d1 == res.nround - r1, "%s: dense rounds", w);
			ck_assert_msg(modes[m][1] || r1 == 0, "%s: replays", w);
			fx_coll_result_release(&res);
		}
		if (m == 0) {
			*nd += d1;
			*nr += r1;
		}
	}
	if (rc == 0) {  /* and the per-link reference path */
		ck_assert_int_eq(run_path(f, &q, pol, -1, 1, 1, &res, &d1, &r1), 0);
		same_result(f, &res, &old, 0, what);
		fx_coll_result_release(&res);
		fx_coll_result_release(&old);
	}
	free(ranks);
}

START_TEST(dorsum_dense_and_replay)
{
	static const char *const w12[] = {"fabric.grid=[12,12]", NULL};
	static const char *const w11[] = {"fabric.grid=[11,11]", NULL};
	static const char *const w12x7[] = {"fabric.grid=[12,7]", NULL};
	static const char *const w7x12[] = {"fabric.grid=[7,12]", NULL};
	static const char *const w9x1[] = {"fabric.grid=[9,1]", NULL};
	static const char *const t465[] = {"fabric.dims=[4,6,5]", "packaging.devices_per_node=1", NULL};
	static const char *const t555[] = {"fabric.dims=[5,5,5]", "packaging.devices_per_node=1", NULL};
	static const char *const t44[] = {"fabric.dims=[4,4]", "packaging.devices_per_node=1", NULL};
	static const char *const m65[] = {"fabric.dims=[6,5]", "fabric.kind=mesh",
					  "packaging.devices_per_node=1", NULL};
	static const char *const m77[] = {"fabric.dims=[7,7]", "fabric.kind=mesh",
					  "packaging.devices_per_node=1", NULL};
	static const struct {
		const char *path;
		const char *const *sets;
	} fabrics[] = {
		{"specs/wse2.yaml", w12}, {"specs/wse2.yaml", w11}, {"specs/wse2.yaml", w12x7},
		{"specs/wse2.yaml", w7x12}, {"specs/wse2.yaml", w9x1},
		{"specs/torus-8x8x8.yaml", t465}, {"specs/torus-8x8x8.yaml", t555},
		{"specs/torus-8x8x8.yaml", t44}, {"specs/torus-8x8x8.yaml", m65},
		{"specs/torus-8x8x8.yaml", m77},
	};
	static const char *const algos[][2] = {
		{"allreduce", "ring"}, {"allreduce", "tree"}, {"reduce-scatter", "ring"},
		{"all-gather", "ring"}, {"allreduce", "rhd"}, {"broadcast", "tree"},
		{"all-to-all", "pairwise"}, {"allreduce", "ktree"}, {"gemm-shift", "summa"},
		{"allreduce", "mesh-ring"},
	};
	size_t nd = 0, nr = 0;
	for (size_t i = 0; i < sizeof fabrics / sizeof *fabrics; i++) {
		fixture a;
		load_ok(&a, fabrics[i].path, fabrics[i].sets);
		for (size_t k = 0; k < sizeof algos / sizeof *algos; k++)
			for (int pol = 0; pol < 2; pol++) {
				char what[256];
				snprintf(what, sizeof what, "%s %s %s/%s %s", fabrics[i].path,
					 fabrics[i].sets[0], algos[k][0], algos[k][1],
					 pol ? "hash" : "split");
				same_paths(&a.f, algos[k][0], algos[k][1], pol, what, &nd, &nr);
			}
		fixture_release(&a);
	}
	/* the default took both new paths somewhere */
	ck_assert_msg(nd > 0 && nr > 0, "dense %zu, replayed %zu", nd, nr);
}
END_TEST

/* The reference: components of the live links (every lattice vertex
 * relays), the largest kept, ties to the one found first in device order,
 * failed devices out. */
static int64_t uf_find(int64_t *p, int64_t v)
{
	while (p[v] != v)
		v = p[v] = p[p[v]];
	return v;
}

static int64_t reach_reference(const fx_fabric *f, uint8_t *reach)
{
	int64_t n = f->ndev, *p = fx_xmalloc((size_t)n * sizeof *p);
	int64_t *size = fx_xcalloc((size_t)n, sizeof *size);
	for (int64_t v = 0; v < n; v++)
		p[v] = v;
	for (int64_t e = 0; e < f->ne; e++)
		if (fx_fabric_edge_up(f, e) && fx_fabric_vertex_up(f, f->ends[2 * e]) &&
		    fx_fabric_vertex_up(f, f->ends[2 * e + 1]))
			p[uf_find(p, f->ends[2 * e])] = uf_find(p, f->ends[2 * e + 1]);
	for (int64_t v = 0; v < n; v++)
		if (fx_fabric_vertex_up(f, v))
			size[uf_find(p, v)]++;
	int64_t best = -1, bsize = 0;
	for (int64_t v = 0; v < n; v++)
		if (fx_fabric_vertex_up(f, v) && size[uf_find(p, v)] > bsize) {
			bsize = size[uf_find(p, v)];
			best = uf_find(p, v);
		}
	for (int64_t v = 0; v < n; v++)
		reach[v] = fx_fabric_vertex_up(f, v) && uf_find(p, v) == best;
	free(p);
	free(size);
	return bsize;
}

START_TEST(reachable_detours)
{
	static const char *const w7x5[] = {"fabric.grid=[7,5]", NULL};
	static const char *const w6x6[] = {"fabric.grid=[6,6]", NULL};
	static const char *const w9x1[] = {"fabric.grid=[9,1]", NULL};
	static const char *const w2x2[] = {"fabric.grid=[2,2]", NULL};
	static const char *const t453[] = {"fabric.dims=[4,5,3]", "packaging.devices_per_node=1", NULL};
	static const char *const t33[] = {"fabric.dims=[3,3]", "packaging.devices_per_node=1", NULL};
	static const char *const m34[] = {"fabric.dims=[3,4]", "fabric.kind=mesh",
					  "packaging.devices_per_node=1", NULL};
	static const struct {
		const char *path;
		const char *const *sets;
	} fabrics[] = {
		{"specs/wse2.yaml", w7x5}, {"specs/wse2.yaml", w6x6}, {"specs/wse2.yaml", w9x1},
		{"specs/wse2.yaml", w2x2}, {"specs/torus-8x8x8.yaml", t453},
		{"specs/torus-8x8x8.yaml", t33}, {"specs/torus-8x8x8.yaml", m34},
	};
	uint64_t x = 0x2545F4914F6CDD1DULL;
	for (size_t i = 0; i < sizeof fabrics / sizeof *fabrics; i++) {
		fixture a;
		load_ok(&a, fabrics[i].path, fabrics[i].sets);
		fx_fabric *f = &a.f;
		uint8_t *dead = fx_xcalloc((size_t)f->ne + 1, 1), *sel = fx_xcalloc((size_t)f->nv, 1);
		uint8_t *got = fx_xmalloc((size_t)f->ndev), *want = fx_xmalloc((size_t)f->ndev);
		for (int trial = 0; trial < 300; trial++) {
			/* 1 to 8 links, a corner's links (cut off) or a device now and then */
			memset(dead, 0, (size_t)f->ne);
			memset(sel, 0, (size_t)f->nv);
			int k = 1 + trial % 8;
			for (int j = 0; j < k; j++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				dead[x % (uint64_t)f->ne] = 1;
			}
			if (trial % 10 == 3)  /* every link of device 0 */
				for (int64_t e = 0; e < f->ne; e++)
					dead[e] |= f->ends[2 * e] == 0;
			if (trial % 17 == 5)
				sel[x % (uint64_t)f->nv] = 1;
			fx_fabric_fail_clear(f);
			fx_fabric_fail_mark(f, sel, dead);
			int64_t n1 = fx_fabric_reachable(f, got), n2 = reach_reference(f, want);
			ck_assert_msg(n1 == n2 && memcmp(got, want, (size_t)f->ndev) == 0,
				      "%s %s trial %d: %lld vs %lld reached", fabrics[i].path,
				      fabrics[i].sets[0], trial, (long long)n1, (long long)n2);
		}
		fx_fabric_fail_clear(f);
		free(dead);
		free(sel);
		free(got);
		free(want);
		fixture_release(&a);
	}
}
END_TEST

/* One router for several collectives (explore's table, --sizes sweeps):
 * kept rounds are each collective's own, so a ring at one size and then
 * at another gives what fresh routers give, bit for bit. */
START_TEST(dorsum_router_reused)
{
	static const char *const w12[] = {"fabric.grid=[12,12]", NULL};
	fixture a;
	load_ok(&a, "specs/wse2.yaml", w12);
	const fx_fabric *f = &a.f;
	int64_t *ranks = fx_xmalloc((size_t)f->ndev * sizeof *ranks);
	for (int64_t i = 0; i < f->ndev; i++)
		ranks[i] = i;
	static const char *const algos[][2] = {
		{"allreduce", "ring"}, {"allreduce", "ring"}, {"allreduce", "tree"},
		{"all-gather", "ring"}, {"allreduce", "ring"}, {"gemm-shift", "summa"},
	};
	fx_router *shared = fx_router_new(f, 0);
	fx_coll_time tm = {.alpha = 1e-6, .alpha_replaces_latency = 0, .policy = FX_ROUTE_SPLIT};
	size_t replays = 0;
	for (size_t k = 0; k < sizeof algos / sizeof *algos; k++) {
		fx_coll_req q = {algos[k][0], algos[k][1], ranks, f->ndev, 1e6 * (double)(k + 1), 0};
		fx_coll_result x, y;
		size_t d1, r1;
		fx_diag d;
		fx_diag_init(&d);
		ck_assert_int_eq(fx_coll_run(f, shared, &q, &tm, &x, &d), 0);
		fx_diag_release(&d);
		ck_assert_int_eq(run_path(f, &q, FX_ROUTE_SPLIT, 0, 0, 0, &y, &d1, &r1), 0);
		char what[64];
		snprintf(what, sizeof what, "collective %zu (%s/%s)", k, algos[k][0], algos[k][1]);
		same_result(f, &x, &y, 1, what);
		fx_coll_result_release(&x);
		fx_coll_result_release(&y);
		size_t nd, nr;
		fx_dorsum_counts(fx_router_summary(shared), &nd, &nr);
		replays = nr;
	}
	ck_assert_msg(replays >= 3, "replays %zu", replays);
	fx_router_free(shared);
	free(ranks);
	fixture_release(&a);
}
END_TEST

Suite *suite_lattice_fast(void)
{
	Suite *s = suite_create("lattice_fast");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, dorsum_dense_and_replay);
	tcase_add_test(tc, reachable_detours);
	tcase_add_test(tc, dorsum_router_reused);
	suite_add_tcase(s, tc);
	return s;
}
