/* Issue 15: the grouped ECMP push (routing/ecmp_sweep.c) against the
 * per-destination reference path it replaces (route.c ecmp_add, selected
 * by fx_router_set_reference): the same link loads to 1e-12 relative (the
 * only difference is the order of additions), the same longest path and
 * latency exactly, the same message for a pair with no route.  The push
 * runs twice, its next hops from the cached searches and from the
 * distance table (routing/dist_table.c, forced on whatever the size). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/xalloc.h"
#include "../../routing/internal.h"
#include "helpers.h"

/* 1: both paths under the hash policy (the per-flow walk is the reference,
 * the merged push per destination the fast path); 0: split ECMP. */
static int policy_hash;

/* 1: the fast path is the up/down sweep from the first flow; 0: the
 * grouped push. */
static int updown_on;

/* Loads of one batch (or of all pairs when flows is NULL) under one path. */
enum { PATH_REFERENCE, PATH_SEARCHES, PATH_TABLE };

static int loads_of(const fx_fabric *f, int path, const fx_flow *flows, size_t n,
		    double bytes, double *load, fx_path_stats *st, char *msg, size_t msglen)
{
	fx_router *r = fx_router_new(f, 0);
	fx_router_set_reference(r, path == PATH_REFERENCE);
	fx_router_set_dist_table(r, path == PATH_TABLE);
	fx_router_set_policy(r, policy_hash ? FX_ROUTE_HASH : FX_ROUTE_SPLIT);
	fx_router_set_updown(r, updown_on);
	fx_diag d;
	fx_diag_init(&d);
	FILE *err = tmpfile();
	d.out = err;
	int rc = flows ? fx_router_add(r, flows, n, load, st, &d)
		       : fx_router_add_all_pairs(r, bytes, load, st, &d);
	/* twice through the same router: the second call reads the caches */
	if (rc == 0 && flows) {
		fx_path_stats st2;
		rc = fx_router_add(r, flows, n, load, &st2, &d);
		ck_assert_int_eq(st2.max_hops, st->max_hops);
		ck_assert(st2.max_latency == st->max_latency);
	}
	rewind(err);
	size_t k = fread(msg, 1, msglen - 1, err);
	msg[k] = 0;
	fclose(err);
	fx_diag_release(&d);
	fx_router_free(r);
	return rc;
}

/* Compares both paths on one batch (added twice, the second time from the
 * caches); returns the summed load (so callers can see the batch loaded
 * something), -1 when a pair had no route. */
static double same_loads(const fx_fabric *f, const char *what, const fx_flow *flows, size_t n,
			 double bytes)
{
	size_t nl = (size_t)(2 * f->ne);
	double *a = fx_xcalloc(nl, sizeof *a), *b = fx_xcalloc(nl, sizeof *b);
	double *c = fx_xcalloc(nl, sizeof *c);  /* the searches' loads */
	fx_path_stats sa = {0, 0}, sc = {0, 0};
	char ma[512], mb[512];
	int ra = loads_of(f, PATH_REFERENCE, flows, n, bytes, a, &sa, ma, sizeof ma);
	double sum = -1;  /* no route: -1, and the message names the pair */
	if (ra != 0)
		ck_assert_msg(strstr(ma, "no route from '") != NULL, "%s: %s", what, ma);
	for (int path = PATH_SEARCHES; path <= PATH_TABLE; path++) {
		const char *how = path == PATH_TABLE ? "table" : "searches";
		fx_path_stats sb = {0, 0};
		memset(b, 0, nl * sizeof *b);
		int rb = loads_of(f, path, flows, n, bytes, b, &sb, mb, sizeof mb);
		ck_assert_msg(ra == rb, "%s (%s): reference %d, sweep %d", what, how, ra, rb);
		ck_assert_str_eq(ma, mb);
		if (ra != 0)
			continue;
		sum = 0;
		ck_assert_msg(sa.max_hops == sb.max_hops, "%s (%s): hops %lld vs %lld", what, how,
			      (long long)sa.max_hops, (long long)sb.max_hops);
		ck_assert_msg(sa.max_latency == sb.max_latency, "%s (%s): latency %.17g vs %.17g",
			      what, how, sa.max_latency, sb.max_latency);
		for (size_t l = 0; l < nl; l++) {
			double tol = 1e-12 * fmax(fabs(a[l]), fabs(b[l]));
			ck_assert_msg(fabs(a[l] - b[l]) <= tol, "%s (%s): link %zu: %.17g vs %.17g",
				      what, how, l, a[l], b[l]);
			sum += a[l];
		}
		/* the table and the searches give the same next hops in the same
		 * order: the same loads bit for bit */
		if (path == PATH_SEARCHES) {
			memcpy(c, b, nl * sizeof *c);
			sc = sb;
			continue;
		}
		ck_assert(sb.max_hops == sc.max_hops && sb.max_latency == sc.max_latency);
		for (size_t l = 0; l < nl; l++)
			ck_assert_msg(b[l] == c[l], "%s: link %zu: table %.17g, searches %.17g", what, l,
				      b[l], c[l]);
	}
	free(a);
	free(b);
	free(c);
	return sum;
}

/* A deterministic stream for the random batches (Knuth's MMIX LCG). */
static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
	return *x >> 33;
}

/* Every pattern on one fabric: random pairs (with self-flows and empty
 * ones), shifts i -> i+k (pairwise rounds), incast to 0, a ring, all pairs. */
static void check_fabric(const fx_fabric *f, const char *name)
{
	int64_t n = f->ndev;
	fx_flow *fl = fx_xmalloc((size_t)(n > 400 ? n : 400) * sizeof *fl);
	char what[128];
	uint64_t x = 15;
	for (int i = 0; i < 400; i++) {
		fl[i].src = (int64_t)(lcg(&x) % (uint64_t)n);
		fl[i].dst = (int64_t)(lcg(&x) % (uint64_t)n);
		fl[i].bytes = i % 37 == 0 ? 0 : (double)(1 + lcg(&x) % 1000) * 4096;
	}
	snprintf(what, sizeof what, "%s random", name);
	ck_assert(same_loads(f, what, fl, 400, 0) > 0);
	int64_t shifts[] = {1, n / 2, n - 1, 7 % n};
	for (int s = 0; s < 4; s++) {
		for (int64_t i = 0; i < n; i++)
			fl[i] = (fx_flow){i, (i + shifts[s]) % n, 1e6};
		snprintf(what, sizeof what, "%s shift %lld", name, (long long)shifts[s]);
		ck_assert(same_loads(f, what, fl, (size_t)n, 0) > 0);
	}
	/* swing's rounds: r + rho(s) for even r, r - rho(s) for odd, rho =
	 * 1, -1, 3, -5, 11, ... (every target's partner several hops away) */
	int64_t rho = 1;
	for (int st = 0; st < 7 && (rho < 0 ? -rho : rho) < n; st++) {
		for (int64_t i = 0; i < n; i++) {
			int64_t o = i % 2 == 0 ? rho : -rho;
			fl[i] = (fx_flow){i, ((i + o) % n + n) % n, (double)(1 << (st % 4)) * 1e6};
		}
		snprintf(what, sizeof what, "%s swing round %d", name, st);
		ck_assert(same_loads(f, what, fl, (size_t)n, 0) > 0);
		rho = 1 - 2 * rho;
	}
	for (int64_t i = 0; i < n; i++)
		fl[i] = (fx_flow){i, 0, 3e5 + (double)i};
	snprintf(what, sizeof what, "%s incast", name);
	ck_assert(same_loads(f, what, fl, (size_t)n, 0) > 0);
	snprintf(what, sizeof what, "%s all pairs", name);
	ck_assert(same_loads(f, what, NULL, 0, 12345.5) > 0);
	free(fl);
}

static const char *const k4[] = {"fabric.k=4", NULL};

START_TEST(sweep_equals_reference_shipped)
{
	static const struct {
		const char *path;
		const char *const *sets;
	} cases[] = {
		{"specs/fat-tree-k8.yaml", k4},            /* k=4 fat-tree */
		{"specs/fat-tree-k8.yaml", NULL},          /* k=8 */
		{"tests/specs/leaf-spine-custom.yaml", NULL},  /* 2:1 leaf-spine, custom */
		{"specs/cm384.yaml", NULL},                /* UB: CloudMatrix384 */
		{"specs/nvl72.yaml", NULL},                /* NVSwitch: GB200 NVL72 */
		{"specs/hgx-h100.yaml", NULL},
		{"tests/specs/hgx-custom.yaml", NULL},     /* HGX written out as custom */
		{"specs/dgx-h100-256.yaml", NULL},
		{"specs/switched-64.yaml", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		fixture a;
		load_ok(&a, cases[i].path, cases[i].sets);
		check_fabric(&a.f, cases[i].path);
		fixture_release(&a);
	}
}
END_TEST

/* Custom graphs that take the corners: devices hanging off relaying
 * devices (homes that are devices and destinations themselves), parallel
 * links of different bandwidth and latency (the last hop's split and its
 * worst latency), a vertex of degree 70 (past the 64-bit next-hop mask),
 * a hypercube (no homes at all). */
static char *corner_graph(void)
{
	size_t cap = 1 << 16, len = 0;
	char *s = fx_xmalloc(cap);
	len += (size_t)snprintf(s + len, cap - len,
		"name: corners\nfabric:\n  kind: custom\n"
		"  link: {bandwidth: 50 GB/s, latency: 200 ns, medium: copper}\n  nodes:\n");
	for (int i = 0; i < 4; i++)   /* a ring of 4 relaying devices */
		len += (size_t)snprintf(s + len, cap - len, "    - {name: r%d, type: device}\n", i);
	for (int i = 0; i < 8; i++)   /* leaves: two on each ring device */
		len += (size_t)snprintf(s + len, cap - len, "    - {name: l%d, type: device}\n", i);
	for (int i = 0; i < 2; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {name: s%d, type: switch}\n", i);
	for (int i = 0; i < 70; i++)  /* 35 hosts on each switch */
		len += (size_t)snprintf(s + len, cap - len, "    - {name: h%d, type: device}\n", i);
	len += (size_t)snprintf(s + len, cap - len, "  links:\n");
	for (int i = 0; i < 4; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {a: r%d, b: r%d}\n", i, (i + 1) % 4);
	for (int i = 0; i < 8; i++) {
		len += (size_t)snprintf(s + len, cap - len, "    - {a: l%d, b: r%d}\n", i, i / 2);
		if (i % 3 == 0)  /* a second, slower and faster-latency, parallel link */
			len += (size_t)snprintf(s + len, cap - len, "    - {a: r%d, b: l%d, "
						"bandwidth: 20 GB/s, latency: %d ns}\n", i / 2, i,
						i == 0 ? 700 : 100);
	}
	for (int i = 0; i < 70; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {a: h%d, b: s%d%s}\n", i, i % 2,
					i == 5 ? ", count: 2" : "");
	for (int i = 0; i < 34; i++)  /* 34 separate links between the switches */
		len += (size_t)snprintf(s + len, cap - len, "    - {a: s0, b: s1, bandwidth: %d GB/s}\n",
					10 + i);
	len += (size_t)snprintf(s + len, cap - len, "    - {a: s0, b: r0}\n    - {a: s1, b: r2}\n");
	return s;
}

static char *hypercube(int dim)
{
	size_t cap = 1 << 16, len = 0;
	char *s = fx_xmalloc(cap);
	len += (size_t)snprintf(s + len, cap - len,
		"name: hc\nfabric:\n  kind: custom\n"
		"  link: {bandwidth: 50 GB/s, latency: 200 ns, medium: copper}\n  nodes:\n");
	for (int i = 0; i < (1 << dim); i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {name: v%d, type: device}\n", i);
	len += (size_t)snprintf(s + len, cap - len, "  links:\n");
	for (int i = 0; i < (1 << dim); i++)
		for (int b = 0; b < dim; b++)
			if (!(i & (1 << b)))
				len += (size_t)snprintf(s + len, cap - len, "    - {a: v%d, b: v%d}\n", i,
							i | (1 << b));
	return s;
}

/* A dx x dy x dz torus written as a custom graph (wrap-round links). */
static char *custom_torus(int dx, int dy, int dz)
{
	size_t cap = 1 << 16, len = 0;
	char *s = fx_xmalloc(cap);
	len += (size_t)snprintf(s + len, cap - len,
		"name: torus\nfabric:\n  kind: custom\n"
		"  link: {bandwidth: 50 GB/s, latency: 200 ns, medium: copper}\n  nodes:\n");
	int n = dx * dy * dz;
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {name: t%d, type: device}\n", i);
	len += (size_t)snprintf(s + len, cap - len, "  links:\n");
	for (int i = 0; i < n; i++) {
		int x = i % dx, y = i / dx % dy, z = i / (dx * dy);
		int nb[3] = {(x + 1) % dx + dx * (y + dy * z), x + dx * ((y + 1) % dy + dy * z),
			     x + dx * (y + dy * ((z + 1) % dz))};
		int size[3] = {dx, dy, dz};
		for (int k = 0; k < 3; k++)
			if (size[k] > 2 || (size[k] == 2 && i < nb[k]))  /* a 2-ring: one link */
				len += (size_t)snprintf(s + len, cap - len, "    - {a: t%d, b: t%d}\n", i,
							nb[k]);
	}
	return s;
}

/* An irregular graph from seed: 6 switches in a ring with chords, 24
 * devices each on one to three switches (some links doubled, of other
 * bandwidths and latencies), a few device-device links; so relaying
 * devices, parallel links, homes and unhomed devices, non-uniform
 * latencies. */
static char *irregular(uint64_t seed)
{
	size_t cap = 1 << 16, len = 0;
	char *s = fx_xmalloc(cap);
	uint64_t x = seed;
	len += (size_t)snprintf(s + len, cap - len,
		"name: irregular\nfabric:\n  kind: custom\n"
		"  link: {bandwidth: 50 GB/s, latency: 200 ns, medium: copper}\n  nodes:\n");
	for (int i = 0; i < 24; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {name: d%d, type: device}\n", i);
	for (int i = 0; i < 6; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {name: s%d, type: switch}\n", i);
	len += (size_t)snprintf(s + len, cap - len, "  links:\n");
	for (int i = 0; i < 6; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {a: s%d, b: s%d}\n", i, (i + 1) % 6);
	for (int i = 0; i < 3; i++)  /* the diameters, shorter */
		len += (size_t)snprintf(s + len, cap - len, "    - {a: s%d, b: s%d, latency: %d ns}\n",
					i, i + 3, 100 + (int)(lcg(&x) % 5) * 50);
	for (int i = 0; i < 24; i++) {
		int k = 1 + (int)(lcg(&x) % 3);
		for (int j = 0; j < k; j++) {
			int sw = (int)(lcg(&x) % 6), twice = lcg(&x) % 4 == 0;
			len += (size_t)snprintf(s + len, cap - len, "    - {a: d%d, b: s%d}\n", i, sw);
			if (twice)
				len += (size_t)snprintf(s + len, cap - len,
							"    - {a: s%d, b: d%d, bandwidth: %d GB/s, "
							"latency: %d ns}\n", sw, i,
							10 + (int)(lcg(&x) % 40), 100 + (int)(lcg(&x) % 400));
		}
		if (lcg(&x) % 5 == 0)
			len += (size_t)snprintf(s + len, cap - len, "    - {a: d%d, b: d%d}\n", i,
						(i + 1 + (int)(lcg(&x) % 23)) % 24);
	}
	return s;
}

START_TEST(sweep_equals_reference_custom)
{
	/* and two devices joined only to each other by two links (a fuzzer's
	 * find: each was the other's home, and the link counted twice) */
	static const char pair[] = "name: pair\nfabric:\n  kind: custom\n"
		"  link: {bandwidth: 25 GB/s, latency: 200 ns}\n  nodes:\n"
		"    - {name: gpu0, type: device}\n    - {name: gpu1, type: device}\n"
		"  links:\n    - {a: gpu0, b: gpu1}\n    - {a: gpu0, b: gpu1}\n";
	char *texts[] = {corner_graph(), hypercube(3), hypercube(4), hypercube(5), hypercube(6),
			 hypercube(7), fx_xstrdup(pair), custom_torus(6, 5, 4), custom_torus(8, 2, 3),
			 irregular(1), irregular(2), irregular(3)};
	static const char *const names[] = {"corners", "hypercube 2^3", "hypercube 2^4",
					    "hypercube 2^5", "hypercube 2^6", "hypercube 2^7",
					    "pair", "torus 6x5x4", "torus 8x2x3", "irregular 1",
					    "irregular 2", "irregular 3"};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		fixture a;
		ck_assert_msg(fixture_load(&a, "g.yaml", texts[i], NULL) == 0, "%s: %s", names[i],
			      a.msg);
		check_fabric(&a.f, names[i]);
		if (strncmp(names[i], "irregular", 9) == 0) {  /* devices that do not relay */
			char what[64];
			snprintf(what, sizeof what, "%s, devices not relaying", names[i]);
			a.f.devices_forward = 0;
			check_fabric(&a.f, what);
		}
		fixture_release(&a);
		free(texts[i]);
	}
}
END_TEST

/* ---- the up/down round sweep (routing/ecmp_updown.c) ---- */

/* A Clos written out as a custom graph, links of uneven bandwidth and
 * latency (so no split is uniform), a doubled host link and parallel
 * leaf-spine links.  tiers 2: 6 leaves of 3 hosts under 3 spines; tiers 3:
 * 3 pods of 2 leaves (3 hosts each) and 2 aggregation switches, every
 * aggregation switch to each of 3 cores.  extra: a link between leaves 0
 * and 1, which takes the property away for their targets. */
static char *clos_graph(int tiers, int extra)
{
	size_t cap = 1 << 16, len = 0;
	char *s = fx_xmalloc(cap);
	int leaves = 6, hosts = 3, tops = 3;
	len += (size_t)snprintf(s + len, cap - len,
		"name: clos\nfabric:\n  kind: custom\n"
		"  link: {bandwidth: 50 GB/s, latency: 200 ns, medium: copper}\n  nodes:\n");
	for (int i = 0; i < leaves * hosts; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {name: h%d, type: device}\n", i);
	for (int i = 0; i < leaves; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {name: l%d, type: switch}\n", i);
	for (int i = 0; tiers == 3 && i < 6; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {name: a%d, type: switch}\n", i);
	for (int i = 0; i < tops; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {name: c%d, type: switch}\n", i);
	len += (size_t)snprintf(s + len, cap - len, "  links:\n");
	for (int i = 0; i < leaves * hosts; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {a: h%d, b: l%d%s}\n", i, i / hosts,
					i == 4 ? ", count: 2" : "");
	if (tiers == 2) {
		for (int i = 0; i < leaves; i++)
			for (int j = 0; j < tops; j++) {
				len += (size_t)snprintf(s + len, cap - len,
					"    - {a: l%d, b: c%d, bandwidth: %d GB/s, latency: %d ns}\n",
					i, j, 10 + 7 * ((i + 2 * j) % 4), 100 + 50 * ((i * j) % 3));
				if ((i + j) % 4 == 1)
					len += (size_t)snprintf(s + len, cap - len,
						"    - {a: c%d, b: l%d, bandwidth: 15 GB/s}\n", j, i);
			}
	} else {
		for (int i = 0; i < leaves; i++)  /* leaf i in pod i/2, to its pod's two */
			for (int j = 0; j < 2; j++)
				len += (size_t)snprintf(s + len, cap - len,
					"    - {a: l%d, b: a%d, bandwidth: %d GB/s, latency: %d ns}\n",
					i, 2 * (i / 2) + j, 20 + 9 * ((i + j) % 3), 150 + 70 * j);
		for (int a = 0; a < 6; a++)
			for (int c = 0; c < tops; c++) {
				len += (size_t)snprintf(s + len, cap - len,
					"    - {a: a%d, b: c%d, bandwidth: %d GB/s, latency: %d ns}\n",
					a, c, 12 + 5 * ((a + 2 * c) % 5), 100 + 40 * ((a + c) % 2));
				if (a == 3 && c == 1)
					len += (size_t)snprintf(s + len, cap - len,
						"    - {a: c1, b: a3, bandwidth: 9 GB/s}\n");
			}
	}
	/* a second host link as its own bundle; in three tiers a second,
	 * slower link from an aggregation switch down to a leaf (a down split
	 * of two next hops) */
	len += (size_t)snprintf(s + len, cap - len, "    - {a: l2, b: h7, bandwidth: 20 GB/s}\n");
	if (tiers == 3)
		len += (size_t)snprintf(s + len, cap - len,
					"    - {a: a1, b: l0, bandwidth: 7 GB/s, latency: 90 ns}\n");
	if (extra)
		len += (size_t)snprintf(s + len, cap - len, "    - {a: l0, b: l1}\n");
	return s;
}

/* The up/down sweep against the reference on one fabric: whether it takes
 * the fabric (every target checked) is `fast`; then shifted rounds i ->
 * i+r for several r, random pairs (with self and empty flows), rounds over
 * random rank subsets (shifted and permuted) and an incast, all through
 * the router's default path (the sweep where it applies) and the
 * reference. */
static void check_updown(const fx_fabric *f, const char *name, int fast)
{
	fx_router *r = fx_router_new(f, 0);
	fx_router_set_updown(r, 1);
	fx_updown *u = fx_router_updown(r);
	ck_assert_msg((u && fx_updown_check_all(u)) == fast, "%s: up/down applies %d", name,
		      fast);
	fx_router_free(r);
	updown_on = 1;
	int64_t n = f->ndev;
	fx_flow *fl = fx_xmalloc((size_t)(n > 300 ? n : 300) * sizeof *fl);
	int64_t *sub = fx_xmalloc((size_t)n * sizeof *sub);
	char what[160];
	int64_t shifts[] = {1, 2, 3, 5, 7, 13, n / 4, n / 3, n / 2, n - 1};
	for (int k = 0; k < 10; k++) {
		int64_t sh = shifts[k] % n;
		if (sh == 0)
			continue;
		for (int64_t i = 0; i < n; i++)
			fl[i] = (fx_flow){i, (i + sh) % n, 1e6};
		snprintf(what, sizeof what, "%s up/down shift %lld", name, (long long)sh);
		ck_assert(same_loads(f, what, fl, (size_t)n, 0) > 0);
	}
	uint64_t x = 42;
	for (int rep = 0; rep < 3; rep++) {
		for (int i = 0; i < 300; i++) {
			fl[i].src = (int64_t)(lcg(&x) % (uint64_t)n);
			fl[i].dst = (int64_t)(lcg(&x) % (uint64_t)n);
			fl[i].bytes = i % 29 == 0 ? 0 : (double)(1 + lcg(&x) % 997) * 1024;
		}
		snprintf(what, sizeof what, "%s up/down random %d", name, rep);
		ck_assert(same_loads(f, what, fl, 300, 0) > 0);
		/* a subset of about a third of the devices, shuffled */
		int64_t m = 0;
		for (int64_t i = 0; i < n; i++)
			if (lcg(&x) % 3 == 0)
				sub[m++] = i;
		for (int64_t i = m - 1; i > 0; i--) {
			int64_t j = (int64_t)(lcg(&x) % (uint64_t)(i + 1)), t = sub[i];
			sub[i] = sub[j];
			sub[j] = t;
		}
		if (m < 2)
			continue;
		for (int64_t sh = 1; sh < m; sh += 1 + m / 3) {
			for (int64_t i = 0; i < m; i++)
				fl[i] = (fx_flow){sub[i], sub[(i + sh) % m], 5e5 + (double)i};
			snprintf(what, sizeof what, "%s up/down subset %d shift %lld", name, rep,
				 (long long)sh);
			ck_assert(same_loads(f, what, fl, (size_t)m, 0) > 0);
		}
	}
	for (int64_t i = 0; i < n; i++)
		fl[i] = (fx_flow){i, n - 1, 2e5 + (double)i};
	snprintf(what, sizeof what, "%s up/down incast", name);
	ck_assert(same_loads(f, what, fl, (size_t)n, 0) > 0);
	updown_on = 0;
	/* a whole pairwise all-to-all through one router left to its default
	 * (the grouped push first, the sweep once enough flows were listed)
	 * and through the reference, loads summed over the rounds (up to 160
	 * devices: the reference's n searches are the test's slow part) */
	size_t nl = (size_t)(2 * f->ne);
	double *la = fx_xcalloc(nl, sizeof *la), *lb = fx_xcalloc(nl, sizeof *lb);
	fx_router *ra = fx_router_new(f, 0), *rb = fx_router_new(f, 0);
	fx_router_set_reference(rb, 1);
	fx_diag d;
	fx_diag_init(&d);
	for (int64_t sh = 1; sh < n && n <= 160; sh++) {
		for (int64_t i = 0; i < n; i++)
			fl[i] = (fx_flow){i, (i + sh) % n, 1e6 + (double)sh};
		fx_path_stats sa = {0, 0}, sb = {0, 0};
		ck_assert_int_eq(fx_router_add(ra, fl, (size_t)n, la, &sa, &d), 0);
		ck_assert_int_eq(fx_router_add(rb, fl, (size_t)n, lb, &sb, &d), 0);
		ck_assert_msg(sa.max_hops == sb.max_hops && sa.max_latency == sb.max_latency,
			      "%s: pairwise round %lld stats", name, (long long)sh);
	}
	fx_updown *ua = fx_router_updown(ra);  /* non-NULL: past the threshold */
	ck_assert_msg(n > 160 || (ua && fx_updown_check_all(ua)) == fast, "%s: default switched",
		      name);
	for (size_t l = 0; l < nl; l++)
		ck_assert_msg(fabs(la[l] - lb[l]) <= 1e-12 * fmax(fabs(la[l]), fabs(lb[l])),
			      "%s: pairwise link %zu: %.17g vs %.17g", name, l, la[l], lb[l]);
	fx_diag_release(&d);
	fx_router_free(ra);
	fx_router_free(rb);
	free(la);
	free(lb);
	free(sub);
	free(fl);
}

static const char *const k6[] = {"fabric.k=6", "packaging.devices_per_node=6", NULL};

START_TEST(updown_equals_reference)
{
	static const struct {
		const char *path;
		const char *const *sets;
		int fast;
	} cases[] = {
		{"specs/fat-tree-k8.yaml", k4, 1},
		{"specs/fat-tree-k8.yaml", k6, 1},
		{"specs/fat-tree-k8.yaml", NULL, 1},
		{"tests/specs/leaf-spine-custom.yaml", NULL, 1},
		{"specs/cm384.yaml", NULL, 1},
		{"specs/nvl72.yaml", NULL, 1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		fixture a;
		load_ok(&a, cases[i].path, cases[i].sets);
		check_updown(&a.f, cases[i].path, cases[i].fast);
		fixture_release(&a);
	}
	/* uneven custom Clos of two and three tiers; with a leaf-leaf link the
	 * property fails and the grouped push takes over; a hypercube has no
	 * switches to go by */
	struct {
		char *text;
		const char *name;
		int fast;
	} custom[] = {
		{clos_graph(2, 0), "clos 2", 1}, {clos_graph(3, 0), "clos 3", 1},
		{clos_graph(2, 1), "clos 2 + leaf link", 0}, {clos_graph(3, 1), "clos 3 + leaf link", 0},
		{hypercube(4), "hypercube", 0},
	};
	for (size_t i = 0; i < sizeof custom / sizeof *custom; i++) {
		fixture a;
		ck_assert_msg(fixture_load(&a, "g.yaml", custom[i].text, NULL) == 0, "%s", a.msg);
		check_updown(&a.f, custom[i].name, custom[i].fast);
		fixture_release(&a);
		free(custom[i].text);
	}
}
END_TEST

/* A pair with no route: the same message and status from both paths.  A
 * valid custom spec is connected and relays everywhere, so the test turns
 * relaying off in a chain a - b - c - w - d (nothing gets past b or c). */
START_TEST(sweep_no_route_same_message)
{
	const char *text = "name: chain\nfabric:\n  kind: custom\n"
			   "  link: {bandwidth: 50 GB/s, latency: 200 ns, medium: copper}\n"
			   "  nodes:\n    - {name: a, type: device}\n    - {name: b, type: device}\n"
			   "    - {name: c, type: device}\n    - {name: d, type: device}\n"
			   "    - {name: w, type: switch}\n"
			   "  links:\n    - {a: a, b: b}\n    - {a: b, b: c}\n    - {a: c, b: w}\n"
			   "    - {a: w, b: d}\n";
	fixture a;
	ck_assert_msg(fixture_load(&a, "g.yaml", text, NULL) == 0, "%s", a.msg);
	a.f.devices_forward = 0;
	fx_flow ok[] = {{0, 1, 5}, {2, 3, 5}, {3, 2, 7}};
	/* twice: 1 hop x 5, 2 hops x 5, 2 hops x 7 */
	ck_assert(same_loads(&a.f, "routed", ok, 3, 0) == 2 * (5 + 2 * 5 + 2 * 7));
	fx_flow fl[] = {{0, 1, 5}, {3, 2, 5}, {2, 0, 5}, {3, 1, 5}};
	ck_assert(same_loads(&a.f, "no route", fl, 4, 0) == -1);
	ck_assert(same_loads(&a.f, "no route, all pairs", NULL, 0, 5) == -1);
	fixture_release(&a);
}
END_TEST

/* The distance table alone: a hypercube's distances are the popcounts of
 * v xor t; a ring of 200 is within a byte however deep; a chain of 300
 * is refused (2 x its probe depth is past a byte), and a probe deeper than
 * max_depth refuses it. */
START_TEST(dist_table_distances)
{
	int dim = 7, n = 1 << dim;
	int64_t *off = fx_xmalloc((size_t)(n + 1) * sizeof *off);
	int32_t *nbr = fx_xmalloc((size_t)(n * dim) * sizeof *nbr);
	uint8_t *relays = fx_xmalloc((size_t)n);
	for (int v = 0; v <= n; v++)
		off[v] = (int64_t)v * dim;
	for (int v = 0; v < n; v++) {
		relays[v] = 1;
		for (int b = 0; b < dim; b++)
			nbr[v * dim + b] = v ^ (1 << b);
	}
	ck_assert(fx_dtab_new(n, off, nbr, relays, dim - 1) == NULL);
	fx_dtab *t = fx_dtab_new(n, off, nbr, relays, dim);
	ck_assert(t != NULL);
	const uint8_t *row = fx_dtab_row(t, 9, 2);  /* resumed: two layers, then v's */
	for (int v = 0; v < n; v++) {
		int d = __builtin_popcount((unsigned)(v ^ 9));
		ck_assert_int_eq(row[v], d <= 2 ? d : FX_DTAB_NONE);
	}
	ck_assert_int_eq(fx_dtab_dist(t, 9, 9 ^ 0x70), 3);
	ck_assert_int_eq(row[9 ^ 0x0f], FX_DTAB_NONE);  /* 4 hops: not yet */
	for (int tg = n - 1; tg >= 0; tg -= 3) {
		row = fx_dtab_row(t, tg, 255);
		for (int v = 0; v < n; v++)
			ck_assert_int_eq(row[v], __builtin_popcount((unsigned)(v ^ tg)));
	}
	fx_dtab_free(t);
	relays[5] = 0;  /* 5 expands only as its own target */
	t = fx_dtab_new(n, off, nbr, relays, -1);
	ck_assert(t != NULL);
	row = fx_dtab_row(t, 5, 255);
	for (int v = 0; v < n; v++)
		ck_assert_int_eq(row[v], __builtin_popcount((unsigned)(v ^ 5)));
	row = fx_dtab_row(t, 7, 255);  /* 7 -> 5 -> 4 may not pass 5, but 7 -> 6 -> 4 does */
	ck_assert_int_eq(row[4], 2);
	fx_dtab_free(t);
	free(off);
	free(nbr);
	free(relays);
	for (int len = 200; len <= 300; len += 100) {  /* a ring of 200, a chain of 300 */
		off = fx_xmalloc((size_t)(len + 1) * sizeof *off);
		nbr = fx_xmalloc((size_t)(2 * len) * sizeof *nbr);
		relays = fx_xmalloc((size_t)len);
		int64_t k = 0;
		for (int v = 0; v < len; v++) {
			off[v] = k;
			relays[v] = 1;
			if (v > 0 || len == 200)
				nbr[k++] = (v + len - 1) % len;
			if (v < len - 1 || len == 200)
				nbr[k++] = (v + 1) % len;
		}
		off[len] = k;
		t = fx_dtab_new(len, off, nbr, relays, -1);
		if (len == 300) {
			ck_assert(t == NULL);
		} else {
			ck_assert(t != NULL);
			row = fx_dtab_row(t, 13, 255);
			for (int v = 0; v < len; v++) {
				int d = v > 13 ? v - 13 : 13 - v;
				ck_assert_int_eq(row[v], d < len - d ? d : len - d);
			}
			fx_dtab_free(t);
		}
		free(off);
		free(nbr);
		free(relays);
	}
}
END_TEST

/* Round twins (routing/round_twin.c): a round whose flows repeat an
 * earlier round's byte for byte gets that round's links, bytes and path
 * figures, and they are exactly what routing it again gives; rounds that
 * differ (a flow's order, -0.0 for 0.0, all pairs, a rank set) are
 * routed. */
START_TEST(round_twins_equal_routing)
{
	char *text = hypercube(5);
	fixture a;
	ck_assert_msg(fixture_load(&a, "g.yaml", text, NULL) == 0, "%s", a.msg);
	free(text);
	const fx_fabric *f = &a.f;
	enum { NR = 8, NF = 32 };
	static fx_flow fl[NR][NF];
	for (int i = 0; i < NF; i++) {
		fl[0][i] = (fx_flow){i, (i + 5) % NF, 1e6};
		fl[1][i] = (fx_flow){i, i ^ 7, 3e5 + i};
		fl[4][i] = (fx_flow){i, (i + 9) % NF, 0.0};
		fl[6][i] = (fx_flow){i, (i + 9) % NF, 2.5e5};
	}
	memcpy(fl[2], fl[1], sizeof fl[1]);   /* twin of 1 */
	memcpy(fl[3], fl[0], sizeof fl[0]);   /* twin of 0, but two flows swapped */
	fx_flow tmp = fl[3][3];
	fl[3][3] = fl[3][4];
	fl[3][4] = tmp;
	memcpy(fl[5], fl[4], sizeof fl[4]);   /* as 4 but -0.0: routed */
	fl[5][2].bytes = -0.0;
	fx_round rd[NR];
	memset(rd, 0, sizeof rd);
	for (int i = 0; i < NR; i++) {
		rd[i].flows = fl[i];
		rd[i].n = NF;
		rd[i].repeat = 1;
	}
	memcpy(fl[6], fl[1], sizeof fl[1]);   /* flows of 1, with all pairs: routed */
	rd[6].all_pairs = 10;
	memcpy(fl[7], fl[1], sizeof fl[1]);   /* flows of 1, with a rank set: routed */
	fx_among among = {0};
	rd[7].among = &among;
	rd[7].namong = 1;
	fx_sched sc = {0};
	sc.r = rd;
	sc.n = NR;
	fx_twins *tw = fx_twins_new(&sc);
	fx_router *r = fx_router_new(f, 0);
	size_t nl = (size_t)(2 * f->ne);
	double *load = fx_xcalloc(nl, sizeof *load), *fresh = fx_xcalloc(nl, sizeof *fresh);
	fx_diag d;
	fx_diag_init(&d);
	int hits = 0;
	for (int i = 0; i < NR; i++) {
		const int64_t *links;
		const double *bytes;
		size_t n;
		fx_path_stats st, st2;
		ck_assert_int_eq(fx_router_add(r, rd[i].flows, rd[i].n, fresh, &st2, &d), 0);
		const int64_t *used;
		size_t nused = fx_router_used(r, &used);
		if (fx_twins_get(tw, i, &links, &bytes, &n, &st)) {
			hits++;
			ck_assert_int_eq(i, 2);
			ck_assert(st.max_hops == st2.max_hops && st.max_latency == st2.max_latency);
			ck_assert_uint_eq(n, nused);
			for (size_t u = 0; u < n; u++) {
				ck_assert_int_eq(links[u], used[u]);
				load[links[u]] = bytes[u];
			}
			for (size_t l = 0; l < nl; l++)
				ck_assert(load[l] == fresh[l]);
		} else {
			fx_twins_put(tw, i, used, nused, fresh, &st2);
		}
		memset(load, 0, nl * sizeof *load);
		memset(fresh, 0, nl * sizeof *fresh);
	}
	ck_assert_int_eq(hits, 1);
	fx_diag_release(&d);
	free(load);
	free(fresh);
	fx_router_free(r);
	fx_twins_free(tw);
	fixture_release(&a);
}
END_TEST

/* The route-work guard's count on the distance-table path (route.c
 * fx_router_work; routing/collective.c bounds it by FX_MAX_TABLE_WORK),
 * by hand on the 2^3 hypercube (V = 8, degree d = 3; all devices relay):
 * - the table: a layer of a 64-target block costs 2V (its two scans of
 *   the vertices) plus d for every vertex that expands in it: 2*8 + 8*3 =
 *   40 a layer (every vertex expands at layers 1-3 of the one block);
 * - a push: d for every vertex it pushes from; a flow h hops apart pushes
 *   from its whole 2^h-vertex subcube but the target: d (2^h - 1).
 * Round i -> i^1 (h = 1): the table to layer 1, 40, and 8 pushes of 3:
 * 64.  Round i -> i^7 (h = 3): layers 2 and 3, 80, and 8 pushes of 21:
 * 248.  The same round again: no table, 168.  A bound of exactly the
 * count lets the round through; one step less stops it (FX_SWEEP_OVER,
 * nothing reported), after the group that crossed it. */
START_TEST(table_work_counted)
{
	char *text = hypercube(3);
	fixture a;
	ck_assert_msg(fixture_load(&a, "g.yaml", text, NULL) == 0, "%s", a.msg);
	free(text);
	const fx_fabric *f = &a.f;
	fx_flow near[8], far[8];
	for (int i = 0; i < 8; i++) {
		near[i] = (fx_flow){i, i ^ 1, 1e6};
		far[i] = (fx_flow){i, i ^ 7, 1e6};
	}
	size_t nl = (size_t)(2 * f->ne);
	double *load = fx_xcalloc(nl, sizeof *load);
	fx_diag d;
	fx_diag_init(&d);
	fx_path_stats st;
	const int64_t *used;
	fx_router *r = fx_router_new(f, 0);
	ck_assert_int_eq(fx_router_takes_table(r), 1);
	ck_assert(fx_router_work(r) == 0);
	ck_assert_int_eq(fx_router_add(r, near, 8, load, &st, &d), 0);
	ck_assert_msg(fx_router_work(r) == 64, "%g", fx_router_work(r));
	ck_assert_int_eq(fx_router_add(r, far, 8, load, &st, &d), 0);
	ck_assert_msg(fx_router_work(r) == 64 + 248, "%g", fx_router_work(r));
	ck_assert_int_eq(fx_router_add(r, far, 8, load, &st, &d), 0);
	ck_assert_msg(fx_router_work(r) == 64 + 248 + 168, "%g", fx_router_work(r));
	fx_router_used(r, &used);
	fx_router_free(r);
	for (int over = 0; over < 2; over++) {
		r = fx_router_new(f, 0);
		ck_assert_int_eq(fx_router_takes_table(r), 1);
		fx_router_set_work_limit(r, 64);
		ck_assert_int_eq(fx_router_add(r, near, 8, load, &st, &d), 0);
		fx_router_set_work_limit(r, 64 + 248 - over);
		ck_assert_int_eq(fx_router_add(r, far, 8, load, &st, &d), over ? FX_SWEEP_OVER : 0);
		ck_assert(fx_router_work(r) == 64 + 248);
		fx_router_used(r, &used);
		fx_router_free(r);
	}
	ck_assert_int_eq(d.nerr, 0);
	/* the hash policy and the reference never take the table */
	r = fx_router_new(f, 0);
	fx_router_set_reference(r, 1);
	ck_assert_int_eq(fx_router_takes_table(r), 0);
	fx_router_free(r);
	r = fx_router_new(f, 0);
	fx_router_set_policy(r, FX_ROUTE_HASH);
	ck_assert_int_eq(fx_router_takes_table(r), 0);
	fx_router_free(r);
	fx_diag_release(&d);
	free(load);
	fixture_release(&a);
}
END_TEST

/* Lattice rounds summarised from breakpoints (routing/dor_sum.c) against
 * the per-link path (the router with the reference set): each round's
 * heaviest link and time exactly, totals and per-link figures to 1e-12. */
static int close12(double a, double b)
{
	return fabs(a - b) <= 1e-12 * fmax(fabs(a), fabs(b));
}

static void same_collective(const fx_fabric *f, const char *pattern, const char *algo,
			    double size, fx_route_policy pol, const char *what)
{
	int64_t *ranks = fx_xmalloc((size_t)f->ndev * sizeof *ranks);
	for (int64_t i = 0; i < f->ndev; i++)
		ranks[i] = i;
	fx_coll_req q = {pattern, algo, ranks, f->ndev, size, 0};
	fx_coll_time tm = {.alpha = 1e-6, .alpha_replaces_latency = 0, .policy = pol};
	fx_coll_result res[2];
	for (int ref = 0; ref < 2; ref++) {
		fx_router *r = fx_router_new(f, 0);
		fx_router_set_reference(r, ref);
		ck_assert_msg((fx_router_summary(r) != NULL) == !ref, "%s: summary", what);
		fx_diag d;
		fx_diag_init(&d);
		ck_assert_int_eq(fx_coll_run(f, r, &q, &tm, &res[ref], &d), 0);
		fx_diag_release(&d);
		fx_router_free(r);
	}
	fx_coll_result *a = &res[0], *b = &res[1];
	ck_assert_msg(a->nround == b->nround && a->nround > 0, "%s: rounds", what);
	for (size_t i = 0; i < a->nround; i++) {
		ck_assert_msg(a->per_round[i].max_link_bytes == b->per_round[i].max_link_bytes,
			      "%s: round %zu heaviest %.17g vs %.17g", what, i,
			      a->per_round[i].max_link_bytes, b->per_round[i].max_link_bytes);
		ck_assert_msg(a->per_round[i].time == b->per_round[i].time, "%s: round %zu time",
			      what, i);
		ck_assert_msg(close12(a->per_round[i].total_link_bytes,
				      b->per_round[i].total_link_bytes), "%s: round %zu total", what, i);
	}
	ck_assert_msg(close12(a->time, b->time), "%s: time", what);
	ck_assert_msg(close12(a->total_link_bytes, b->total_link_bytes), "%s: total", what);
	ck_assert_msg(close12(a->max_link_bytes, b->max_link_bytes), "%s: max", what);
	ck_assert(a->max_link_bytes > 0);
	for (int64_t l = 0; l < 2 * f->ne; l++) {
		ck_assert_msg(close12(a->link_bytes[l], b->link_bytes[l]), "%s: link %lld bytes %.17g vs "
			      "%.17g", what, (long long)l, a->link_bytes[l], b->link_bytes[l]);
		ck_assert_msg(close12(a->link_busy[l], b->link_busy[l]), "%s: link %lld busy", what,
			      (long long)l);
	}
	fx_coll_result_release(a);
	fx_coll_result_release(b);
	free(ranks);
}

START_TEST(lattice_summary_equals_per_link)
{
	static const char *const wafer[] = {"fabric.grid=[12,12]", NULL};
	static const char *const wafer_odd[] = {"fabric.grid=[11,11]", NULL};
	static const char *const torus[] = {"fabric.dims=[4,6,5]", "packaging.devices_per_node=1",
					    NULL};
	static const char *const mesh[] = {"fabric.dims=[6,5]", "fabric.kind=mesh",
					   "packaging.devices_per_node=1", NULL};
	struct {
		const char *path;
		const char *const *sets;
		const char *pattern, *algo;
	} cases[] = {
		{"specs/wse2.yaml", wafer, "gemm-shift", "summa"},
		{"specs/wse2.yaml", wafer_odd, "gemm-shift", "summa"},
		{"specs/wse2.yaml", wafer, "gemm-shift", "cannon"},
		{"specs/wse2.yaml", wafer, "gemm-shift", "meshgemm"},
		{"specs/wse2.yaml", wafer, "allreduce", "ktree"},
		{"specs/torus-8x8x8.yaml", torus, "all-to-all", "pairwise"},  /* even-ring ties */
		{"specs/torus-8x8x8.yaml", torus, "allreduce", "ring"},
		{"specs/torus-8x8x8.yaml", NULL, "allreduce", "swing-torus"},
		{"specs/torus-8x8x8.yaml", mesh, "all-to-all", "pairwise"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		fixture a;
		if (fixture_load(&a, cases[i].path, NULL, cases[i].sets) != 0)
			ck_abort_msg("%s: %s", cases[i].path, a.msg);
		char what[160];
		for (int pol = 0; pol < 2; pol++) {
			snprintf(what, sizeof what, "%s %s/%s %s", cases[i].path, cases[i].pattern,
				 cases[i].algo, pol ? "hash" : "split");
			same_collective(&a.f, cases[i].pattern, cases[i].algo, 3e6, pol, what);
		}
		fixture_release(&a);
	}
}
END_TEST

/* The summary's radix sort (routing/dor_sum.c) against the comparison it
 * replaced: line, then position, then insertion order, element for
 * element, on rounds with many equal keys, small and large, on a wafer
 * whose keys need two passes and one whose keys need three. */
typedef struct ref_pt {
	int64_t line;
	int pos;
	size_t seq;
} ref_pt;

static int ref_cmp(const void *a, const void *b)
{
	const ref_pt *x = a, *y = b;
	if (x->line != y->line)
		return (x->line > y->line) - (x->line < y->line);
	if (x->pos != y->pos)
		return (x->pos > y->pos) - (x->pos < y->pos);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

START_TEST(dorsum_radix_order)
{
	static const char *const small[] = {"fabric.grid=[12,7]", NULL};
	static const char *const big[] = {"fabric.grid=[900,700]", NULL};
	const char *const *sets[] = {small, big};
	const size_t sizes[] = {5, 511, 512, 4000, 200000};
	uint64_t x = 88172645463325252ULL;
	for (int c = 0; c < 2; c++) {
		fixture a;
		if (fixture_load(&a, "specs/wse2.yaml", NULL, sets[c]) != 0)
			ck_abort_msg("%s", a.msg);
		const fx_fabric *f = &a.f;
		int64_t lines = 2 * f->ndims * f->ndev;
		int kmax = f->dims[0] > f->dims[1] ? f->dims[0] : f->dims[1];
		for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
			size_t n = sizes[z];
			fx_dorsum *s = fx_dorsum_new(f);
			ck_assert_ptr_nonnull(s);
			ref_pt *ref = fx_xmalloc(n * sizeof *ref);
			for (size_t i = 0; i < n; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				/* few distinct lines and positions in half the cases: ties */
				int64_t line = (int64_t)(x % (uint64_t)(i % 2 ? lines : 7));
				int pos = (int)((x >> 32) % (uint64_t)(i % 3 ? kmax : 3));
				ref[i] = (ref_pt){line, pos, i};
				fx_dorsum_point(s, line, pos, (double)i);
			}
			qsort(ref, n, sizeof *ref, ref_cmp);
			fx_dorsum_sort(s);
			ck_assert_int_eq(fx_dorsum_npoints(s), n);
			for (size_t i = 0; i < n; i++) {
				int64_t line;
				int pos;
				double delta;
				fx_dorsum_point_at(s, i, &line, &pos, &delta);
				ck_assert_msg(line == ref[i].line && pos == ref[i].pos &&
					      delta == (double)ref[i].seq, "n=%zu: point %zu", n, i);
			}
			free(ref);
			fx_dorsum_free(s);
		}
		fixture_release(&a);
	}
}
END_TEST

/* The hash policy's flows to one destination travel merged by (vertex,
 * divided destination number) (routing/route.c hash_push): the same loads
 * (to 1e-12: amounts add before they load a link), hop counts and
 * latencies as walking every flow, on the switched fabrics and the corner
 * graph. */
START_TEST(hash_push_equals_walk)
{
	static const struct {
		const char *path;
		const char *const *sets;
	} cases[] = {
		{"specs/fat-tree-k8.yaml", k4},
		{"specs/fat-tree-k8.yaml", NULL},
		{"tests/specs/leaf-spine-custom.yaml", NULL},
		{"specs/cm384.yaml", NULL},
		{"specs/nvl72.yaml", NULL},
		{"tests/specs/hgx-custom.yaml", NULL},
		{"specs/dgx-h100-256.yaml", NULL},
		{"specs/dgx1.yaml", NULL},
	};
	policy_hash = 1;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		fixture a;
		load_ok(&a, cases[i].path, cases[i].sets);
		check_fabric(&a.f, cases[i].path);
		fixture_release(&a);
	}
	char *y = corner_graph();
	fixture c;
	ck_assert_msg(fixture_load(&c, "corners.yaml", y, NULL) == 0, "%s", c.msg);
	check_fabric(&c.f, "corners");
	fixture_release(&c);
	free(y);
	policy_hash = 0;
}
END_TEST

/* Loads of flows (added twice) with every target searched whole (full 1)
 * or the fast path's s-t DAGs and shared searches (0); split, or hash. */
static int loads_full(const fx_fabric *f, int full, int hash, const fx_flow *fl, size_t n,
		      double *load, fx_path_stats *st)
{
	fx_router *r = fx_router_new(f, 0);
	fx_router_set_full_search(r, full);
	fx_router_set_policy(r, hash ? FX_ROUTE_HASH : FX_ROUTE_SPLIT);
	fx_router_set_updown(r, 0);  /* the grouped push, not the up/down sweep */
	fx_diag d;
	fx_diag_init(&d);
	FILE *err = tmpfile();
	d.out = err;
	int rc = fx_router_add(r, fl, n, load, st, &d);
	if (rc == 0)
		rc = fx_router_add(r, fl, n, load, st, &d);
	fclose(err);
	fx_diag_release(&d);
	fx_router_free(r);
	return rc;
}

/* The fast path and the whole searches on one batch: the same status, hop
 * count and latency, and the same loads bit for bit (memcmp). */
static void full_same(const fx_fabric *f, const char *what, int hash, const fx_flow *fl, size_t n)
{
	size_t nl = (size_t)(2 * f->ne);
	double *a = fx_xcalloc(nl, sizeof *a), *b = fx_xcalloc(nl, sizeof *b);
	fx_path_stats sa = {0, 0}, sb = {0, 0};
	int ra = loads_full(f, 1, hash, fl, n, a, &sa), rb = loads_full(f, 0, hash, fl, n, b, &sb);
	ck_assert_msg(ra == rb, "%s: whole searches %d, fast %d", what, ra, rb);
	if (ra == 0) {
		ck_assert_msg(sa.max_hops == sb.max_hops && sa.max_latency == sb.max_latency,
			      "%s: hops %lld vs %lld, latency %.17g vs %.17g", what,
			      (long long)sa.max_hops, (long long)sb.max_hops, sa.max_latency,
			      sb.max_latency);
		for (size_t l = 0; l < nl; l++)
			ck_assert_msg(memcmp(&a[l], &b[l], sizeof *a) == 0,
				      "%s: link %zu: %.17g vs %.17g", what, l, a[l], b[l]);
	}
	free(a);
	free(b);
}

/* Rings (all devices, an odd subset, strides that leave the pod), sparse
 * random pairs and an incast, fast path against whole searches. */
static void full_same_fabric(const fx_fabric *f, const char *name, int hash)
{
	int64_t n = f->ndev;
	fx_flow *fl = fx_xmalloc((size_t)(n + 64) * sizeof *fl);
	char what[160];
	int64_t strides[] = {1, n - 1, 3, n / 2 + 1};
	for (int s = 0; s < 4; s++) {
		for (int64_t i = 0; i < n; i++)
			fl[i] = (fx_flow){i, (i + strides[s]) % n, 1e6 + (double)(i % 7)};
		snprintf(what, sizeof what, "%s ring stride %lld", name, (long long)strides[s]);
		full_same(f, what, hash, fl, (size_t)n);
	}
	int64_t m = n - 3 > 1 ? (n - 3) | 1 : n;  /* an odd ring over the first m */
	for (int64_t i = 0; i < m; i++)
		fl[i] = (fx_flow){i, (i + 1) % m, 3e6};
	snprintf(what, sizeof what, "%s ring of %lld", name, (long long)m);
	full_same(f, what, hash, fl, (size_t)m);
	uint64_t x = 31;
	for (int i = 0; i < 64; i++) {
		fl[i].src = (int64_t)(lcg(&x) % (uint64_t)n);
		fl[i].dst = (int64_t)(lcg(&x) % (uint64_t)n);
		fl[i].bytes = i % 13 == 0 ? 0 : (double)(1 + lcg(&x) % 1000) * 512;
	}
	snprintf(what, sizeof what, "%s random pairs", name);
	full_same(f, what, hash, fl, 64);
	for (int64_t i = 0; i < n; i++)
		fl[i] = (fx_flow){i, n - 1, 1e5 + (double)i};
	snprintf(what, sizeof what, "%s incast", name);
	full_same(f, what, hash, fl, (size_t)n);
	free(fl);
}

/* Issue 31: the s-t DAGs searched from both ends (routing/st_dag.c) and
 * the hash policy's searches shared by home give the whole searches'
 * loads bit for bit, on fat-trees of k = 4, 6 (three hosts a leaf), 8,
 * intact and with an aggregation switch, a core and a leaf failed (its
 * hosts cut off: no route, the same status), and on the corner graph. */
START_TEST(st_dag_equals_full_search)
{
	static const struct {
		const char *const *sets;
		const char *fail[3];
	} cases[] = {
		{k4, {NULL}},
		{k6, {NULL}},
		{NULL, {NULL}},
		{k4, {"switch=9", NULL}},
		{NULL, {"switch=40", "switch=70", NULL}},
		{k6, {"switch=2", NULL}},
	};
	for (int hash = 0; hash <= 1; hash++)
		for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
			fixture a;
			load_ok(&a, "specs/fat-tree-k8.yaml", cases[i].sets);
			char name[96];
			snprintf(name, sizeof name, "fat-tree case %zu%s", i, hash ? " (hash)" : "");
			for (int k = 0; cases[i].fail[k]; k++)
				ck_assert_int_eq(fx_fabric_fail(&a.f, cases[i].fail[k], "--fail", &a.d), 0);
			full_same_fabric(&a.f, name, hash);
			fixture_release(&a);
		}
	char *y = corner_graph();
	fixture c;
	ck_assert_msg(fixture_load(&c, "corners.yaml", y, NULL) == 0, "%s", c.msg);
	full_same_fabric(&c.f, "corners", 0);
	full_same_fabric(&c.f, "corners (hash)", 1);
	fixture_release(&c);
	free(y);
}
END_TEST

/* The one relay-aware search (routing/bfs.c) on a hand-built graph:
 * devices a, m, b (0-2, not relaying) and switches s1..s5 (3-7); a - s1 -
 * m - s2 - b, with s2 also 3 hops from s1 through relays only: s1 - s3 -
 * s4 - s2 (latencies 2, 2, 2) and s1 - s3 - s5 - s2 (2, 1, 1).  m is
 * reached but not passed through, unless the search starts there. */
START_TEST(bfs_relay_aware)
{
	enum { NV = 8, NE = 9 };
	static const int ends[NE][2] = {{0, 3}, {3, 1}, {1, 4}, {4, 2}, {3, 5},
					{5, 6}, {6, 4}, {5, 7}, {7, 4}};
	static const double elat[NE] = {1, 1, 1, 1, 2, 2, 2, 1, 1};
	int64_t off[NV + 1] = {0}, twin[2 * NE], at[NV];
	int32_t nbr[2 * NE];
	double lat[2 * NE];
	uint8_t relays[NV] = {0, 0, 0, 1, 1, 1, 1, 1};
	for (int e = 0; e < NE; e++) {
		off[ends[e][0] + 1]++;
		off[ends[e][1] + 1]++;
	}
	for (int v = 0; v < NV; v++)
		at[v] = off[v + 1] += off[v];
	for (int v = NV - 1; v >= 0; v--)
		at[v] = off[v];
	for (int e = 0; e < NE; e++) {  /* positions in edge order, as fx_inc_build's */
		int64_t ta = at[ends[e][0]]++, tb = at[ends[e][1]]++;
		nbr[ta] = ends[e][1];
		nbr[tb] = ends[e][0];
		lat[ta] = lat[tb] = elat[e];
		twin[ta] = tb;
		twin[tb] = ta;
	}
	fx_inc g = {NV, off, NULL, nbr, lat, twin, relays};
	int32_t dist[NV], queue[NV];
	double dl[NV];
	uint64_t next[NV];
	fx_bfs b = {.dist = dist, .lat = dl, .next = next, .queue = queue};
	/* from a, resumed: the first two layers, then until b, then the rest */
	fx_bfs_start(&b, NV);
	ck_assert_int_eq(fx_bfs_seed(&b, 0, 0), 1);
	ck_assert_int_eq(fx_bfs_grow(&b, &g, -1, 2), 0);
	ck_assert_int_eq(dist[3], 1);
	ck_assert_int_eq(dist[5], 2);
	ck_assert_int_eq(dist[6], -1);  /* s3 not expanded yet */
	ck_assert_int_eq(fx_bfs_grow(&b, &g, 2, 0), 0);
	ck_assert_int_eq(fx_bfs_grow(&b, &g, -1, INT32_MAX), 1);
	static const int32_t from_a[NV] = {0, 2, 5, 1, 4, 2, 3, 3};
	static const double worst_a[NV] = {0, 2, 8, 1, 7, 3, 5, 4};
	for (int v = 0; v < NV; v++) {
		ck_assert_int_eq(dist[v], from_a[v]);
		ck_assert(dl[v] == worst_a[v]);
	}
	ck_assert(next[4] == 0xc);  /* s2 towards a: from s4 and s5, not m */
	ck_assert(next[2] == 0x1 && next[1] == 0x1 && next[3] == 0x1);
	/* the least latency instead (routing/hops.c) */
	fx_bfs h = {.dist = dist, .lat = dl, .least = 1, .queue = queue};
	ck_assert_int_eq(fx_bfs_from(&h, &g, 0, 0), 5);
	ck_assert(dl[4] == 5 && dl[2] == 6);
	/* from m: the seed expands though it does not relay */
	static const int32_t from_m[NV] = {2, 0, 2, 1, 1, 2, 2, 2};
	static const double worst_m[NV] = {12, 10, 12, 11, 11, 13, 13, 12};
	ck_assert_int_eq(fx_bfs_from(&b, &g, 1, 10), 2);
	for (int v = 0; v < NV; v++) {
		ck_assert_int_eq(dist[v], from_m[v]);
		ck_assert(dl[v] == worst_m[v]);
	}
	/* seeds a and b, b's latency the larger of two */
	fx_bfs_start(&b, NV);
	fx_bfs_seed(&b, 0, 0);
	fx_bfs_seed(&b, 2, 1);
	ck_assert_int_eq(fx_bfs_seed(&b, 2, 3), 0);
	ck_assert_int_eq(fx_bfs_grow(&b, &g, -1, INT32_MAX), 1);
	static const int32_t from_ab[NV] = {0, 2, 0, 1, 1, 2, 2, 2};
	static const double worst_ab[NV] = {0, 5, 3, 1, 4, 3, 6, 5};
	for (int v = 0; v < NV; v++) {
		ck_assert_int_eq(dist[v], from_ab[v]);
		ck_assert(dl[v] == worst_ab[v]);
	}
	/* hops only; with m relaying, s2 and b come a hop nearer a */
	relays[1] = 1;
	fx_bfs p = {.dist = dist, .queue = queue};
	ck_assert_int_eq(fx_bfs_from(&p, &g, 0, 0), 4);
	ck_assert_int_eq(dist[4], 3);
	ck_assert_int_eq(dist[2], 4);
}
END_TEST

/* ---- device classes in the all-pairs sweep (issue 31) ---- */

/* Multi-homed devices written out: 4 trays of 3 devices, each device on
 * its tray's two switches (the second link to switch b doubled and of
 * other bandwidth and latency), every tray switch to 3 spines of uneven
 * bandwidth; a fifth tray whose devices differ (one on one switch only,
 * one of other bandwidth), so classes of one, two and three. */
static char *trays(void)
{
	size_t cap = 1 << 16, len = 0;
	char *s = fx_xmalloc(cap);
	len += (size_t)snprintf(s + len, cap - len,
		"name: trays\nfabric:\n  kind: custom\n"
		"  link: {bandwidth: 50 GB/s, latency: 200 ns, medium: copper}\n  nodes:\n");
	for (int i = 0; i < 15; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {name: g%d, type: device}\n", i);
	for (int i = 0; i < 10; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {name: t%d, type: switch}\n", i);
	for (int i = 0; i < 3; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {name: p%d, type: switch}\n", i);
	len += (size_t)snprintf(s + len, cap - len, "  links:\n");
	for (int i = 0; i < 15; i++) {
		int tray = i / 3;
		len += (size_t)snprintf(s + len, cap - len, "    - {a: g%d, b: t%d%s}\n", i, 2 * tray,
					i == 13 ? ", bandwidth: 30 GB/s" : "");
		if (i == 14)
			continue;
		len += (size_t)snprintf(s + len, cap - len, "    - {a: g%d, b: t%d}\n", i,
					2 * tray + 1);
		len += (size_t)snprintf(s + len, cap - len,
					"    - {a: t%d, b: g%d, bandwidth: 20 GB/s, latency: 350 ns}\n",
					2 * tray + 1, i);
	}
	for (int t = 0; t < 10; t++)
		for (int p = 0; p < 3; p++)
			len += (size_t)snprintf(s + len, cap - len,
				"    - {a: t%d, b: p%d, bandwidth: %d GB/s, latency: %d ns}\n", t, p,
				10 + 11 * ((t + p) % 4), 100 + 60 * ((t * p) % 3));
	return s;
}

/* All pairs (flows NULL) or a batch through the sweep with sibling
 * devices as one set and one by one: the same loads to 1e-12 relative,
 * hops and latency exactly, and less work with the sets when `fewer` (so
 * the class path ran). */
static void classes_same_on(const fx_fabric *f, const char *name, const fx_flow *flows, size_t nf,
			    int fewer)
{
	fx_inc inc;
	fx_inc_build(&inc, f);
	size_t nl = (size_t)(2 * f->ne);
	double *ld[2], work[2];
	fx_path_stats st[2];
	for (int on = 0; on < 2; on++) {
		fx_sweep *s = fx_sweep_new(f, &inc);
		fx_sweep_set_table(s, 0);
		fx_sweep_set_classes(s, on);
		fx_sweep_set_sparse(s, 0);  /* classes against the searches they share */
		int64_t *used = NULL;
		size_t nused = 0, capused = 0;
		ld[on] = fx_xcalloc(nl, sizeof *ld[on]);
		st[on] = (fx_path_stats){0, 0};
		ck_assert_int_eq(flows ? fx_sweep_add(s, flows, nf, ld[on], &st[on], &used, &nused,
						      &capused)
				       : fx_sweep_all_pairs(s, 4096.5, ld[on], &st[on], &used, &nused,
							    &capused), 0);
		work[on] = fx_sweep_work(s);
		free(used);
		fx_sweep_free(s);
	}
	ck_assert_msg(st[0].max_hops == st[1].max_hops, "%s: hops %lld vs %lld", name,
		      (long long)st[0].max_hops, (long long)st[1].max_hops);
	ck_assert_msg(st[0].max_latency == st[1].max_latency, "%s: latency %.17g vs %.17g", name,
		      st[0].max_latency, st[1].max_latency);
	double sum = 0;
	for (size_t l = 0; l < nl; l++) {
		double tol = 1e-12 * fmax(fabs(ld[0][l]), fabs(ld[1][l]));
		ck_assert_msg(fabs(ld[0][l] - ld[1][l]) <= tol, "%s: link %zu: %.17g vs %.17g", name,
			      l, ld[0][l], ld[1][l]);
		sum += ld[0][l];
	}
	ck_assert_msg(sum > 0, "%s: nothing loaded", name);
	if (fewer)
		ck_assert_msg(work[1] < work[0], "%s: work %g with classes, %g without", name,
			      work[1], work[0]);
	free(ld[0]);
	free(ld[1]);
	fx_inc_release(&inc);
}

/* All pairs, then rounds: shifts by 1, n/2 and n-1 (rings, pairwise),
 * random pairs with self-flows and empty ones, an incast; fewer work for
 * all pairs and the rings when `fewer`. */
static void classes_same(const fx_fabric *f, const char *name, int fewer)
{
	char what[128];
	classes_same_on(f, name, NULL, 0, fewer);
	int64_t n = f->ndev;
	fx_flow *fl = fx_xmalloc((size_t)(n > 300 ? n : 300) * sizeof *fl);
	int64_t shifts[] = {1, n / 2, n - 1};
	for (int k = 0; k < 3; k++) {
		for (int64_t i = 0; i < n; i++)
			fl[i] = (fx_flow){i, (i + shifts[k]) % n, 1e6 + (double)i};
		snprintf(what, sizeof what, "%s shift %lld", name, (long long)shifts[k]);
		classes_same_on(f, what, fl, (size_t)n, fewer && k == 0);
	}
	uint64_t x = 31;
	for (int i = 0; i < 300; i++) {
		fl[i].src = (int64_t)(lcg(&x) % (uint64_t)n);
		fl[i].dst = (int64_t)(lcg(&x) % (uint64_t)n);
		fl[i].bytes = i % 29 == 0 ? 0 : (double)(1 + lcg(&x) % 1000) * 4096;
	}
	snprintf(what, sizeof what, "%s random", name);
	classes_same_on(f, what, fl, 300, 0);
	for (int64_t i = 0; i < n; i++)
		fl[i] = (fx_flow){i, n - 1, 3e5 + (double)i};
	snprintf(what, sizeof what, "%s incast", name);
	classes_same_on(f, what, fl, (size_t)n, 0);
	free(fl);
}

static const char *const ub_small[] = {"fabric.nodes=6", "fabric.l2_ports=6", NULL};

START_TEST(classes_equal_per_device)
{
	static const struct {
		const char *path;
		const char *const *sets;
		int fewer;
	} cases[] = {
		{"specs/cm384.yaml", ub_small, 1},    /* UB: NPUs on 7 L1 chips */
		{"specs/cm384.yaml", NULL, 1},
		{"specs/nvl72.yaml", NULL, 1},        /* NVSwitch: GPUs on 18 switches */
		{"specs/hgx-h100.yaml", NULL, 1},
		{"specs/fat-tree-k8.yaml", k4, 0},    /* homed hosts: the pods' path either way */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		fixture a;
		load_ok(&a, cases[i].path, cases[i].sets);
		classes_same(&a.f, cases[i].path, cases[i].fewer);
		fixture_release(&a);
	}
	char *t = trays();
	fixture a;
	ck_assert_msg(fixture_load(&a, "trays.yaml", t, NULL) == 0, "trays: %s", a.msg);
	classes_same(&a.f, "trays", 1);
	check_fabric(&a.f, "trays");  /* and the router's default path against the reference */
	a.f.devices_forward = 0;
	classes_same(&a.f, "trays, devices not relaying", 1);
	check_fabric(&a.f, "trays, devices not relaying");
	fixture_release(&a);
	free(t);
}
END_TEST

/* ---- all pairs folded by symmetry (issue 31 item 2, routing/sweep_fold.c) ---- */

/* All pairs of `bytes` through the sweep with the fold on or off (sibling
 * sets on either way) into ld (2 ne); st, whether it folded. */
static int fold_run(const fx_fabric *f, int on, double bytes, double *ld, fx_path_stats *st)
{
	fx_inc inc;
	fx_inc_build(&inc, f);
	fx_sweep *s = fx_sweep_new(f, &inc);
	fx_sweep_set_table(s, 0);
	fx_sweep_set_fold(s, on);
	int64_t *used = NULL;
	size_t nused = 0, capused = 0;
	*st = (fx_path_stats){0, 0};
	ck_assert_int_eq(fx_sweep_all_pairs(s, bytes, ld, st, &used, &nused, &capused), 0);
	/* the list holds exactly the loaded links, once each */
	size_t loaded = 0;
	for (int64_t l = 0; l < 2 * f->ne; l++)
		loaded += ld[l] != 0;
	ck_assert_uint_eq(nused, loaded);
	for (size_t u = 0; u < nused; u++)
		ck_assert(ld[used[u]] != 0);
	int folded = fx_sweep_folded(s);
	if (on)  /* two searches where there were one per set */
		ck_assert_msg(!folded || fx_sweep_all_pairs_searches(s) == 2, "searches %g",
			      fx_sweep_all_pairs_searches(s));
	free(used);
	fx_sweep_free(s);
	fx_inc_release(&inc);
	return folded;
}

static const char *const ub4[] = {"fabric.nodes=4", "fabric.l2_ports=4", NULL};
static const char *const ub8[] = {"fabric.nodes=8", "fabric.l2_ports=8", NULL};
static const char *const dgx6[] = {"fabric.nodes=6", NULL};

/* Folded and pushed set by set: every directed link's bytes equal (to
 * 1e-12 relative, and in fact bit for bit: the fold adds the sets' terms
 * in the sets' order), the longest path and the slowest latency exactly,
 * and the fold ran. */
START_TEST(fold_equals_per_set)
{
	static const struct {
		const char *path;
		const char *const *sets;
	} cases[] = {
		{"specs/cm384.yaml", ub4},          /* UB: 4 nodes of 8 NPUs on 7 L1 chips */
		{"specs/cm384.yaml", ub8},
		{"specs/cm384.yaml", NULL},         /* the shipped 48 nodes */
		{"specs/dgx-h100-256.yaml", dgx6},  /* NVSwitch: trays of 8 GPUs on 4 chips, spines */
		{"specs/dgx-h100-256.yaml", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		fixture a;
		load_ok(&a, cases[i].path, cases[i].sets);
		const fx_fabric *f = &a.f;
		size_t nl = (size_t)(2 * f->ne);
		double *ld[2] = {fx_xcalloc(nl, sizeof(double)), fx_xcalloc(nl, sizeof(double))};
		fx_path_stats st[2];
		ck_assert_msg(!fold_run(f, 0, 4096.5, ld[0], &st[0]), "%s: folded when off",
			      cases[i].path);
		ck_assert_msg(fold_run(f, 1, 4096.5, ld[1], &st[1]), "%s: not folded", cases[i].path);
		ck_assert_int_eq(st[0].max_hops, st[1].max_hops);
		ck_assert(st[0].max_latency == st[1].max_latency);
		double sum = 0;
		for (size_t l = 0; l < nl; l++) {
			double tol = 1e-12 * fmax(fabs(ld[0][l]), fabs(ld[1][l]));
			ck_assert_msg(fabs(ld[0][l] - ld[1][l]) <= tol, "%s: link %zu: %.17g vs %.17g",
				      cases[i].path, l, ld[0][l], ld[1][l]);
			ck_assert_msg(ld[0][l] == ld[1][l], "%s: link %zu not bit-identical: %.17g vs "
				      "%.17g", cases[i].path, l, ld[0][l], ld[1][l]);
			sum += ld[1][l];
		}
		/* every byte of every pair crosses at least the sender's and the
		 * receiver's links: no set lost */
		double n = (double)f->ndev;
		ck_assert_msg(sum >= 2 * 4096.5 * n * (n - 1) * (1 - 1e-12), "%s: %g bytes", cases[i].path,
			      sum);
		free(ld[0]);
		free(ld[1]);
		fixture_release(&a);
	}
}
END_TEST

/* A tiny UB fabric by hand: 3 nodes of 2 NPUs, 2 planes (an L1 chip a
 * plane in each node), 2 L2 chips a plane, single links of one bandwidth,
 * B bytes between every ordered pair.  Node 0's 2 NPUs send B to each of
 * the 4 NPUs of nodes 1 and 2: 8B leave node 0.  A path to another node
 * is NPU, L1 of a plane, an L2 of that plane, the far node's L1, NPU (4
 * hops, either plane); no NPU forwards, so nothing goes NPU -> L1 -> NPU
 * -> ...  The NPU splits over its two L1 links (alike) and the L1 chip
 * over its two L2 chips: L1.n0.p0 -> L2.p0.0 carries 8B / 2 / 2 = 2B.
 * Into NPU 2 (node 1), over L1.n1.p0: half of what its 5 senders send it,
 * 5B / 2 = 2.5B (its sibling's half included: NPU 3 -> L1.n1.p0 ->
 * NPU 2).  The fold must give these, from one set's push. */
START_TEST(fold_hand_counted_ub)
{
	const char *text =
		"name: ub-tiny\nfabric:\n  kind: ub\n  nodes: 3\n  devices_per_node: 2\n"
		"  l1_per_node: 2\n  planes: 2\n  l2_per_plane: 2\n  l2_ports: 3\n  l1_ports: 4\n"
		"  link: {bandwidth: 28 GB/s, latency: 200 ns, medium: copper}\n";
	fixture a;
	ck_assert_msg(fixture_load(&a, "ub-tiny.yaml", text, NULL) == 0, "ub-tiny: %s", a.msg);
	const fx_fabric *f = &a.f;
	double B = 4096.5;
	double *ld = fx_xcalloc((size_t)(2 * f->ne), sizeof *ld);
	fx_path_stats st;
	ck_assert(fold_run(f, 1, B, ld, &st));
	ck_assert_int_eq(st.max_hops, 4);
	int seen = 0;
	for (int64_t e = 0; e < f->ne; e++) {
		char x[64], y[64];
		fx_fabric_vertex_name(f, f->ends[2 * e], x, sizeof x);
		fx_fabric_vertex_name(f, f->ends[2 * e + 1], y, sizeof y);
		for (int k = 0; k < 2; k++) {
			const char *from = k ? y : x, *to = k ? x : y;
			double got = ld[fx_fabric_dirlink(f, e, f->ends[2 * e + k])];
			if (!strcmp(from, "L1.n0.p0") && !strcmp(to, "L2.p0.0")) {
				ck_assert_msg(got == 2 * B, "L1.n0.p0 -> L2.p0.0: %.17g, want 2B", got);
				seen |= 1;
			}
			if (!strcmp(from, "L1.n1.p0") && !strcmp(to, "npu2")) {
				ck_assert_msg(got == 2.5 * B, "L1.n1.p0 -> npu2: %.17g, want 2.5B", got);
				seen |= 2;
			}
		}
	}
	ck_assert_int_eq(seen, 3);
	free(ld);
	fixture_release(&a);
}
END_TEST

/* ---- exact hop counts, 64 searches at once (routing/hops_bits.c) ---- */

/* A random custom graph from seed: ndev devices on a ring with random
 * chords, or (nsw > 0) devices on one to three of nsw switches that form
 * a ring with chords; with mixed, links of three latencies; with tail,
 * one more device whose only link is to device 0 (no path to it from the
 * others when devices do not forward). */
static char *random_graph(uint64_t seed, int ndev, int nsw, int mixed, int tail)
{
	size_t cap = 1 << 17, len = 0;
	char *s = fx_xmalloc(cap);
	uint64_t x = seed;
	len += (size_t)snprintf(s + len, cap - len, "name: random\nfabric:\n  kind: custom\n"
				"  link: {bandwidth: 50 GB/s, latency: 200 ns}\n  nodes:\n");
	for (int i = 0; i < ndev + tail; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {name: d%d, type: device}\n", i);
	for (int i = 0; i < nsw; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {name: s%d, type: switch}\n", i);
	len += (size_t)snprintf(s + len, cap - len, "  links:\n");
	int ring = nsw > 0 ? nsw : ndev;
	const char *pre = nsw > 0 ? "s" : "d";
	for (int i = 0; i < ring; i++)
		len += (size_t)snprintf(s + len, cap - len, "    - {a: %s%d, b: %s%d%s}\n", pre, i, pre,
					(i + 1) % ring, mixed && i % 3 == 0 ? ", latency: 350 ns" : "");
	for (int k = 0; k < ring / 3; k++) {
		int a = (int)(lcg(&x) % (uint64_t)ring), b = (int)(lcg(&x) % (uint64_t)ring);
		if (a != b)
			len += (size_t)snprintf(s + len, cap - len, "    - {a: %s%d, b: %s%d%s}\n", pre,
						a, pre, b, mixed && k % 2 ? ", latency: 90 ns" : "");
	}
	for (int i = 0; nsw > 0 && i < ndev; i++) {
		int m = 1 + (int)(lcg(&x) % 3);
		for (int j = 0; j < m; j++)
			len += (size_t)snprintf(s + len, cap - len, "    - {a: d%d, b: s%d%s}\n", i,
						(int)(lcg(&x) % (uint64_t)nsw),
						mixed && j == 1 ? ", latency: 500 ns" : "");
	}
	if (tail)
		len += (size_t)snprintf(s + len, cap - len, "    - {a: d%d, b: d0}\n", ndev);
	ck_assert(len < cap);
	return s;
}

/* Both ways on one fabric: the same status and message, histogram,
 * diameter, farthest pair and its latency exactly; returns the status. */
static int same_hops(const fx_fabric *f, const char *name)
{
	fx_hops h[2];
	char msg[2][512];
	int rc[2];
	for (int bits = 0; bits < 2; bits++) {
		fx_diag d;
		fx_diag_init(&d);
		FILE *err = tmpfile();
		d.out = err;
		rc[bits] = fx_route_hops_by(f, &h[bits], bits, &d);
		rewind(err);
		size_t k = fread(msg[bits], 1, sizeof msg[bits] - 1, err);
		msg[bits][k] = 0;
		fclose(err);
		fx_diag_release(&d);
	}
	ck_assert_msg(rc[0] == rc[1], "%s: %d vs %d", name, rc[0], rc[1]);
	ck_assert_str_eq(msg[0], msg[1]);
	if (rc[0] == 0) {
		ck_assert_msg(strstr(h[1].method, "64 at a time"), "%s: %s", name, h[1].method);
		ck_assert_msg(h[0].nhist == h[1].nhist && h[0].diameter == h[1].diameter,
			      "%s: diameter %lld vs %lld", name, (long long)h[0].diameter,
			      (long long)h[1].diameter);
		for (int64_t k = 0; k < h[0].nhist; k++)
			ck_assert_msg(h[0].hist[k] == h[1].hist[k], "%s: %lld hops: %.0f vs %.0f", name,
				      (long long)k, h[0].hist[k], h[1].hist[k]);
		ck_assert(h[0].mean == h[1].mean);
		ck_assert_msg(h[0].far_a == h[1].far_a && h[0].far_b == h[1].far_b,
			      "%s: farthest %lld-%lld vs %lld-%lld", name, (long long)h[0].far_a,
			      (long long)h[0].far_b, (long long)h[1].far_a, (long long)h[1].far_b);
		ck_assert_msg(h[0].far_latency == h[1].far_latency, "%s: latency %.17g vs %.17g", name,
			      h[0].far_latency, h[1].far_latency);
		ck_assert(h[0].sources == h[1].sources);
	}
	fx_hops_release(&h[0]);
	fx_hops_release(&h[1]);
	return rc[0];
}

START_TEST(hops_bits_equal_searches)
{
	for (uint64_t seed = 1; seed <= 4; seed++) {
		for (int mixed = 0; mixed < 2; mixed++) {
			char name[96];
			/* devices only (they relay): also against igraph's distances */
			char *t = random_graph(seed, 150 + 7 * (int)seed, 0, mixed, 0);
			fixture a;
			ck_assert_msg(fixture_load(&a, "r.yaml", t, NULL) == 0, "%s", a.msg);
			snprintf(name, sizeof name, "ring+chords seed %llu mixed %d",
				 (unsigned long long)seed, mixed);
			ck_assert_int_eq(same_hops(&a.f, name), 0);
			igraph_matrix_t m;
			igraph_vs_t vs;
			ck_assert_int_eq(igraph_matrix_init(&m, 0, 0), IGRAPH_SUCCESS);
			ck_assert_int_eq(igraph_vs_range(&vs, 0, a.f.ndev), IGRAPH_SUCCESS);
			ck_assert_int_eq(igraph_distances(&a.f.g, &m, vs, vs, IGRAPH_ALL), IGRAPH_SUCCESS);
			double want[64] = {0};
			for (int64_t i = 0; i < a.f.ndev; i++)
				for (int64_t j = 0; j < a.f.ndev; j++)
					if (i != j)
						want[(int)MATRIX(m, i, j)] += 1;
			igraph_vs_destroy(&vs);
			igraph_matrix_destroy(&m);
			fx_hops h;
			ck_assert_int_eq(fx_route_hops(&a.f, &h, &a.d), 0);
			for (int k = 0; k < 64; k++)
				ck_assert_msg((k < h.nhist ? h.hist[k] : 0) == want[k],
					      "%s: %d hops: %.0f, igraph %.0f", name, k,
					      k < h.nhist ? h.hist[k] : 0, want[k]);
			fx_hops_release(&h);
			fixture_release(&a);
			free(t);
			/* devices on switches, relaying and not; with a device
			 * behind device 0 (no path when devices do not forward) */
			for (int tail = 0; tail < 2; tail++) {
				t = random_graph(seed, 130, 40, mixed, tail);
				ck_assert_msg(fixture_load(&a, "r.yaml", t, NULL) == 0, "%s", a.msg);
				for (int fwd = 1; fwd >= 0; fwd--) {
					a.f.devices_forward = fwd;
					snprintf(name, sizeof name, "switched seed %llu mixed %d tail %d "
						 "forward %d", (unsigned long long)seed, mixed, tail, fwd);
					ck_assert_int_eq(same_hops(&a.f, name) != 0, tail && !fwd);
				}
				fixture_release(&a);
				free(t);
			}
		}
	}
}
END_TEST

Suite *suite_sweep(void)
{
	Suite *s = suite_create("sweep");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, sweep_equals_reference_shipped);
	tcase_add_test(tc, sweep_equals_reference_custom);
	tcase_add_test(tc, sweep_no_route_same_message);
	tcase_add_test(tc, dist_table_distances);
	tcase_add_test(tc, bfs_relay_aware);
	tcase_add_test(tc, round_twins_equal_routing);
	tcase_add_test(tc, table_work_counted);
	tcase_add_test(tc, updown_equals_reference);
	tcase_add_test(tc, lattice_summary_equals_per_link);
	tcase_add_test(tc, dorsum_radix_order);
	tcase_add_test(tc, hash_push_equals_walk);
	tcase_add_test(tc, st_dag_equals_full_search);
	tcase_add_test(tc, classes_equal_per_device);
	tcase_add_test(tc, fold_equals_per_set);
	tcase_add_test(tc, fold_hand_counted_ub);
	tcase_add_test(tc, hops_bits_equal_searches);
	suite_add_tcase(s, tc);
	return s;
}
