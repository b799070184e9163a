/* The power model against the chapter "Supernodes", §6.5.2 and Experiment 6-7. */
#include <math.h>
#include <string.h>

#include "../../cli/compare.h"
#include "../../power/power.h"
#include "helpers.h"

/* The chapter's example counts only servers (DGX H100 at 10.2 kW max), so the
 * spec's NVLink Switch chips and optics are left out here. */
static fx_power_plan plan(const char *const *sets, int64_t nodes, fx_power_config *pc_out)
{
	fixture fx;
	const char *all[16] = {"power={node: 10.2 kW}"};
	for (int i = 0; sets && sets[i]; i++)
		all[i + 1] = sets[i];
	load_ok(&fx, "specs/dgx-h100-256.yaml", all);
	fx_power_config pc;
	ck_assert_int_eq(fx_power_parse(&fx.d, &fx.s, &pc), 0);
	fx_power_plan p;
	ck_assert_msg(fx_power_plan_build(&pc, &fx.f, nodes, &p, &fx.d) == 0, "plan failed");
	if (pc_out)
		*pc_out = pc;
	fixture_release(&fx);
	return p;
}

/* the chapter, §6.5.2: "Suppose a rack group's power budget is 120 kW; this example
 * counts only servers, taking P0 as 0, allowing at most 11 servers, or 88
 * cards. 64 cards (8 servers) draw 81.6 kW, 72 cards (9 servers) draw
 * 91.8 kW, and 96 cards (12 servers) would need 122.4 kW." (DGX H100 at
 * 10.2 kW max.) */
START_TEST(eq_6_11)
{
	const char *b120[] = {"power.budget=120 kW", NULL};
	fx_power_plan p = plan(b120, -1, NULL);
	ck_assert_int_eq(p.max_nodes, 11);
	ck_assert_int_eq(p.max_devices, 88);
	ck_assert_str_eq(p.limited_by, "power");
	ck_assert_double_eq_tol(p.parts.total, 112.2e3, 1e-6);
	fx_power_plan_release(&p);
	static const struct { int64_t nodes; double kw; } draw[] = {{8, 81.6}, {9, 91.8}, {12, 122.4}};
	for (int i = 0; i < 3; i++) {
		p = plan(NULL, draw[i].nodes, NULL);
		ck_assert_int_eq(p.max_devices, draw[i].nodes * 8);
		ck_assert_double_eq_tol(p.parts.total / 1e3, draw[i].kw, 1e-9);
		fx_power_plan_release(&p);
	}
}
END_TEST

/* the chapter, §6.5.2: "one rack can hold at most 3 DGX H100 units, i.e., 24 cards
 * at 30.6 kW; 4 units would need 40.8 kW" at the 40 kW air threshold. */
START_TEST(air_cooled_rack)
{
	const char *air[] = {"power.budget=120 kW", "power.rack_budget=40 kW", NULL};
	fx_power_plan p = plan(air, -1, NULL);
	ck_assert_int_eq(p.nodes_per_rack, 3);
	ck_assert_double_eq_tol(p.rack[0].watts, 30.6e3, 1e-6);
	ck_assert(!p.rack[0].liquid);
	fx_power_plan_release(&p);
	/* as packaged (4 per rack) a full rack draws 40.8 kW and needs liquid */
	p = plan(NULL, 8, NULL);
	ck_assert_double_eq_tol(p.rack[0].watts, 40.8e3, 1e-6);
	ck_assert(p.rack[0].liquid);
	fx_power_plan_release(&p);
	/* air only, and only two racks: cooling limits the build to 6 servers */
	const char *two[] = {"power.liquid=false", "power.racks=2", NULL};
	p = plan(two, -1, NULL);
	ck_assert_int_eq(p.max_nodes, 6);
	ck_assert_str_eq(p.limited_by, "cooling");
	fx_power_plan_release(&p);
}
END_TEST

/* Experiment 6-7: (a) 150 kW -> 14 servers, 112 cards; (b) past 64 cards a
 * second switching level reserves 10.2 kW -> 10 servers, 80 cards at
 * 120 kW; (c) and installs in groups of four servers -> 64 cards. */
START_TEST(experiment_6_7)
{
	const char *a[] = {"power.budget=150 kW", NULL};
	fx_power_plan p = plan(a, -1, NULL);
	ck_assert_int_eq(p.max_devices, 112);
	fx_power_plan_release(&p);
	const char *b[] = {"power.budget=120 kW", "power.radix_step={devices: 64, power: 10.2 kW}", NULL};
	p = plan(b, -1, NULL);
	ck_assert_int_eq(p.max_devices, 80);
	ck_assert_double_eq_tol(p.parts.total, 112.2e3, 1e-6);
	ck_assert_double_eq_tol(p.parts.step, 10.2e3, 1e-6);
	fx_power_plan_release(&p);
	const char *c[] = {"power.budget=120 kW", "power.radix_step={devices: 64, power: 10.2 kW}",
			   "power.install_nodes=4", NULL};
	p = plan(c, -1, NULL);
	ck_assert_int_eq(p.max_devices, 64);
	ck_assert_str_eq(p.limited_by, "increments");
	fx_power_plan_release(&p);
	/* no budget: the whole build as specified, nothing binds */
	p = plan(NULL, -1, NULL);
	ck_assert_int_eq(p.max_devices, 256);
	ck_assert_str_eq(p.limited_by, "none");
	ck_assert_str_eq(fx_power_limit_text(&p), "as specified (no limit binds)");
	fx_power_plan_release(&p);
}
END_TEST

/* Nothing fits: exit 3 with the binding budget named. */
START_TEST(infeasible_says_why)
{
	fixture fx;
	const char *tiny[] = {"power.budget=5 kW", NULL};
	load_ok(&fx, "specs/dgx-h100-256.yaml", tiny);
	fx_power_config pc;
	ck_assert_int_eq(fx_power_parse(&fx.d, &fx.s, &pc), 0);
	fx_power_plan p;
	ck_assert_int_eq(fx_power_plan_build(&pc, &fx.f, -1, &p, &fx.d), -1);
	ck_assert_int_eq(fx.d.status, FX_EXIT_INFEASIBLE);
	fixture_release(&fx);
}
END_TEST

/* Parts: a node's power from its components when no all-in figure is given. */
START_TEST(node_from_parts)
{
	fixture fx;
	const char *parts[] = {"power={device: 700 W, node_overhead: 4.6 kW}", NULL};
	load_ok(&fx, "specs/hgx-h100.yaml", parts);
	fx_power_config pc;
	ck_assert_int_eq(fx_power_parse(&fx.d, &fx.s, &pc), 0);
	/* 8 x 700 W + 4.6 kW = 10.2 kW, the DGX H100 maximum (the chapter, §6.5.2) */
	ck_assert_double_eq_tol(fx_power_node(&pc, &fx.f), 10.2e3, 1e-9);
	fixture_release(&fx);
}
END_TEST

/* A shipped spec's own plan (no overrides), with its parsed config. */
static fx_power_plan shipped(const char *path, const char *const *sets, int64_t nodes, int *rc)
{
	fixture fx;
	load_ok(&fx, path, sets);
	fx_power_config pc;
	ck_assert_int_eq(fx_power_parse(&fx.d, &fx.s, &pc), 0);
	fx_power_plan p;
	*rc = fx_power_plan_build(&pc, &fx.f, nodes, &p, &fx.d);
	fixture_release(&fx);
	return p;
}

/* hardware.md §1: SemiAnalysis estimates CloudMatrix384 at 559,378 W over
 * 16 racks, 12 liquid-cooled compute racks of 4 nodes and 4 air-cooled
 * bus racks holding the 112 L2 chips (14 boxes of 2 per rack). */
START_TEST(cm384_published_total)
{
	int rc;
	fx_power_plan p = shipped("specs/cm384.yaml", NULL, -1, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(fabs(p.parts.total - 559378) <= 0.05 * 559378, "cm384 draws %.0f W", p.parts.total);
	/* by hand: 48 x 10,420 + 112 x 105 + 5,376 x 8.83 = 559,390.08 W */
	ck_assert_double_eq_tol(p.parts.total, 559390.08, 1e-6);
	ck_assert_double_eq_tol(p.parts.switches, 112 * 105.0, 1e-9);
	ck_assert_double_eq_tol(p.parts.links, 5376 * 8.83, 1e-6);
	ck_assert_int_eq(p.racks, 16);
	ck_assert_int_eq(p.compute_racks, 12);
	for (int64_t r = 0; r < 12; r++) {
		ck_assert(!p.rack[r].network && p.rack[r].liquid);
		ck_assert_int_eq(p.rack[r].nodes, 4);
		/* 4 nodes and the node ends of their 4 x 112 optical links */
		ck_assert_double_eq_tol(p.rack[r].watts, 4 * 10420 + 4 * 112 * 8.83 / 2, 1e-6);
	}
	for (int64_t r = 12; r < 16; r++) {
		ck_assert(p.rack[r].network && !p.rack[r].liquid && !p.rack[r].over_air);
		ck_assert_str_eq(p.rack[r].role, "L2");
		ck_assert_int_eq(p.rack[r].chips, 28);
		/* 28 chips and the L2 ends of their 28 x 48 links */
		ck_assert_double_eq_tol(p.rack[r].watts, 28 * 105 + 28 * 48 * 8.83 / 2, 1e-6);
	}
	ck_assert_str_eq(p.limited_by, "none");
	fx_power_plan_release(&p);
}
END_TEST

/* hardware.md §2: NVIDIA rates the NVL72 rack "up to 120 kW"; ~132 kW is
 * also quoted.  The 9 switch trays (18 chips) sit in the one rack. */
START_TEST(nvl72_published_range)
{
	int rc;
	fx_power_plan p = shipped("specs/nvl72.yaml", NULL, -1, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_msg(p.parts.total >= 120e3 && p.parts.total <= 132e3, "nvl72 draws %.0f W",
		      p.parts.total);
	ck_assert_double_eq_tol(p.parts.switches, 18 * 1270.0, 1e-9);
	ck_assert_int_eq(p.racks, 1);
	ck_assert_int_eq(p.rack[0].chips, 18);
	ck_assert(p.rack[0].liquid);
	ck_assert_double_eq_tol(p.rack[0].watts, p.parts.total, 1e-6);
	fx_power_plan_release(&p);
}
END_TEST

/* hardware.md §3: the DGX H100 is air cooled; 4 per rack draw 40.8 kW
 * plus their optics, over the chapter's 40 kW, and the racks say so. */
START_TEST(dgx_air_cooled)
{
	int rc;
	fx_power_plan p = shipped("specs/dgx-h100-256.yaml", NULL, -1, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(p.compute_racks, 8);
	ck_assert_int_eq(p.racks, 10);
	for (int64_t r = 0; r < p.racks; r++)
		ck_assert_msg(!p.rack[r].liquid, "rack %lld liquid", (long long)r);
	/* 4 x 10.2 kW + 4 x 72 spine links x 8.5 W / 2 = 42.024 kW */
	ck_assert_double_eq_tol(p.rack[0].watts, 42024, 1e-6);
	ck_assert(p.rack[0].over_air);
	/* network racks: 18 chips x 120 W + 18 x 64 links x 8.5 W / 2 */
	ck_assert_double_eq_tol(p.rack[8].watts, 18 * 120 + 18 * 64 * 8.5 / 2, 1e-6);
	ck_assert(!p.rack[8].over_air);
	fx_power_plan_release(&p);
}
END_TEST

/* No power: map, no model: n/a, not 0 kW, and every node. */
START_TEST(no_power_model)
{
	int rc;
	fx_power_plan p = shipped("specs/fat-tree-k8.yaml", NULL, -1, &rc);
	ck_assert_int_eq(rc, 0);
	ck_assert(!p.present);
	ck_assert_int_eq(p.max_devices, 128);
	ck_assert_str_eq(fx_power_limit_text(&p), "n/a (no power model)");
	fx_power_plan_release(&p);
}
END_TEST

/* the chapter, §6.5.2: 12 servers would need 122.4 kW, 2.4 kW over a 120 kW
 * budget; a given build over the budget is flagged, not silently kept. */
START_TEST(given_build_over_budget)
{
	const char *b120[] = {"power.budget=120 kW", NULL};
	fx_power_plan p = plan(b120, 12, NULL);
	ck_assert(p.over_budget);
	ck_assert_double_eq_tol(p.over_watts, 2.4e3, 1e-6);
	fx_power_plan_release(&p);
	p = plan(b120, 11, NULL);
	ck_assert(!p.over_budget);
	fx_power_plan_release(&p);
}
END_TEST

/* A switch role the fabric does not have is bad input at its key. */
START_TEST(unknown_switch_role)
{
	const char *bad[] = {"power.switch={L3: 10 W}", NULL};
	int rc;
	fixture fx;
	load_ok(&fx, "specs/cm384.yaml", bad);
	fx_power_config pc;
	ck_assert_int_eq(fx_power_parse(&fx.d, &fx.s, &pc), 0);
	fx_power_plan p;
	rc = fx_power_plan_build(&pc, &fx.f, -1, &p, &fx.d);
	ck_assert_int_eq(rc, -1);
	ck_assert_int_eq(fx.d.status, FX_EXIT_INPUT);
	fflush(fx.err);
	rewind(fx.err);
	fx.msg[fread(fx.msg, 1, sizeof fx.msg - 1, fx.err)] = '\0';
	ck_assert_msg(strstr(fx.msg, "no switch role 'L3' (its roles: L1, L2)") != NULL, "%s", fx.msg);
	fixture_release(&fx);
}
END_TEST

/* Every shipped spec shrinks by its kind's rule to a fabric that builds,
 * with the devices the rule promises and no more than asked; a k-ary
 * fat-tree and a custom graph say why they cannot. */
START_TEST(shrink_every_kind)
{
	static const char *const leaf_spine = "fabric={kind: fat-tree, tiers: 2, radix: 16, hosts: 64, "
					      "down_up: [8, 8], link: {bandwidth: 50 GB/s, latency: 200 ns}}";
	static const struct {
		const char *spec, *over;
		int64_t ask, got;
		const char *set0;
	} cases[] = {
		{"specs/cm384.yaml", NULL, 75, 72, "fabric.nodes=9"},              /* whole nodes of 8 */
		{"specs/dgx-h100-256.yaml", NULL, 100, 96, "fabric.nodes=12"},     /* whole domains of 8 */
		{"specs/nvl72.yaml", NULL, 70, 68, "fabric.devices=68"},           /* whole trays of 4 */
		{"specs/torus-8x8x8.yaml", NULL, 300, 256, "fabric.dims=[8,8,4]"}, /* slabs of 64 */
		{"specs/wse2.yaml", NULL, 757 * 10 + 5, 7570, "fabric.grid=[757,10]"},
		{"specs/hgx-h100.yaml", NULL, 7, 0, NULL},                          /* one node of 8 */
		{"specs/fat-tree-k8.yaml", NULL, 70, 64, "fabric.pods=4"},         /* pods of 16 hosts */
		{"specs/fat-tree-k8.yaml", NULL, 15, 0, NULL},
		{"specs/fat-tree-k8.yaml", leaf_spine, 50, 48, "fabric.hosts=48"}, /* leaves of 8 */
		{"specs/dgx1.yaml", NULL, 4, -1, NULL},                             /* a custom graph */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fixture fx;
		const char *sets[FX_SHRINK_MAX_SETS + 2] = {cases[i].over};
		load_ok(&fx, cases[i].spec, sets);
		fx_shrink sh;
		int rc = fx_fabric_shrink(&fx.f, &fx.s, cases[i].ask, &sh);
		fixture_release(&fx);
		if (cases[i].got < 0) {
			ck_assert_msg(rc == -1 && sh.rule[0], "%s shrank", cases[i].spec);
			continue;
		}
		ck_assert_int_eq(rc, 0);
		ck_assert_int_eq(sh.devices, cases[i].got);
		if (!cases[i].set0) {
			ck_assert_int_eq(sh.nsets, 0);
			continue;
		}
		ck_assert_str_eq(sh.set[0], cases[i].set0);
		int k = cases[i].over ? 1 : 0;
		for (int s = 0; s < sh.nsets; s++)
			sets[k++] = sh.set[s];
		load_ok(&fx, cases[i].spec, sets);
		ck_assert_int_eq(fx.f.ndev, sh.devices);
		fixture_release(&fx);
	}
}
END_TEST

/* Bytes/s per direction over every link of CPU number `cpu`. */
static double cpu_bandwidth(const fx_fabric *f, int64_t cpu)
{
	double bw = 0;
	for (int64_t e = 0; e < f->ne; e++)
		for (int k = 0; k < 2; k++) {
			int64_t v = f->ends[2 * e + k];
			if (f->v[v].type == FX_V_CPU && f->v[v].index == cpu)
				bw += f->e[e].count * f->e[e].bw;
		}
	return bw;
}

/* hardware.md §1: about 160 GB/s per direction per Kunpeng CPU on UB;
 * §2: 900 GB/s bidirectional (450 per direction) per Grace CPU. */
START_TEST(cpu_links_published)
{
	fixture fx;
	load_ok(&fx, "specs/cm384.yaml", NULL);
	ck_assert_double_eq_tol(cpu_bandwidth(&fx.f, 0), 160e9, 0.001 * 160e9);
	fixture_release(&fx);
	load_ok(&fx, "specs/nvl72.yaml", NULL);
	ck_assert_double_eq_tol(cpu_bandwidth(&fx.f, 0), 450e9, 1e-3);
	fixture_release(&fx);
}
END_TEST

/* compare's SPEC@KEY=VALUE,... splits at top-level commas only. */
START_TEST(variant_split)
{
	char buf[256];
	const char *path, *sets[8];
	ck_assert_int_eq(fx_cmp_split("specs/a.yaml", buf, sizeof buf, &path, sets, 8), 0);
	ck_assert_str_eq(path, "specs/a.yaml");
	ck_assert_int_eq(fx_cmp_split("dir@x/t.yaml@fabric.dims=[8,8,4],power={node: 1 kW, cpu: 2 W},"
				      "name='a,b'", buf, sizeof buf, &path, sets, 8), 3);
	ck_assert_str_eq(path, "dir@x/t.yaml");
	ck_assert_str_eq(sets[0], "fabric.dims=[8,8,4]");
	ck_assert_str_eq(sets[1], "power={node: 1 kW, cpu: 2 W}");
	ck_assert_str_eq(sets[2], "name='a,b'");
	ck_assert_int_eq(fx_cmp_split("t.yaml@a=[1,2", buf, sizeof buf, &path, sets, 8), -1);
	ck_assert_int_eq(fx_cmp_split("t.yaml@a=1,,b=2", buf, sizeof buf, &path, sets, 8), -1);
	ck_assert_int_eq(fx_cmp_split("t.yaml@", buf, sizeof buf, &path, sets, 8), -1);
	ck_assert_int_eq(fx_cmp_split("t.yaml@a=1]", buf, sizeof buf, &path, sets, 8), -1);
	/* a value may hold '/' (issue 25: the bandwidth's unit made the whole
	 * variant a path); a file that exists ends the path at its '@' */
	ck_assert_int_eq(fx_cmp_split("specs/hgx-h100.yaml@fabric.link.bandwidth=100GB/s", buf,
				      sizeof buf, &path, sets, 8), 1);
	ck_assert_str_eq(path, "specs/hgx-h100.yaml");
	ck_assert_str_eq(sets[0], "fabric.link.bandwidth=100GB/s");
	ck_assert_int_eq(fx_cmp_split("no/such.yaml@description=a/b,name=c", buf, sizeof buf, &path,
				      sets, 8), 2);
	ck_assert_str_eq(path, "no/such.yaml");
	ck_assert_str_eq(sets[0], "description=a/b");
}
END_TEST

Suite *suite_power(void)
{
	Suite *s = suite_create("power");
	TCase *tc = tcase_create("book");
	tcase_add_test(tc, eq_6_11);
	tcase_add_test(tc, air_cooled_rack);
	tcase_add_test(tc, experiment_6_7);
	tcase_add_test(tc, infeasible_says_why);
	tcase_add_test(tc, node_from_parts);
	tcase_add_test(tc, given_build_over_budget);
	suite_add_tcase(s, tc);
	tc = tcase_create("published");
	tcase_add_test(tc, cm384_published_total);
	tcase_add_test(tc, nvl72_published_range);
	tcase_add_test(tc, dgx_air_cooled);
	tcase_add_test(tc, no_power_model);
	tcase_add_test(tc, unknown_switch_role);
	tcase_add_test(tc, shrink_every_kind);
	tcase_add_test(tc, cpu_links_published);
	tcase_add_test(tc, variant_split);
	suite_add_tcase(s, tc);
	return s;
}
