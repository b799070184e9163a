/* Composite fabrics (fabric/topo_composite.c): scale-up domains joined by a
 * scale-out network through the devices' NICs, against the chapter
 * "Supernodes" and hand counts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../placement/placement.h"
#include "../../power/power.h"
#include "../../routing/routing.h"
#include "helpers.h"

#define MIB (1024.0 * 1024.0)

/* The spec's collective over ranks 0 .. n-1 (n = 0: every device) with its
 * own time model (collective:), under policy pol. */
static double spec_coll(const fixture *fx, const char *pattern, const char *algo, double size,
			int64_t n, fx_route_policy pol, fx_coll_result *keep)
{
	const fx_fabric *f = &fx->f;
	if (n == 0)
		n = f->ndev;
	int64_t *ranks = malloc((size_t)n * sizeof *ranks);
	for (int64_t i = 0; i < n; i++)
		ranks[i] = i;
	fx_coll_time tm;
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_coll_time_parse(&d, &fx->s, &tm), 0);
	tm.policy = pol;
	fx_coll_req q = {pattern, algo, ranks, n, size, 0};
	fx_router *r = fx_router_new(f, 0);
	fx_coll_result res;
	ck_assert_int_eq(fx_coll_run(f, r, &q, &tm, &res, &d), 0);
	double t = res.time;
	if (keep)
		*keep = res;
	else
		fx_coll_result_release(&res);
	fx_router_free(r);
	fx_diag_release(&d);
	free(ranks);
	return t;
}

/* specs/hgx-h100-x2-rail.yaml by hand: 16 GPUs; 2 x 4 NVSwitch chips, 8 rail
 * leaves, 2 spines = 18 switches; links 2 x 8 x 18 NVLinks + 16 NICs + 8
 * leaves x 2 uplinks = 320.  GPU j of either server is on rail j's leaf. */
START_TEST(hgx_x2_structure)
{
	fixture fx;
	load_ok(&fx, "specs/hgx-h100-x2-rail.yaml", NULL);
	const fx_fabric *f = &fx.f;
	ck_assert_int_eq(f->ndev, 16);
	ck_assert_int_eq(f->nsw, 18);
	ck_assert_int_eq(fx_fabric_links(f), 320);
	ck_assert_int_eq(f->nnodes, 2);
	ck_assert_int_eq(f->ndomains, 2);
	ck_assert_int_eq(f->nnics, 16);
	ck_assert_int_eq(f->nic_ports, 1);
	ck_assert_str_eq(f->roles[0].name, "nvswitch");
	ck_assert_str_eq(f->roles[1].name, "leaf");
	ck_assert_int_eq(f->roles[1].tier, 2);
	int64_t out = 0;
	for (int64_t e = 0; e < f->ne; e++)
		out += f->e[e].scale_out ? f->e[e].count : 0;
	ck_assert_int_eq(out, 32);
	for (int64_t i = 0; i < 16; i++) {
		int64_t e = f->nic_edge0 + i;
		ck_assert_int_eq(f->ends[2 * e], i);  /* NIC i is GPU i's */
		ck_assert_int_eq(f->domain_of[i], i / 8);
		/* leaves run rail by rail: GPU j of both servers on leaf j */
		ck_assert_int_eq(f->ends[2 * e + 1] - f->roles[1].first - f->ndev, i % 8);
		ck_assert_double_eq(f->e[e].bw, 48.94e9);
	}
	fixture_release(&fx);
}
END_TEST

/*
 * The chapter "Supernodes" §6.5.1: TP16 across two HGX H100 servers; if the
 * 16 cards form a ring, every round waits on the hop across the NIC, the
 * InfiniBand one-way latency of 3.76 us (MSCCL++, note 9), and one
 * reduction takes 30 rounds, "roughly 113 us".  Each round also moves a
 * 10 KiB / 16 = 640 B chunk over the NIC's measured 48.94 GB/s: 30 x
 * (3.76 us + 13.1 ns) = 113.19 us.  The same ring inside one server is the
 * chapter's 11.55 us: 14 x (0.822 us + 1,280 B / 450 GB/s).
 */
START_TEST(ring_113us_section_6_5_1)
{
	fixture fx;
	load_ok(&fx, "specs/hgx-h100-x2-rail.yaml", NULL);
	double t16 = spec_coll(&fx, "allreduce", "ring", 10 * 1024, 16, FX_ROUTE_SPLIT, NULL);
	ck_assert_double_eq_tol(t16, 30 * (3.76e-6 + 640 / 48.94e9), 1e-12);
	ck_assert_double_eq_tol(t16 * 1e6, 113.2, 0.05);
	double t8 = spec_coll(&fx, "allreduce", "ring", 10 * 1024, 8, FX_ROUTE_SPLIT, NULL);
	ck_assert_double_eq_tol(t8, 14 * (0.822e-6 + 1280 / 450e9), 1e-12);
	ck_assert_double_eq_tol(t8 * 1e6, 11.55, 0.005);
	fixture_release(&fx);
}
END_TEST

/*
 * A flow between two devices of one domain stays in it, even where a leaf
 * is as near as an NVSwitch chip: two domains of 4 GPUs on 2 chips (2
 * links each, 50 GB/s), their NICs 4 to a leaf of a fat-tree.  An
 * all-to-all of 32 MiB among domain 0's GPUs loads no scale-out link and
 * takes what the domain alone takes: each GPU's 3 flows of 32 MiB / 3 over
 * its 2 links of 50 GB/s (the NIC would have offered a third path).
 */
START_TEST(domain_flows_stay_inside)
{
	static const char *const spec =
		"name: two\nfabric:\n  kind: composite\n  domains: 2\n"
		"  domain: {kind: nvswitch, devices: 4, switches: 2, switch_ports: 8, device_links: 2,\n"
		"           link: {bandwidth: 50 GB/s, latency: 0 ns}}\n"
		"  network: {kind: fat-tree, tiers: 2, radix: 8, hosts: 8, down_up: [4, 4], spines: 2,\n"
		"            link: {bandwidth: 50 GB/s, latency: 0 ns}}\n";
	fixture fx;
	ck_assert_msg(fixture_load(&fx, "two.yaml", spec, NULL) == 0, "%s", fx.msg);
	fx_coll_result res;
	double t = spec_coll(&fx, "all-to-all", "direct", 32 * MIB, 4, FX_ROUTE_SPLIT, &res);
	ck_assert_double_eq_tol(t, 32 * MIB / 100e9, 1e-15);
	for (int64_t l = 0; l < 2 * fx.f.ne; l++)
		if (fx.f.e[l / 2].scale_out)
			ck_assert_double_eq(res.link_bytes[l], 0);
	fx_coll_result_release(&res);
	/* and across the domains, through the NICs: GPU i's 4 flows to the
	 * other domain (4 x 32 MiB / 7) leave over its NIC of 50 GB/s */
	t = spec_coll(&fx, "all-to-all", "direct", 32 * MIB, 0, FX_ROUTE_SPLIT, NULL);
	ck_assert_double_eq_tol(t, 4 * 32 * MIB / 7 / 50e9, 1e-15);
	fixture_release(&fx);
}
END_TEST

/*
 * All-to-all of 32 MiB over the two HGX servers: a GPU sends 8 of its 15
 * flows (32 MiB / 15 each) to the other server over its one NIC of 48.94
 * GB/s, the busiest link: 8 x 32 MiB / 15 / 48.94 GB/s + 3.76 us.  Under
 * split ECMP the flows between rails go over the spines; under pxn (NCCL's
 * PXN: first over NVLink to the GPU on the destination's rail) and rail
 * (over the source's rail, then NVLink) no byte touches a spine, and the
 * NICs carry the same.
 */
START_TEST(pxn_and_rail_keep_the_network_on_its_rails)
{
	fixture fx;
	load_ok(&fx, "specs/hgx-h100-x2-rail.yaml", NULL);
	const fx_fabric *f = &fx.f;
	double want = 8 * 32 * MIB / 15 / 48.94e9 + 3.76e-6;
	static const fx_route_policy pols[] = {FX_ROUTE_SPLIT, FX_ROUTE_PXN, FX_ROUTE_RAIL};
	for (int k = 0; k < 3; k++) {
		fx_coll_result res;
		double t = spec_coll(&fx, "all-to-all", "direct", 32 * MIB, 0, pols[k], &res);
		ck_assert_msg(fabs(t - want) <= 1e-12, "%s: %.9g s, want %.9g", fx_route_policy_name(pols[k]),
			      t, want);
		double spine = 0;
		for (int64_t l = 0; l < 2 * f->ne; l++) {
			int64_t a = f->ends[2 * (l / 2)], b = f->ends[2 * (l / 2) + 1];
			if (f->v[a].role == 2 || f->v[b].role == 2)
				spine += res.link_bytes[l];
		}
		if (pols[k] == FX_ROUTE_SPLIT)
			ck_assert(spine > 0);
		else
			ck_assert_double_eq(spine, 0);
		/* every NIC carries 8 flows out and 8 in */
		for (int64_t i = 0; i < 16; i++)
			for (int dir = 0; dir < 2; dir++)
				ck_assert_double_eq_tol(res.link_bytes[2 * (f->nic_edge0 + i) + dir],
							8 * 32 * MIB / 15, 1e-3);
		fx_coll_result_release(&res);
	}
	fixture_release(&fx);
}
END_TEST

/* Capped builds: whole domains, the network to the smallest of its own
 * builds that holds the NICs (a two-tier fat-tree by leaves of 32 hosts:
 * 144 NICs need 5 leaves, 160 hosts); the overrides build. */
START_TEST(shrink_by_domains)
{
	fixture fx;
	load_ok(&fx, "specs/nvl72-x8.yaml", NULL);
	fx_shrink s;
	ck_assert_int_eq(fx_fabric_shrink(&fx.f, &fx.s, 150, &s), 0);
	ck_assert_int_eq(s.devices, 144);
	ck_assert_int_eq(s.nsets, 2);
	ck_assert_str_eq(s.set[0], "fabric.domains=2");
	ck_assert_str_eq(s.set[1], "fabric.network.hosts=160");
	const char *sets[] = {s.set[0], s.set[1], NULL};
	fixture small;
	load_ok(&small, "specs/nvl72-x8.yaml", sets);
	ck_assert_int_eq(small.f.ndev, 144);
	ck_assert_int_eq(small.f.nnics, 144);
	fixture_release(&small);
	fixture_release(&fx);
	/* a rail-clos of one scalable unit of 8 servers cannot shrink: it stays */
	load_ok(&fx, "specs/hgx-h100-x8-rail.yaml", NULL);
	ck_assert_int_eq(fx_fabric_shrink(&fx.f, &fx.s, 47, &s), 0);
	ck_assert_int_eq(s.devices, 40);
	ck_assert_int_eq(s.nsets, 1);
	ck_assert_str_eq(s.set[0], "fabric.domains=5");
	fixture_release(&fx);
}
END_TEST

/* A NIC or a spine failed: GPU 0 without its NIC still reaches its own
 * server, but the rest of the fabric no longer reaches it both ways, so it
 * is cut off (1 device); the bisection loses that NIC (7 x 48.94 GB/s).
 * A spine failed leaves the bisection whole (the NICs bind). */
START_TEST(fail_a_nic_or_a_spine)
{
	fixture fx;
	load_ok(&fx, "specs/hgx-h100-x2-rail.yaml", NULL);
	fx_fabric *f = &fx.f;
	fx_diag d;
	fx_diag_init(&d);
	uint8_t reach[16];
	fx_cut b;
	ck_assert_int_eq(fx_fabric_fail(f, "nic=0", "--fail", &d), 0);
	ck_assert_int_eq(fx_fabric_reachable(f, reach), 15);
	ck_assert_int_eq(reach[0], 0);
	ck_assert_int_eq(fx_route_bisection(f, &b, &d), 0);
	ck_assert_double_eq_tol(b.bandwidth, 7 * 48.94e9, 1);
	fx_fabric_fail_clear(f);
	char sel[32];
	snprintf(sel, sizeof sel, "switch=%lld", (long long)(f->nsw - 1));  /* the last spine */
	ck_assert_int_eq(fx_fabric_fail(f, sel, "--fail", &d), 0);
	ck_assert_int_eq(fx_fabric_reachable(f, reach), 16);
	ck_assert_int_eq(fx_route_bisection(f, &b, &d), 0);
	ck_assert_double_eq_tol(b.bandwidth, 8 * 48.94e9, 1);
	fx_hops h;
	ck_assert_int_eq(fx_route_hops(f, &h, &d), 0);
	ck_assert_int_eq(h.diameter, 4);
	fx_hops_release(&h);
	fx_fabric_fail_clear(f);
	d.max_shown = 0;  /* the message is the CLI tests' */
	ck_assert_int_ne(fx_fabric_fail(f, "nic=16", "--fail", &d), 0);
	fx_diag_release(&d);
	fixture_release(&fx);
}
END_TEST

/*
 * specs/nvl72-x8.yaml's power by hand: 8 racks of nvl72.yaml's 18 trays x
 * 5.4 kW + 18 chips x 1.27 kW = 960.48 kW; 18 leaves + 16 spines x 250 W =
 * 8.5 kW; 576 NIC links + 18 x 32 leaf uplinks = 1,152 optical links x 2
 * modules x 9 W = 20.736 kW: 989.716 kW.  Place's racks are power's.
 */
START_TEST(power_and_place_agree)
{
	fixture fx;
	load_ok(&fx, "specs/nvl72-x8.yaml", NULL);
	fx_diag d;
	fx_diag_init(&d);
	fx_power_config pc;
	ck_assert_int_eq(fx_power_parse(&d, &fx.s, &pc), 0);
	fx_power_plan plan;
	ck_assert_int_eq(fx_power_plan_build(&pc, &fx.f, fx.f.nnodes, &plan, &d), 0);
	ck_assert_double_eq_tol(plan.parts.total, 989716, 1e-6);
	fx_power_rack racks[8];
	uint8_t used[144];
	memset(used, 1, sizeof used);
	fx_power_racks_used(&pc, &fx.f, used, racks);
	for (int r = 0; r < 8; r++) {
		ck_assert_double_eq_tol(racks[r].watts, plan.rack[r].watts, 1e-6);
		ck_assert_int_eq(racks[r].liquid, plan.rack[r].liquid);
		ck_assert_int_eq(racks[r].liquid, 1);  /* power.cooling: liquid */
	}
	fx_power_plan_release(&plan);
	fx_diag_release(&d);
	fixture_release(&fx);
}
END_TEST

/* Bad composites are refused at their keys. */
START_TEST(bad_composites)
{
	static const struct { const char *fabric, *msg; } bad[] = {
		{"{kind: composite, domains: 3, domain: {kind: nvswitch, devices: 4, switches: 1, "
		 "switch_ports: 4, device_links: 1, link: {bandwidth: 1 GB/s, latency: 0 ns}}, network: "
		 "{kind: fat-tree, tiers: 2, radix: 8, hosts: 8, down_up: [4, 4], link: {bandwidth: 1 GB/s, "
		 "latency: 0 ns}}}", "has 8 host ports, but the 12 NICs"},
		{"{kind: composite, domains: 2, domain: {kind: composite}, network: {kind: fat-tree}}",
		 "'fabric.domain.kind' cannot be composite"},
		{"{kind: composite, domains: 2, domain: {kind: nvswitch, devices: 2, switches: 1, "
		 "switch_ports: 4, device_links: 1, link: {bandwidth: 1 GB/s, latency: 0 ns}}, network: "
		 "{kind: torus, dims: [4], link: {bandwidth: 1 GB/s, latency: 0 ns}}}",
		 "'fabric.network.kind' must be a switched kind"},
		{"{kind: composite, domains: 1, nics: {hosts: [0, 0]}, domain: {kind: nvswitch, devices: 2, "
		 "switches: 1, switch_ports: 4, device_links: 1, link: {bandwidth: 1 GB/s, latency: 0 ns}}, "
		 "network: {kind: fat-tree, tiers: 2, radix: 8, hosts: 2, down_up: [2, 2], link: {bandwidth: "
		 "1 GB/s, latency: 0 ns}}}", "'fabric.nics.hosts[1]' must be a host of the domain's block"},
		{"{kind: composite, domains: 1, nics: {per_device: 0}, domain: {kind: mesh, dims: [2], link: "
		 "{bandwidth: 1 GB/s, latency: 0 ns}}, network: {kind: fat-tree, tiers: 2, radix: 8, hosts: 2, "
		 "down_up: [2, 2], link: {bandwidth: 1 GB/s, latency: 0 ns}}}", "'fabric.nics.per_device'"},
		{"{kind: composite, domain: {kind: mesh, dims: [2], link: {bandwidth: 1 GB/s, latency: 0 ns}}}",
		 "missing key 'fabric.domains'"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char text[2048];
		snprintf(text, sizeof text, "name: bad\nfabric: %s\n", bad[i].fabric);
		fixture fx;
		ck_assert_int_ne(fixture_load(&fx, "bad.yaml", text, NULL), 0);
		ck_assert_msg(strstr(fx.msg, bad[i].msg) && strstr(fx.msg, "bad.yaml:"), "%zu: %s", i, fx.msg);
		fixture_release(&fx);
	}
}
END_TEST

/* A torus domain (devices relay) with a NIC on every chip: a flow inside a
 * pod takes the torus, not the 2-hop way through a leaf; hop counts say
 * the same (4 chips on a ring: 1 or 2 hops inside, 2 hops across). */
START_TEST(torus_domains)
{
	static const char *const spec =
		"name: pods\nfabric:\n  kind: composite\n  domains: 2\n"
		"  domain: {kind: torus, dims: [4], link: {bandwidth: 100 GB/s, latency: 0 ns}}\n"
		"  network: {kind: fat-tree, tiers: 2, radix: 16, hosts: 8, down_up: [8, 8], spines: 1,\n"
		"            link: {bandwidth: 10 GB/s, latency: 0 ns}}\n";
	fixture fx;
	ck_assert_msg(fixture_load(&fx, "pods.yaml", spec, NULL) == 0, "%s", fx.msg);
	fx_diag d;
	fx_diag_init(&d);
	fx_hops h;
	ck_assert_int_eq(fx_route_hops(&fx.f, &h, &d), 0);
	/* inside: each chip 2 partners at 1 hop, 1 at 2; across: 4 at 2 */
	ck_assert_double_eq(h.hist[1], 8 * 2);
	ck_assert_double_eq(h.hist[2], 8 * 1 + 8 * 4);
	fx_hops_release(&h);
	fx_coll_result res;
	spec_coll(&fx, "all-to-all", "direct", 32 * MIB, 4, FX_ROUTE_SPLIT, &res);
	for (int64_t l = 0; l < 2 * fx.f.ne; l++)
		if (fx.f.e[l / 2].scale_out)
			ck_assert_double_eq(res.link_bytes[l], 0);
	fx_coll_result_release(&res);
	fx_diag_release(&d);
	fixture_release(&fx);
}
END_TEST


/* Every command on every kind (issue 27 item 5). */

/* A torus packaged in rack_shape cubes shrinks by whole cubes' slabs: the
 * TPU v4 pod (16^3, cubes of 4^3, trays of 2x2x1) under 1,562 chips takes
 * 16 x 16 x 4 = 1,024, which builds (a 16 x 16 x 6 slab would not). */
START_TEST(torus_shrinks_by_racks)
{
	fixture fx;
	load_ok(&fx, "tests/specs/tpu-v4-pod.yaml", NULL);
	fx_shrink s;
	ck_assert_int_eq(fx_fabric_shrink(&fx.f, &fx.s, 1562, &s), 0);
	ck_assert_int_eq(s.devices, 1024);
	ck_assert_str_eq(s.set[0], "fabric.dims=[16,16,4]");
	const char *sets[] = {s.set[0], NULL};
	fixture small;
	load_ok(&small, "tests/specs/tpu-v4-pod.yaml", sets);
	fixture_release(&small);
	ck_assert_int_eq(fx_fabric_shrink(&fx.f, &fx.s, 1000, &s), 0);
	ck_assert_int_eq(s.devices, 0);  /* less than one slab of cubes */
	fixture_release(&fx);
}
END_TEST

/* A custom graph shrinks by the blocks it declares: 4 switches, each with
 * 2 devices of its node; blocks of 2 devices, the spine in none. */
static const char *const blocks =
	"name: blocks\nfabric:\n  kind: custom\n  increment: node\n"
	"  link: {bandwidth: 1 GB/s, latency: 1 ns}\n  nodes:\n"
	"    - {name: d0, type: device, node: 0}\n    - {name: d1, type: device, node: 0}\n"
	"    - {name: d2, type: device, node: 1}\n    - {name: d3, type: device, node: 1}\n"
	"    - {name: d4, type: device, node: 2}\n    - {name: d5, type: device, node: 2}\n"
	"    - {name: l0, type: switch, node: 0}\n    - {name: l1, type: switch, node: 1}\n"
	"    - {name: l2, type: switch, node: 2}\n    - {name: top, type: switch}\n"
	"  links:\n    - {a: d0, b: l0}\n    - {a: d1, b: l0}\n    - {a: d2, b: l1}\n"
	"    - {a: d3, b: l1}\n    - {a: d4, b: l2}\n    - {a: d5, b: l2}\n"
	"    - {a: l0, b: top}\n    - {a: l1, b: top}\n    - {a: l2, b: top}\n";

START_TEST(custom_shrinks_by_blocks)
{
	fixture fx;
	ck_assert_int_eq(fixture_load(&fx, "blocks.yaml", blocks, NULL), 0);
	fx_shrink s;
	ck_assert_int_eq(fx_fabric_shrink(&fx.f, &fx.s, 5, &s), 0);
	ck_assert_int_eq(s.devices, 4);
	ck_assert_str_eq(s.set[0], "fabric.blocks=2");
	const char *sets[] = {s.set[0], NULL};
	fixture small;
	ck_assert_int_eq(fixture_load(&small, "blocks.yaml", blocks, sets), 0);
	ck_assert_int_eq(small.f.ndev, 4);
	ck_assert_int_eq(small.f.nsw, 3);  /* l0, l1 and the spine */
	ck_assert_int_eq(small.f.ne, 6);
	fixture_release(&small);
	const char *none[] = {"fabric.increment=", NULL};
	fixture_release(&fx);
	ck_assert_int_ne(fixture_load(&fx, "blocks.yaml", blocks, none), 0);
	fixture_release(&fx);
	const char *plain[] = {"fabric.increment=group", NULL};
	ck_assert_int_eq(fixture_load(&fx, "blocks.yaml", blocks, plain), 0);
	ck_assert_int_eq(fx_fabric_shrink(&fx.f, &fx.s, 5, &s), -1);
	ck_assert_msg(strstr(s.rule, "no vertex has a 'group'"), "%s", s.rule);
	fixture_release(&fx);
}
END_TEST

/* Switch chips inside nodes with a power figure count on top of
 * power.node (a router given 50 W is never dropped): the blocks graph's
 * three leaves sit in nodes, the spine outside.  3 nodes x (1 kW + 50 W)
 * + the spine's 50 W = 3.2 kW. */
START_TEST(power_counts_chips_in_nodes)
{
	const char *sets[] = {"power.node=1kW", "power.switch=50W", NULL};
	fixture fx;
	ck_assert_int_eq(fixture_load(&fx, "blocks.yaml", blocks, sets), 0);
	fx_diag d;
	fx_diag_init(&d);
	fx_power_config pc;
	ck_assert_int_eq(fx_power_parse(&d, &fx.s, &pc), 0);
	ck_assert_double_eq_tol(fx_power_node(&pc, &fx.f), 1050, 1e-9);
	ck_assert_double_eq_tol(fx_power_of(&pc, &fx.f, 3).total, 3200, 1e-9);
	fx_diag_release(&d);
	fixture_release(&fx);
}
END_TEST

/* place's racks and system power are power's for the same nodes (issue
 * 27: place ignored power.cooling, pro-rated switch chips and left optics
 * out): CloudMatrix384 with RoCE, its 24 instances of TP2 x EP8 over all
 * 48 nodes, liquid-cooled racks with their optics; and 12 instances, half
 * the nodes, against `power --nodes 24`. */
START_TEST(place_racks_are_power_racks)
{
	for (int half = 0; half < 2; half++) {
		const char *sets[] = {half ? "workload.instances=12" : "workload.instances=24", NULL};
		fixture fx;
		load_ok(&fx, "specs/cm384-roce.yaml", sets);
		fx_workload w;
		fx_power_config pc;
		ck_assert_int_eq(fx_workload_place_parse(&fx.d, &fx.s, NULL, &w), 0);
		ck_assert_int_eq(fx_power_parse(&fx.d, &fx.s, &pc), 0);
		fx_place_opts o = {.time_limit = 1000};
		ck_assert_int_eq(fx_coll_time_parse(&fx.d, &fx.s, &o.tm), 0);
		fx_placement p;
		ck_assert_int_eq(fx_place(&fx.f, &w, &pc, &o, &p, &fx.d), 0);
		int64_t n = half ? 24 : 48;
		ck_assert_int_eq(p.nodes_used, n);
		fx_power_plan plan;
		ck_assert_int_eq(fx_power_plan_build(&pc, &fx.f, n, &plan, &fx.d), 0);
		ck_assert_double_eq_tol(p.watts, plan.parts.total, 1e-6);
		for (int64_t r = 0; r < plan.compute_racks; r++) {
			ck_assert_double_eq_tol(p.rack[r].watts, plan.rack[r].watts, 1e-6);
			ck_assert_int_eq(p.rack[r].liquid, plan.rack[r].liquid);
			ck_assert_int_eq(p.rack[r].liquid, 1);
		}
		fx_power_plan_release(&plan);
		fx_placement_release(&p);
		fixture_release(&fx);
	}
}
END_TEST

Suite *suite_composite(void)
{
	Suite *s = suite_create("composite");
	TCase *tc = tcase_create("composite");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, hgx_x2_structure);
	tcase_add_test(tc, ring_113us_section_6_5_1);
	tcase_add_test(tc, domain_flows_stay_inside);
	tcase_add_test(tc, pxn_and_rail_keep_the_network_on_its_rails);
	tcase_add_test(tc, shrink_by_domains);
	tcase_add_test(tc, fail_a_nic_or_a_spine);
	tcase_add_test(tc, power_and_place_agree);
	tcase_add_test(tc, bad_composites);
	tcase_add_test(tc, torus_domains);
	suite_add_tcase(s, tc);
	TCase *every = tcase_create("every_kind");
	tcase_add_test(every, torus_shrinks_by_racks);
	tcase_add_test(every, custom_shrinks_by_blocks);
	tcase_add_test(every, power_counts_chips_in_nodes);
	tcase_add_test(every, place_racks_are_power_racks);
	suite_add_tcase(s, every);
	return s;
}
