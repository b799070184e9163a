/*
 * The simulators' edge lists into the import graph: ASTRA-sim's ns-3
 * file, SimAI's (its header and NVSwitch numbering) and BookSim2's anynet
 * (interop.md §2-3; the writers are interop/export_sim.c).  Whitespace
 * separated, one record a line; every bad field is an error at its line
 * and column.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "import_internal.h"

typedef struct rd {
	const char *file, *s;
	size_t len, pos;
	int line, col;
	fx_diag *d;
} rd;

/* The next word of the current line into w (NUL-terminated, at most
 * cap - 1 bytes) and its position; 0 at the end of the line. */
static int word(rd *r, char *w, size_t cap, fx_loc *at)
{
	while (r->pos < r->len && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t' || r->s[r->pos] == '\r')) {
		r->pos++;
		r->col++;
	}
	*at = (fx_loc){r->file, r->line, r->col};
	if (r->pos >= r->len || r->s[r->pos] == '\n')
		return 0;
	size_t n = 0;
	while (r->pos < r->len && !isspace((unsigned char)r->s[r->pos])) {
		if (n + 1 < cap)
			w[n++] = r->s[r->pos];
		r->pos++;
		r->col++;
	}
	w[n] = '\0';
	return 1;
}

/* To the start of the next line; 0 at the end of the file. */
static int next_line(rd *r)
{
	while (r->pos < r->len && r->s[r->pos] != '\n')
		r->pos++;
	if (r->pos >= r->len)
		return 0;
	r->pos++;
	r->line++;
	r->col = 1;
	return 1;
}

static int blank_line(const rd *r)
{
	for (size_t i = r->pos; i < r->len && r->s[i] != '\n'; i++)
		if (!isspace((unsigned char)r->s[i]))
			return 0;
	return 1;
}

static int whole(rd *r, const char *w, const fx_loc *at, const char *what, int64_t lo, int64_t hi,
		 int64_t *out)
{
	char *end;
	long long v = strtoll(w, &end, 10);
	if (!*w || *end || v < lo || v > hi)
		return fx_diag_error(r->d, at, "%s must be a whole number from %lld to %lld, not '%.40s'",
				     what, (long long)lo, (long long)hi, w);
	*out = v;
	return 0;
}

/* "400Gbps", "50GBps", "1.5Tbps": bytes per second. */
static int rate(rd *r, const char *w, const fx_loc *at, double *out)
{
	static const struct { const char *u; double f; } units[] = {
		{"Tbps", 1e12 / 8}, {"Gbps", 1e9 / 8}, {"Mbps", 1e6 / 8}, {"Kbps", 1e3 / 8},
		{"kbps", 1e3 / 8}, {"bps", 1.0 / 8}, {"TBps", 1e12}, {"GBps", 1e9}, {"MBps", 1e6},
		{"KBps", 1e3}, {"kBps", 1e3}, {"Bps", 1},
	};
	char *end;
	double v = strtod(w, &end);
	for (size_t i = 0; end != w && i < sizeof units / sizeof units[0]; i++)
		if (strcmp(end, units[i].u) == 0 && v > 0 && isfinite(v) && v < 1e300) {
			*out = v * units[i].f;
			return 0;
		}
	return fx_diag_error(r->d, at, "a link rate must be a positive number with bps, Kbps, Mbps, "
			     "Gbps or Tbps (or Bps, GBps...), not '%.40s'", w);
}

/* "0.0005ms", "200ns": seconds. */
static int delay(rd *r, const char *w, const fx_loc *at, double *out)
{
	static const struct { const char *u; double f; } units[] = {
		{"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12}, {"s", 1},
	};
	char *end;
	double v = strtod(w, &end);
	for (size_t i = 0; end != w && i < sizeof units / sizeof units[0]; i++)
		if (strcmp(end, units[i].u) == 0 && v >= 0 && isfinite(v) && v < 1e300) {
			*out = v * units[i].f;
			return 0;
		}
	return fx_diag_error(r->d, at, "a link delay must be a number >= 0 with s, ms, us, ns or ps, "
			     "not '%.40s'", w);
}

static void key_of(char *buf, size_t cap, int64_t id)
{
	snprintf(buf, cap, "%lld", (long long)id);
}

/* The common part of ns-3 and SimAI files after their headers: the switch
 * id line and `links` link lines over `nodes` ids. */
static int edge_list(rd *r, fx_imp_graph *g, int64_t nodes, int64_t nswitch, int64_t links,
		     uint8_t *is_switch)
{
	char w[128];
	fx_loc at;
	int64_t got = 0, id;
	/* the switch ids (a blank line when there are none) */
	while (got < nswitch) {
		if (!word(r, w, sizeof w, &at)) {
			if (got == 0 && blank_line(r) && next_line(r))
				continue;
			return fx_diag_error(r->d, &at, "the switch line lists %lld ids, the header says %lld",
					     (long long)got, (long long)nswitch);
		}
		if (whole(r, w, &at, "a switch id", 0, nodes - 1, &id))
			return -1;
		if (is_switch[id])
			return fx_diag_error(r->d, &at, "switch %lld is listed twice", (long long)id);
		is_switch[id] = 1;
		got++;
	}
	if (word(r, w, sizeof w, &at))
		return fx_diag_error(r->d, &at, "more switch ids than the header's %lld", (long long)nswitch);
	next_line(r);
	for (int64_t v = 0; v < nodes; v++)
		if (is_switch[v] && g->v[v].type < 0)
			g->v[v].type = 1;
	for (int64_t l = 0; l < links; l++) {
		while (r->pos < r->len && blank_line(r) && next_line(r))
			;
		int64_t a, b;
		double bw = 0, lat = 0;
		if (!word(r, w, sizeof w, &at))
			return fx_diag_error(r->d, &at, "the file ends after %lld of the header's %lld links",
					     (long long)l, (long long)links);
		if (whole(r, w, &at, "a link's source", 0, nodes - 1, &a))
			return -1;
		fx_loc lat_at = at;
		if (!word(r, w, sizeof w, &at))
			return fx_diag_error(r->d, &at, "a link needs: src dst rate delay error_rate");
		if (whole(r, w, &at, "a link's destination", 0, nodes - 1, &b))
			return -1;
		if (a == b)
			return fx_diag_error(r->d, &lat_at, "a link from %lld to itself", (long long)a);
		if (!word(r, w, sizeof w, &at))
			return fx_diag_error(r->d, &at, "a link needs a rate (e.g. 400Gbps)");
		if (rate(r, w, &at, &bw))
			return -1;
		if (!word(r, w, sizeof w, &at))
			return fx_diag_error(r->d, &at, "a link needs a delay (e.g. 0.0005ms)");
		if (delay(r, w, &at, &lat))
			return -1;
		if (word(r, w, sizeof w, &at)) {   /* the error rate: a link that drops packets */
			char *end;
			double e = strtod(w, &end);
			if (*end || e < 0 || e > 1)
				return fx_diag_error(r->d, &at, "an error rate must be from 0 to 1, not '%.40s'", w);
			if (e > 0)
				fx_imp_assume(g, "the link %lld-%lld has error rate %g, which a spec cannot "
					      "say: read as a working link", (long long)a, (long long)b, e);
		}
		if (word(r, w, sizeof w, &at))
			return fx_diag_error(r->d, &at, "a link line has more than src dst rate delay error_rate");
		fx_imp_link *k = fx_imp_link_add(g, a < b ? a : b, a < b ? b : a, lat_at);
		k->bw = bw;
		k->lat = lat;
		next_line(r);
	}
	while (r->pos < r->len && blank_line(r) && next_line(r))
		;
	if (r->pos < r->len) {
		word(r, w, sizeof w, &at);
		return fx_diag_error(r->d, &at, "more lines than the header's %lld links", (long long)links);
	}
	return 0;
}

static int header(rd *r, int64_t *v, int n, const char *const *what, char *extra, size_t cap)
{
	char w[128];
	fx_loc at;
	while (r->pos < r->len && blank_line(r) && next_line(r))
		;
	for (int i = 0; i < n; i++) {
		if (!word(r, w, sizeof w, &at))
			return fx_diag_error(r->d, &at, "the header needs %d numbers (%s ...): '%s' is missing",
					     n, what[0], what[i]);
		if (whole(r, w, &at, what[i], i == 0 ? 1 : 0, 10000000, &v[i]))
			return -1;
	}
	if (extra) {
		if (!word(r, extra, cap, &at))
			return fx_diag_error(r->d, &at, "the header ends before its gpu_type (A100, A800, "
					     "H100 or H800)");
	}
	if (word(r, w, sizeof w, &at))
		return fx_diag_error(r->d, &at, "the header has more fields than %d", n + (extra != NULL));
	next_line(r);
	return 0;
}

/* A header whose counts the file cannot hold, refused before anything is
 * made for them: n vertices need n - 1 links to be one graph, and a link
 * line takes at least 8 bytes ("0 1 1bps 0s" is 11). */
static int counts_impossible(const char *file, size_t len, int64_t nodes, int64_t links, fx_diag *d)
{
	fx_loc top = {file, 1, 1};
	if ((double)links * 8 > (double)len)
		return fx_diag_error(d, &top, "the header's %lld links need more than the file's %zu bytes",
				     (long long)links, len);
	if (nodes > links + 1)
		return fx_diag_error(d, &top, "the header's %lld nodes cannot be one graph with %lld links",
				     (long long)nodes, (long long)links);
	return 0;
}

static void make_vertices(fx_imp_graph *g, const char *file, int64_t n)
{
	char k[32];
	for (int64_t v = 0; v < n; v++) {
		key_of(k, sizeof k, v);
		fx_imp_vertex(g, k, (fx_loc){file, 1, 1});
	}
}

int fx_import_ns3(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d)
{
	rd r = {file, text, len, 0, 1, 1, d};
	int64_t h[3];
	static const char *const what[] = {"total_nodes", "switch_count", "link_count"};
	if (header(&r, h, 3, what, NULL, 0))
		return -1;
	if (h[1] > h[0])
		return fx_diag_error(d, &(fx_loc){file, 1, 1}, "switch_count %lld is over total_nodes %lld",
				     (long long)h[1], (long long)h[0]);
	if (counts_impossible(file, len, h[0], h[2], d))
		return -1;
	make_vertices(g, file, h[0]);
	uint8_t *sw = fx_xcalloc((size_t)h[0], 1);
	int rc = edge_list(&r, g, h[0], h[1], h[2], sw);
	for (int64_t v = 0; rc == 0 && v < h[0]; v++) {
		char nm[40];
		snprintf(nm, sizeof nm, "%s%lld", sw[v] ? "switch" : "node", (long long)v);
		g->v[v].name = fx_xstrdup(nm);
		g->v[v].type = sw[v] ? 1 : 0;
	}
	free(sw);
	if (rc == 0) {
		fx_imp_assume(g, "assumed: ns-3's switches are one role of tier 1");
		rc = fx_imp_index(g, d);
	}
	return rc;
}

int fx_import_simai(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d)
{
	rd r = {file, text, len, 0, 1, 1, d};
	int64_t h[5];
	char gpu[64];
	static const char *const what[] = {"node_num", "gpus_per_server", "nvswitch_num", "switch_num",
					   "link_num"};
	if (header(&r, h, 5, what, gpu, sizeof gpu))
		return -1;
	int64_t gpus = h[0] - h[2] - h[3];
	fx_loc top = {file, 1, 1};
	if (gpus < 1 || h[1] < 1 || gpus % h[1] || gpus / h[1] != h[2])
		return fx_diag_error(d, &top, "the header does not add up: %lld GPUs (node_num - nvswitch_num "
				     "- switch_num) in servers of %lld need %lld NVSwitch nodes, it says %lld",
				     (long long)gpus, (long long)h[1], h[1] > 0 ? (long long)(gpus / h[1]) : 0LL,
				     (long long)h[2]);
	/* gpu_type names the GPU model (SimAI's own files use A100, A800,
	 * H100, H800 and H20); a spec has no field for it, so it is kept in
	 * the sources */
	for (const char *q = gpu; *q; q++)
		if (!isalnum((unsigned char)*q) && *q != '-' && *q != '_')
			return fx_diag_error(d, &top, "gpu_type '%.40s' is not a GPU model's name", gpu);
	if (counts_impossible(file, len, h[0], h[4], d))
		return -1;
	make_vertices(g, file, h[0]);
	uint8_t *sw = fx_xcalloc((size_t)h[0], 1);
	int rc = edge_list(&r, g, h[0], h[2] + h[3], h[4], sw);
	for (int64_t v = 0; rc == 0 && v < h[0]; v++) {
		char nm[40];
		fx_imp_vertex_t *x = &g->v[v];
		if (v < gpus) {
			if (sw[v]) {
				rc = fx_diag_error(d, &top, "id %lld is listed as a switch, but SimAI's GPUs are "
						   "0 to %lld", (long long)v, (long long)(gpus - 1));
				break;
			}
			snprintf(nm, sizeof nm, "gpu%lld", (long long)v);
			x->type = 0;
			x->node = v / h[1];
		} else if (v < gpus + h[2]) {
			snprintf(nm, sizeof nm, "nvswitch%lld", (long long)(v - gpus));
			x->type = 1;
			x->node = v - gpus;
			x->role = fx_xstrdup("nvswitch");
			x->tier = 1;
		} else {
			snprintf(nm, sizeof nm, "switch%lld", (long long)(v - gpus - h[2]));
			x->type = 1;
			x->role = fx_xstrdup("switch");
			x->tier = 2;
		}
		x->name = fx_xstrdup(nm);
	}
	free(sw);
	if (rc == 0) {
		fx_imp_assume(g, "SimAI's gpu_type %s; each server's NVSwitch is one switch node, as SimAI "
			      "draws it", gpu);
		rc = fx_imp_index(g, d);
	}
	return rc;
}

typedef struct rr { int64_t a, b; double lat; fx_loc at; } rr;

static int id_cmp(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

static int pair_cmp(const void *x, const void *y)
{
	const rr *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

/* "router R node N ... router R2 [cycles] ...": routers are switches,
 * nodes devices; a router pair listed in both lines is one link. */
int fx_import_booksim(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d)
{
	rd r = {file, text, len, 0, 1, 1, d};
	char w[128] = "";
	fx_loc at = {file, 1, 1};   /* an empty file's errors point at its start */
	int rc = 0;
	int64_t *node_router = NULL;
	size_t cap_nodes = 0;
	rr *pairs = NULL;
	size_t np = 0, capp = 0;
	int64_t max_node = -1;
	int64_t *heads = NULL;
	size_t nheads = 0, caph = 0;
	do {
		if (blank_line(&r))
			continue;
		if (!word(&r, w, sizeof w, &at))
			continue;
		if (strcmp(w, "router") != 0) {
			rc = fx_diag_error(d, &at, "a line starts with 'router', not '%.40s'", w);
			break;
		}
		int64_t head;
		if (!word(&r, w, sizeof w, &at) || whole(&r, w, &at, "a router id", 0, 10000000, &head)) {
			rc = *w ? -1 : fx_diag_error(d, &at, "'router' needs an id");
			break;
		}
		if (nheads == caph)
			heads = fx_xrealloc(heads, (caph = caph ? 2 * caph : 64) * sizeof *heads);
		heads[nheads++] = head;
		while (rc == 0 && word(&r, w, sizeof w, &at)) {
			int is_node = strcmp(w, "node") == 0;
			if (!is_node && strcmp(w, "router") != 0) {
				rc = fx_diag_error(d, &at, "expected 'node' or 'router', not '%.40s'", w);
				break;
			}
			int64_t id;
			if (!word(&r, w, sizeof w, &at)) {
				rc = fx_diag_error(d, &at, "'%s' needs an id", is_node ? "node" : "router");
				break;
			}
			if ((rc = whole(&r, w, &at, is_node ? "a node id" : "a router id", 0, 10000000, &id)))
				break;
			if (is_node) {
				if ((size_t)id >= cap_nodes) {
					size_t nc = cap_nodes ? cap_nodes : 64;
					while (nc <= (size_t)id)
						nc *= 2;
					node_router = fx_xrealloc(node_router, nc * sizeof *node_router);
					for (size_t k = cap_nodes; k < nc; k++)
						node_router[k] = -1;
					cap_nodes = nc;
				}
				if (node_router[id] >= 0 && node_router[id] != head) {
					rc = fx_diag_error(d, &at, "node %lld joins routers %lld and %lld (a BookSim node "
							   "joins one)", (long long)id, (long long)node_router[id],
							   (long long)head);
					break;
				}
				node_router[id] = head;
				if (id > max_node)
					max_node = id;
				continue;
			}
			if (id == head) {
				rc = fx_diag_error(d, &at, "router %lld joins itself", (long long)id);
				break;
			}
			double cycles = 1;
			/* an optional latency in cycles */
			size_t save = r.pos;
			int scol = r.col;
			fx_loc lat_at;
			if (word(&r, w, sizeof w, &lat_at) && isdigit((unsigned char)w[0])) {
				int64_t c;
				if ((rc = whole(&r, w, &lat_at, "a channel latency (cycles)", 0, 100000000, &c)))
					break;
				cycles = (double)c;
			} else {
				r.pos = save;
				r.col = scol;
			}
			if (np == capp)
				pairs = fx_xrealloc(pairs, (capp = capp ? 2 * capp : 64) * sizeof *pairs);
			pairs[np++] = (rr){head < id ? head : id, head < id ? id : head, cycles * 1e-9, at};
		}
	} while (rc == 0 && next_line(&r));
	if (rc == 0 && max_node < 0)
		rc = fx_diag_error(d, &at, "no 'node' in the file: a fabric needs devices");
	if (rc == 0) {
		for (int64_t n = 0; n <= max_node; n++)
			if (node_router[n] < 0) {
				rc = fx_diag_error(d, &at, "node %lld is missing (nodes are 0 to %lld, each on a "
						   "router)", (long long)n, (long long)max_node);
				break;
			}
	}
	if (rc == 0) {
		char k[40];
		for (int64_t n = 0; n <= max_node; n++) {
			snprintf(k, sizeof k, "n%lld", (long long)n);
			int64_t v = fx_imp_vertex(g, k, (fx_loc){file, 1, 1});
			g->v[v].type = 0;
		}
		/* the routers the file names, not 0 .. the largest id (BookSim
		 * keys its routers by id in a map: ids may be sparse) */
		size_t nr = 0;
		int64_t *rid = fx_xmalloc((np * 2 + (size_t)max_node + 1 + nheads + 1) * sizeof *rid);
		for (size_t i = 0; i < np; i++) {
			rid[nr++] = pairs[i].a;
			rid[nr++] = pairs[i].b;
		}
		for (int64_t n = 0; n <= max_node; n++)
			rid[nr++] = node_router[n];
		for (size_t i = 0; i < nheads; i++)
			rid[nr++] = heads[i];
		qsort(rid, nr, sizeof *rid, id_cmp);
		size_t u = 0;
		for (size_t i = 0; i < nr; i++)
			if (!u || rid[u - 1] != rid[i])
				rid[u++] = rid[i];
		nr = u;
		for (size_t q = 0; q < nr; q++) {
			snprintf(k, sizeof k, "r%lld", (long long)rid[q]);
			int64_t v = fx_imp_vertex(g, k, (fx_loc){file, 1, 1});
			g->v[v].type = 1;
			g->v[v].role = fx_xstrdup("router");
		}
#define RV(id) (max_node + 1 + (int64_t)((const int64_t *)bsearch(&(id), rid, nr, sizeof *rid, id_cmp) - rid))
		for (int64_t n = 0; n <= max_node; n++)
			fx_imp_link_add(g, n, RV(node_router[n]), (fx_loc){file, 1, 1})->lat = 1e-9;
		/* a pair listed from both ends is one link: the larger latency */
		if (np)   /* qsort(NULL, 0) is undefined */
			qsort(pairs, np, sizeof *pairs, pair_cmp);
		for (size_t i = 0; i < np; i++) {
			size_t j = i;
			double lat = pairs[i].lat;
			while (j + 1 < np && pairs[j + 1].a == pairs[i].a && pairs[j + 1].b == pairs[i].b)
				if (pairs[++j].lat > lat)
					lat = pairs[j].lat;
			fx_imp_link_add(g, RV(pairs[i].a), RV(pairs[i].b), pairs[i].at)->lat = lat;
			i = j;
		}
#undef RV
		free(rid);
		fx_imp_assume(g, "assumed: BookSim gives no bandwidth; latency is in cycles of a 1 GHz "
			      "clock (1 ns), a node's channel to its router one cycle");
		rc = fx_imp_index(g, d);
	}
	free(pairs);
	free(heads);
	free(node_router);
	return rc;
}
