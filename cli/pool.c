/*
 * fabricx pool: memory pooling (the chapter "Supernodes" §6.6): how fast
 * remote memory reads go with a bounded number of transactions in flight
 * (Eq. 6-12: B_usable = min(B_path, u q / L)), whether a read period keeps
 * up, and which node lends how much when tasks exceed their node's memory.
 * Defaults are the chapter's example: a 50 GB/s ConnectX-7 path, L = 7.52
 * us (twice the 3.76 us one-way InfiniBand latency), q = 256 B, u = 128,
 * 20 GB read; tasks of 100, 60, 40 and 40 GB on 80 GB nodes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../access/access.h"
#include "../core/units.h"
#include "../core/xalloc.h"
#include "../plot/plot.h"
#include "cli.h"

static const fx_opt opts[] = {
	{"path", "BW", "path bandwidth (default 50 GB/s)"},
	{"latency", "T", "issue to completion of one read (default 7.52 us)"},
	{"txn", "SIZE", "bytes one read transaction returns (default 256 B)"},
	{"inflight", "U", "transactions in flight at most (default 128)"},
	{"bytes", "SIZE", "remote data read (default 20 GB)"},
	{"period", "T", "one full read every T (default: once)"},
	{"tasks", "LIST", "memory each node's task needs, e.g. 100GB,60GB,40GB,40GB (the default)"},
	{"node-memory", "SIZE", "memory per node (default: workload.accelerator.hbm, else 80 GB)"},
	{"plot", "FILE", "draw usable bandwidth against transactions in flight (.svg or .png)"},
	{NULL, NULL, NULL},
};

static int reads(fx_cli *c, double path, double lat, double q, double u, double bytes,
		 double period)
{
	fx_pool_read r;
	fx_pool_read_model(path, lat, q, u, bytes, period, &r);
	fx_table *t = fx_record_new("pool_read", "Remote reads (book §6.6.2, Eq. 6-12)", "read");
	fx_record_num(t, "path_Bps", "path bandwidth", FX_F_BPS, path);
	fx_record_num(t, "latency_s", "latency L", FX_F_SECONDS, lat);
	fx_record_num(t, "transaction_bytes", "transaction size q", FX_F_BYTES, q);
	fx_record_num(t, "inflight", "transactions in flight u", FX_F_NUM, u);
	fx_record_num(t, "window_Bps", "in-flight window u q / L", FX_F_BPS, r.window);
	fx_record_num(t, "usable_Bps", "usable bandwidth", FX_F_BPS, r.usable);
	fx_record_text(t, "bound_by", "bound by", "%s", r.window < path ? "inflight" : "path");
	fx_record_num(t, "inflight_to_fill", "transactions in flight to fill the path", FX_F_NUM,
		      r.inflight_to_fill);
	fx_record_num(t, "bytes", "one full read, bytes", FX_F_BYTES, bytes);
	fx_record_num(t, "read_s", "one full read, time", FX_F_SECONDS, r.read_time);
	if (period > 0) {
		fx_record_num(t, "period_s", "a read every", FX_F_SECONDS, period);
		fx_record_num(t, "demand_Bps", "demand", FX_F_BPS, r.demand);
		/* negative: the read is longer than the period by that much */
		fx_record_num(t, "idle_s", "idle between reads (negative: backlog)", FX_F_SECONDS, r.idle);
		fx_record_bool(t, "backlog", "the backlog grows", r.backlog);
	}
	return fx_cli_table(c, t);
}

/* "100GB,60GB,..." into need[] (at most cap); the count, or -1. */
static int64_t tasks(fx_cli *c, const char *list, double *need, int64_t cap)
{
	if (fx_cli_list_check(c, "--tasks", list))
		return -1;
	char *s = fx_xstrdup(list), *save = NULL;
	int64_t n = 0;
	for (char *w = strtok_r(s, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (n == cap || fx_cli_qty(c, "--tasks", w, FX_UNIT_SIZE, &need[n])) {
			if (n == cap)
				fx_diag_error(&c->d, NULL, "--tasks: at most %lld tasks", (long long)cap);
			free(s);
			return -1;
		}
		n++;
	}
	free(s);
	if (n == 0)
		return fx_diag_error(&c->d, NULL, "--tasks: no task in '%s'", list);
	return n;
}

static int borrowing(fx_cli *c, const double *need, int64_t n, double cap)
{
	fx_loan loan[256];
	int64_t k = fx_pool_borrow(need, n, cap, loan, 256);
	char b[3][32];
	if (k < 0) {
		double total = 0;
		for (int64_t i = 0; i < n; i++)
			total += need[i];
		return fx_diag_infeasible(&c->d, "the tasks need %s in all, more than the %lld nodes' %s: "
					  "borrowing moves memory, it adds none",
					  fx_unit_format(total, FX_UNIT_SIZE, b[0], sizeof b[0]), (long long)n,
					  fx_unit_format(cap * (double)n, FX_UNIT_SIZE, b[1], sizeof b[1]));
	}
	double *used = fx_xmalloc((size_t)n * sizeof *used);
	for (int64_t i = 0; i < n; i++)
		used[i] = need[i] < cap ? need[i] : cap;
	static const fx_col lcols[] = {
		{"lender", "lender node", FX_F_INT}, {"borrower", "borrower node", FX_F_INT},
		{"bytes", "bytes", FX_F_BYTES}, {NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("pool_loans", "Borrowing plan (book §6.6.1)", lcols);
	fx_table_json_key(t, "loans");
	for (int64_t i = 0; i < k && i < 256; i++) {
		used[loan[i].lender] += loan[i].bytes;
		fx_table_int(t, loan[i].lender);
		fx_table_int(t, loan[i].borrower);
		fx_table_num(t, loan[i].bytes);
	}
	int rc = fx_cli_table(c, t);
	static const fx_col ncols[] = {
		{"node", "node", FX_F_INT}, {"need_bytes", "task needs", FX_F_BYTES},
		{"held_bytes", "held", FX_F_BYTES}, {"idle_bytes", "idle", FX_F_BYTES},
		{NULL, NULL, 0},
	};
	t = fx_table_typed("pool_nodes", "Memory per node after borrowing", ncols);
	fx_table_json_key(t, "node_memory");  /* "nodes" is a count everywhere */
	for (int64_t i = 0; i < n; i++) {
		fx_table_int(t, i);
		fx_table_num(t, need[i]);
		fx_table_num(t, used[i]);
		fx_table_num(t, cap - used[i]);
	}
	free(used);
	return rc | fx_cli_table(c, t);
}

/* Eq. 6-12 as a curve: u q / L rising until the path caps it. */
static int plot(fx_cli *c, double path, double lat, double q, const char *file)
{
	enum { NP = 16 };  /* u = 1 .. 32768 */
	double u[NP], use[NP], win[NP], cap[NP];
	for (int i = 0; i < NP; i++) {
		fx_pool_read r;
		u[i] = (double)(1 << i);
		fx_pool_read_model(path, lat, q, u[i], 0, 0, &r);
		use[i] = r.usable / 1e9;
		win[i] = r.window / 1e9;
		cap[i] = path / 1e9;
	}
	fx_plot_series s[3] = {{"usable: min(path, u q / L)", u, use, NP, 0, NULL, NULL}, {"in-flight window u q / L", u, win, NP, 0, NULL, NULL},
			       {"path", u, cap, NP, 0, NULL, NULL}};
	fx_plot_panel p = {"bandwidth (GB/s)", 1, s, 3};
	char title[160], err[256], b1[32], b2[32];
	snprintf(title, sizeof title, "Remote reads (Eq. 6-12): q = %s, L = %s",
		 fx_unit_format(q, FX_UNIT_SIZE, b1, sizeof b1), fx_unit_format(lat, FX_UNIT_TIME, b2, sizeof b2));
	fx_plot pl = {title, "transactions in flight u", 1, NULL, &p, 1, 0};
	if (fx_plot_draw(&pl, file, err, sizeof err))
		return fx_diag_error(&c->d, NULL, "--plot: %s", err);
	return 0;
}

static int pool_run(fx_cli *c)
{
	int rc = fx_cli_load(c);
	double path = 50e9, lat = 7.52e-6, q = 256, u = 128, bytes = 20e9, period = 0;
	double node = c->design.accel.hbm > 0 ? c->design.accel.hbm : 80e9;
	double need[256] = {100e9, 60e9, 40e9, 40e9};
	int64_t n = 4;
	if (rc == 0) {
		rc |= fx_cli_qty_opt(c, "path", FX_UNIT_BANDWIDTH, &path);
		rc |= fx_cli_qty_opt(c, "latency", FX_UNIT_TIME, &lat);
		rc |= fx_cli_qty_opt(c, "txn", FX_UNIT_SIZE, &q);
		rc |= fx_cli_qty_opt(c, "bytes", FX_UNIT_SIZE, &bytes);
		rc |= fx_cli_qty_opt(c, "period", FX_UNIT_TIME, &period);
		rc |= fx_cli_qty_opt(c, "node-memory", FX_UNIT_SIZE, &node);
		rc |= fx_cli_count_opt(c, "inflight", 1, INT64_C(1) << 40, &u);
		const char *v;
		if ((v = fx_cli_opt(c, "tasks")) && (n = tasks(c, v, need, 256)) < 0)
			rc = -1;
	}
	if (rc == 0)
		rc = fx_cli_outdir_asked(c);
	if (rc == 0) {
		fx_cli_begin(c);
		rc = reads(c, path, lat, q, u, bytes, period);
		if (rc == 0)
			rc = borrowing(c, need, n, node);
		if (rc == 0 && fx_cli_opt(c, "plot"))
			rc = plot(c, path, lat, q, fx_cli_opt(c, "plot"));
		fx_cli_end(c);
	}
	return rc;
}

const fx_command fx_command_pool = {
	.name = "pool",
	.summary = "memory pooling: remote read bandwidth (Eq. 6-12) and borrowing",
	.usage = "pool SPEC [--path BW] [--inflight U] [--period T] [--tasks LIST] [--json]",
	.opts = opts,
	.run = pool_run,
};
