/*
 * fabricx compare SPEC[@KEY=VALUE,...] ...: supernode builds side by side,
 * each evaluated as it would be built under a power cap (cli/compare_eval.c):
 * devices, switches, links, diameter, bisection per device, collectives
 * with the fastest algorithm for each fabric, kW, racks and cooling.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>

#include "../core/units.h"
#include "../core/xalloc.h"
#include "compare.h"

static const char *const usage_text =
	"usage: fabricx compare SPEC[@KEY=VALUE,...] ... [--power-cap P]\n"
	"                       [--pattern P --size SIZE]... [--algo A]... [--sort [-]COLUMN]\n"
	"                       [--bom FIELD,...] [--json] [--csv FILE] [--out DIR]\n"
	"                       [--set KEY=VALUE]...\n\n"
	"One row per build.  Under --power-cap each build is shrunk in whole increments\n"
	"of its kind (docs/spec.md §6d) and every column is computed on the smaller\n"
	"fabric: devices, switches, links, diameter, bisection per device, one column\n"
	"per collective (default: allreduce 10 KiB and all-to-all 32 MiB over all the\n"
	"build's devices, each with the fastest algorithm the registry has for the\n"
	"fabric, named in the cell; --algo fixes one, once for all or once per\n"
	"--pattern), kW, racks, cooling and what limits the build.\n\n"
	"--bom adds bill-of-materials columns, read from the bom report of each build\n"
	"as compared (fabricx bom; docs/output.md): cost_usd, cost_per_bisection_GBps_usd,\n"
	"power_per_bisection_GBps_W, cables, modules (transceivers), fibres, switch_chips,\n"
	"switch_boxes, cable_length_m, ...; --sort takes them too.\n\n"
	"SPEC@KEY=VALUE,KEY=VALUE is the spec with those --set overrides, so variants\n"
	"of one spec sit side by side; commas inside [], {} or quotes stay with their\n"
	"value (specs/torus-8x8x8.yaml@fabric.dims=[8,8,4]).  --set applies to every\n"
	"spec.  --sort orders rows by a column (its header or CSV name; '-' for\n"
	"descending; n/a last).  Files only when asked: --csv FILE, or --out DIR for\n"
	"DIR/compare/compare.csv (raw numbers).  Exit status: 0 ok, 1 internal, 2 bad input, 3 a cap\n"
	"powers nothing of some build.\n";

typedef struct cmp_args {
	const char *specs[FX_CMP_MAX_SPECS];
	int nspec;
	const char *cap, *csv, *sort, *out_root;
	const char *patterns[FX_CMP_MAX_COLLS], *sizes[FX_CMP_MAX_COLLS], *algos[FX_CMP_MAX_COLLS];
	const char *boms[FX_CMP_MAX_BOM];  /* --bom LISTs, as given */
	int nboms;
	int npat, nsize, nalgo;
	int json;
} cmp_args;

static int parse_args(int argc, char **argv, cmp_args *a, fx_cmp_opts *o, fx_diag *d)
{
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
			fputs(usage_text, stdout);
			return 1;
		}
		if (!strcmp(s, "--json")) {
			a->json = 1;
			continue;
		}
		static const char *const valued[] = {"--power-cap", "--csv", "--set", "--out", "--max-memory",
						     "--pattern", "--size", "--algo", "--sort", "--bom", NULL};
		int k = 0;
		while (valued[k] && strcmp(s, valued[k]))
			k++;
		if (valued[k]) {
			if (i + 1 >= argc)
				return fx_diag_error(d, NULL, "compare: option '%s' needs a value", s);
			const char *v = argv[++i];
			int many = !strcmp(s, "--pattern") || !strcmp(s, "--size") || !strcmp(s, "--algo");
			if (many && (a->npat == FX_CMP_MAX_COLLS || a->nsize == FX_CMP_MAX_COLLS ||
				     a->nalgo == FX_CMP_MAX_COLLS))
				return fx_diag_error(d, NULL, "compare: at most %d collectives", FX_CMP_MAX_COLLS);
			if (!strcmp(s, "--power-cap"))
				a->cap = v;
			else if (!strcmp(s, "--csv") && !*v)
				return fx_diag_error(d, NULL, "compare: option '--csv' needs a file name");
			else if (!strcmp(s, "--csv"))
				a->csv = v;
			else if (!strcmp(s, "--sort"))
				a->sort = v;
			else if (!strcmp(s, "--bom") && a->nboms == FX_CMP_MAX_BOM)
				return fx_diag_error(d, NULL, "compare: at most %d --bom options", FX_CMP_MAX_BOM);
			else if (!strcmp(s, "--bom"))
				a->boms[a->nboms++] = v;
			else if (!strcmp(s, "--pattern"))
				a->patterns[a->npat++] = v;
			else if (!strcmp(s, "--size"))
				a->sizes[a->nsize++] = v;
			else if (!strcmp(s, "--algo"))
				a->algos[a->nalgo++] = v;
			else {
				if (!strcmp(s, "--out") && (!*v || fx_cli_unsafe_dir(v)))
					return fx_diag_error(d, NULL, "compare: option '--out' needs a folder "
							     "of its own, got '%s'", v);
				if (!strcmp(s, "--out"))
					a->out_root = v;
				o->common[o->ncommon++] = (char *)s;
				o->common[o->ncommon++] = (char *)v;
			}
		} else if (s[0] == '-') {
			fx_diag_error(d, NULL, "compare: unknown option '%s' (see --help)", s);
		} else if (a->nspec < FX_CMP_MAX_SPECS) {
			a->specs[a->nspec++] = s;
		} else {
			return fx_diag_error(d, NULL, "compare: at most %d specs", FX_CMP_MAX_SPECS);
		}
	}
	if (d->nerr == 0 && a->nspec < 1)
		fx_diag_error(d, NULL, "compare: give one or more specs (see --help)");
	return d->nerr ? -1 : 0;
}

/* A quantity option through the CLI's parser, for its wording. */
static int qty(fx_diag *d, const char *opt, const char *text, fx_unit_kind k, double *out)
{
	fx_cli *q = fx_xcalloc(1, sizeof *q);
	q->d = *d;
	int rc = fx_cli_qty(q, opt, text, k, out);
	*d = q->d;
	free(q);
	return rc;
}

/* The collective columns: --pattern/--size pairs (default allreduce 10 KiB
 * and all-to-all 32 MiB), --algo once for all or once per pattern. */
static int collectives(const cmp_args *a, fx_cmp_opts *o, fx_diag *d)
{
	static const char *const dp[] = {"allreduce", "all-to-all"}, *const ds[] = {"10 KiB", "32 MiB"};
	int n = a->npat ? a->npat : 2;
	if (a->npat != a->nsize && (a->npat || a->nsize))
		return fx_diag_error(d, NULL, "compare: give one --size for each --pattern (%d patterns, "
				     "%d sizes)", a->npat, a->nsize);
	if (a->nalgo > 1 && a->nalgo != n)
		return fx_diag_error(d, NULL, "compare: give --algo once for every pattern or once for "
				     "each of the %d patterns, not %d times", n, a->nalgo);
	for (int i = 0; i < n; i++) {
		fx_cmp_coll *k = &o->coll[i];
		k->pattern = a->npat ? a->patterns[i] : dp[i];
		k->algo = a->nalgo ? a->algos[a->nalgo > 1 ? i : 0] : NULL;
		if (!fx_coll_find(k->pattern, NULL))
			return fx_diag_error(d, NULL, "compare: unknown pattern '%s' (see fabricx collective "
					     "--list)", k->pattern);
		if (k->algo && !fx_coll_find(k->pattern, k->algo))
			return fx_diag_error(d, NULL, "compare: '%s' is not an algorithm of '%s' (see "
					     "fabricx collective --list)", k->algo, k->pattern);
		if (qty(d, "--size", a->npat ? a->sizes[i] : ds[i], FX_UNIT_SIZE, &k->size))
			return -1;
		char sz[32], *w, *r;
		fx_unit_format(k->size, FX_UNIT_SIZE, sz, sizeof sz);
		snprintf(k->label, sizeof k->label, "%s %s%s%s", k->pattern, sz, k->algo ? " " : "",
			 k->algo ? k->algo : "");
		for (w = r = sz; *r; r++)  /* "10 KiB" -> "10KiB" for field names */
			if (*r != ' ')
				*w++ = *r;
		*w = '\0';
		snprintf(k->key, sizeof k->key, "%s_%s", k->pattern, sz);
		for (w = k->key; *w; w++)
			if (*w == '-')
				*w = '_';
	}
	o->ncoll = n;
	return 0;
}

/* Adds the bom column `name` unless it is there; 0, or -1 when no bom
 * field has that name. */
static int add_bom(fx_cmp_opts *o, const char *name, const char *opt, fx_diag *d)
{
	const fx_cmp_bom *b = fx_cmp_bom_find(name);
	if (!b)
		return fx_diag_error(d, NULL, "compare: %s: no bill-of-materials field '%s' (one of: %s)", opt,
				     name, fx_cmp_bom_names());
	for (int i = 0; i < o->nbom; i++)
		if (o->bom[i] == b)
			return 0;
	if (o->nbom == FX_CMP_MAX_BOM)
		return fx_diag_error(d, NULL, "compare: at most %d bom columns", FX_CMP_MAX_BOM);
	o->bom[o->nbom++] = b;
	return 0;
}

/* --bom LIST...: comma-separated field names, in the order given; a
 * --sort on a bom field adds its column. */
static int bom_columns(const cmp_args *a, fx_cmp_opts *o, fx_diag *d)
{
	for (int i = 0; i < a->nboms; i++) {
		char buf[512];
		snprintf(buf, sizeof buf, "%s", a->boms[i]);
		int n = 0;
		for (char *save = NULL, *f = strtok_r(buf, ", ", &save); f; f = strtok_r(NULL, ", ", &save), n++)
			if (add_bom(o, f, "--bom", d))
				return -1;
		if (!n)
			return fx_diag_error(d, NULL, "compare: --bom needs field names (one of: %s)",
					     fx_cmp_bom_names());
	}
	const char *k = a->sort ? a->sort + (a->sort[0] == '-') : NULL;
	if (k && fx_cmp_bom_find(k))
		return add_bom(o, k, "--sort", d);
	return 0;
}

/* ---- sorting ---- */

static const char *const fixed_cols[][2] = {
	{"build", "name"}, {"kind", "kind"}, {"devices", "devices"}, {"switches", "switches"},
	{"links", "links"}, {"diameter", "diameter_hops"}, {"bisection/device", "bisection_per_device_Bps"},
	{"power", "power_W"}, {"racks", "racks"}, {"cooling", "cooling"}, {"limited by", "limited_by"},
};
#define NFIXED (int)(sizeof fixed_cols / sizeof fixed_cols[0])

static int sort_col, sort_desc;   /* for row_cmp */

/* Column c of row r as a number (NAN: n/a) or, for text columns, NULL. */
static double num_of(const fx_cmp_row *r, int c, const char **text)
{
	*text = NULL;
	switch (c) {
	case 0: *text = r->name; return 0;
	case 1: *text = r->kind; return 0;
	case 2: return (double)r->devices;
	case 3: return r->built ? (double)r->switches : NAN;
	case 4: return r->built ? (double)r->links : NAN;
	case 5: return r->built && r->diameter >= 0 ? (double)r->diameter : NAN;
	case 6: return r->built ? r->bis_per_dev : NAN;
	case 7: return r->watts;
	case 8: return r->built ? (double)r->racks : NAN;
	case 9: *text = r->cooling; return 0;
	case 10: *text = r->limited; return 0;
	default: return c - NFIXED < FX_CMP_MAX_COLLS ? r->t_s[c - NFIXED] : r->bom[c - NFIXED - FX_CMP_MAX_COLLS];
	}
}

static int row_cmp(const void *pa, const void *pb)
{
	const fx_cmp_row *a = pa, *b = pb;
	const char *ta, *tb;
	double x = num_of(a, sort_col, &ta), y = num_of(b, sort_col, &tb);
	int s;
	if (ta)
		s = strcmp(ta, tb);
	else if (isnan(x) || isnan(y))
		return isnan(x) - isnan(y);  /* n/a last either way */
	else
		s = (x > y) - (x < y);
	return sort_desc ? -s : s;
}

static int sort_rows(fx_cmp_row *rows, int n, const char *key, const fx_cmp_opts *o, fx_diag *d)
{
	sort_desc = key[0] == '-';
	key += sort_desc;
	sort_col = -1;
	for (int c = 0; c < NFIXED && sort_col < 0; c++)
		if (!strcasecmp(key, fixed_cols[c][0]) || !strcasecmp(key, fixed_cols[c][1]))
			sort_col = c;
	for (int i = 0; i < o->ncoll && sort_col < 0; i++)
		if (!strcasecmp(key, o->coll[i].label) || !strcasecmp(key, o->coll[i].key) ||
		    (!strncasecmp(key, o->coll[i].key, strlen(o->coll[i].key)) &&
		     !strcasecmp(key + strlen(o->coll[i].key), "_s")))
			sort_col = NFIXED + i;
	for (int i = 0; i < o->nbom && sort_col < 0; i++)
		if (!strcasecmp(key, o->bom[i]->field) || !strcasecmp(key, o->bom[i]->label))
			sort_col = NFIXED + FX_CMP_MAX_COLLS + i;
	if (sort_col < 0)
		return fx_diag_error(d, NULL, "--sort: no column '%s' (a header such as 'kW' or "
				     "'allreduce 10 KiB', or a CSV name such as 'power_W' or a --bom field)", key);
	/* insertion sort: stable, and a handful of rows */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && row_cmp(&rows[j - 1], &rows[j]) > 0; j--) {
			fx_cmp_row t = rows[j];
			rows[j] = rows[j - 1];
			rows[j - 1] = t;
		}
	return 0;
}

/* ---- output ---- */

/* The builds, once: text, CSV and JSON are written from this table. */
static fx_table *builds_table(const fx_cmp_row *rows, int n, const fx_cmp_opts *o, const char *title)
{
	fx_table *t = fx_table_typed("compare", title, (const fx_col[]){
		{"name", "build", FX_F_TEXT}, {"kind", "kind", FX_F_TEXT},
		{"devices", "devices", FX_F_INT}, {"devices_in_spec", "of", FX_F_INT},
		{"switches", "switches", FX_F_INT}, {"links", "links", FX_F_INT},
		{"diameter_hops", "diameter", FX_F_INT},
		{"bisection_per_device_Bps", "bisection/device", FX_F_BPS}, {NULL, NULL, 0}});
	fx_table_json_key(t, "builds");
	char f[80], l[96];
	for (int i = 0; i < o->ncoll; i++) {
		snprintf(f, sizeof f, "%s_s", o->coll[i].key);
		fx_table_add_col(t, f, o->coll[i].label, FX_F_SECONDS);
		snprintf(f, sizeof f, "%s_algo", o->coll[i].key);
		snprintf(l, sizeof l, "%s", o->coll[i].algo ? "algorithm" : "fastest");
		fx_table_add_col(t, f, l, FX_F_TEXT);
	}
	static const fx_col tail[] = {
		{"power_W", "power", FX_F_WATTS}, {"racks", "racks", FX_F_INT},
		{"compute_racks", "compute", FX_F_INT}, {"network_racks", "network", FX_F_INT},
		{"liquid_racks", "liquid", FX_F_INT}, {"cooling", "cooling", FX_F_TEXT},
		{"limited_by", "limited by", FX_F_TEXT}, {"built_with", "built with", FX_F_TEXT},
		{NULL, NULL, 0},
	};
	for (int c = 0; tail[c].field; c++)
		fx_table_add_col(t, tail[c].field, tail[c].label, tail[c].kind);
	for (int i = 0; i < o->nbom; i++)
		fx_table_add_col(t, o->bom[i]->field, o->bom[i]->label, (fx_field_kind)o->bom[i]->kind);
	for (int i = 0; i < n; i++) {
		const fx_cmp_row *r = &rows[i];
		if (!r->ok)
			continue;
		int b = r->built;
		fx_table_cell(t, "%s", r->name);
		fx_table_cell(t, "%s", r->kind);
		fx_table_int(t, r->devices);
		fx_table_int(t, r->spec_devices);
		if (b) {
			fx_table_int(t, r->switches);
			fx_table_int(t, r->links);
			if (r->diameter >= 0)
				fx_table_int(t, r->diameter);
			else
				fx_table_null(t, "n/a");
		} else {
			for (int c = 0; c < 3; c++)
				fx_table_null(t, "n/a");
		}
		if (b && !isnan(r->bis_per_dev))
			fx_table_num(t, r->bis_per_dev);
		else
			fx_table_null(t, "n/a");
		for (int c = 0; c < o->ncoll; c++) {
			if (isnan(r->t_s[c]))
				fx_table_null(t, "n/a");
			else
				fx_table_num(t, r->t_s[c]);
			if (r->algo[c][0])
				fx_table_cell(t, "%s", r->algo[c]);
			else
				fx_table_null(t, "-");
		}
		if (isnan(r->watts))
			fx_table_null(t, "n/a");
		else
			fx_table_num(t, r->watts);
		if (b) {
			fx_table_int(t, r->racks);
			fx_table_int(t, r->compute_racks);
			fx_table_int(t, r->network_racks);
		} else {
			for (int c = 0; c < 3; c++)
				fx_table_null(t, "n/a");
		}
		if (b && r->power) {
			fx_table_int(t, r->liquid);
			fx_table_cell(t, "%s", r->cooling);
		} else {
			fx_table_null(t, "n/a");
			fx_table_null(t, "n/a");
		}
		fx_table_cell(t, "%s", r->limited);
		if (r->built_as[0])
			fx_table_cell(t, "%s", r->built_as);
		else
			fx_table_null(t, "-");
		for (int c = 0; c < o->nbom; c++) {
			if (isnan(r->bom[c]))
				fx_table_null(t, "n/a");
			else if (o->bom[c]->kind == FX_F_INT)
				fx_table_int(t, (long long)r->bom[c]);
			else
				fx_table_num(t, r->bom[c]);
		}
	}
	return t;
}

static void print_json(const fx_table *t, const fx_cmp_opts *o)
{
	fx_json j;
	fx_json_init(&j, stdout);
	fx_json_obj_begin(&j, NULL);
	if (o->have_cap)
		fx_json_num(&j, "power_cap_W", o->cap);
	else
		fx_json_null(&j, "power_cap_W");
	fx_table_write_json(t, &j);
	fx_json_obj_end(&j);
}

/* --json seen anywhere, also after the error that stopped parsing */
static int json_asked(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--json"))
			return 1;
	return 0;
}

static int compare_main(int argc, char **argv)
{
	cmp_args a = {.out_root = NULL};  /* files only when asked: --out, --csv */
	fx_cmp_opts o = {0};
	char *common[FX_CLI_MAX_SETS * 2 + 4];
	o.common = common;
	fx_diag d;
	fx_diag_init(&d);
	int rc = argc > 2 * FX_CLI_MAX_SETS ? fx_diag_error(&d, NULL, "compare: too many arguments "
							    "(at most %d: specs, options and --set)",
							    2 * FX_CLI_MAX_SETS)
		 : parse_args(argc, argv, &a, &o, &d);
	if (rc == 1) {
		fx_diag_release(&d);
		return 0;
	}
	if (rc == 0 && a.cap && qty(&d, "--power-cap", a.cap, FX_UNIT_POWER, &o.cap) == 0)
		o.have_cap = 1;
	if (d.nerr == 0)
		collectives(&a, &o, &d);
	if (d.nerr == 0)
		bom_columns(&a, &o, &d);
	if (d.nerr) {
		int s = d.status;
		if (a.json || json_asked(argc, argv))
			fx_cli_print_json_error(&d, s);
		fx_diag_release(&d);
		return s;
	}
	fx_cmp_row *rows = fx_xcalloc((size_t)a.nspec, sizeof *rows);
	int status = 0;
	for (int i = 0; i < a.nspec; i++) {
		int s = fx_cmp_evaluate(a.specs[i], &o, &rows[i], &d);
		if (s && (status == 0 || s == FX_EXIT_INPUT))
			status = s;
	}
	if (a.sort && sort_rows(rows, a.nspec, a.sort, &o, &d))
		status = d.status;
	char title[96];
	snprintf(title, sizeof title, "Builds as built under a power cap of %s",
		 a.cap ? a.cap : "(each spec's own budget)");
	fx_table *t = builds_table(rows, a.nspec, &o, title);
	/* bad input or a failure: no JSON and no CSV, as for every command */
	int whole = status != FX_EXIT_INPUT && status != FX_EXIT_INTERNAL;
	if (a.json && whole)
		print_json(t, &o);
	else if (!a.json)
		fx_table_print(t, stdout);
	/* DIR/compare/compare.csv with --out DIR, FILE with --csv FILE: raw numbers */
	char *dir = a.out_root ? fx_xasprintf("%s/compare", a.out_root) : NULL;
	char *mine = dir ? fx_xasprintf("%s/compare.csv", dir) : NULL;
	const char *bad = !whole ? NULL : dir && fx_cli_mkdirs(dir) ? dir
			  : dir && fx_table_write_csv(t, dir) ? mine
			  : a.csv && fx_table_write_csv_file(t, a.csv) ? a.csv : NULL;
	if (bad) {
		fx_diag_error(&d, NULL, "compare: cannot write '%s': %s", bad, strerror(errno));
		status = d.status;
	}
	if (a.json && (!whole || bad))
		fx_cli_print_json_error(&d, status);
	free(dir);
	free(mine);
	fx_table_free(t);
	free(rows);
	fx_diag_release(&d);
	return status;
}

const fx_command fx_command_compare = {
	.name = "compare",
	.summary = "builds side by side under a power cap",
	.main = compare_main,
};
