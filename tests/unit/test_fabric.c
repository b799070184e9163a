/* Builders: counts of every kind, checked against the chapter "Supernodes" and the sources
 * each spec cites, and the registry walked like git's t0012. */
#include <stdio.h>
#include <string.h>

#include "helpers.h"

static int64_t role_chips(const fx_fabric *f, const char *role)
{
	for (int r = 0; r < f->nroles; r++)
		if (strcmp(f->roles[r].name, role) == 0)
			return f->roles[r].count;
	return -1;
}

static fx_role_stat role_stat(const fx_fabric *f, const char *role)
{
	fx_role_stat rs[FX_MAX_ROLES];
	fx_fabric_role_stats(f, rs);
	for (int r = 0; r < f->nroles; r++)
		if (strcmp(f->roles[r].name, role) == 0)
			return rs[r];
	ck_abort_msg("no role %s", role);
	return rs[0];
}

/* the chapter, §6.5.1: "A 64-card torus requires 64 x 6 / 2 = 192 links and no
 * switch chips at all ... the switched network requires 384 links and six
 * 64-port switch chips." */
START_TEST(torus_vs_switched_64)
{
	fixture t, s;
	load_ok(&t, "specs/tpu-v4-cube.yaml", NULL);
	load_ok(&s, "specs/switched-64.yaml", NULL);
	ck_assert_int_eq(t.f.ndev, 64);
	ck_assert_int_eq(fx_fabric_links(&t.f), 192);
	ck_assert_int_eq(t.f.nsw, 0);
	ck_assert_int_eq(s.f.ndev, 64);
	ck_assert_int_eq(fx_fabric_links(&s.f), 384);
	ck_assert_int_eq(s.f.nsw, 6);
	ck_assert_int_eq(s.f.roles[0].radix, 64);
	ck_assert_int_eq(role_stat(&s.f, "nvswitch").max_ports, 64);  /* every port used */
	fixture_release(&t);
	fixture_release(&s);
}
END_TEST

/* the chapter, §6.5.5 and CloudMatrix384 paper §3: 384 NPUs, 192 CPUs, 48 nodes,
 * 7 L1 chips per node and 7 planes x 16 L2 chips = 448 switch chips; a
 * direct link per NPU pair would be 384 x 383 / 2 = 73,536 links. */
START_TEST(cloudmatrix384)
{
	fixture fx;
	load_ok(&fx, "specs/cm384.yaml", NULL);
	ck_assert_int_eq(fx.f.ndev, 384);
	ck_assert_int_eq(fx.f.ncpu, 192);
	ck_assert_int_eq(fx.f.nnodes, 48);
	ck_assert_int_eq(fx.f.nsw, 448);
	ck_assert_int_eq(role_chips(&fx.f, "L1"), 336);
	ck_assert_int_eq(role_chips(&fx.f, "L2"), 112);
	ck_assert_int_eq(fx_fabric_full_mesh_links(&fx.f), 73536);
	/* 14 links x 28 GB/s = 392 GB/s per NPU (hardware.md §1) */
	ck_assert_int_eq(fx_fabric_ports(&fx.f, 0), 14);
	/* each L2 chip: one port per node, 48 ports (hardware.md §1) */
	fx_role_stat l2 = role_stat(&fx.f, "L2");
	ck_assert_int_eq(l2.max_ports, 48);
	/* each L1 chip: 16 uplinks x 28 GB/s = 448 GB/s, 16 NPU ports down (1:1) */
	fx_role_stat l1 = role_stat(&fx.f, "L1");
	ck_assert_int_eq(l1.up, 16);
	ck_assert_double_eq_tol(l1.up_bw, 448e9, 1);
	ck_assert_int_eq(l1.down, 16 + 4);  /* 8 NPUs x 2 links + 4 CPUs */
	ck_assert_int_eq(fx.f.nracks, 12);
	ck_assert_int_eq(fx_fabric_links(&fx.f), 5376 + 5376 + 1344);
	fixture_release(&fx);
}
END_TEST

/* the chapter, §6.5.1: "four leaf switch chips each with 32 downlink ports give 128
 * downlink ports total ... 32 spine switch chips, each connected by one link
 * to each of the four leaf switch chips, exactly filling each leaf's 32
 * uplinks"; and NVSwitch 3 split 32/32 gives 800 GB/s up, 48/16 400 GB/s
 * (25 GB/s per port). */
START_TEST(leaf_spine_splits)
{
	static const char *base =
		"fabric:\n  kind: fat-tree\n  tiers: 2\n  radix: 64\n  hosts: %d\n"
		"  down_up: [%d, %d]\n  link: {bandwidth: 25 GB/s, latency: 200 ns}\n";
	char y[512];
	fixture fx;
	snprintf(y, sizeof y, base, 128, 32, 32);
	ck_assert_msg(fixture_load(&fx, "ls.yaml", y, NULL) == 0, "%s", fx.msg);
	ck_assert_int_eq(fx.f.ndev, 128);  /* GPU ports */
	ck_assert_int_eq(role_chips(&fx.f, "leaf"), 4);
	ck_assert_int_eq(role_chips(&fx.f, "spine"), 32);
	fx_role_stat leaf = role_stat(&fx.f, "leaf");
	ck_assert_int_eq(leaf.up, 32);
	ck_assert_double_eq_tol(leaf.down_bw, 800e9, 1);
	ck_assert_double_eq_tol(leaf.up_bw, 800e9, 1);
	ck_assert_int_eq(role_stat(&fx.f, "spine").max_ports, 4);
	fixture_release(&fx);

	snprintf(y, sizeof y, base, 192, 48, 16);
	ck_assert_msg(fixture_load(&fx, "ls.yaml", y, NULL) == 0, "%s", fx.msg);
	leaf = role_stat(&fx.f, "leaf");
	ck_assert_double_eq_tol(leaf.up_bw, 400e9, 1);
	ck_assert_double_eq_tol(leaf.down_bw, 1200e9, 1);  /* a third goes up */
	fixture_release(&fx);
}
END_TEST

/* collectives.md §3: radix-k three-level fat-tree: k^3/4 hosts, 5k^2/4 switches. */
START_TEST(fat_tree_k)
{
	fixture fx;
	load_ok(&fx, "specs/fat-tree-k8.yaml", NULL);
	ck_assert_int_eq(fx.f.ndev, 8 * 8 * 8 / 4);
	ck_assert_int_eq(fx.f.nsw, 5 * 8 * 8 / 4);
	ck_assert_int_eq(role_chips(&fx.f, "core"), 16);
	ck_assert_int_eq(fx_fabric_links(&fx.f), 3 * 128);
	fixture_release(&fx);
	const char *k4[] = {"fabric.k=4", NULL};
	load_ok(&fx, "specs/fat-tree-k8.yaml", k4);
	ck_assert_int_eq(fx.f.ndev, 16);  /* collectives.md §6 check 8: k=4 -> 16 hosts */
	ck_assert_int_eq(fx.f.nsw, 20);
	fixture_release(&fx);
}
END_TEST

/* hardware.md §2-3: HGX H100 (18 links as 5/4/4/5 over 4 chips), GB200
 * NVL72 (18 x 72-port chips, 36 Grace CPUs), and the 256-GPU NVLink Switch
 * System (72 uplinks per node over 36 spine chips of 64 ports). */
START_TEST(nvswitch_systems)
{
	fixture fx;
	load_ok(&fx, "specs/hgx-h100.yaml", NULL);
	ck_assert_int_eq(fx.f.ndev, 8);
	ck_assert_int_eq(fx.f.nsw, 4);
	ck_assert_int_eq(fx_fabric_links(&fx.f), 8 * 18);
	fx_role_stat s = role_stat(&fx.f, "nvswitch");
	ck_assert_int_eq(s.min_ports, 32);
	ck_assert_int_eq(s.max_ports, 40);
	ck_assert_double_eq_tol(fx_fabric_ports(&fx.f, 0) * fx.f.e[0].bw, 450e9, 1);  /* §6.1.2 */
	fixture_release(&fx);

	load_ok(&fx, "specs/nvl72.yaml", NULL);
	ck_assert_int_eq(fx.f.ndev, 72);
	ck_assert_int_eq(fx.f.nsw, 18);
	ck_assert_int_eq(fx.f.ncpu, 36);
	ck_assert_int_eq(role_stat(&fx.f, "nvswitch").max_ports, 72);
	ck_assert_int_eq(fx.f.nnodes, 18);  /* compute trays */
	fixture_release(&fx);

	load_ok(&fx, "specs/dgx-h100-256.yaml", NULL);
	ck_assert_int_eq(fx.f.ndev, 256);
	ck_assert_int_eq(role_chips(&fx.f, "nvswitch-l1"), 128);
	ck_assert_int_eq(role_chips(&fx.f, "nvswitch-l2"), 36);
	s = role_stat(&fx.f, "nvswitch-l2");
	ck_assert_int_eq(s.min_ports, 64);
	ck_assert_int_eq(s.max_ports, 64);
	ck_assert_int_eq(fx_fabric_links(&fx.f), 256 * 18 + 32 * 72);
	fixture_release(&fx);
}
END_TEST

START_TEST(wafer_and_custom)
{
	fixture fx;
	load_ok(&fx, "specs/wse2.yaml", NULL);
	ck_assert_int_eq(fx.f.ndev, 757 * 996);
	ck_assert_int_eq(fx_fabric_links(&fx.f), 757 * 995 + 996 * 756);
	ck_assert_double_eq(fx.f.state.wafer.pe_memory, 48 * 1024);
	ck_assert_int_eq(fx.f.state.wafer.routes_per_pe, 24);
	ck_assert_int_eq(fx.f.e[0].medium, FX_MEDIUM_SILICON);
	fixture_release(&fx);

	load_ok(&fx, "specs/dgx1.yaml", NULL);
	ck_assert_int_eq(fx.f.ndev, 8);
	for (int64_t v = 0; v < 8; v++)
		ck_assert_int_eq(fx_fabric_ports(&fx.f, v), 6);  /* hardware.md §3: 6 NVLinks per V100 */
	fixture_release(&fx);
}
END_TEST

/* Every builder in the registry builds a small fabric whose counts match
 * what its size() promised, and whose devices come first. */
START_TEST(registry_walk)
{
	static const struct { const char *kind, *yaml; } ex[] = {
		{"torus", "fabric: {kind: torus, dims: [3, 2, 4], wrap: [true, false, true], "
			  "links_per_neighbor: 2, link: {bandwidth: 1 GB/s, latency: 1 ns}}"},
		{"mesh", "fabric: {kind: mesh, dims: [5, 3], link: {bandwidth: 1 GB/s, latency: 1 ns}}"},
		{"fat-tree", "fabric: {kind: fat-tree, tiers: 3, radix: 8, hosts: 32, down_up: [[4, 4], "
			     "[2, 2]], link: {bandwidth: 1 GB/s, latency: 1 ns}}"},
		{"nvswitch", "fabric: {kind: nvswitch, nodes: 2, devices: 4, switches: 2, switch_ports: 8, "
			     "device_links: 2, uplinks_per_switch: 2, spine_switches: 2, spine_ports: 4, "
			     "cpus: 1, cpu_link: {bandwidth: 1 GB/s, latency: 1 ns}, "
			     "link: {bandwidth: 1 GB/s, latency: 1 ns}}"},
		{"ub", "fabric: {kind: ub, nodes: 4, devices_per_node: 2, cpus_per_node: 1, l1_per_node: 2, "
		       "planes: 2, l2_per_plane: 3, l2_ports: 4, link: {bandwidth: 1 GB/s, latency: 1 ns}}"},
		{"wafer-mesh", "fabric: {kind: wafer-mesh, grid: [6, 4], pe_memory: 48 KB, hop_latency: 1 ns, "
			       "routing_latency: 10 ns, routes_per_pe: 24, link: {bandwidth: 4 GB/s}}"},
		{"dragonfly", "fabric: {kind: dragonfly, p: 2, a: 4, h: 2, g: 5, "
			      "link: {bandwidth: 1 GB/s, latency: 1 ns}}"},
		{"dragonfly", "fabric: {kind: dragonfly, group: leaf-spine, p: 2, a: 2, leaves: 3, h: 2, "
			      "link: {bandwidth: 1 GB/s, latency: 1 ns}}"},
		{"slimfly", "fabric: {kind: slimfly, q: 4, p: 2, link: {bandwidth: 1 GB/s, latency: 1 ns}}"},
		{"hyperx", "fabric: {kind: hyperx, dims: [3, 2, 2], links_per_neighbor: [2, 1, 1], t: 2, "
			   "link: {bandwidth: 1 GB/s, latency: 1 ns}}"},
		{"custom", "fabric: {kind: custom, link: {bandwidth: 1 GB/s, latency: 1 ns}, nodes: "
			   "[{name: s, type: switch, ports: 3}, {name: a, type: device}, {name: c, type: cpu}, "
			   "{name: b, type: device}], links: [{a: a, b: s}, {a: s, b: b}, {a: c, b: a}]}"},
		{"rail-clos", "fabric: {kind: rail-clos, servers: 8, rails: 2, servers_per_leaf: 4, "
			      "planes: 2, tiers: 3, sus_per_pod: 1, taper: 2, radix: 8, "
			      "link: {bandwidth: 1 GB/s, latency: 1 ns}}"},
		{"composite", "fabric: {kind: composite, domains: 2, domain: {kind: nvswitch, devices: 2, "
			      "switches: 1, switch_ports: 4, device_links: 1, cpus: 1, cpu_link: {bandwidth: "
			      "1 GB/s, latency: 1 ns}, link: {bandwidth: 1 GB/s, latency: 1 ns}}, network: "
			      "{kind: rail-clos, servers: 2, rails: 2, servers_per_leaf: 1, radix: 4, "
			      "link: {bandwidth: 1 GB/s, latency: 1 ns}}}"},
	};
	int seen = 0;
	for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
		fixture fx;
		ck_assert_msg(fixture_load(&fx, ex[i].kind, ex[i].yaml, NULL) == 0, "%s: %s", ex[i].kind, fx.msg);
		ck_assert_str_eq(fx.f.builder->kind, ex[i].kind);
		void *params = calloc(1, fx.f.builder->params_size);
		fx_diag d;
		fx_diag_init(&d);
		ck_assert_int_eq(fx.f.builder->parse(&d, fx_snode_get(fx.s.root, "fabric"), params), 0);
		fx_fabric_size sz = {0};
		fx.f.builder->size(params, &sz);
		if (fx.f.builder->release)
			fx.f.builder->release(params);
		free(params);
		fx_diag_release(&d);
		ck_assert_int_eq(sz.devices, fx.f.ndev);
		ck_assert_int_eq(sz.switches, fx.f.nsw);
		ck_assert_int_eq(sz.cpus, fx.f.ncpu);
		ck_assert_int_eq(sz.edges, fx.f.ne);
		for (int64_t v = 0; v < fx.f.nv; v++)
			ck_assert_int_eq(fx.f.v[v].type == FX_V_DEVICE, v < fx.f.ndev);
		for (int64_t e = 0; e < fx.f.ne; e++)
			ck_assert(fx.f.ends[2 * e] < fx.f.ends[2 * e + 1]);
		fixture_release(&fx);
		seen++;
	}
	ck_assert_int_eq(seen, (int)(sizeof ex / sizeof ex[0]));
	for (const fx_builder *const *b = fx_builders; *b; b++) {  /* a new kind needs an example here */
		int has = 0;
		for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++)
			has |= strcmp(ex[i].kind, (*b)->kind) == 0;
		ck_assert_msg(has, "kind '%s' has no example in registry_walk", (*b)->kind);
	}
}
END_TEST

/* Fabrics too large for memory are refused before anything is allocated. */
START_TEST(too_large_refused)
{
	fixture fx;
	const char *sets[] = {"fabric.dims=[40000,40000]", NULL};
	ck_assert_int_eq(fixture_load(&fx, "specs/torus-8x8x8.yaml", NULL, sets), -1);
	ck_assert_msg(strstr(fx.msg, "fabric too large: 1.6e+09 devices") != NULL, "%s", fx.msg);
	fixture_release(&fx);
}
END_TEST

/* Lattice names are written digit by digit; the reference is the
 * snprintf("%s%d") chain they replaced, whole and cut to every length. */
START_TEST(lattice_names_fast)
{
	static const char *const dims[] = {"fabric.dims=[13,1,1000]", "fabric.dims=[3]",
					   "fabric.dims=[10,100,2]", NULL};
	for (int c = 0; dims[c]; c++) {
		fixture fx;
		const char *sets[] = {dims[c], "packaging.devices_per_node=1", NULL};
		load_ok(&fx, "specs/torus-8x8x8.yaml", sets);
		const fx_fabric *f = &fx.f;
		for (int64_t v = 0; v < f->ndev; v += 1 + v % 7) {
			int x[FX_MAX_DIMS];
			char ref[64], got[64];
			size_t used = 0;
			fx_fabric_coords(f, v, x);
			for (int i = 0; i < f->ndims && used < sizeof ref; i++)
				used += (size_t)snprintf(ref + used, sizeof ref - used, "%s%d", i ? "," : "(",
							 x[i]);
			snprintf(ref + used, sizeof ref - used, ")");
			ck_assert_str_eq(fx_fabric_vertex_name(f, v, got, sizeof got), ref);
			for (size_t len = 1; len <= strlen(ref) + 1; len++) {
				char cut[64];
				memset(cut, 'x', sizeof cut);
				fx_fabric_vertex_name(f, v, cut, len);
				ck_assert_int_eq(strlen(cut), len - 1);
				ck_assert_int_eq(strncmp(cut, ref, len - 1), 0);
			}
		}
		fixture_release(&fx);
	}
}
END_TEST

/* A whole lattice skips igraph's connectivity search at build
 * (fabric.c, lattice_whole): the search agrees on every shape tried. */
START_TEST(lattice_connected_without_search)
{
	static const char *const dims[] = {"fabric.dims=[1,1,5]", "fabric.dims=[2,2,2]",
					   "fabric.dims=[3,1,4]", "fabric.dims=[7]", NULL};
	for (int c = 0; dims[c]; c++) {
		fixture fx;
		const char *sets[] = {dims[c], "packaging.devices_per_node=1", "fabric.kind=mesh", NULL};
		for (int mesh = 0; mesh < 2; mesh++) {
			if (mesh == 0)
				sets[2] = NULL;
			else
				sets[2] = "fabric.kind=mesh";
			load_ok(&fx, "specs/torus-8x8x8.yaml", sets);
			igraph_bool_t conn = 0;
			ck_assert_int_eq(igraph_is_connected(&fx.f.g, &conn, IGRAPH_WEAK), IGRAPH_SUCCESS);
			ck_assert_msg(conn, "%s: not connected", dims[c]);
			fixture_release(&fx);
		}
	}
	fixture fx;
	const char *wafer[] = {"fabric.grid=[9,4]", NULL};
	load_ok(&fx, "specs/wse2.yaml", wafer);
	igraph_bool_t conn = 0;
	ck_assert_int_eq(igraph_is_connected(&fx.f.g, &conn, IGRAPH_WEAK), IGRAPH_SUCCESS);
	ck_assert(conn);
	fixture_release(&fx);
}
END_TEST

Suite *suite_fabric(void)
{
	Suite *s = suite_create("fabric");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, torus_vs_switched_64);
	tcase_add_test(tc, cloudmatrix384);
	tcase_add_test(tc, leaf_spine_splits);
	tcase_add_test(tc, fat_tree_k);
	tcase_add_test(tc, nvswitch_systems);
	tcase_add_test(tc, wafer_and_custom);
	tcase_add_test(tc, registry_walk);
	tcase_add_test(tc, too_large_refused);
	tcase_add_test(tc, lattice_names_fast);
	tcase_add_test(tc, lattice_connected_without_search);
	suite_add_tcase(s, tc);
	return s;
}
