/*
 * fabricx bom: the options of the bill of materials report
 * (fx_report_bom, report/bom.c), and the floor and racks pictures drawn
 * from the same bill.
 */
#include "../bom/bom.h"
#include "cli.h"
#include "render.h"
#include "report.h"

static const fx_opt opts[] = {
	{"csv", "FILE", "write the parts table (raw numbers) to FILE"},
	{NULL, NULL, NULL},
};

static int bom_run(fx_cli *c)
{
	int rc = fx_cli_load(c);
	if (rc == 0)
		rc = fx_cli_outdir_asked(c);
	if (rc == 0) {
		fx_cli_begin(c);
		rc = fx_report_bom(&c->design, fx_cli_opt(c, "csv"), fx_cli_sink(c), &c->d);
		fx_cli_end(c);
	}
	return rc;
}

const fx_command fx_command_bom = {
	.name = "bom",
	.summary = "bill of materials: links, cables, optics, switches, racks, cost",
	.usage = "bom SPEC [--csv FILE] [--json] [--out DIR]",
	.opts = opts,
	.run = bom_run,
};

int fx_bom_floor_picture(fx_cli *c, int view, const char *format, const char *path, fx_render_info *info)
{
	fx_bom_config bc;
	fx_bom b = {0};
	int rc = fx_bom_parse(&c->d, &c->design.spec, &bc);
	if (rc == 0)
		rc = fx_bom_build(&bc, &c->design.power, &c->design.fab, &b, &c->d);
	if (rc == 0 && view == FX_VIEW_RACKS)
		rc = fx_render_racks(&b, &c->design.fab, c->design.fab.name, format, path, info, &c->d);
	else if (rc == 0)
		rc = fx_render_floor(&b, c->design.fab.name, format, path, info, &c->d);
	fx_bom_release(&b);
	return rc;
}
