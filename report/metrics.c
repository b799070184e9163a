/*
 * The fabric's report: counts, switch ports against their radix, hop
 * counts, bisection and an asked-for cut (report/report.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "report.h"

/* "a:b" -> vertex sets; "rest" for b means every device not in a. */
static int parse_cut(const fx_fabric *f, const char *spec, uint8_t *side, fx_diag *d)
{
	const char *colon = strchr(spec, ':');
	if (!colon || colon == spec || !colon[1])
		return fx_diag_error(d, NULL, "--cut: expected A:B, e.g. node=0-23:rest or "
				     "x=0-1:x=2-3, got '%s'", spec);
	char *a = fx_xstrndup(spec, (size_t)(colon - spec));
	uint8_t *sa = fx_xcalloc((size_t)f->nv, 1), *sb = fx_xcalloc((size_t)f->nv, 1);
	int rc = fx_fabric_select(f, a, "--cut (side A)", sa, d);
	if (rc == 0 && strcmp(colon + 1, "rest") == 0) {
		for (int64_t v = 0; v < f->nv; v++)
			sb[v] = !sa[v] && f->v[v].type == FX_V_DEVICE;
	} else if (rc == 0) {
		rc = fx_fabric_select(f, colon + 1, "--cut (side B)", sb, d);
	}
	for (int64_t v = 0; rc == 0 && v < f->nv; v++) {
		if (sa[v] && sb[v]) {
			char n[64];
			rc = fx_diag_error(d, NULL, "--cut: '%s' is on both sides",
					   fx_fabric_vertex_name(f, v, n, sizeof n));
		}
		side[v] = sa[v] ? 0 : sb[v] ? 1 : 2;
	}
	free(a);
	free(sa);
	free(sb);
	return rc;
}

int fx_report_metrics(const fx_design *ds, const fx_metrics_opts *o, fx_sink *out, fx_diag *d)
{
	const fx_fabric *f = &ds->fab;
	const char *cutspec = o ? o->cut : NULL;
	fx_hops h;
	fx_cut bis, cut;
	char n1[64], n2[64];
	int have_cut = 0;
	memset(&cut, 0, sizeof cut);

	if (fx_route_hops(f, &h, d))
		return -1;
	if (fx_route_bisection(f, &bis, d)) {
		fx_hops_release(&h);
		return -1;
	}
	if (cutspec) {
		uint8_t *side = fx_xcalloc((size_t)f->nv, 1);
		int rc = parse_cut(f, cutspec, side, d);
		if (rc == 0)
			rc = fx_route_cut(f, side, &cut, d);
		free(side);
		if (rc) {
			fx_hops_release(&h);
			return -1;
		}
		have_cut = 1;
	}
	fx_role_stat rs[FX_MAX_ROLES];
	fx_fabric_role_stats(f, rs);
	int64_t links = fx_fabric_links(f);

	/* the result, once: every format is written from these tables */
	fx_table *t = fx_record_new("metrics", "Fabric", NULL);
	fx_record_text(t, "kind", "kind", "%s", f->builder->kind);
	fx_record_int(t, "devices", "devices", f->ndev);
	fx_record_int(t, "switches", "switches", f->nsw);
	fx_record_int(t, "cpus", "cpus", f->ncpu);
	fx_record_int(t, "links", "links", links);
	fx_record_int(t, "full_mesh_links", "full-mesh links (for comparison)",
		      fx_fabric_full_mesh_links(f));
	fx_record_int(t, "nodes", "nodes", f->nnodes);
	fx_record_int(t, "racks", "racks", f->nracks);
	fx_record_int(t, "diameter_hops", "diameter (hops)", h.diameter);
	fx_record_num(t, "mean_hops", "mean hops", FX_F_NUM, h.mean);
	fx_record_text(t, "farthest_from", "farthest pair, from", "%s",
		       fx_fabric_vertex_name(f, h.far_a, n1, sizeof n1));
	fx_record_text(t, "farthest_to", "farthest pair, to", "%s",
		       fx_fabric_vertex_name(f, h.far_b, n2, sizeof n2));
	fx_record_num(t, "farthest_latency_s", "farthest latency", FX_F_SECONDS, h.far_latency);
	fx_record_num(t, "bisection_links", "bisection links", FX_F_NUM, bis.links);
	fx_record_num(t, "bisection_bandwidth_Bps", "bisection bandwidth (per direction)",
		      FX_F_BPS, bis.bandwidth);
	fx_record_num(t, "bisection_per_device_Bps", "bisection per device", FX_F_BPS,
		      bis.per_device);
	fx_record_text(t, "bisection_method", "bisection method", "%s", bis.method);
	fx_record_text(t, "bisection_how", "bisection found by", "%s", bis.how);
	fx_record_bool(t, "bisection_confirmed", "bisection confirmed", bis.confirmed);
	fx_record_int(t, "bisection_devices_a", "bisection devices, side A", bis.side[0]);
	fx_record_int(t, "bisection_devices_b", "bisection devices, side B", bis.side[1]);
	fx_record_text(t, "hops_method", "hop counts", "%s", h.method);
	fx_record_int(t, "devices_failed", "devices failed (--fail, failures:)", h.devices_failed);
	fx_record_int(t, "devices_cut_off", "devices cut off (left out of hops)", h.devices_cut_off);
	fx_record_int(t, "hops_sources", "hop counts from sources", h.sources);
	int rc = fx_sink_put(out, t, d);
	rc |= fx_report_failed(f, out, d);
	if (f->ocs_switches > 0) {
		t = fx_record_new("ocs", "Optical circuit switches (fabric.ocs)", "ocs");
		char cube[64] = "";
		for (int i = 0, u = 0; i < f->ndims; i++)
			u += snprintf(cube + u, sizeof cube - (size_t)u, "%s%d", i ? "x" : "", f->ocs_cube[i]);
		fx_record_text(t, "cube", "cube (racks the switches join)", "%s", cube);
		fx_record_int(t, "ocs_switches", "optical circuit switches", f->ocs_switches);
		fx_record_int(t, "ocs_ports_used", "ports each uses (2 x cubes)", f->ocs_ports);
		fx_record_int(t, "ocs_ports", "ports each has (fabric.ocs.ports)", f->ocs_radix);
		fx_record_int(t, "ocs_fibres", "fibres from the cubes to the switches",
			      f->ocs_switches * f->ocs_ports);
		rc |= fx_sink_put(out, t, d);
	}

	if (f->nroles > 0 && f->nsw > 0) {
		static const fx_col cols[] = {
			{"role", "role", FX_F_TEXT}, {"tier", "tier", FX_F_INT},
			{"chips", "chips", FX_F_INT}, {"radix", "radix", FX_F_INT},
			{"ports_used_min", "ports used (min)", FX_F_INT},
			{"ports_used_max", "ports used (max)", FX_F_INT},
			{"down_ports", "down", FX_F_INT}, {"up_ports", "up", FX_F_INT},
			{"down_bandwidth_Bps", "down bandwidth", FX_F_BPS},
			{"up_bandwidth_Bps", "up bandwidth", FX_F_BPS}, {NULL, NULL, 0},
		};
		t = fx_table_typed("switches", "Switch chips (ports per chip against the radix)", cols);
		fx_table_json_key(t, "switch_roles");  /* "switches" is the count */
		for (int r = 0; r < f->nroles; r++) {
			if (!rs[r].chips)
				continue;
			fx_table_cell(t, "%s", f->roles[r].name);
			fx_table_int(t, f->roles[r].tier);
			fx_table_int(t, rs[r].chips);
			if (f->roles[r].radix)
				fx_table_int(t, f->roles[r].radix);
			else
				fx_table_null(t, "-");
			fx_table_int(t, rs[r].min_ports);
			fx_table_int(t, rs[r].max_ports);
			fx_table_int(t, rs[r].down);
			fx_table_int(t, rs[r].up);
			fx_table_num(t, rs[r].down_bw);
			fx_table_num(t, rs[r].up_bw);
		}
		rc |= fx_sink_put(out, t, d);
	}

	static const fx_col hcols[] = {
		{"hops", "hops", FX_F_INT}, {"pairs", "pairs", FX_F_NUM},
		{"share", "share", FX_F_FRACTION}, {NULL, NULL, 0},
	};
	t = fx_table_typed("hops", "Hop counts between devices (ordered pairs)", hcols);
	fx_table_json_key(t, "hop_histogram");
	double pairs = 0;
	for (int64_t i = 1; i < h.nhist; i++)
		pairs += h.hist[i];
	for (int64_t i = 1; i < h.nhist; i++) {
		if (h.hist[i] == 0)
			continue;
		fx_table_int(t, i);
		fx_table_num(t, h.hist[i]);
		fx_table_num(t, h.hist[i] / pairs);
	}
	rc |= fx_sink_put(out, t, d);

	if (have_cut) {
		t = fx_record_new("cut", "Cut (--cut)", "cut");
		fx_record_text(t, "partition", "partition", "%s", cutspec);
		fx_record_int(t, "devices_a", "devices in A", cut.side[0]);
		fx_record_int(t, "devices_b", "devices in B", cut.side[1]);
		fx_record_num(t, "direct_links", "links joining A and B", FX_F_NUM, cut.direct_links);
		fx_record_num(t, "min_cut_links", "min-cut links", FX_F_NUM, cut.links);
		fx_record_num(t, "max_flow_Bps", "max-flow A to B (per direction)", FX_F_BPS,
			      cut.bandwidth);
		rc |= fx_sink_put(out, t, d);
	}
	fx_hops_release(&h);
	return rc;
}

int fx_report_failed(const fx_fabric *f, fx_sink *out, fx_diag *d)
{
	if (!fx_fabric_degraded(f))
		return 0;
	int64_t vdown, ldown, ddown = 0, cut = 0;
	fx_fabric_fail_counts(f, &vdown, &ldown);
	uint8_t *reach = fx_xmalloc((size_t)f->ndev + 1);
	int64_t live = fx_fabric_reachable(f, reach);
	/* the cut-off devices by name, as far as a line holds them */
	char list[512] = "";
	size_t used = 0;
	for (int64_t v = 0; v < f->ndev; v++) {
		int down = !fx_fabric_vertex_up(f, v);
		ddown += down;
		if (down || reach[v])
			continue;
		char nm[64];
		cut++;
		if (used + 70 < sizeof list)
			used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", used ? " " : "",
						 fx_fabric_vertex_name(f, v, nm, sizeof nm));
		else if (used + 4 < sizeof list && list[used - 1] != '.')
			used += (size_t)snprintf(list + used, sizeof list - used, " ...");
	}
	free(reach);
	fx_table *t = fx_record_new("failed", "Failed elements (--fail, failures:): measured on the "
				    "degraded fabric", "failed");
	fx_record_int(t, "vertices_failed", "vertices failed", vdown);
	fx_record_int(t, "links_failed", "links failed (with the failed vertices')", ldown);
	fx_record_int(t, "devices_failed", "devices failed", ddown);
	fx_record_int(t, "devices_cut_off", "devices cut off from the rest", cut);
	fx_record_int(t, "devices_joined", "devices the degraded fabric joins", live);
	if (cut)
		fx_record_text(t, "cut_off", "cut off", "%s", list);
	else
		fx_record_null(t, "cut_off", "cut off", FX_F_TEXT, "-");
	return fx_sink_put(out, t, d);
}
