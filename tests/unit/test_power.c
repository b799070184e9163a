/* The power model against book §6.5.2 and Experiment 6-7. */
#include <string.h>

#include "../../power/power.h"
#include "helpers.h"

static fx_power_plan plan(const char *const *sets, int64_t nodes, fx_power_config *pc_out)
{
	fixture fx;
	load_ok(&fx, "specs/dgx-h100-256.yaml", sets);
	fx_power_config pc;
	ck_assert_int_eq(fx_power_parse(&fx.d, &fx.s, &pc), 0);
	fx_power_plan p;
	ck_assert_msg(fx_power_plan_build(&pc, &fx.f, nodes, &p, &fx.d) == 0, "plan failed");
	if (pc_out)
		*pc_out = pc;
	fixture_release(&fx);
	return p;
}

/* book §6.5.2: "Suppose a rack group's power budget is 120 kW; this example
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

/* book §6.5.2: "one rack can hold at most 3 DGX H100 units, i.e., 24 cards
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
	/* no budget: the whole build, limited by the fabric's ports */
	p = plan(NULL, -1, NULL);
	ck_assert_int_eq(p.max_devices, 256);
	ck_assert_str_eq(p.limited_by, "ports");
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
	/* 8 x 700 W + 4.6 kW = 10.2 kW, the DGX H100 maximum (book §6.5.2) */
	ck_assert_double_eq_tol(fx_power_node(&pc, &fx.f), 10.2e3, 1e-9);
	fixture_release(&fx);
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
	suite_add_tcase(s, tc);
	return s;
}
