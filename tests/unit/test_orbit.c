/* Symmetry, proven (fabric/orbit.c): orbits under automorphisms that are
 * each checked.  The brute force: every vertex and every bundle is failed
 * alone and measured (the max-flow across a split, each device's bandwidth
 * into the fabric, the devices still joined), and each must measure as
 * the least member of its orbit does.  On explicit graphs, lattices,
 * fat-trees, NVSwitch and UB domains.  And by hand: HGX H100's chips
 * carry 5/4/4/5 links per GPU, so chips 0 and 3 are alike, 1 and 2 are,
 * and no automorphism maps chip 0 to chip 1; a 2x7 mesh's canonical split
 * puts (0,3) alone with side A's (0,0)-(1,2), so only the half turn keeps
 * it: seven orbits of two. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/xalloc.h"
#include "../../routing/routing.h"
#include "helpers.h"

/* What a failure is measured by. */
typedef struct probe {
	double cut;
	double *inject;   /* [ndev], sorted */
	int64_t joined;
} probe;

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void measure(fixture *fx, const uint8_t *side, probe *p)
{
	fx_fabric *f = &fx->f;
	fx_cut c;
	ck_assert_int_eq(fx_route_cut(f, side, &c, &fx->d), 0);
	p->cut = c.bandwidth;
	p->inject = fx_xcalloc((size_t)f->nv + 1, sizeof *p->inject);
	for (int64_t e = 0; e < f->ne; e++)
		for (int k = 0; k < 2 && fx_fabric_edge_up(f, e); k++)
			p->inject[f->ends[2 * e + k]] += f->e[e].bw * f->e[e].count;
	qsort(p->inject, (size_t)f->ndev, sizeof *p->inject, by_double);
	uint8_t *reach = fx_xcalloc((size_t)f->ndev + 1, 1);
	p->joined = fx_fabric_reachable(f, reach);
	free(reach);
}

/* Fails vertex v (or bundle e), measures, restores. */
static void measure_failed(fixture *fx, const uint8_t *side, int64_t v, int64_t e, probe *p)
{
	fx_fabric *f = &fx->f;
	fx_fail_saved keep;
	fx_fabric_fail_save(f, &keep);
	uint8_t *sel = fx_xcalloc((size_t)f->nv + 1, 1), *dead = fx_xcalloc((size_t)f->ne + 1, 1);
	if (v >= 0)
		sel[v] = 1;
	if (e >= 0)
		dead[e] = 1;
	fx_fabric_fail_mark(f, sel, dead);
	measure(fx, side, p);
	fx_fabric_fail_restore(f, &keep);
	free(sel);
	free(dead);
}

static void same(const fixture *fx, const probe *a, const probe *b, const char *what, int64_t x)
{
	ck_assert_msg(a->cut == b->cut && a->joined == b->joined &&
		      memcmp(a->inject, b->inject, (size_t)fx->f.ndev * sizeof *a->inject) == 0,
		      "%s %lld measures unlike its orbit's first (cut %g vs %g, joined %lld vs %lld)",
		      what, (long long)x, a->cut, b->cut, (long long)a->joined, (long long)b->joined);
}

/* Every element against its orbit's first; returns the orbits of
 * vertices and fills *edge_orbits. */
static int64_t brute(fixture *fx, const uint8_t *side, fx_orbits *o, int64_t *edge_orbits)
{
	fx_fabric *f = &fx->f;
	int64_t *of = fx_xmalloc((size_t)(f->nv + 1) * sizeof *of);
	for (int64_t v = 0; v < f->nv; v++)
		of[v] = side[v] < 2 ? side[v] : -1;
	fx_blocks b = {of, 2};
	ck_assert_int_eq(fx_fabric_orbits(f, &b, 1, o), 0);
	int64_t nv = 0, ne = 0;
	for (int64_t v = 0; v < f->nv; v++) {
		nv += o->vertex[v] == v;
		if (o->vertex[v] == v || !fx_fabric_vertex_up(f, v))
			continue;
		probe p, q;
		measure_failed(fx, side, v, -1, &p);
		measure_failed(fx, side, o->vertex[v], -1, &q);
		same(fx, &p, &q, "vertex", v);
		free(p.inject);
		free(q.inject);
	}
	for (int64_t e = 0; e < f->ne; e++) {
		ne += o->edge[e] == e;
		if (o->edge[e] == e || !fx_fabric_edge_up(f, e))
			continue;
		probe p, q;
		measure_failed(fx, side, -1, e, &p);
		measure_failed(fx, side, -1, o->edge[e], &q);
		same(fx, &p, &q, "bundle", e);
		free(p.inject);
		free(q.inject);
	}
	free(of);
	*edge_orbits = ne;
	return nv;
}

/* The canonical split, or the first half of the devices against the
 * second where the kind has none (explicit graphs). */
static uint8_t *split(const fx_fabric *f)
{
	uint8_t *side = fx_xmalloc((size_t)f->nv + 1);
	for (int64_t v = 0; v < f->nv; v++)
		side[v] = v < f->ndev ? v >= f->ndev / 2 : 2;
	if (f->builder->halves)
		ck_assert(f->builder->halves(f, side));
	return side;
}

START_TEST(test_hgx_custom)
{
	fixture fx;
	load_ok(&fx, "tests/specs/hgx-custom.yaml", NULL);
	uint8_t *side = split(&fx.f);
	fx_orbits o;
	int64_t ne, nv = brute(&fx, side, &o, &ne);
	/* gpus 0-7, nvs0-3 at 8-11: 5/4/4/5 links per GPU */
	ck_assert_int_eq(o.vertex[11], 8);
	ck_assert_int_eq(o.vertex[10], 9);
	ck_assert_int_ne(o.vertex[9], 8);
	ck_assert_int_eq(o.vertex[7], 0);
	ck_assert_int_eq(nv, 3);  /* GPUs, chips 0 and 3, chips 1 and 2 */
	ck_assert_int_eq(ne, 2);  /* bundles of 5, bundles of 4 */
	/* the check itself: chips 0 and 3 trade places, 0 and 1 cannot */
	int64_t perm[12];
	for (int v = 0; v < 12; v++)
		perm[v] = v;
	perm[8] = 11;
	perm[11] = 8;
	ck_assert(fx_fabric_automorphism(&fx.f, perm, NULL, NULL, 0, NULL));
	perm[11] = 9;
	perm[9] = 11;
	perm[8] = 8;
	ck_assert(!fx_fabric_automorphism(&fx.f, perm, NULL, NULL, 0, NULL));
	fx_orbits_release(&o);
	free(side);
	fixture_release(&fx);
}
END_TEST

/* An explicit graph with little symmetry: a 6-ring of GPUs with a chord
 * 0-3 of twice the bandwidth and a switch on GPUs 1 and 4.  Its only
 * automorphism but the identity is x -> x+3 (mod 6), which swaps the
 * split's sides {0,1,2 | 3,4,5}; every reflection of the ring moves the
 * chord or the switch's links. */
static const char kite[] = "name: kite\n"
	"fabric:\n"
	"  kind: custom\n"
	"  link: {bandwidth: 25 GB/s, latency: 200 ns}\n"
	"  nodes:\n"
	"    - {name: g0, type: device}\n    - {name: g1, type: device}\n"
	"    - {name: g2, type: device}\n    - {name: g3, type: device}\n"
	"    - {name: g4, type: device}\n    - {name: g5, type: device}\n"
	"    - {name: s0, type: switch, ports: 8}\n"
	"  links:\n"
	"    - {a: g0, b: g1}\n    - {a: g1, b: g2}\n    - {a: g2, b: g3}\n"
	"    - {a: g3, b: g4}\n    - {a: g4, b: g5}\n    - {a: g5, b: g0}\n"
	"    - {a: g0, b: g3, bandwidth: 50 GB/s}\n"
	"    - {a: g1, b: s0, count: 2}\n    - {a: g4, b: s0, count: 2}\n";

START_TEST(test_custom_kite)
{
	fixture fx;
	ck_assert_int_eq(fixture_load(&fx, "kite.yaml", kite, NULL), 0);
	uint8_t *side = split(&fx.f);
	fx_orbits o;
	int64_t ne, nv = brute(&fx, side, &o, &ne);
	/* orbits {0,3} {1,4} {2,5} {s0} */
	ck_assert_int_eq(o.vertex[3], 0);
	ck_assert_int_eq(o.vertex[4], 1);
	ck_assert_int_eq(o.vertex[5], 2);
	ck_assert_int_eq(nv, 4);
	fx_orbits_release(&o);
	free(side);
	fixture_release(&fx);
}
END_TEST

START_TEST(test_mesh_2x7)
{
	fixture fx;
	static const char m27[] = "name: m27\nfabric: {kind: mesh, dims: [2, 7], "
				  "link: {bandwidth: 50 GB/s, latency: 200 ns}}\n";
	ck_assert_int_eq(fixture_load(&fx, "m27.yaml", m27, NULL), 0);
	uint8_t *side = split(&fx.f);
	/* (0,3) is device 6: on side A with (0,0)-(1,2) */
	ck_assert_int_eq(side[6], side[0]);
	ck_assert_int_ne(side[7], side[0]);
	fx_orbits o;
	int64_t ne, nv = brute(&fx, side, &o, &ne);
	ck_assert_int_eq(nv, 7);
	ck_assert_int_eq(o.vertex[7], 6);  /* (1,3) by the half turn */
	ck_assert_int_eq(ne, 10);          /* 19 links: 9 pairs and (0,3)-(1,3) */
	fx_orbits_release(&o);
	free(side);
	fixture_release(&fx);
}
END_TEST

/* The brute force on shipped kinds, small builds. */
START_TEST(test_kinds_brute)
{
	static const char *const t35[] = {"fabric.dims=[3,5]", "packaging={devices_per_node: 3}", NULL};
	static const char *const k4[] = {"fabric.k=4", NULL};
	static const char *const k6[] = {"fabric.k=6", "fabric.pods=4", "packaging.devices_per_node=3",
					 NULL};
	static const char *const ub4[] = {"fabric.nodes=4", "packaging.nodes_per_rack=2", NULL};
	static const char *const nv4[] = {"fabric.nodes=4", NULL};
	static const char *const w54[] = {"fabric.grid=[5,4]", NULL};
	static const struct {
		const char *spec;
		const char *const *sets;
	} c[] = {
		{"specs/torus-8x8x8.yaml", t35}, {"specs/tpu-v4-cube.yaml", NULL},
		{"tests/specs/torus-4x4-failed.yaml", NULL}, {"specs/fat-tree-k8.yaml", k4},
		{"specs/fat-tree-k8.yaml", k6}, {"specs/hgx-h100.yaml", NULL},
		{"specs/cm384.yaml", ub4}, {"specs/dgx-h100-256.yaml", nv4}, {"specs/wse2.yaml", w54},
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		fixture fx;
		load_ok(&fx, c[i].spec, c[i].sets);
		uint8_t *side = split(&fx.f);
		fx_orbits o;
		int64_t ne, nv = brute(&fx, side, &o, &ne);
		ck_assert_msg(nv < fx.f.nv && ne < fx.f.ne, "%s: no symmetry found (%lld of %lld, "
			      "%lld of %lld)", c[i].spec, (long long)nv, (long long)fx.f.nv,
			      (long long)ne, (long long)fx.f.ne);
		fx_orbits_release(&o);
		free(side);
		fixture_release(&fx);
	}
}
END_TEST

/* Past the size bliss may take, the kind's own candidates: a k=24
 * fat-tree (14,544 auxiliary vertices) still finds its three classes of
 * switches (leaves, aggregation, cores: the turns of hosts, leaves, pods,
 * aggregation switches with their core groups, cores). */
START_TEST(test_fattree_large)
{
	static const char *const k24[] = {"fabric.k=24", NULL};
	fixture fx;
	load_ok(&fx, "specs/fat-tree-k8.yaml", k24);
	uint8_t *side = split(&fx.f);
	int64_t *of = fx_xmalloc((size_t)(fx.f.nv + 1) * sizeof *of);
	for (int64_t v = 0; v < fx.f.nv; v++)
		of[v] = side[v] < 2 ? side[v] : -1;
	fx_blocks b = {of, 2};
	fx_orbits o;
	ck_assert_int_eq(fx_fabric_orbits(&fx.f, &b, 1, &o), 0);
	int64_t sw = 0, dev = 0;
	for (int64_t v = 0; v < fx.f.nv; v++) {
		sw += fx.f.v[v].type == FX_V_SWITCH && o.vertex[v] == v;
		dev += fx.f.v[v].type == FX_V_DEVICE && o.vertex[v] == v;
	}
	ck_assert_int_eq(sw, 3);
	ck_assert_int_eq(dev, 1);
	ck_assert(strstr(o.method, "kind") != NULL);
	fx_orbits_release(&o);
	free(of);
	free(side);
	fixture_release(&fx);
}
END_TEST

Suite *suite_orbit(void)
{
	Suite *s = suite_create("orbit");
	TCase *tc = tcase_create("brute");
	tcase_add_test(tc, test_hgx_custom);
	tcase_add_test(tc, test_custom_kite);
	tcase_add_test(tc, test_mesh_2x7);
	tcase_add_test(tc, test_kinds_brute);
	tcase_add_test(tc, test_fattree_large);
	suite_add_tcase(s, tc);
	return s;
}
