/*
 * render: the public API.  Builds the drawing model, emits it as a cgraph
 * graph and runs Graphviz (gvc) in process.
 *
 * Graphviz reports problems through agerr(); while fabricx renders, an
 * error function (agseterrf) collects them, and each Graphviz call is
 * followed by a check that turns collected errors into fx_diag internal
 * errors and warnings into notes.
 */
#include <errno.h>
#include <math.h>
#include <gvc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../core/isolate.h"
#include "../core/outfile.h"
#include "../core/xalloc.h"
#include "render_internal.h"

static const char *const view_names[FX_VIEWS] = {"physical", "loads", "placement", "floor", "racks"};

const char *fx_view_name(fx_view v)
{
	return v < FX_VIEWS ? view_names[v] : "?";
}

int fx_view_find(const char *name)
{
	for (int i = 0; i < FX_VIEWS; i++)
		if (strcmp(view_names[i], name) == 0)
			return i;
	return -1;
}

/* ---- Graphviz messages ---- */

#define GV_MSGS 8

/* agerr() hands the error function "Error" or "Warning", then ": ", then
 * the text, in separate calls; messages are collected here until checked. */
static struct {
	char text[GV_MSGS][512];
	int error[GV_MSGS];
	int n;          /* messages started (may exceed GV_MSGS; the rest are dropped) */
} gv_msgs;

static int gv_errf(char *s)
{
	if (strcmp(s, "Error") == 0 || strcmp(s, "Warning") == 0) {
		if (gv_msgs.n < GV_MSGS) {
			gv_msgs.text[gv_msgs.n][0] = '\0';
			gv_msgs.error[gv_msgs.n] = s[0] == 'E';
		}
		gv_msgs.n++;
		return 0;
	}
	if (gv_msgs.n == 0) {  /* a continuation without a start: treat as a warning */
		gv_msgs.text[0][0] = '\0';
		gv_msgs.error[0] = 0;
		gv_msgs.n = 1;
	}
	if (gv_msgs.n > GV_MSGS)
		return 0;
	char *t = gv_msgs.text[gv_msgs.n - 1];
	size_t k = strlen(t);
	if (k == 0 && strcmp(s, ": ") == 0)
		return 0;
	snprintf(t + k, sizeof gv_msgs.text[0] - k, "%s", s);
	return 0;
}

/* Reports what Graphviz said since the last check; -1 if it had errors. */
int rd_gv_check(fx_diag *d, const char *what)
{
	int rc = 0;
	for (int i = 0; i < gv_msgs.n && i < GV_MSGS; i++) {
		char *t = gv_msgs.text[i];
		size_t k = strlen(t);
		while (k && (t[k - 1] == '\n' || t[k - 1] == ' '))
			t[--k] = '\0';
		if (gv_msgs.error[i])
			rc = fx_diag_internal(d, "render: Graphviz %s: %s", what, t);
		else
			fx_diag_note(d, NULL, "Graphviz %s: %s", what, t);
	}
	if (gv_msgs.n > GV_MSGS)
		fx_diag_note(d, NULL, "Graphviz %s: %d more messages not shown", what,
			     gv_msgs.n - GV_MSGS);
	gv_msgs.n = 0;
	agreseterrors();
	return rc;
}

static agusererrf gv_old_errf;

void rd_gv_begin(void)
{
	gv_old_errf = agseterrf(gv_errf);
	gv_msgs.n = 0;
}

void rd_gv_end(void)
{
	agseterrf(gv_old_errf);
}

/* One Graphviz context for the whole process.  Graphviz 2.43's pango text
 * layout keeps a static pointer to the last font name, which the context
 * owns: after gvFreeContext() the next context's first label reads freed
 * memory (AddressSanitizer: heap-use-after-free in textspan_size).  Keeping
 * the context avoids that; what it holds stays reachable until exit. */
GVC_t *rd_gv_context(void)
{
	static GVC_t *gvc;
	if (!gvc)
		gvc = gvContext();
	return gvc;
}

/* LeakSanitizer's suppressions of Graphviz's own leaks are the programs'
 * (cli/san_hooks.c), not the library's. */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fill_info(fx_render_info *info, const rd_model *m, double t0)
{
	if (!info)
		return;
	memset(info, 0, sizeof *info);
	info->vertices = m->nbox;
	info->edges = m->nedge;
	info->aggregated = m->aggregated;
	snprintf(info->engine, sizeof info->engine, "%s", m->engine ? m->engine : "");
	info->seconds = now() - t0;
}

/* The laid-out picture's size at 96 dpi: its bounding box and pad (0.3
 * inch a side), scaled down to the graph's size= as Graphviz will. */
void rd_picture_size(Agraph_t *g, int detail_full, int64_t *w, int64_t *h)
{
	double bw = GD_bb(g).UR.x - GD_bb(g).LL.x + 2 * 0.3 * 72;
	double bh = GD_bb(g).UR.y - GD_bb(g).LL.y + 2 * 0.3 * 72;
	double s = 1, cap = FX_RENDER_MAX_INCHES * 72;
	if (!detail_full && (bw > cap || bh > cap))
		s = fmin(cap / bw, cap / bh);
	*w = llround(bw * s * 96 / 72);
	*h = llround(bh * s * 96 / 72);
}

static int check_opts(const fx_fabric *f, const fx_render_opts *o, fx_diag *d)
{
	if (o->view >= FX_VIEWS || o->view == FX_VIEW_FLOOR || o->view == FX_VIEW_RACKS)  /* fx_render_floor */
		return fx_diag_internal(d, "render: unknown view %d", (int)o->view);
	if (o->view == FX_VIEW_LOADS && !o->utilisation)
		return fx_diag_internal(d, "render: the loads view needs link utilisation");
	if (o->view == FX_VIEW_PLACEMENT && !o->instance)
		return fx_diag_internal(d, "render: the placement view needs each device's instance");
	if (f->nv == 0)
		return fx_diag_error(d, NULL, "render: the fabric has no vertices to draw");
	return 0;
}

/* Builds model and graph with Graphviz messages collected. */
int rd_build(const fx_fabric *f, const fx_render_opts *o, const fx_render_ext *x, rd_model *m,
	     Agraph_t **g, fx_diag *d)
{
	*g = NULL;
	memset(m, 0, sizeof *m);
	if (check_opts(f, o, d) || rd_model_build(m, f, o, x, d))
		return -1;
	int rc = rd_emit(m, g, d);
	rc |= rd_gv_check(d, "graph");
	return rc;
}

static int write_dot(Agraph_t *g, FILE *out, fx_diag *d)
{
	int rc = agwrite(g, out) != 0 ? -1 : 0;
	rc |= rd_gv_check(d, "DOT output");
	return rc;
}

static const fx_render_ext no_ext;

int fx_render_dot(const fx_fabric *f, const fx_render_opts *o, char **dot, fx_diag *d)
{
	return fx_render_dot_ext(f, o, NULL, dot, d);
}

int fx_render_file(const fx_fabric *f, const fx_render_opts *o, const char *format,
		   const char *path, fx_diag *d)
{
	return fx_render_file_ext(f, o, NULL, format, path, d);
}

typedef struct render_job {
	const fx_fabric *f;
	const fx_render_opts *o;
	const fx_render_ext *x;
	const char *format, *path;
} render_job;

static int render_job_run(void *arg, fx_diag *d)
{
	const render_job *j = arg;
	return fx_render_file_ext(j->f, j->o, j->x, j->format, j->path, d);
}

int fx_render_file_isolated(const fx_fabric *f, const fx_render_opts *o, const char *format,
			    const char *path, fx_diag *d)
{
	return fx_render_file_ext_isolated(f, o, NULL, format, path, d);
}

int fx_render_file_ext_isolated(const fx_fabric *f, const fx_render_opts *o, const fx_render_ext *x,
				const char *format, const char *path, fx_diag *d)
{
	render_job j = {f, o, x, format, path};
	const char *base = path && strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *what = fx_xasprintf("Graphviz drawing %s", base ? base : "(no file)");
	int rc = fx_isolate(what, render_job_run, &j, d);
	free(what);
	if (rc && path) {  /* a child killed mid-write left its temporary: removed */
		const char *slash = strrchr(path, '/');
		char *dir = slash ? fx_xstrndup(path, (size_t)(slash - path)) : fx_xstrdup(".");
		fx_outfile_sweep(*dir ? dir : "/");
		free(dir);
	}
	return rc;
}

int fx_render_dot_ext(const fx_fabric *f, const fx_render_opts *o, const fx_render_ext *x,
		      char **dot, fx_diag *d)
{
	if (!x)
		x = &no_ext;
	double t0 = now();
	rd_model m;
	Agraph_t *g = NULL;
	char *buf = NULL;
	size_t len = 0;
	*dot = NULL;
	rd_gv_begin();
	int rc = rd_build(f, o, x, &m, &g, d);
	if (rc == 0) {
		FILE *mem = open_memstream(&buf, &len);
		if (!mem)
			rc = fx_diag_internal(d, "render: no memory for the DOT text");
		else {
			rc = write_dot(g, mem, d);
			if (fclose(mem) != 0)
				rc = fx_diag_internal(d, "render: no memory for the DOT text");
			if (rc == 0)
				*dot = buf;
			else
				free(buf);
		}
	}
	if (g)
		agclose(g);
	fill_info(x->info, &m, t0);
	rd_model_release(&m);
	rd_gv_end();
	return rc;
}

int fx_render_format_known(const char *format)
{
	static const char *const formats[] = {"svg", "png", "pdf", "dot", "plain", NULL};
	for (int i = 0; format && formats[i]; i++)
		if (strcmp(formats[i], format) == 0)
			return 1;
	return 0;
}

/* Lays g out with engine and writes it to path in format (see
 * render_internal.h). */
int rd_gv_layout_write(Agraph_t *g, const char *engine, unsigned flags, const char *format,
		       const char *path, int64_t *px_w, int64_t *px_h, fx_diag *d)
{
	int full = (flags & RD_GV_FULL) != 0;
	*px_w = *px_h = 0;
	FILE *out = NULL;
	fx_outfile of;
	int rc = 0;
	if (!(out = fx_outfile_open(&of, path)))
		return fx_diag_error(d, NULL, "render: cannot write '%s': %s", path, strerror(errno));
	if (strcmp(format, "dot") == 0) {
		rc = write_dot(g, out, d);
	} else {
		GVC_t *gvc = rd_gv_context();
		if (!gvc)
			rc = fx_diag_internal(d, "render: Graphviz could not start");
		rc |= rd_gv_check(d, "start-up");
		if (rc == 0) {
			rc = gvLayout(gvc, g, engine) != 0 ? -1 : 0;
			rc |= rd_gv_check(d, "layout");
			if (rc && (!d || d->nerr == 0))
				rc = fx_diag_internal(d, "render: Graphviz layout '%s' failed", engine);
			if (rc == 0)
				rd_picture_size(g, full, px_w, px_h);
			/* within 3:1 either way (a long chain of racks, a flat row
			 * of trays): laid out again with the height (or width)
			 * stretched to the bound; Graphviz's ratio moves the boxes
			 * apart, it does not distort them */
			if (rc == 0 && (flags & RD_GV_RATIO) && !full &&
			    (*px_w > 3 * *px_h || *px_h > 3 * *px_w)) {
				gvFreeLayout(gvc, g);
				agattr(g, AGRAPH, "ratio", *px_w > 3 * *px_h ? "0.34" : "2.9");
				rc = gvLayout(gvc, g, engine) != 0 ? -1 : 0;
				rc |= rd_gv_check(d, "layout");
				if (rc && (!d || d->nerr == 0))
					rc = fx_diag_internal(d, "render: Graphviz layout '%s' failed", engine);
				if (rc == 0)
					rd_picture_size(g, full, px_w, px_h);
			}
			if (rc == 0 && full)  /* unbounded: say so before writing it */
				fx_diag_note(d, NULL, "render: the full drawing is %lld x %lld px at 96 dpi",
					     (long long)*px_w, (long long)*px_h);
			if (rc == 0) {
				/* to memory, then through our writer: Graphviz's own
				 * writer calls exit(1) when a write fails (a full disk) */
				char *data = NULL;
				unsigned int len = 0;
				rc = gvRenderData(gvc, g, format, &data, &len) != 0 ? -1 : 0;
				rc |= rd_gv_check(d, "output");
				if (rc && (!d || d->nerr == 0))
					rc = fx_diag_internal(d, "render: Graphviz could not produce %s", format);
				if (rc == 0 && fwrite(data, 1, len, out) != len)
					rc = -1;  /* reported with the real errno at the close */
				if (data)
					gvFreeRenderData(data);
			}
			gvFreeLayout(gvc, g);
			rd_gv_check(d, "clean-up");
		}
	}
	/* no half-written pictures: the old one stays until the new is whole */
	int werr = ferror(out);
	if (fx_outfile_close(&of, rc == 0 || werr) && (rc == 0 || werr))
		rc = fx_diag_error(d, NULL, "render: cannot write '%s': %s", path, strerror(errno));
	return rc;
}

int fx_render_file_ext(const fx_fabric *f, const fx_render_opts *o, const fx_render_ext *x,
		       const char *format, const char *path, fx_diag *d)
{
	if (!x)
		x = &no_ext;
	double t0 = now();
	if (!fx_render_format_known(format))
		return fx_diag_error(d, NULL, "render: unknown format '%s' (expected svg, png, pdf or dot)",
				     format);
	rd_model m;
	Agraph_t *g = NULL;
	int64_t px_w = 0, px_h = 0;
	rd_gv_begin();
	int rc = rd_build(f, o, x, &m, &g, d);
	if (rc == 0)
		rc = rd_gv_layout_write(g, m.engine, RD_GV_RATIO | (o->detail_full ? RD_GV_FULL : 0), format,
					path, &px_w, &px_h, d);
	if (g)
		agclose(g);
	fill_info(x->info, &m, t0);
	if (x->info) {
		x->info->width_px = px_w;
		x->info->height_px = px_h;
	}
	rd_model_release(&m);
	rd_gv_end();
	return rc;
}
