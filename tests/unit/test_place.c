/* The placement MILP against brute-force enumeration, and infeasibility
 * explained family by family. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../placement/placement.h"
#include "helpers.h"

static const char *base =
	"fabric: {kind: nvswitch, nodes: 4, devices: 4, switches: 2, switch_ports: 16, device_links: 2,\n"
	"         uplinks_per_switch: 2, spine_switches: 2, spine_ports: 8,\n"
	"         link: {bandwidth: 25 GB/s, latency: 200 ns}}\n"
	"packaging: {devices_per_node: 4, nodes_per_rack: 2}\n"
	"power: {node: 10 kW%s}\n"
	"workload: {scheme: {tp: 2, ep: %d}, instances: %d%s,\n"
	"  groups: {tp: {collective: allreduce, bytes: 64 KiB, count: 2},\n"
	"           ep: {collective: allreduce, bytes: 1 MiB, count: 1}}}\n";

typedef struct placed {
	fixture fx;
	fx_workload w;
	fx_power_config pc;
	fx_placement p;
	int rc;
} placed;

/* Loads the spec text y and places its workload; the message, if any,
 * lands in t->fx.msg. */
static void run_place(placed *t, const char *y)
{
	ck_assert_msg(fixture_load(&t->fx, "place.yaml", y, NULL) == 0, "%s", t->fx.msg);
	ck_assert_int_eq(fx_workload_place_parse(&t->fx.d, &t->fx.s, NULL, &t->w), 0);
	ck_assert_int_eq(fx_power_parse(&t->fx.d, &t->fx.s, &t->pc), 0);
	/* a limit no solve here comes near: the tests never race the clock */
	fx_place_opts o = {.time_limit = 1000};
	t->rc = fx_place(&t->fx.f, &t->w, &t->pc, &o, &t->p, &t->fx.d);
	fflush(t->fx.err);
	rewind(t->fx.err);
	size_t n = fread(t->fx.msg, 1, sizeof t->fx.msg - 1, t->fx.err);
	t->fx.msg[n] = '\0';
}

static void place_ep(placed *t, const char *power, int ep, int instances, const char *extra)
{
	char y[2048];
	snprintf(y, sizeof y, base, power, ep, instances, extra);
	run_place(t, y);
}

/* TP-only instances of tp devices, TP kept within a node. */
static void place_tp(placed *t, int tp, int instances)
{
	char y[2048];
	snprintf(y, sizeof y,
		 "fabric: {kind: nvswitch, nodes: 4, devices: 4, switches: 2, switch_ports: 16,\n"
		 "         device_links: 2, uplinks_per_switch: 2, spine_switches: 2, spine_ports: 8,\n"
		 "         link: {bandwidth: 25 GB/s, latency: 200 ns}}\n"
		 "packaging: {devices_per_node: 4, nodes_per_rack: 2}\n"
		 "power: {node: 10 kW}\n"
		 "workload: {scheme: {tp: %d}, instances: %d,\n"
		 "  groups: {tp: {collective: allreduce, bytes: 64 KiB, count: 2}}}\n", tp, instances);
	run_place(t, y);
}

static void place(placed *t, const char *power, int instances, const char *extra)
{
	place_ep(t, power, 2, instances, extra);
}

static void done(placed *t)
{
	if (t->rc == 0)
		fx_placement_release(&t->p);
	fixture_release(&t->fx);
}

/* Every way to put each instance's TP units (2 per instance) on the 4 nodes
 * of 2 units each, scored by the level costs the MILP used; failure
 * domain node: no node shared. */
static double brute(const double *cost, const int *ok, int instances, int fail_node)
{
	int units = 2 * instances, at[16];
	double best = INFINITY;
	int64_t total = 1;
	for (int u = 0; u < units; u++)
		total *= 4;
	for (int64_t code = 0; code < total; code++) {
		int64_t c = code;
		int fill[4] = {0, 0, 0, 0};
		for (int u = 0; u < units; u++) {
			at[u] = (int)(c % 4);
			c /= 4;
			fill[at[u]]++;
		}
		int feasible = 1;
		for (int n = 0; n < 4; n++)
			feasible &= fill[n] <= 2;
		int owner[4] = {-1, -1, -1, -1};
		double sum = 0;
		for (int i = 0; i < instances && feasible; i++) {
			int a = at[2 * i], b = at[2 * i + 1];
			for (int k = 0; k < 2; k++) {
				int n = at[2 * i + k];
				if (fail_node && owner[n] >= 0 && owner[n] != i)
					feasible = 0;
				owner[n] = i;
			}
			int level = a == b ? 0 : a / 2 == b / 2 ? 1 : 2;  /* racks: nodes 0-1, 2-3 */
			if (!ok[level])
				feasible = 0;
			sum += cost[level];
		}
		if (feasible && sum < best)
			best = sum;
	}
	return best;
}

START_TEST(milp_equals_brute_force)
{
	static const struct { int instances; const char *extra; int fail; } cases[] = {
		{1, "", 0}, {2, "", 0}, {3, "", 0}, {4, "", 0},
		{2, ", failure_domain: node", 1},
		{2, ", keep_within: {tp: node, instance: rack}", 0},
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		placed t;
		place(&t, "", cases[k].instances, cases[k].extra);
		ck_assert_msg(t.rc == 0, "case %zu: %s", k, t.fx.msg);
		int ok[3] = {t.p.level_ok[0], t.p.level_ok[1], t.p.level_ok[2]};
		if (strstr(cases[k].extra, "instance: rack"))
			ok[2] = 0;
		double want = brute(t.p.level_cost, ok, cases[k].instances, cases[k].fail);
		ck_assert_msg(fabs(t.p.objective - want) <= 1e-9 * want, "case %zu: milp %g, brute %g", k,
			      t.p.objective, want);
		ck_assert_str_eq(t.p.status, "optimal");
		/* the placement is real: every device used once */
		int used[16] = {0};
		for (int64_t i = 0; i < t.p.ninst; i++)
			for (int d = 0; d < 4; d++)
				ck_assert_int_eq(used[t.p.inst[i].devices[d]]++, 0);
		done(&t);
	}
}
END_TEST

/* The level costs come from routing: a node-local instance's TP and EP
 * groups cross one switch (2 hops); across nodes the EP groups cross the
 * spine (4 hops) and cost more. */
START_TEST(levels_from_routing)
{
	placed t;
	place(&t, "", 1, "");
	ck_assert_int_eq(t.rc, 0);
	ck_assert(t.p.level_ok[FX_LEVEL_NODE] && t.p.level_ok[FX_LEVEL_RACK] && t.p.level_ok[FX_LEVEL_ANY]);
	ck_assert(t.p.level_cost[FX_LEVEL_NODE] < t.p.level_cost[FX_LEVEL_RACK]);
	ck_assert_int_eq(t.p.inst[0].level, FX_LEVEL_NODE);
	ck_assert_int_eq(t.p.inst[0].group[FX_GROUP_TP].max_hops, 2);
	ck_assert_int_eq(t.p.inst[0].group[FX_GROUP_EP].max_hops, 2);
	/* one 4-device instance: 2 TP groups and 2 EP groups */
	ck_assert_int_eq(t.p.inst[0].group[FX_GROUP_TP].groups, 2);
	ck_assert_int_eq(t.p.inst[0].group[FX_GROUP_EP].groups, 2);
	done(&t);
}
END_TEST

/* Nothing fits: exit 3, and the message gives the arithmetic of each
 * limit that fails (by hand from the base spec: 4 nodes of 4 devices, 2
 * per rack, 10 kW each; an instance is 2 TP groups kept within a node);
 * what arithmetic cannot settle (the ports) the relaxations name. */
START_TEST(infeasible_explained)
{
	placed t;
	place(&t, "", 5, "");  /* 20 devices on 16 */
	ck_assert_int_eq(t.rc, -1);
	ck_assert_int_eq(t.fx.d.status, FX_EXIT_INFEASIBLE);
	ck_assert_msg(strstr(t.fx.msg, "no placement of 5 instances of 4 devices fits: devices: 5 "
			      "instances x 4 devices = 20, the fabric has 16\n"), "%s", t.fx.msg);
	done(&t);

	place(&t, ", rack_budget: 15 kW", 3, "");  /* one node per rack: 8 devices; a third node puts 20 kW in a rack */
	ck_assert_int_eq(t.rc, -1);
	ck_assert_msg(strstr(t.fx.msg, "fits: rack power: 15 kW per rack powers 1 node of 10 kW each; "
			      "the 2 racks power 2 nodes = 2 instances, 3 asked\n"), "%s", t.fx.msg);
	done(&t);

	place(&t, ", budget: 25 kW", 3, "");  /* two nodes in all */
	ck_assert_int_eq(t.rc, -1);
	ck_assert_msg(strstr(t.fx.msg, "fits: system power: 3 instances need 3 nodes x 10 kW = 30 kW; "
			      "the 25 kW budget powers 2 nodes = 2 instances\n"), "%s", t.fx.msg);
	done(&t);

	place(&t, ", liquid: false, air_limit: 15 kW", 3, "");
	ck_assert_int_eq(t.rc, -1);
	ck_assert_msg(strstr(t.fx.msg, "fits: cooling (air only): 15 kW per rack powers 1 node of 10 kW "
			      "each; the 2 racks power 2 nodes = 2 instances, 3 asked\n"), "%s", t.fx.msg);
	done(&t);

	place(&t, "", 3, ", failure_domain: rack");  /* two racks, three instances */
	ck_assert_int_eq(t.rc, -1);
	ck_assert_msg(strstr(t.fx.msg, "fits: failure domain rack: each instance needs a rack of its "
			      "own; the fabric's 2 racks hold 2 instances, 3 asked\n"), "%s", t.fx.msg);
	done(&t);

	/* instances that may share no node: 4 nodes hold 4 (10 of 16 devices) */
	place_ep(&t, "", 1, 5, ", failure_domain: node");
	ck_assert_int_eq(t.rc, -1);
	ck_assert_msg(strstr(t.fx.msg, "fits: failure domain node: each instance needs 1 whole node of "
			      "its own; 4 nodes hold 4 instances, 5 asked\n"), "%s", t.fx.msg);
	done(&t);

	/* TP3 groups kept within 4-device nodes: one per node, a device idle */
	place_tp(&t, 3, 5);
	ck_assert_int_eq(t.rc, -1);
	ck_assert_msg(strstr(t.fx.msg, "no placement of 5 instances of 3 devices fits: capacity: a node "
			      "holds 1 group of 3 devices kept within a node and an instance is 1 such "
			      "group: 4 nodes hold 4 instances, 5 asked\n"), "%s", t.fx.msg);
	done(&t);

	/* an instance of 8 must span two nodes: kept within one, the rule binds */
	place_ep(&t, "", 4, 1, ", keep_within: {tp: node, instance: node}");
	ck_assert_int_eq(t.rc, -1);
	ck_assert_msg(strstr(t.fx.msg, "fits: keep_within instance: node: an instance of 8 devices "
			      "does not fit a node of 4\n"), "%s", t.fx.msg);
	done(&t);

	/* its traffic out of each node (EP all-reduce across the two nodes)
	 * takes the nodes' 100 GB/s of uplinks longer than a 1 us budget */
	place_ep(&t, "", 4, 1, ", comm_budget: 1 us");
	ck_assert_int_eq(t.rc, -1);
	ck_assert_msg(strstr(t.fx.msg, "switch ports (over by"), "%s", t.fx.msg);
	done(&t);
	place_ep(&t, "", 4, 1, ", comm_budget: 1 s");
	ck_assert_int_eq(t.rc, 0);
	done(&t);

	/* rules that can be met under a rack budget of one node per rack */
	place(&t, ", rack_budget: 15 kW", 2, ", keep_within: {tp: node, instance: node}");
	ck_assert_int_eq(t.rc, 0);  /* one node per rack, one instance per node */
	done(&t);
	place(&t, ", rack_budget: 15 kW", 1, ", keep_within: {tp: node, instance: rack}");
	ck_assert_int_eq(t.rc, 0);
	ck_assert_int_eq(t.p.inst[0].nodes, 1);
	done(&t);
}
END_TEST

/* The packing and its bound against the MILP: on varied small fabrics,
 * budgets, failure domains and rules, intact and with node 1 holding a
 * failed device, the objective the packing proves is the MILP's optimum,
 * and infeasibility agrees. */
START_TEST(packing_equals_milp)
{
	static const struct { const char *power; int ep, instances; const char *extra; } cases[] = {
		{"", 2, 1, ""}, {"", 2, 3, ""}, {"", 2, 4, ""}, {"", 4, 1, ""}, {"", 4, 2, ""},
		{", budget: 25 kW", 2, 2, ""}, {", rack_budget: 15 kW", 2, 2, ""},
		{", rack_budget: 15 kW", 4, 1, ""}, {", liquid: false, air_limit: 15 kW", 2, 2, ""},
		{"", 2, 2, ", failure_domain: rack"}, {"", 1, 4, ", failure_domain: node"},
		{"", 4, 1, ", keep_within: {tp: node, instance: rack}"},
		{"", 2, 3, ", keep_within: {tp: node, instance: node}"},
		{"", 1, 7, ""}, {", budget: 35 kW", 1, 5, ""},
	};
	for (size_t k = 0; k < 2 * (sizeof cases / sizeof cases[0]); k++) {
		double obj[2];
		int rc[2];
		int broken = k >= sizeof cases / sizeof cases[0];  /* device 5 (node 1) failed */
		for (int m = 0; m < 2; m++) {
			placed t;
			char y[2048];
			size_t c0 = k % (sizeof cases / sizeof cases[0]);
			snprintf(y, sizeof y, base, cases[c0].power, cases[c0].ep, cases[c0].instances,
				 cases[c0].extra);
			ck_assert_msg(fixture_load(&t.fx, "place.yaml", y, NULL) == 0, "%s", t.fx.msg);
			ck_assert_int_eq(fx_workload_place_parse(&t.fx.d, &t.fx.s, NULL, &t.w), 0);
			ck_assert_int_eq(fx_power_parse(&t.fx.d, &t.fx.s, &t.pc), 0);
			uint8_t failed[64] = {0};
			failed[5] = (uint8_t)broken;
			fx_place_opts o = {.time_limit = 1000, .milp_always = m, .failed = failed};
			t.rc = rc[m] = fx_place(&t.fx.f, &t.w, &t.pc, &o, &t.p, &t.fx.d);
			obj[m] = rc[m] == 0 ? t.p.objective : -1;
			if (rc[m] == 0)
				ck_assert_str_eq(t.p.status, "optimal");
			for (int64_t i = 0; rc[m] == 0 && broken && i < t.p.ninst; i++)
				for (int j = 0; j < fx_workload_devices(&t.w); j++)  /* node 1 left out */
					ck_assert(t.p.inst[i].devices[j] < 4 || t.p.inst[i].devices[j] >= 8);
			done(&t);
		}
		ck_assert_msg(rc[0] == rc[1], "case %zu: packing rc %d, MILP rc %d", k, rc[0], rc[1]);
		ck_assert_msg(fabs(obj[0] - obj[1]) <= 1e-9 * fabs(obj[1]), "case %zu: packing %g, MILP %g",
			      k, obj[0], obj[1]);
	}
}
END_TEST

/* Issue 31: placement measures through fx_coll_run_groups_sparse, kept
 * per-link arrays listing the links each run loads.  Against the dense
 * fx_coll_run_groups: the same time and busiest link exactly, every
 * link's bytes bit for bit (listed or zero), twice in a row on one
 * router and one set of arrays (the second run must not see the first's
 * bytes); on UB, a fat-tree and a torus (its rounds summarised: dense
 * inside, listed after). */
START_TEST(sparse_equals_dense)
{
	static const char *const ub[] = {"fabric.nodes=6", "fabric.l2_ports=6", NULL};
	static const struct {
		const char *path;
		const char *const *sets;
	} cases[] = {
		{"specs/cm384.yaml", ub},
		{"specs/fat-tree-k8.yaml", NULL},
		{"specs/torus-8x8x8.yaml", NULL},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		fixture a;
		load_ok(&a, cases[c].path, cases[c].sets);
		const fx_fabric *f = &a.f;
		fx_router *r = fx_router_new(f, 0);
		fx_coll_sparse *sp = fx_coll_sparse_new(f);
		fx_coll_time tm = {.alpha = 1e-6, .policy = FX_ROUTE_SPLIT};
		size_t nl = (size_t)(2 * f->ne);
		uint8_t *listed = calloc(nl, 1);
		for (int run = 0; run < 4; run++) {
			/* two groups of 4 (ranks far apart, then neighbours) */
			int64_t ranks[8];
			for (int i = 0; i < 8; i++)
				ranks[i] = run % 2 ? i : (int64_t)i * (f->ndev / 8) + run;
			const char *pattern = run < 2 ? "allreduce" : "all-to-all";
			fx_coll_req q[2] = {
				{pattern, NULL, ranks, 4, 1e6 * (run + 1), 1},
				{pattern, NULL, ranks + 4, 4, 1e6 * (run + 1), 1},
			};
			fx_coll_result dn, sv;
			fx_diag d;
			fx_diag_init(&d);
			ck_assert_int_eq(fx_coll_run_groups(f, r, q, 2, &tm, &dn, &d), 0);
			ck_assert_int_eq(fx_coll_run_groups_sparse(f, r, q, 2, &tm, sp, &sv, &d), 0);
			fx_diag_release(&d);
			ck_assert(sv.link_bytes == NULL && sv.link_busy == NULL);
			ck_assert_msg(dn.time == sv.time, "%s run %d: %.17g vs %.17g s", cases[c].path,
				      run, dn.time, sv.time);
			ck_assert(dn.max_link_bytes == sv.max_link_bytes && dn.max_link_bytes > 0);
			ck_assert(dn.total_link_bytes == sv.total_link_bytes);
			const int64_t *links;
			const double *bytes;
			size_t n = fx_coll_sparse_links(sp, &links, &bytes);
			memset(listed, 0, nl);
			for (size_t k = 0; k < n; k++) {
				ck_assert(!listed[links[k]]);
				listed[links[k]] = 1;
			}
			for (size_t l = 0; l < nl; l++)
				ck_assert_msg(dn.link_bytes[l] == (listed[l] ? bytes[l] : 0),
					      "%s run %d link %zu: %.17g vs %.17g", cases[c].path, run, l,
					      dn.link_bytes[l], listed[l] ? bytes[l] : 0);
			fx_coll_result_release(&dn);
			fx_coll_result_release(&sv);
		}
		free(listed);
		fx_coll_sparse_free(sp);
		fx_router_free(r);
		fixture_release(&a);
	}
}
END_TEST

Suite *suite_place(void)
{
	Suite *s = suite_create("place");
	TCase *tc = tcase_create("milp");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, milp_equals_brute_force);
	tcase_add_test(tc, levels_from_routing);
	tcase_add_test(tc, infeasible_explained);
	tcase_add_test(tc, packing_equals_milp);
	tcase_add_test(tc, sparse_equals_dense);
	suite_add_tcase(s, tc);
	return s;
}
