/*
 * fabricx metrics: counts, ports, hop counts and cut sets of a fabric.
 * The report functions are shared with `explore`.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/units.h"
#include "../core/xalloc.h"
#include "../routing/routing.h"
#include "cli.h"
#include "report.h"

static const char *fmt(double v, fx_unit_kind k, char *buf)
{
	return fx_unit_format(v, k, buf, 32);
}

/* "a:b" -> vertex sets; "rest" for b means every device not in a. */
static int parse_cut(fx_cli *c, const char *spec, uint8_t *side)
{
	const fx_fabric *f = &c->design.fab;
	const char *colon = strchr(spec, ':');
	if (!colon || colon == spec || !colon[1])
		return fx_diag_error(&c->d, NULL, "--cut: expected A:B, e.g. node=0-23:rest or "
				     "x=0-1:x=2-3, got '%s'", spec);
	char *a = fx_xstrndup(spec, (size_t)(colon - spec));
	uint8_t *sa = fx_xcalloc((size_t)f->nv, 1), *sb = fx_xcalloc((size_t)f->nv, 1);
	int rc = fx_fabric_select(f, a, "--cut (side A)", sa, &c->d);
	if (rc == 0 && strcmp(colon + 1, "rest") == 0) {
		for (int64_t v = 0; v < f->nv; v++)
			sb[v] = !sa[v] && f->v[v].type == FX_V_DEVICE;
	} else if (rc == 0) {
		rc = fx_fabric_select(f, colon + 1, "--cut (side B)", sb, &c->d);
	}
	for (int64_t v = 0; rc == 0 && v < f->nv; v++) {
		if (sa[v] && sb[v]) {
			char n[64];
			rc = fx_diag_error(&c->d, NULL, "--cut: '%s' is on both sides",
					   fx_fabric_vertex_name(f, v, n, sizeof n));
		}
		side[v] = sa[v] ? 0 : sb[v] ? 1 : 2;
	}
	free(a);
	free(sa);
	free(sb);
	return rc;
}

int fx_report_metrics(fx_cli *c, const char *cutspec)
{
	const fx_fabric *f = &c->design.fab;
	fx_hops h;
	fx_cut bis, cut;
	char b1[32], b2[32], n1[64], n2[64];
	int have_cut = 0;
	memset(&cut, 0, sizeof cut);

	if (fx_route_hops(f, &h, &c->d))
		return -1;
	if (fx_route_bisection(f, &bis, &c->d)) {
		fx_hops_release(&h);
		return -1;
	}
	if (cutspec) {
		uint8_t *side = fx_xcalloc((size_t)f->nv, 1);
		int rc = parse_cut(c, cutspec, side);
		if (rc == 0)
			rc = fx_route_cut(f, side, &cut, &c->d);
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

	/* tables */
	fx_table *t = fx_table_new("metrics", "Fabric", (const char *[]){"metric", "value", NULL});
	fx_table_cell(t, "devices"); fx_table_cell(t, "%lld", (long long)f->ndev);
	fx_table_cell(t, "switches"); fx_table_cell(t, "%lld", (long long)f->nsw);
	fx_table_cell(t, "cpus"); fx_table_cell(t, "%lld", (long long)f->ncpu);
	fx_table_cell(t, "links"); fx_table_cell(t, "%lld", (long long)links);
	fx_table_cell(t, "full-mesh links (for comparison)");
	fx_table_cell(t, "%lld", (long long)fx_fabric_full_mesh_links(f));
	fx_table_cell(t, "nodes"); fx_table_cell(t, "%lld", (long long)f->nnodes);
	fx_table_cell(t, "racks"); fx_table_cell(t, "%lld", (long long)f->nracks);
	fx_table_cell(t, "diameter (hops)"); fx_table_cell(t, "%lld", (long long)h.diameter);
	fx_table_cell(t, "mean hops"); fx_table_cell(t, "%.4f", h.mean);
	fx_table_cell(t, "farthest pair");
	fx_table_cell(t, "%s - %s", fx_fabric_vertex_name(f, h.far_a, n1, sizeof n1),
		      fx_fabric_vertex_name(f, h.far_b, n2, sizeof n2));
	fx_table_cell(t, "farthest latency"); fx_table_cell(t, "%s", fmt(h.far_latency, FX_UNIT_TIME, b1));
	fx_table_cell(t, "bisection links"); fx_table_cell(t, "%.0f", bis.links);
	fx_table_cell(t, "bisection bandwidth");
	fx_table_cell(t, "%s per direction", fmt(bis.bandwidth, FX_UNIT_BANDWIDTH, b1));
	fx_table_cell(t, "bisection per device"); fx_table_cell(t, "%s", fmt(bis.per_device, FX_UNIT_BANDWIDTH, b1));
	fx_table_cell(t, "bisection method");
	fx_table_cell(t, "%s (%s)", bis.method, bis.how);
	fx_table_cell(t, "hop counts"); fx_table_cell(t, "%s", h.method);
	int rc = fx_cli_table(c, t);

	if (f->nroles > 0 && f->nsw > 0) {
		t = fx_table_new("switches", "Switch chips (ports per chip against the radix)",
				 (const char *[]){"role", "tier", "chips", "radix", "ports used", "down",
						  "up", "down bandwidth", "up bandwidth", NULL});
		for (int r = 0; r < f->nroles; r++) {
			if (!rs[r].chips)
				continue;
			fx_table_cell(t, "%s", f->roles[r].name);
			fx_table_cell(t, "%d", f->roles[r].tier);
			fx_table_cell(t, "%lld", (long long)rs[r].chips);
			if (f->roles[r].radix)
				fx_table_cell(t, "%d", f->roles[r].radix);
			else
				fx_table_cell(t, "-");
			if (rs[r].min_ports == rs[r].max_ports)
				fx_table_cell(t, "%lld", (long long)rs[r].max_ports);
			else
				fx_table_cell(t, "%lld-%lld", (long long)rs[r].min_ports, (long long)rs[r].max_ports);
			fx_table_cell(t, "%lld", (long long)rs[r].down);
			fx_table_cell(t, "%lld", (long long)rs[r].up);
			fx_table_cell(t, "%s", fmt(rs[r].down_bw, FX_UNIT_BANDWIDTH, b1));
			fx_table_cell(t, "%s", fmt(rs[r].up_bw, FX_UNIT_BANDWIDTH, b2));
		}
		rc |= fx_cli_table(c, t);
	}

	t = fx_table_new("hops", "Hop counts between devices (ordered pairs)",
			 (const char *[]){"hops", "pairs", "share", NULL});
	double pairs = 0;
	for (int64_t i = 1; i < h.nhist; i++)
		pairs += h.hist[i];
	for (int64_t i = 1; i < h.nhist; i++) {
		if (h.hist[i] == 0)
			continue;
		fx_table_cell(t, "%lld", (long long)i);
		fx_table_cell(t, "%.0f", h.hist[i]);
		fx_table_cell(t, "%.2f%%", 100 * h.hist[i] / pairs);
	}
	rc |= fx_cli_table(c, t);

	if (have_cut) {
		t = fx_table_new("cut", "Cut (--cut)", (const char *[]){"metric", "value", NULL});
		fx_table_cell(t, "partition"); fx_table_cell(t, "%s", cutspec);
		fx_table_cell(t, "devices A | B");
		fx_table_cell(t, "%lld | %lld", (long long)cut.side[0], (long long)cut.side[1]);
		fx_table_cell(t, "links joining A and B"); fx_table_cell(t, "%.0f", cut.direct_links);
		fx_table_cell(t, "min-cut links"); fx_table_cell(t, "%.0f", cut.links);
		fx_table_cell(t, "max-flow A to B");
		fx_table_cell(t, "%s per direction", fmt(cut.bandwidth, FX_UNIT_BANDWIDTH, b1));
		rc |= fx_cli_table(c, t);
	}

	if (c->json) {
		fx_json *j = &c->js;
		fx_json_str(j, "kind", f->builder->kind);
		fx_json_int(j, "devices", f->ndev);
		fx_json_int(j, "switches", f->nsw);
		fx_json_int(j, "cpus", f->ncpu);
		fx_json_int(j, "links", links);
		fx_json_int(j, "full_mesh_links", fx_fabric_full_mesh_links(f));
		fx_json_int(j, "nodes", f->nnodes);
		fx_json_int(j, "racks", f->nracks);
		fx_json_int(j, "diameter_hops", h.diameter);
		fx_json_num(j, "avg_hops", h.mean);
		fx_json_num(j, "farthest_latency_ns", h.far_latency * 1e9);
		fx_json_arr_begin(j, "farthest_pair");
		fx_json_str(j, NULL, fx_fabric_vertex_name(f, h.far_a, n1, sizeof n1));
		fx_json_str(j, NULL, fx_fabric_vertex_name(f, h.far_b, n2, sizeof n2));
		fx_json_arr_end(j);
		fx_json_obj_begin(j, "hops");
		fx_json_str(j, "method", h.method);
		fx_json_int(j, "sources", h.sources);
		fx_json_arr_begin(j, "histogram");
		for (int64_t i = 0; i < h.nhist; i++)
			fx_json_num(j, NULL, h.hist[i]);
		fx_json_arr_end(j);
		fx_json_obj_end(j);
		fx_json_obj_begin(j, "bisection");
		fx_json_num(j, "links", bis.links);
		fx_json_num(j, "bandwidth_GBps", bis.bandwidth / 1e9);
		fx_json_num(j, "per_device_GBps", bis.per_device / 1e9);
		fx_json_str(j, "method", bis.method);
		fx_json_bool(j, "confirmed", bis.confirmed);
		fx_json_arr_begin(j, "split");
		fx_json_int(j, NULL, bis.side[0]);
		fx_json_int(j, NULL, bis.side[1]);
		fx_json_arr_end(j);
		fx_json_obj_end(j);
		fx_json_arr_begin(j, "switch_roles");
		for (int r = 0; r < f->nroles; r++) {
			if (!rs[r].chips)
				continue;
			fx_json_obj_begin(j, NULL);
			fx_json_str(j, "role", f->roles[r].name);
			fx_json_int(j, "tier", f->roles[r].tier);
			fx_json_int(j, "chips", rs[r].chips);
			fx_json_int(j, "radix", f->roles[r].radix);
			fx_json_int(j, "ports_used_max", rs[r].max_ports);
			fx_json_int(j, "down_ports", rs[r].down);
			fx_json_int(j, "up_ports", rs[r].up);
			fx_json_num(j, "down_GBps", rs[r].down_bw / 1e9);
			fx_json_num(j, "up_GBps", rs[r].up_bw / 1e9);
			fx_json_obj_end(j);
		}
		fx_json_arr_end(j);
		if (have_cut) {
			fx_json_obj_begin(j, "cut");
			fx_json_str(j, "partition", cutspec);
			fx_json_int(j, "devices_a", cut.side[0]);
			fx_json_int(j, "devices_b", cut.side[1]);
			fx_json_num(j, "direct_links", cut.direct_links);
			fx_json_num(j, "links", cut.links);
			fx_json_num(j, "bandwidth_GBps", cut.bandwidth / 1e9);
			fx_json_obj_end(j);
		}
	}
	c->sum.diameter = h.diameter;
	c->sum.bisection = bis.bandwidth;
	c->sum.per_device = bis.per_device;
	c->sum.bis_method = bis.method;
	fx_hops_release(&h);
	return rc;
}

static const fx_opt metrics_opts[] = {
	{"cut", "A:B", "also measure the cut between two vertex sets, e.g. node=0-23:rest, "
		       "x=0-1:x=2-3, rack=0:rack=1"},
	{NULL, NULL, NULL},
};

int fx_cmd_metrics(int argc, char **argv)
{
	fx_cli c;
	int rc = fx_cli_parse(&c, "metrics", "metrics SPEC [--cut A:B] [--json] [--set KEY=VALUE]...",
			      metrics_opts, argc, argv);
	if (rc)
		return fx_cli_finish(&c, rc > 0 ? 0 : -1);
	rc = fx_cli_load(&c);
	if (rc == 0)
		rc = fx_cli_outdir(&c);
	if (rc == 0) {
		fx_cli_begin(&c);
		rc = fx_report_metrics(&c, fx_cli_opt(&c, "cut"));
		fx_cli_end(&c);
	}
	return fx_cli_finish(&c, rc);
}
