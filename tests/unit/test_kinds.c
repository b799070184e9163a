/*
 * The direct-network kinds: dragonfly (Kim, Dally, Scott and Abts, ISCA
 * 2008; Dragonfly+: Shpiner et al., HiPINEB 2017), slimfly (Besta and
 * Hoefler, SC'14) and hyperx (Ahn et al., SC'09).
 *
 * Their hop counts (closed forms, or searches from one group) are checked
 * against igraph's all-pairs shortest paths, their bisection's closed form
 * against igraph's max-flow over the same split, their counts against the
 * papers' formulas, and the dragonfly router against loads counted by
 * hand.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/xalloc.h"
#include "../../power/power.h"
#include "../../routing/internal.h"
#include "helpers.h"

static const char *const small[] = {
	/* canonical dragonflies (g = a h + 1): balanced p = h, a = 2h */
	"fabric: {kind: dragonfly, p: 2, a: 4, h: 2, link: {bandwidth: 1 GB/s, latency: 10 ns}, "
	"global_link: {bandwidth: 1.5 GB/s, latency: 50 ns}}",
	"fabric: {kind: dragonfly, p: 1, a: 2, h: 1, link: {bandwidth: 1 GB/s, latency: 10 ns}}",
	/* fewer groups: m = a h / (g - 1) = 4 links between each pair */
	"fabric: {kind: dragonfly, p: 3, a: 4, h: 2, g: 3, link: {bandwidth: 1 GB/s, latency: 10 ns}}",
	"fabric: {kind: dragonfly, p: 2, a: 6, h: 2, g: 4, link: {bandwidth: 1 GB/s, latency: 10 ns}}",
	/* two groups (Valiant has no intermediate), odd a with a router split
	 * by the canonical split, one device per router */
	"fabric: {kind: dragonfly, p: 2, a: 2, h: 1, g: 2, link: {bandwidth: 1 GB/s, latency: 10 ns}}",
	"fabric: {kind: dragonfly, p: 2, a: 3, h: 2, link: {bandwidth: 1 GB/s, latency: 10 ns}}",
	"fabric: {kind: dragonfly, p: 1, a: 4, h: 4, g: 9, link: {bandwidth: 1 GB/s, latency: 10 ns}}",
	/* Dragonfly+: leaf-spine groups */
	"fabric: {kind: dragonfly, group: leaf-spine, p: 2, a: 2, leaves: 3, h: 2, "
	"link: {bandwidth: 1 GB/s, latency: 10 ns}}",
	"fabric: {kind: dragonfly, group: leaf-spine, p: 1, a: 3, leaves: 2, h: 2, g: 4, "
	"link: {bandwidth: 1 GB/s, latency: 10 ns}, local_link: {bandwidth: 3 GB/s, latency: 20 ns}}",
	"fabric: {kind: dragonfly, group: leaf-spine, p: 2, a: 2, leaves: 3, h: 3, "
	"link: {bandwidth: 1 GB/s, latency: 10 ns}}",
	/* Slim Fly: delta = -1 (q = 3, 7), 0 (q = 4, 8), 1 (q = 5, 9) */
	"fabric: {kind: slimfly, q: 3, link: {bandwidth: 1 GB/s, latency: 10 ns}}",
	"fabric: {kind: slimfly, q: 4, link: {bandwidth: 1 GB/s, latency: 10 ns}}",
	"fabric: {kind: slimfly, q: 5, link: {bandwidth: 1 GB/s, latency: 10 ns}}",
	"fabric: {kind: slimfly, q: 7, p: 2, link: {bandwidth: 1 GB/s, latency: 10 ns}}",
	"fabric: {kind: slimfly, q: 8, p: 1, link: {bandwidth: 1 GB/s, latency: 10 ns}}",
	"fabric: {kind: slimfly, q: 9, p: 1, link: {bandwidth: 1 GB/s, latency: 10 ns}}",
	/* HyperX: mixed widths and trunks */
	"fabric: {kind: hyperx, dims: [4, 3, 2], links_per_neighbor: [1, 2, 1], t: 2, "
	"link: {bandwidth: 1 GB/s, latency: 10 ns}}",
	"fabric: {kind: hyperx, dims: [6], t: 3, link: {bandwidth: 1 GB/s, latency: 10 ns}}",
	"fabric: {kind: hyperx, dims: [2, 2, 2, 2], t: 1, link: {bandwidth: 1 GB/s, latency: 10 ns}}",
	"fabric: {kind: hyperx, dims: [4, 4], links_per_neighbor: 3, t: 4, "
	"link: {bandwidth: 1 GB/s, latency: 10 ns}, "
	"dim_link: [{bandwidth: 2 GB/s, latency: 10 ns}, {bandwidth: 1 GB/s, latency: 30 ns}]}",
	NULL,
};

/* The entry of small[] that contains text. */
static int pick(const char *text)
{
	for (int i = 0; small[i]; i++)
		if (strstr(small[i], text))
			return i;
	ck_abort_msg("no small spec with '%s'", text);
	return -1;
}
#define SF5 pick("q: 5,")
#define HX432 pick("dims: [4, 3, 2]")

/* The histogram of igraph's all-pairs distances between devices. */
static void igraph_hist(const fx_fabric *f, double *hist, int n)
{
	igraph_matrix_t m;
	igraph_vs_t vs;
	ck_assert_int_eq(igraph_matrix_init(&m, 0, 0), IGRAPH_SUCCESS);
	ck_assert_int_eq(igraph_vs_range(&vs, 0, f->ndev), IGRAPH_SUCCESS);
	ck_assert_int_eq(igraph_distances(&f->g, &m, vs, vs, IGRAPH_ALL), IGRAPH_SUCCESS);
	memset(hist, 0, (size_t)n * sizeof *hist);
	for (int64_t a = 0; a < f->ndev; a++)
		for (int64_t b = 0; b < f->ndev; b++) {
			double dd = MATRIX(m, a, b);
			if (a == b)
				continue;
			ck_assert(isfinite(dd) && dd < n);
			hist[(int)dd] += 1;
		}
	igraph_vs_destroy(&vs);
	igraph_matrix_destroy(&m);
}

/* Every small instance: the kind's hop counts (not the searches) equal
 * igraph's all-pairs shortest paths, pair for pair in the histogram. */
START_TEST(hops_match_igraph)
{
	for (int i = 0; small[i]; i++) {
		fixture fx;
		ck_assert_msg(fixture_load(&fx, "k.yaml", small[i], NULL) == 0, "%s: %s", small[i], fx.msg);
		fx_hops h;
		ck_assert_int_eq(fx_route_hops(&fx.f, &h, &fx.d), 0);
		ck_assert_msg(strstr(h.method, "exact: closed form") || strstr(h.method, "one group"),
			      "%s: %s", small[i], h.method);
		double want[FX_HOPS_MAX];
		igraph_hist(&fx.f, want, FX_HOPS_MAX);
		for (int k = 0; k < FX_HOPS_MAX; k++) {
			double got = k < h.nhist ? h.hist[k] : 0;
			ck_assert_msg(got == want[k], "%s: %d hops: %.0f pairs, igraph %.0f", small[i], k, got,
				      want[k]);
		}
		/* the farthest pair is as far as the diameter says */
		igraph_real_t dd;
		igraph_vector_int_t path;
		ck_assert_int_eq(igraph_vector_int_init(&path, 0), IGRAPH_SUCCESS);
		igraph_matrix_t m;
		ck_assert_int_eq(igraph_matrix_init(&m, 0, 0), IGRAPH_SUCCESS);
		ck_assert_int_eq(igraph_distances(&fx.f.g, &m, igraph_vss_1(h.far_a), igraph_vss_1(h.far_b),
						  IGRAPH_ALL), IGRAPH_SUCCESS);
		dd = MATRIX(m, 0, 0);
		ck_assert_msg(dd == (double)h.diameter, "%s: farthest pair %g hops, diameter %lld",
			      small[i], dd, (long long)h.diameter);
		igraph_matrix_destroy(&m);
		igraph_vector_int_destroy(&path);
		fx_hops_release(&h);
		fixture_release(&fx);
	}
}
END_TEST

/* The bisection's closed form is the cut of the canonical split that
 * igraph's max-flow finds (switches free to sit on either side), and is
 * reported as a bound. */
START_TEST(bisection_matches_maxflow)
{
	for (int i = 0; small[i]; i++) {
		fixture fx;
		ck_assert_int_eq(fixture_load(&fx, "k.yaml", small[i], NULL), 0);
		if (fx.f.ndev % 2) {
			fixture_release(&fx);
			continue;
		}
		fx_cut c;
		ck_assert_int_eq(fx_route_bisection(&fx.f, &c, &fx.d), 0);
		ck_assert_str_eq(c.method, "bound");
		ck_assert_msg(c.formula >= 0, "%s: no closed form", small[i]);
		ck_assert_msg(c.confirmed, "%s: max-flow %.6g, closed form %.6g", small[i], c.bandwidth,
			      c.formula);
		ck_assert_int_eq(c.side[0], fx.f.ndev / 2);
		/* the same split through fx_route_cut */
		uint8_t *side = fx_xcalloc((size_t)fx.f.nv, 1);
		ck_assert_int_eq(fx.f.builder->halves(&fx.f, side), 2);
		for (int64_t v = fx.f.ndev; v < fx.f.nv; v++)
			side[v] = 2;
		fx_cut x;
		ck_assert_int_eq(fx_route_cut(&fx.f, side, &x, &fx.d), 0);
		ck_assert_double_eq_tol(x.bandwidth, c.formula, 1e-6 * c.formula);
		free(side);
		fixture_release(&fx);
	}
}
END_TEST

/* Hand counts of the canonical splits.  Dragonfly p=2, a=4, h=2 (g = 9,
 * one global link per pair): groups 0-3 and routers 2, 3 of group 4 on
 * one side: 4 x 4 = 16 global links between the whole groups, and the
 * middle group's lower routers hold its ports 0-3, which lead to groups
 * 5-8 on their own side, so none of its global links cross; its local
 * links between the halves: 2 x 2 = 4.  20 links, 16 at 2 GB/s + 4 at
 * 1 GB/s = 36 GB/s.  Slim Fly q = 5: q (3^2 + 2^2) = 65 router links.
 * HyperX 4x3x2 with K = [1,2,1]: halving the width-2 dimension cuts 12
 * routers' pairs x 1 link = 12; halving the width-4 one would cut 6 lines
 * x 2 x 2 = 24. */
START_TEST(bisection_hand_counts)
{
	const struct { int spec; double links, bw; } want[] = {
		{0, 20, 28e9}, {SF5, 65, 65e9}, {HX432, 12, 12e9},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		fixture fx;
		ck_assert_int_eq(fixture_load(&fx, "k.yaml", small[want[i].spec], NULL), 0);
		fx_cut c;
		ck_assert_int_eq(fx_route_bisection(&fx.f, &c, &fx.d), 0);
		ck_assert_double_eq(c.links, want[i].links);
		ck_assert_double_eq_tol(c.bandwidth, want[i].bw, 1);
		fixture_release(&fx);
	}
}
END_TEST

/* Slim Fly (Besta and Hoefler, SC'14, §II-B and Table 2): 2 q^2 routers,
 * each of network degree (3q - delta)/2 with q = 4w + delta, and router
 * diameter 2 (device diameter 4); q = 5 is the Hoffman-Singleton graph (50
 * vertices, degree 7, girth 5).  Default p = ceil(degree / 2). */
START_TEST(slimfly_counts)
{
	static const struct { int q, delta; } qs[] = {{3, -1}, {4, 0}, {5, 1}, {7, -1}, {8, 0},
						    {9, 1}, {11, -1}, {13, 1}, {16, 0}};
	for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
		char y[160];
		snprintf(y, sizeof y, "fabric: {kind: slimfly, q: %d, link: {bandwidth: 1 GB/s, latency: 1 ns}}",
			 qs[i].q);
		fixture fx;
		ck_assert_msg(fixture_load(&fx, "sf.yaml", y, NULL) == 0, "%s", fx.msg);
		int q = qs[i].q, k = (3 * q - qs[i].delta) / 2;
		ck_assert_int_eq(fx.f.nsw, 2 * q * q);
		ck_assert_int_eq(fx.f.state.slimfly.degree, k);
		ck_assert_int_eq(fx.f.state.slimfly.p, (k + 1) / 2);
		ck_assert_int_eq(fx.f.ndev, 2 * q * q * ((k + 1) / 2));
		for (int64_t v = fx.f.ndev; v < fx.f.nv; v++)
			ck_assert_int_eq(fx_fabric_ports(&fx.f, v), k + (k + 1) / 2);
		/* router diameter 2, by igraph on the routers alone */
		igraph_t sub;
		igraph_vs_t vs;
		ck_assert_int_eq(igraph_vs_range(&vs, fx.f.ndev, fx.f.nv), IGRAPH_SUCCESS);
		ck_assert_int_eq(igraph_induced_subgraph(&fx.f.g, &sub, vs, IGRAPH_SUBGRAPH_AUTO),
				 IGRAPH_SUCCESS);
		igraph_real_t diam;
		ck_assert_int_eq(igraph_diameter(&sub, &diam, NULL, NULL, NULL, NULL, IGRAPH_UNDIRECTED, 1),
				 IGRAPH_SUCCESS);
		ck_assert_double_eq(diam, 2);
		if (q == 5) {
			igraph_real_t girth;
			ck_assert_int_eq(igraph_girth(&sub, &girth, NULL), IGRAPH_SUCCESS);
			ck_assert_double_eq(girth, 5);
		}
		igraph_destroy(&sub);
		igraph_vs_destroy(&vs);
		fixture_release(&fx);
	}
}
END_TEST

/* HyperX (Ahn et al., SC'09, §3): prod S_k routers, radix T + sum (S_k -
 * 1) K_k, and sum over dimensions of (routers / S_k) S_k (S_k - 1)/2
 * bundles of K_k links; diameter = the dimensions of width > 1, + 2 for
 * the device links. */
START_TEST(hyperx_counts)
{
	fixture fx;
	ck_assert_int_eq(fixture_load(&fx, "hx.yaml", small[HX432], NULL), 0);
	ck_assert_int_eq(fx.f.nsw, 4 * 3 * 2);
	ck_assert_int_eq(fx.f.ndev, 24 * 2);
	for (int64_t v = fx.f.ndev; v < fx.f.nv; v++)
		ck_assert_int_eq(fx_fabric_ports(&fx.f, v), 2 + 3 * 1 + 2 * 2 + 1 * 1);
	/* 6 lines of 4 (6 pairs x 1), 8 of 3 (3 x 2), 12 of 2 (1 x 1) + 48 device links */
	ck_assert_int_eq(fx_fabric_links(&fx.f), 6 * 6 + 8 * 3 * 2 + 12 + 48);
	fx_hops h;
	ck_assert_int_eq(fx_route_hops(&fx.f, &h, &fx.d), 0);
	ck_assert_int_eq(h.diameter, 5);
	fx_hops_release(&h);
	fixture_release(&fx);
}
END_TEST

/* The router's arithmetic names every link the builder made. */
START_TEST(dragonfly_numbering)
{
	for (int i = 0; small[i] && strstr(small[i], "dragonfly"); i++) {
		fixture fx;
		ck_assert_int_eq(fixture_load(&fx, "k.yaml", small[i], NULL), 0);
		fx_dfr *r = fx_dfr_new(&fx.f);
		ck_assert_msg(fx_dfr_check(r) == 0, "%s", small[i]);
		fx_dfr_free(r);
		fixture_release(&fx);
	}
}
END_TEST

typedef struct a2a_loads {
	double host, local, global;  /* the busiest directed link of each class */
	double global_total;         /* bytes over all global links */
	int64_t max_hops;
	double time;
} a2a_loads;

/* A direct all-to-all of `size` per rank over every device, by policy. */
static a2a_loads run_a2a(const fx_fabric *f, fx_route_policy pol, double size)
{
	int64_t *ranks = fx_xmalloc((size_t)f->ndev * sizeof *ranks);
	for (int64_t i = 0; i < f->ndev; i++)
		ranks[i] = i;
	fx_coll_req q = {"all-to-all", "direct", ranks, f->ndev, size, 0};
	fx_coll_time tm = {.policy = pol};
	fx_coll_result res;
	fx_router *r = fx_router_new(f, 0);
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_coll_run(f, r, &q, &tm, &res, &d), 0);
	a2a_loads out = {0};
	for (int64_t l = 0; l < 2 * f->ne; l++) {
		double b = res.link_bytes[l];
		double *cls = f->e[l / 2].tier == 0 ? &out.host : f->e[l / 2].tier == 1 ? &out.local
											: &out.global;
		if (b > *cls)
			*cls = b;
		if (f->e[l / 2].tier == 2)
			out.global_total += b;
	}
	out.max_hops = res.per_round[0].max_hops;
	out.time = res.time;
	fx_coll_result_release(&res);
	fx_router_free(r);
	fx_diag_release(&d);
	free(ranks);
	return out;
}

/*
 * The dragonfly (#27; collectives.md §3's check: p = h = 4, a = 8,
 * g = 33, 1,056 devices), all-to-all of 32 MiB per rank under minimal
 * routing, b = 32 MiB / 1055 bytes per ordered pair, counted by hand:
 *   - a global link (one per pair of groups) carries every byte from the
 *     32 devices of one group to the 32 of the other: 32 x 32 b = 1024 b
 *     = 32,568,472.4 B (the 32.6 MB);
 *   - a local link x -> y: x's 4 devices to the 4 groups whose link is on
 *     y (4 x 4 x 32 b = 512 b), what lands on x from its 4 groups for y's
 *     4 devices (4 x 32 x 4 b = 512 b), and x's devices to y's (16 b):
 *     1040 b;
 *   - a device link: its device's 1055 partners: 1055 b = 32 MiB.
 * Paths: device, local, global, local, device = 5 hops.
 */
START_TEST(dragonfly_minimal_hand_count)
{
	fixture fx;
	load_ok(&fx, "specs/dragonfly-1056.yaml", NULL);
	ck_assert_int_eq(fx.f.ndev, 1056);
	double M = 32.0 * 1024 * 1024, b = M / 1055;
	a2a_loads x = run_a2a(&fx.f, FX_ROUTE_SPLIT, M);
	ck_assert_double_eq_tol(x.global, 1024 * b, 1e-3);
	ck_assert_double_eq_tol(x.global, 32568472.4, 0.1);
	ck_assert_double_eq_tol(x.local, 1040 * b, 1e-3);
	ck_assert_double_eq_tol(x.host, M, 1e-3);
	ck_assert_int_eq(x.max_hops, 5);
	/* every byte between groups crosses one global link: 1056 x 1024 b */
	ck_assert_double_eq_tol(x.global_total, 1056.0 * 1024 * b, 1);
	fixture_release(&fx);
}
END_TEST

/* Valiant doubles the global-link load under uniform traffic: every byte
 * between groups crosses two global links instead of one, and by symmetry
 * every global link carries the same (2 x 1024 b here); paths grow to 7
 * hops (device, local, global, local, global, local, device). */
START_TEST(dragonfly_valiant_doubles)
{
	for (int i = 0; i < 2; i++) {
		fixture fx;
		if (i == 0)
			load_ok(&fx, "specs/dragonfly-1056.yaml", NULL);
		else  /* m = 4 links per pair of groups */
			ck_assert_int_eq(fixture_load(&fx, "k.yaml", small[2], NULL), 0);
		double M = 1 << 20;
		a2a_loads mn = run_a2a(&fx.f, FX_ROUTE_SPLIT, M);
		a2a_loads va = run_a2a(&fx.f, FX_ROUTE_VALIANT, M);
		ck_assert_double_eq_tol(va.global, 2 * mn.global, 1e-6 * mn.global);
		ck_assert_double_eq_tol(va.global_total, 2 * mn.global_total, 1e-6 * mn.global_total);
		ck_assert_double_eq_tol(va.host, mn.host, 1e-6 * mn.host);
		ck_assert_int_eq(va.max_hops, 7);
		/* UGAL keeps uniform traffic minimal: T_min = T_val, not 2 T_val */
		a2a_loads ug = run_a2a(&fx.f, FX_ROUTE_UGAL, M);
		ck_assert_double_eq_tol(ug.global, mn.global, 1e-6 * mn.global);
		ck_assert_double_eq_tol(ug.global_total, mn.global_total, 1e-6 * mn.global_total);
		fixture_release(&fx);
	}
}
END_TEST

/* Adversarial traffic (every device sends to its twin in the next group):
 * minimally all of a group's a p devices' bytes share its one link to the
 * next group; Valiant spreads them over the g - 2 intermediates (at most 2
 * a p B / (g - 2) on a link: the first leg of one pair and the second of
 * another); UGAL sees T_val = 0 on the idle links and takes Valiant. */
START_TEST(dragonfly_ugal_adversarial)
{
	fixture fx;
	load_ok(&fx, "specs/dragonfly-1056.yaml", NULL);
	const fx_fabric *f = &fx.f;
	int64_t per = 32, g = 33;
	double B = 1e6;
	fx_flow *fl = fx_xmalloc((size_t)f->ndev * sizeof *fl);
	for (int64_t d = 0; d < f->ndev; d++)
		fl[d] = (fx_flow){d, (d + per) % f->ndev, B};
	double busiest[3];
	for (int pol = 0; pol < 3; pol++) {
		static const fx_route_policy p[] = {FX_ROUTE_SPLIT, FX_ROUTE_VALIANT, FX_ROUTE_UGAL};
		fx_router *r = fx_router_new(f, 0);
		fx_router_set_policy(r, p[pol]);
		double *load = fx_xcalloc((size_t)(2 * f->ne), sizeof *load);
		fx_path_stats st;
		ck_assert_int_eq(fx_router_add(r, fl, (size_t)f->ndev, load, &st, &fx.d), 0);
		busiest[pol] = 0;
		for (int64_t l = 0; l < 2 * f->ne; l++)
			if (f->e[l / 2].tier == 2 && load[l] > busiest[pol])
				busiest[pol] = load[l];
		free(load);
		fx_router_free(r);
	}
	ck_assert_double_eq_tol(busiest[0], (double)per * B, 1e-6);
	ck_assert_double_eq_tol(busiest[1], 2.0 * (double)per * B / (double)(g - 2), 1e-6);
	ck_assert_double_eq_tol(busiest[2], busiest[1], 1e-6);
	free(fl);
	fixture_release(&fx);
}
END_TEST

/* The two ways through the router agree: every pair listed flow by flow
 * (fx_dfr_add) and the same traffic from counts (fx_dfr_counts), link by
 * link and in the longest path, for every policy, on every dragonfly;
 * also for a rank subset with a device listed twice. */
START_TEST(dragonfly_counts_match_flows)
{
	static const fx_route_policy pols[] = {FX_ROUTE_SPLIT, FX_ROUTE_HASH, FX_ROUTE_VALIANT,
					       FX_ROUTE_UGAL};
	for (int i = 0; small[i] && strstr(small[i], "dragonfly"); i++) {
		fixture fx;
		ck_assert_int_eq(fixture_load(&fx, "k.yaml", small[i], NULL), 0);
		const fx_fabric *f = &fx.f;
		for (int subset = 0; subset < 2; subset++) {
			/* subset: every third device, device 1 twice */
			double *cnt = fx_xcalloc((size_t)f->ndev, sizeof *cnt);
			for (int64_t d = 0; d < f->ndev; d++)
				cnt[d] = subset ? (d % 3 == 0) + (d == 1) * 2 : 1;
			size_t n = 0;
			fx_flow *fl = fx_xmalloc((size_t)(f->ndev * f->ndev * 4) * sizeof *fl);
			for (int64_t x = 0; x < f->ndev; x++)
				for (int64_t y = 0; y < f->ndev; y++)
					if (x != y && cnt[x] > 0 && cnt[y] > 0)
						fl[n++] = (fx_flow){x, y, 3.0 * cnt[x] * cnt[y]};
			for (size_t p = 0; p < sizeof pols / sizeof pols[0]; p++) {
				double *la = fx_xcalloc((size_t)(2 * f->ne), sizeof *la);
				double *lb = fx_xcalloc((size_t)(2 * f->ne), sizeof *lb);
				int64_t *used = NULL;
				size_t nused = 0, cap = 0;
				fx_path_stats sa = {0, 0}, sb = {0, 0};
				fx_dfr *r = fx_dfr_new(f);
				ck_assert_int_eq(fx_dfr_add(r, pols[p], fl, n, la, &sa, &used, &nused, &cap), 0);
				ck_assert_int_eq(fx_dfr_counts(r, pols[p], cnt, 3.0, lb, &sb, &used, &nused, &cap), 0);
				for (int64_t l = 0; l < 2 * f->ne; l++)
					ck_assert_msg(fabs(la[l] - lb[l]) <= 1e-9 * (1 + la[l]),
						      "%s policy %d subset %d: link %lld: flows %.9g, counts %.9g",
						      small[i], (int)pols[p], subset, (long long)l, la[l], lb[l]);
				ck_assert_int_eq(sa.max_hops, sb.max_hops);
				ck_assert_double_eq_tol(sa.max_latency, sb.max_latency, 1e-15);
				fx_dfr_free(r);
				free(used);
				free(la);
				free(lb);
			}
			free(fl);
			free(cnt);
		}
		fixture_release(&fx);
	}
}
END_TEST

/* Minimal routing on the dragonfly router never takes two global links,
 * where ECMP over shortest paths may (the issue: hop-count ECMP on a
 * dragonfly written out as a custom graph counted them equal).  On g = 9,
 * p = 2, a = 4, h = 2 the router's paths are at most 5 hops; igraph's
 * shortest paths are as long for the farthest pairs, and a flow between
 * two routers joined through a third group by two global links goes by
 * its group's gateway instead. */
START_TEST(dragonfly_minimal_one_global)
{
	fixture fx;
	ck_assert_int_eq(fixture_load(&fx, "k.yaml", small[0], NULL), 0);
	const fx_fabric *f = &fx.f;
	fx_router *r = fx_router_new(f, 0);
	double *load = fx_xcalloc((size_t)(2 * f->ne), sizeof *load);
	for (int64_t x = 0; x < f->ndev; x++)
		for (int64_t y = 0; y < f->ndev; y++) {
			if (x == y)
				continue;
			fx_flow fl = {x, y, 1};
			fx_path_stats st;
			ck_assert_int_eq(fx_router_add(r, &fl, 1, load, &st, &fx.d), 0);
			const int64_t *used;
			size_t nu = fx_router_used(r, &used);
			int globals = 0;
			double sum = 0;
			for (size_t u = 0; u < nu; u++) {
				if (f->e[used[u] / 2].tier == 2)
					globals++;
				sum += load[used[u]];
				load[used[u]] = 0;
			}
			int same_group = x / 8 == y / 8;
			ck_assert_int_eq(globals, same_group ? 0 : 1);  /* m = 1: one link, whole */
			ck_assert_double_eq_tol(sum, (double)st.max_hops, 1e-12);
		}
	free(load);
	fx_router_free(r);
	fixture_release(&fx);
}
END_TEST

/* The symptom, reproduced and fixed: the same dragonfly written out
 * as a custom graph is routed by ECMP over shortest paths (in hops), which
 * counts a path through a third group (global, global) as short as or
 * shorter than the minimal one (local, global, local), so some global
 * links carry more than the hand count of 1024 b: 48.4 MB against 32.6 MB,
 * the figures the user measured (the relative arrangement gives
 * their graph's loads); the dragonfly router's minimal routing keeps
 * every global link at exactly 1024 b. */
START_TEST(dragonfly_ecmp_overloads_globals)
{
	fixture fx;
	load_ok(&fx, "specs/dragonfly-1056.yaml", NULL);
	const fx_fabric *f = &fx.f;
	size_t cap = 1 << 20, n = 0;
	char *y = fx_xmalloc(cap);
	char name[2][48];
	n += (size_t)snprintf(y + n, cap - n, "fabric:\n  kind: custom\n  link: {bandwidth: 25 GB/s, "
			      "latency: 100 ns}\n  nodes:\n");
	for (int64_t v = 0; v < f->nv; v++) {
		fx_fabric_vertex_name(f, v, name[0], sizeof name[0]);
		n += (size_t)snprintf(y + n, cap - n, "    - {name: %s, type: %s}\n", name[0],
				      v < f->ndev ? "device" : "switch");
	}
	n += (size_t)snprintf(y + n, cap - n, "  links:\n");
	for (int64_t e = 0; e < f->ne; e++) {
		fx_fabric_vertex_name(f, f->ends[2 * e], name[0], sizeof name[0]);
		fx_fabric_vertex_name(f, f->ends[2 * e + 1], name[1], sizeof name[1]);
		n += (size_t)snprintf(y + n, cap - n, "    - {a: %s, b: %s}\n", name[0], name[1]);
		ck_assert_uint_lt(n, cap - 256);
	}
	/* the same graph with link costs: a global link (routers of two
	 * groups) costs 3, more than two local links, so a path through a
	 * third group (3 + 3) costs more than the minimal one (1 + 3 + 1) */
	size_t cap2 = 2 * cap, n2 = 0;
	char *y2 = fx_xmalloc(cap2);
	n2 += (size_t)snprintf(y2 + n2, cap2 - n2, "%.*s", (int)(strstr(y, "  links:\n") - y), y);
	n2 += (size_t)snprintf(y2 + n2, cap2 - n2, "  links:\n");
	for (int64_t e = 0; e < f->ne; e++) {
		fx_fabric_vertex_name(f, f->ends[2 * e], name[0], sizeof name[0]);
		fx_fabric_vertex_name(f, f->ends[2 * e + 1], name[1], sizeof name[1]);
		int global = name[0][0] == 'g' && name[1][0] == 'g' &&
			     (strcspn(name[0], ".") != strcspn(name[1], ".") ||
			      strncmp(name[0], name[1], strcspn(name[0], ".")) != 0);
		n2 += (size_t)snprintf(y2 + n2, cap2 - n2, "    - {a: %s, b: %s%s}\n", name[0], name[1],
				       global ? ", cost: 3" : "");
		ck_assert_uint_lt(n2, cap2 - 256);
	}
	fixture cu;
	ck_assert_msg(fixture_load(&cu, "custom.yaml", y, NULL) == 0, "%s", cu.msg);
	double M = 32.0 * 1024 * 1024, b = M / 1055;
	a2a_loads mn = run_a2a(f, FX_ROUTE_SPLIT, M);
	/* the custom graph's global links: between routers of two groups */
	int64_t *ranks = fx_xmalloc((size_t)cu.f.ndev * sizeof *ranks);
	for (int64_t i = 0; i < cu.f.ndev; i++)
		ranks[i] = i;
	fx_coll_req q = {"all-to-all", "direct", ranks, cu.f.ndev, M, 0};
	fx_coll_time tm = {.policy = FX_ROUTE_SPLIT};
	fx_coll_result res;
	fx_router *r = fx_router_new(&cu.f, 0);
	ck_assert_int_eq(fx_coll_run(&cu.f, r, &q, &tm, &res, &cu.d), 0);
	double worst = 0;
	for (int64_t l = 0; l < 2 * cu.f.ne; l++) {
		const char *a = cu.f.names[cu.f.ends[l / 2 * 2]], *c = cu.f.names[cu.f.ends[l / 2 * 2 + 1]];
		if (a[0] == 'g' && c[0] == 'g' && strcspn(a, ".") == strcspn(c, ".") &&
		    strncmp(a, c, strcspn(a, ".")) == 0)
			continue;  /* a local link (same group) */
		if (a[0] == 'g' && c[0] == 'g' && res.link_bytes[l] > worst)
			worst = res.link_bytes[l];
	}
	ck_assert_double_eq_tol(mn.global, 1024 * b, 1e-3);
	/* the user: 48.4 MB under hop-count ECMP, 32.6 MB minimal */
	ck_assert_msg(fabs(worst - 48.4e6) < 0.05e6, "ECMP's busiest global link %.6g B, minimal %.6g B",
		      worst, mn.global);
	fx_coll_result_release(&res);
	fx_router_free(r);
	/* issue 27 item 3: ECMP over least-cost paths with the global links
	 * costing 3 is minimal routing: every global link at the hand count's
	 * 1024 b (32.6 MB), the dragonfly router's figure */
	fixture co;
	ck_assert_msg(fixture_load(&co, "costed.yaml", y2, NULL) == 0, "%s", co.msg);
	r = fx_router_new(&co.f, 0);
	ck_assert_int_eq(fx_coll_run(&co.f, r, &q, &tm, &res, &co.d), 0);
	double cworst = 0, cleast = INFINITY;
	for (int64_t l = 0; l < 2 * co.f.ne; l++) {
		const char *a = co.f.names[co.f.ends[l / 2 * 2]], *c = co.f.names[co.f.ends[l / 2 * 2 + 1]];
		if (!(a[0] == 'g' && c[0] == 'g') || (strcspn(a, ".") == strcspn(c, ".") &&
						      strncmp(a, c, strcspn(a, ".")) == 0))
			continue;
		if (res.link_bytes[l] > cworst)
			cworst = res.link_bytes[l];
		if (res.link_bytes[l] < cleast)
			cleast = res.link_bytes[l];
	}
	ck_assert_msg(fabs(cworst - 1024 * b) < 1e-3 && fabs(cleast - 1024 * b) < 1e-3,
		      "least-cost ECMP's global links %.9g .. %.9g B, hand count %.9g B", cleast, cworst,
		      1024 * b);
	ck_assert_double_eq_tol(cworst / 1e6, 32.6, 0.05);
	fx_coll_result_release(&res);
	fx_router_free(r);
	fixture_release(&co);
	free(y2);
	free(ranks);
	fixture_release(&cu);
	free(y);
	fixture_release(&fx);
}
END_TEST

/* Power, counted by hand on dragonfly-1056 with 700 W devices, 250 W
 * routers and 10 W per optical link: 1,056 x 700 W + 264 x 250 W + 528
 * global links x 10 W (the 1,056 device links and 924 local links are
 * copper, 0 W) = 739,200 + 66,000 + 5,280 = 810,480 W; a node (a router
 * and its 4 devices) is 4 x 700 + 250 = 3,050 W, a rack (a group of 8) 8
 * nodes. */
START_TEST(dragonfly_power_hand_count)
{
	fixture fx;
	const char *sets[] = {"power.device=700W", "power.switch=250W", "power.optics=10W", NULL};
	load_ok(&fx, "specs/dragonfly-1056.yaml", sets);
	fx_power_config pc;
	ck_assert_int_eq(fx_power_parse(&fx.d, &fx.s, &pc), 0);
	fx_power_plan p;
	ck_assert_int_eq(fx_power_plan_build(&pc, &fx.f, fx.f.nnodes, &p, &fx.d), 0);
	ck_assert_double_eq_tol(p.parts.total, 810480, 1e-6);
	ck_assert_double_eq_tol(p.node_watts, 3050, 1e-9);
	ck_assert_int_eq(p.compute_racks, 33);
	ck_assert_int_eq(p.nodes_per_rack, 8);
	fx_power_plan_release(&p);
	fixture_release(&fx);
}
END_TEST

/* Shrink rules: whole groups with g - 1 dividing a h (dragonfly), a
 * smaller prime power (slimfly), slabs of the last dimension (hyperx). */
START_TEST(kinds_shrink)
{
	const struct { int spec; int64_t max, devices; const char *set; } want[] = {
		{0, 71, 40, "fabric.g=5"},   /* 8 devices a group; g - 1 | 8: 9, 5, 3, 2 */
		{0, 39, 24, "fabric.g=3"},
		{SF5, 199, 96, "fabric.q=4"},  /* q = 4: 32 routers of ceil(6/2) = 3 */
		{HX432, 47, 24, "fabric.dims=[4,3,1]"},  /* 24 devices a slab: one */
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		fixture fx;
		ck_assert_int_eq(fixture_load(&fx, "k.yaml", small[want[i].spec], NULL), 0);
		fx_shrink s;
		ck_assert_int_eq(fx_fabric_shrink(&fx.f, &fx.s, want[i].max, &s), 0);
		ck_assert_int_eq(s.nsets, 1);
		ck_assert_str_eq(s.set[0], want[i].set);
		ck_assert_int_eq(s.devices, want[i].devices);
		const char *sets[] = {s.set[0], NULL};
		fixture sm;
		ck_assert_int_eq(fixture_load(&sm, "k.yaml", small[want[i].spec], sets), 0);
		ck_assert_int_eq(sm.f.ndev, want[i].devices);
		fixture_release(&sm);
		fixture_release(&fx);
	}
}
END_TEST

/* Packaging: a router with its devices is a node, a dragonfly's group a
 * rack unless packaging says otherwise. */
START_TEST(kinds_packaging)
{
	fixture fx;
	ck_assert_int_eq(fixture_load(&fx, "k.yaml", small[0], NULL), 0);
	ck_assert_int_eq(fx.f.nnodes, 36);
	ck_assert_int_eq(fx.f.nracks, 9);
	for (int64_t v = 0; v < fx.f.nv; v++) {
		int64_t grp = v < fx.f.ndev ? v / 8 : (v - fx.f.ndev) / 4;
		ck_assert_int_eq(fx.f.v[v].rack, grp);
	}
	fixture_release(&fx);
	const char *sets[] = {"packaging.nodes_per_rack=2", NULL};
	ck_assert_int_eq(fixture_load(&fx, "k.yaml", small[0], sets), 0);
	ck_assert_int_eq(fx.f.nracks, 18);
	fixture_release(&fx);
	const char *trays[] = {"packaging.devices_per_node=1", NULL};
	ck_assert_int_eq(fixture_load(&fx, "k.yaml", small[0], trays), 0);
	ck_assert_int_eq(fx.f.nnodes, 72);
	ck_assert_int_eq(fx.f.nracks, 9);
	fixture_release(&fx);
}
END_TEST

Suite *suite_kinds(void)
{
	Suite *s = suite_create("kinds");
	TCase *t = tcase_create("kinds");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, hops_match_igraph);
	tcase_add_test(t, bisection_matches_maxflow);
	tcase_add_test(t, bisection_hand_counts);
	tcase_add_test(t, slimfly_counts);
	tcase_add_test(t, hyperx_counts);
	tcase_add_test(t, dragonfly_numbering);
	tcase_add_test(t, dragonfly_minimal_hand_count);
	tcase_add_test(t, dragonfly_valiant_doubles);
	tcase_add_test(t, dragonfly_ugal_adversarial);
	tcase_add_test(t, dragonfly_counts_match_flows);
	tcase_add_test(t, dragonfly_minimal_one_global);
	tcase_add_test(t, dragonfly_ecmp_overloads_globals);
	tcase_add_test(t, dragonfly_power_hand_count);
	tcase_add_test(t, kinds_shrink);
	tcase_add_test(t, kinds_packaging);
	suite_add_tcase(s, t);
	return s;
}
