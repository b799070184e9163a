/*
 * fabricx transport: the connection state a NIC keeps and the time to set
 * up every connection, for per-pair reliable connections (RoCE RC), UB's
 * endpoint + channel and a cache-coherent directory (the chapter
 * "Supernodes" §6.5.5, Figs 6-40 and 6-41).  Hosts default to the spec's
 * CPUs (CloudMatrix384: 192 Kunpeng hosts), else its nodes.
 */
#include <math.h>
#include <string.h>

#include "../access/access.h"
#include "../core/units.h"
#include "../plot/plot.h"
#include "cli.h"

static const fx_opt opts[] = {
	{"hosts", "H", "hosts in the interconnect (default: the spec's CPUs, else its nodes)"},
	{"endpoints", "A", "application endpoints per host (default 8)"},
	{"cache", "SIZE", "the NIC's on-chip cache for connection state (default 256 KiB)"},
	{"lines", "W", "cache lines a coherence directory tracks (default 1048576)"},
	{"syscall", "T", "one system call (default 5 us)"},
	{"rtt", "T", "one out-of-band round trip (default 500 us)"},
	{"cores", "N", "cores the setup is parallelised over (default 32)"},
	{"local", "N", "local endpoints to connect (default 1024)"},
	{"remote", "M", "remote endpoints to connect (default 1024)"},
	{"plot", "FILE", "draw the state and setup curves against hosts (.svg or .png; Figs 6-40, 6-41)"},
	{NULL, NULL, NULL},
};

typedef double (*state_fn)(const fx_transport *, double);

static int report(fx_cli *c, const fx_transport *t, double hosts, double n, double m)
{
	static const struct { const char *name, *key; state_fn f; } schemes[] = {
		{"per-pair connections (RoCE RC)", "per_pair", fx_transport_pair_state},
		{"endpoint + channel (UB)", "ub", fx_transport_ub_state},
		{"coherence directory (NVLink-style)", "directory", fx_transport_directory_state},
	};
	char b1[32], b2[32];
	fx_table *tb = fx_table_new("transport_state", "Connection state per NIC (book §6.5.5)",
				    (const char *[]){"scheme", "state", "of the cache", "hosts the cache holds", NULL});
	if (c->json) {
		fx_json_num(&c->js, "hosts", hosts);
		fx_json_num(&c->js, "endpoints", t->endpoints);
		fx_json_num(&c->js, "cache_bytes", t->cache);
		fx_json_obj_begin(&c->js, "state");
	}
	for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++) {
		double s = schemes[i].f(t, hosts), fit = fx_transport_hosts_in_cache(t, schemes[i].f);
		fx_table_cell(tb, "%s", schemes[i].name);
		fx_table_cell(tb, "%s", fx_unit_format(s, FX_UNIT_SIZE, b1, sizeof b1));
		fx_table_cell(tb, "%.3gx", s / t->cache);
		fx_table_cell(tb, "%.0f", fit);
		if (c->json) {
			fx_json_obj_begin(&c->js, schemes[i].key);
			fx_json_num(&c->js, "state_bytes", s);
			fx_json_num(&c->js, "hosts_in_cache", fit);
			fx_json_obj_end(&c->js);
		}
	}
	if (c->json)
		fx_json_obj_end(&c->js);
	int rc = fx_cli_table(c, tb);

	double ps = fx_transport_pair_setup(t, n, m), us = fx_transport_ub_setup(t, n, m);
	tb = fx_table_new("transport_setup", "Connection setup (book §6.5.5)",
			  (const char *[]){"scheme", "objects", "serial", "parallel", NULL});
	fx_table_cell(tb, "per-pair connections");
	fx_table_cell(tb, "%.0f connections", n * m);
	fx_table_cell(tb, "%s", fx_unit_format(ps, FX_UNIT_TIME, b1, sizeof b1));
	fx_table_cell(tb, "%s on %.0f cores", fx_unit_format(ps / t->cores, FX_UNIT_TIME, b2, sizeof b2), t->cores);
	fx_table_cell(tb, "endpoint + channel");
	fx_table_cell(tb, "%.0f objects", n + m);
	fx_table_cell(tb, "%s", fx_unit_format(us, FX_UNIT_TIME, b1, sizeof b1));
	fx_table_cell(tb, "%s on %.0f cores", fx_unit_format(us / t->cores, FX_UNIT_TIME, b2, sizeof b2), t->cores);
	rc |= fx_cli_table(c, tb);
	if (c->json) {
		fx_json_obj_begin(&c->js, "setup");
		fx_json_num(&c->js, "local", n);
		fx_json_num(&c->js, "remote", m);
		fx_json_num(&c->js, "cores", t->cores);
		fx_json_num(&c->js, "per_pair_connections", n * m);
		fx_json_num(&c->js, "per_pair_serial_s", ps);
		fx_json_num(&c->js, "per_pair_parallel_s", ps / t->cores);
		fx_json_num(&c->js, "ub_objects", n + m);
		fx_json_num(&c->js, "ub_serial_s", us);
		fx_json_num(&c->js, "ub_parallel_s", us / t->cores);
		fx_json_obj_end(&c->js);
	}

	/* the curves of Figs 6-40 and 6-41, for plotting */
	tb = fx_table_new("transport_curve", "State per NIC and setup time against hosts H (N = M = H)",
			  (const char *[]){"H", "per-pair", "UB", "directory", "per-pair setup",
					   "UB setup", NULL});
	if (c->json)
		fx_json_arr_begin(&c->js, "curve");
	for (double h = 2; h <= 4096; h *= 2) {
		double s[3] = {fx_transport_pair_state(t, h), fx_transport_ub_state(t, h),
			       fx_transport_directory_state(t, h)};
		double su[2] = {fx_transport_pair_setup(t, h, h) / t->cores,
				fx_transport_ub_setup(t, h, h) / t->cores};
		fx_table_cell(tb, "%.0f", h);
		for (int k = 0; k < 3; k++)
			fx_table_cell(tb, "%s", fx_unit_format(s[k], FX_UNIT_SIZE, b1, sizeof b1));
		for (int k = 0; k < 2; k++)
			fx_table_cell(tb, "%s", fx_unit_format(su[k], FX_UNIT_TIME, b1, sizeof b1));
		if (c->json) {
			fx_json_obj_begin(&c->js, NULL);
			fx_json_num(&c->js, "hosts", h);
			fx_json_num(&c->js, "per_pair_bytes", s[0]);
			fx_json_num(&c->js, "ub_bytes", s[1]);
			fx_json_num(&c->js, "directory_bytes", s[2]);
			fx_json_num(&c->js, "per_pair_setup_parallel_s", su[0]);
			fx_json_num(&c->js, "ub_setup_parallel_s", su[1]);
			fx_json_obj_end(&c->js);
		}
	}
	if (c->json)
		fx_json_arr_end(&c->js);
	return rc | fx_cli_table(c, tb);
}

/* Figs 6-40 and 6-41: state per NIC and parallel setup time against H. */
static int plot(fx_cli *c, const fx_transport *t, const char *path)
{
	enum { NP = 12 };  /* H = 2 .. 4096 */
	double h[NP], st[4][NP], su[2][NP];
	for (int i = 0; i < NP; i++) {
		h[i] = (double)(2 << i);
		st[0][i] = fx_transport_pair_state(t, h[i]) / 1024;
		st[1][i] = fx_transport_ub_state(t, h[i]) / 1024;
		st[2][i] = fx_transport_directory_state(t, h[i]) / 1024;
		st[3][i] = t->cache / 1024;
		su[0][i] = fx_transport_pair_setup(t, h[i], h[i]) / t->cores * 1e3;
		su[1][i] = fx_transport_ub_setup(t, h[i], h[i]) / t->cores * 1e3;
	}
	fx_plot_series a[4] = {{"per-pair (RC)", h, st[0], NP}, {"endpoint + channel (UB)", h, st[1], NP},
			       {"coherence directory", h, st[2], NP}, {"NIC cache", h, st[3], NP}};
	fx_plot_series b[2] = {{"per-pair (RC)", h, su[0], NP}, {"endpoint + channel (UB)", h, su[1], NP}};
	char ylab[64];
	snprintf(ylab, sizeof ylab, "setup on %.0f cores, N = M = H (ms)", t->cores);
	fx_plot_panel p[2] = {{"state per NIC (KiB)", 1, a, 4}, {ylab, 1, b, 2}};
	char title[128], err[256];
	snprintf(title, sizeof title, "Connection state and setup against hosts (A = %.0f endpoints)",
		 t->endpoints);
	fx_plot pl = {title, "hosts H", 1, NULL, p, 2};
	if (fx_plot_draw(&pl, path, err, sizeof err))
		return fx_diag_error(&c->d, NULL, "--plot: %s", err);
	return 0;
}

int fx_cmd_transport(int argc, char **argv)
{
	fx_cli c;
	int rc = fx_cli_parse(&c, "transport", "transport SPEC [--hosts H] [--endpoints A] [--cache SIZE] [--json]",
			      opts, argc, argv);
	if (rc)
		return fx_cli_finish(&c, rc > 0 ? 0 : -1);
	rc = fx_cli_load(&c);
	fx_transport t;
	fx_transport_defaults(&t);
	double hosts = 0, n = 1024, m = 1024;
	if (rc == 0) {
		hosts = (double)(c.design.fab.ncpu > 0 ? c.design.fab.ncpu : c.design.fab.nnodes);
		rc |= fx_cli_count_opt(&c, "hosts", 1, INT64_C(1) << 40, &hosts);
		rc |= fx_cli_count_opt(&c, "endpoints", 1, INT64_C(1) << 40, &t.endpoints);
		rc |= fx_cli_count_opt(&c, "lines", 1, INT64_C(1) << 40, &t.lines);
		rc |= fx_cli_count_opt(&c, "cores", 1, INT64_C(1) << 40, &t.cores);
		rc |= fx_cli_count_opt(&c, "local", 1, INT64_C(1) << 40, &n);
		rc |= fx_cli_count_opt(&c, "remote", 1, INT64_C(1) << 40, &m);
		rc |= fx_cli_qty_opt(&c, "cache", FX_UNIT_SIZE, &t.cache);
		rc |= fx_cli_qty_opt(&c, "syscall", FX_UNIT_TIME, &t.syscall);
		rc |= fx_cli_qty_opt(&c, "rtt", FX_UNIT_TIME, &t.rtt);
		if (rc == 0 && hosts < 1)
			rc = fx_diag_error(&c.d, NULL, "%s: no hosts (the spec has no CPUs or nodes; give --hosts)",
					   c.spec_path);
	}
	if (rc == 0)
		rc = fx_cli_outdir_asked(&c);
	if (rc == 0) {
		fx_cli_begin(&c);
		rc = report(&c, &t, hosts, n, m);
		if (rc == 0 && fx_cli_opt(&c, "plot"))
			rc = plot(&c, &t, fx_cli_opt(&c, "plot"));
		fx_cli_end(&c);
	}
	return fx_cli_finish(&c, rc);
}
