/*
 * The step model (step/step.h) on a loaded design: its communication is
 * routed on the design's fabric, every group of a call's kind at once
 * (the groups of an instance share the links, as placement measures
 * them), with the spec's collective time model; the algorithm is the
 * spec's `workload.groups.<kind>.algo` when its pattern is the call's,
 * else ring for reductions and gathers, direct for all-to-all, chain for
 * a hand-off.  Routed times are kept per call, so evaluating many loads
 * routes each collective once.
 *
 * A measured table (pattern, ranks, size, time) would be asked first,
 * here, and its answers marked measured.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "design.h"

typedef struct comm_ctx {
	const fx_design *ds;
	const int64_t *devs;     /* instance rank -> device */
	int64_t ndev;
	fx_router *r;
	fx_diag *d;
} comm_ctx;

static const char *algo_for(const fx_design *ds, const fx_step_call *c)
{
	static const fx_group_kind kind[FX_STEP_GROUPS] = {FX_GROUP_TP, FX_GROUP_EP, FX_GROUP_PP,
							   FX_GROUP_KINDS, FX_GROUP_KINDS};
	fx_group_kind k = kind[c->group];
	if (k < FX_GROUP_KINDS) {
		const fx_group_traffic *t = &ds->work.traffic[k];
		if (t->algo[0] && strcmp(t->pattern, c->pattern) == 0)
			return t->algo;
	}
	if (strcmp(c->pattern, "all-to-all") == 0)
		return "direct";
	if (strcmp(c->pattern, "broadcast") == 0)
		return "chain";
	return "ring";
}

static double routed(void *ctx, const fx_step_call *c, int *measured)
{
	comm_ctx *x = ctx;
	*measured = 0;
	int64_t span = c->n * c->stride;
	if (c->n < 2)
		return 0;
	if (span > x->ndev) {
		fx_diag_error(x->d, NULL, "the step model's %s %s over %lld ranks (stride %lld) needs "
			      "%lld devices; the fabric has %lld", fx_step_group_name(c->group),
			      c->pattern, (long long)c->n, (long long)c->stride, (long long)span,
			      (long long)x->ndev);
		return NAN;
	}
	/* every group of this kind among the first `span`-aligned ranks of
	 * one instance: bases b with (b / stride) % n == 0 */
	int64_t D = x->ndev / span * span;
	size_t ng = (size_t)(D / c->n);
	int64_t *ranks = fx_xmalloc((size_t)D * sizeof *ranks);
	fx_coll_req *q = fx_xmalloc(ng * sizeof *q);
	const char *algo = algo_for(x->ds, c);
	size_t g = 0;
	for (int64_t b = 0; b < span && g < ng; b++) {
		if ((b / c->stride) % c->n)
			continue;
		int64_t *r = ranks + g * (size_t)c->n;
		for (int64_t j = 0; j < c->n; j++)
			r[j] = x->devs ? x->devs[b + j * c->stride] : b + j * c->stride;
		q[g++] = (fx_coll_req){c->pattern, algo, r, c->n, c->bytes, 0};
	}
	fx_coll_result res;
	double t = NAN;
	if (fx_coll_run_groups(&x->ds->fab, x->r, q, g, &x->ds->coll, &res, x->d) == 0) {
		t = res.time;
		fx_coll_result_release(&res);
	}
	free(ranks);
	free(q);
	return t;
}

int fx_design_step(const fx_design *ds, const int64_t *devs, int64_t ndev, const fx_step_load *ld,
		   fx_step_result *out, fx_diag *d)
{
	if (!ds->have_step)
		return fx_diag_error(d, NULL, "the spec has no model or workload.inventory to step");
	comm_ctx x = {ds, devs, devs ? ndev : ds->fab.ndev, fx_router_new(&ds->fab, 0), d};
	fx_router_set_policy(x.r, ds->coll.policy);
	fx_step_cache *cache = fx_step_cache_new(routed, &x);
	int rc = fx_step_eval(&ds->step, &ds->step_hw, &ds->step_layout, ld ? ld : &ds->step_load,
			      fx_step_comm_cached, cache, out);
	fx_step_cache_free(cache);
	fx_router_free(x.r);
	if (rc)
		return fx_diag_error(d, NULL, "step model: %s", out->why);
	return 0;
}
