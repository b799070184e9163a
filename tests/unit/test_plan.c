/* plan/: the planner against the chapter "Supernodes", §6.7.3's choice
 * table (every row: the scheme, its times and costs, the excluded
 * schemes, a flip threshold), §6.7.2's costs (Eq. 6-13), §6.2.5's
 * pipeline (Eq. 6-7) and §6.7.3's sensitivity example; and the search
 * itself: pruned by bounds it finds what exhaustive enumeration finds, on
 * every shipped plan, however it is split over worker processes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#include "../../cli/plan_run.h"
#include "../../design/design.h"
#include "../../plan/plan.h"
#include "../../plan/plan_internal.h"  /* fx_plan_cache_stats: the bound routes nothing */

/* x agrees with a figure the chapter prints to `step` (it rounds to it). */
#define PRINTED(x, printed, step)                                                       \
	ck_assert_msg(fabs((x) - (printed)) <= (step) / 2 * (1 + 1e-9),                 \
		      "%s = %.6f, the book prints %s", #x, (double)(x), #printed)

typedef struct planned {
	fx_diag d;
	fx_design ds;
	fx_plan_problem p;
	fx_plan_result r;
} planned;

static void plan_load(planned *x, const char *path, const char *const *sets, size_t nsets)
{
	memset(x, 0, sizeof *x);
	fx_diag_init(&x->d);
	ck_assert_int_eq(fx_design_load(&x->ds, path, sets, nsets, NULL, &x->d), 0);
	ck_assert_int_eq(fx_plan_problem_init(&x->p, &x->ds, &x->d), 0);
}

static void plan_run(planned *x)
{
	ck_assert_int_eq(fx_plan_search(&x->p, NULL, NULL, NULL, &x->r, &x->d), 0);
}

static void plan_release(planned *x)
{
	fx_plan_result_release(&x->r);
	fx_plan_problem_release(&x->p);
	fx_design_release(&x->ds);
	fx_diag_release(&x->d);
}

/* The family with these degrees (tp, cp, ep, pp), SP off. */
static const fx_plan_family *family(const planned *x, int64_t tp, int64_t cp, int64_t ep,
				    int64_t pp)
{
	for (size_t i = 0; i < x->r.nfam; i++) {
		const fx_plan_scheme *k = &x->r.fam[i].key;
		if (k->deg[FX_PG_TP] == tp && k->deg[FX_PG_CP] == cp && k->deg[FX_PG_EP] == ep &&
		    k->deg[FX_PG_PP] == pp && k->deg[FX_PG_DP] == 1 && !k->sp)
			return &x->r.fam[i];
	}
	ck_abort_msg("no family TP%lld CP%lld EP%lld PP%lld", (long long)tp, (long long)cp,
		     (long long)ep, (long long)pp);
	return NULL;
}

static void eval_idx(planned *x, int64_t idx, fx_plan_eval *e)
{
	memset(e, 0, sizeof *e);
	e->want_why = 1;
	ck_assert(idx >= 0);
	ck_assert_int_eq(fx_plan_scheme_at(&x->p, &x->r, (uint64_t)idx, &e->s), 0);
	fx_plan_evaluate(&x->p, NULL, e, &x->d);
}

/* The flip of one input in one direction. */
static const fx_plan_flip *flip(const fx_plan_flip *f, size_t n, fx_plan_knob k, int dir)
{
	for (size_t i = 0; i < n; i++)
		if (f[i].knob == k && f[i].dir == dir)
			return &f[i];
	ck_abort_msg("no flip of %s", fx_plan_knob_name(k));
	return NULL;
}

/* §6.7.3 row 1: "Four sessions, 128K, at least 75% must finish within 130
 * ms -> Four TP2 instances: TP1 cannot fit; TP2 all finish at about 119.1
 * ms, each on-time session costing about 0.238 GPU-s, lower than TP4's
 * 0.255 and TP8's 0.439"; §6.7.2: "TP1 is excluded first: the KV of a 128K
 * session brings the per-card requirement to 102.03 GB". */
START_TEST(row1_four_tp2)
{
	planned x;
	plan_load(&x, "specs/plans/hgx-h100-4x128k.yaml", NULL, 0);
	plan_run(&x);
	ck_assert_int_eq(x.p.obj[0], FX_PO_COST);
	ck_assert_int_eq(x.r.complete, 1);
	fx_plan_eval e;
	eval_idx(&x, x.r.best, &e);
	ck_assert_int_eq(e.s.deg[FX_PG_TP], 2);
	ck_assert_int_eq(e.s.instances, 4);
	ck_assert_int_eq(fx_plan_scheme_devices(&e.s), 2);
	PRINTED(e.session * 1e3, 119.1, 0.1);
	PRINTED(e.finish * 1e3, 119.1, 0.1);
	ck_assert_int_eq(e.on_time, 4);
	PRINTED(e.gpu_s, 0.953, 0.001);  /* 8 x 0.1191 */
	PRINTED(e.obj[FX_PO_COST], 0.238, 0.001);
	PRINTED(x.r.best_obj, 0.238, 0.001);
	/* the runners-up: TP4's and TP8's best */
	const fx_plan_family *f4 = family(&x, 4, 1, 1, 1), *f8 = family(&x, 8, 1, 1, 1);
	PRINTED(f4->best_obj, 0.255, 0.001);
	PRINTED(f8->best_obj, 0.439, 0.001);
	fx_plan_eval e4;
	eval_idx(&x, f4->best, &e4);
	ck_assert_int_eq(e4.s.instances, 2);
	PRINTED(e4.finish * 1e3, 127.6, 0.1);
	/* TP1 cannot fit, with the book's arithmetic */
	const fx_plan_family *f1 = family(&x, 1, 1, 1, 1);
	ck_assert_int_lt(f1->best, 0);
	ck_assert_int_eq(f1->rule, FX_PR_MEMORY);
	fx_plan_eval e1;
	eval_idx(&x, f1->closest, &e1);
	ck_assert_int_eq(e1.rule, FX_PR_MEMORY);
	ck_assert_msg(strstr(e1.why, "102.03 GB > 80.00 GB"), "%s", e1.why);
	/* a flip: below the 119.1 ms the four TP2 instances take, nothing
	 * meets the deadline (TP4 and TP8 need 127.6 and 123.5 ms for three) */
	fx_plan_flip *fl;
	size_t nf = fx_plan_flips(&x.p, &x.r, &fl, &x.d);
	const fx_plan_flip *dl = flip(fl, nf, FX_PK_DEADLINE, -1);
	ck_assert_int_eq(dl->found, 1);
	ck_assert_int_eq(dl->none_feasible, 1);
	PRINTED(dl->at * 1e3, 119.1, 0.2);
	/* a fifth session: four TP2 instances must queue one (238 ms, 80 %
	 * on time, 0.476), two TP4 instances finish 4 of 5 for 0.383 */
	const fx_plan_flip *ss = flip(fl, nf, FX_PK_SESSIONS, +1);
	ck_assert_int_eq(ss->found, 1);
	ck_assert_double_eq(ss->at, 5);
	ck_assert_str_eq(ss->to, "TP4 x2");
	free(fl);
	plan_release(&x);
}
END_TEST

/* §6.7.3 row 2: "Single session, 128K, 50 ms deadline -> One TP8
 * instance: About 41.2 ms; TP4 is about 63.8 ms, already exceeding the
 * deadline"; and the sensitivity example of the same eight cards: "doubling
 * NVLink bandwidth saves only about 2.5 us, while halving the per-round
 * startup overhead saves about 0.74 ms". */
START_TEST(row2_one_tp8)
{
	planned x;
	plan_load(&x, "specs/plans/hgx-h100-1x128k.yaml", NULL, 0);
	plan_run(&x);
	fx_plan_eval e;
	eval_idx(&x, x.r.best, &e);
	ck_assert_int_eq(e.s.deg[FX_PG_TP], 8);
	ck_assert_int_eq(e.s.instances, 1);
	PRINTED(e.session * 1e3, 41.2, 0.1);
	PRINTED(x.r.best_obj * 1e3, 41.2, 0.1);
	const fx_plan_family *f4 = family(&x, 4, 1, 1, 1);
	ck_assert_int_lt(f4->best, 0);
	ck_assert_int_eq(f4->rule, FX_PR_DEADLINE);
	fx_plan_eval e4;
	eval_idx(&x, f4->closest, &e4);
	PRINTED(e4.session * 1e3, 63.8, 0.1);
	ck_assert_msg(strstr(e4.why, "63.79 ms"), "%s", e4.why);
	fx_plan_sens s[4];
	ck_assert_uint_ge(fx_plan_sensitivity(&x.p, &x.r, s, &x.d), 2);
	PRINTED(s[0].saving * 1e6, 2.5, 0.1);    /* bandwidth doubled */
	PRINTED(s[1].saving * 1e3, 0.74, 0.01);  /* alpha halved */
	/* a flip: the choice stands until the deadline falls below 41.2 ms */
	fx_plan_flip *fl;
	size_t nf = fx_plan_flips(&x.p, &x.r, &fl, &x.d);
	const fx_plan_flip *dl = flip(fl, nf, FX_PK_DEADLINE, -1);
	ck_assert_int_eq(dl->found, 1);
	ck_assert_int_eq(dl->none_feasible, 1);
	PRINTED(dl->at * 1e3, 41.2, 0.1);
	free(fl);
	plan_release(&x);
}
END_TEST

/* §6.7.3 row 3: "Two HGX H100 servers, 16 cards total, single session,
 * 128K, 50 ms -> Still choose one TP8 instance: Cross-server TP16 takes
 * about 53.3 ms by measured AllReduce"; §6.5.1: T(16) = 2.48 ms + 128 x
 * 32.74 us = 6.67 ms.  The flip: TP16 wins once the measured reduction
 * drops to (5.147 - 2.48) / 128 = 20.8 us, 0.637 of 32.74 us. */
START_TEST(row3_still_tp8)
{
	planned x;
	plan_load(&x, "specs/plans/hgx-h100-x2.yaml", NULL, 0);
	plan_run(&x);
	fx_plan_eval e;
	eval_idx(&x, x.r.best, &e);
	ck_assert_int_eq(e.s.deg[FX_PG_TP], 8);
	ck_assert_int_eq(e.s.deg[FX_PG_PP], 1);
	ck_assert_int_eq(e.s.instances, 1);
	PRINTED(e.session * 1e3, 41.2, 0.1);
	ck_assert_int_eq(e.measured[FX_PG_TP], 0);  /* inside one server: modelled */
	const fx_plan_family *f16 = family(&x, 16, 1, 1, 1);
	ck_assert_int_lt(f16->best, 0);
	ck_assert_int_eq(f16->rule, FX_PR_DEADLINE);
	fx_plan_eval e16;
	eval_idx(&x, f16->closest, &e16);
	ck_assert_int_eq(e16.measured[FX_PG_TP], 1);
	PRINTED(e16.comm[FX_PG_TP] / 128 * 1e6, 32.74, 0.01);
	PRINTED(e16.local.time * 1e3, 2.48, 0.01);
	PRINTED(e16.step * 1e3, 6.67, 0.01);
	PRINTED(e16.session * 1e3, 53.3, 0.1);
	fx_plan_flip *fl;
	size_t nf = fx_plan_flips(&x.p, &x.r, &fl, &x.d);
	const fx_plan_flip *m = flip(fl, nf, FX_PK_MEASURED, -1);
	ck_assert_int_eq(m->found, 1);
	ck_assert_str_eq(m->to, "TP16 x1");
	ck_assert_double_eq_tol(m->at, (5.147e-3 - 2.48e-3) / 128 / 32.74e-6, 0.005);
	free(fl);
	plan_release(&x);
}
END_TEST

/* §6.7.3 row 4: "Four sessions, 32K, at least 75% must finish within 130
 * ms -> Four TP2 instances: TP1 can fit, but the eight steps take 173.3
 * ms; TP2 all finish at about 88.3 ms, each on-time session costing about
 * 0.177 GPU-s". */
START_TEST(row4_32k)
{
	planned x;
	plan_load(&x, "specs/plans/hgx-h100-4x32k.yaml", NULL, 0);
	plan_run(&x);
	fx_plan_eval e;
	eval_idx(&x, x.r.best, &e);
	ck_assert_int_eq(e.s.deg[FX_PG_TP], 2);
	ck_assert_int_eq(e.s.instances, 4);
	PRINTED(e.finish * 1e3, 88.3, 0.1);
	PRINTED(x.r.best_obj, 0.177, 0.001);
	const fx_plan_family *f1 = family(&x, 1, 1, 1, 1);
	ck_assert_int_lt(f1->best, 0);
	ck_assert_int_eq(f1->rule, FX_PR_DEADLINE);  /* by time, not capacity */
	fx_plan_eval e1;
	eval_idx(&x, f1->closest, &e1);
	PRINTED(e1.session * 1e3, 173.3, 0.1);
	ck_assert(e1.mem.total <= 80e9);
	fx_plan_flip *fl;
	size_t nf = fx_plan_flips(&x.p, &x.r, &fl, &x.d);
	const fx_plan_flip *dl = flip(fl, nf, FX_PK_DEADLINE, -1);
	ck_assert_int_eq(dl->found, 1);
	PRINTED(dl->at * 1e3, 88.3, 0.2);
	free(fl);
	plan_release(&x);
}
END_TEST

/* Eq. 6-7 (§6.2.5): "With four stages and four micro-batches ... (q + b -
 * 1) t": 7 ms at 1 ms a stage, 16 micro-batches 19 ms; and a session's
 * next step waits for its last. */
START_TEST(pipeline_eq_6_7)
{
	ck_assert_double_eq_tol(fx_plan_pipeline_finish(4, 4, 1, 3, 1e-3), 7e-3, 1e-15);
	ck_assert_double_eq_tol(fx_plan_pipeline_finish(4, 16, 1, 15, 1e-3), 19e-3, 1e-15);
	/* two steps of four interleaved sessions on four stages: the first
	 * session's second step enters stage 0 at 4 ms, done at 8 ms */
	ck_assert_double_eq_tol(fx_plan_pipeline_finish(4, 4, 2, 0, 1e-3), 8e-3, 1e-15);
	ck_assert_double_eq_tol(fx_plan_pipeline_finish(4, 4, 2, 3, 1e-3), 11e-3, 1e-15);
	/* more sessions than stages: stage 0 is the bottleneck, m t a round */
	ck_assert_double_eq_tol(fx_plan_pipeline_finish(2, 4, 3, 3, 1e-3), (2 * 4 + 3 + 2) * 1e-3, 1e-15);
	/* no pipeline: steps x t */
	ck_assert_double_eq_tol(fx_plan_pipeline_finish(1, 1, 8, 0, 1e-3), 8e-3, 1e-15);
}
END_TEST

/* Pruned by bounds, the search finds the scheme exhaustive enumeration
 * finds, on every shipped plan, and calls it optimal only complete. */
START_TEST(pruned_is_exhaustive)
{
	static const char *const specs[] = {
		"specs/plans/hgx-h100-4x128k.yaml", "specs/plans/hgx-h100-1x128k.yaml",
		"specs/plans/hgx-h100-x2.yaml", "specs/plans/hgx-h100-4x32k.yaml",
		"specs/plans/cm384-qwen3-235b.yaml", "specs/plans/train-dense.yaml",
		"specs/plans/supernode-size.yaml", "specs/plans/supernode-v41.yaml",
		"specs/hgx-h100.yaml",
	};
	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
		planned a, b;
		plan_load(&a, specs[i], NULL, 0);
		plan_run(&a);
		plan_load(&b, specs[i], NULL, 0);
		b.p.exhaustive = 1;
		plan_run(&b);
		ck_assert_msg(a.r.best == b.r.best, "%s: pruned %lld, exhaustive %lld", specs[i],
			      (long long)a.r.best, (long long)b.r.best);
		ck_assert_msg(a.r.best_obj == b.r.best_obj || (isnan(a.r.best_obj) && isnan(b.r.best_obj)),
			      "%s", specs[i]);
		ck_assert_uint_eq(a.r.counts.generated, b.r.counts.generated);
		ck_assert_uint_le(a.r.counts.evaluated, b.r.counts.evaluated);
		ck_assert_uint_eq(b.r.counts.excluded[FX_PR_BOUND], 0);
		/* every scheme decided: counted once */
		uint64_t sum = a.r.counts.feasible;
		for (int k = 1; k < FX_PR_N; k++)
			sum += a.r.counts.excluded[k];
		ck_assert_uint_eq(sum, a.r.counts.considered);
		ck_assert_uint_le(a.r.counts.deadline_bounded, a.r.counts.excluded[FX_PR_DEADLINE]);
		/* the step model's bound routes nothing (its collectives free):
		 * §6.7.4's 8-card supernode is pruned by it before any of its
		 * collectives is routed, so the pruned search routes fewer */
		if (strstr(specs[i], "supernode-v41")) {
			ck_assert_uint_ge(a.r.counts.excluded[FX_PR_BOUND], 1);
			ck_assert_msg(a.r.counts.routed < b.r.counts.routed, "%s: pruned routed %llu, "
				      "exhaustive %llu", specs[i], (unsigned long long)a.r.counts.routed,
				      (unsigned long long)b.r.counts.routed);
		}
		plan_release(&a);
		plan_release(&b);
	}
}
END_TEST

/* The chapter "Supernodes" §6.7.4 through the step model (plan/
 * model_step.c): V4.1 Flash on 256 H100 cards, one instance per supernode.
 * The chapter's table per card: 2,632 / 19,420 / 19,392 / 19,378 token/s
 * and 14.1 / 17.3 / 18.4 / 18.9 ms steps at 8 / 64 / 128 / 256 cards; 64
 * is where the gain stops.  Within the 3 % issue #29 allows (the
 * inventory's derived values were fitted to the 8- and 64-card totals, so
 * those two check the plumbing; 128 and 256 are predictions). */
START_TEST(supernode_6_7_4_step)
{
	static const struct { int64_t ep; double tps, step; } row[] = {
		{8, 2632, 14.1e-3}, {64, 19420, 17.3e-3}, {128, 19392, 18.4e-3}, {256, 19378, 18.9e-3},
	};
	planned x;
	plan_load(&x, "specs/plans/supernode-v41.yaml", NULL, 0);
	ck_assert_ptr_eq(x.p.model, &fx_plan_model_step);
	plan_run(&x);
	ck_assert_int_ge(x.r.best, 0);
	fx_plan_scheme best;
	ck_assert_int_eq(fx_plan_scheme_at(&x.p, &x.r, (uint64_t)x.r.best, &best), 0);
	ck_assert_int_eq(best.deg[FX_PG_EP], 64);   /* the chapter's choice: 64 cards */
	ck_assert_int_eq(best.instances, 4);
	for (size_t i = 0; i < sizeof row / sizeof row[0]; i++) {
		size_t f = 0;
		while (f < x.r.nfam && x.r.fam[f].key.deg[FX_PG_EP] != row[i].ep)
			f++;
		ck_assert_uint_lt(f, x.r.nfam);
		fx_plan_eval e;
		memset(&e, 0, sizeof e);
		ck_assert_int_eq(fx_plan_scheme_at(&x.p, &x.r, x.r.fam[f].first, &e.s), 0);
		fx_plan_evaluate(&x.p, NULL, &e, &x.d);
		ck_assert_int_eq(e.rule, FX_PR_NONE);
		ck_assert_int_eq(e.devices, 256);
		double tps = e.obj[FX_PO_TOKENS_CARD];
		ck_assert_msg(fabs(tps / row[i].tps - 1) < 0.03, "EP%lld: %.1f token/s per card, the "
			      "book %.0f", (long long)row[i].ep, tps, row[i].tps);
		ck_assert_msg(fabs(e.step / row[i].step - 1) < 0.03, "EP%lld: step %.4g s, the book "
			      "%.3g", (long long)row[i].ep, e.step, row[i].step);
		/* the bound (collectives free, nothing routed) is a bound: no
		 * slower a step, no fewer tokens per card */
		fx_plan_eval b;
		memset(&b, 0, sizeof b);
		b.s = e.s;
		uint64_t routed0, hits0;
		double rs0;
		fx_plan_cache_stats(x.p.cache, &routed0, &hits0, &rs0);
		fx_plan_bound(&x.p, NULL, &b);
		uint64_t routed1, hits1;
		double rs1;
		fx_plan_cache_stats(x.p.cache, &routed1, &hits1, &rs1);
		ck_assert_uint_eq(routed1, routed0);
		ck_assert_uint_eq(hits1, hits0);
		ck_assert_int_eq(b.rule, FX_PR_NONE);
		ck_assert(b.step <= e.step && b.step > 0);
		ck_assert(b.obj[FX_PO_TOKENS_CARD] >= tps);
		ck_assert_double_eq(b.local.other_s, 0);
		/* 128 and 256 tie with 64 (within plan.uncertainty); 8 does not */
		ck_assert_int_eq(fx_plan_tied(&x.p, FX_PO_TOKENS_CARD, tps, x.r.best_obj), row[i].ep != 8);
	}
	plan_release(&x);
}
END_TEST

/* Worker processes: the same choice and the same counts of feasible
 * schemes as one process, every scheme's line read back. */
START_TEST(jobs_same_answer)
{
	planned a, b;
	plan_load(&a, "specs/plans/cm384-qwen3-235b.yaml", NULL, 0);
	a.p.exhaustive = 1;
	plan_run(&a);
	plan_load(&b, "specs/plans/cm384-qwen3-235b.yaml", NULL, 0);
	b.p.exhaustive = 1;
	fx_plan_runner run;
	ck_assert_int_eq(fx_plan_runner_init(&run, 2, &b.d), 0);
	ck_assert_int_eq(fx_plan_search(&b.p, NULL, fx_plan_runner_exec(&run), NULL, &b.r, &b.d), 0);
	fx_plan_runner_release(&run);
	ck_assert_int_eq(a.r.best, b.r.best);
	ck_assert_double_eq(a.r.best_obj, b.r.best_obj);
	ck_assert_uint_eq(a.r.counts.feasible, b.r.counts.feasible);
	ck_assert_uint_eq(a.r.counts.evaluated, b.r.counts.evaluated);
	for (int k = 0; k < FX_PR_N; k++)
		ck_assert_uint_eq(a.r.counts.excluded[k], b.r.counts.excluded[k]);
	plan_release(&a);
	plan_release(&b);
}
END_TEST

/* A limit stops the search: the best found, never called optimal. */
START_TEST(limit_not_optimal)
{
	planned x;
	plan_load(&x, "specs/plans/hgx-h100-4x128k.yaml", NULL, 0);
	x.p.limit = 10;
	plan_run(&x);
	ck_assert_int_eq(x.r.limited, 1);
	ck_assert_int_eq(x.r.complete, 0);
	ck_assert_uint_eq(x.r.counts.considered, 10);
	ck_assert_ptr_null(strstr(x.r.status, "optimal"));
	plan_release(&x);
}
END_TEST

Suite *suite_plan(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, row1_four_tp2);
	tcase_add_test(tc, row2_one_tp8);
	tcase_add_test(tc, row3_still_tp8);
	tcase_add_test(tc, row4_32k);
	tcase_add_test(tc, pipeline_eq_6_7);
	tcase_add_test(tc, supernode_6_7_4_step);
	tcase_add_test(tc, pruned_is_exhaustive);
	tcase_add_test(tc, jobs_same_answer);
	tcase_add_test(tc, limit_not_optimal);
	suite_add_tcase(s, tc);
	return s;
}
