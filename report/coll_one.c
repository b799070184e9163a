/*
 * One collective's report: its result, the failed record, its rounds,
 * WaferLLM's PLMR figures on a wafer, and the model against measurements
 * (report/report.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../calib/calib.h"
#include "../core/xalloc.h"
#include "report.h"

/* One collective's result as a record; versus/cross: the --versus
 * crossover (cross <= 0: none found), versus NULL: not asked. */
static fx_table *result_record(const fx_coll_req *q, const fx_coll_algo *a,
			       const fx_coll_result *res, const char *router, const fx_coll_time *tm,
			       const char *versus, double cross)
{
	fx_table *t = fx_record_new("collective", "Collective", NULL);
	fx_record_text(t, "pattern", "pattern", "%s", q->pattern);
	fx_record_text(t, "algo", "algorithm", "%s", a->name);
	fx_record_text(t, "algo_summary", "how", "%s", a->summary);
	fx_record_int(t, "ranks", "ranks", q->n);
	fx_record_num(t, "size_bytes", "size per rank", FX_F_BYTES, q->size);
	fx_record_text(t, "router", "router", "%s", router);
	fx_record_text(t, "routing_policy", "routing policy", "%s", fx_route_policy_name(tm->policy));
	fx_record_text(t, "timing", "timing", "%s", fx_timing_name(res->timing));
	if (res->timing != FX_TIMING_BOUND)
		fx_record_text(t, "sharing", "link sharing", "%s", fx_sharing_name(res->sharing));
	fx_record_num(t, "alpha_s", "alpha per round", FX_F_SECONDS, tm->alpha);
	if (tm->network_alpha_set)
		fx_record_num(t, "network_alpha_s", "alpha per round over the network", FX_F_SECONDS,
			      tm->network_alpha);
	fx_record_bool(t, "alpha_replaces_latency", "alpha replaces path latency",
		       tm->alpha_replaces_latency);
	fx_record_int(t, "rounds", "rounds", res->rounds);
	if (res->plan[0])
		fx_record_text(t, "layout", "layout", "%s", res->plan);
	else
		fx_record_null(t, "layout", "layout", FX_F_TEXT, "-");
	fx_record_int(t, "chunks", q->chunks > 0 ? "pipeline chunks (--chunks)" :
		      "pipeline chunks", res->chunks);
	fx_record_num(t, "chunk_bytes", "chunk size", FX_F_BYTES, res->chunk_bytes);
	fx_record_num(t, "time_s", "time", FX_F_SECONDS, res->time);
	fx_record_text(t, "time_source", "time", "%s", res->measured ? "measured" : "modelled");
	fx_record_text(t, "time_note", "time from", "%s", res->time_source[0] ? res->time_source
											       : "modelled");
	if (res->measured)
		fx_record_num(t, "modelled_time_s", "the model's time", FX_F_SECONDS,
			      res->modelled_time);
	fx_record_num(t, "algbw_Bps", "algbw", FX_F_BPS, res->algbw);
	fx_record_num(t, "busbw_Bps", "busbw", FX_F_BPS, res->busbw);
	fx_record_num(t, "max_link_bytes", "busiest link (all rounds)", FX_F_BYTES,
		      res->max_link_bytes);
	fx_record_num(t, "total_link_bytes", "bytes over all links", FX_F_BYTES,
		      res->total_link_bytes);
	fx_record_num(t, "sent_bytes", "bytes sent by ranks", FX_F_BYTES, res->sent_bytes);
	if (versus) {
		fx_record_text(t, "versus", "versus", "%s", versus);
		if (cross > 0)
			fx_record_num(t, "crossover_bytes", "equal time at (per rank)", FX_F_BYTES, cross);
		else
			fx_record_null(t, "crossover_bytes", "equal time at (per rank)", FX_F_BYTES,
				       "none between 1 B and 1 TB");
	}
	return t;
}

/* Identical consecutive rounds once, with their count: --chunks 1000000
 * must not print a million rows. */
static fx_table *rounds_table(const fx_coll_result *res)
{
	static const fx_col cols[] = {
		{"first_round", "round", FX_F_INT}, {"repeat", "x", FX_F_INT},
		{"phase", "phase", FX_F_TEXT}, {"max_link_bytes", "busiest link", FX_F_BYTES},
		{"total_link_bytes", "all links", FX_F_BYTES}, {"max_hops", "max hops", FX_F_INT},
		{"routing_stages", "routing stages", FX_F_INT},
		{"latency_s", "path latency", FX_F_SECONDS}, {"time_s", "time each", FX_F_SECONDS},
		{NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("rounds", "Rounds (identical consecutive rounds shown once)", cols);
	fx_table_json_key(t, "per_round");
	int64_t first = 1;
	for (size_t i = 0; i < res->nround; i++) {
		const fx_round_result *rr = &res->per_round[i];
		fx_table_int(t, first);
		fx_table_int(t, rr->repeat);
		fx_table_cell(t, "%s", rr->label);
		fx_table_num(t, rr->max_link_bytes);
		fx_table_num(t, rr->total_link_bytes);
		fx_table_int(t, rr->max_hops);
		fx_table_int(t, rr->stages);
		fx_table_num(t, rr->latency);
		fx_table_num(t, rr->time);
		first += rr->repeat;
	}
	return t;
}

/* WaferLLM's PLMR figures (routing.h fx_plmr) against the wafer's router
 * table (routes_per_pe) and PE memory (pe_memory). */
static int plmr_table(const fx_fabric *f, const fx_coll_req *q, const fx_plmr *p, fx_sink *out,
		      fx_diag *d)
{
	const fx_wafer_state *w = fx_fabric_wafer(f);  /* plmr runs on wafers only */
	char l1[96], l2[96], l3[96];
	int shift = strcmp(q->pattern, "gemm-shift") == 0;
	const char *per = shift ? " per shift step" : "";
	fx_table *t = fx_record_new("plmr", "PLMR (WaferLLM)", "plmr");
	fx_record_int(t, "paths_per_pe", p->paths_per_pe > w->routes_per_pe ?
		      "routing paths per PE (over the router table: software routing)" :
		      "routing paths per PE", p->paths_per_pe);
	fx_record_int(t, "routes_per_pe", "router table routes per PE", w->routes_per_pe);
	snprintf(l1, sizeof l1, "critical-path hops%s", per);
	fx_record_int(t, "critical_hops", l1, p->critical_hops);
	snprintf(l2, sizeof l2, "software routing stages%s", per);
	fx_record_int(t, "routing_stages", l2, p->routing_stages);
	fx_record_num(t, "memory_per_pe_bytes", "memory per PE", FX_F_BYTES, p->memory_per_pe);
	fx_record_num(t, "pe_memory_bytes", "PE memory", FX_F_BYTES, w->pe_memory);
	fx_record_bool(t, "fits_memory", "fits PE memory", p->memory_per_pe <= w->pe_memory);
	fx_record_bool(t, "fits_routes", "fits the router table", p->paths_per_pe <= w->routes_per_pe);
	snprintf(l3, sizeof l3, "latency alpha*hops + beta*stages%s", per);
	fx_record_num(t, "latency_s", l3, FX_F_SECONDS, p->latency);
	fx_record_num(t, "hop_latency_s", "alpha (per hop)", FX_F_SECONDS, f->ne ? f->e[0].lat : 0);
	fx_record_num(t, "stage_latency_s", "beta (per routing stage)", FX_F_SECONDS,
		      w->routing_latency);
	return fx_sink_put(out, t, d);
}

/* --versus-measured: the model at each measured size of q's pattern and
 * ranks, against the measurement (calib/calib.c). */
static int measured_table(const fx_fabric *f, fx_router *r, const fx_coll_req *q,
			  const fx_coll_time *tm, const char *file, fx_sink *out, fx_diag *d)
{
	fx_meas_set ms;
	if (fx_meas_read(file, q->pattern, 0, &ms, d))
		return -1;
	const fx_meas **pt = fx_xmalloc((ms.n ? ms.n : 1) * sizeof *pt);
	double *model = fx_xmalloc((ms.n ? ms.n : 1) * sizeof *model);
	size_t n;
	int rc = fx_calib_versus(f, r, q, tm, &ms, pt, model, &n, d);
	if (rc == 0) {
		static const fx_col cols[] = {
			{"size_bytes", "size", FX_F_BYTES}, {"model_s", "model", FX_F_SECONDS},
			{"measured_s", "measured", FX_F_SECONDS}, {"ratio", "model/measured", FX_F_NUM},
			{NULL, NULL, 0},
		};
		fx_table *t = fx_table_typed("versus_measured", "Model against measured "
					     "(--versus-measured)", cols);
		for (size_t i = 0; i < n; i++) {
			fx_table_num(t, pt[i]->size);
			fx_table_num(t, model[i]);
			fx_table_num(t, pt[i]->time);
			fx_table_num(t, model[i] / pt[i]->time);
		}
		rc = fx_sink_put(out, t, d);
	}
	free(pt);
	free(model);
	fx_meas_release(&ms);
	return rc;
}

int fx_report_collective(const fx_design *ds, fx_router *r, const fx_collective_opts *o,
			 fx_sink *out, fx_diag *d)
{
	const fx_fabric *f = &ds->fab;
	const fx_coll_req *q = &o->req;
	const fx_coll_time *tm = o->tm ? o->tm : &ds->coll;
	const fx_coll_algo *a = fx_coll_find(q->pattern, q->algo);
	if (!a)
		return fx_diag_error(d, NULL, "collective: no algorithm '%s' for %s (see --list)",
				     q->algo ? q->algo : "", q->pattern);
	fx_coll_result res;
	if (fx_coll_run(f, r, q, tm, &res, d))
		return -1;
	int rc = 0;
	double cross = -1;
	if (o->versus) {
		int before = d->nerr;
		cross = fx_coll_crossover(f, r, q, a->name, o->versus, tm, 1, 1e12, d);
		if (d->nerr != before)
			rc = -1;
	}
	rc |= fx_sink_put(out, result_record(q, a, &res, fx_router_name(r), tm, o->versus, cross), d);
	rc |= fx_report_failed(f, out, d);
	rc |= fx_sink_put(out, rounds_table(&res), d);
	fx_plmr pm;
	if (a->plmr) {
		if (a->plmr(f, q, &pm, d))
			rc = -1;
		else
			rc |= plmr_table(f, q, &pm, out, d);
	}
	if (o->links && rc == 0)
		rc = fx_report_links_csv(f, o->links, &res, d);
	fx_coll_result_release(&res);
	if (rc == 0 && o->versus_measured)
		rc = measured_table(f, r, q, tm, o->versus_measured, out, d);
	return rc;
}
