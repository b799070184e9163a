/*
 * fabricx failures: what losing one element does to the fabric (the
 * chapter "Supernodes" §6.7.2: a failure's scope depends on what shares
 * it).  For each class of switch chips (a role: leaf, spine, a plane's L2
 * chips, NVSwitch chips) and each class of links (a tier), one element is
 * failed and the fabric measured again: the max-flow across the canonical
 * bisection split, each device's bandwidth into the fabric (the worst
 * device's share kept), and the blast radius: devices slowed, and devices
 * cut off.  Chips of one role and links of one tier are
 * structurally equivalent in every structured kind, so one of each is
 * evaluated (said in the output); `--all` evaluates every chip instead.
 * `--kind node|rack|plane` fails the first node, rack or plane with all it
 * holds (alike in the structured kinds), `--fail SEL` any set a selector
 * picks.  With a workload, the blast radius also counts the instances of
 * its placement on the intact fabric that a failure slows or cuts off.
 *
 * Checks in the manner of the chapter "Supernodes" (tests/cli/run.sh): a
 * k=4 fat-tree losing one of its 4 core switches keeps 3/4 of its
 * bisection; CloudMatrix384 losing one of a plane's 16 L2 chips loses 1/16
 * of that plane's share; NVL72 losing one of its 18 switch chips loses 1/18 of each GPU's bandwidth.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/limits.h"
#include "../core/units.h"
#include "../core/xalloc.h"
#include "cli.h"

static const fx_opt opts[] = {
	{"kind", "K", "what fails: switch (default), link, node, rack or plane"},
	{"all", NULL, "evaluate every switch chip, not one per role"},
	{"fail", "SEL", "fail these vertices instead, a selector as --cut takes (repeatable)"},
	{NULL, NULL, NULL},
};

/* The workload's placement on the intact fabric: instance of each device
 * (-1: none), so a failure's blast radius counts instances. */
static int64_t *instance_of;

typedef struct measure {
	double bisection;      /* bytes/s across the canonical split */
	double worst_inject;   /* least bandwidth of a device into the fabric */
	double mean_inject;
	double *each;          /* [nv] each device's bandwidth into the fabric */
} measure;

/* Bandwidth a device reaches the other devices with: the sum of its links
 * to anything but CPUs (a host's link feeds that host, not the fabric).
 * sum[v] is left for the caller, who frees it. */
static void inject(const fx_fabric *f, double *worst, double *mean, double **each)
{
	double *sum = fx_xcalloc((size_t)f->nv + 1, sizeof *sum);
	for (int64_t e = 0; e < f->ne; e++)
		for (int k = 0; k < 2; k++)
			if (f->v[f->ends[2 * e + 1 - k]].type != FX_V_CPU)
				sum[f->ends[2 * e + k]] += f->e[e].bw * f->e[e].count;
	*worst = INFINITY;
	*mean = 0;
	int64_t n = 0;
	for (int64_t v = 0; v < f->nv; v++) {
		if (f->v[v].type != FX_V_DEVICE)
			continue;
		if (sum[v] < *worst)
			*worst = sum[v];
		*mean += sum[v];
		n++;
	}
	*mean = n ? *mean / (double)n : 0;
	*each = sum;
}

static int measure_now(fx_cli *c, const uint8_t *side, measure *m)
{
	fx_cut cut;
	if (fx_route_cut(&c->design.fab, side, &cut, &c->d))
		return -1;
	m->bisection = cut.bandwidth;
	inject(&c->design.fab, &m->worst_inject, &m->mean_inject, &m->each);
	return 0;
}

/* Fails the edges marked in dead (bandwidth 0), measures, restores. */
static int measure_failed(fx_cli *c, const uint8_t *side, const uint8_t *dead, measure *m)
{
	fx_fabric *f = &c->design.fab;
	double *bw = fx_xmalloc((size_t)(f->ne + 1) * sizeof *bw);
	for (int64_t e = 0; e < f->ne; e++) {
		bw[e] = f->e[e].bw;
		if (dead[e])
			f->e[e].bw = 0;
	}
	int rc = measure_now(c, side, m);
	for (int64_t e = 0; e < f->ne; e++)
		f->e[e].bw = bw[e];
	free(bw);
	return rc;
}

typedef struct row {
	char what[160];
	int64_t equivalent;    /* elements this row stands for */
	measure m;
	double rank;           /* bisection kept, then worst device kept: lower is graver */
} row;

/* The rows evaluated, ranked gravest first when all are in. */
typedef struct rows {
	row *r;
	size_t n, cap;
} rows;

static void keep(rows *rs, const row *r, const measure *base)
{
	rs->r = fx_xgrow(rs->r, &rs->cap, rs->n + 1, sizeof *rs->r);
	row *k = &rs->r[rs->n++];
	*k = *r;
	double b = base->bisection > 0 ? r->m.bisection / base->bisection : 1;
	double w = base->worst_inject > 0 ? r->m.worst_inject / base->worst_inject : 1;
	k->rank = b + 1e-6 * w;
}

static int by_rank(const void *a, const void *b)
{
	const row *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The blast radius: devices that lost bandwidth, and those cut off. */
static void hit(const fx_fabric *f, const measure *base, const measure *m, int64_t *slower,
		int64_t *cut_off, int64_t *instances)
{
	*slower = *cut_off = *instances = 0;
	uint8_t *seen = instance_of ? fx_xcalloc((size_t)f->ndev + 1, 1) : NULL;
	for (int64_t v = 0; v < f->nv; v++) {
		if (f->v[v].type != FX_V_DEVICE)
			continue;
		int slow = m->each[v] < base->each[v] * (1 - 1e-12) && m->each[v] > 0;
		int cut = m->each[v] <= 0 && base->each[v] > 0;
		*slower += slow;
		*cut_off += cut;
		int64_t i = instance_of && v < f->ndev ? instance_of[v] : -1;
		if ((slow || cut) && i >= 0 && !seen[i]) {
			seen[i] = 1;
			(*instances)++;
		}
	}
	free(seen);
}

static void emit(fx_cli *c, fx_table *t, const row *r, const measure *base)
{
	int64_t slower, cut_off, inst;
	hit(&c->design.fab, base, &r->m, &slower, &cut_off, &inst);
	fx_table_cell(t, "%s", r->what);
	fx_table_int(t, r->equivalent);
	fx_table_num(t, r->m.bisection);
	fx_table_num(t, base->bisection > 0 ? r->m.bisection / base->bisection : 1);
	fx_table_num(t, r->m.worst_inject);
	fx_table_num(t, base->worst_inject > 0 ? r->m.worst_inject / base->worst_inject : 1);
	fx_table_int(t, slower);
	fx_table_int(t, cut_off);
	if (instance_of)
		fx_table_int(t, inst);
	else
		fx_table_null(t, "-");
}

/* One row per switch role (its first chip), or per chip with --all. */
static int switches(fx_cli *c, const uint8_t *side, const measure *base, rows *rs, int all)
{
	const fx_fabric *f = &c->design.fab;
	uint8_t *dead = fx_xcalloc((size_t)f->ne + 1, 1);
	int rc = 0;
	int *done = fx_xcalloc((size_t)f->nroles + 1, sizeof *done);
	for (int64_t v = 0; v < f->nv && rc == 0; v++) {
		int role = f->v[v].role;
		if (f->v[v].type != FX_V_SWITCH || role < 0 || (!all && done[role]))
			continue;
		done[role] = 1;
		memset(dead, 0, (size_t)f->ne);
		for (int64_t e = 0; e < f->ne; e++)
			dead[e] = f->ends[2 * e] == v || f->ends[2 * e + 1] == v;
		row r = {.equivalent = all ? 1 : f->roles[role].count};
		char name[48];
		fx_fabric_vertex_name(f, v, name, sizeof name);
		snprintf(r.what, sizeof r.what, "%s (%s)", name, f->roles[role].name);
		rc = measure_failed(c, side, dead, &r.m);
		if (rc == 0)
			keep(rs, &r, base);
		else
			free(r.m.each);
	}
	free(done);
	free(dead);
	return rc;
}

/* One row per link tier: one physical link of its first bundle. */
static int links(fx_cli *c, const uint8_t *side, const measure *base, rows *rs)
{
	fx_fabric *f = &c->design.fab;
	int rc = 0;
	int done[128] = {0};
	for (int64_t e = 0; e < f->ne && rc == 0; e++) {
		int tier = f->e[e].tier;
		if (tier < 0 || tier >= 128 || done[tier])
			continue;
		done[tier] = 1;
		int64_t n = 0;
		for (int64_t g = 0; g < f->ne; g++)
			n += f->e[g].tier == tier ? f->e[g].count : 0;
		row r = {.equivalent = n};
		char a[48], b[48];
		fx_fabric_vertex_name(f, f->ends[2 * e], a, sizeof a);
		fx_fabric_vertex_name(f, f->ends[2 * e + 1], b, sizeof b);
		snprintf(r.what, sizeof r.what, "one link %s-%s (tier %d)", a, b, tier);
		double bw = f->e[e].bw;  /* one physical link of the bundle fails */
		f->e[e].bw = bw * (double)(f->e[e].count - 1) / (double)f->e[e].count;
		rc = measure_now(c, side, &r.m);
		f->e[e].bw = bw;
		if (rc == 0)
			keep(rs, &r, base);
		else
			free(r.m.each);
	}
	return rc;
}

/* Every link of the vertices a selector picks fails: a device, a node or
 * rack with all it holds, a plane's switch chips. */
static int selected(fx_cli *c, const uint8_t *side, const measure *base, rows *rs,
		    const char *expr, const char *label, int64_t equivalent)
{
	const fx_fabric *f = &c->design.fab;
	uint8_t *sel = fx_xcalloc((size_t)f->nv + 1, 1), *dead = fx_xcalloc((size_t)f->ne + 1, 1);
	int rc = fx_fabric_select(f, expr, "--fail", sel, &c->d);
	if (rc == 0) {
		for (int64_t e = 0; e < f->ne; e++)
			dead[e] = sel[f->ends[2 * e]] || sel[f->ends[2 * e + 1]];
		row r = {.equivalent = equivalent};
		snprintf(r.what, sizeof r.what, "%s", label);
		rc = measure_failed(c, side, dead, &r.m);
		if (rc == 0)
			keep(rs, &r, base);
		else
			free(r.m.each);
	}
	free(sel);
	free(dead);
	return rc;
}

/* Places the workload on the intact fabric for the blast radius. */
static void place_intact(fx_cli *c)
{
	if (!c->design.work.present)
		return;
	fx_diag quiet;
	fx_diag_init(&quiet);
	quiet.max_shown = 0;
	fx_place_opts o = {.time_limit = FX_DEFAULT_TIME_LIMIT, .tm = c->design.coll,
			   .accel = c->design.accel.hbm > 0 ? &c->design.accel : NULL, .sessions = &c->design.sessions};
	fx_placement p;
	if (fx_place(&c->design.fab, &c->design.work, &c->design.power, &o, &p, &quiet) == 0) {
		instance_of = fx_xmalloc((size_t)(c->design.fab.ndev + 1) * sizeof *instance_of);
		for (int64_t v = 0; v < c->design.fab.ndev; v++)
			instance_of[v] = -1;
		int64_t D = fx_workload_devices(&c->design.work);
		for (int64_t i = 0; i < p.ninst; i++)
			for (int64_t k = 0; k < D; k++)
				instance_of[p.inst[i].devices[k]] = i;
		fx_placement_release(&p);
	}
	fx_diag_release(&quiet);
}

/* --kind node|rack|plane: the first of its kind stands for all (nodes,
 * racks and planes of the structured kinds are alike). */
static int domains(fx_cli *c, const char *kind, const uint8_t *side, const measure *base,
		   rows *rs)
{
	const fx_fabric *f = &c->design.fab;
	int64_t n = 0;
	for (int64_t v = 0; v < f->nv; v++) {
		int64_t id = strcmp(kind, "node") == 0 ? f->v[v].node
			     : strcmp(kind, "rack") == 0 ? f->v[v].rack : f->v[v].plane;
		if (id + 1 > n)
			n = id + 1;
	}
	if (n == 0)
		return fx_diag_error(&c->d, NULL, "--kind %s: %s has no %ss", kind, c->spec_path, kind);
	char expr[32], label[48];
	snprintf(expr, sizeof expr, "%s=0", kind);
	snprintf(label, sizeof label, "%s 0 (all it holds)", kind);
	return selected(c, side, base, rs, expr, label, n);
}

int fx_report_failures(fx_cli *c, const char *kind, const char *const *fails, int nfail, int all)
{
	int rc = 0;
	if (strcmp(kind, "switch") && strcmp(kind, "link") && strcmp(kind, "node") &&
	    strcmp(kind, "rack") && strcmp(kind, "plane"))
		return fx_diag_error(&c->d, NULL, "--kind: '%s' must be switch, link, node, rack or plane",
				     kind);
	if (!c->design.fab.builder->halves)
		return fx_diag_error(&c->d, NULL, "failures: a %s fabric has no canonical split to "
				     "measure (structured kinds only)", c->design.fab.builder->kind);
	if (nfail == 0 && strcmp(kind, "switch") == 0 && c->design.fab.nsw == 0)
		return fx_diag_error(&c->d, NULL, "failures: %s has no switch chips (try --kind link)",
				     c->spec_path);
	uint8_t *side = fx_xcalloc((size_t)c->design.fab.nv + 1, 1);
	for (int64_t v = 0; v < c->design.fab.nv; v++)
		side[v] = 2;
	measure base;
	if (!c->design.fab.builder->halves(&c->design.fab, side)) {
		free(side);
		return fx_diag_error(&c->d, NULL, "failures: no canonical split (an odd number of devices)");
	}
	if (measure_now(c, side, &base)) {
		free(side);
		return -1;
	}
	place_intact(c);
	int one_per_role = !nfail && !all && strcmp(kind, "switch") == 0;
	fx_table *t = fx_record_new("failures_intact", one_per_role ? "Intact fabric (one chip per role "
				    "is failed: chips of a role are structurally equivalent here)" :
				    "Intact fabric", NULL);
	fx_record_num(t, "bisection_bandwidth_Bps", "bisection across the canonical split",
		      FX_F_BPS, base.bisection);
	fx_record_num(t, "worst_device_Bps", "each device reaches the fabric with at least",
		      FX_F_BPS, base.worst_inject);
	fx_record_text(t, "failure_kind", "failed one at a time", "%s", nfail ? "selected" : kind);
	rc = fx_cli_table(c, t);
	static const fx_col cols[] = {
		{"element", "failed", FX_F_TEXT}, {"equivalent", "alike", FX_F_INT},
		{"bisection_bandwidth_Bps", "bisection", FX_F_BPS},
		{"bisection_kept", "kept", FX_F_FRACTION},
		{"worst_device_Bps", "worst device", FX_F_BPS},
		{"worst_device_kept", "kept", FX_F_FRACTION},
		{"devices_slower", "devices slower", FX_F_INT},
		{"devices_cut_off", "cut off", FX_F_INT},
		{"instances_hit", "instances hit", FX_F_INT}, {NULL, NULL, 0},
	};
	t = fx_table_typed("failures", "Failures, the most critical first", cols);
	rows rs = {0};
	if (nfail)
		for (int i = 0; i < nfail && rc == 0; i++)
			rc = selected(c, side, &base, &rs, fails[i], fails[i], 1);
	else if (strcmp(kind, "switch") == 0)
		rc = switches(c, side, &base, &rs, all);
	else if (strcmp(kind, "link") == 0)
		rc = links(c, side, &base, &rs);
	else
		rc = domains(c, kind, side, &base, &rs);
	/* the most critical first: least bisection kept, then least kept by
	 * the worst device (a stable order for ties: evaluation order) */
	for (size_t i = 0; i < rs.n; i++)
		rs.r[i].rank += 1e-12 * (double)i;
	if (rs.n > 1)  /* qsort of nothing: rs.r may be NULL */
		qsort(rs.r, rs.n, sizeof *rs.r, by_rank);
	for (size_t i = 0; i < rs.n; i++) {
		if (rc == 0)
			emit(c, t, &rs.r[i], &base);
		free(rs.r[i].m.each);
	}
	free(rs.r);
	rc |= fx_cli_table(c, t);
	free(side);
	free(base.each);
	free(instance_of);
	instance_of = NULL;
	return rc;
}

int fx_cmd_failures(int argc, char **argv)
{
	fx_cli c;
	int rc = fx_cli_parse(&c, "failures", "failures SPEC [--kind switch|link|node|rack|plane] [--fail SEL]... [--all] [--json]",
			      opts, argc, argv);
	if (rc)
		return fx_cli_finish(&c, rc > 0 ? 0 : -1);
	rc = fx_cli_load(&c);
	const char *kind = fx_cli_opt(&c, "kind"), *fails[64];
	int nfail = fx_cli_opt_each(&c, "fail", fails, 64);
	if (rc == 0)
		rc = fx_cli_outdir_asked(&c);
	if (rc == 0) {
		fx_cli_begin(&c);
		rc = fx_report_failures(&c, kind ? kind : "switch", fails, nfail < 64 ? nfail : 64,
					fx_cli_opt(&c, "all") != NULL);
		fx_cli_end(&c);
	}
	return fx_cli_finish(&c, rc);
}
