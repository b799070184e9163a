/* Hop counts and cut sets against the "Supernodes" chapter's worked numbers, and the
 * structural shortcuts against plain searches. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../routing/internal.h"
#include "../../routing/routing.h"
#include "helpers.h"

static void hops_of(const char *path, const char *const *sets, fx_hops *h)
{
	fixture fx;
	load_ok(&fx, path, sets);
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_route_hops(&fx.f, h, &d), 0);
	fx_diag_release(&d);
	fixture_release(&fx);
}

static void bisection_of(const char *path, const char *const *sets, fx_cut *c)
{
	fixture fx;
	load_ok(&fx, path, sets);
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_route_bisection(&fx.f, c, &d), 0);
	fx_diag_release(&d);
	fixture_release(&fx);
}

/* the chapter, §6.5.4: bisecting a k x k x k torus cuts 2k^2 links: 32 for 4^3 and
 * 128 for 8^3, so per-chip cut bandwidth halves (64 -> 512 chips). */
START_TEST(torus_bisection)
{
	fx_cut c;
	bisection_of("specs/tpu-v4-cube.yaml", NULL, &c);
	ck_assert_double_eq(c.links, 32);
	ck_assert_str_eq(c.method, "exact");
	ck_assert(c.confirmed);  /* igraph max-flow equals 2k^2 x 50 GB/s */
	ck_assert_double_eq_tol(c.bandwidth, 32 * 50e9, 1);
	double per4 = c.per_device;
	bisection_of("specs/torus-8x8x8.yaml", NULL, &c);
	ck_assert_double_eq(c.links, 128);
	ck_assert(c.confirmed);
	ck_assert_double_eq_tol(c.per_device, per4 / 2, 1e-3);
	/* collectives.md §6 check 8: TPU v4 16^3 -> 512 bisection links */
	const char *s16[] = {"fabric.dims=[16,16,16]", NULL};
	bisection_of("specs/torus-8x8x8.yaml", s16, &c);
	ck_assert_double_eq(c.links, 512);
	ck_assert(c.confirmed);
	/* a mesh cuts once per line: N/k */
	const char *mesh[] = {"fabric.wrap=false", NULL};
	bisection_of("specs/tpu-v4-cube.yaml", mesh, &c);
	ck_assert_double_eq(c.links, 16);
	ck_assert(c.confirmed);
}
END_TEST

/* the chapter, §6.5.1: "the two farthest cards are two hops apart in each
 * dimension, six hops across three dimensions; in the switched network, any
 * two cards are two links plus one forwarding step apart ... the torus takes
 * an extra 0.8 us" at 200 ns per hop; "when the card count grows to 8^3 =
 * 512, the torus's farthest distance becomes twelve hops". */
START_TEST(farthest_pairs)
{
	fx_hops t, s, t8;
	hops_of("specs/tpu-v4-cube.yaml", NULL, &t);
	hops_of("specs/switched-64.yaml", NULL, &s);
	hops_of("specs/torus-8x8x8.yaml", NULL, &t8);
	ck_assert_int_eq(t.diameter, 6);
	ck_assert_int_eq(t8.diameter, 12);
	ck_assert_int_eq(s.diameter, 2);
	/* every switched pair is exactly two links apart */
	ck_assert_double_eq(s.hist[2], 64.0 * 63);
	ck_assert_double_eq(s.hist[1], 0);
	ck_assert_double_eq_tol(t.far_latency - s.far_latency, 0.8e-6, 1e-12);
	/* the chapter, §6.5.1: a uniform share averages three hops on the 4^3 torus (over
	 * all 64 destinations, the card itself included: 3 x 64 / 63 per distinct pair)
	 * and six on 8^3 */
	ck_assert_double_eq_tol(t.mean * 63 / 64, 3.0, 1e-12);
	ck_assert_double_eq_tol(t8.mean * 511 / 512, 6.0, 1e-12);
	fx_hops_release(&t);
	fx_hops_release(&s);
	fx_hops_release(&t8);
}
END_TEST

/* The lattice convolution against igraph's own all-pairs distances. */
START_TEST(lattice_hops_match_igraph)
{
	static const char *cases[][2] = {
		{"fabric.dims=[4,4,4]", "fabric.wrap=true"},
		{"fabric.dims=[3,5]", "fabric.wrap=false"},
		{"fabric.dims=[5,4]", "fabric.wrap=true"},
		{"fabric.dims=[2,3,4]", "fabric.wrap=[true,false,true]"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *sets[] = {cases[i][0], cases[i][1], "packaging.devices_per_node=1", NULL};
		fixture fx;
		load_ok(&fx, "specs/tpu-v4-cube.yaml", sets);
		fx_hops h;
		fx_diag d;
		fx_diag_init(&d);
		ck_assert_int_eq(fx_route_hops(&fx.f, &h, &d), 0);
		igraph_matrix_t m;
		igraph_matrix_init(&m, 0, 0);
		igraph_distances(&fx.f.g, &m, igraph_vss_all(), igraph_vss_all(), IGRAPH_ALL);
		double hist[64] = {0};
		for (int64_t a = 0; a < fx.f.ndev; a++)
			for (int64_t b = 0; b < fx.f.ndev; b++)
				if (a != b)
					hist[(int)MATRIX(m, a, b)]++;
		for (int k = 1; k < 64; k++)
			ck_assert_msg(hist[k] == (k < h.nhist ? h.hist[k] : 0), "%s %s: %d hops: igraph %g, fabricx %g",
				      cases[i][0], cases[i][1], k, hist[k], k < h.nhist ? h.hist[k] : 0);
		igraph_matrix_destroy(&m);
		fx_hops_release(&h);
		fx_diag_release(&d);
		fixture_release(&fx);
	}
}
END_TEST

/* One search from device 0 stands for all only if every device is alike:
 * check it against a search from every device on the shipped switched
 * fabrics. */
START_TEST(transitive_shortcut_is_exact)
{
	static const char *specs[] = {"specs/hgx-h100.yaml", "specs/nvl72.yaml", "specs/switched-64.yaml",
				      "specs/cm384.yaml", "specs/dgx-h100-256.yaml",
				      "specs/fat-tree-k8.yaml"};
	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
		fixture fx;
		load_ok(&fx, specs[i], NULL);
		ck_assert(fx.f.device_transitive);
		fx_hops one, all;
		fx_diag d;
		fx_diag_init(&d);
		ck_assert_int_eq(fx_route_hops(&fx.f, &one, &d), 0);
		fx.f.device_transitive = 0;
		ck_assert_int_eq(fx_route_hops(&fx.f, &all, &d), 0);
		ck_assert_int_eq(all.sources, fx.f.ndev);
		ck_assert_int_eq(one.nhist, all.nhist);
		for (int64_t k = 0; k < one.nhist; k++)
			ck_assert_msg(one.hist[k] == all.hist[k], "%s: %lld hops", specs[i], (long long)k);
		ck_assert_double_eq(one.far_latency, all.far_latency);
		fx_hops_release(&one);
		fx_hops_release(&all);
		fx_diag_release(&d);
		fixture_release(&fx);
	}
}
END_TEST

/* Switched fabrics' bisections, computed by hand from the sources the specs
 * cite, and each equal to igraph's max-flow. */
START_TEST(switched_bisections)
{
	fx_cut c;
	/* CM384: 24 nodes x 8 NPUs x 392 GB/s = 75,264 GB/s; each of the 112 L2
	 * chips sees 24 nodes on each side at 28 GB/s: the same. */
	bisection_of("specs/cm384.yaml", NULL, &c);
	ck_assert(c.confirmed);
	ck_assert_double_eq_tol(c.bandwidth, 75264e9, 1);
	ck_assert_double_eq_tol(c.per_device, 392e9, 1e-3);
	ck_assert_double_eq(c.links, 2688);
	/* DGX H100 NVLink Switch System: 460.8 Tb/s bisection (hardware.md §3)
	 * = 57.6 TB/s both ways, 28.8 TB/s per direction: the 2:1 taper halves
	 * each GPU's 450 GB/s. */
	bisection_of("specs/dgx-h100-256.yaml", NULL, &c);
	ck_assert(c.confirmed);
	ck_assert_double_eq_tol(c.bandwidth, 28.8e12, 1);
	ck_assert_double_eq_tol(c.per_device, 225e9, 1e-3);
	/* NVL72: 36 GPUs x 18 x 50 GB/s */
	bisection_of("specs/nvl72.yaml", NULL, &c);
	ck_assert(c.confirmed);
	ck_assert_double_eq_tol(c.bandwidth, 36 * 900e9, 1);
	/* full fat-tree: N b / 2 (collectives.md §3) */
	bisection_of("specs/fat-tree-k8.yaml", NULL, &c);
	ck_assert(c.confirmed);
	ck_assert_double_eq_tol(c.bandwidth, 64 * 50e9, 1);
	/* 3:1 oversubscribed leaves cut the per-host bisection to a third */
	const char *over[] = {"fabric.k=", NULL};
	(void)over;
	fixture fx;
	const char *y = "fabric: {kind: fat-tree, tiers: 2, radix: 64, hosts: 384, down_up: [48, 16], "
			"link: {bandwidth: 50 GB/s, latency: 200 ns}}";
	ck_assert_msg(fixture_load(&fx, "over.yaml", y, NULL) == 0, "%s", fx.msg);
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_route_bisection(&fx.f, &c, &d), 0);
	ck_assert(c.confirmed);
	ck_assert_double_eq_tol(c.per_device, 50e9 / 3, 1e-3);
	fx_diag_release(&d);
	fixture_release(&fx);
}
END_TEST

/* A k x k torus written out by hand as a `custom` spec into y (the
 * lattice's structure hidden from fabricx); returns its length. */
static size_t torus_by_hand(char *y, size_t cap, int k)
{
	size_t n = (size_t)snprintf(y, cap, "fabric:\n  kind: custom\n  link: {bandwidth: 1 GB/s, "
				    "latency: 1 ns}\n  nodes:\n");
	for (int i = 0; i < k * k; i++)
		n += (size_t)snprintf(y + n, cap - n, "    - {name: p%d, type: device}\n", i);
	n += (size_t)snprintf(y + n, cap - n, "  links:\n");
	for (int i = 0; i < k * k; i++) {
		int x = i % k, r = i / k;
		n += (size_t)snprintf(y + n, cap - n, "    - {a: p%d, b: p%d}\n    - {a: p%d, b: p%d}\n",
				      i, r * k + (x + 1) % k, i, ((r + 1) % k) * k + x);
	}
	ck_assert_uint_lt(n, cap - 1);
	return n;
}

/* Graphs without a canonical split get a heuristic one, labelled a bound. */
START_TEST(heuristic_bisection)
{
	/* two 32-cliques joined by 4 bridges: the bisection is the 4 bridges */
	char y[200000];
	size_t n = (size_t)snprintf(y, sizeof y, "fabric:\n  kind: custom\n  link: {bandwidth: 1 GB/s, "
				    "latency: 1 ns}\n  nodes:\n");
	for (int i = 0; i < 64; i++)
		n += (size_t)snprintf(y + n, sizeof y - n, "    - {name: d%d, type: device}\n", i);
	n += (size_t)snprintf(y + n, sizeof y - n, "  links:\n");
	for (int h = 0; h < 2; h++)
		for (int i = 0; i < 32; i++)
			for (int j = i + 1; j < 32; j++)
				n += (size_t)snprintf(y + n, sizeof y - n, "    - {a: d%d, b: d%d}\n",
						      32 * h + i, 32 * h + j);
	for (int i = 0; i < 4; i++)
		n += (size_t)snprintf(y + n, sizeof y - n, "    - {a: d%d, b: d%d}\n", i * 3, 32 + i * 5);
	fixture fx;
	ck_assert_msg(fixture_load(&fx, "k32.yaml", y, NULL) == 0, "%s", fx.msg);
	fx_cut c;
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_route_bisection(&fx.f, &c, &d), 0);
	ck_assert_str_eq(c.method, "bound");
	ck_assert_double_eq(c.links, 4);
	ck_assert_int_eq(c.side[0], 32);
	ck_assert_int_eq(c.side[1], 32);
	fx_diag_release(&d);
	fixture_release(&fx);

	/* an 8x8 torus written out by hand: the heuristic finds 2k = 16 links */
	torus_by_hand(y, sizeof y, 8);
	ck_assert_msg(fixture_load(&fx, "t8.yaml", y, NULL) == 0, "%s", fx.msg);
	fx_diag_init(&d);
	ck_assert_int_eq(fx_route_bisection(&fx.f, &c, &d), 0);
	ck_assert_double_eq(c.links, 16);
	fx_diag_release(&d);
	fixture_release(&fx);

	/* 16x16 by hand: the optimum 2k = 32 (Kernighan-Lin found 36; the
	 * Fiduccia-Mattheyses passes and the device-order seed find 32) */
	torus_by_hand(y, sizeof y, 16);
	ck_assert_msg(fixture_load(&fx, "t16.yaml", y, NULL) == 0, "%s", fx.msg);
	fx_diag_init(&d);
	ck_assert_int_eq(fx_route_bisection(&fx.f, &c, &d), 0);
	ck_assert_str_eq(c.method, "bound");
	ck_assert_double_eq(c.links, 32);
	ck_assert_int_eq(c.side[0], 128);
	fx_diag_release(&d);
	fixture_release(&fx);
}
END_TEST

/* The spectral seed converges where ARPACK at machine precision gave
 * nothing after 3,000 restarts (a 48x48 torus by hand: a degenerate Fiedler
 * space; docs/performance.md, "Bisection seeds that converge"): the method
 * says the split came from it, and the cut is the optimum 2k = 96. */
START_TEST(spectral_seed_converges)
{
	static char y[400000];
	torus_by_hand(y, sizeof y, 48);
	fixture fx;
	ck_assert_msg(fixture_load(&fx, "t48.yaml", y, NULL) == 0, "%s", fx.msg);
	fx_cut c;
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_route_bisection(&fx.f, &c, &d), 0);
	ck_assert_str_eq(c.method, "bound");
	ck_assert_msg(strncmp(c.how, "spectral + ", 11) == 0, "how: %s", c.how);
	ck_assert_double_eq(c.links, 96);
	fx_diag_release(&d);
	fixture_release(&fx);
}
END_TEST

/* Where every vertex is a device the bisection counts its split's edge cut
 * instead of running igraph's max-flow: the same numbers as the max-flow
 * over the same split (odd, even and mixed lattices). */
START_TEST(device_cut_equals_maxflow)
{
	const char *dims[] = {"fabric.dims=[5,5,5]", "fabric.dims=[6,6,6]", "fabric.dims=[4,7]",
			      "fabric.dims=[3,9,2]"};
	for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
		const char *sets[] = {dims[i], "packaging.devices_per_node=1", NULL};
		fixture fx;
		load_ok(&fx, "specs/torus-8x8x8.yaml", sets);
		fx_diag d;
		fx_diag_init(&d);
		fx_cut fast, slow;
		ck_assert_int_eq(fx_route_bisection(&fx.f, &fast, &d), 0);
		uint8_t *side = calloc((size_t)fx.f.nv, 1);
		ck_assert_int_eq(fx.f.builder->halves(&fx.f, side) > 0, 1);
		ck_assert_int_eq(fx_route_cut(&fx.f, side, &slow, &d), 0);
		ck_assert_double_eq(fast.bandwidth, slow.bandwidth);
		ck_assert_double_eq(fast.links, slow.links);
		ck_assert_double_eq(fast.direct_links, slow.direct_links);
		ck_assert_int_eq(fast.side[0], slow.side[0]);
		ck_assert_int_eq(fast.side[1], slow.side[1]);
		free(side);
		fx_diag_release(&d);
		fixture_release(&fx);
	}
}
END_TEST

/* A w x h torus (h = 1: a path of w) written out as a custom graph. */
static char *custom_grid(int64_t w, int64_t h)
{
	size_t cap = 256 + (size_t)(w * h) * 96, len = 0;
	char *y = malloc(cap);
	len += (size_t)snprintf(y + len, cap - len, "name: g\nfabric:\n  kind: custom\n"
				"  link: {bandwidth: 10 GB/s, latency: 100 ns}\n  nodes:\n");
	for (int64_t i = 0; i < w * h; i++)
		len += (size_t)snprintf(y + len, cap - len, "  - {name: v%lld, type: device}\n",
					(long long)i);
	len += (size_t)snprintf(y + len, cap - len, "  links:\n");
	for (int64_t i = 0; i < w * h; i++) {
		int64_t x = i % w, r = i / w;
		if (h == 1 ? x + 1 < w : 1)
			len += (size_t)snprintf(y + len, cap - len, "  - {a: v%lld, b: v%lld}\n",
						(long long)i, (long long)(r * w + (x + 1) % w));
		if (h > 1)
			len += (size_t)snprintf(y + len, cap - len, "  - {a: v%lld, b: v%lld}\n",
						(long long)i, (long long)(((r + 1) % h) * w + x));
	}
	return y;
}

/* Explicit graphs: the spectral seed runs up to routing/cut.c's
 * SPECTRAL_LIMIT (20,000 vertices + edges) and the method says which seeds
 * ran.  Hand counts: an 8x6 torus halves across its 8-rings, 2 links on
 * each of 6 rings = 12; a path of 10,001 devices (20,001 vertices + edges)
 * is cut by one link. */
START_TEST(spectral_limit)
{
	static const struct { int64_t w, h; double links; const char *how; } cases[] = {
		{8, 6, 12, "spectral +"}, {10001, 1, 1, "breadth-first +"}};
	for (size_t i = 0; i < 2; i++) {
		char *y = custom_grid(cases[i].w, cases[i].h);
		fixture fx;
		ck_assert_msg(fixture_load(&fx, "g.yaml", y, NULL) == 0, "%s", fx.msg);
		fx_diag d;
		fx_diag_init(&d);
		fx_cut c;
		ck_assert_int_eq(fx_route_bisection(&fx.f, &c, &d), 0);
		ck_assert_double_eq(c.links, cases[i].links);
		ck_assert_int_eq(c.side[0], cases[i].w * cases[i].h / 2);
		ck_assert_msg(strncmp(c.how, cases[i].how, strlen(cases[i].how)) == 0, "%lldx%lld: %s",
			      (long long)cases[i].w, (long long)cases[i].h, c.how);
		fx_diag_release(&d);
		fixture_release(&fx);
		free(y);
	}
}
END_TEST

/* The max-flow on the whole graph, each vertex of a set tied to its
 * terminal by an "infinite" edge (fx_route_cut before it contracted the
 * sets): the reference for contracted_maxflow. */
static void whole_graph_cut(const fx_fabric *f, const uint8_t *side, fx_cut *out)
{
	memset(out, 0, sizeof *out);
	int64_t s = f->nv, t = f->nv + 1, m = 0;
	double total = 1;
	for (int64_t e = 0; e < f->ne; e++)
		total += fx_fabric_edge_up(f, e) ? f->e[e].count * f->e[e].bw : 0;
	igraph_vector_int_t ev, cut;
	igraph_vector_t c;
	int64_t *orig = malloc((size_t)(f->ne + f->nv) * sizeof *orig);
	igraph_vector_int_init(&ev, 0);
	igraph_vector_init(&c, 0);
	for (int64_t e = 0; e < f->ne; e++) {
		int64_t a = f->ends[2 * e], b = f->ends[2 * e + 1];
		if ((side[a] == 2 && !fx_fabric_relays(f, a)) || (side[b] == 2 && !fx_fabric_relays(f, b)) ||
		    !fx_fabric_edge_up(f, e))
			continue;
		if (side[a] < 2 && side[b] < 2 && side[a] != side[b])
			out->direct_links += f->e[e].count;
		igraph_vector_int_push_back(&ev, a);
		igraph_vector_int_push_back(&ev, b);
		igraph_vector_push_back(&c, f->e[e].count * f->e[e].bw);
		orig[m++] = e;
	}
	for (int64_t v = 0; v < f->nv; v++) {
		if (side[v] > 1)
			continue;
		out->side[side[v]] += f->v[v].type == FX_V_DEVICE;
		igraph_vector_int_push_back(&ev, side[v] == 0 ? s : v);
		igraph_vector_int_push_back(&ev, side[v] == 0 ? v : t);
		igraph_vector_push_back(&c, total);
		orig[m++] = -1;
	}
	igraph_t g;
	ck_assert_int_eq(igraph_create(&g, &ev, f->nv + 2, IGRAPH_UNDIRECTED), IGRAPH_SUCCESS);
	igraph_vector_int_init(&cut, 0);
	ck_assert_int_eq(igraph_st_mincut(&g, &out->bandwidth, &cut, NULL, NULL, s, t, &c),
			 IGRAPH_SUCCESS);
	for (igraph_integer_t i = 0; i < igraph_vector_int_size(&cut); i++)
		if (orig[VECTOR(cut)[i]] >= 0)
			out->links += f->e[orig[VECTOR(cut)[i]]].count;
	igraph_destroy(&g);
	igraph_vector_int_destroy(&cut);
	igraph_vector_int_destroy(&ev);
	igraph_vector_destroy(&c);
	free(orig);
}

/* fx_route_cut contracts each set into its terminal before the max-flow:
 * the same bandwidth, cut links, direct links and device counts as the
 * max-flow on the whole graph, over random three-way splits (A, B, free)
 * of switched fabrics (bundles, planes, CPUs that do not forward), a
 * torus with free chips, and a fat-tree with a failed switch and link. */
START_TEST(contracted_cut_equals_whole)
{
	static const struct {
		const char *spec, *set, *fail;
	} cases[] = {
		{"specs/fat-tree-k8.yaml", "fabric.k=4", NULL},
		{"specs/fat-tree-k8.yaml", NULL, "switch=40"},
		{"specs/fat-tree-k8.yaml", NULL, "device=0~switch=0"},
		{"specs/cm384.yaml", NULL, NULL},
		{"specs/nvl72.yaml", NULL, NULL},
		{"specs/dgx-h100-256.yaml", NULL, NULL},
		{"specs/tpu-v4-cube.yaml", NULL, NULL},
		{"specs/switched-64.yaml", NULL, NULL},
		{"specs/dgx1.yaml", NULL, NULL},
	};
	uint64_t x = 12345;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *sets[] = {cases[i].set, NULL};
		fixture fx;
		load_ok(&fx, cases[i].spec, cases[i].set ? sets : NULL);
		if (cases[i].fail)
			ck_assert_int_eq(fx_fabric_fail(&fx.f, cases[i].fail, "--fail", &fx.d), 0);
		uint8_t *side = malloc((size_t)fx.f.nv);
		for (int trial = 0; trial < 6; trial++) {
			/* trial 0: the canonical halves, switches free; then
			 * devices to A, B or free and a few switches to a side */
			int canon = trial == 0 && fx.f.builder->halves &&
				    fx.f.builder->halves(&fx.f, side) > 0;
			for (int64_t v = 0; v < fx.f.nv && !canon; v++) {
				x = x * 6364136223846793005ULL + 1442695040888963407ULL;
				unsigned r = (unsigned)(x >> 33) % 16;
				side[v] = fx.f.v[v].type == FX_V_DEVICE ? (uint8_t)(r % 3)
					  : r == 0 ? 0 : r == 1 ? 1 : 2;
			}
			for (int64_t v = fx.f.ndev; v < fx.f.nv && canon; v++)
				side[v] = 2;
			side[0] = 0;  /* both sets non-empty */
			side[fx.f.ndev - 1] = 1;
			fx_cut fast, slow;
			ck_assert_int_eq(fx_route_cut(&fx.f, side, &fast, &fx.d), 0);
			whole_graph_cut(&fx.f, side, &slow);
			ck_assert_msg(fabs(fast.bandwidth - slow.bandwidth) <= 1e-9 * slow.bandwidth,
				      "%s trial %d: %.17g vs %.17g", cases[i].spec, trial, fast.bandwidth,
				      slow.bandwidth);
			ck_assert_double_eq(fast.links, slow.links);
			ck_assert_double_eq(fast.direct_links, slow.direct_links);
			ck_assert_int_eq(fast.side[0], slow.side[0]);
			ck_assert_int_eq(fast.side[1], slow.side[1]);
		}
		free(side);
		fixture_release(&fx);
	}
}
END_TEST

/* The size limit is on the contracted graph.  A k=4 fat-tree's canonical
 * split, by hand: the source, the sink and the 20 switches (8 edge, 8
 * aggregation, 4 core) are 22 vertices; 16 edge-aggregation and 16
 * aggregation-core links stay, and each edge switch's 2 hosts (one side)
 * merge into one terminal edge: 32 + 8 = 40 edges, 62 in all.  A limit of
 * 62 decides (the k^3/8 = 8 links of a k=4 fat-tree's bisection); 61
 * leaves it not decided, exit 4. */
START_TEST(cut_limit_on_contracted_graph)
{
	const char *sets[] = {"fabric.k=4", NULL};
	fixture fx;
	load_ok(&fx, "specs/fat-tree-k8.yaml", sets);
	uint8_t *side = malloc((size_t)fx.f.nv);
	ck_assert_int_gt(fx.f.builder->halves(&fx.f, side), 0);
	for (int64_t v = fx.f.ndev; v < fx.f.nv; v++)
		side[v] = 2;
	fx_cut c;
	ck_assert_int_eq(fx_route_cut_within(&fx.f, side, 62, &c, &fx.d), 0);
	ck_assert_double_eq(c.links, 8);
	ck_assert_int_eq(fx.d.status, 0);
	ck_assert_int_eq(fx_route_cut_within(&fx.f, side, 61, &c, &fx.d), -1);
	ck_assert_int_eq(fx.d.status, FX_EXIT_UNDECIDED);
	fixture_messages(&fx);
	ck_assert_ptr_nonnull(strstr(fx.msg, "max-flow over 22 vertices and 40 edges (each set counted "
					     "as one vertex), past fabricx's limit of 61"));
	free(side);
	fixture_release(&fx);
}
END_TEST

/* --cut: user-given partitions by coordinate and by node. */
START_TEST(user_cuts)
{
	fixture fx;
	load_ok(&fx, "specs/tpu-v4-cube.yaml", NULL);
	uint8_t a[64], b[64], side[64];
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_fabric_select(&fx.f, "x=0-1", "t", a, &d), 0);
	ck_assert_int_eq(fx_fabric_select(&fx.f, "x=2-3", "t", b, &d), 0);
	for (int v = 0; v < 64; v++)
		side[v] = a[v] ? 0 : b[v] ? 1 : 2;
	fx_cut c;
	ck_assert_int_eq(fx_route_cut(&fx.f, side, &c, &d), 0);
	ck_assert_double_eq(c.links, 32);
	ck_assert_double_eq(c.direct_links, 32);
	/* one 2x4x4 slab against its neighbour slab only: the wrap links do not
	 * join them directly but the flow goes round through the free chips */
	ck_assert_int_eq(fx_fabric_select(&fx.f, "x=1", "t", a, &d), 0);
	ck_assert_int_eq(fx_fabric_select(&fx.f, "x=2", "t", b, &d), 0);
	for (int v = 0; v < 64; v++)
		side[v] = a[v] ? 0 : b[v] ? 1 : 2;
	ck_assert_int_eq(fx_route_cut(&fx.f, side, &c, &d), 0);
	ck_assert_double_eq(c.direct_links, 16);
	ck_assert_double_eq(c.links, 32);
	fx_diag_release(&d);
	fixture_release(&fx);
}
END_TEST

Suite *suite_metrics(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, torus_bisection);
	tcase_add_test(tc, farthest_pairs);
	tcase_add_test(tc, lattice_hops_match_igraph);
	tcase_add_test(tc, transitive_shortcut_is_exact);
	tcase_add_test(tc, switched_bisections);
	tcase_add_test(tc, heuristic_bisection);
	tcase_add_test(tc, spectral_seed_converges);
	tcase_add_test(tc, user_cuts);
	tcase_add_test(tc, device_cut_equals_maxflow);
	tcase_add_test(tc, spectral_limit);
	tcase_add_test(tc, contracted_cut_equals_whole);
	tcase_add_test(tc, cut_limit_on_contracted_graph);
	suite_add_tcase(s, tc);
	return s;
}
