/*
 * The library API under bad arguments (issue #25): every public entry
 * fabricx.h exports that takes input is driven with NULLs, out-of-range
 * ranks and sizes, and a design whose load failed.  Each must fail with -1
 * (or its documented NULL, NAN, "?") and, where it takes an fx_diag, a
 * diagnostic with exit status 2, never crash or read out of bounds: the
 * suite runs under ASan and UBSan in `make san-check`.  Before the checks,
 * fx_coll_run with rank -1 overflowed the heap (routing/dor_sum.c), rank
 * 64 on a 64-device torus returned 0 with time 0, NULL paths crashed
 * fx_design_load and a failed load's bisection returned 0.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/isolate.h"
#include "../../fabricx.h"
#include "helpers.h"

/* 64 devices: a 4x4x4 torus, routed by dimension order (dor_sum.c). */
static const char torus64[] =
	"name: t64\n"
	"fabric: {kind: torus, dims: [4, 4, 4], link: {bandwidth: 50 GB/s, latency: 200 ns}}\n";

/* A diag whose messages go nowhere, so the suite's output stays readable. */
static void quiet(fx_diag *d)
{
	fx_diag_init(d);
	d->out = fopen("/dev/null", "w");
	ck_assert_ptr_nonnull(d->out);
}

static void unquiet(fx_diag *d)
{
	fclose(d->out);
	fx_diag_release(d);
}

/* rc is -1 and d counted one more error, of bad input. */
#define REFUSED(rc, d, before)                                                          \
	do {                                                                            \
		ck_assert_int_eq((rc), -1);                                             \
		ck_assert_int_gt((d)->nerr, (before));                                  \
		ck_assert_int_eq((d)->status, FX_EXIT_INPUT);                           \
	} while (0)

static void load_torus(fx_design *ds, fx_diag *d)
{
	ck_assert_int_eq(fx_design_load_text(ds, "t64.yaml", torus64, NULL, 0, NULL, d), 0);
	ck_assert_int_eq(ds->fab.ndev, 64);
}

START_TEST(api_coll_run)
{
	fx_diag d;
	quiet(&d);
	fx_design ds;
	load_torus(&ds, &d);
	const fx_fabric *f = &ds.fab;
	fx_router *r = fx_router_new(f, 0);
	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_eq(fx_router_fabric(r), f);
	int64_t ranks[64];
	for (int i = 0; i < 64; i++)
		ranks[i] = i;
	fx_coll_result res;
	fx_coll_time tm = {.alpha = 0, .alpha_replaces_latency = 0, .policy = FX_ROUTE_SPLIT};
	/* a good run first: the checks refuse only what is wrong */
	fx_coll_req ok = {"allreduce", "ring", ranks, 64, 1 << 20, 0};
	ck_assert_int_eq(fx_coll_run(f, r, &ok, &tm, &res, &d), 0);
	ck_assert(res.time > 0);
	fx_coll_result_release(&res);
	ck_assert_int_eq(d.nerr, 0);

	int64_t minus[2] = {0, -1}, past[2] = {0, 64};
	struct {
		const char *pattern, *algo;
		const int64_t *ranks;
		int64_t n;
		double size;
		int64_t chunks;
	} bad[] = {
		{"allreduce", "ring", minus, 2, 1 << 20, 0},       /* rank -1 (heap overflow) */
		{"all-to-all", NULL, minus, 2, 1 << 20, 0},
		{"allreduce", "ring", past, 2, 1 << 20, 0},        /* rank 64 of 64 (time 0) */
		{"broadcast", "chain", past, 2, 1 << 20, 0},
		{"allreduce", "ring", ranks, 64, -1e300, 0},       /* size -1e300 (accepted) */
		{"allreduce", "ring", ranks, 64, NAN, 0},
		{"allreduce", "ring", ranks, 64, INFINITY, 0},
		{"broadcast", "chain", ranks, 64, 1 << 20, -1},    /* chunks */
		{"allreduce", "ring", ranks, 0, 1 << 20, 0},       /* no ranks */
		{"allreduce", "ring", NULL, 64, 1 << 20, 0},
		{NULL, NULL, ranks, 64, 1 << 20, 0},               /* no pattern */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		fx_coll_req q = {bad[i].pattern, bad[i].algo, bad[i].ranks, bad[i].n, bad[i].size,
				 bad[i].chunks};
		int before = d.nerr;
		memset(&res, 0x5a, sizeof res);
		int rc = fx_coll_run(f, r, &q, &tm, &res, &d);
		ck_assert_msg(rc == -1, "case %zu accepted (time %g)", i, res.time);
		REFUSED(rc, &d, before);
		ck_assert_ptr_null(res.link_bytes);  /* zeroed: release is safe */
		fx_coll_result_release(&res);
		before = d.nerr;
		REFUSED(fx_coll_run_groups(f, r, &q, 1, &tm, &res, &d), &d, before);
		fx_coll_result_release(&res);
	}
	/* the other arguments */
	int before = d.nerr;
	REFUSED(fx_coll_run(NULL, r, &ok, &tm, &res, &d), &d, before);
	before = d.nerr;
	REFUSED(fx_coll_run(f, NULL, &ok, &tm, &res, &d), &d, before);
	before = d.nerr;
	REFUSED(fx_coll_run(f, r, NULL, &tm, &res, &d), &d, before);
	before = d.nerr;
	REFUSED(fx_coll_run(f, r, &ok, NULL, &res, &d), &d, before);
	before = d.nerr;
	REFUSED(fx_coll_run(f, r, &ok, &tm, NULL, &d), &d, before);
	before = d.nerr;
	REFUSED(fx_coll_run_groups(f, r, NULL, 2, &tm, &res, &d), &d, before);
	ck_assert_int_eq(fx_coll_run(f, r, &ok, &tm, NULL, NULL), -1);  /* no diag either */
	/* a router of another fabric */
	fx_design other;
	load_torus(&other, &d);
	fx_router *r2 = fx_router_new(&other.fab, 0);
	before = d.nerr;
	REFUSED(fx_coll_run(f, r2, &ok, &tm, &res, &d), &d, before);
	fx_router_free(r2);
	fx_design_release(&other);
	/* the crossover, the helpers */
	before = d.nerr;
	ck_assert(fx_coll_crossover(f, r, &(fx_coll_req){"allreduce", NULL, minus, 2, 0, 0}, "ring",
				    "tree", &tm, 1, 1e9, &d) == -1);
	ck_assert_int_gt(d.nerr, before);
	before = d.nerr;
	ck_assert(fx_coll_crossover(f, r, &ok, NULL, "tree", &tm, 1, 1e9, &d) == -1);
	ck_assert(fx_coll_crossover(f, r, &ok, "ring", "tree", &tm, 1e9, 1, &d) == -1);
	ck_assert(fx_coll_crossover(f, r, &ok, "ring", "tree", &tm, -1, NAN, &d) == -1);
	ck_assert_int_gt(d.nerr, before);
	ck_assert_ptr_null(fx_coll_find(NULL, NULL));
	ck_assert_ptr_null(fx_coll_find("no-such-pattern", NULL));
	ck_assert(isnan(fx_coll_bus_factor(NULL, 8)));
	ck_assert_int_eq(fx_coll_tree_chunks(-1, 3), -1);
	ck_assert_int_eq(fx_coll_tree_chunks(NAN, 3), -1);
	ck_assert_int_eq(fx_coll_tree_chunks(1 << 20, -1), -1);
	fx_router_set_policy(NULL, FX_ROUTE_HASH);
	ck_assert_int_eq(fx_router_policy_matters(NULL), 0);
	ck_assert_ptr_nonnull(fx_router_name(NULL));
	ck_assert_ptr_null(fx_router_fabric(NULL));
	fx_router_free(NULL);
	fx_coll_result_release(NULL);
	fx_router_free(r);
	fx_design_release(&ds);
	unquiet(&d);
}
END_TEST

/* A design whose load failed holds nothing any function will use. */
static void check_unloaded(fx_design *ds, fx_diag *d)
{
	const fx_fabric *f = &ds->fab;
	ck_assert(!fx_fabric_built(f));
	int before = d->nerr;
	fx_cut cut;
	REFUSED(fx_route_bisection(f, &cut, d), d, before);  /* returned 0 */
	before = d->nerr;
	fx_hops h;
	REFUSED(fx_route_hops(f, &h, d), d, before);
	fx_hops_release(&h);
	before = d->nerr;
	uint8_t side[4] = {0, 1, 0, 1};
	REFUSED(fx_route_cut(f, side, &cut, d), d, before);
	ck_assert_ptr_null(fx_router_new(f, 0));
	before = d->nerr;
	int64_t r[4];
	REFUSED((int)fx_design_group_devices(ds, "g", r, d), d, before);
	before = d->nerr;
	fx_power_plan plan;
	REFUSED(fx_power_plan_build(&ds->power, f, -1, &plan, d), d, before);
	fx_power_plan_release(&plan);
	ck_assert(isnan(fx_power_node(&ds->power, f)));
	ck_assert(isnan(fx_power_of(&ds->power, f, 1).total));
	before = d->nerr;
	fx_placement p;
	fx_place_opts o = {0};
	REFUSED(fx_place(f, &ds->work, &ds->power, &o, &p, d), d, before);
	fx_placement_release(&p);
	before = d->nerr;
	REFUSED(fx_fabric_fail((fx_fabric *)f, "node=0", "--fail", d), d, before);
	before = d->nerr;
	uint8_t sel[4];
	REFUSED(fx_fabric_select(f, "node=0", "--x", sel, d), d, before);
	ck_assert_int_eq(fx_fabric_links(f), 0);
	ck_assert_int_eq(fx_fabric_ports(f, 0), -1);
	char b[16];
	ck_assert_str_eq(fx_fabric_vertex_name(f, 0, b, sizeof b), "?");
	before = d->nerr;
	REFUSED(fx_spec_set(&ds->spec, "name=x", d), d, before);
}

START_TEST(api_design_load)
{
	fx_diag d;
	quiet(&d);
	fx_design ds;
	const char *sets[2] = {"name=x", NULL};
	int before = d.nerr;
	REFUSED(fx_design_load(NULL, "specs/nvl72.yaml", NULL, 0, NULL, &d), &d, before);
	before = d.nerr;
	REFUSED(fx_design_load(&ds, NULL, NULL, 0, NULL, &d), &d, before);  /* crashed */
	check_unloaded(&ds, &d);
	before = d.nerr;
	REFUSED(fx_design_load(&ds, "specs/nvl72.yaml", NULL, 3, NULL, &d), &d, before);  /* crashed */
	before = d.nerr;
	REFUSED(fx_design_load(&ds, "specs/nvl72.yaml", sets, 2, NULL, &d), &d, before);
	before = d.nerr;
	REFUSED(fx_design_load(&ds, "specs/nvl72.yaml", NULL, 0,
			       &(fx_design_limits){.max_memory = -1}, &d), &d, before);
	before = d.nerr;
	REFUSED(fx_design_load(&ds, "", NULL, 0, NULL, &d), &d, before);
	before = d.nerr;
	REFUSED(fx_design_load_text(&ds, "x.yaml", NULL, NULL, 0, NULL, &d), &d, before);
	before = d.nerr;
	REFUSED(fx_design_load_text(&ds, NULL, torus64, NULL, 0, NULL, &d), &d, before);
	check_unloaded(&ds, &d);
	/* failed in the spec, then after the fabric was built (a failure
	 * selector that matches nothing known): both leave nothing behind */
	before = d.nerr;
	REFUSED(fx_design_load_text(&ds, "x.yaml", "name: x\nfabric: {kind: torus, dims: [0]}\n",
				    NULL, 0, NULL, &d), &d, before);
	check_unloaded(&ds, &d);
	char text[512];
	snprintf(text, sizeof text, "%sfailures: [bogus=1]\n", torus64);
	before = d.nerr;
	REFUSED(fx_design_load_text(&ds, "x.yaml", text, NULL, 0, NULL, &d), &d, before);
	check_unloaded(&ds, &d);
	fx_design_release(&ds);
	fx_design_release(&ds);  /* twice is safe */
	fx_design_release(NULL);
	/* a loaded design: the group lookup's own arguments */
	load_torus(&ds, &d);
	int64_t r[64];
	before = d.nerr;
	REFUSED((int)fx_design_group_devices(&ds, NULL, r, &d), &d, before);
	before = d.nerr;
	REFUSED((int)fx_design_group_devices(&ds, "g", NULL, &d), &d, before);
	fx_design_release(&ds);
	/* without any fx_diag: still -1, nothing dereferenced */
	ck_assert_int_eq(fx_design_load(&ds, NULL, NULL, 0, NULL, NULL), -1);
	fx_design_release(&ds);
	unquiet(&d);
}
END_TEST

START_TEST(api_routing_fabric)
{
	fx_diag d;
	quiet(&d);
	fx_design ds;
	load_torus(&ds, &d);
	fx_fabric *f = &ds.fab;
	ck_assert(fx_fabric_built(f));
	ck_assert(!fx_fabric_built(NULL));
	int before = d.nerr;
	REFUSED(fx_route_bisection(f, NULL, &d), &d, before);
	before = d.nerr;
	REFUSED(fx_route_hops(f, NULL, &d), &d, before);
	before = d.nerr;
	fx_cut cut;
	REFUSED(fx_route_cut(f, NULL, &cut, &d), &d, before);
	uint8_t *side = calloc((size_t)f->nv, 1);
	side[0] = 1;
	side[5] = 7;  /* not a side */
	before = d.nerr;
	REFUSED(fx_route_cut(f, side, &cut, &d), &d, before);
	free(side);
	before = d.nerr;
	REFUSED(fx_route_bisection(NULL, &cut, &d), &d, before);
	/* vertices out of range */
	char b[32];
	ck_assert_str_eq(fx_fabric_vertex_name(f, -1, b, sizeof b), "?");
	ck_assert_str_eq(fx_fabric_vertex_name(f, f->nv, b, sizeof b), "?");
	ck_assert_str_eq(fx_fabric_vertex_name(f, 0, NULL, 0), "?");
	ck_assert_int_eq(fx_fabric_ports(f, -1), -1);
	ck_assert_int_eq(fx_fabric_ports(f, f->nv), -1);
	ck_assert_int_eq(fx_fabric_ports(f, 0), 6);  /* a 3-D torus: 6 neighbours */
	before = d.nerr;
	REFUSED(fx_fabric_fail(f, NULL, "--fail", &d), &d, before);
	before = d.nerr;
	REFUSED(fx_fabric_select(f, "node=0", "--x", NULL, &d), &d, before);
	before = d.nerr;
	REFUSED(fx_fabric_build(NULL, &ds.spec, 0, &d), &d, before);
	fx_fabric g;
	before = d.nerr;
	REFUSED(fx_fabric_build(&g, NULL, 0, &d), &d, before);
	ck_assert(!fx_fabric_built(&g));
	fx_fabric_release(&g);
	fx_design_release(&ds);
	unquiet(&d);
}
END_TEST

START_TEST(api_spec_power_place_units)
{
	fx_diag d;
	quiet(&d);
	fx_spec s;
	int before = d.nerr;
	REFUSED(fx_spec_load(NULL, "specs/nvl72.yaml", &d), &d, before);
	before = d.nerr;
	REFUSED(fx_spec_load(&s, NULL, &d), &d, before);
	before = d.nerr;
	REFUSED(fx_spec_load_text(&s, "x.yaml", NULL, &d), &d, before);
	before = d.nerr;
	REFUSED(fx_spec_set(&s, "name=x", &d), &d, before);  /* nothing loaded */
	before = d.nerr;
	REFUSED(fx_spec_set(NULL, "name=x", &d), &d, before);
	fx_spec_release(&s);
	fx_spec_release(NULL);
	ck_assert_int_eq(fx_spec_load_text(&s, "x.yaml", torus64, &d), 0);
	before = d.nerr;
	REFUSED(fx_spec_set(&s, NULL, &d), &d, before);
	before = d.nerr;
	fx_power_config pc;
	REFUSED(fx_power_parse(&d, NULL, &pc), &d, before);
	before = d.nerr;
	REFUSED(fx_power_parse(&d, &s, NULL), &d, before);
	before = d.nerr;
	fx_coll_time tm;
	REFUSED(fx_coll_time_parse(&d, NULL, &tm), &d, before);
	before = d.nerr;
	REFUSED(fx_coll_time_parse(&d, &s, NULL), &d, before);
	before = d.nerr;
	fx_workload w;
	REFUSED(fx_workload_place_parse(&d, NULL, NULL, &w), &d, before);
	before = d.nerr;
	REFUSED(fx_workload_place_parse(&d, &s, NULL, NULL), &d, before);
	before = d.nerr;
	fx_accel a;
	fx_sessions ss;
	REFUSED(fx_accel_sessions_parse(&d, NULL, &a, &ss), &d, before);
	ck_assert_int_eq(fx_workload_devices(NULL), -1);
	fx_spec_release(&s);

	fx_design ds;
	load_torus(&ds, &d);
	before = d.nerr;
	fx_power_plan plan;
	REFUSED(fx_power_plan_build(NULL, &ds.fab, -1, &plan, &d), &d, before);
	before = d.nerr;
	REFUSED(fx_power_plan_build(&ds.power, &ds.fab, -1, NULL, &d), &d, before);
	ck_assert(isnan(fx_power_of(&ds.power, &ds.fab, -1).total));
	ck_assert_ptr_nonnull(fx_power_limit_text(NULL));
	ck_assert_ptr_nonnull(fx_power_cooling_text(NULL));
	fx_power_plan_release(NULL);
	fx_placement p;
	fx_place_opts o = {0};
	before = d.nerr;
	REFUSED(fx_place(&ds.fab, NULL, &ds.power, &o, &p, &d), &d, before);
	before = d.nerr;
	REFUSED(fx_place(&ds.fab, &ds.work, &ds.power, NULL, &p, &d), &d, before);
	before = d.nerr;
	REFUSED(fx_place(&ds.fab, &ds.work, &ds.power, &o, NULL, &d), &d, before);
	o.time_limit = -1;
	before = d.nerr;
	REFUSED(fx_place(&ds.fab, &ds.work, &ds.power, &o, &p, &d), &d, before);
	fx_placement_release(NULL);
	fx_design_release(&ds);

	double v;
	ck_assert_int_eq(fx_unit_parse(NULL, FX_UNIT_SIZE, &v, NULL), FX_UNIT_NOT_A_NUMBER);
	ck_assert_int_eq(fx_unit_parse("1 MiB", FX_UNIT_SIZE, NULL, NULL), FX_UNIT_NOT_A_NUMBER);
	ck_assert_ptr_null(fx_unit_format(1, FX_UNIT_SIZE, NULL, 0));
	char *m = fx_unit_message(FX_UNIT_MISSING, NULL, FX_UNIT_SIZE, FX_UNIT_NONE, 1, NULL, NULL);
	ck_assert_ptr_nonnull(m);
	free(m);
	ck_assert_str_eq(fx_unit_kind_name((fx_unit_kind)99), "?");
	/* the diag itself: NULL is a place that discards nothing but counts nothing */
	ck_assert_int_eq(fx_diag_error(NULL, NULL, "to stderr: %s", "fine"), -1);
	fx_diag_note(NULL, NULL, "dropped");
	fx_diag_key(NULL, "k");
	ck_assert_ptr_null(fx_diag_add_source(NULL, "a", "b"));
	fx_diag_init(NULL);
	fx_diag_release(NULL);
	unquiet(&d);
}
END_TEST

/* core/isolate.h: work in a child process comes back as if run here, and
 * a crash in it is an internal error, not the end of the caller. */
static int child_ok(void *arg, fx_diag *d)
{
	(void)d;
	*(int *)arg = 7;  /* stays in the child */
	return 0;
}

static int child_error(void *arg, fx_diag *d)
{
	(void)arg;
	return fx_diag_error(d, NULL, "bad %s", "input");
}

static int child_abort(void *arg, fx_diag *d)
{
	(void)arg;
	(void)d;
	abort();
}

START_TEST(api_isolate)
{
	fx_diag d;
	quiet(&d);
	int x = 0;
	ck_assert_int_eq(fx_isolate("ok", child_ok, &x, &d), 0);
	ck_assert_int_eq(x, 0);
	ck_assert_int_eq(d.nerr, 0);
	ck_assert_int_eq(fx_isolate("error", child_error, NULL, &d), -1);
	ck_assert_int_eq(d.nerr, 1);
	ck_assert_int_eq(d.status, FX_EXIT_INPUT);
	ck_assert_str_eq(d.last, "bad input");
	ck_assert_str_eq(d.first, "bad input");
	ck_assert_int_eq(fx_isolate("drawing x.svg", child_abort, NULL, &d), -1);
	ck_assert_int_eq(d.nerr, 2);
	ck_assert_int_eq(d.status, FX_EXIT_INTERNAL);
	ck_assert_msg(strstr(d.last, "drawing x.svg: killed by signal 6"), "%s", d.last);
	ck_assert_int_eq(fx_isolate("no diag", child_error, NULL, NULL), -1);
	unquiet(&d);
}
END_TEST

/* The release macro (issue #26): FX_VERSION is its parts, in order, and the
 * library's own fx_version_release(); the Makefile reads the same parts
 * for fabricx.pc (tests/cli/install.sh checks that side). */
START_TEST(api_version)
{
	char parts[64];
	snprintf(parts, sizeof parts, "%d.%d.%d", FX_VERSION_MAJOR, FX_VERSION_MINOR, FX_VERSION_PATCH);
	ck_assert_str_eq(FX_VERSION, parts);
	ck_assert_str_eq(fx_version_release(), FX_VERSION);
	ck_assert_int_ge(FX_VERSION_MAJOR, 0);
	ck_assert_ptr_nonnull(fx_version());
	ck_assert_int_gt((int)strlen(fx_version()), 0);
#if FX_VERSION_MAJOR < 0 || FX_VERSION_MINOR < 0 || FX_VERSION_PATCH < 0
#error "the version parts are for #if: plain non-negative integers"
#endif
}
END_TEST

Suite *suite_api(void)
{
	Suite *s = suite_create("api");
	TCase *t = tcase_create("bad_arguments");
	tcase_add_test(t, api_coll_run);
	tcase_add_test(t, api_design_load);
	tcase_add_test(t, api_routing_fabric);
	tcase_add_test(t, api_spec_power_place_units);
	tcase_add_test(t, api_isolate);
	tcase_add_test(t, api_version);
	suite_add_tcase(s, t);
	return s;
}
