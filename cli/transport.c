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
	fx_table *tb = fx_record_new("transport", "Hosts and NICs", NULL);
	fx_record_num(tb, "hosts", "hosts", FX_F_NUM, hosts);
	fx_record_num(tb, "endpoints", "application endpoints per host", FX_F_NUM, t->endpoints);
	fx_record_num(tb, "cache_bytes", "NIC cache for connection state", FX_F_BYTES, t->cache);
	fx_record_num(tb, "local", "local endpoints to connect", FX_F_NUM, n);
	fx_record_num(tb, "remote", "remote endpoints to connect", FX_F_NUM, m);
	fx_record_num(tb, "cores", "cores the setup runs on", FX_F_NUM, t->cores);
	int rc = fx_cli_table(c, tb);

	static const fx_col scols[] = {
		{"scheme", "key", FX_F_TEXT}, {"name", "scheme", FX_F_TEXT},
		{"state_bytes", "state", FX_F_BYTES}, {"cache_share", "of the cache", FX_F_NUM},
		{"hosts_in_cache", "hosts the cache holds", FX_F_NUM}, {NULL, NULL, 0},
	};
	tb = fx_table_typed("transport_state", "Connection state per NIC (book §6.5.5)", scols);
	fx_table_json_key(tb, "state");
	for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++) {
		double st = schemes[i].f(t, hosts);
		fx_table_cell(tb, "%s", schemes[i].key);
		fx_table_cell(tb, "%s", schemes[i].name);
		fx_table_num(tb, st);
		fx_table_num(tb, st / t->cache);
		fx_table_num(tb, fx_transport_hosts_in_cache(t, schemes[i].f));
	}
	rc |= fx_cli_table(c, tb);

	static const fx_col ucols[] = {
		{"scheme", "key", FX_F_TEXT}, {"objects", "objects to set up", FX_F_NUM},
		{"serial_s", "serial", FX_F_SECONDS}, {"parallel_s", "parallel", FX_F_SECONDS},
		{NULL, NULL, 0},
	};
	double ps = fx_transport_pair_setup(t, n, m), us = fx_transport_ub_setup(t, n, m);
	tb = fx_table_typed("transport_setup", "Connection setup (book §6.5.5): per-pair connections "
			    "(per_pair) against endpoint + channel (ub)", ucols);
	fx_table_json_key(tb, "setup");
	fx_table_cell(tb, "per_pair");
	fx_table_num(tb, n * m);
	fx_table_num(tb, ps);
	fx_table_num(tb, ps / t->cores);
	fx_table_cell(tb, "ub");
	fx_table_num(tb, n + m);
	fx_table_num(tb, us);
	fx_table_num(tb, us / t->cores);
	rc |= fx_cli_table(c, tb);

	/* the curves of Figs 6-40 and 6-41, for plotting */
	static const fx_col ccols[] = {
		{"hosts", "H", FX_F_INT}, {"per_pair_bytes", "per-pair", FX_F_BYTES},
		{"ub_bytes", "UB", FX_F_BYTES}, {"directory_bytes", "directory", FX_F_BYTES},
		{"per_pair_setup_parallel_s", "per-pair setup", FX_F_SECONDS},
		{"ub_setup_parallel_s", "UB setup", FX_F_SECONDS}, {NULL, NULL, 0},
	};
	tb = fx_table_typed("transport_curve", "State per NIC and setup time against hosts H "
			    "(N = M = H)", ccols);
	fx_table_json_key(tb, "curve");
	for (double h = 2; h <= 4096; h *= 2) {
		fx_table_int(tb, (long long)h);
		fx_table_num(tb, fx_transport_pair_state(t, h));
		fx_table_num(tb, fx_transport_ub_state(t, h));
		fx_table_num(tb, fx_transport_directory_state(t, h));
		fx_table_num(tb, fx_transport_pair_setup(t, h, h) / t->cores);
		fx_table_num(tb, fx_transport_ub_setup(t, h, h) / t->cores);
	}
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
	fx_plot_series a[4] = {{"per-pair (RC)", h, st[0], NP, 0, NULL, NULL}, {"endpoint + channel (UB)", h, st[1], NP, 0, NULL, NULL},
			       {"coherence directory", h, st[2], NP, 0, NULL, NULL}, {"NIC cache", h, st[3], NP, 0, NULL, NULL}};
	fx_plot_series b[2] = {{"per-pair (RC)", h, su[0], NP, 0, NULL, NULL}, {"endpoint + channel (UB)", h, su[1], NP, 0, NULL, NULL}};
	char ylab[64];
	snprintf(ylab, sizeof ylab, "setup on %.0f cores, N = M = H (ms)", t->cores);
	fx_plot_panel p[2] = {{"state per NIC (KiB)", 1, a, 4}, {ylab, 1, b, 2}};
	char title[128], err[256];
	snprintf(title, sizeof title, "Connection state and setup against hosts (A = %.0f endpoints)",
		 t->endpoints);
	fx_plot pl = {title, "hosts H", 1, NULL, p, 2, 0};
	if (fx_plot_draw(&pl, path, err, sizeof err))
		return fx_diag_error(&c->d, NULL, "--plot: %s", err);
	return 0;
}

static int transport_run(fx_cli *c)
{
	int rc = fx_cli_load(c);
	fx_transport t;
	fx_transport_defaults(&t);
	double hosts = 0, n = 1024, m = 1024;
	if (rc == 0) {
		hosts = (double)(c->design.fab.ncpu > 0 ? c->design.fab.ncpu : c->design.fab.nnodes);
		rc |= fx_cli_count_opt(c, "hosts", 1, INT64_C(1) << 40, &hosts);
		rc |= fx_cli_count_opt(c, "endpoints", 1, INT64_C(1) << 40, &t.endpoints);
		rc |= fx_cli_count_opt(c, "lines", 1, INT64_C(1) << 40, &t.lines);
		rc |= fx_cli_count_opt(c, "cores", 1, INT64_C(1) << 40, &t.cores);
		rc |= fx_cli_count_opt(c, "local", 1, INT64_C(1) << 40, &n);
		rc |= fx_cli_count_opt(c, "remote", 1, INT64_C(1) << 40, &m);
		rc |= fx_cli_qty_opt(c, "cache", FX_UNIT_SIZE, &t.cache);
		rc |= fx_cli_qty_opt(c, "syscall", FX_UNIT_TIME, &t.syscall);
		rc |= fx_cli_qty_opt(c, "rtt", FX_UNIT_TIME, &t.rtt);
		if (rc == 0 && hosts < 1)
			rc = fx_diag_error(&c->d, NULL, "%s: no hosts (the spec has no CPUs or nodes; give --hosts)",
					   c->spec_path);
	}
	if (rc == 0)
		rc = fx_cli_outdir_asked(c);
	if (rc == 0) {
		fx_cli_begin(c);
		rc = report(c, &t, hosts, n, m);
		if (rc == 0 && fx_cli_opt(c, "plot"))
			rc = plot(c, &t, fx_cli_opt(c, "plot"));
		fx_cli_end(c);
	}
	return rc;
}

const fx_command fx_command_transport = {
	.name = "transport",
	.summary = "connection state per NIC and setup time: RC, UB, coherence",
	.usage = "transport SPEC [--hosts H] [--endpoints A] [--cache SIZE] [--json]",
	.opts = opts,
	.run = transport_run,
};
