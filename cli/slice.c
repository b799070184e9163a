/*
 * fabricx slice: whether jobs that each need an adjacent block of chips
 * fit the idle chips of a torus or mesh (the chapter "Supernodes" §6.5.4):
 * two idle rows of a 4x4 grid host two 2x2 jobs, the same eight chips idle
 * as a checkerboard host none.  With --cube (optical circuit switches
 * joining electrically wired cubes, as TPU v4's 4x4x4 cubes and 48 OCS) a
 * job takes whole idle cubes wherever they are, since the OCS makes any
 * cubes neighbours.
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "cli.h"

static const fx_opt opts[] = {
	{"shape", "AxB[xC]", "the block of chips one job needs, e.g. 2x2"},
	{"jobs", "N", "jobs to fit (default 1)"},
	{"idle", "SEL", "idle chips, a selector as --cut takes (repeatable; default: all)"},
	{"busy", "SEL", "busy chips, removed from the idle ones (repeatable)"},
	{"cube", "AxB[xC]", "with optical circuit switches joining cubes of this shape"},
	{NULL, NULL, NULL},
};

/* "2x2x1" into e[n]; 0 or -1. */
static int extents(fx_cli *c, const char *opt, const char *text, int n, int *e)
{
	const char *p = text;
	for (int i = 0; i < n; i++) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p || v < 1 || v > 1 << 20)
			return fx_diag_error(&c->d, NULL, "%s: '%s' must be %d extents of 1 or more, like "
					     "2x2%s", opt, text, n, n > 2 ? "x1" : "");
		e[i] = (int)v;
		p = end;
		if (i + 1 < n) {
			if (*p != 'x')
				return fx_diag_error(&c->d, NULL, "%s: '%s' must be %d extents of 1 or more, "
						     "like 2x2%s", opt, text, n, n > 2 ? "x1" : "");
			p++;
		}
	}
	if (*p)
		return fx_diag_error(&c->d, NULL, "%s: '%s' must be %d extents of 1 or more, like 2x2%s",
				     opt, text, n, n > 2 ? "x1" : "");
	return 0;
}

/* Idle cubes (all chips idle) of the lattice cut into cubes of shape q. */
static int64_t idle_cubes(const fx_fabric *f, const uint8_t *idle, const int *q)
{
	int64_t cubes = 1;
	for (int i = 0; i < f->ndims; i++)
		cubes *= f->dims[i] / q[i];
	int64_t n = 0, *bad = fx_xcalloc((size_t)cubes + 1, sizeof *bad);
	int x[FX_MAX_DIMS];
	for (int64_t v = 0; v < f->ndev; v++) {
		fx_fabric_coords(f, v, x);
		int64_t k = 0, stride = 1;
		for (int i = 0; i < f->ndims; i++) {
			k += (x[i] / q[i]) * stride;
			stride *= f->dims[i] / q[i];
		}
		bad[k] |= !idle[v];
	}
	for (int64_t k = 0; k < cubes; k++)
		n += !bad[k];
	free(bad);
	return n;
}

static int report(fx_cli *c, const uint8_t *idle, const int *shape, int jobs, const int *cube)
{
	const fx_fabric *f = &c->design.fab;
	int64_t nidle = 0;
	for (int64_t v = 0; v < f->ndev; v++)
		nidle += idle[v];
	char sh[64];
	size_t u = 0;
	for (int i = 0; i < f->ndims; i++)
		u += (size_t)snprintf(sh + u, sizeof sh - u, "%s%d", i ? "x" : "", shape[i]);
	if (cube) {
		int64_t per = 1, have = idle_cubes(f, idle, cube);
		for (int i = 0; i < f->ndims; i++)
			per *= (shape[i] + cube[i] - 1) / cube[i];
		int64_t fit = per ? have / per : 0;
		fx_table *t = fx_record_new("slices", "Slices over optical circuit switches (book §6.5.4)",
					    NULL);
		fx_record_text(t, "shape", "job shape (chips)", "%s", sh);
		fx_record_int(t, "idle_chips", "idle chips", nidle);
		fx_record_int(t, "idle_cubes", "wholly idle cubes", have);
		fx_record_int(t, "cubes_per_job", "cubes per job", per);
		fx_record_int(t, "jobs_fit", "jobs that fit", fit < jobs ? fit : jobs);
		fx_record_int(t, "jobs", "jobs asked for", jobs);
		int rc = fx_cli_table(c, t);
		if (rc == 0 && fit < jobs)
			rc = fx_diag_infeasible(&c->d, "%d jobs of %s chips need %lld idle cubes; %lld are "
						"wholly idle", jobs, sh, (long long)(per * jobs), (long long)have);
		return rc;
	}
	fx_slice *sl = fx_xcalloc((size_t)jobs + 1, sizeof *sl);
	int found = 0;
	int decided = fx_lattice_slices(f, idle, shape, jobs, 10000000L, sl, &found) == 0;
	/* coordinates as plain numbers, not runs: (0,1) is no range */
	static const fx_col cols[] = {
		{"job", "job", FX_F_INT}, {"origin", "origin", FX_F_NUM},
		{"extent", "extent", FX_F_NUM}, {NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("slice_jobs", "Slices of adjacent chips (book §6.5.4)", cols);
	fx_table_json_key(t, "slices");
	double o[FX_MAX_DIMS], e[FX_MAX_DIMS];
	for (int j = 0; j < found; j++) {
		for (int i = 0; i < f->ndims; i++) {
			o[i] = sl[j].origin[i];
			e[i] = sl[j].extent[i];
		}
		fx_table_int(t, j);
		fx_table_list(t, o, (size_t)f->ndims);
		fx_table_list(t, e, (size_t)f->ndims);
	}
	int rc = fx_cli_table(c, t);
	t = fx_record_new("slices", "Jobs", NULL);
	fx_record_text(t, "shape", "job shape (chips)", "%s", sh);
	fx_record_int(t, "idle_chips", "idle chips", nidle);
	fx_record_int(t, "jobs_fit", "jobs that fit", found);
	fx_record_int(t, "jobs", "jobs asked for", jobs);
	rc |= fx_cli_table(c, t);
	free(sl);
	if (rc)
		return rc;
	if (!decided)
		return fx_diag_undecided(&c->d, "%d of %d jobs of %s chips placed in 10^7 search steps; "
					 "whether more fit is not decided", found, jobs, sh);
	int64_t vol = 1;
	for (int i = 0; i < f->ndims; i++)
		vol *= shape[i];
	if (found < jobs && (double)jobs * (double)vol > (double)nidle)
		return fx_diag_infeasible(&c->d, "%d job%s of %s chips need %.0f chips, and %lld are "
					  "idle: at most %d fit (by counting)", jobs, jobs == 1 ? "" : "s",
					  sh, (double)jobs * (double)vol, (long long)nidle, found);
	if (found < jobs)
		return fx_diag_infeasible(&c->d, "%d job%s of %s adjacent chips %s not fit the %lld idle "
					  "chips: at most %d do (every placement searched)", jobs,
					  jobs == 1 ? "" : "s", sh, jobs == 1 ? "does" : "do", (long long)nidle,
					  found);
	return 0;
}

static int slice_run(fx_cli *c)
{
	int rc = fx_cli_load(c);
	int shape[FX_MAX_DIMS], cube[FX_MAX_DIMS];
	int64_t jobs = 1;
	uint8_t *idle = NULL;
	const char *v;
	if (rc == 0 && c->design.fab.ndims < 1)
		rc = fx_diag_error(&c->d, NULL, "slice: %s is a %s fabric; slices are blocks of a torus or "
				   "mesh", c->spec_path, c->design.fab.builder->kind);
	if (rc == 0 && !(v = fx_cli_opt(c, "shape")))
		rc = fx_diag_error(&c->d, NULL, "slice: --shape is required (e.g. --shape 2x2)");
	if (rc == 0)
		rc = extents(c, "--shape", v, c->design.fab.ndims, shape);
	if (rc == 0 && (v = fx_cli_opt(c, "jobs")))
		rc = fx_cli_int(c, "--jobs", v, 1, 1 << 20, &jobs);
	/* a fabric with optical circuit switches (fabric.ocs) slices by its
	 * cubes unless --cube says otherwise */
	int spec_cube = rc == 0 && !fx_cli_opt(c, "cube") && c->design.fab.ocs_switches > 0;
	for (int i = 0; spec_cube && i < c->design.fab.ndims; i++)
		cube[i] = c->design.fab.ocs_cube[i];
	if (rc == 0 && (v = fx_cli_opt(c, "cube"))) {
		rc = extents(c, "--cube", v, c->design.fab.ndims, cube);
		for (int i = 0; rc == 0 && i < c->design.fab.ndims; i++)
			if (c->design.fab.dims[i] % cube[i])
				rc = fx_diag_error(&c->d, NULL, "--cube: '%s' does not tile the %d chips of "
						   "dimension %d", v, c->design.fab.dims[i], i);
	}
	if (rc == 0) {
		idle = fx_xcalloc((size_t)c->design.fab.nv + 1, 1);
		uint8_t *sel = fx_xcalloc((size_t)c->design.fab.nv + 1, 1);
		const char *vals[64];
		int n = fx_cli_opt_each(c, "idle", vals, 64);
		for (int64_t d = 0; d < c->design.fab.ndev; d++)
			idle[d] = n == 0;
		for (int i = 0; i < n && i < 64 && rc == 0; i++) {
			memset(sel, 0, (size_t)c->design.fab.nv);
			rc = fx_fabric_select(&c->design.fab, vals[i], "--idle", sel, &c->d);
			for (int64_t d = 0; d < c->design.fab.ndev; d++)
				idle[d] |= sel[d];
		}
		/* failed chips (the spec's failures:) are never idle */
		uint8_t *reach = fx_xmalloc((size_t)c->design.fab.ndev + 1);
		fx_fabric_reachable(&c->design.fab, reach);
		for (int64_t d = 0; d < c->design.fab.ndev; d++)
			idle[d] &= reach[d];
		free(reach);
		n = fx_cli_opt_each(c, "busy", vals, 64);
		for (int i = 0; i < n && i < 64 && rc == 0; i++) {
			memset(sel, 0, (size_t)c->design.fab.nv);
			rc = fx_fabric_select(&c->design.fab, vals[i], "--busy", sel, &c->d);
			for (int64_t d = 0; d < c->design.fab.ndev; d++)
				idle[d] &= !sel[d];
		}
		free(sel);
	}
	if (rc == 0)
		rc = fx_cli_outdir_asked(c);
	if (rc == 0) {
		fx_cli_begin(c);
		rc = report(c, idle, shape, (int)jobs, fx_cli_opt(c, "cube") || spec_cube ? cube : NULL);
		fx_cli_end(c);
	}
	free(idle);
	return rc;
}

const fx_command fx_command_slice = {
	.name = "slice",
	.summary = "whether jobs' blocks of adjacent chips fit the idle ones (OCS too)",
	.usage = "slice SPEC --shape AxB [--jobs N] [--idle SEL]... [--busy SEL]... [--cube AxB] [--json]",
	.opts = opts,
	.run = slice_run,
};
