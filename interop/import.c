/*
 * Import: a peer's file read into a graph (interop/import_*.c), written as
 * a `custom` spec, and that spec loaded back before it is delivered, so an
 * import either gives a spec fabricx accepts or an error naming the file's
 * line and column.
 *
 * What a file does not say is assumed and written into the spec's
 * sources: a vertex with no type is a device (a direct graph, so every
 * vertex relays), a link with no bandwidth or latency takes the defaults
 * the caller gives (fx_import_opts), parallel edges with equal values
 * become one bundle of `count` links.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../core/units.h"
#include "../core/xalloc.h"
#include "../spec/spec.h"
#include "export_internal.h"
#include "import_internal.h"

static const struct {
	const char *name;
	int (*read)(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d);
} readers[] = {
	{"graphml", fx_import_graphml},
	{"gml", fx_import_gml},
	{"ns3", fx_import_ns3},
	{"simai", fx_import_simai},
	{"booksim", fx_import_booksim},
	{"simgrid", fx_import_simgrid},
	{"nccl-topo", fx_import_nccl_topo},
	{"nvidia-smi", fx_import_nvidia_smi},
};
#define NREADERS (sizeof readers / sizeof readers[0])

const char *fx_import_names(void)
{
	return "graphml, gml, ns3, simai, booksim, simgrid, nccl-topo, nvidia-smi";
}

void fx_import_info_release(fx_import_info *info)
{
	if (!info)
		return;
	for (size_t i = 0; i < info->nassumed; i++)
		free(info->assumed[i]);
	free(info->assumed);
	for (size_t i = 0; i < info->nlost; i++)
		free(info->lost[i]);
	free(info->lost);
	free(info->recognition);
	memset(info, 0, sizeof *info);
}

void fx_imp_assume(fx_imp_graph *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = fx_xvasprintf(fmt, ap);
	va_end(ap);
	g->assumed = fx_xrealloc(g->assumed, (g->nassumed + 1) * sizeof *g->assumed);
	g->assumed[g->nassumed++] = s;
}

void fx_imp_lose(fx_imp_graph *g, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = fx_xvasprintf(fmt, ap);
	va_end(ap);
	g->lost = fx_xrealloc(g->lost, (g->nlost + 1) * sizeof *g->lost);
	g->lost[g->nlost++] = s;
}

int64_t fx_imp_vertex(fx_imp_graph *g, const char *key, fx_loc loc)
{
	if (g->nv == g->capv) {
		g->capv = g->capv ? 2 * g->capv : 64;
		g->v = fx_xrealloc(g->v, g->capv * sizeof *g->v);
	}
	fx_imp_vertex_t *v = &g->v[g->nv];
	memset(v, 0, sizeof *v);
	v->key = fx_xstrdup(key);
	v->type = -1;
	v->node = v->plane = v->ports = v->tier = -1;
	v->loc = loc;
	return (int64_t)g->nv++;
}

int64_t fx_imp_find(const fx_imp_graph *g, const char *key)
{
	/* the readers' files are small next to what a spec may hold, and a
	 * map is built once per import: a sorted index would be the next step */
	if (!g->index) {
		for (size_t i = 0; i < g->nv; i++)
			if (strcmp(g->v[i].key, key) == 0)
				return (int64_t)i;
		return -1;
	}
	size_t lo = 0, hi = g->nv;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(g->v[g->index[mid]].key, key);
		if (c == 0)
			return (int64_t)g->index[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static const fx_imp_graph *sort_graph;
static int by_key(const void *a, const void *b)
{
	return strcmp(sort_graph->v[*(const size_t *)a].key, sort_graph->v[*(const size_t *)b].key);
}

int fx_imp_index(fx_imp_graph *g, fx_diag *d)
{
	free(g->index);
	g->index = fx_xmalloc((g->nv ? g->nv : 1) * sizeof *g->index);
	for (size_t i = 0; i < g->nv; i++)
		g->index[i] = i;
	sort_graph = g;
	qsort(g->index, g->nv, sizeof *g->index, by_key);
	for (size_t i = 1; i < g->nv; i++)
		if (strcmp(g->v[g->index[i]].key, g->v[g->index[i - 1]].key) == 0) {
			size_t a = g->index[i - 1] < g->index[i] ? g->index[i - 1] : g->index[i];
			size_t b = a == g->index[i] ? g->index[i - 1] : g->index[i];
			return fx_diag_error(d, &g->v[b].loc, "vertex '%s' is given twice (first at line %d)",
					     g->v[b].key, g->v[a].loc.line);
		}
	return 0;
}

fx_imp_link *fx_imp_link_add(fx_imp_graph *g, int64_t a, int64_t b, fx_loc loc)
{
	if (g->nl == g->capl) {
		g->capl = g->capl ? 2 * g->capl : 64;
		g->l = fx_xrealloc(g->l, g->capl * sizeof *g->l);
	}
	fx_imp_link *l = &g->l[g->nl++];
	memset(l, 0, sizeof *l);
	l->a = a;
	l->b = b;
	l->count = 1;
	l->bw = l->lat = -1;
	l->medium = -1;
	l->bundle = -1;
	l->loc = loc;
	return l;
}

static void graph_release(fx_imp_graph *g)
{
	for (size_t i = 0; i < g->nv; i++) {
		free(g->v[i].key);
		free(g->v[i].name);
		free(g->v[i].role);
	}
	free(g->v);
	free(g->l);
	free(g->index);
	for (size_t i = 0; i < g->nassumed; i++)
		free(g->assumed[i]);
	free(g->assumed);
	for (size_t i = 0; i < g->nlost; i++)
		free(g->lost[i]);
	free(g->lost);
	memset(g, 0, sizeof *g);
}

/* A YAML double-quoted scalar (names are printable UTF-8: only the quote
 * and the backslash need escapes). */
static void yq(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* x as a spec quantity that reads back as exactly x: in the first of the
 * units whose short rendering the loader turns back into x (it parses
 * "200 ns" as 200 * 1e-9), else in the SI unit with every digit. */
const char *fx_imp_qty(double x, fx_unit_kind k, char buf[64])
{
	static const struct { const char *name; double f; fx_unit_kind k; } units[] = {
		{"GB/s", 1e9, FX_UNIT_BANDWIDTH}, {"MB/s", 1e6, FX_UNIT_BANDWIDTH},
		{"Gbit/s", 1e9 / 8, FX_UNIT_BANDWIDTH},
		{"ns", 1e-9, FX_UNIT_TIME}, {"us", 1e-6, FX_UNIT_TIME}, {"ms", 1e-3, FX_UNIT_TIME},
	};
	char n[48];
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (units[i].k != k)
			continue;
		fx_export_num(x / units[i].f, 12, 0, n);
		if (strtod(n, NULL) * units[i].f == x) {
			snprintf(buf, 64, "%s %s", n, units[i].name);
			return buf;
		}
	}
	snprintf(buf, 64, "%s %s", fx_export_num(x, 17, 0, n), k == FX_UNIT_TIME ? "s" : "B/s");
	return buf;
}

static int link_cmp(const void *x, const void *y)
{
	const fx_imp_link *a = x, *b = y;
#define CMP(f) if (a->f != b->f) return a->f < b->f ? -1 : 1
	CMP(a); CMP(b); CMP(bundle); CMP(bw); CMP(lat); CMP(medium);
#undef CMP
	return 0;
}

static const char *const type_names[] = {"device", "switch", "cpu"};
static const char *const medium_names[] = {"copper", "optical", "silicon"};

static int write_spec(fx_imp_graph *g, const char *path, const char *format, const char *name,
		      const fx_import_opts *o, FILE *out, fx_import_info *info, fx_diag *d)
{
	int rc = 0;
	/* names: the file's, checked as a custom spec checks them */
	for (size_t i = 0; i < g->nv; i++) {
		fx_imp_vertex_t *v = &g->v[i];
		const char *nm = v->name ? v->name : v->key;
		const char *why = fx_text_check(nm);
		if (why || strlen(nm) > 63 || !*nm)
			rc |= fx_diag_error(d, &v->loc, "vertex name '%.64s' %s (a vertex name is 1 to 63 "
					    "bytes of printable UTF-8)", nm,
					    why ? why : !*nm ? "is empty" : "is longer than 63 bytes");
		if (v->type < 0)
			g->untyped++;
	}
	if (rc)
		return -1;
	int64_t dev = 0;
	for (size_t i = 0; i < g->nv; i++)
		dev += g->v[i].type == 0 || g->v[i].type < 0;
	if (dev == 0)
		return fx_diag_error(d, NULL, "%s: no vertex is a device (a spec needs at least one)", path);
	int64_t ncpu = 0;
	for (size_t i = 0; i < g->nv; i++)
		ncpu += g->v[i].type == 2;
	size_t nobw = 0, nolat = 0;
	for (size_t i = 0; i < g->nl; i++) {
		nobw += g->l[i].bw < 0;
		nolat += g->l[i].lat < 0;
		if (g->l[i].a == g->l[i].b) {
			return fx_diag_error(d, &g->l[i].loc, "a link from vertex '%s' to itself",
					     g->v[g->l[i].a].key);
		}
	}
	/* a vertex without a link leaves the graph in pieces: said here, at
	 * the vertex, before a fabric is built for the check */
	if (g->nv > 1) {
		uint8_t *linked = fx_xcalloc(g->nv, 1);
		for (size_t i = 0; i < g->nl; i++)
			linked[g->l[i].a] = linked[g->l[i].b] = 1;
		for (size_t i = 0; i < g->nv && rc == 0; i++)
			if (!linked[i])
				rc = fx_diag_error(d, &g->v[i].loc, "vertex '%s' has no link: a fabric is one "
						   "connected graph", g->v[i].name ? g->v[i].name : g->v[i].key);
		free(linked);
		if (rc)
			return -1;
	}
	/* parallel edges with equal values: one bundle */
	if (g->nl)   /* qsort(NULL, 0) is undefined */
		qsort(g->l, g->nl, sizeof *g->l, link_cmp);
	size_t m = 0;
	for (size_t i = 0; i < g->nl; i++) {
		fx_imp_link *l = &g->l[i];
		if (m && g->l[m - 1].a == l->a && g->l[m - 1].b == l->b && g->l[m - 1].bw == l->bw &&
		    g->l[m - 1].lat == l->lat && g->l[m - 1].medium == l->medium &&
		    g->l[m - 1].bundle == l->bundle) {
			g->l[m - 1].count += l->count;
			continue;
		}
		g->l[m++] = *l;
	}
	g->nl = m;

	/* a lattice, fat-tree or NVSwitch domain is written as its kind, once
	 * proven isomorphic (import_recog.c) */
	fx_imp_recog rg;
	fx_imp_recognise(g, o, &rg);
	const char *kind = rg.kind;
	int direct = !kind || strcmp(kind, "torus") == 0 || strcmp(kind, "mesh") == 0;
	if (!kind) {
		/* a custom spec lets every vertex relay (docs/spec.md §4.7) */
		if (g->cpus_relay == 0 && ncpu)
			fx_imp_assume(g, "the file says its CPUs do not relay; in a custom spec every vertex may, so "
				      "routes through a CPU appear where one is as short as through a switch");
		if (g->devices_relay == 0)
			fx_imp_assume(g, "the file says its devices do not relay; in a custom spec every vertex may, "
				      "so routes through a device appear where one is as short as through a switch");
	} else if (direct) {
		if (g->devices_relay == 0)
			fx_imp_assume(g, "the file says its devices do not relay; in a %s every device does", kind);
	} else {
		if (g->devices_relay != 0)
			fx_imp_assume(g, "%s; the %s spec's do not, which moves no route here (every "
				      "shortest route between two devices runs through switches)",
				      g->devices_relay == 1 ? "the file says its devices relay"
				      : "assumed: the file does not say whether its devices relay", kind);
		if (g->cpus_relay != 0 && ncpu)
			fx_imp_assume(g, "assumed: the file does not say whether its CPUs relay; the %s "
				      "spec's do not", kind);
	}
	if (g->untyped)
		fx_imp_assume(g, "assumed: %zu vertices without a type are devices%s", g->untyped,
			      direct ? " (a direct graph: every vertex relays)" : "");
	char q1[64], q2[64];
	if (nobw)
		fx_imp_assume(g, "assumed: %zu links without a bandwidth have %s per direction "
			      "(--bandwidth)", nobw, fx_unit_format(o->bandwidth, FX_UNIT_BANDWIDTH, q1, sizeof q1));
	if (nolat)
		fx_imp_assume(g, "assumed: %zu links without a latency have %s per hop (--latency)",
			      nolat, fx_unit_format(o->latency, FX_UNIT_TIME, q2, sizeof q2));
	if (rg.assumed_ports > 0)
		fx_imp_assume(g, "assumed: %s %lld, the most ports in use on a switch chip (the file gives "
			      "no ports)", strcmp(kind, "nvswitch") == 0 ? "switch_ports" : "radix",
			      (long long)rg.assumed_ports);
	if (kind && !rg.names_kept) {
		int attrs = 0;
		for (size_t i = 0; i < g->nv; i++)
			attrs |= g->v[i].node >= 0 || g->v[i].plane >= 0 || g->v[i].tier >= 1 ||
				 (g->v[i].role && *g->v[i].role);
		fx_imp_lose(g, "the file's vertex names%s: the %s spec names and numbers its vertices itself",
			    attrs ? " and their node, plane, role and tier" : "", kind);
	} else if (kind && rg.attrs_differ) {
		static const char *const what[] = {"node numbers", "planes", "switch roles", "switch tiers"};
		char list[128] = "";
		for (int b = 0; b < 4; b++)
			if (rg.attrs_differ & (1u << b))
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
					 *list ? ", " : "", what[b]);
		fx_imp_lose(g, "the file's %s: the %s spec gives its vertices its kind's own", list, kind);
	}

	fprintf(out, "# written by fabricx import from %s (%s)\nname: %s\ndescription: ", path, format, name);
	char desc[600];
	snprintf(desc, sizeof desc, "imported from %s (%s)", path, format);
	yq(out, desc);
	fputs("\nsources:\n  - ", out);
	int64_t counts[3] = {0, 0, 0}, links = 0;
	for (size_t i = 0; i < g->nv; i++)
		counts[g->v[i].type < 0 ? 0 : g->v[i].type]++;
	for (size_t i = 0; i < g->nl; i++)
		links += g->l[i].count;
	char src[700];
	snprintf(src, sizeof src, "%s (%s): %lld devices, %lld switches, %lld CPUs, %lld links",
		 path, format, (long long)counts[0], (long long)counts[1], (long long)counts[2],
		 (long long)links);
	yq(out, src);
	fputc('\n', out);
	for (size_t i = 0; i < g->nassumed; i++) {
		fputs("  - ", out);
		yq(out, g->assumed[i]);
		fputc('\n', out);
	}
	for (size_t i = 0; i < g->nlost; i++) {
		char *s = fx_xasprintf("not carried: %s", g->lost[i]);
		fputs("  - ", out);
		yq(out, s);
		fputc('\n', out);
		free(s);
	}
	info->kind = kind;
	info->recognition = rg.why;
	rg.why = NULL;
	if (kind) {
		fprintf(out, "fabric:\n%s", rg.fabric);
		fx_imp_recog_release(&rg);
		goto done;
	}
	fx_imp_recog_release(&rg);
	fputs("fabric:\n  kind: custom\n", out);
	if (nobw || nolat)
		fprintf(out, "  link: {bandwidth: %s, latency: %s}\n", fx_imp_qty(o->bandwidth, FX_UNIT_BANDWIDTH, q1),
			fx_imp_qty(o->latency, FX_UNIT_TIME, q2));
	fputs("  nodes:\n", out);
	for (size_t i = 0; i < g->nv; i++) {
		const fx_imp_vertex_t *v = &g->v[i];
		fputs("    - {name: ", out);
		yq(out, v->name ? v->name : v->key);
		fprintf(out, ", type: %s", type_names[v->type < 0 ? 0 : v->type]);
		if (v->node >= 0)
			fprintf(out, ", node: %lld", (long long)v->node);
		if (v->plane >= 0)
			fprintf(out, ", plane: %lld", (long long)v->plane);
		if (v->type == 1) {
			if (v->role && *v->role) {
				fputs(", role: ", out);
				yq(out, v->role);
			}
			if (v->tier >= 1)
				fprintf(out, ", tier: %lld", (long long)v->tier);
			if (v->ports >= 1)
				fprintf(out, ", ports: %lld", (long long)v->ports);
		}
		fputs("}\n", out);
	}
	fputs(g->nl ? "  links:\n" : "  links: []\n", out);
	for (size_t i = 0; i < g->nl; i++) {
		const fx_imp_link *l = &g->l[i];
		fputs("    - {a: ", out);
		yq(out, g->v[l->a].name ? g->v[l->a].name : g->v[l->a].key);
		fputs(", b: ", out);
		yq(out, g->v[l->b].name ? g->v[l->b].name : g->v[l->b].key);
		if (l->count != 1)
			fprintf(out, ", count: %lld", (long long)l->count);
		if (l->bw >= 0)
			fprintf(out, ", bandwidth: %s", fx_imp_qty(l->bw, FX_UNIT_BANDWIDTH, q1));
		if (l->lat >= 0)
			fprintf(out, ", latency: %s", fx_imp_qty(l->lat, FX_UNIT_TIME, q2));
		if (l->medium >= 0)
			fprintf(out, ", medium: %s", medium_names[l->medium]);
		fputs("}\n", out);
	}
done:
	info->devices = counts[0];
	info->switches = counts[1];
	info->cpus = counts[2];
	info->links = links;
	info->assumed = g->assumed;
	info->nassumed = g->nassumed;
	g->assumed = NULL;
	g->nassumed = 0;
	info->lost = g->lost;
	info->nlost = g->nlost;
	g->lost = NULL;
	g->nlost = 0;
	return 0;
}

int fx_import(const char *path, const char *format, const char *name, const fx_import_opts *o,
	      FILE *out, fx_import_info *info, fx_diag *d)
{
	if (!d)
		return -1;
	if (!path || !format || !name || !o || !out || !info)
		return fx_diag_internal(d, "fx_import: a NULL argument");
	memset(info, 0, sizeof *info);
	size_t r = 0;
	while (r < NREADERS && strcmp(readers[r].name, format) != 0)
		r++;
	if (r == NREADERS)
		return fx_diag_error(d, NULL, "unknown import format '%s' (expected: %s)", format,
				     fx_import_names());
	const char *why = fx_name_check(name);
	if (why)
		return fx_diag_error(d, NULL, "the spec name '%s' %s", name, why);
	FILE *f = fopen(path, "rb");
	if (!f)
		return fx_diag_error(d, NULL, "cannot read '%s': %s", path, strerror(errno));
	size_t cap = 1 << 16, len = 0, n;
	char *text = fx_xmalloc(cap + 1);
	while ((n = fread(text + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len > FX_IMPORT_MAX_BYTES) {
			fclose(f);
			free(text);
			return fx_diag_error(d, NULL, "'%s' is over %d MiB, more than an import reads",
					     path, FX_IMPORT_MAX_BYTES >> 20);
		}
		if (len == cap)
			text = fx_xrealloc(text, (cap *= 2) + 1);
	}
	int rerr = ferror(f);
	fclose(f);
	if (rerr) {
		free(text);
		return fx_diag_error(d, NULL, "cannot read '%s'", path);
	}
	text[len] = '\0';
	if (memchr(text, '\0', len)) {
		free(text);
		return fx_diag_error(d, NULL, "'%s' holds a NUL byte: not a text file", path);
	}
	const char *file = fx_diag_add_source(d, path, text);
	fx_imp_graph g = {0};
	char *spec = NULL;
	size_t slen = 0;
	FILE *mem = open_memstream(&spec, &slen);
	if (!mem)
		fx_xalloc_failed();
	int rc = readers[r].read(file, text, len, &g, d);
	if (rc == 0)
		rc = write_spec(&g, path, format, name, o, mem, info, d);
	fclose(mem);
	graph_release(&g);
	free(text);
	if (rc == 0) {
		/* the spec is delivered only once fabricx reads it back: a
		 * file the readers let through that builds no fabric is a bug */
		fx_design ds;
		fx_diag vd;
		fx_diag_init(&vd);
		vd.max_shown = 0;   /* its message goes into ours */
		fx_design_limits lim = {.max_memory = 4.0 * (1 << 30)};
		if (fx_design_load_text(&ds, "imported spec", spec, NULL, 0, &lim, &vd) != 0)
			rc = vd.status == FX_EXIT_INPUT
			     ? fx_diag_error(d, NULL, "%s: the imported graph is not a fabric fabricx "
					     "accepts: %s", path, vd.first ? vd.first : "(no message)")
			     : fx_diag_error(d, NULL, "%s: %s", path, vd.first ? vd.first : "too large");
		fx_design_release(&ds);
		fx_diag_release(&vd);
	}
	if (rc == 0 && fwrite(spec, 1, slen, out) != slen)
		rc = fx_diag_error(d, NULL, "cannot write the imported spec: %s", strerror(errno));
	free(spec);
	if (rc)
		fx_import_info_release(info);
	return rc;
}
