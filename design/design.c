/*
 * Loading a design: the spec, its overrides, the top-level keys, the
 * families read before the fabric (power, collective, workload), the
 * fabric, and the groups that need it built.  The CLI, compare, the tests
 * and the fuzz target all load through here, so a spec means the same
 * thing to each.
 */
#include "design.h"

#include <stdlib.h>
#include <string.h>

#include "../bom/bom.h"
#include "../core/xalloc.h"
#include "design_internal.h"

/* The top level of a spec: what it is and where its numbers come from.
 * `path` names the spec in messages. */
static int check_root(fx_design *ds, const char *path, fx_diag *d)
{
	static const char *const keys[] = {"name", "description", "sources", "fabric",
					   "packaging", "power", "collective", "groups",
					   "workload", "space", "failures", "plan", "bom", NULL};
	const fx_snode *r = ds->spec.root, *n;
	int rc = fx_spec_keys(d, r, keys);
	const char *s;
	rc |= fx_spec_str_opt(d, r, "name", &s);
	rc |= fx_spec_str_opt(d, r, "description", &ds->description);
	if (fx_spec_seq(d, r, "sources", 0, &n))
		return -1;
	if (n && n->n) {
		ds->sources = fx_xcalloc(n->n, sizeof *ds->sources);
		ds->nsources = n->n;
	}
	for (size_t i = 0; n && i < n->n; i++)
		rc |= fx_snode_str(d, n->items[i], &ds->sources[i]);
	if (rc)
		return rc;
	/* one rule for the folder name, wherever it comes from */
	char *name = fx_spec_name_new(&ds->spec, &n);
	const char *why = fx_name_check(name);
	if (why && n)
		rc = fx_snode_error(d, n, "'name' is used as a folder under out/, but it %s (a name "
				    "is 1 to %d bytes of printable UTF-8, without '/' or a leading '.')",
				    why, FX_NAME_MAX);
	else if (why)
		rc = fx_diag_error(d, NULL, "%s: the spec's name comes from its file name, '%s', "
				   "which is used as a folder under out/, but it %s (a name is 1 to %d "
				   "bytes of printable UTF-8, without '/' or a leading '.'); give the "
				   "spec a 'name:'", path, name, why, FX_NAME_MAX);
	else
		memcpy(ds->name, name, strlen(name) + 1);  /* fits: FX_NAME_MAX < sizeof ds->name */
	free(name);
	return rc;
}

/* What follows reading the spec text: overrides, the top-level families,
 * the fabric and the groups. */
static int load_rest(fx_design *ds, const char *path, const char *const *overrides, size_t n,
		     const fx_design_limits *limits, fx_diag *d)
{
	ds->have_spec = 1;
	for (size_t i = 0; i < n; i++)
		if (fx_spec_set(&ds->spec, overrides[i], d))
			return -1;
	int rc = check_root(ds, path, d);
	rc |= fx_power_parse(d, &ds->spec, &ds->power);
	fx_bom_config bom;  /* checked here so every command refuses a bad bom: map */
	rc |= fx_bom_parse(d, &ds->spec, &bom);
	rc |= fx_coll_time_parse(d, &ds->spec, &ds->coll);
	rc |= fx_design_workload_parse(ds, d);
	if (rc)
		return -1;
	double max_mem = limits && limits->max_memory > 0 ? limits->max_memory
							  : fx_fabric_default_limit();
	if (fx_fabric_build(&ds->fab, &ds->spec, max_mem, d))
		return -1;
	ds->have_fab = 1;
	/* `failures: [SEL, ...]`: elements failed in every command, as --fail */
	const fx_snode *fl;
	if (fx_spec_seq(d, ds->spec.root, "failures", 0, &fl))
		return -1;
	for (size_t i = 0; fl && i < fl->n; i++)
		if (fx_fabric_fail_node(&ds->fab, fl->items[i], d))
			return -1;
	if (fx_design_jobs_check(ds, d))
		return -1;
	return fx_design_groups_check(ds, d);
}

/* The arguments both loads share: a design to fill, overrides that are
 * there when counted, limits that are numbers. */
static int check_args(const char *fn, fx_design *ds, const char *path, const char *const *overrides,
		      size_t n, const fx_design_limits *limits, fx_diag *d)
{
	if (!ds)
		return fx_diag_error(d, NULL, "%s: no design to load into", fn);
	memset(ds, 0, sizeof *ds);
	if (!path)
		return fx_diag_error(d, NULL, "%s: no spec path or name", fn);
	if (n && !overrides)
		return fx_diag_error(d, NULL, "%s: %zu overrides but no list of them", fn, n);
	for (size_t i = 0; i < n; i++)
		if (!overrides[i])
			return fx_diag_error(d, NULL, "%s: override %zu is NULL", fn, i);
	if (limits && !(limits->max_memory >= 0))
		return fx_diag_error(d, NULL, "%s: max_memory must be 0 (the default) or more", fn);
	return 0;
}

/* A design whose load failed holds nothing: every later use of it fails
 * (fx_fabric_built is 0), as if it had never been loaded. */
static int loaded(fx_design *ds, int rc)
{
	if (rc)
		fx_design_release(ds);
	return rc ? -1 : 0;
}

int fx_design_load(fx_design *ds, const char *path, const char *const *overrides,
		   size_t noverrides, const fx_design_limits *limits, fx_diag *d)
{
	if (check_args("fx_design_load", ds, path, overrides, noverrides, limits, d))
		return -1;
	if (fx_spec_load(&ds->spec, path, d))
		return loaded(ds, -1);
	return loaded(ds, load_rest(ds, path, overrides, noverrides, limits, d));
}

int fx_design_load_text(fx_design *ds, const char *name, const char *text,
			const char *const *overrides, size_t noverrides,
			const fx_design_limits *limits, fx_diag *d)
{
	if (check_args("fx_design_load_text", ds, name, overrides, noverrides, limits, d))
		return -1;
	if (!text)
		return fx_diag_error(d, NULL, "fx_design_load_text: no text");
	if (fx_spec_load_text(&ds->spec, name, text, d))
		return loaded(ds, -1);
	return loaded(ds, load_rest(ds, name, overrides, noverrides, limits, d));
}

int fx_design_load_spec(fx_design *ds, const fx_spec *spec, const char *const *overrides,
			size_t noverrides, const fx_design_limits *limits, fx_diag *d)
{
	if (!spec || !spec->root || !spec->file) {
		if (ds)
			memset(ds, 0, sizeof *ds);
		return fx_diag_error(d, NULL, "fx_design_load_spec: no spec");
	}
	if (check_args("fx_design_load_spec", ds, spec->file, overrides, noverrides, limits, d))
		return -1;
	fx_spec_copy(&ds->spec, spec);
	return loaded(ds, load_rest(ds, spec->file, overrides, noverrides, limits, d));
}

void fx_design_release(fx_design *ds)
{
	if (!ds)
		return;
	free(ds->wl);
	fx_jobs_free(ds->jobs, ds->njobs);
	free(ds->sources);
	fx_coll_measured_free((fx_coll_measured *)ds->coll.measured);
	if (ds->have_fab)
		fx_fabric_release(&ds->fab);
	if (ds->have_spec)
		fx_spec_release(&ds->spec);
	memset(ds, 0, sizeof *ds);
}
