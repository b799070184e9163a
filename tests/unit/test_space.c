/* Design spaces: reading them, naming points, sampling, Pareto fronts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../space/run.h"
#include "helpers.h"

static const char *const torus_space =
	"name: t\n"
	"fabric: {kind: torus, dims: [4, 4, 4]}\n"
	"space:\n"
	"  vary:\n"
	"    fabric.dims: [[4,4,4], [6, 6, 6], [8,8,8]]\n"
	"    power.budget: {from: 60 kW, to: 200 kW, step: 20 kW}\n"
	"    fabric.a: [1, 2]\n"
	"    fabric.b: [x, 'y: z']\n"
	"  zip: [[fabric.a, fabric.b]]\n"
	"  constraints:\n"
	"    - {metric: power_W, max: 120 kW}\n"
	"    - {metric: diameter, min: 2, max: 6}\n"
	"  objectives:\n"
	"    - {maximize: devices}\n"
	"    - {minimize: power_W}\n";

static void load_space(fx_space *sp, fx_spec *s, fx_diag *d, const char *text)
{
	fx_diag_init(d);
	d->out = fopen("/dev/null", "w");
	ck_assert_int_eq(fx_spec_load_text(s, "space.yaml", text, d), 0);
	int present = 0;
	ck_assert_int_eq(fx_space_parse(sp, s, d, &present), 0);
	ck_assert_int_eq(present, 1);
}

static void unload(fx_space *sp, fx_spec *s, fx_diag *d)
{
	fx_space_release(sp);
	fx_spec_release(s);
	fclose(d->out);
	fx_diag_release(d);
}

/* 3 shapes x 8 budgets (60, 80, ..., 200 kW) x 2 zipped pairs = 48
 * points; the last axis varies fastest. */
START_TEST(space_grid)
{
	fx_space sp;
	fx_spec s;
	fx_diag d;
	load_space(&sp, &s, &d, torus_space);
	ck_assert_uint_eq(sp.naxes, 3);
	ck_assert_uint_eq(fx_space_count(&sp), 3 * 8 * 2);
	char *ov[8];
	size_t n = fx_space_point(&sp, 0, ov, 8);
	ck_assert_uint_eq(n, 4);
	ck_assert_str_eq(ov[0], "fabric.dims=[4, 4, 4]");
	ck_assert_str_eq(ov[1], "power.budget=60000 W");
	ck_assert_str_eq(ov[2], "fabric.a=1");
	ck_assert_str_eq(ov[3], "fabric.b=x");
	for (size_t i = 0; i < n; i++)
		free(ov[i]);
	/* point 47 = digits (2, 7, 1) */
	n = fx_space_point(&sp, 47, ov, 8);
	ck_assert_str_eq(ov[0], "fabric.dims=[8, 8, 8]");
	ck_assert_str_eq(ov[1], "power.budget=200000 W");
	ck_assert_str_eq(ov[2], "fabric.a=2");
	ck_assert_str_eq(ov[3], "fabric.b=\"y: z\"");
	for (size_t i = 0; i < n; i++)
		free(ov[i]);
	ck_assert_uint_eq(sp.ncons, 2);
	ck_assert(sp.cons[0].hi == 120e3 && isinf(sp.cons[0].lo));
	ck_assert(sp.cons[1].lo == 2 && sp.cons[1].hi == 6);
	ck_assert_uint_eq(sp.nobj, 2);
	ck_assert(sp.obj[0].sense == FX_SPACE_MAX && sp.obj[1].sense == FX_SPACE_MIN);
	double m[2] = {100e3, 4};
	size_t bad = 99;
	ck_assert(fx_space_feasible(&sp, m, &bad));
	m[0] = 140e3;
	ck_assert(!fx_space_feasible(&sp, m, &bad));
	ck_assert_uint_eq(bad, 0);
	m[0] = NAN;
	ck_assert(!fx_space_feasible(&sp, m, &bad));
	unload(&sp, &s, &d);
}
END_TEST

/* --vary: lists split at top-level commas, linear and log ranges, and a
 * path given twice replaced by the later one. */
START_TEST(space_vary)
{
	fx_space sp = {0};
	fx_diag d;
	fx_diag_init(&d);
	d.out = fopen("/dev/null", "w");
	ck_assert_int_eq(fx_space_vary(&sp, "fabric.dims=[4,4],[8,8]", &d), 0);
	ck_assert_int_eq(fx_space_vary(&sp, "power.budget=60 kW:100 kW:20 kW", &d), 0);
	ck_assert_int_eq(fx_space_vary(&sp, "fabric.link.bandwidth=25 GB/s:400 GB/s:x2", &d), 0);
	ck_assert_int_eq(fx_space_vary(&sp, "x=0.1:0.3:0.1", &d), 0);
	ck_assert_uint_eq(sp.naxes, 4);
	ck_assert_uint_eq(sp.axes[0].nvals, 2);
	ck_assert_str_eq(sp.axes[0].vals[1], "[8, 8]");
	ck_assert_uint_eq(sp.axes[1].nvals, 3);
	ck_assert_str_eq(sp.axes[1].vals[2], "100000 W");
	/* 25, 50, 100, 200, 400 GB/s */
	ck_assert_uint_eq(sp.axes[2].nvals, 5);
	ck_assert_str_eq(sp.axes[2].vals[4], "400000000000 B/s");
	/* decimal steps keep their end: 0.1, 0.2, 0.3 */
	ck_assert_uint_eq(sp.axes[3].nvals, 3);
	ck_assert_str_eq(sp.axes[3].vals[2], "0.3");
	ck_assert_int_eq(fx_space_vary(&sp, "fabric.dims=[2,2]", &d), 0);
	ck_assert_uint_eq(sp.naxes, 4);
	ck_assert_uint_eq(sp.axes[0].nvals, 1);
	ck_assert_uint_eq(fx_space_count(&sp), 1 * 3 * 5 * 3);
	/* refused: mixed kinds, a backwards range, no value */
	ck_assert_int_eq(fx_space_vary(&sp, "p=60 kW:1 s:1 kW", &d), -1);
	ck_assert_int_eq(fx_space_vary(&sp, "p=5:1:1", &d), -1);
	ck_assert_int_eq(fx_space_vary(&sp, "p=", &d), -1);
	ck_assert_int_eq(d.status, FX_EXIT_INPUT);
	fx_space_release(&sp);
	fclose(d.out);
	fx_diag_release(&d);
}
END_TEST

START_TEST(space_refused)
{
	static const char *const bad[] = {
		"space: {vary: {a: 3}}\n",                                  /* one value */
		"space: {vary: {a: []}}\n",                                 /* no values */
		"space: {vary: {a: {from: 1, to: 5}}}\n",                   /* no step */
		"space: {vary: {a: [1, 2], b: [1]}, zip: [[a, b]]}\n",      /* lengths */
		"space: {vary: {a: [1, 2]}, zip: [[a, c]]}\n",              /* not varied */
		"space: {vary: {a: [1, 2]}, zip: [[a, a]]}\n",              /* twice (overflowed) */
		"space: {vary: {a: [1, 2], b: [3, 4]}, zip: [[a, b, a]]}\n", /* twice, apart */
		"space: {vary: {a: [1]}, objectives: [{fastest: x}]}\n",    /* sense */
		"space: {vary: {a: [1]}, constraints: [{metric: x}]}\n",    /* no bound */
		"space: {vary: {a: [1]}, constraints: [{metric: p_W, max: 3 s}]}\n", /* unit */
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		fx_spec s;
		fx_diag d;
		fx_space sp;
		int present;
		fx_diag_init(&d);
		d.out = fopen("/dev/null", "w");
		ck_assert_int_eq(fx_spec_load_text(&s, "bad.yaml", bad[i], &d), 0);
		ck_assert_msg(fx_space_parse(&sp, &s, &d, &present) == -1, "accepted: %s", bad[i]);
		ck_assert_int_eq(d.status, FX_EXIT_INPUT);
		fx_space_release(&sp);
		fx_spec_release(&s);
		fclose(d.out);
		fx_diag_release(&d);
	}
}
END_TEST

/* A Latin hypercube of n points over axes of n values each uses every
 * value of every axis exactly once, and a seed always gives the same
 * points. */
START_TEST(space_sample_strata)
{
	fx_space sp = {0};
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_space_vary(&sp, "a=1:16:1", &d), 0);
	ck_assert_int_eq(fx_space_vary(&sp, "b=1:16:1", &d), 0);
	ck_assert_int_eq(fx_space_vary(&sp, "c=1:16:1", &d), 0);
	uint64_t p[16], q[16];
	size_t n = fx_space_sample(&sp, 16, 42, p);
	ck_assert_uint_eq(n, 16);  /* 16 distinct rows: no two share a value */
	for (size_t a = 0; a < 3; a++) {
		int seen[16] = {0};
		for (size_t i = 0; i < n; i++) {
			size_t idx[3];
			fx_space_digits(&sp, p[i], idx);
			seen[idx[a]]++;
		}
		for (int v = 0; v < 16; v++)
			ck_assert_int_eq(seen[v], 1);
	}
	ck_assert_uint_eq(fx_space_sample(&sp, 16, 42, q), 16);
	ck_assert(memcmp(p, q, sizeof p) == 0);
	for (size_t i = 1; i < n; i++)
		ck_assert(p[i - 1] < p[i]);
	fx_space_release(&sp);
	fx_diag_release(&d);
}
END_TEST

/* The front against a sweep that knows only two objectives: sorted by
 * the first (max), a point is on the front when its second (min) beats
 * every point before it, ties handled by grouping equal first values. */
START_TEST(space_pareto_random)
{
	fx_space sp = {0};
	sp.nobj = 2;
	fx_space_objective obj[2] = {{.metric = "devices", .sense = FX_SPACE_MAX},
				     {.metric = "power_W", .sense = FX_SPACE_MIN}};
	sp.obj = obj;
	srand(7);
	for (int round = 0; round < 50; round++) {
		size_t n = 1 + (size_t)(rand() % 60);
		double v[120];
		unsigned char feas[60], got[60];
		for (size_t i = 0; i < n; i++) {
			v[2 * i] = rand() % 10;      /* small ranges: many ties */
			v[2 * i + 1] = rand() % 10;
			feas[i] = rand() % 5 != 0;
		}
		fx_space_pareto(&sp, n, v, feas, got);
		for (size_t i = 0; i < n; i++) {
			int front = feas[i];
			for (size_t j = 0; front && j < n; j++) {
				if (!feas[j])
					continue;
				int ge = v[2 * j] >= v[2 * i] && v[2 * j + 1] <= v[2 * i + 1];
				int gt = v[2 * j] > v[2 * i] || v[2 * j + 1] < v[2 * i + 1];
				front = !(ge && gt);
			}
			ck_assert_msg(got[i] == front, "round %d point %zu", round, i);
		}
	}
	/* a NaN objective leaves a point off the front and dominating none */
	double v[4] = {NAN, 1, 5, 5};
	unsigned char feas[2] = {1, 1}, got[2];
	fx_space_pareto(&sp, 2, v, feas, got);
	ck_assert(!got[0] && got[1]);
}
END_TEST

/* The runner (space/run.h) in the library, without the CLI: a torus space
 * of 4^3, 6^3 and 8^3 chips evaluated serially and on two worker
 * processes gives the same points, and the numbers of the chapter
 * "Supernodes" §6.5.4 (an even k^3 torus's cut is 2 k^2 links: 32 at k=4,
 * 72 at 6, 128 at 8; its diameter 3 k/2 hops).  A budget of 2 points
 * evaluates 2 and no more. */
static const char *const run_space =
	"name: run\n"
	"fabric: {kind: torus, dims: [4, 4, 4], link: {bandwidth: 50 GB/s, latency: 200 ns}}\n"
	"space:\n"
	"  vary:\n"
	"    fabric.dims: [[4, 4, 4], [6, 6, 6], [8, 8, 8]]\n"
	"  objectives:\n"
	"    - {maximize: devices}\n"
	"    - {maximize: bisection_per_device_Bps}\n"
	"  metrics: [bisection_links, diameter_hops]\n";

static void run_points(const fx_space_eval *ev, int jobs, uint64_t budget, fx_space_run *r,
		       fx_diag *d)
{
	*r = (fx_space_run){.ev = ev, .d = d, .jobs = jobs, .budget = budget, .seed = 1};
	ck_assert_int_eq(fx_space_run_all(r), 0);
	fx_space_run_front(r);
}

START_TEST(space_run_jobs)
{
	char path[] = "/tmp/fx-space-run-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *f = fdopen(fd, "w");
	fputs(run_space, f);
	fclose(f);
	fx_space sp;
	fx_spec spec;
	fx_diag d;
	load_space(&sp, &spec, &d, run_space);
	char **names;
	size_t nn = fx_space_names(&sp, &names);
	fx_space_eval ev = {.spec_path = path, .space = &sp, .names = names, .nnames = nn,
			    .time_limit = 60};
	size_t links = nn, diam = nn, dev = nn;
	for (size_t k = 0; k < nn; k++) {
		if (strcmp(names[k], "bisection_links") == 0)
			links = k;
		if (strcmp(names[k], "diameter_hops") == 0)
			diam = k;
		if (strcmp(names[k], "devices") == 0)
			dev = k;
	}
	ck_assert(links < nn && diam < nn && dev < nn);
	fx_space_run one, two;
	run_points(&ev, 1, 0, &one, &d);
	run_points(&ev, 2, 0, &two, &d);
	ck_assert_uint_eq(one.npts, 3);
	ck_assert_uint_eq(two.npts, 3);
	static const double want_links[3] = {32, 72, 128}, want_diam[3] = {6, 9, 12},
			    want_dev[3] = {64, 216, 512};
	for (uint64_t i = 0; i < 3; i++) {
		const fx_space_pt *a = fx_space_run_find(&one, i), *b = fx_space_run_find(&two, i);
		ck_assert(a && b);
		ck_assert_int_eq(a->status, FX_SPACE_FEASIBLE);
		ck_assert_double_eq(a->m[links], want_links[i]);
		ck_assert_double_eq(a->m[diam], want_diam[i]);
		ck_assert_double_eq(a->m[dev], want_dev[i]);
		ck_assert_int_eq(memcmp(a->m, b->m, nn * sizeof *a->m), 0);
		ck_assert_int_eq(a->pareto, b->pareto);
	}
	/* more chips, less cut a chip: every point is on the front */
	for (uint64_t i = 0; i < 3; i++)
		ck_assert_int_eq(fx_space_run_find(&one, i)->pareto, 1);
	fx_space_run_release(&two);
	/* the spec parsed once (explore's way) gives every point alike */
	fx_space_eval once = ev;
	once.spec_text = run_space;
	once.spec = &spec;
	run_points(&once, 1, 0, &two, &d);
	ck_assert_uint_eq(two.npts, 3);
	for (uint64_t i = 0; i < 3; i++) {
		const fx_space_pt *a = fx_space_run_find(&one, i), *b = fx_space_run_find(&two, i);
		ck_assert(b && b->status == a->status);
		ck_assert_int_eq(memcmp(a->m, b->m, nn * sizeof *a->m), 0);
	}
	fx_space_run_release(&two);
	run_points(&ev, 1, 2, &two, &d);
	ck_assert_uint_eq(two.evaluated, 2);
	ck_assert_uint_le(two.npts, 2);
	fx_space_run_release(&two);
	fx_space_run_release(&one);
	free(names);
	unload(&sp, &spec, &d);
	unlink(path);
}
END_TEST

Suite *suite_space(void)
{
	Suite *s = suite_create("space");
	TCase *tc = tcase_create("space");
	tcase_add_test(tc, space_grid);
	tcase_add_test(tc, space_vary);
	tcase_add_test(tc, space_refused);
	tcase_add_test(tc, space_sample_strata);
	tcase_add_test(tc, space_pareto_random);
	tcase_add_test(tc, space_run_jobs);
	suite_add_tcase(s, tc);
	return s;
}
