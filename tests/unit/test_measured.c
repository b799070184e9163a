/* collective.measured: measured times replace the model for the calls they
 * cover, interpolated log-log between sizes or read as buckets, never
 * extrapolated (routing/measured.c), against the chapter "Supernodes"'
 * measured two-server AllReduce (§6.4, §6.5.1). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#include "../../design/design.h"
#include "../../routing/routing.h"

static fx_coll_measured *parse_text(const char *yaml, fx_diag *d)
{
	fx_spec s;
	ck_assert_int_eq(fx_spec_load_text(&s, "m.yaml", yaml, d), 0);
	fx_coll_time tm;
	int rc = fx_coll_time_parse(d, &s, &tm);
	fx_spec_release(&s);
	return rc ? NULL : (fx_coll_measured *)tm.measured;
}

/* Two rows, 8 and 32 KiB: exact at both, log-log between (16 KiB is the
 * geometric middle: sqrt(20 x 40) = 28.284 us), modelled outside. */
START_TEST(rows_interpolate)
{
	fx_diag d;
	fx_diag_init(&d);
	fx_coll_measured *m = parse_text(
		"collective:\n  measured:\n"
		"    - {pattern: allreduce, ranks: 8, size: 8 KiB, time: 20 us}\n"
		"    - {pattern: allreduce, ranks: 8, size: 32 KiB, time: 40 us}\n", &d);
	ck_assert_ptr_nonnull(m);
	ck_assert_uint_eq(m->n, 1);
	double t = 0;
	char why[200];
	ck_assert_int_eq(fx_coll_measured_lookup(m, "allreduce", "ring", 8, 1, 8192, &t, why,
						 sizeof why), FX_COLL_MEASURED);
	ck_assert_double_eq_tol(t, 20e-6, 1e-18);
	ck_assert_int_eq(fx_coll_measured_lookup(m, "allreduce", NULL, 8, 1, 16384, &t, why,
						 sizeof why), FX_COLL_MEASURED);
	ck_assert_double_eq_tol(t, sqrt(20e-6 * 40e-6), 1e-15);
	ck_assert_ptr_nonnull(strstr(why, "log-log between 8 KiB and 32 KiB"));
	/* a quarter of the way in log size: 20 x 2^(1/4 x 1)... 8 KiB x 2^0.5 */
	ck_assert_int_eq(fx_coll_measured_lookup(m, "allreduce", NULL, 8, 1, 8192 * sqrt(2.0), &t,
						 NULL, 0), FX_COLL_MEASURED);
	ck_assert_double_eq_tol(t, 20e-6 * pow(2, 0.25), 1e-15);
	/* outside: never extrapolated, and said so */
	ck_assert_int_eq(fx_coll_measured_lookup(m, "allreduce", NULL, 8, 1, 65536, &t, why,
						 sizeof why), FX_COLL_OUTSIDE);
	ck_assert_ptr_nonnull(strstr(why, "outside the measured 8 KiB to 32 KiB"));
	ck_assert_ptr_nonnull(strstr(why, "not extrapolated"));
	ck_assert_int_eq(fx_coll_measured_lookup(m, "allreduce", NULL, 8, 1, 4096, &t, NULL, 0),
			 FX_COLL_OUTSIDE);
	/* other rank counts and patterns are the model's */
	ck_assert_int_eq(fx_coll_measured_lookup(m, "allreduce", NULL, 4, 1, 8192, &t, why,
						 sizeof why), FX_COLL_MODELLED);
	ck_assert_str_eq(why, "modelled");
	ck_assert_int_eq(fx_coll_measured_lookup(m, "all-gather", NULL, 8, 1, 8192, &t, NULL, 0),
			 FX_COLL_MODELLED);
	fx_coll_measured_free(m);
	fx_diag_release(&d);
}
END_TEST

/* §6.5.1: "for a 10 KiB message, taking the recorded 16 KiB bucket, the
 * measured value is 32.74 us" - between: next; and only on two nodes. */
START_TEST(bucket_next)
{
	fx_diag d;
	fx_diag_init(&d);
	fx_coll_measured *m = parse_text(
		"collective:\n  measured:\n"
		"    - {pattern: allreduce, ranks: 16, nodes: 2, size: 16 KiB, time: 32.74 us, between: next}\n"
		"    - {pattern: allreduce, ranks: 16, nodes: 2, size: 64 MiB, time: 466.1 us, between: next}\n",
		&d);
	ck_assert_ptr_nonnull(m);
	double t = 0;
	char why[200];
	ck_assert_int_eq(fx_coll_measured_lookup(m, "allreduce", "ring", 16, 2, 10240, &t, why,
						 sizeof why), FX_COLL_MEASURED);
	ck_assert_double_eq_tol(t, 32.74e-6, 1e-18);
	ck_assert_ptr_nonnull(strstr(why, "the 16 KiB point for 10 KiB"));
	ck_assert_int_eq(fx_coll_measured_lookup(m, "allreduce", NULL, 16, 2, 1 << 20, &t, NULL, 0),
			 FX_COLL_MEASURED);
	ck_assert_double_eq_tol(t, 466.1e-6, 1e-18);
	ck_assert_int_eq(fx_coll_measured_lookup(m, "allreduce", NULL, 16, 2, 128.0 * (1 << 20), &t,
						 NULL, 0), FX_COLL_OUTSIDE);
	/* 16 ranks inside one NVLink domain were not measured */
	ck_assert_int_eq(fx_coll_measured_lookup(m, "allreduce", NULL, 16, 1, 10240, &t, NULL, 0),
			 FX_COLL_MODELLED);
	fx_coll_measured_free(m);
	fx_diag_release(&d);
}
END_TEST

/* An nccl-tests log: ranks and hosts counted from its "#  Rank" lines,
 * the out-of-place time column found by its header, NCCL INFO lines
 * skipped, microseconds read as such. */
START_TEST(nccl_log)
{
	fx_diag d;
	fx_diag_init(&d);
	fx_spec s;
	ck_assert_int_eq(fx_spec_load_text(&s, "tests/specs/x.yaml",
					   "collective:\n  measured:\n"
					   "    - {pattern: allreduce, nccl_tests: nccl-allreduce-2x2.log}\n",
					   &d), 0);
	fx_coll_time tm;
	ck_assert_int_eq(fx_coll_time_parse(&d, &s, &tm), 0);
	const fx_coll_measured *m = tm.measured;
	ck_assert_uint_eq(m->n, 1);
	ck_assert_int_eq(m->c[0].ranks, 4);
	ck_assert_int_eq(m->c[0].nodes, 2);
	ck_assert_uint_eq(m->c[0].n, 4);
	ck_assert_double_eq(m->c[0].size[1], 16384);
	ck_assert_double_eq_tol(m->c[0].time[1], 25e-6, 1e-18);
	double t;
	ck_assert_int_eq(fx_coll_measured_lookup(m, "allreduce", NULL, 4, 2, 65536, &t, NULL, 0),
			 FX_COLL_MEASURED);
	ck_assert_double_eq_tol(t, 80e-6, 1e-18);
	fx_coll_measured_free((fx_coll_measured *)tm.measured);
	fx_spec_release(&s);
	fx_diag_release(&d);
}
END_TEST

/* Through fx_coll_run on two HGX H100 servers: TP16's reduction of the
 * 10 KiB hidden vector takes the measured 32.74 us, says so and keeps the
 * model's time beside it; §6.4: 64 MiB in 466.1 us is an algbw of 143.99
 * GB/s and a busbw of 1.875 x that.  Eight ranks inside one
 * server stay modelled (the book's 11.55 us). */
START_TEST(run_two_servers)
{
	fx_diag d;
	fx_diag_init(&d);
	fx_design ds;
	ck_assert_int_eq(fx_design_load(&ds, "specs/plans/hgx-h100-x2.yaml", NULL, 0, NULL, &d), 0);
	int64_t ranks[16];
	for (int i = 0; i < 16; i++)
		ranks[i] = i;
	fx_router *r = fx_router_new(&ds.fab, 0);
	fx_coll_req q = {"allreduce", "ring", ranks, 16, 10240, 0};
	fx_coll_result res;
	ck_assert_int_eq(fx_coll_run(&ds.fab, r, &q, &ds.coll, &res, &d), 0);
	ck_assert_int_eq(res.measured, 1);
	ck_assert_double_eq_tol(res.time, 32.74e-6, 1e-18);
	ck_assert(res.modelled_time > 100e-6);  /* a ring waits on the NIC 30 times */
	ck_assert_ptr_nonnull(strstr(res.time_source, "measured: allreduce over 16 ranks on 2 nodes"));
	fx_coll_result_release(&res);
	/* issue 28: hier (a ring in each server, one across) models about
	 * 19 us, 42 % short of the 32.74 us measured; the table's row (no
	 * algo: whatever NCCL chose) answers for hier too and says so, the
	 * model's beside it: at least 14 NVLink rounds of 0.822 us and 2 NIC
	 * rounds of 3.76 us (§6.4.2, footnote 9), 19.03 us before any bytes */
	q.algo = "hier";
	ck_assert_int_eq(fx_coll_run(&ds.fab, r, &q, &ds.coll, &res, &d), 0);
	ck_assert_int_eq(res.measured, 1);
	ck_assert_double_eq_tol(res.time, 32.74e-6, 1e-18);
	ck_assert_ptr_nonnull(strstr(res.time_source, "measured: allreduce over 16 ranks on 2 nodes"));
	ck_assert_msg(res.modelled_time > 19.03e-6 && res.modelled_time < 19.5e-6, "hier modelled %g s",
		      res.modelled_time);
	fx_coll_result_release(&res);
	q.algo = "ring";
	q.size = 64.0 * 1024 * 1024;
	ck_assert_int_eq(fx_coll_run(&ds.fab, r, &q, &ds.coll, &res, &d), 0);
	/* 466.1 us is printed to 0.1 us: 64 MiB over 466.05 .. 466.15 us is
	 * 143.96 .. 144.00 GB/s, the book's 143.99 among them */
	ck_assert(res.algbw / 1e9 >= 143.96 && res.algbw / 1e9 <= 144.00);
	ck_assert_double_eq_tol(res.busbw / res.algbw, 1.875, 1e-12);
	fx_coll_result_release(&res);
	q.n = 8;
	q.size = 10240;
	ck_assert_int_eq(fx_coll_run(&ds.fab, r, &q, &ds.coll, &res, &d), 0);
	ck_assert_int_eq(res.measured, 0);
	ck_assert_str_eq(res.time_source, "modelled");
	ck_assert_double_eq_tol(res.time * 1e6, 11.55, 0.005);
	fx_coll_result_release(&res);
	fx_router_free(r);
	fx_design_release(&ds);
	fx_diag_release(&d);
}
END_TEST

Suite *suite_measured(void)
{
	Suite *s = suite_create("measured");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, rows_interpolate);
	tcase_add_test(tc, bucket_next);
	tcase_add_test(tc, nccl_log);
	tcase_add_test(tc, run_two_servers);
	suite_add_tcase(s, tc);
	return s;
}
