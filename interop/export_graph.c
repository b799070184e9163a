/*
 * The graph formats: GraphML, GML and DOT.  They carry the whole graph
 * (failed elements marked, not left out); what they lose is how fabricx
 * routes it, which a graph tool decides for itself.
 *
 * Attribute names (docs/output.md, "export"): the graph's `name`, `kind`,
 * `devices_relay` and `cpus_relay` (whether paths may pass through a
 * device or a CPU: switches always relay); vertices `name`, `type`
 * (device, switch, cpu), `role` and `tier` (switches), `node`, `rack`,
 * `plane` (-1: none), `failed`; links `bandwidth_Bps` (per direction, one
 * physical link), `latency_s`, `medium`, `tier` (the link class), `bundle`
 * (the bundle it belongs to), `failed`.  GraphML and GML write one edge per
 * physical link, so a bundle of k links reads as k parallel edges
 * (NetworkX makes a MultiGraph); DOT writes one edge per bundle with its
 * `links`.
 */
#include <string.h>

#include "export_internal.h"

/* s with XML's five special characters (and control characters, which
 * XML 1.0 cannot carry) escaped. */
static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			if ((unsigned char)*s < 0x20)
				fputc('?', out);
			else
				fputc(*s, out);
		}
}

/* A GML or DOT string: its quote and backslash escaped as entities (GML
 * has no backslash escapes; NetworkX unescapes HTML entities). */
static void quoted(FILE *out, const char *s, int dot)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputs(dot ? "\\\"" : "&quot;", out);
		else if (*s == '&' && !dot)
			fputs("&amp;", out);
		else if (*s == '\\')
			fputs(dot ? "\\\\" : "&#92;", out);
		else if ((unsigned char)*s < 0x20)
			fputc('?', out);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

static const char *role_name(const fx_fabric *f, int64_t v)
{
	return f->v[v].type == FX_V_SWITCH && f->v[v].role >= 0 ? f->roles[f->v[v].role].name : "";
}

static int vertex_tier(const fx_fabric *f, int64_t v)
{
	return f->v[v].type == FX_V_SWITCH && f->v[v].role >= 0 ? f->roles[f->v[v].role].tier : 0;
}

static void routing_lost(const fx_fabric *f, fx_export_info *info)
{
	fx_export_lost(info, "routing: fabricx routes %s; a graph tool routes as it is told",
		       f->builder && f->builder->router == FX_ROUTER_DOR
		       ? "dimension by dimension (dimension order), splitting ties on even rings"
		       : f->builder && f->builder->router == FX_ROUTER_DRAGONFLY
		       ? "minimally by groups (one global link; or Valiant, UGAL), not by shortest paths"
		       : "ECMP over shortest paths, splitting each flow over its equal next hops");
}

int fx_export_graphml(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d)
{
	(void)d;
	const fx_fabric *f = &ds->fab;
	char nb[128], r1[48], r2[48];
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	      "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n", out);
	static const char *const keys[][4] = {
		{"g_name", "graph", "name", "string"},  {"g_kind", "graph", "kind", "string"},
		{"g_drelay", "graph", "devices_relay", "boolean"},
		{"g_crelay", "graph", "cpus_relay", "boolean"},
		{"v_name", "node", "name", "string"},   {"v_type", "node", "type", "string"},
		{"v_role", "node", "role", "string"},   {"v_tier", "node", "tier", "int"},
		{"v_node", "node", "node", "int"},      {"v_rack", "node", "rack", "int"},
		{"v_plane", "node", "plane", "int"},    {"v_failed", "node", "failed", "boolean"},
		{"e_bw", "edge", "bandwidth_Bps", "double"}, {"e_lat", "edge", "latency_s", "double"},
		{"e_medium", "edge", "medium", "string"}, {"e_tier", "edge", "tier", "int"},
		{"e_bundle", "edge", "bundle", "int"},  {"e_failed", "edge", "failed", "boolean"},
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		fprintf(out, "  <key id=\"%s\" for=\"%s\" attr.name=\"%s\" attr.type=\"%s\"/>\n",
			keys[i][0], keys[i][1], keys[i][2], keys[i][3]);
	fputs("  <graph id=\"", out);
	xml_text(out, f->name ? f->name : "fabric");
	fputs("\" edgedefault=\"undirected\">\n    <data key=\"g_name\">", out);
	xml_text(out, f->name ? f->name : "fabric");
	fprintf(out, "</data>\n    <data key=\"g_kind\">%s</data>\n"
		"    <data key=\"g_drelay\">%s</data>\n    <data key=\"g_crelay\">%s</data>\n",
		f->builder ? f->builder->kind : "", f->devices_forward ? "true" : "false",
		f->cpus_forward ? "true" : "false");
	for (int64_t v = 0; v < f->nv; v++) {
		const fx_vertex *x = &f->v[v];
		fprintf(out, "    <node id=\"n%lld\"><data key=\"v_name\">", (long long)v);
		xml_text(out, fx_fabric_vertex_name(f, v, nb, sizeof nb));
		fprintf(out, "</data><data key=\"v_type\">%s</data>", fx_vtype_name((fx_vtype)x->type));
		if (x->type == FX_V_SWITCH) {
			fputs("<data key=\"v_role\">", out);
			xml_text(out, role_name(f, v));
			fprintf(out, "</data><data key=\"v_tier\">%d</data>", vertex_tier(f, v));
		}
		fprintf(out, "<data key=\"v_node\">%d</data><data key=\"v_rack\">%d</data>"
			"<data key=\"v_plane\">%d</data><data key=\"v_failed\">%s</data></node>\n",
			(int)x->node, (int)x->rack, (int)x->plane,
			fx_fabric_vertex_up(f, v) ? "false" : "true");
	}
	int64_t edges = 0;
	for (int64_t e = 0; e < f->ne; e++)
		for (int32_t k = 0; k < f->e[e].count; k++, edges++)
			fprintf(out, "    <edge id=\"e%lld.%d\" source=\"n%lld\" target=\"n%lld\">"
				"<data key=\"e_bw\">%s</data><data key=\"e_lat\">%s</data>"
				"<data key=\"e_medium\">%s</data><data key=\"e_tier\">%d</data>"
				"<data key=\"e_bundle\">%lld</data><data key=\"e_failed\">%s</data></edge>\n",
				(long long)e, (int)k, (long long)f->ends[2 * e], (long long)f->ends[2 * e + 1],
				fx_export_real(f->e[e].bw, r1), fx_export_real(f->e[e].lat, r2),
				fx_medium_name((fx_medium)f->e[e].medium), (int)f->e[e].tier, (long long)e,
				fx_fabric_edge_up(f, e) ? "false" : "true");
	fputs("  </graph>\n</graphml>\n", out);
	info->vertices = f->nv;
	info->edges = edges;
	routing_lost(f, info);
	return 0;
}

int fx_export_gml(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d)
{
	(void)d;
	const fx_fabric *f = &ds->fab;
	char nb[128], r1[48], r2[48];
	fputs("graph [\n  directed 0\n  multigraph 1\n  name ", out);
	quoted(out, f->name ? f->name : "fabric", 0);
	fprintf(out, "\n  kind \"%s\"\n  devices_relay %d\n  cpus_relay %d\n",
		f->builder ? f->builder->kind : "", f->devices_forward, f->cpus_forward);
	for (int64_t v = 0; v < f->nv; v++) {
		const fx_vertex *x = &f->v[v];
		fprintf(out, "  node [\n    id %lld\n    label ", (long long)v);
		quoted(out, fx_fabric_vertex_name(f, v, nb, sizeof nb), 0);
		fprintf(out, "\n    type \"%s\"\n", fx_vtype_name((fx_vtype)x->type));
		if (x->type == FX_V_SWITCH) {
			fputs("    role ", out);
			quoted(out, role_name(f, v), 0);
			fprintf(out, "\n    tier %d\n", vertex_tier(f, v));
		}
		fprintf(out, "    node %d\n    rack %d\n    plane %d\n    failed %d\n  ]\n",
			(int)x->node, (int)x->rack, (int)x->plane, !fx_fabric_vertex_up(f, v));
	}
	int64_t edges = 0;
	for (int64_t e = 0; e < f->ne; e++)
		for (int32_t k = 0; k < f->e[e].count; k++, edges++)
			/* a multigraph's key tells apart the edges of one pair: the
			 * edge's own number, since two bundles may join one pair (a
			 * composite's device and its domain switch) */
			fprintf(out, "  edge [\n    source %lld\n    target %lld\n    key %lld\n"
				"    bandwidth_Bps %s\n    latency_s %s\n    medium \"%s\"\n    tier %d\n"
				"    bundle %lld\n    failed %d\n  ]\n",
				(long long)f->ends[2 * e], (long long)f->ends[2 * e + 1], (long long)edges,
				fx_export_real(f->e[e].bw, r1), fx_export_real(f->e[e].lat, r2),
				fx_medium_name((fx_medium)f->e[e].medium), (int)f->e[e].tier, (long long)e,
				!fx_fabric_edge_up(f, e));
	fputs("]\n", out);
	info->vertices = f->nv;
	info->edges = edges;
	routing_lost(f, info);
	return 0;
}

int fx_export_dot(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d)
{
	(void)d;
	const fx_fabric *f = &ds->fab;
	char nb[128], r1[48], r2[48];
	fputs("graph ", out);
	quoted(out, f->name ? f->name : "fabric", 1);
	fputs(" {\n", out);
	for (int64_t v = 0; v < f->nv; v++) {
		fprintf(out, "  n%lld [label=", (long long)v);
		quoted(out, fx_fabric_vertex_name(f, v, nb, sizeof nb), 1);
		fprintf(out, ", type=%s", fx_vtype_name((fx_vtype)f->v[v].type));
		if (f->v[v].type == FX_V_SWITCH) {
			fputs(", role=", out);
			quoted(out, role_name(f, v), 1);
		}
		fprintf(out, ", node=%d, rack=%d, plane=%d%s];\n", (int)f->v[v].node, (int)f->v[v].rack,
			(int)f->v[v].plane, fx_fabric_vertex_up(f, v) ? "" : ", failed=true");
	}
	for (int64_t e = 0; e < f->ne; e++)
		fprintf(out, "  n%lld -- n%lld [links=%d, bandwidth_Bps=%s, latency_s=%s, medium=%s, "
			"tier=%d%s];\n", (long long)f->ends[2 * e], (long long)f->ends[2 * e + 1],
			(int)f->e[e].count, fx_export_real(f->e[e].bw, r1), fx_export_real(f->e[e].lat, r2),
			fx_medium_name((fx_medium)f->e[e].medium), (int)f->e[e].tier,
			fx_fabric_edge_up(f, e) ? "" : ", failed=true");
	fputs("}\n", out);
	info->vertices = f->nv;
	info->edges = f->ne;
	routing_lost(f, info);
	return 0;
}
