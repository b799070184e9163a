/*
 * fabricx compare A.yaml B.yaml ...: supernode builds side by side under a
 * power cap — devices the cap allows, switches, links, diameter, bisection
 * per device, allreduce 10 KiB and all-to-all 32 MiB over those devices,
 * kW, racks and cooling.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/units.h"
#include "../core/xalloc.h"
#include "../routing/routing.h"
#include "cli.h"

typedef struct row {
	char name[128], kind[16];
	int64_t devices, all_devices, switches, links, diameter, racks, liquid;
	double bis_per_dev, ar_us, a2a_us, kw;
	char limited[64];
	int ok;
} row;

/* Evaluates one build; its messages go to stderr like any command's. */
static int evaluate(const char *spec, const double *cap, char **common, int ncommon, row *out)
{
	char *argv[FX_CLI_MAX_SETS * 2 + 8];
	int argc = 0;
	argv[argc++] = "compare";
	argv[argc++] = (char *)spec;
	for (int i = 0; i < ncommon; i++)
		argv[argc++] = common[i];
	fx_cli c;
	int rc = fx_cli_parse(&c, "compare", "compare SPEC...", NULL, argc, argv);
	if (rc == 0)
		rc = fx_cli_load(&c);
	fx_power_config pc;
	fx_power_plan p;
	memset(out, 0, sizeof *out);
	if (rc == 0) {
		pc = c.power;
		if (cap)
			pc.budget = *cap;
	}
	if (rc == 0 && fx_power_plan_build(&pc, &c.fab, -1, &p, &c.d) == 0) {
		fx_hops h;
		fx_cut b;
		snprintf(out->name, sizeof out->name, "%s", c.name);
		snprintf(out->kind, sizeof out->kind, "%s", c.fab.builder->kind);
		out->all_devices = c.fab.ndev;
		out->devices = p.max_devices;
		out->switches = c.fab.nsw;
		out->links = fx_fabric_links(&c.fab);
		out->kw = p.parts.total / 1e3;
		out->racks = p.racks;
		for (int64_t r = 0; r < p.racks; r++)
			out->liquid += p.rack[r].liquid;
		snprintf(out->limited, sizeof out->limited, "%s", p.limited_by);
		fx_power_plan_release(&p);
		if (fx_route_hops(&c.fab, &h, &c.d) == 0) {
			out->diameter = h.diameter;
			fx_hops_release(&h);
		}
		if (fx_route_bisection(&c.fab, &b, &c.d) == 0)
			out->bis_per_dev = b.per_device;
		int64_t n = out->devices;
		out->ar_us = n > 1 ? fx_cli_coll_time(&c, "allreduce", "ring", n, 10 * 1024.0) * 1e6 : 0;
		out->a2a_us = n > 1 ? fx_cli_coll_time(&c, "all-to-all", "direct", n, 32 * 1024.0 * 1024) * 1e6 : 0;
		out->ok = c.d.nerr == 0;
	}
	int status = fx_cli_finish(&c, rc);
	return out->ok ? 0 : (status ? status : FX_EXIT_INTERNAL);
}

static const char *const cols[] = {"build", "kind", "devices", "switches", "links", "diameter",
				   "bisection/device", "allreduce 10 KiB", "all-to-all 32 MiB",
				   "kW", "racks", "cooling", "limited by", NULL};

int fx_cmd_compare(int argc, char **argv)
{
	const char *specs[64], *cap = NULL, *csv = NULL, *out_root = "out";
	char *common[FX_CLI_MAX_SETS * 2 + 4];
	int nspec = 0, ncommon = 0, json = 0;
	fx_diag d;
	fx_diag_init(&d);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			printf("usage: fabricx compare SPEC SPEC... [--power-cap P] [--json] [--csv FILE] "
			       "[--set KEY=VALUE]...\n\n"
			       "One row per build: devices within the cap, switches, links, diameter,\n"
			       "bisection per device, ring allreduce of 10 KiB and direct all-to-all of\n"
			       "32 MiB over those devices, kW, racks, cooling, and what limits the build.\n"
			       "--set applies to every spec.  Exit status: 0 ok, 1 internal, 2 bad input.\n");
			return 0;
		}
		if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--power-cap") || !strcmp(a, "--csv") || !strcmp(a, "--set") ||
			   !strcmp(a, "--out") || !strcmp(a, "--max-memory")) {
			if (i + 1 >= argc) {
				fx_diag_error(&d, NULL, "compare: option '%s' needs a value", a);
				break;
			}
			if (!strcmp(a, "--power-cap"))
				cap = argv[++i];
			else if (!strcmp(a, "--csv"))
				csv = argv[++i];
			else if (ncommon + 2 > (int)(sizeof common / sizeof common[0])) {
				fx_diag_error(&d, NULL, "compare: too many --set, --out and --max-memory "
					      "options (at most %d --set)", FX_CLI_MAX_SETS);
				break;
			} else {
				if (!strcmp(a, "--out"))
					out_root = argv[i + 1];
				common[ncommon++] = argv[i];
				common[ncommon++] = argv[++i];
			}
		} else if (a[0] == '-') {
			fx_diag_error(&d, NULL, "compare: unknown option '%s' (see --help)", a);
		} else if (nspec < 64) {
			specs[nspec++] = a;
		} else {  /* refused, not dropped */
			fx_diag_error(&d, NULL, "compare: at most 64 specs, got '%s' as the 65th", a);
			break;
		}
	}
	if (d.nerr == 0 && nspec < 1)
		fx_diag_error(&d, NULL, "compare: give one or more specs (see --help)");
	/* the cap once, not once per spec */
	double capw = 0;
	if (d.nerr == 0 && cap) {
		fx_cli *q = fx_xcalloc(1, sizeof *q);
		q->d = d;
		fx_cli_qty(q, "--power-cap", cap, FX_UNIT_POWER, &capw);
		d = q->d;
		free(q);
	}
	if (d.nerr) {
		int s = d.status;
		fx_diag_release(&d);
		return s;
	}
	row *rows = fx_xcalloc((size_t)nspec, sizeof *rows);
	int status = 0;
	for (int i = 0; i < nspec; i++) {
		int s = evaluate(specs[i], cap ? &capw : NULL, common, ncommon, &rows[i]);
		if (s && (status == 0 || s == FX_EXIT_INPUT))
			status = s;
	}
	char title[96];
	snprintf(title, sizeof title, "Builds under a power cap of %s", cap ? cap : "(each spec's own budget)");
	fx_table *t = fx_table_new("compare", title, cols);
	char b1[32];
	for (int i = 0; i < nspec; i++) {
		row *r = &rows[i];
		if (!r->ok)
			continue;
		fx_table_cell(t, "%s", r->name);
		fx_table_cell(t, "%s", r->kind);
		fx_table_cell(t, "%lld of %lld", (long long)r->devices, (long long)r->all_devices);
		fx_table_cell(t, "%lld", (long long)r->switches);
		fx_table_cell(t, "%lld", (long long)r->links);
		fx_table_cell(t, "%lld", (long long)r->diameter);
		fx_table_cell(t, "%s", fx_unit_format(r->bis_per_dev, FX_UNIT_BANDWIDTH, b1, sizeof b1));
		fx_table_cell(t, "%.2f us", r->ar_us);
		fx_table_cell(t, "%.1f us", r->a2a_us);
		fx_table_cell(t, "%.4g", r->kw);
		fx_table_cell(t, "%lld", (long long)r->racks);
		fx_table_cell(t, "%s", r->liquid == 0 ? "air" : r->liquid == r->racks ? "liquid" : "mixed");
		fx_table_cell(t, "%s", r->limited);
	}
	if (json && status == 0) {  /* a failed compare prints no JSON, as every command */
		fx_json j;
		fx_json_init(&j, stdout);
		fx_json_obj_begin(&j, NULL);
		if (cap)
			fx_json_str(&j, "power_cap", cap);
		else
			fx_json_null(&j, "power_cap");
		fx_json_arr_begin(&j, "builds");
		for (int i = 0; i < nspec; i++) {
			row *r = &rows[i];
			if (!r->ok)
				continue;
			fx_json_obj_begin(&j, NULL);
			fx_json_str(&j, "name", r->name);
			fx_json_str(&j, "kind", r->kind);
			fx_json_int(&j, "devices", r->devices);
			fx_json_int(&j, "devices_in_build", r->all_devices);
			fx_json_int(&j, "switches", r->switches);
			fx_json_int(&j, "links", r->links);
			fx_json_int(&j, "diameter_hops", r->diameter);
			fx_json_num(&j, "bisection_per_device_GBps", r->bis_per_dev / 1e9);
			fx_json_num(&j, "allreduce_10KiB_us", r->ar_us);
			fx_json_num(&j, "alltoall_32MiB_us", r->a2a_us);
			fx_json_num(&j, "power_kW", r->kw);
			fx_json_int(&j, "racks", r->racks);
			fx_json_int(&j, "liquid_racks", r->liquid);
			fx_json_str(&j, "limited_by", r->limited);
			fx_json_obj_end(&j);
		}
		fx_json_arr_end(&j);
		fx_json_obj_end(&j);
	} else if (!json) {
		fx_table_print(t, stdout);
	}
	/* out/compare/compare.csv, and --csv FILE if asked */
	char *dir = fx_xasprintf("%s/compare", out_root), *mine = fx_xasprintf("%s/compare.csv", dir);
	const char *bad = status ? NULL : fx_cli_mkdirs(dir) ? dir : fx_table_write_csv(t, dir) ? mine
			  : csv && fx_table_write_csv_file(t, csv) ? csv : NULL;
	if (bad) {
		fx_diag_error(&d, NULL, "compare: cannot write '%s': %s", bad, strerror(errno));
		status = d.status;
	}
	free(mine);
	free(dir);
	fx_table_free(t);
	free(rows);
	fx_diag_release(&d);
	return status;
}
