/*
 * fabricx calibrate: fits the time model's alpha and bus bandwidth to
 * measured collective times (nccl-tests, rccl-tests, or a CSV) and writes
 * them as a spec overlay; the computation is calib/calib.c's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../calib/calib.h"
#include "cli.h"

static const fx_opt cal_opts[] = {
	{"from", "FILE", "measurements: nccl-tests or rccl-tests output, or a CSV "
	 "pattern,ranks,size_bytes,time_s"},
	{"pattern", "P", "the pattern of an nccl-tests log that does not name its binary "
	 "(default allreduce)"},
	{"ranks", "N", "the ranks of an nccl-tests log without '#  Rank' lines; and the group "
	 "the overlay takes (default: the most ranks the fabric holds)"},
	{"overlay", "FILE.yaml", "write the fitted values as a spec overlay (YAML; its header "
	 "gives the same as --set options)"},
	{NULL, NULL, NULL},
};

static int fits_table(fx_cli *c, const fx_calib_fit *fits, size_t nfit)
{
	static const fx_col cols[] = {
		{"pattern", "pattern", FX_F_TEXT}, {"ranks", "ranks", FX_F_INT},
		{"points", "sizes", FX_F_INT}, {"rounds", "rounds R", FX_F_NUM},
		{"bus_factor", "bus factor F", FX_F_NUM}, {"alpha_s", "alpha", FX_F_SECONDS},
		{"bandwidth_Bps", "bus bandwidth B", FX_F_BPS},
		{"rms_residual", "rms residual", FX_F_FRACTION}, {NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("fits", "Fits: time = R x alpha + F x size / B (least "
				     "squares, relative)", cols);
	for (size_t i = 0; i < nfit; i++) {
		fx_table_cell(t, "%s", fits[i].pattern);
		fx_table_int(t, fits[i].ranks);
		fx_table_int(t, (int64_t)fits[i].n);
		fx_table_num(t, fits[i].rounds);
		fx_table_num(t, fits[i].factor);
		fx_table_num(t, fits[i].alpha);
		if (isfinite(fits[i].bandwidth))
			fx_table_num(t, fits[i].bandwidth);
		else
			fx_table_null(t, "no size term");
		fx_table_num(t, fits[i].rms);
	}
	return fx_cli_table(c, t);
}

static int residuals_table(fx_cli *c, const fx_calib_fit *fits, size_t nfit)
{
	static const fx_col cols[] = {
		{"pattern", "pattern", FX_F_TEXT}, {"ranks", "ranks", FX_F_INT},
		{"size_bytes", "size", FX_F_BYTES}, {"measured_s", "measured", FX_F_SECONDS},
		{"fitted_s", "fitted", FX_F_SECONDS}, {"residual", "fitted/measured - 1", FX_F_NUM},
		{NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("residuals", "Residuals per size", cols);
	for (size_t i = 0; i < nfit; i++)
		for (size_t k = 0; k < fits[i].n; k++) {
			fx_table_cell(t, "%s", fits[i].pattern);
			fx_table_int(t, fits[i].ranks);
			fx_table_num(t, fits[i].pt[k]->size);
			fx_table_num(t, fits[i].pt[k]->time);
			fx_table_num(t, fits[i].model[k]);
			fx_table_num(t, fits[i].model[k] / fits[i].pt[k]->time - 1);
		}
	return fx_cli_table(c, t);
}

/* The spec's fabric.link.bandwidth, bytes/s, or 0. */
static double spec_link_bw(fx_cli *c)
{
	const fx_snode *fab = fx_snode_get(c->design.spec.root, "fabric");
	const fx_snode *link = fab ? fx_snode_get(fab, "link") : NULL;
	double bw = 0;
	if (link && link->kind == FX_SNODE_MAP)
		(void)fx_spec_qty_opt(&c->d, link, "bandwidth", FX_UNIT_BANDWIDTH, 0, 0, &bw);
	return bw;
}

static int calibrate_run(fx_cli *c)
{
	int rc = 0;
	const char *from = fx_cli_opt(c, "from"), *overlay = fx_cli_opt(c, "overlay");
	int64_t ranks = 0;
	if (!from)
		rc = fx_diag_error(&c->d, NULL, "calibrate: --from FILE is required (see --help)");
	if (rc == 0 && fx_cli_opt(c, "ranks"))
		rc = fx_cli_int(c, "--ranks", fx_cli_opt(c, "ranks"), 2, INT32_MAX, &ranks);
	if (rc == 0)
		rc = fx_cli_load(c);
	fx_meas_set ms = {0};
	fx_calib_fit *fits = NULL;
	size_t nfit = 0;
	if (rc == 0)
		rc = fx_meas_read(from, fx_cli_opt(c, "pattern"), ranks, &ms, &c->d);
	if (rc == 0)
		rc = fx_calib_fit_all(&ms, &fits, &nfit, &c->d);
	if (rc == 0) {
		/* the overlay's group: --ranks, else the most ranks the fabric holds */
		const fx_calib_fit *pick = NULL;
		for (size_t i = 0; i < nfit; i++) {
			if (ranks ? fits[i].ranks == ranks :
			    fits[i].ranks <= c->design.fab.ndev && (!pick || fits[i].ranks > pick->ranks))
				pick = &fits[i];
		}
		if (!pick && ranks)
			rc = fx_diag_error(&c->d, NULL, "calibrate: --ranks %lld: no fit over %lld ranks in "
					   "'%s'", (long long)ranks, (long long)ranks, from);
		if (!pick)
			pick = &fits[0];
		fx_router *r = fx_router_new(&c->design.fab, 0);
		double bw = 0;
		char why[160];
		if (rc == 0)
			rc = fx_calib_overlay(&c->design.fab, r, pick, spec_link_bw(c), c->spec_path, from,
					      overlay, &bw, why, sizeof why, &c->d);
		fx_router_free(r);
		if (rc == 0) {
			fx_cli_begin(c);
			fx_table *t = fx_record_new("calibration", "Calibration", NULL);
			fx_record_text(t, "from", "file", "%s", from);
			fx_record_text(t, "format", "format", "%s", ms.format);
			fx_record_int(t, "measurements", "measurements", (int64_t)ms.n);
			fx_record_text(t, "pattern", "overlay: pattern", "%s", pick->pattern);
			fx_record_int(t, "ranks", "overlay: ranks", pick->ranks);
			fx_record_num(t, "alpha_s", "collective.overhead (alpha)", FX_F_SECONDS, pick->alpha);
			if (bw > 0)
				fx_record_num(t, "link_bandwidth_Bps", "fabric.link.bandwidth", FX_F_BPS, bw);
			else
				fx_record_null(t, "link_bandwidth_Bps", "fabric.link.bandwidth", FX_F_BPS, why);
			if (overlay)
				fx_record_text(t, "overlay", "overlay written", "%s", overlay);
			else
				fx_record_null(t, "overlay", "overlay written", FX_F_TEXT, "- (--overlay FILE)");
			rc |= fx_cli_table(c, t);
			rc |= fits_table(c, fits, nfit);
			rc |= residuals_table(c, fits, nfit);
			fx_cli_end(c);
		}
	}
	fx_calib_fits_free(fits, nfit);
	fx_meas_release(&ms);
	return rc;
}

const fx_command fx_command_calibrate = {
	.name = "calibrate",
	.summary = "fit alpha and bus bandwidth to nccl-tests runs, as a spec overlay",
	.usage = "calibrate SPEC --from FILE [--pattern P] [--ranks N] "
		  "[--overlay FILE.yaml] [--json]",
	.opts = cal_opts,
	.run = calibrate_run,
};
