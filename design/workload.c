/*
 * The spec's `workload:` map: what runs on the fabric.
 *
 *   workload:
 *     collectives:            # evaluated by `explore`
 *       - {pattern: allreduce, algo: ring, size: 10 KiB, group: tp}
 *       - {pattern: all-to-all, size: 32 MiB}
 *
 * The placement keys (scheme, instances, model, ...) and the decode model's
 * accelerator and sessions are read by placement/ (fx_workload_place_parse,
 * fx_accel_sessions_parse); this file reads the collectives and calls those,
 * so the whole map is read in one place.  Whether `ranks` and `group` fit
 * the fabric is checked once it is built (design/groups.c).
 */
#include <stdint.h>
#include <string.h>

#include "../core/xalloc.h"
#include "design_internal.h"

/* The patterns (pattern NULL) or the algorithms of one pattern, ", "-joined. */
static const char *coll_list(const char *pattern, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (const fx_coll_algo *const *a = fx_coll_algos; *a && used < len; a++) {
		const char *item = pattern ? (*a)->name : (*a)->pattern;
		if (pattern && strcmp((*a)->pattern, pattern) != 0)
			continue;
		if (!pattern) {  /* each pattern once */
			const fx_coll_algo *const *b = fx_coll_algos;
			while (b < a && strcmp((*b)->pattern, item) != 0)
				b++;
			if (b < a)
				continue;
		}
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", item);
	}
	return buf;
}

static int parse_coll(fx_diag *d, const fx_snode *n, fx_wl_coll *w)
{
	static const char *const keys[] = {"pattern", "algo", "size", "ranks", "group", NULL};
	if (n->kind != FX_SNODE_MAP)
		return fx_snode_error(d, n, "'%s' must be a map {pattern, algo, size, ranks, group}", n->path);
	memset(w, 0, sizeof *w);
	int rc = fx_spec_keys(d, n, keys);
	rc |= fx_spec_str(d, n, "pattern", &w->pattern);
	rc |= fx_spec_str_opt(d, n, "algo", &w->algo);
	rc |= fx_spec_qty(d, n, "size", FX_UNIT_SIZE, 0, 0, &w->size);
	rc |= fx_spec_int_opt(d, n, "ranks", 1, INT32_MAX, &w->nranks);
	rc |= fx_spec_str_opt(d, n, "group", &w->group);
	if (rc)
		return -1;
	if (w->nranks && w->group)
		return fx_snode_error(d, n, "'%s' gives both 'ranks' and 'group'", n->path);
	const fx_snode *p = fx_snode_get(n, "pattern"), *a = fx_snode_get(n, "algo");
	char list[512];
	if (!fx_coll_find(w->pattern, NULL))
		return fx_snode_error(d, p, "'%s' names no collective pattern: '%s' (expected: %s)",
				      p->path, w->pattern, coll_list(NULL, list, sizeof list));
	if (w->algo && !fx_coll_find(w->pattern, w->algo))
		return fx_snode_error(d, a, "'%s' names no algorithm for %s: '%s' (expected: %s)",
				      a->path, w->pattern, w->algo,
				      coll_list(w->pattern, list, sizeof list));
	return 0;
}

/* What each parallel group of an inventory sends, for the groups the spec
 * does not give (placement's defaults, as placement/workload.c's for a
 * shape): TP reductions, dispatch and combine (or §6.3.1's reduction
 * across the expert groups), the PP hand-off. */
static void inventory_traffic(fx_design *ds, const fx_snode *groups)
{
	const fx_step_model *m = &ds->step;
	fx_workload *w = &ds->work;
	double tok = (double)w->tokens;
	const fx_step_part *ep = NULL;
	for (int i = 0; i < m->nparts; i++)
		if (m->part[i].split == FX_SPLIT_EP)
			ep = &m->part[i];
	int64_t moe = m->moe_layers ? m->moe_layers : ep ? ep->layers : 0;
	fx_group_traffic t[FX_GROUP_KINDS] = {
		{"allreduce", "ring", m->reduce_bytes * tok, (double)m->tp_reductions},
		{"allreduce", "ring", m->reduce_bytes * tok, (double)moe},
		{"broadcast", "chain", m->act_bytes * tok, 1},
		{"allreduce", "ring", 0, 0},
	};
	if (ep && !ds->step_layout.ep_allreduce) {
		double n = (double)w->dims[FX_GROUP_EP];
		double per = ep->a2a_token_bytes > 0 ? ep->a2a_token_bytes
						     : ep->token_bytes * (double)ep->top_k;
		t[FX_GROUP_EP] = (fx_group_traffic){"all-to-all", "direct",
						    per * tok * (n > 1 ? (n - 1) / n : 0),
						    2.0 * (double)moe};
	}
	for (int k = 0; k < FX_GROUP_KINDS; k++)
		if (!fx_snode_get(groups, fx_group_kind_name((fx_group_kind)k)))
			w->traffic[k] = t[k];
}

int fx_design_workload_parse(fx_design *ds, fx_diag *d)
{
	/* training is the planner's (plan/problem.c) */
	static const char *const mine[] = {"collectives", "accelerator", "sessions", "inventory",
					   "layout", "serve", "training", "jobs", NULL};
	const fx_snode *w, *l;
	/* placement/ checks every key of the map; design/ reads the rest */
	if (fx_workload_place_parse(d, &ds->spec, mine, &ds->work) ||
	    fx_accel_sessions_parse(d, &ds->spec, &ds->accel, &ds->sessions))
		return -1;
	if (fx_step_parse(d, &ds->spec, ds->work.have_model ? &ds->work.model : NULL,
			  ds->work.dims, &ds->accel, &ds->sessions, &ds->step, &ds->step_layout,
			  &ds->step_load, &ds->step_hw, &ds->have_step))
		return -1;
	if (fx_spec_map(d, ds->spec.root, "workload", 0, &w))
		return -1;
	if (w && fx_snode_get(w, "inventory") && ds->work.present)
		inventory_traffic(ds, fx_snode_get(w, "groups"));
	if (!w)
		return 0;
	if (fx_design_jobs_parse(ds, w, d))
		return -1;
	if (fx_spec_seq(d, w, "collectives", 0, &l))
		return -1;
	if (!l)
		return 0;
	ds->wl = fx_xcalloc(l->n ? l->n : 1, sizeof *ds->wl);
	ds->nwl = l->n;
	int rc = 0;
	for (size_t i = 0; i < l->n; i++)
		rc |= parse_coll(d, l->items[i], &ds->wl[i]);
	return rc;
}
