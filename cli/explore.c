/*
 * fabricx explore: the design report of a fabric — everything fabricx can
 * say about it, section by section.
 */
#include "cli.h"
#include "report.h"

int fx_cmd_explore(int argc, char **argv)
{
	static const fx_opt opts[] = {{NULL, NULL, NULL}};
	fx_cli c;
	int rc = fx_cli_parse(&c, "explore", "explore SPEC [--json] [--set KEY=VALUE]...", opts,
			      argc, argv);
	if (rc)
		return fx_cli_finish(&c, rc > 0 ? 0 : -1);
	rc = fx_cli_load(&c);
	if (rc == 0)
		rc = fx_cli_outdir(&c);
	if (rc == 0) {
		if (c.json) {
			fx_json_init(&c.js, stdout);
			fx_json_obj_begin(&c.js, NULL);
		}
		rc = fx_report_metrics(&c, NULL);
		if (rc == 0)
			rc = fx_report_collectives(&c);
		if (rc == 0) {
			if (c.json)
				fx_json_obj_begin(&c.js, "power");
			rc = fx_report_power(&c, NULL, NULL, NULL);
			if (c.json)
				fx_json_obj_end(&c.js);
		}
		if (rc == 0 && c.work.present) {
			if (c.json)
				fx_json_obj_begin(&c.js, "placement");
			rc = fx_report_place(&c, NULL, 10, &c.power);
			if (c.json)
				fx_json_obj_end(&c.js);
		}
		if (c.json)
			fx_json_obj_end(&c.js);
		else if (rc == 0)
			printf("tables written to %s/\n", c.outdir);
	}
	return fx_cli_finish(&c, rc);
}
