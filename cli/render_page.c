/*
 * fabricx render, several fabrics on one page: the specs on the command
 * line (SPEC@KEY=VALUE,... variants as compare takes them), each loaded
 * with the command's options, drawn side by side; or one spec before and
 * after the --fail selectors, loads recomputed round the failure.  One
 * scale and one legend for the page (render/page.c).
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "compare.h"
#include "render.h"

/* Whether argv[i] takes the next argument as its value (the spellings
 * fx_cli_parse accepts: our options with a value, the common ones, -o). */
static int takes_value(const char *a)
{
	if (strcmp(a, "-o") == 0)
		return 1;
	if (strncmp(a, "--", 2) != 0 || strchr(a, '='))
		return 0;
	static const char *const common[] = {"set", "out", "max-memory", NULL};
	for (int k = 0; common[k]; k++)
		if (strcmp(a + 2, common[k]) == 0)
			return 1;
	for (int k = 0; fx_rnd_opts[k].name; k++)
		if (fx_rnd_opts[k].arg && strcmp(a + 2, fx_rnd_opts[k].name) == 0)
			return 1;
	return 0;
}

/* The specs on the command line (up to max into specs; returns how many)
 * and argv with all but the first of them left out, for fx_cli_parse. */
static int split_specs(int argc, char **argv, const char **specs, int max, char **one, int *none)
{
	int n = 0;
	*none = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		int spec = i > 0 && (a[0] != '-' || a[1] == '\0');
		if (spec && n < max)
			specs[n] = a;
		if (!spec || n == 0)
			one[(*none)++] = argv[i];
		n += spec;
		if (i > 0 && !spec && takes_value(a) && i + 1 < argc)
			one[(*none)++] = argv[++i];
	}
	one[*none] = NULL;
	return n;
}

/* argv for spec v: one (whose spec is first) with v's file in its place
 * and v's overrides after; malloc'd, *n set. */
static char **variant_argv(char **one, int none, const char *first, const fx_rnd_variant *v, int *n)
{
	char **a = fx_xcalloc((size_t)(none + 2 * v->nsets + 1), sizeof *a);
	*n = 0;
	for (int i = 0; i < none; i++)
		a[(*n)++] = one[i] == first ? (char *)v->path : one[i];
	for (int k = 0; k < v->nsets; k++) {
		a[(*n)++] = "--set";
		a[(*n)++] = (char *)v->sets[k];
	}
	return a;
}

/* Loads variant v into o with c's options.  Kept apart so that it can
 * become fx_design_load. */
static int load_other(fx_cli *o, char **argv_o, int n)
{
	int rc = fx_cli_parse(o, "render", "render SPEC...", fx_rnd_opts, n, argv_o);
	return rc == 0 ? fx_cli_load(o) : -1;
}

/* The panels' titles: the specs' names, the arguments when names repeat. */
static const char *panel_title(fx_cli *const *cs, const fx_rnd_variant *v, int n, int i)
{
	const char *name = cs[i]->design.fab.name;
	for (int k = 0; k < n && name; k++)
		if (k != i && cs[k]->design.fab.name && strcmp(cs[k]->design.fab.name, name) == 0)
			return v[i].arg;
	return name ? name : v[i].arg;
}

void fx_rnd_specs_read(fx_rnd_specs *s, int argc, char **argv)
{
	const char *specs[FX_RENDER_MAX_PANELS + 1];
	memset(s, 0, sizeof *s);
	s->one = fx_xcalloc((size_t)argc + 1, sizeof *s->one);
	s->n = split_specs(argc, argv, specs, FX_RENDER_MAX_PANELS + 1, s->one, &s->none);
	s->v = fx_xcalloc(FX_RENDER_MAX_PANELS + 1, sizeof *s->v);
	s->bad = -1;
	for (int i = 0; i < s->n && i <= FX_RENDER_MAX_PANELS; i++) {
		fx_rnd_variant *v = &s->v[i];
		v->arg = specs[i];
		v->nsets = fx_cmp_split(specs[i], v->buf, sizeof v->buf, &v->path, v->sets, FX_RND_SETS);
		if (v->nsets < 0 && s->bad < 0)
			s->bad = i;
		v->nsets = v->nsets < 0 ? 0 : v->nsets;
	}
	s->argc = s->none;
	s->argv = s->n ? variant_argv(s->one, s->none, specs[0], &s->v[0], &s->argc) : s->one;
}

void fx_rnd_specs_release(fx_rnd_specs *s)
{
	if (s->argv != s->one)
		free(s->argv);
	free(s->one);
	free(s->v);
	memset(s, 0, sizeof *s);
}

int fx_rnd_page(fx_cli *c, int view, const char *format, const fx_rnd_specs *s, char *path,
		size_t pathlen, fx_render_info *info)
{
	const fx_rnd_variant *v = s->v;
	int nspec = s->n, none = s->none;
	char **one = s->one;
	const char *first = nspec ? v[0].arg : NULL;
	const char *fails[64];
	int nfail = fx_cli_opt_each(c, "fail", fails, 64);
	if (nfail > 64)
		return fx_diag_error(&c->d, NULL, "render: at most 64 --fail selectors");
	if (nspec > FX_RENDER_MAX_PANELS)
		return fx_diag_error(&c->d, NULL, "render: at most %d specs on one page, not %d",
				     FX_RENDER_MAX_PANELS, nspec);
	if (nfail && nspec > 1)
		return fx_diag_error(&c->d, NULL, "render: --fail draws one spec before and after the "
				     "failure; give one spec");
	fx_cli *cs[FX_RENDER_MAX_PANELS] = {c};
	char **argv_o[FX_RENDER_MAX_PANELS] = {NULL};
	fx_rnd_view vd[FX_RENDER_MAX_PANELS];
	fx_render_panel p[FX_RENDER_MAX_PANELS];
	memset(vd, 0, sizeof vd);
	memset(p, 0, sizeof p);
	uint8_t *failed = NULL;
	int np = nfail ? 2 : nspec, rc = 0;
	char titles[2][640], note[300] = "";
	for (int i = 1; i < nspec && rc == 0; i++) {
		cs[i] = fx_xcalloc(1, sizeof *cs[i]);
		int n;
		argv_o[i] = variant_argv(one, none, first, &v[i], &n);
		rc = load_other(cs[i], argv_o[i], n);
	}
	uint8_t *dead = NULL;
	if (rc == 0 && nfail) {
		/* what the selectors fail (vertices, or A~B the links between two
		 * sets), read off the fabric's failure mask and the mask put back:
		 * the "before" panel is the intact fabric */
		fx_fabric *f = &c->design.fab;
		fx_fail_saved keep;
		fx_fabric_fail_save(f, &keep);
		for (int i = 0; i < nfail && rc == 0; i++)
			rc = fx_fabric_fail(f, fails[i], "--fail", &c->d);
		failed = fx_xcalloc((size_t)f->nv + 1, 1);
		dead = fx_xcalloc((size_t)f->ne + 1, 1);
		for (int64_t u = 0; u < f->nv; u++)
			failed[u] = !fx_fabric_vertex_up(f, u);
		for (int64_t e = 0; e < f->ne; e++)
			dead[e] = !fx_fabric_edge_up(f, e) && fx_fabric_vertex_up(f, f->ends[2 * e]) &&
				  fx_fabric_vertex_up(f, f->ends[2 * e + 1]);
		fx_fabric_fail_restore(f, &keep);
		size_t k = 0;
		for (int i = 0; i < nfail && k < sizeof note; i++)
			k += (size_t)snprintf(note + k, sizeof note - k, "%s%s", i ? ", " : "", fails[i]);
		snprintf(titles[0], sizeof titles[0], "%s: before", panel_title(cs, v, 1, 0));
		snprintf(titles[1], sizeof titles[1], "%s: after %s fails", panel_title(cs, v, 1, 0), note);
	}
	for (int i = 0; i < np && rc == 0; i++) {
		fx_cli *ci = cs[nfail ? 0 : i];
		rc = fx_rnd_view_get(ci, view, nfail && i ? failed : NULL, nfail && i ? dead : NULL, &vd[i]);
		p[i].f = &ci->design.fab;
		p[i].o = (fx_render_opts){(fx_view)view, 0, nfail ? titles[i] : panel_title(cs, v, nspec, i),
					  vd[i].util, vd[i].instance};
		p[i].x.group = vd[i].group;
		p[i].x.loads_caption = vd[i].caption[0] ? vd[i].caption : NULL;
		p[i].x.util_absolute = fx_rnd_scale(c, 1) == 1;
		p[i].x.failed = nfail && i ? failed : NULL;
		p[i].x.failed_links = nfail && i ? dead : NULL;
	}
	const char *out = fx_cli_opt(c, "output");
	if (out)
		snprintf(path, pathlen, "%s", out);
	else
		snprintf(path, pathlen, "%s/%s-%s.%s", c->outdir, fx_view_name((fx_view)view),
			 nfail ? "failed" : "side-by-side", format);
	if (rc == 0 && !out)
		rc = fx_cli_may_write(c, strrchr(path, '/') + 1);
	if (rc == 0)
		rc = fx_render_page(p, np, nfail ? "before and after the failure" : "side by side",
				    format, path, info, &c->d);
	for (int i = 0; i < np; i++)
		fx_rnd_view_release(&vd[i]);
	for (int i = 1; i < nspec; i++) {
		if (!cs[i])
			continue;
		int st = fx_cli_finish(cs[i], 0);  /* its errors were printed as they came */
		if (st > c->d.status)
			c->d.status = st;
		if (st)
			rc = -1;
		free(cs[i]);
	}
	for (int i = 0; i < FX_RENDER_MAX_PANELS; i++)
		free(argv_o[i]);
	free(failed);
	free(dead);
	return rc;
}

