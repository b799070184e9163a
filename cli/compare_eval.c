/*
 * compare: one build evaluated as it would be built.  Under a power cap
 * the fabric's kind shrinks it in whole increments (its builder's shrink
 * hook, fabric/shrink.c), the smaller fabric is built from the spec with
 * the hook's overrides, and every column is computed on it.  Collective
 * columns take the fastest algorithm the registry has for the fabric
 * unless one is fixed.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/xalloc.h"
#include "compare.h"

/* Whether s starts KEY= (a dotted spec path: letters, digits, '_', '-',
 * '.', brackets). */
static int assignment(const char *s)
{
	if (!(isalpha((unsigned char)*s) || *s == '_'))
		return 0;
	/* *s first: strchr finds the terminator itself, and the scan would
	 * run past the end of "…@key" (fuzz/regress-args/crash-variant-key-at-end) */
	while (*s && (isalnum((unsigned char)*s) || strchr("_-.[]", *s)))
		s++;
	return *s == '=';
}

/* The '@' that starts the overrides: the first whose left is a file that
 * exists (a folder may hold '@'), else the first followed by KEY=, else
 * the first after the last '/'.  A value may then hold '/' (100GB/s). */
static char *overrides_at(char *buf)
{
	struct stat st;
	for (char *p = strchr(buf, '@'); p; p = strchr(p + 1, '@')) {
		*p = '\0';
		int file = stat(buf, &st) == 0 && !S_ISDIR(st.st_mode);
		*p = '@';
		if (file)
			return p;
	}
	for (char *p = strchr(buf, '@'); p; p = strchr(p + 1, '@'))
		if (assignment(p + 1))
			return p;
	char *slash = strrchr(buf, '/');
	return strchr(slash ? slash : buf, '@');
}

int fx_cmp_split(const char *arg, char *buf, size_t len, const char **path, const char **sets,
		 int max_sets)
{
	snprintf(buf, len, "%s", arg);
	*path = buf;
	char *at = overrides_at(buf);
	if (!at)
		return 0;
	*at = '\0';
	int n = 0, depth = 0;
	char quote = 0, *start = at + 1;
	for (char *p = start;; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
			else if (!*p)
				return -1;
			continue;
		}
		if (*p == '"' || *p == '\'')
			quote = *p;
		else if (*p == '[' || *p == '{')
			depth++;
		else if ((*p == ']' || *p == '}') && --depth < 0)
			return -1;
		else if ((*p == ',' && depth == 0) || !*p) {
			int end = !*p;
			if (p == start || n == max_sets || (end && depth))
				return -1;
			*p = '\0';
			sets[n++] = start;
			start = p + 1;
			if (end)
				break;
		}
	}
	return n;
}

/* Loads the spec with the common options (--set, --out, --max-memory:
 * checked here, per spec, with the words fx_cli_parse uses), the variant's
 * and the shrink's overrides.  c is set up as a command's would be, so the
 * rest of compare can use its helpers.  Returns 0 or -1 (reported through
 * c->d); fx_cli_finish releases c either way. */
static int load(fx_cli *c, const char *path, const fx_cmp_opts *o, const char *const *vsets, int nv,
		const fx_shrink *sh)
{
	memset(c, 0, sizeof *c);
	fx_diag_init(&c->d);
	c->cmd = "compare";
	c->spec_path = path;
	c->fault.at = -1;
	c->out_root = "out";
	c->max_mem = fx_fabric_default_limit();
	/* compare takes at most 2 x FX_CLI_MAX_SETS + 4 common arguments, in pairs */
	const char *sets[FX_CLI_MAX_SETS + 2 + FX_CLI_MAX_SETS / 2 + FX_SHRINK_MAX_SETS];
	int n = 0;
	for (int i = 0; i + 1 < o->ncommon; i += 2) {
		const char *opt = o->common[i], *val = o->common[i + 1];
		if (!strcmp(opt, "--set"))
			sets[n++] = val;
		else if (!strcmp(opt, "--max-memory") &&
			 fx_cli_qty(c, "--max-memory", val, FX_UNIT_SIZE, &c->max_mem))
			return -1;
		else if (!strcmp(opt, "--out") && !*val)  /* "" + "/name" would be /name */
			return fx_diag_error(&c->d, NULL, "compare: option '--out' needs a folder, got an "
					     "empty string (use --out . for this folder)");
		else if (!strcmp(opt, "--out"))
			c->out_root = val;
	}
	for (int i = 0; i < nv; i++)
		sets[n++] = vsets[i];
	for (int i = 0; sh && i < sh->nsets; i++)
		sets[n++] = sh->set[i];
	if (n > FX_CLI_MAX_SETS)
		return fx_diag_error(&c->d, NULL, "compare: too many --set options");
	fx_design_limits lim = {.max_memory = c->max_mem};
	return fx_design_load(&c->design, path, sets, (size_t)n, &lim, &c->d);
}

/* One algorithm over every device; NAN when it does not apply here (its
 * reason is not a failure of the comparison, so it is not printed). */
static double coll_time(fx_cli *c, const char *pattern, const char *algo, double size)
{
	int64_t n = c->design.fab.ndev;
	if (n < 2)
		return NAN;
	fx_diag quiet;
	fx_diag_init(&quiet);
	quiet.out = fopen("/dev/null", "w");
	if (!quiet.out)
		quiet.max_shown = 0;
	fx_coll_result res;
	double t = NAN;
	if (fx_cli_coll_first(c, pattern, algo, n, size, NULL, &quiet, &res) == 0) {
		t = res.time;
		fx_coll_result_release(&res);
	}
	if (quiet.out && quiet.out != stderr)
		fclose(quiet.out);
	quiet.out = NULL;
	fx_diag_release(&quiet);
	return t;
}

/* The fixed algorithm, or the fastest of the pattern's algorithms. */
static void coll_cell(fx_cli *c, const fx_cmp_coll *k, double *t_s, char *algo, size_t len)
{
	*t_s = NAN;
	algo[0] = '\0';
	for (size_t i = 0; fx_coll_algos[i]; i++) {
		const fx_coll_algo *a = fx_coll_algos[i];
		if (strcmp(a->pattern, k->pattern) || (k->algo && strcmp(a->name, k->algo)))
			continue;
		double t = coll_time(c, k->pattern, a->name, k->size);
		if (isfinite(t) && !(t >= *t_s)) {  /* ties keep the registry's first */
			*t_s = t;
			snprintf(algo, len, "%s", a->name);
		}
	}
}

/* Every column on the fabric c has built, with its power plan p. */
static void columns(fx_cli *c, const fx_power_plan *p, const fx_cmp_opts *o, fx_cmp_row *r)
{
	fx_hops h;
	fx_cut b;
	r->built = 1;
	r->devices = c->design.fab.ndev;
	r->switches = c->design.fab.nsw;
	r->links = fx_fabric_links(&c->design.fab);
	r->diameter = -1;
	if (fx_route_hops(&c->design.fab, &h, &c->d) == 0) {
		r->diameter = h.diameter;
		fx_hops_release(&h);
	}
	r->bis_per_dev = NAN;
	if (fx_route_bisection(&c->design.fab, &b, &c->d) == 0)
		r->bis_per_dev = b.per_device;
	r->racks = p->racks;
	r->compute_racks = p->compute_racks;
	r->network_racks = p->racks - p->compute_racks;
	for (int64_t k = 0; k < p->racks; k++)
		r->liquid += p->rack[k].liquid;
	r->watts = p->present ? p->parts.total : NAN;
	snprintf(r->cooling, sizeof r->cooling, "%s", !p->present ? "n/a" : r->liquid == 0 ? "air"
		 : r->liquid == r->racks ? "liquid" : "mixed");
	for (int i = 0; i < o->ncoll; i++)
		coll_cell(c, &o->coll[i], &r->t_s[i], r->algo[i], sizeof r->algo[i]);
	fx_cmp_bom_cells(c, o, r);  /* a failure is reported through c->d */
}

/* The plan of a fabric as built: all its nodes, against the cap. */
static int plan_all(fx_cli *c, const fx_cmp_opts *o, fx_power_plan *p)
{
	fx_power_config pc = c->design.power;
	if (o->have_cap)
		pc.budget = o->cap;
	return fx_power_plan_build(&pc, &c->design.fab, c->design.fab.nnodes, p, &c->d);
}

/* The capped build: shrink until the built fabric's own power fits (its
 * switch chips stay when nodes go, so the full fabric's pro-rata plan
 * can be a little optimistic). */
static int capped(fx_cli *full, const char *path, const char *const *vs, int nv, const fx_cmp_opts *o,
		  const fx_power_plan *plan, fx_cmp_row *r, int *status)
{
	int64_t target = plan->max_devices;
	for (;;) {
		fx_shrink sh;
		if (fx_fabric_shrink(&full->design.fab, &full->design.spec, target, &sh)) {
			/* a build the cap asks for that the kind cannot make: bad input,
			 * said with what to add */
			snprintf(r->limited, sizeof r->limited, "%s: %lld devices fit, but %s", plan->limited_by,
				 (long long)target, sh.rule);
			r->devices = target;
			fx_diag_error(&full->d, NULL, "compare: %s: the cap powers %lld devices, but %s",
				      r->name, (long long)target, sh.rule);
			*status = full->d.status;
			return 0;
		}
		if (sh.devices == 0) {
			fx_diag_infeasible(&full->d, "%s: the cap of %.4g kW powers no whole increment (%s)",
					   r->name, o->cap / 1e3, sh.rule);
			*status = full->d.status;
			snprintf(r->limited, sizeof r->limited, "%s: nothing fits", plan->limited_by);
			return 0;
		}
		fx_cli c;
		fx_power_plan p;
		int rc = load(&c, path, o, vs, nv, &sh);
		if (rc && c.d.status == FX_EXIT_INPUT) {
			/* the kind's own increment must build: no row of zeros for it */
			fx_cli_finish(&c, rc);
			r->ok = 0;
			char sets[256] = "";
			for (int i = 0, at = 0; i < sh.nsets; i++)
				at += snprintf(sets + at, sizeof sets - (size_t)at, "%s%s", i ? " " : "", sh.set[i]);
			fx_diag_internal(&full->d, "compare: %s: the %s kind's shrink (%s) gave overrides "
					 "that do not build: %s", r->name, r->kind, sh.rule, sets);
			*status = full->d.status;
			return -1;
		}
		if (rc == 0)
			rc = plan_all(&c, o, &p);
		if (rc == 0 && p.over_budget) {
			fx_power_plan_release(&p);
			fx_cli_finish(&c, 0);
			target = sh.devices - 1;
			continue;
		}
		if (rc == 0) {
			columns(&c, &p, o, r);
			fx_power_plan_release(&p);
			snprintf(r->limited, sizeof r->limited, "%s", plan->limited_by);
			size_t at = 0;
			for (int i = 0; i < sh.nsets; i++)
				at += (size_t)snprintf(r->built_as + at, sizeof r->built_as - at, "%s%s",
						       i ? " " : "", sh.set[i]);
		}
		int s = fx_cli_finish(&c, rc);
		if (s)
			*status = s;
		return rc;
	}
}

int fx_cmp_evaluate(const char *arg, const fx_cmp_opts *o, fx_cmp_row *r, fx_diag *first)
{
	char buf[4096];
	const char *path, *vs[FX_CLI_MAX_SETS / 2];
	memset(r, 0, sizeof *r);
	r->watts = NAN;
	r->bis_per_dev = NAN;
	for (int i = 0; i < FX_CMP_MAX_COLLS; i++)
		r->t_s[i] = NAN;
	for (int i = 0; i < FX_CMP_MAX_BOM; i++)
		r->bom[i] = NAN;
	int nv = fx_cmp_split(arg, buf, sizeof buf, &path, vs, FX_CLI_MAX_SETS / 2);
	if (nv < 0) {
		fx_diag e;
		fx_diag_init(&e);
		fx_diag_error(&e, NULL, "compare: '%s': expected SPEC@KEY=VALUE[,KEY=VALUE...]: at "
			      "most %d overrides, none empty, brackets and quotes closed", arg,
			      FX_CLI_MAX_SETS / 2);
		if (first)
			fx_diag_adopt(first, &e);
		fx_diag_release(&e);
		return FX_EXIT_INPUT;
	}
	fx_cli c;
	fx_power_plan plan;
	int status = 0, rc = load(&c, path, o, vs, nv, NULL);
	if (rc == 0) {
		const char *at = nv > 0 ? arg + strlen(path) : NULL;  /* the '@' split at */
		snprintf(r->name, sizeof r->name, "%s%s", c.design.name, at ? at : "");
		snprintf(r->kind, sizeof r->kind, "%s", c.design.fab.builder->kind);
		r->spec_devices = c.design.fab.ndev;
		r->power = c.design.power.present;
		fx_power_config pc = c.design.power;
		if (o->have_cap && pc.present)
			pc.budget = o->cap;
		rc = fx_power_plan_build(&pc, &c.design.fab, -1, &plan, &c.d);
		if (rc && c.d.status == FX_EXIT_INFEASIBLE) {  /* shown, with what binds */
			r->ok = 1;
			snprintf(r->limited, sizeof r->limited, "nothing fits");
			status = FX_EXIT_INFEASIBLE;
		} else if (rc == 0) {
			r->ok = 1;
			if (plan.max_nodes >= c.design.fab.nnodes || !plan.present) {
				snprintf(r->limited, sizeof r->limited, "%s%s", fx_power_limit_text(&plan),
					 !plan.present && o->have_cap ? "; the cap does not apply" : "");
				fx_power_plan_release(&plan);
				rc = plan_all(&c, o, &plan);
				if (rc == 0)
					columns(&c, &plan, o, r);
			} else {
				rc = capped(&c, path, vs, nv, o, &plan, r, &status);
			}
			fx_power_plan_release(&plan);
		}
	}
	if (first)
		fx_diag_adopt(first, &c.d);
	int s = fx_cli_finish(&c, r->ok && status ? 0 : rc);
	if (!r->ok)
		return s ? s : FX_EXIT_INTERNAL;
	return status ? status : s;
}
