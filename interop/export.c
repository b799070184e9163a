/*
 * The export registry and what the writers share: the lost-list, pairs of
 * vertices with their bundles summed, numbers printed exactly.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "export_internal.h"

const fx_export_format fx_export_formats[] = {
	{.name = "graphml", .ext = "graphml", .write = fx_export_graphml,
	 .summary = "GraphML for NetworkX, igraph, Gephi: one edge per physical link"},
	{.name = "gml", .ext = "gml", .write = fx_export_gml,
	 .summary = "GML for igraph, NetworkX, Gephi: one edge per physical link"},
	{.name = "dot", .ext = "dot", .write = fx_export_dot,
	 .summary = "the plain graph for Graphviz, one edge per bundle"},
	{.name = "ns3", .ext = "txt", .write = fx_export_ns3,
	 .summary = "ASTRA-sim's ns-3 edge list (a router per relaying device)"},
	{.name = "simai", .ext = "txt", .write = fx_export_simai,
	 .summary = "SimAI's edge list: its header, one NVSwitch node per server"},
	{.name = "booksim", .ext = "anynet", .write = fx_export_booksim,
	 .summary = "BookSim2's anynet network file"},
	{.name = "astra-sim", .ext = "yml", .write = fx_export_astra,
	 .summary = "ASTRA-sim's analytical network YAML (the closest per-dimension form)"},
	{.name = "simgrid", .ext = "xml", .write = fx_export_simgrid,
	 .summary = "SimGrid platform XML v4.1: fabricx's routes as explicit routes"},
	{.name = "simgrid-hosts", .ext = "txt", .write = fx_export_simgrid_hosts,
	 .summary = "the host file for smpirun with the simgrid platform"},
	{.name = "smpi", .ext = "c", .write = fx_export_smpi,
	 .summary = "an SMPI program running the spec's collectives as fabricx schedules them"},
	{.name = "htsim", .ext = "topo", .write = fx_export_htsim,
	 .summary = "htsim's fat-tree .topo (two- and three-tier fat-trees only)"},
	{.name = "infragraph", .ext = "json", .write = fx_export_infragraph,
	 .summary = "InfraGraph JSON: devices, instances, links and an edge per bundle"},
	{.name = NULL},
};

const fx_export_format *fx_export_find(const char *name)
{
	for (const fx_export_format *x = fx_export_formats; name && x->name; x++)
		if (strcmp(x->name, name) == 0)
			return x;
	return NULL;
}

const char *fx_export_names(void)
{
	static char buf[256];
	if (!*buf)
		for (const fx_export_format *x = fx_export_formats; x->name; x++) {
			size_t l = strlen(buf);
			snprintf(buf + l, sizeof buf - l, "%s%s", l ? ", " : "", x->name);
		}
	return buf;
}

int fx_export(const fx_design *ds, const char *format, FILE *out, fx_export_info *info,
	      fx_diag *d)
{
	if (!d)
		return -1;
	if (!ds || !ds->have_fab || !out || !info)
		return fx_diag_internal(d, "fx_export: %s", !ds || !ds->have_fab ? "no fabric loaded"
						: !out ? "no output" : "no info");
	memset(info, 0, sizeof *info);
	const fx_export_format *x = fx_export_find(format);
	if (!x)
		return fx_diag_error(d, NULL, "unknown export format '%s' (expected: %s)",
				     format ? format : "(none)", fx_export_names());
	return x->write(ds, out, info, d);
}

void fx_export_info_release(fx_export_info *info)
{
	if (!info)
		return;
	for (size_t i = 0; i < info->nlost; i++)
		free(info->lost[i]);
	free(info->lost);
	memset(info, 0, sizeof *info);
}

void fx_export_lost(fx_export_info *info, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = fx_xvasprintf(fmt, ap);
	va_end(ap);
	info->lost = fx_xrealloc(info->lost, (info->nlost + 1) * sizeof *info->lost);
	info->lost[info->nlost++] = s;
}

void fx_export_failed_left_out(const fx_fabric *f, fx_export_info *info)
{
	if (!fx_fabric_degraded(f))
		return;
	int64_t v = 0, l = 0;
	fx_fabric_fail_counts(f, &v, &l);
	fx_export_lost(info, "failed elements are left out (the degraded fabric): %lld vertices, "
		       "%lld physical links", (long long)v, (long long)l);
}

/* x in at most `digits` significant digits, the fewest that give the
 * same value at that precision (17: exact; 12: a unit conversion's last
 * bits of noise dropped, 2e-7 s as 200 ns and not 200.00000000000003),
 * in fixed notation where that stays short.  real: always with a decimal
 * point or an exponent (GML's grammar, and NetworkX's, read "2e-07" as an
 * integer followed by garbage). */
const char *fx_export_num(double x, int digits, int real, char buf[48])
{
	char t[320];   /* %g of a double: at most 24 bytes, but gcc cannot see it */
	snprintf(t, sizeof t, "%.*g", digits, x);
	double want = strtod(t, NULL);
	int p = 1;
	for (; p < digits; p++) {
		snprintf(t, sizeof t, "%.*g", p, x);
		if (strtod(t, NULL) == want)
			break;
	}
	double ax = fabs(want);
	if (ax != 0 && ax >= 1e-5 && ax < 1e16) {
		int e10 = (int)floor(log10(ax));
		int dec = p - 1 - e10;
		snprintf(buf, 48, "%.*f", dec > 0 ? dec : 0, want);
	} else {   /* an exponent form is at most 24 bytes; gcc cannot see it */
		char wide[320];
		snprintf(wide, sizeof wide, "%.*g", p, want);
		size_t l = strlen(wide) < 47 ? strlen(wide) : 47;
		memcpy(buf, wide, l);
		buf[l] = '\0';
	}
	if (real && !strpbrk(buf, ".eEin"))
		strcat(buf, ".0");
	else if (real && !strchr(buf, '.') && strchr(buf, 'e')) {
		char *e = strchr(buf, 'e');
		memmove(e + 2, e, strlen(e) + 1);
		e[0] = '.';
		e[1] = '0';
	}
	return buf;
}

static int pair_cmp(const void *a, const void *b)
{
	const fx_export_pair *x = a, *y = b;
	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b < y->b ? -1 : 1;
	return 0;
}

size_t fx_export_pairs(const fx_fabric *f, const int64_t *map, fx_export_pair **out,
		       int64_t *summed)
{
	fx_export_pair *p = fx_xmalloc((size_t)(f->ne ? f->ne : 1) * sizeof *p);
	size_t n = 0;
	for (int64_t e = 0; e < f->ne; e++) {
		if (!fx_fabric_edge_up(f, e))
			continue;
		int64_t a = f->ends[2 * e], b = f->ends[2 * e + 1];
		if (map) {
			a = map[a];
			b = map[b];
		}
		if (a < 0 || b < 0 || a == b)
			continue;
		if (a > b) {
			int64_t t = a;
			a = b;
			b = t;
		}
		p[n++] = (fx_export_pair){.a = a, .b = b, .bw = f->e[e].bw * f->e[e].count,
					  .lat = f->e[e].lat, .links = f->e[e].count, .bundles = 1};
	}
	qsort(p, n, sizeof *p, pair_cmp);
	size_t m = 0;
	int64_t merged = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && p[m - 1].a == p[i].a && p[m - 1].b == p[i].b) {
			p[m - 1].bw += p[i].bw;
			p[m - 1].links += p[i].links;
			p[m - 1].bundles++;
			if (p[i].lat > p[m - 1].lat)
				p[m - 1].lat = p[i].lat;
			continue;
		}
		p[m++] = p[i];
	}
	for (size_t i = 0; i < m; i++)
		if (p[i].links > 1)
			merged++;
	*summed = merged;
	*out = p;
	return m;
}
