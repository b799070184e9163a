/*
 * fabricx import FILE --from FORMAT -o SPEC.yaml: a peer tool's file as a
 * spec (interop/interop.h): the torus, mesh, fat-tree or NVSwitch domain
 * proven isomorphic to the file's graph, else `custom`; loaded back by
 * fabricx before it is written; what the file did not give is listed as
 * assumed.
 */
#include <errno.h>
#include <string.h>

#include "../core/outfile.h"
#include "../interop/interop.h"
#include "cli.h"

static const fx_opt opts[] = {
	{"from", "FORMAT", "graphml, gml, ns3, simai, booksim, simgrid, nccl-topo or nvidia-smi"},
	{"output", "FILE", "write the spec here, also -o FILE (default: standard output)"},
	{"name", "NAME", "the spec's name (default: FILE's base name)"},
	{"bandwidth", "BW", "per link and direction, where the file gives none (default 25 GB/s, assumed)"},
	{"latency", "T", "per hop, where the file gives none (default 200 ns, assumed)"},
	{NULL, NULL, NULL},
};

/* FILE's base name without its extension, cut to the name rule's
 * characters; "imported" when nothing is left. */
static void default_name(const char *path, char *buf, size_t cap)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	size_t n = 0;
	for (; *b && *b != '.' && n + 1 < cap && n < 60; b++)
		if ((*b >= 'a' && *b <= 'z') || (*b >= 'A' && *b <= 'Z') || (*b >= '0' && *b <= '9') ||
		    *b == '-' || *b == '_')
			buf[n++] = *b;
	buf[n] = '\0';
	if (!n)
		snprintf(buf, cap, "imported");
}

static int import_run(fx_cli *c)
{
	int rc = 0;
	const char *fmt = fx_cli_opt(c, "from"), *path = fx_cli_opt(c, "output");
	fx_import_opts io = {.bandwidth = 25e9, .latency = 200e-9};
	char name[72];
	if (!c->spec_path)
		rc = fx_diag_error(&c->d, NULL, "import needs the FILE to read");
	else if (!fmt)
		rc = fx_diag_error(&c->d, NULL, "import needs --from FORMAT (one of %s)", fx_import_names());
	else if (c->json && !path)
		rc = fx_diag_error(&c->d, NULL, "import --json needs -o FILE: the spec and the JSON object "
				   "cannot share standard output");
	if (rc == 0) {
		rc |= fx_cli_qty_opt(c, "bandwidth", FX_UNIT_BANDWIDTH, &io.bandwidth);
		rc |= fx_cli_qty_opt(c, "latency", FX_UNIT_TIME, &io.latency);
		if (fx_cli_opt(c, "name"))
			snprintf(name, sizeof name, "%s", fx_cli_opt(c, "name"));
		else
			default_name(c->spec_path, name, sizeof name);
	}
	fx_import_info info = {0};
	if (rc == 0) {
		if (!path) {
			rc = fx_import(c->spec_path, fmt, name, &io, stdout, &info, &c->d);
		} else {
			fx_outfile of;
			FILE *out = fx_outfile_open(&of, path);
			if (!out) {
				rc = fx_diag_error(&c->d, NULL, "cannot write '%s': %s", path, strerror(errno));
			} else {
				rc = fx_import(c->spec_path, fmt, name, &io, out, &info, &c->d);
				if (fx_outfile_close(&of, rc == 0) && rc == 0)
					rc = fx_diag_error(&c->d, NULL, "cannot write '%s': %s", path, strerror(errno));
			}
		}
	}
	if (rc == 0) {
		for (size_t i = 0; i < info.nassumed; i++)
			fprintf(stderr, "fabricx: import %s: %s\n", fmt, info.assumed[i]);
		for (size_t i = 0; i < info.nlost; i++)
			fprintf(stderr, "fabricx: import %s: not carried: %s\n", fmt, info.lost[i]);
		if (c->json) {
			fx_json_init(&c->js, stdout);
			fx_json_obj_begin(&c->js, NULL);
			fx_json_obj_begin(&c->js, "import");
			fx_json_str(&c->js, "format", fmt);
			fx_json_str(&c->js, "file", c->spec_path);
			fx_json_str(&c->js, "spec", path);
			fx_json_str(&c->js, "name", name);
			fx_json_int(&c->js, "devices", info.devices);
			fx_json_int(&c->js, "switches", info.switches);
			fx_json_int(&c->js, "cpus", info.cpus);
			fx_json_int(&c->js, "links", info.links);
			if (info.kind)
				fx_json_str(&c->js, "recognised_kind", info.kind);
			else
				fx_json_null(&c->js, "recognised_kind");
			fx_json_str(&c->js, "recognition", info.recognition ? info.recognition : "");
			fx_json_arr_begin(&c->js, "assumed");
			for (size_t i = 0; i < info.nassumed; i++)
				fx_json_str(&c->js, NULL, info.assumed[i]);
			fx_json_arr_end(&c->js);
			fx_json_arr_begin(&c->js, "lost");
			for (size_t i = 0; i < info.nlost; i++)
				fx_json_str(&c->js, NULL, info.lost[i]);
			fx_json_arr_end(&c->js);
			fx_json_obj_end(&c->js);
			fx_json_obj_end(&c->js);
			fputc('\n', stdout);
		} else if (path) {
			printf("%s: %s spec written to %s (%lld devices, %lld switches, %lld CPUs, %lld links; "
			       "%zu assumptions, on stderr)\n", c->spec_path, name, path, (long long)info.devices,
			       (long long)info.switches, (long long)info.cpus, (long long)info.links,
			       info.nassumed);
		}
		if (!c->json && info.recognition)
			fprintf(stderr, "fabricx: import %s: %s: %s\n", fmt, info.kind ? info.kind : "custom",
				info.recognition);
	}
	fx_import_info_release(&info);
	return rc;
}

const fx_command fx_command_import = {
	.name = "import",
	.summary = "a peer tool's file (GraphML, GML, ns-3, SimAI, BookSim) as a spec",
	.usage = "import FILE --from FORMAT [-o SPEC.yaml] [--json]",
	.opts = opts,
	.run = import_run,
};
