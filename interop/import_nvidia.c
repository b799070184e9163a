/*
 * What NVIDIA's tools say a machine is, read as a graph:
 *
 *   nccl-topo    NCCL's topology dump (NCCL_TOPO_DUMP_FILE, the same form
 *                NCCL_TOPO_FILE reads): <system> of <cpu>s holding <pci>
 *                trees; a <gpu> inside a <pci busid=...> is a device named
 *                gpu<rank>, each <nvlink target=BUSID count=N tclass=...>
 *                N links to the GPU of that bus id or, when no GPU has it
 *                (tclass 0x068000, a bridge: NCCL's NVSwitch), to an
 *                NVSwitch chip of that bus id.  NICs (<nic><net>) and the
 *                PCIe tree are listed as left out.
 *   nvidia-smi   `nvidia-smi topo -m`: the header names the columns (GPU0
 *                ..., NIC0 or mlx5_0 ...), each GPU row gives NV# (# bonded
 *                NVLinks), X (itself) or a PCIe path (PIX, PXB, PHB, NODE,
 *                SYS).  NV# between GPUs is # direct links; when every pair
 *                shows the same NV#, the GPUs are on NVSwitch chips (an
 *                H100 has 18 links, not 7 x 18), written as one switch
 *                joined to each GPU by # links.
 *
 * Neither file gives a link's bandwidth or latency: --bandwidth and
 * --latency stand in, said among the assumptions.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "import_internal.h"
#include "xml.h"

/* ---- nccl-topo ---- */

typedef struct pend {
	int64_t gpu;
	char *target, *tclass;
	int64_t count;
	fx_loc loc;
} pend;

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

static int count_attr(const fx_xml_tok *t, fx_diag *d, int64_t *out)
{
	fx_loc at;
	const char *c = fx_xml_attr(t, "count", &at);
	char *end;
	long long v = c ? strtoll(c, &end, 10) : 0;
	if (!c)
		return fx_diag_error(d, &t->loc, "<nvlink> needs a 'count' (its links)");
	if (*c == '\0' || *end || v < 1 || v > 1024)
		return fx_diag_error(d, &at, "<nvlink count=\"%.40s\"> must be a whole number of links "
				     "from 1 to 1024", c);
	*out = v;
	return 0;
}

int fx_import_nccl_topo(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d)
{
	fx_xml x;
	fx_xml_init(&x, file, text, len, d);
	fx_xml_tok t = {0};
	char **stack = NULL;   /* the open <pci>s' bus ids */
	size_t depth = 0, cap = 0;
	pend *p = NULL;
	size_t np = 0, capp = 0;
	int64_t gpu = -1, ngpu = 0, ncpu = 0, nnet = 0;
	char nets[400] = "";
	int rc = 0, seen_system = 0;
	g->devices_relay = g->cpus_relay = -1;  /* the file does not say */
	while (rc == 0 && (rc = fx_xml_next(&x, &t)) == 0 && t.kind != FX_XML_EOF) {
		if (t.kind == FX_XML_START && strcmp(t.name, "system") == 0)
			seen_system = 1;
		if (t.kind == FX_XML_START && strcmp(t.name, "pci") == 0 && !t.empty) {
			const char *b = fx_xml_attr(&t, "busid", NULL);
			if (depth == cap)
				stack = fx_xrealloc(stack, (cap = cap ? 2 * cap : 16) * sizeof *stack);
			stack[depth] = b ? fx_xstrdup(b) : NULL;
			if (stack[depth])
				lower(stack[depth]);
			depth++;
		} else if (t.kind == FX_XML_END && strcmp(t.name, "pci") == 0 && depth) {
			free(stack[--depth]);
		} else if (t.kind == FX_XML_START && strcmp(t.name, "cpu") == 0) {
			ncpu++;
		} else if (t.kind == FX_XML_START && strcmp(t.name, "gpu") == 0) {
			if (!depth || !stack[depth - 1]) {
				rc = fx_diag_error(d, &t.loc, "a <gpu> outside a <pci busid=...>: its bus id "
						   "is what <nvlink target=...> names");
				break;
			}
			const char *rk = fx_xml_attr(&t, "rank", NULL), *dv = fx_xml_attr(&t, "dev", NULL);
			gpu = fx_imp_vertex(g, stack[depth - 1], t.loc);
			char nm[64];
			snprintf(nm, sizeof nm, "gpu%.40s", rk ? rk : dv ? dv : "");
			if (!rk && !dv)
				snprintf(nm, sizeof nm, "gpu%lld", (long long)ngpu);
			g->v[gpu].name = fx_xstrdup(nm);
			g->v[gpu].type = 0;
			ngpu++;
			if (t.empty)
				gpu = -1;
		} else if (t.kind == FX_XML_END && strcmp(t.name, "gpu") == 0) {
			gpu = -1;
		} else if (t.kind == FX_XML_START && strcmp(t.name, "nvlink") == 0) {
			if (gpu < 0) {
				rc = fx_diag_error(d, &t.loc, "an <nvlink> outside a <gpu>");
				break;
			}
			const char *tg = fx_xml_attr(&t, "target", NULL), *tc = fx_xml_attr(&t, "tclass", NULL);
			if (!tg) {
				rc = fx_diag_error(d, &t.loc, "<nvlink> needs a 'target' (the bus id at its "
						   "other end)");
				break;
			}
			int64_t cnt = 0;
			if ((rc = count_attr(&t, d, &cnt)))
				break;
			if (np == capp)
				p = fx_xrealloc(p, (capp = capp ? 2 * capp : 64) * sizeof *p);
			p[np] = (pend){gpu, fx_xstrdup(tg), tc ? fx_xstrdup(tc) : NULL, cnt, t.loc};
			lower(p[np].target);
			np++;
		} else if (t.kind == FX_XML_START && strcmp(t.name, "net") == 0) {
			const char *nm = fx_xml_attr(&t, "name", NULL), *sp = fx_xml_attr(&t, "speed", NULL);
			size_t l = strlen(nets);
			if (l < sizeof nets - 80)
				snprintf(nets + l, sizeof nets - l, "%s%.24s (%.12s Mb/s)", nnet ? ", " : "",
					 nm ? nm : "?", sp ? sp : "?");
			nnet++;
		}
	}
	fx_xml_tok_release(&t);
	for (size_t i = 0; i < depth; i++)
		free(stack[i]);
	free(stack);
	if (rc == 0 && !seen_system)
		rc = fx_diag_error(d, &(fx_loc){file, 1, 1}, "no <system> element: not an NCCL topology "
				   "file (NCCL_TOPO_DUMP_FILE writes one)");
	if (rc == 0 && ngpu == 0)
		rc = fx_diag_error(d, &(fx_loc){file, 1, 1}, "no <gpu> in the file: nothing to import");
	if (rc == 0)
		rc = fx_imp_index(g, d);
	/* the links: GPU to GPU once per pair (each side lists it), else to
	 * the NVSwitch chip of that bus id */
	int64_t nsw = 0, odd_class = 0;
	for (size_t i = 0; rc == 0 && i < np; i++) {
		int64_t other = fx_imp_find(g, p[i].target);
		if (other >= 0 && g->v[other].type == 0) {
			if (other == p[i].gpu) {
				rc = fx_diag_error(d, &p[i].loc, "an <nvlink> from a GPU to itself");
				break;
			}
			if (p[i].gpu > other) {  /* the lower one's entry stands for the pair */
				int found = 0;
				for (size_t k = 0; k < np && !found; k++)
					if (p[k].gpu == other && fx_imp_find(g, p[k].target) == p[i].gpu) {
						found = 1;
						if (p[k].count != p[i].count)
							rc = fx_diag_error(d, &p[i].loc, "%s lists %lld NVLinks to %s, "
									   "which lists %lld back",
									   g->v[p[i].gpu].name, (long long)p[i].count,
									   g->v[other].name, (long long)p[k].count);
					}
				if (found)
					continue;
			}
			fx_imp_link *l = fx_imp_link_add(g, p[i].gpu, other, p[i].loc);
			l->count = p[i].count;
			continue;
		}
		if (other < 0) {
			other = fx_imp_vertex(g, p[i].target, p[i].loc);
			char nm[32];
			snprintf(nm, sizeof nm, "nvswitch%lld", (long long)nsw++);
			g->v[other].name = fx_xstrdup(nm);
			g->v[other].type = 1;
			g->v[other].role = fx_xstrdup("NVSwitch");
			if (!p[i].tclass || strcmp(p[i].tclass, "0x068000") != 0)
				odd_class++;
			rc = fx_imp_index(g, d);
			if (rc)
				break;
		}
		fx_imp_link *l = fx_imp_link_add(g, p[i].gpu, other, p[i].loc);
		l->count = p[i].count;
	}
	if (rc == 0) {
		if (nsw)
			fx_imp_assume(g, "assumed: the %lld NVLink targets no GPU holds are NVSwitch chips "
				      "(NCCL's tclass 0x068000, a bridge), one switch per bus id%s",
				      (long long)nsw, odd_class ? "; some gave another class" : "");
		if (ncpu)
			fx_imp_assume(g, "left out: %lld CPUs and the PCIe tree (the spec holds the NVLink "
				      "graph)", (long long)ncpu);
		if (nnet)
			fx_imp_assume(g, "left out: %lld NICs, %s (a custom spec has no NICs; a composite "
				      "spec's network carries them)", (long long)nnet, nets);
	}
	for (size_t i = 0; i < np; i++) {
		free(p[i].target);
		free(p[i].tclass);
	}
	free(p);
	return rc;
}

/* ---- nvidia-smi topo -m ---- */

/* The next whitespace-separated token of the line at *pos (up to eol)
 * into w; 0 at the line's end. */
static int token(const char *text, size_t eol, size_t *pos, char *w, size_t cap, size_t *start)
{
	while (*pos < eol && (text[*pos] == ' ' || text[*pos] == '\t' || text[*pos] == '\r'))
		(*pos)++;
	if (*pos >= eol)
		return 0;
	*start = *pos;
	size_t n = 0;
	while (*pos < eol && text[*pos] != ' ' && text[*pos] != '\t' && text[*pos] != '\r') {
		if (n + 1 < cap)
			w[n++] = text[*pos];
		(*pos)++;
	}
	w[n] = '\0';
	return 1;
}

static int is_path(const char *w)
{
	static const char *const paths[] = {"PIX", "PXB", "PHB", "NODE", "SYS", "PSB", "SOC", "PCI",
					    NULL};
	for (const char *const *s = paths; *s; s++)
		if (strcmp(w, *s) == 0)
			return 1;
	return 0;
}

/* "NV12" -> 12; 0 for anything else. */
static int64_t nv_links(const char *w)
{
	if (strncmp(w, "NV", 2) != 0 || !w[2])
		return 0;
	char *end;
	long long v = strtoll(w + 2, &end, 10);
	return *end || v < 1 || v > 1024 ? -1 : v;
}

typedef struct col {
	char name[64];
	int gpu;          /* a GPU column */
	int64_t vertex;
} col;

int fx_import_nvidia_smi(const char *file, const char *text, size_t len, fx_imp_graph *g, fx_diag *d)
{
	size_t pos = 0, line_start = 0;
	int line = 0, rc = 0;
	col *c = NULL;
	size_t nc = 0, ngpu = 0;
	int64_t *nv = NULL;       /* [ngpu * ngpu] NV# per ordered pair, -1 not yet read */
	fx_loc *nvloc = NULL;
	size_t rows = 0, nics = 0;
	g->devices_relay = g->cpus_relay = -1;  /* the file does not say */
	char w[64];
	size_t st;
	while (rc == 0 && line_start < len) {
		size_t eol = line_start;
		while (eol < len && text[eol] != '\n')
			eol++;
		line++;
		pos = line_start;
		size_t first_at;
		int have = token(text, eol, &pos, w, sizeof w, &first_at);
		fx_loc at = {file, line, (int)(first_at - line_start) + 1};
		if (have && strcmp(w, "Legend:") == 0)
			break;
		if (have && !c && strcmp(w, "GPU0") == 0 && first_at > line_start) {
			/* the header: the columns up to "CPU Affinity" */
			do {
				if (strcmp(w, "CPU") == 0 || strcmp(w, "NUMA") == 0 ||
				    (strcmp(w, "GPU") == 0))
					break;
				c = fx_xrealloc(c, (nc + 1) * sizeof *c);
				snprintf(c[nc].name, sizeof c[nc].name, "%s", w);
				c[nc].gpu = strncmp(w, "GPU", 3) == 0 && isdigit((unsigned char)w[3]);
				c[nc].vertex = -1;
				if (c[nc].gpu) {
					char key[80];
					snprintf(key, sizeof key, "gpu%s", w + 3);
					c[nc].vertex = fx_imp_vertex(g, key, at);
					g->v[c[nc].vertex].type = 0;
					ngpu++;
				} else {
					nics++;
				}
				nc++;
			} while (token(text, eol, &pos, w, sizeof w, &st));
			nv = fx_xmalloc((ngpu ? ngpu * ngpu : 1) * sizeof *nv);
			nvloc = fx_xcalloc(ngpu ? ngpu * ngpu : 1, sizeof *nvloc);
			for (size_t i = 0; i < ngpu * ngpu; i++)
				nv[i] = -1;
		} else if (have && c) {
			size_t r = 0;
			while (r < nc && strcmp(c[r].name, w) != 0)
				r++;
			if (r < nc && c[r].gpu) {
				size_t gi = 0;
				for (size_t k = 0; k < r; k++)
					gi += c[k].gpu;
				size_t gj = 0;
				for (size_t k = 0; k < nc && rc == 0; k++) {
					if (!token(text, eol, &pos, w, sizeof w, &st)) {
						fx_loc e = {file, line, (int)(eol - line_start) + 1};
						rc = fx_diag_error(d, &e, "row %s ends after %zu of its %zu "
								   "columns", c[r].name, k, nc);
						break;
					}
					fx_loc cl = {file, line, (int)(st - line_start) + 1};
					int64_t links = nv_links(w);
					if (strcmp(w, "X") == 0 && k != r) {
						rc = fx_diag_error(d, &cl, "'X' (self) in row %s under column %s",
								   c[r].name, c[k].name);
					} else if (k == r && strcmp(w, "X") != 0) {
						rc = fx_diag_error(d, &cl, "row %s must give 'X' under its own "
								   "column, not '%.20s'", c[r].name, w);
					} else if (links < 0 || (links == 0 && k != r && !is_path(w))) {
						rc = fx_diag_error(d, &cl, "'%.20s' is not a link of `nvidia-smi "
								   "topo -m` (NV# for # NVLinks, or PIX, "
								   "PXB, PHB, NODE, SYS)", w);
					} else if (links > 0 && !c[k].gpu) {
						rc = fx_diag_error(d, &cl, "%s to %s shows NVLinks; NICs have "
								   "none", c[r].name, c[k].name);
					}
					if (c[k].gpu) {
						nv[gi * ngpu + gj] = links > 0 ? links : 0;
						nvloc[gi * ngpu + gj] = cl;
						gj++;
					}
				}
				rows++;
			} else if (r == nc && strncmp(w, "GPU", 3) == 0 && isdigit((unsigned char)w[3])) {
				rc = fx_diag_error(d, &at, "row %.20s names no column of the header", w);
			}
		}
		line_start = eol + 1;
	}
	if (rc == 0 && !c)
		rc = fx_diag_error(d, &(fx_loc){file, 1, 1}, "no header line starting GPU0 ...: not the "
				   "output of `nvidia-smi topo -m`");
	if (rc == 0 && rows != ngpu)
		rc = fx_diag_error(d, &(fx_loc){file, line, 1}, "the header names %zu GPUs and the file "
				   "gives %zu of their rows", ngpu, rows);
	for (size_t i = 0; rc == 0 && i < ngpu; i++)
		for (size_t j = 0; rc == 0 && j < i; j++)
			if (nv[i * ngpu + j] != nv[j * ngpu + i])
				rc = fx_diag_error(d, &nvloc[i * ngpu + j], "GPU%zu to GPU%zu shows %lld "
						   "NVLinks, GPU%zu to GPU%zu %lld", i, j,
						   (long long)nv[i * ngpu + j], j, i,
						   (long long)nv[j * ngpu + i]);
	if (rc == 0)
		rc = fx_imp_index(g, d);
	int uniform = ngpu >= 2;
	for (size_t i = 0; rc == 0 && i < ngpu; i++)
		for (size_t j = 0; j < ngpu; j++)
			if (i != j && (nv[i * ngpu + j] == 0 || nv[i * ngpu + j] != nv[1]))
				uniform = 0;
	if (rc == 0 && uniform && nv[1] > 0) {
		int64_t sw = fx_imp_vertex(g, "nvswitch", (fx_loc){file, 1, 1});
		g->v[sw].type = 1;
		g->v[sw].role = fx_xstrdup("NVSwitch");
		rc = fx_imp_index(g, d);
		for (size_t i = 0; rc == 0 && i < ngpu; i++) {
			size_t gi = 0, k = 0;
			for (; k < nc; k++)
				if (c[k].gpu && gi++ == i)
					break;
			fx_imp_link *l = fx_imp_link_add(g, c[k].vertex, sw, nvloc[i * ngpu + (i ? 0 : 1)]);
			l->count = nv[1];
		}
		fx_imp_assume(g, "assumed: every GPU pair shows NV%lld, so the GPUs reach each other "
			      "through NVSwitch chips (a GPU has its %lld links, not %zu x %lld): "
			      "written as one switch joined to each GPU by %lld links", (long long)nv[1],
			      (long long)nv[1], ngpu - 1, (long long)nv[1], (long long)nv[1]);
	} else {
		size_t *gv = fx_xmalloc((ngpu ? ngpu : 1) * sizeof *gv);
		for (size_t k = 0, gi = 0; k < nc; k++)
			if (c[k].gpu)
				gv[gi++] = k;
		for (size_t i = 0; rc == 0 && i < ngpu; i++)
			for (size_t j = i + 1; j < ngpu; j++)
				if (nv[i * ngpu + j] > 0) {
					fx_imp_link *l = fx_imp_link_add(g, c[gv[i]].vertex, c[gv[j]].vertex,
									 nvloc[i * ngpu + j]);
					l->count = nv[i * ngpu + j];
				}
		free(gv);
	}
	if (rc == 0)
		fx_imp_assume(g, "left out: %zu NIC columns and the PCIe paths (PIX, PXB, PHB, NODE, "
			      "SYS) between GPUs (the spec holds the NVLink graph)", nics);
	free(c);
	free(nv);
	free(nvloc);
	return rc;
}
