/*
 * fabricx export SPEC --to FORMAT [-o FILE]: the fabric in a peer tool's
 * format (interop/interop.h), what the format loses said on stderr and in
 * the JSON.
 */
#include <errno.h>
#include <string.h>

#include "../core/outfile.h"
#include "../interop/interop.h"
#include "cli.h"

static const fx_opt opts[] = {
	{"to", "FORMAT", "graphml, gml, dot, ns3, simai, booksim, astra-sim, simgrid, simgrid-hosts, smpi, htsim or infragraph"},
	{"output", "FILE", "write here, also -o FILE (default: standard output)"},
	FX_CLI_FAIL_OPT,
	{NULL, NULL, NULL},
};

static int write_to(fx_cli *c, const char *fmt, const char *path, fx_export_info *info)
{
	if (!path)
		return fx_export(&c->design, fmt, stdout, info, &c->d);
	fx_outfile of;
	FILE *out = fx_outfile_open(&of, path);
	if (!out)
		return fx_diag_error(&c->d, NULL, "cannot write '%s': %s", path, strerror(errno));
	int rc = fx_export(&c->design, fmt, out, info, &c->d);
	if (fx_outfile_close(&of, rc == 0) && rc == 0)
		rc = fx_diag_error(&c->d, NULL, "cannot write '%s': %s", path, strerror(errno));
	return rc;
}

static int export_run(fx_cli *c)
{
	int rc = 0;
	const char *fmt = fx_cli_opt(c, "to"), *path = fx_cli_opt(c, "output");
	if (!fmt)
		rc = fx_diag_error(&c->d, NULL, "export needs --to FORMAT (one of %s)", fx_export_names());
	else if (!fx_export_find(fmt))
		rc = fx_diag_error(&c->d, NULL, "--to: unknown format '%s' (expected: %s)", fmt,
				   fx_export_names());
	else if (c->json && !path)
		rc = fx_diag_error(&c->d, NULL, "export --json needs -o FILE: the exported text and the "
				   "JSON object cannot share standard output");
	if (rc == 0)
		rc = fx_cli_load(c);
	fx_export_info info = {0};
	if (rc == 0)
		rc = write_to(c, fmt, path, &info);
	if (rc == 0) {
		for (size_t i = 0; i < info.nlost; i++)
			fprintf(stderr, "fabricx: export %s: not carried: %s\n", fmt, info.lost[i]);
		if (c->json) {
			fx_cli_begin(c);
			fx_json_obj_begin(&c->js, "export");
			fx_json_str(&c->js, "format", fmt);
			fx_json_str(&c->js, "file", path);
			fx_json_int(&c->js, "vertices", info.vertices);
			fx_json_int(&c->js, "edges", info.edges);
			fx_json_arr_begin(&c->js, "lost");
			for (size_t i = 0; i < info.nlost; i++)
				fx_json_str(&c->js, NULL, info.lost[i]);
			fx_json_arr_end(&c->js);
			fx_json_obj_end(&c->js);
			fx_cli_end(c);
		} else if (path) {
			printf("%s: %s written to %s (%lld vertices, %lld edges; %zu things not carried, "
			       "on stderr)\n", c->design.name, fmt, path, (long long)info.vertices,
			       (long long)info.edges, info.nlost);
		}
	}
	fx_export_info_release(&info);
	return rc;
}

const fx_command fx_command_export = {
	.name = "export",
	.summary = "the fabric in a peer tool's format (GraphML, ns-3, SimAI, ...)",
	.usage = "export SPEC --to FORMAT [-o FILE] [--json]",
	.opts = opts,
	.run = export_run,
};
