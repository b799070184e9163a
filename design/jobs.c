/*
 * `workload.jobs`: several jobs sharing the fabric (placement.h's
 * fx_job says what runs), read here with the rest of `workload:`; their
 * `devices` are resolved once the fabric is built.
 *
 *   workload:
 *     jobs:
 *       - name: a
 *         scheme: {tp: 4, dp: 2}
 *         groups: {tp: {collective: allreduce, algo: ring, bytes: 1 MiB, count: 2}}
 *         devices: ["node=0", "device=8-11"]   # selectors, their union in device order
 *         start: 10 us                          # default 0
 */
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "design_internal.h"

static const char *const kinds[] = {"tp", "ep", "pp", "dp", NULL};

static int parse_job(fx_diag *d, const fx_snode *n, fx_job *j)
{
	static const char *const keys[] = {"name", "scheme", "groups", "devices", "start", NULL};
	if (n->kind != FX_SNODE_MAP)
		return fx_snode_error(d, n, "'%s' must be a map {name, scheme, groups, devices, start}",
				      n->path);
	memset(j, 0, sizeof *j);
	for (int k = 0; k < FX_GROUP_KINDS; k++)
		j->dims[k] = 1;
	int rc = fx_spec_keys(d, n, keys);
	rc |= fx_spec_str(d, n, "name", &j->name);
	rc |= fx_spec_qty_opt(d, n, "start", FX_UNIT_TIME, 0, 0, &j->start);
	const fx_snode *s, *g;
	if (fx_spec_map(d, n, "scheme", 1, &s) == 0 && fx_spec_keys(d, s, kinds) == 0) {
		for (int k = 0; k < FX_GROUP_KINDS; k++)
			rc |= fx_spec_int_opt(d, s, kinds[k], 1, 1 << 20, &j->dims[k]);
	} else {
		rc = -1;
	}
	if (fx_spec_map(d, n, "groups", 0, &g))
		return -1;
	if (g && fx_spec_keys(d, g, kinds))
		return -1;
	for (int k = 0; g && k < FX_GROUP_KINDS; k++)
		if (fx_snode_get(g, kinds[k]))
			rc |= fx_group_traffic_parse(d, fx_snode_get(g, kinds[k]), &j->traffic[k]);
	if (rc)
		return -1;
	if (fx_job_devices(j) > (int64_t)1 << 24)
		return fx_snode_error(d, s, "'%s' makes %lld devices, more than any fabric fabricx builds",
				      s->path, (long long)fx_job_devices(j));
	for (int k = 0; k < FX_GROUP_KINDS; k++)
		if (j->dims[k] > 1 && !j->traffic[k].pattern[0])
			return fx_snode_error(d, g ? g : n, "job '%s' has %lld-way %s groups but no "
					      "'groups.%s' to say what they send", j->name,
					      (long long)j->dims[k], kinds[k], kinds[k]);
	return 0;
}

int fx_design_jobs_parse(fx_design *ds, const fx_snode *w, fx_diag *d)
{
	const fx_snode *l;
	if (fx_spec_seq(d, w, "jobs", 0, &l))
		return -1;
	if (!l)
		return 0;
	if (l->n == 0)
		return fx_snode_error(d, l, "'%s' lists no jobs", l->path);
	if (l->n > FX_JOBS_MAX)
		return fx_snode_error(d, l->items[FX_JOBS_MAX], "'%s' lists %zu jobs, at most %d",
				      l->path, l->n, FX_JOBS_MAX);
	ds->jobs = fx_xcalloc(l->n, sizeof *ds->jobs);
	ds->njobs = l->n;
	int rc = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (parse_job(d, l->items[i], &ds->jobs[i])) {
			rc = -1;
			continue;
		}
		for (size_t k = 0; k < i; k++)
			if (ds->jobs[k].name && strcmp(ds->jobs[k].name, ds->jobs[i].name) == 0)
				rc = fx_snode_error(d, fx_snode_get(l->items[i], "name"), "'%s.name' "
						    "repeats job '%s' (%s): names tell jobs apart",
						    l->items[i]->path, ds->jobs[i].name,
						    l->items[k]->path);
	}
	return rc;
}

/* The devices one job's `devices` selects, in device order, into j. */
static int job_devices(const fx_design *ds, const fx_snode *sel, fx_job *j, int64_t *owner,
		       size_t ji, fx_diag *d)
{
	const fx_fabric *f = &ds->fab;
	uint8_t *m = fx_xcalloc((size_t)f->nv, 1), *one = fx_xcalloc((size_t)f->nv, 1);
	int rc = 0;
	size_t nsel = sel->kind == FX_SNODE_SEQ ? sel->n : 1;
	if (sel->kind == FX_SNODE_MAP)
		rc = fx_snode_error(d, sel, "'%s' must be a selector (\"node=0-1\") or a list of them",
				    sel->path);
	for (size_t i = 0; i < nsel && rc == 0; i++) {
		const fx_snode *s = sel->kind == FX_SNODE_SEQ ? sel->items[i] : sel;
		memset(one, 0, (size_t)f->nv);
		rc = fx_fabric_select_node(f, s, one, d);
		for (int64_t v = 0; rc == 0 && v < f->nv; v++)
			m[v] |= one[v];
	}
	int64_t need = fx_job_devices(j), got = 0;
	for (int64_t v = 0; rc == 0 && v < f->ndev; v++)
		got += m[v];
	if (rc == 0 && got != need)
		rc = fx_snode_error(d, sel, "'%s' selects %lld devices, and job '%s' needs %lld (the "
				    "product of its scheme)", sel->path, (long long)got, j->name,
				    (long long)need);
	if (rc == 0) {
		j->devices = fx_xmalloc((size_t)need * sizeof *j->devices);
		got = 0;
		for (int64_t v = 0; v < f->ndev; v++) {
			if (!m[v])
				continue;
			if (owner[v] >= 0 && rc == 0)
				rc = fx_snode_error(d, sel, "'%s' selects device %lld, which job '%s' "
						    "holds already (jobs share the fabric, not "
						    "devices)", sel->path, (long long)v,
						    ds->jobs[owner[v]].name);
			owner[v] = (int64_t)ji;
			j->devices[got++] = v;
		}
		if (rc) {
			free(j->devices);
			j->devices = NULL;
		}
	}
	free(m);
	free(one);
	return rc;
}

int fx_design_jobs_check(fx_design *ds, fx_diag *d)
{
	if (!ds->njobs)
		return 0;
	const fx_snode *l = fx_snode_get(fx_snode_get(ds->spec.root, "workload"), "jobs");
	int64_t *owner = fx_xmalloc((size_t)(ds->fab.ndev ? ds->fab.ndev : 1) * sizeof *owner);
	for (int64_t v = 0; v < ds->fab.ndev; v++)
		owner[v] = -1;
	int rc = 0;
	for (size_t i = 0; i < ds->njobs && rc == 0; i++) {
		const fx_snode *sel = fx_snode_get(l->items[i], "devices");
		if (fx_job_devices(&ds->jobs[i]) > ds->fab.ndev)
			rc = fx_snode_error(d, fx_snode_get(l->items[i], "scheme"), "job '%s' needs %lld "
					    "devices, and the fabric has %lld", ds->jobs[i].name,
					    (long long)fx_job_devices(&ds->jobs[i]),
					    (long long)ds->fab.ndev);
		else if (sel)
			rc = job_devices(ds, sel, &ds->jobs[i], owner, i, d);
	}
	free(owner);
	return rc;
}
