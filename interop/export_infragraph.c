/*
 * InfraGraph JSON (Keysight/infragraph; ../shared/reference/interop.md
 * §6): `infrastructure` with `devices` (one per class of fabricx vertex:
 * the accelerators, the CPUs, each switch role), their `instances`, the
 * `links` (one per bandwidth and latency), and an `edges` entry per
 * bundle joining the two vertices' ports one to one, its cables being
 * consecutive ports (`port[4:6]`).  A vertex's ports are numbered in the
 * order its bundles are listed.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/json.h"
#include "../core/xalloc.h"
#include "export_internal.h"

/* A vertex's class: 0 devices, 1 CPUs, 2 + r switch role r, 2 + nroles
 * switches without a role. */
static int class_of(const fx_fabric *f, int64_t v)
{
	if (f->v[v].type == FX_V_DEVICE)
		return 0;
	if (f->v[v].type == FX_V_CPU)
		return 1;
	return f->v[v].role >= 0 ? 2 + f->v[v].role : 2 + f->nroles;
}

static void class_name(const fx_fabric *f, int c, char *buf, size_t len)
{
	if (c == 0)
		snprintf(buf, len, "xpu");
	else if (c == 1)
		snprintf(buf, len, "cpu");
	else if (c - 2 < f->nroles)
		snprintf(buf, len, "%s", f->roles[c - 2].name);
	else
		snprintf(buf, len, "switch");
	for (char *p = buf; *p; p++)  /* InfraGraph names: letters, digits, '-', '_' */
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'))
			*p = '_';
}

typedef struct lclass {
	double bw, lat;
} lclass;

static int link_class(lclass **lc, size_t *n, double bw, double lat)
{
	for (size_t i = 0; i < *n; i++)
		if ((*lc)[i].bw == bw && (*lc)[i].lat == lat)
			return (int)i;
	*lc = fx_xrealloc(*lc, (*n + 1) * sizeof **lc);
	(*lc)[*n] = (lclass){bw, lat};
	return (int)(*n)++;
}

int fx_export_infragraph(const fx_design *ds, FILE *out, fx_export_info *info, fx_diag *d)
{
	(void)d;
	const fx_fabric *f = &ds->fab;
	int nc = 3 + f->nroles;
	int64_t *count = fx_xcalloc((size_t)nc, sizeof *count);     /* instances per class */
	int64_t *idx = fx_xmalloc((size_t)(f->nv ? f->nv : 1) * sizeof *idx);  /* index in its class */
	int64_t *ports = fx_xcalloc((size_t)(f->nv ? f->nv : 1), sizeof *ports);
	int64_t *maxp = fx_xcalloc((size_t)nc, sizeof *maxp);
	for (int64_t v = 0; v < f->nv; v++) {
		int c = class_of(f, v);
		idx[v] = (f->vdown && f->vdown[v]) ? -1 : count[c]++;
	}
	lclass *lc = NULL;
	size_t nlc = 0;
	int64_t links = 0;
	for (int64_t e = 0; e < f->ne; e++) {
		if (!fx_fabric_edge_up(f, e))
			continue;
		for (int s = 0; s < 2; s++) {
			int64_t v = f->ends[2 * e + s];
			ports[v] += f->e[e].count;
			if (ports[v] > maxp[class_of(f, v)])
				maxp[class_of(f, v)] = ports[v];
		}
		link_class(&lc, &nlc, f->e[e].bw, f->e[e].lat);
		links += f->e[e].count;
	}
	fx_json j;
	fx_json_init(&j, out);
	char name[64], b1[160], b2[160];
	fx_json_obj_begin(&j, NULL);
	fx_json_obj_begin(&j, "infrastructure");
	fx_json_str(&j, "name", ds->name);
	snprintf(b1, sizeof b1, "fabricx export of %s (%s fabric)", ds->name,
		 f->builder ? f->builder->kind : "?");
	fx_json_str(&j, "description", b1);
	fx_json_arr_begin(&j, "devices");
	for (int c = 0; c < nc; c++) {
		if (!count[c])
			continue;
		class_name(f, c, name, sizeof name);
		fx_json_obj_begin(&j, NULL);
		fx_json_str(&j, "name", name);
		fx_json_arr_begin(&j, "components");
		fx_json_obj_begin(&j, NULL);
		fx_json_str(&j, "name", c == 0 ? "xpu" : c == 1 ? "cpu" : "asic");
		fx_json_int(&j, "count", 1);
		fx_json_str(&j, "choice", c == 0 ? "xpu" : c == 1 ? "cpu" : "switch");
		fx_json_obj_end(&j);
		fx_json_obj_begin(&j, NULL);
		fx_json_str(&j, "name", "port");
		fx_json_int(&j, "count", (long long)(maxp[c] ? maxp[c] : 1));
		fx_json_str(&j, "choice", "port");
		fx_json_obj_end(&j);
		fx_json_arr_end(&j);
		fx_json_obj_end(&j);
	}
	fx_json_arr_end(&j);
	fx_json_arr_begin(&j, "links");
	for (size_t i = 0; i < nlc; i++) {
		snprintf(name, sizeof name, "link%zu", i);
		fx_json_obj_begin(&j, NULL);
		fx_json_str(&j, "name", name);
		fx_json_obj_begin(&j, "physical");
		fx_json_obj_begin(&j, "bandwidth");
		fx_json_num(&j, "gigabits_per_second", lc[i].bw * 8 / 1e9);
		fx_json_obj_end(&j);
		fx_json_obj_begin(&j, "latency");
		fx_json_num(&j, "ns", lc[i].lat * 1e9);
		fx_json_obj_end(&j);
		fx_json_obj_end(&j);
		fx_json_obj_end(&j);
	}
	fx_json_arr_end(&j);
	fx_json_arr_begin(&j, "instances");
	for (int c = 0; c < nc; c++) {
		if (!count[c])
			continue;
		class_name(f, c, name, sizeof name);
		fx_json_obj_begin(&j, NULL);
		fx_json_str(&j, "name", name);
		fx_json_str(&j, "device", name);
		fx_json_int(&j, "count", (long long)count[c]);
		fx_json_obj_end(&j);
	}
	fx_json_arr_end(&j);
	memset(ports, 0, (size_t)(f->nv ? f->nv : 1) * sizeof *ports);
	fx_json_arr_begin(&j, "edges");
	int64_t nedges = 0;
	for (int64_t e = 0; e < f->ne; e++) {
		if (!fx_fabric_edge_up(f, e))
			continue;
		int32_t k = f->e[e].count;
		fx_json_obj_begin(&j, NULL);
		for (int s = 0; s < 2; s++) {
			int64_t v = f->ends[2 * e + s];
			class_name(f, class_of(f, v), name, sizeof name);
			snprintf(b1, sizeof b1, "%s[%lld]", name, (long long)idx[v]);
			if (k == 1)
				snprintf(b2, sizeof b2, "port[%lld]", (long long)ports[v]);
			else
				snprintf(b2, sizeof b2, "port[%lld:%lld]", (long long)ports[v],
					 (long long)(ports[v] + k));
			ports[v] += k;
			fx_json_obj_begin(&j, s ? "ep2" : "ep1");
			fx_json_str(&j, "instance", b1);
			fx_json_str(&j, "component", b2);
			fx_json_obj_end(&j);
		}
		fx_json_str(&j, "scheme", "one2one");
		snprintf(name, sizeof name, "link%d", link_class(&lc, &nlc, f->e[e].bw, f->e[e].lat));
		fx_json_str(&j, "link", name);
		fx_json_obj_end(&j);
		nedges++;
	}
	fx_json_arr_end(&j);
	fx_json_obj_end(&j);
	fx_json_obj_end(&j);
	fputc('\n', out);
	fx_export_lost(info, "routing (InfraGraph describes the graph; its consumers route it)");
	fx_export_lost(info, "packaging (nodes, racks, planes) and link media");
	fx_export_lost(info, "per-round overhead (collective.overhead)");
	fx_export_failed_left_out(f, info);
	info->vertices = f->nv;
	info->edges = links;
	(void)nedges;
	free(count);
	free(idx);
	free(ports);
	free(maxp);
	free(lc);
	return 0;
}
