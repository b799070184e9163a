/*
 * fabricx reconfigure: is reconnecting a group's links through optical
 * circuit switches worth it (the chapter "Supernodes" §6.5.4)?  The
 * collective runs on the fabric as specified and again with every link's
 * bandwidth scaled by after/before (that many more parallel links); the
 * transfer term
 * (the busiest link's bytes over its bandwidth, summed over rounds) and the
 * whole time are compared, and a reconfiguration taking T pays back after
 * ceil(T / saving) uses.  In the chapter "Supernodes": 8 chips, ring allreduce of 8 MiB, one 50
 * GB/s link then three: 293.6 us to 97.9 us, 195.7 us saved; 1 ms pays
 * back after 6 uses, 100 ms after 511.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/units.h"
#include "../core/xalloc.h"
#include "cli.h"

static const fx_opt opts[] = {
	{"pattern", "P", "the collective (default allreduce)"},
	{"algo", "A", "its algorithm (default: the pattern's)"},
	{"size", "SIZE", "bytes per rank (default 8 MiB)"},
	{"ranks", "N", "the group: the first N devices (default: all)"},
	{"links", "B:A", "parallel links per connection before and after (default 1:3)"},
	{"reconfig", "T", "time one reconfiguration takes (repeatable; default 1 ms and 100 ms)"},
	{NULL, NULL, NULL},
};

/* Runs the collective with the links scaled by k; transfer and total. */
static int run(fx_cli *c, const char *pattern, const char *algo, int64_t n, double size,
	       double k, double *transfer, double *total)
{
	fx_fabric *f = &c->design.fab;
	double *bw = fx_xmalloc((size_t)(f->ne + 1) * sizeof *bw);  /* restored exactly */
	for (int64_t e = 0; e < f->ne; e++) {
		bw[e] = f->e[e].bw;
		f->e[e].bw *= k;
	}
	fx_coll_result res;
	fx_coll_time bare = c->design.coll;  /* no overhead, no latency: the transfer term */
	bare.alpha = 0;
	bare.alpha_replaces_latency = 1;
	int rc = fx_cli_coll_first(c, pattern, algo, n, size, &bare, NULL, &res);
	if (rc == 0) {
		*transfer = res.time;
		fx_coll_result_release(&res);
		rc = fx_cli_coll_first(c, pattern, algo, n, size, NULL, NULL, &res);
		if (rc == 0) {
			*total = res.time;
			fx_coll_result_release(&res);
		}
	}
	for (int64_t e = 0; e < f->ne; e++)
		f->e[e].bw = bw[e];
	free(bw);
	return rc;
}

static int reconfigure_run(fx_cli *c)
{
	int rc = fx_cli_load(c);
	const char *pattern = fx_cli_opt(c, "pattern"), *algo = fx_cli_opt(c, "algo"), *v;
	if (!pattern)
		pattern = "allreduce";
	double size = 8.0 * 1024 * 1024, before = 1, after = 3;
	int64_t n = c->design.have_fab ? c->design.fab.ndev : 0;
	if (rc == 0 && (v = fx_cli_opt(c, "size")))
		rc = fx_cli_qty(c, "--size", v, FX_UNIT_SIZE, &size);
	if (rc == 0 && (v = fx_cli_opt(c, "ranks")))
		rc = fx_cli_int(c, "--ranks", v, 2, c->design.fab.ndev, &n);
	if (rc == 0 && (v = fx_cli_opt(c, "links"))) {
		char *end;
		before = strtod(v, &end);
		int colon = *end == ':';
		if (colon)
			after = strtod(end + 1, &end);
		if (!colon || *end || !(before >= 1 && before <= 1e6) || !(after >= 1 && after <= 1e6))
			rc = fx_diag_error(&c->d, NULL, "--links: '%s' must be BEFORE:AFTER link counts "
					   "from 1, e.g. 1:3", v);
	}
	const char *rv[32];
	int nr = fx_cli_opt_each(c, "reconfig", rv, 32);
	double rt[32] = {1e-3, 100e-3};
	if (nr == 0)
		nr = 2;
	else
		for (int i = 0; i < nr && i < 32 && rc == 0; i++)
			rc = fx_cli_qty(c, "--reconfig", rv[i], FX_UNIT_TIME, &rt[i]);
	if (nr > 32)
		nr = 32;
	if (rc == 0 && n < 2)
		rc = fx_diag_error(&c->d, NULL, "reconfigure: a collective needs two ranks or more");
	double tb = 0, ta = 0, wb = 0, wa = 0;
	if (rc == 0)
		rc = run(c, pattern, algo, n, size, 1, &tb, &wb);
	if (rc == 0)
		rc = run(c, pattern, algo, n, size, after / before, &ta, &wa);
	if (rc == 0)
		rc = fx_cli_outdir_asked(c);
	if (rc == 0) {
		fx_cli_begin(c);
		double save = tb - ta;
		fx_table *t = fx_record_new("reconfigure", "Reconnecting the group's links (book §6.5.4)",
					    NULL);
		fx_record_text(t, "pattern", "pattern", "%s", pattern);
		fx_record_int(t, "ranks", "ranks", n);
		fx_record_num(t, "size_bytes", "size per rank", FX_F_BYTES, size);
		fx_record_num(t, "links_before", "links per connection, before", FX_F_NUM, before);
		fx_record_num(t, "links_after", "links per connection, after", FX_F_NUM, after);
		fx_record_num(t, "transfer_before_s", "transfer term, before", FX_F_SECONDS, tb);
		fx_record_num(t, "transfer_after_s", "transfer term, after", FX_F_SECONDS, ta);
		fx_record_num(t, "saved_s", "saved per use", FX_F_SECONDS, save);
		fx_record_num(t, "time_before_s", "whole collective, before", FX_F_SECONDS, wb);
		fx_record_num(t, "time_after_s", "whole collective, after", FX_F_SECONDS, wa);
		rc = fx_cli_table(c, t);
		static const fx_col cols[] = {
			{"reconfig_s", "reconfiguration", FX_F_SECONDS},
			{"uses", "uses to pay back", FX_F_NUM}, {NULL, NULL, 0},
		};
		t = fx_table_typed("reconfigure_payback", "When a reconfiguration pays back", cols);
		fx_table_json_key(t, "payback");
		for (int i = 0; i < nr; i++) {
			fx_table_num(t, rt[i]);
			if (save > 0)
				fx_table_num(t, ceil(rt[i] / save - 1e-9));
			else
				fx_table_null(t, "never");
		}
		rc |= fx_cli_table(c, t);
		fx_cli_end(c);
	}
	return rc;
}

const fx_command fx_command_reconfigure = {
	.name = "reconfigure",
	.summary = "when reconnecting a group's links pays back (OCS)",
	.usage = "reconfigure SPEC [--pattern P] [--size SIZE] [--ranks N] [--links B:A] [--reconfig T]... [--json]",
	.opts = opts,
	.run = reconfigure_run,
};
