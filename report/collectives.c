/*
 * The collectives report: the workload's collectives (or the default
 * three) over the fabric, the ranks a collective runs on, and one
 * collective over the first devices (report/report.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "report.h"

int fx_report_ranks(const fx_design *ds, int64_t nranks, const char *group, int64_t **out,
		    int64_t *n, fx_diag *d)
{
	const fx_fabric *f = &ds->fab;
	*out = NULL;
	*n = 0;
	if (nranks && group)
		return fx_diag_error(d, NULL, "give --ranks or --group, not both");
	int64_t *r = fx_xmalloc((size_t)(f->ndev ? f->ndev : 1) * sizeof *r);
	int64_t k = 0;
	uint8_t *reach = fx_xmalloc((size_t)f->ndev + 1);
	int64_t live = fx_fabric_reachable(f, reach);
	if (nranks) {
		long long v = nranks;
		if (v < 1 || v > f->ndev) {
			free(r);
			free(reach);
			return fx_diag_error(d, NULL, "--ranks: expected a number of ranks from 1 to %lld, "
					     "got '%lld'", (long long)f->ndev, v);
		}
		if (v > live) {
			free(r);
			free(reach);
			return fx_diag_infeasible(d, "--ranks %lld: the degraded fabric joins only %lld "
						  "of its %lld devices (the others failed or are cut off)",
						  v, (long long)live, (long long)f->ndev);
		}
		for (int64_t x = 0; x < f->ndev && k < v; x++)
			if (reach[x])
				r[k++] = x;
	} else if (group) {
		k = fx_design_group_devices(ds, group, r, d);
		for (int64_t i = 0; i < k; i++)
			if (!reach[r[i]]) {
				char nm[64];
				fx_fabric_vertex_name(f, r[i], nm, sizeof nm);
				int up = fx_fabric_vertex_up(f, r[i]);
				free(r);
				free(reach);
				return fx_diag_infeasible(d, "--group %s: its device '%s' %s", group, nm,
							  up ? "is cut off from the rest of the degraded fabric"
							     : "failed");
			}
		if (k <= 0) {
			free(reach);
			free(r);
			if (k < 0)
				return -1;
			return fx_diag_error(d, NULL, "--group: the spec defines no group '%s' with "
					     "devices (see 'groups:' in docs/spec.md)", group);
		}
	} else {
		for (int64_t x = 0; x < f->ndev; x++)
			if (reach[x])
				r[k++] = x;
		if (k == 0) {
			free(r);
			free(reach);
			return fx_diag_infeasible(d, "every one of the %lld devices failed: no rank "
						  "is left to run a collective", (long long)f->ndev);
		}
	}
	free(reach);
	*out = r;
	*n = k;
	return 0;
}

int fx_report_coll_first(const fx_design *ds, const char *pattern, const char *algo, int64_t n,
			 double size, const fx_coll_time *tm, fx_coll_result *out, fx_diag *d)
{
	const fx_fabric *f = &ds->fab;
	int64_t *ranks = fx_xmalloc((size_t)(n > 0 ? n : 1) * sizeof *ranks);
	/* on a degraded fabric: the first n devices it still joins */
	uint8_t *reach = fx_xmalloc((size_t)f->ndev + 1);
	int64_t k = 0, live = fx_fabric_reachable(f, reach);
	for (int64_t v = 0; v < f->ndev && k < n; v++)
		if (reach[v])
			ranks[k++] = v;
	free(reach);
	if (k < n) {
		free(ranks);
		return fx_diag_infeasible(d, "%s over %lld ranks: the degraded fabric joins "
					  "only %lld of its %lld devices (the others failed or are cut "
					  "off)", pattern, (long long)n, (long long)live,
					  (long long)f->ndev);
	}
	fx_coll_req q = {pattern, algo, ranks, n, size, 0};
	fx_router *r = fx_router_new(f, 0);
	int rc = fx_coll_run(f, r, &q, tm ? tm : &ds->coll, out, d);
	fx_router_free(r);
	free(ranks);
	return rc;
}

/* explore's section: the workload's collectives, or allreduce 10 KiB (ring
 * and tree) and all-to-all 32 MiB over all devices.  All-to-all is shown
 * under both routing policies (fluid split and per-flow hash), the two
 * ends of what ECMP gives. */
/* Whether q is the run explore's loads section asks for (a direct
 * all-to-all of 32 MiB over every device in order, the design's policy)
 * and explore wants it kept. */
static int keeps_a2a(const fx_design *ds, const fx_collectives_opts *o, const fx_coll_req *q)
{
	if (!o || !o->keep_a2a || *o->kept || strcmp(q->pattern, "all-to-all") != 0 ||
	    strcmp(q->algo, "direct") != 0 || q->size != 32.0 * 1024 * 1024 ||
	    q->n != ds->fab.ndev)
		return 0;
	for (int64_t i = 0; i < q->n; i++)
		if (q->ranks[i] != i)
			return 0;
	return 1;
}

int fx_report_collectives(const fx_design *ds, const fx_collectives_opts *o, fx_sink *out,
			  fx_diag *d)
{
	static const fx_wl_coll dflt[] = {
		{"allreduce", "ring", NULL, 10 * 1024, 0},
		{"allreduce", "tree", NULL, 10 * 1024, 0},
		{"all-to-all", "direct", NULL, 32 * 1024 * 1024, 0},
	};
	const fx_wl_coll *w = ds->nwl ? ds->wl : dflt;
	size_t n = ds->nwl ? ds->nwl : sizeof dflt / sizeof dflt[0];
	fx_router *r = fx_router_new(&ds->fab, 0);
	int rc = 0;
	static const fx_col cols[] = {
		{"pattern", "pattern", FX_F_TEXT}, {"algo", "algo", FX_F_TEXT},
		{"ranks", "ranks", FX_F_INT}, {"size_bytes", "size", FX_F_BYTES},
		{"routing_policy", "routing", FX_F_TEXT}, {"timing", "timing", FX_F_TEXT},
		{"rounds", "rounds", FX_F_INT},
		{"time_s", "time", FX_F_SECONDS}, {"time_source", "time is", FX_F_TEXT},
		{"busbw_Bps", "busbw", FX_F_BPS},
		{"max_link_bytes", "busiest link", FX_F_BYTES}, {NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("collectives", ds->nwl ? "Collectives (workload)" :
				     "Collectives (defaults)", cols);
	for (size_t i = 0; i < n && rc == 0; i++) {
		int64_t *ranks = NULL;
		fx_coll_req q = {0};
		rc = fx_report_ranks(ds, w[i].nranks, w[i].group, &ranks, &q.n, d);
		if (rc)
			break;
		q.pattern = w[i].pattern;
		q.algo = fx_coll_find(w[i].pattern, w[i].algo)->name;
		q.ranks = ranks;
		q.size = w[i].size;
		/* all-to-all: both ends of ECMP, and on dragonflies Valiant
		 * and UGAL too */
		int passes = strcmp(q.pattern, "all-to-all") != 0 ? 1
			     : fx_route_policy_applies(ds->fab.builder->router, FX_ROUTE_VALIANT) ? 4
			     : 2;
		fx_coll_result first;  /* pass 0's figures, without its arrays */
		int first_bad = 0, first_too_big = 0;
		memset(&first, 0, sizeof first);
		for (int pass = 0; pass < passes && rc == 0; pass++) {
			fx_coll_time tm = ds->coll;
			if (pass == 1 && passes == 2)  /* the other end of ECMP */
				tm.policy = tm.policy == FX_ROUTE_HASH ? FX_ROUTE_SPLIT : FX_ROUTE_HASH;
			if (pass >= 1 && passes == 4) {
				/* the design's policy first, then the other three in order */
				static const fx_route_policy order[] = {FX_ROUTE_SPLIT, FX_ROUTE_HASH,
									FX_ROUTE_VALIANT, FX_ROUTE_UGAL};
				fx_route_policy design = ds->coll.policy;
				int k = 0;
				for (int o = 0; o < 4; o++)
					if (order[o] != design && ++k == pass)
						tm.policy = order[o];
			}
			fx_coll_result res;
			int bad, too_big;
			if (pass == 1 && !fx_router_policy_matters(r)) {
				/* no tie for the policy to break (a mesh, a wafer, odd
				 * rings): the first run's figures, not a second run of
				 * a WSE-2's 3 M links */
				res = first;
				bad = first_bad;
				too_big = first_too_big;
			} else {
				fx_diag quiet;  /* a power-of-two algorithm on other rank counts: say so in the row */
				fx_diag_init(&quiet);
				quiet.out = fopen("/dev/null", "w");
				bad = fx_coll_run(&ds->fab, r, &q, &tm, &res, &quiet);
				if (quiet.out)
					fclose(quiet.out);
				if (quiet.status == FX_EXIT_INTERNAL)
					rc = fx_diag_internal(d, "collective %s/%s failed", q.pattern, q.algo);
				/* refused as too much routing work, not inapplicable */
				too_big = bad && quiet.status == FX_EXIT_UNDECIDED;
				fx_diag_release(&quiet);
				first = res;
				first.per_round = NULL;
				first.link_bytes = first.link_busy = NULL;
				first_bad = bad;
				first_too_big = too_big;
			}
			fx_table_cell(t, "%s", q.pattern);
			fx_table_cell(t, "%s", q.algo);
			fx_table_int(t, q.n);
			fx_table_num(t, q.size);
			fx_table_cell(t, "%s", fx_route_policy_name(tm.policy));
			fx_table_cell(t, "%s", fx_timing_name(tm.timing));
			if (bad) {
				fx_table_null(t, "-");
				fx_table_null(t, too_big ? "past the work limit" : "not applicable");
				fx_table_null(t, "-");
				fx_table_null(t, "-");
				fx_table_null(t, "-");
				continue;
			}
			fx_table_int(t, res.rounds);
			fx_table_num(t, res.time);
			fx_table_cell(t, "%s", res.measured ? "measured" : "modelled");
			fx_table_num(t, res.busbw);
			fx_table_num(t, res.max_link_bytes);
			if (pass == 0 && keeps_a2a(ds, o, &q)) {  /* explore's loads: the same run */
				*o->keep_a2a = res;
				*o->kept = 1;
				continue;
			}
			fx_coll_result_release(&res);
		}
		free(ranks);
	}
	rc |= fx_sink_put(out, t, d);
	fx_router_free(r);
	return rc;
}
