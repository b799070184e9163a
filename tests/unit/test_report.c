/* The reports of report/report.h called as a program calls them: a loaded
 * design, a capture sink, typed values read back (no CLI, no text). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#include "../../core/sink.h"
#include "../../report/report.h"

#define MIB (1024.0 * 1024.0)

typedef struct loaded {
	fx_design ds;
	fx_diag d;
	fx_sink cap;
} loaded;

static void load(loaded *l, const char *path, const char *const *sets, size_t nsets)
{
	fx_diag_init(&l->d);
	ck_assert_int_eq(fx_design_load(&l->ds, path, sets, nsets, NULL, &l->d), 0);
	fx_sink_capture_init(&l->cap);
}

static void unload(loaded *l)
{
	fx_sink_release(&l->cap);
	fx_design_release(&l->ds);
	fx_diag_release(&l->d);
}

static double value(const loaded *l, const char *table, const char *sel, const char *is,
		    const char *field, fx_field_kind kind)
{
	fx_value v;
	ck_assert_msg(fx_sink_value(&l->cap, table, sel, is, field, &v), "no %s.%s", table, field);
	ck_assert_int_eq(v.kind, kind);
	return v.num;
}

/* A 4x4x4 torus of 50 GB/s links (TPU v4 cube): diameter 3 x 4/2 = 6 hops;
 * halving one dimension cuts 2 links of each of its 16 rings, 32 links,
 * 1.6 TB/s, 50 GB/s per device; the mean over the 64 x 63 ordered pairs
 * is 64 x 64 x 3 x 1 (a ring of 4's mean distance, 0 1 2 1) / 4032. */
START_TEST(metrics_torus_by_hand)
{
	loaded l;
	load(&l, "specs/tpu-v4-cube.yaml", NULL, 0);
	ck_assert_int_eq(fx_report_metrics(&l.ds, NULL, &l.cap, &l.d), 0);
	ck_assert_double_eq(value(&l, "metrics", NULL, NULL, "diameter_hops", FX_F_INT), 6);
	ck_assert_double_eq(value(&l, "metrics", NULL, NULL, "bisection_links", FX_F_NUM), 32);
	ck_assert_double_eq_tol(value(&l, "metrics", NULL, NULL, "bisection_bandwidth_Bps", FX_F_BPS),
				32 * 50e9, 1);
	ck_assert_double_eq_tol(value(&l, "metrics", NULL, NULL, "bisection_per_device_Bps", FX_F_BPS),
				50e9, 1e-3);
	ck_assert_double_eq_tol(value(&l, "metrics", NULL, NULL, "mean_hops", FX_F_NUM),
				64.0 * 64 * 3 / (64 * 63), 1e-12);
	/* the histogram: 6 ordered pairs per device at one hop (its six neighbours) */
	ck_assert_double_eq(value(&l, "hop_histogram", "hops", "1", "pairs", FX_F_NUM), 64 * 6);
	ck_assert_ptr_null(fx_sink_find(&l.cap, "failed"));  /* intact: no failed record */
	unload(&l);
}
END_TEST

/* The chapter "Supernodes" §6.5.1: all-to-all of M = 32 MiB on the 64-card
 * torus puts 64 x M x (192/63) / 384 bytes on every directed link, at
 * 50 GB/s; the spec's time adds the farthest path's 6 x 200 ns (overhead
 * 0).  The report's collectives[pattern=all-to-all].time_s is that, under
 * both ECMP ends (a torus of 4 has no ties to break). */
START_TEST(collectives_alltoall_by_hand)
{
	loaded l;
	load(&l, "specs/tpu-v4-cube.yaml", NULL, 0);
	ck_assert_int_eq(fx_report_collectives(&l.ds, NULL, &l.cap, &l.d), 0);
	double want = 64 * 32 * MIB * (192.0 / 63) / 384 / 50e9 + 6 * 200e-9;
	double t = value(&l, "collectives", "pattern", "all-to-all", "time_s", FX_F_SECONDS);
	ck_assert_double_eq_tol(t, want, want * 1e-12);
	const fx_table *c = fx_sink_find(&l.cap, "collectives");
	ck_assert_uint_eq(fx_table_rows(c), 4);  /* ring, tree, all-to-all split and hash */
	fx_value pol, t2;
	ck_assert(fx_table_value(c, 3, "routing_policy", &pol));
	ck_assert_str_eq(pol.text, "hash");
	ck_assert(fx_table_value(c, 3, "time_s", &t2));
	ck_assert_double_eq(t2.num, t);
	ck_assert_double_eq(value(&l, "collectives", "pattern", "all-to-all", "size_bytes", FX_F_BYTES),
			    32 * MIB);

	/* the run kept for a caller (explore's link loads) is that one */
	fx_coll_result keep;
	int kept = 0;
	fx_collectives_opts o = {.keep_a2a = &keep, .kept = &kept};
	fx_sink_release(&l.cap);
	fx_sink_capture_init(&l.cap);
	ck_assert_int_eq(fx_report_collectives(&l.ds, &o, &l.cap, &l.d), 0);
	ck_assert_int_eq(kept, 1);
	ck_assert_double_eq(keep.time, t);
	fx_coll_result_release(&keep);
	unload(&l);
}
END_TEST

/* A collective that does not apply (a power-of-two algorithm on 6 ranks)
 * is a row with null figures, not a failure; ranks past the fabric are
 * refused naming the count. */
START_TEST(collectives_not_applicable)
{
	const char *sets[] = {"workload.collectives=[{pattern: allreduce, algo: rhd, "
			      "size: 1 MiB, ranks: 6}]"};
	loaded l;
	load(&l, "specs/tpu-v4-cube.yaml", sets, 1);
	ck_assert_int_eq(fx_report_collectives(&l.ds, NULL, &l.cap, &l.d), 0);
	fx_value v;
	ck_assert(fx_sink_value(&l.cap, "collectives", "ranks", "6", "time_s", &v));
	ck_assert_int_eq(v.type, FX_CELL_NULL);
	int64_t *r;
	int64_t n;
	fx_diag q;
	fx_diag_init(&q);
	q.out = fopen("/dev/null", "w");
	ck_assert_int_eq(fx_report_ranks(&l.ds, 65, NULL, &r, &n, &q), -1);
	ck_assert_ptr_nonnull(strstr(q.first, "from 1 to 64, got '65'"));
	ck_assert_int_eq(fx_report_ranks(&l.ds, 5, NULL, &r, &n, &q), 0);
	ck_assert_int_eq(n, 5);
	ck_assert_int_eq(r[4], 4);
	free(r);
	fclose(q.out);
	fx_diag_release(&q);
	unload(&l);
}
END_TEST

/* Power: the cube's 64 chips at their measured 192 W (the spec's only
 * figure) are 12288 W; a DGX H100 build of 12 nodes at 10.2 kW each is
 * 122.4 kW, 2.4 kW over a 120 kW budget: whole tables, 1, exit 3. */
START_TEST(power_by_hand)
{
	loaded l;
	load(&l, "specs/tpu-v4-cube.yaml", NULL, 0);
	ck_assert_int_eq(fx_report_power(&l.ds, NULL, &l.cap, &l.d), 0);
	ck_assert_double_eq(value(&l, "power", NULL, NULL, "power_W", FX_F_WATTS), 64 * 192);
	ck_assert_double_eq(value(&l, "power", NULL, NULL, "build_devices", FX_F_INT), 64);
	unload(&l);

	const char *sets[] = {"power={node: 10.2 kW}"};
	load(&l, "specs/dgx-h100-256.yaml", sets, 1);
	l.d.out = fopen("/dev/null", "w");
	fx_power_opts o = {.budget_W = 120e3, .nodes = 12};
	ck_assert_int_eq(fx_report_power(&l.ds, &o, &l.cap, &l.d), 1);
	ck_assert_int_eq(l.d.status, FX_EXIT_INFEASIBLE);
	ck_assert_double_eq_tol(value(&l, "power", NULL, NULL, "power_W", FX_F_WATTS), 122.4e3, 1e-6);
	ck_assert_double_eq_tol(value(&l, "power", NULL, NULL, "over_budget_W", FX_F_WATTS), 2.4e3,
				1e-6);
	ck_assert_ptr_nonnull(fx_sink_find(&l.cap, "racks"));
	fclose(l.d.out);
	unload(&l);
}
END_TEST

/* A degraded fabric's record: a failed node of cm384 takes its 8 devices
 * with it. */
START_TEST(metrics_failed_record)
{
	loaded l;
	load(&l, "specs/cm384.yaml", NULL, 0);
	ck_assert_int_eq(fx_fabric_fail(&l.ds.fab, "node=0", "--fail", &l.d), 0);
	ck_assert_int_eq(fx_report_failed(&l.ds.fab, &l.cap, &l.d), 0);
	ck_assert_double_eq(value(&l, "failed", NULL, NULL, "devices_failed", FX_F_INT), 8);
	ck_assert_double_eq(value(&l, "failed", NULL, NULL, "devices_joined", FX_F_INT), 384 - 8);
	unload(&l);
}
END_TEST

/* The size sweep on HGX H100 (specs/hgx-h100.yaml: 18 links of 25 GB/s,
 * 450 GB/s per GPU through the NVSwitch chips; book §6.4.2's alpha of
 * 0.822 us per round, path latency included), by hand:
 *   ring allreduce over 8: 2 x 7 = 14 rounds of S/8, so at S = 1 KiB
 *     14 x 0.822 us + 14 x 128 B / 450 GB/s = 11.5119822 us;
 *   tree allreduce, one chunk at 1 KiB: 2 log2 8 = 6 rounds of all S,
 *     6 x 0.822 us + 6 x 1024 B / 450 GB/s = 4.9456533 us;
 *   rhd (recursive halving, doubling): 2 log2 8 = 6 rounds moving
 *     2 x 7/8 x S in all, 4.932 us + 1792 B / 450 GB/s = 4.9359822 us,
 *     the fastest at 1 KiB (swing ties it; the first listed wins).
 * Ring and tree cross once between 1 KiB and 4 MiB (ring is faster at
 * 4 MiB): each crossover named is where the faster of its pair changes
 * (checked by running both 0.1 % either side). */
START_TEST(sweep_hgx_by_hand)
{
	loaded l;
	load(&l, "specs/hgx-h100.yaml", NULL, 0);
	fx_router *r = fx_router_new(&l.ds.fab, 0);
	const fx_coll_algo *al[] = {fx_coll_find("allreduce", "ring"), fx_coll_find("allreduce", "tree"),
				    fx_coll_find("allreduce", "rhd")};
	ck_assert_ptr_nonnull(al[0]);
	ck_assert_ptr_nonnull(al[1]);
	ck_assert_ptr_nonnull(al[2]);
	double sizes[] = {1024, 4 * MIB};
	int64_t ranks[] = {0, 1, 2, 3, 4, 5, 6, 7};
	fx_sweep_result res = {0};
	fx_sweep_opts o = {.req = {.pattern = "allreduce", .ranks = ranks, .n = 8}, .algos = al, .nalgos = 3,
			   .sizes = sizes, .nsizes = 2, .keep = &res};
	ck_assert_int_eq(fx_report_sweep(&l.ds, r, &o, &l.cap, &l.d), 0);
	fx_value v;
	const fx_table *ring = fx_sink_find(&l.cap, "sweep-ring");
	const fx_table *tree = fx_sink_find(&l.cap, "sweep-tree");
	ck_assert_ptr_nonnull(ring);
	ck_assert_ptr_nonnull(tree);
	ck_assert(fx_table_value(ring, 0, "time_s", &v));
	ck_assert_double_eq_tol(v.num, 14 * 0.822e-6 + 14 * 128 / 450e9, 1e-15);
	ck_assert(fx_table_value(tree, 0, "time_s", &v));
	ck_assert_double_eq_tol(v.num, 6 * 0.822e-6 + 6 * 1024 / 450e9, 1e-15);
	const fx_table *fast = fx_sink_find(&l.cap, "sweep-fastest");
	ck_assert_ptr_nonnull(fast);
	ck_assert(fx_table_value(fast, 0, "algo", &v));
	ck_assert_str_eq(v.text, "rhd");
	ck_assert(fx_table_value(fast, 0, "time_s", &v));
	ck_assert_double_eq_tol(v.num, 6 * 0.822e-6 + 1792 / 450e9, 1e-15);
	/* the long table carries every row (3 x 2) and no text */
	const fx_table *all = fx_sink_find(&l.cap, "sweep");
	ck_assert_ptr_nonnull(all);
	ck_assert(all->no_text);
	ck_assert(fx_table_value(all, 5, "algo", &v));
	ck_assert_str_eq(v.text, "rhd");
	ck_assert(!fx_table_value(all, 6, "algo", &v));
	/* the figures kept for a plot, and ring = tree at each crossover */
	ck_assert_int_eq(res.nalgos, 3);
	ck_assert(res.ran[0] && res.ran[1] && res.ran[2]);
	ck_assert_double_eq_tol(res.time_s[0], 14 * 0.822e-6 + 14 * 128 / 450e9, 1e-15);
	int ring_tree = 0;
	for (size_t k = 0; k < res.ncross; k++) {
		const fx_sweep_cross *x = &res.cross[k];
		ck_assert(x->size_bytes > 1024 && x->size_bytes < 4 * MIB);
		double diff[2];
		for (int side = 0; side < 2; side++) {
			fx_coll_req q = {.pattern = "allreduce", .ranks = ranks, .n = 8,
					 .size = x->size_bytes * (side ? 1.001 : 0.999)};
			fx_coll_result ra, rb;
			q.algo = al[x->a]->name;
			ck_assert_int_eq(fx_coll_run(&l.ds.fab, r, &q, &l.ds.coll, &ra, &l.d), 0);
			q.algo = al[x->b]->name;
			ck_assert_int_eq(fx_coll_run(&l.ds.fab, r, &q, &l.ds.coll, &rb, &l.d), 0);
			diff[side] = ra.time - rb.time;
			fx_coll_result_release(&ra);
			fx_coll_result_release(&rb);
		}
		/* the faster one changes within 0.1 % of the size named */
		ck_assert_msg((diff[0] < 0) != (diff[1] < 0), "%s/%s at %g B: no change of sign",
			      al[x->a]->name, al[x->b]->name, x->size_bytes);
		ring_tree += x->a == 0 && x->b == 1;
	}
	ck_assert_int_eq(ring_tree, 1);
	fx_sweep_result_release(&res);
	fx_router_free(r);
	unload(&l);
}
END_TEST

/* NVL72 (specs/nvl72.yaml; hardware.md §2: 72 GPUs, 18 NVLink 5 links of
 * 50 GB/s each, one to each of the 18 NVSwitch chips): the canonical half
 * split carries 36 x 900 GB/s = 32.4 TB/s; losing one chip leaves each
 * GPU 17 of its 18 links, 17/18 of its bandwidth and of the bisection.
 * The 18 chips are one class (proven alike), so one is failed and stands
 * for 18; --all fails each of the 18 and must give the same numbers.  The
 * design's failure mask is put back after the run. */
START_TEST(failures_nvl72_by_hand)
{
	for (int all = 0; all < 2; all++) {
		loaded l;
		load(&l, "specs/nvl72.yaml", NULL, 0);
		fx_failures_opts o = {.kind = "switch", .k = 1, .all = all};
		ck_assert_int_eq(fx_report_failures(&l.ds, &o, &l.cap, &l.d), 0);
		ck_assert(!fx_fabric_degraded(&l.ds.fab));
		ck_assert_double_eq_tol(value(&l, "failures_intact", NULL, NULL, "bisection_bandwidth_Bps",
					      FX_F_BPS), 36 * 900e9, 1);
		ck_assert_double_eq_tol(value(&l, "failures_intact", NULL, NULL, "worst_device_Bps",
					      FX_F_BPS), 900e9, 1e-3);
		ck_assert_double_eq(value(&l, "failures_summary", NULL, NULL, "evaluated", FX_F_INT),
				    all ? 18 : 1);
		ck_assert_double_eq(value(&l, "failures_summary", NULL, NULL, "elements_covered", FX_F_NUM), 18);
		ck_assert_double_eq_tol(value(&l, "failures_summary", NULL, NULL, "bisection_kept_worst",
					      FX_F_FRACTION), 17.0 / 18, 1e-12);
		ck_assert_double_eq_tol(value(&l, "failures_summary", NULL, NULL, "worst_device_kept_mean",
					      FX_F_FRACTION), 17.0 / 18, 1e-12);
		ck_assert_double_eq(value(&l, "failures_summary", NULL, NULL, "devices_cut_off_worst",
					  FX_F_NUM), 0);
		unload(&l);
	}
}
END_TEST

/* The placement report on HGX H100 serving Qwen3-32B (specs/hgx-h100.yaml):
 * four TP2 instances of 2 GPUs placed; the §6.7 deployment table as the
 * chapter "Supernodes" §6.7.3 gives it: TP1 cannot fit (its weights and
 * KV cache exceed 80 GB), and GPU time per on-time session is 0.238,
 * 0.255 and 0.439 GPU·s for TP2, TP4 and TP8. */
START_TEST(place_hgx_deployments)
{
	loaded l;
	load(&l, "specs/hgx-h100.yaml", NULL, 0);
	fx_place_report_opts o = {.time_limit = 10};
	ck_assert_int_eq(fx_report_place(&l.ds, &o, &l.cap, &l.d), 0);
	ck_assert_double_eq(value(&l, "place_summary", NULL, NULL, "devices_per_instance", FX_F_INT), 2);
	ck_assert_double_eq(value(&l, "place_summary", NULL, NULL, "instances_placed", FX_F_INT), 4);
	fx_value v;
	ck_assert(fx_sink_value(&l.cap, "choices", "tp", "1", "fits", &v));
	ck_assert_double_eq(v.num, 0);
	static const char *const tp[] = {"2", "4", "8"};
	static const double book[] = {0.238, 0.255, 0.439};
	for (int i = 0; i < 3; i++)
		ck_assert_double_eq_tol(value(&l, "choices", "tp", tp[i], "gpu_time_per_on_time_s",
					      FX_F_GPU_SECONDS), book[i], 0.0005);
	unload(&l);
}
END_TEST

/* The plan report on HGX H100 (specs/hgx-h100.yaml: Qwen3-32B, four
 * sessions of 128K by a 130 ms deadline), run here (no exec, no hooks):
 * it chooses four TP2 instances as the chapter "Supernodes" §6.7.3 does,
 * each session done in 119.1 ms at 0.238 GPU·s per on-time session, and
 * calls it optimal only because every scheme was compared or bounded. */
START_TEST(plan_hgx_by_the_book)
{
	loaded l;
	load(&l, "specs/hgx-h100.yaml", NULL, 0);
	fx_plan_opts o = {.context = -1, .tie = -1, .margin = -1, .jobs = 1, .sensitivity = 1};
	ck_assert_int_eq(fx_plan_check_opts(&l.ds, &o, &l.d), 0);
	ck_assert_int_eq(fx_report_plan(&l.ds, &o, &l.cap, &l.d), 0);
	fx_value v;
	ck_assert(fx_sink_value(&l.cap, "plan", NULL, NULL, "choice", &v));
	ck_assert_str_eq(v.text, "TP2 x4");
	ck_assert(fx_sink_value(&l.cap, "plan", NULL, NULL, "status", &v));
	ck_assert(strncmp(v.text, "optimal", 7) == 0);
	ck_assert_double_eq_tol(value(&l, "plan", NULL, NULL, "gpu_time_per_on_time_s", FX_F_GPU_SECONDS),
				0.238, 0.0005);
	ck_assert_double_eq_tol(value(&l, "plan_choice", NULL, NULL, "session_s", FX_F_SECONDS),
				0.1191, 0.00005);
	ck_assert_double_eq(value(&l, "plan_choice", NULL, NULL, "tp", FX_F_INT), 2);
	unload(&l);
}
END_TEST

/* The bill of materials of CloudMatrix384 (specs/cm384.yaml), against
 * ../shared/reference/hardware.md §1 (SemiAnalysis): 16 racks, 12 of
 * compute and 4 of network, and 5,376 400G LPO modules on the scale-up
 * plane (14 per NPU x 384: the 1,536 scale-out ones are not in this
 * spec); 56 L2 boxes of 2 of the 112 L2 chips. */
START_TEST(bom_cm384_by_the_source)
{
	loaded l;
	load(&l, "specs/cm384.yaml", NULL, 0);
	ck_assert_int_eq(fx_report_bom(&l.ds, NULL, &l.cap, &l.d), 0);
	ck_assert_double_eq(value(&l, "bom", NULL, NULL, "racks", FX_F_INT), 16);
	ck_assert_double_eq(value(&l, "bom", NULL, NULL, "compute_racks", FX_F_INT), 12);
	ck_assert_double_eq(value(&l, "bom", NULL, NULL, "network_racks", FX_F_INT), 4);
	ck_assert_double_eq(value(&l, "bom_parts", "type", "400G LPO", "count", FX_F_INT), 14 * 384);
	fx_value v;
	const fx_table *t = fx_sink_find(&l.cap, "bom_parts");
	ck_assert_ptr_nonnull(t);
	int boxes = 0;
	for (size_t r = 0; fx_table_value(t, r, "part", &v); r++)
		if (strcmp(v.text, "switch box") == 0 && fx_table_value(t, r, "count", &v))
			boxes += (int)v.num;
	ck_assert_int_eq(boxes, 112 / 2);
	unload(&l);
}
END_TEST

/* Two 8-NPU jobs on CloudMatrix384 (tests/specs/cm384-jobs.yaml), the L1
 * chips' uplinks tapered to 7 GB/s, by hand.  Each job is an all-to-all
 * (direct) of 34.3 MB per rank: b = 34.3e6 / 7 = 4.9e6 B to each peer.
 * a holds NPUs 0-3 of node 0 and 8-11 of node 1, b NPUs 4-7 and 12-15.
 * Per direction, node 0 sends 4 x 4 = 16 flows of b of each job to node
 * 1, NPU -> L1 -> L2 -> L1 -> NPU (4 hops, 0.8 us), split over 7 planes x
 * 16 L2 chips = 112 paths: each uplink of node 0 (L1 -> L2) and each
 * downlink of node 1 (L2 -> L1) carries 16 b / 112 = 700,000 B of a and
 * as much of b; node 1 -> node 0 alike.  Shared: 112 up + 112 down at
 * each of the two nodes = 448 directed links, 112 L2 chips and the 2 x 7
 * L1 chips.  An NPU's 7 flows leave over its 7 bundles of 2 x 28 GB/s:
 * 4.9e6 / 56e9 = 87.5 us.  Alone an uplink needs 700,000 / 7e9 = 100 us
 * (> 87.5), together 1.4e6 / 7e9 = 200 us: with the overhead 0.822 us,
 * 101.622 us alone, 201.622 us together, 100 us of interference each.
 * Placed one job a node, every flow is NPU -> L1 -> NPU (0.4 us), the
 * bundles bind, nothing is shared: 0.822 + 0.4 + 87.5 = 88.722 us, and
 * the L2 chips are no longer shared at all. */
START_TEST(jobs_cm384_by_hand)
{
	const char *sets[] = {"fabric.uplink.bandwidth=7 GB/s"};
	loaded l;
	load(&l, "tests/specs/cm384-jobs.yaml", sets, 1);
	fx_jobs_report_opts o = {.time_limit = 60};
	ck_assert_int_eq(fx_report_jobs(&l.ds, &o, &l.cap, &l.d), 0);
	const char *job[2] = {"a", "b"};
	for (int k = 0; k < 2; k++) {
		ck_assert_double_eq_tol(value(&l, "jobs_given_per_job", "name", job[k], "alone_s",
					      FX_F_SECONDS), 101.622e-6, 1e-15);
		ck_assert_double_eq_tol(value(&l, "jobs_given_per_job", "name", job[k], "together_s",
					      FX_F_SECONDS), 201.622e-6, 1e-15);
		ck_assert_double_eq_tol(value(&l, "jobs_given_per_job", "name", job[k], "interference_s",
					      FX_F_SECONDS), 100e-6, 1e-15);
		ck_assert_double_eq_tol(value(&l, "jobs_placed_per_job", "name", job[k], "together_s",
					      FX_F_SECONDS), 88.722e-6, 1e-15);
		ck_assert_double_eq_tol(value(&l, "jobs_placed_per_job", "name", job[k], "interference_s",
					      FX_F_SECONDS), 0, 1e-15);
		ck_assert_double_eq(value(&l, "jobs_placed_per_job", "name", job[k], "nodes", FX_F_INT), 1);
	}
	ck_assert_double_eq(value(&l, "jobs_given_shared", NULL, NULL, "shared_links", FX_F_INT), 448);
	ck_assert_double_eq(value(&l, "jobs_given_shared", NULL, NULL, "shared_switches", FX_F_INT),
			    112 + 14);
	ck_assert_double_eq(value(&l, "jobs_placed_shared", NULL, NULL, "shared_links", FX_F_INT), 0);
	ck_assert_double_eq(value(&l, "jobs_placed_shared", NULL, NULL, "shared_switches", FX_F_INT), 0);

	/* every shared link, up or down, carries 700,000 B of each job; 112
	 * of the chips are L2 */
	const fx_table *t = fx_sink_find(&l.cap, "jobs_given_shared_links");
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(fx_table_rows(t), 448);
	size_t up = 0, down = 0;
	fx_value from, to;
	for (size_t r = 0; r < fx_table_rows(t); r++) {
		const fx_cell *c = &t->cells[r * t->ncol + 2];
		ck_assert_int_eq(c->type, FX_CELL_LIST);
		ck_assert_int_eq(c->nlist, 2);
		ck_assert_double_eq_tol(c->list[0], 700000, 1e-6);
		ck_assert_double_eq_tol(c->list[1], 700000, 1e-6);
		ck_assert(fx_table_value(t, r, "link_from", &from) && fx_table_value(t, r, "link_to", &to));
		up += strncmp(from.text, "L1.", 3) == 0 && strncmp(to.text, "L2.", 3) == 0;
		down += strncmp(from.text, "L2.", 3) == 0 && strncmp(to.text, "L1.", 3) == 0;
	}
	ck_assert_int_eq(up, 224);
	ck_assert_int_eq(down, 224);
	t = fx_sink_find(&l.cap, "jobs_given_shared_switches");
	ck_assert_ptr_nonnull(t);
	size_t l2 = 0;
	for (size_t r = 0; fx_table_value(t, r, "switch", &from); r++)
		l2 += strncmp(from.text, "L2.", 3) == 0;
	ck_assert_int_eq(l2, 112);
	t = fx_sink_find(&l.cap, "jobs_placed_shared_switches");
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(fx_table_rows(t), 0);
	unload(&l);

	/* a design without jobs has no jobs report */
	load(&l, "specs/cm384.yaml", NULL, 0);
	ck_assert_int_eq(fx_report_jobs(&l.ds, NULL, &l.cap, &l.d), -1);
	ck_assert_int_eq(fx_sink_count(&l.cap), 0);
	unload(&l);
}
END_TEST

Suite *suite_report(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("report");
	tcase_add_test(tc, metrics_torus_by_hand);
	tcase_add_test(tc, collectives_alltoall_by_hand);
	tcase_add_test(tc, collectives_not_applicable);
	tcase_add_test(tc, power_by_hand);
	tcase_add_test(tc, metrics_failed_record);
	tcase_add_test(tc, sweep_hgx_by_hand);
	tcase_add_test(tc, failures_nvl72_by_hand);
	tcase_add_test(tc, place_hgx_deployments);
	tcase_add_test(tc, plan_hgx_by_the_book);
	tcase_add_test(tc, bom_cm384_by_the_source);
	tcase_add_test(tc, jobs_cm384_by_hand);
	suite_add_tcase(s, tc);
	return s;
}
