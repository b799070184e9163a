/*
 * The interference-aware placement of several jobs: a GLPK MILP that
 * keeps jobs off each other's nodes (placement.h gives the model).
 *
 * Why nodes: a node's links out (NPU to L1, L1 to L2 on a UB fabric, a
 * server's NICs) are what two jobs in one node share; jobs in nodes of
 * their own meet at most in switches past the nodes, whose links are
 * the jobs' own on a non-blocking tier.  fx_jobs_run then measures what
 * is left, so the placement is judged by the loads, not by this proxy.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/xalloc.h"
#include "../solver/solver.h"
#include "placement.h"

/* Job x node pairs past which the model is "not decided" (exit 4). */
#define JOBS_PLACE_MAX_PAIRS 200000

/* Each live device's unit (its node, or itself where nodes are not
 * given) into unit[], compacted; returns the units. */
static int64_t units_of(const fx_fabric *f, int64_t *unit)
{
	int by_node = 1;
	for (int64_t v = 0; v < f->ndev; v++)
		by_node &= f->v[v].node >= 0;
	int64_t n = 0;
	int64_t *map = fx_xmalloc((size_t)(f->ndev ? f->ndev : 1) * sizeof *map);
	for (int64_t v = 0; v < f->ndev; v++)
		map[v] = -1;
	for (int64_t v = 0; v < f->ndev; v++) {
		int64_t key = by_node ? f->v[v].node : v;
		if (key >= f->ndev)  /* never: nodes hold a device each at least */
			key = f->ndev - 1;
		if (map[key] < 0)
			map[key] = n++;
		unit[v] = f->vdown && f->vdown[v] ? -1 : map[key];
	}
	free(map);
	return n;
}

int fx_jobs_place(const fx_fabric *f, fx_job *jobs, size_t n, double time_limit,
		  fx_jobs_place_info *info, fx_diag *d)
{
	if (!f || !fx_fabric_built(f) || (n && !jobs) || !info)
		return fx_diag_error(d, NULL, "fx_jobs_place: no %s", !info ? "result" : jobs ? "fabric"
				     : "jobs");
	memset(info, 0, sizeof *info);
	int64_t *unit = fx_xmalloc((size_t)(f->ndev ? f->ndev : 1) * sizeof *unit);
	int64_t nu = units_of(f, unit);
	int64_t *capu = fx_xcalloc((size_t)(nu ? nu : 1), sizeof *capu);
	int64_t live = 0, need = 0;
	for (int64_t v = 0; v < f->ndev; v++)
		if (unit[v] >= 0) {
			capu[unit[v]]++;
			live++;
		}
	for (size_t j = 0; j < n; j++)
		need += fx_job_devices(&jobs[j]);
	int rc = 0;
	if (need > live)
		rc = fx_diag_infeasible(d, "the jobs need %lld devices in all and the fabric has %lld "
					"live", (long long)need, (long long)live);
	else if ((double)n * (double)nu > JOBS_PLACE_MAX_PAIRS)
		rc = fx_diag_undecided(d, "%zu jobs x %lld nodes = %.3g pairs, past the placement's "
				       "limit of %d", n, (long long)nu, (double)n * (double)nu,
				       JOBS_PLACE_MAX_PAIRS);
	if (rc) {
		free(unit);
		free(capu);
		return -1;
	}
	fx_lp *lp = fx_lp_new("jobs", 0);
	size_t pairs = n * (size_t)nu;
	int *x = fx_xmalloc((pairs ? pairs : 1) * sizeof *x), *y = fx_xmalloc((pairs ? pairs : 1) * sizeof *y);
	int *z = fx_xmalloc((size_t)(nu ? nu : 1) * sizeof *z);
	double w = (double)pairs + 1;  /* one shared node outweighs every job x node pair */
	char name[64];
	for (size_t j = 0; j < n; j++)
		for (int64_t u = 0; u < nu; u++) {
			double hi = (double)(capu[u] < fx_job_devices(&jobs[j]) ? capu[u]
									     : fx_job_devices(&jobs[j]));
			snprintf(name, sizeof name, "x_%zu_%lld", j, (long long)u);
			x[j * (size_t)nu + (size_t)u] = fx_lp_col(lp, name, FX_LP_INTEGER, 0, hi, 0);
			snprintf(name, sizeof name, "y_%zu_%lld", j, (long long)u);
			y[j * (size_t)nu + (size_t)u] = fx_lp_col(lp, name, FX_LP_BINARY, 0, 1, 1);
		}
	for (int64_t u = 0; u < nu; u++) {
		snprintf(name, sizeof name, "shared_%lld", (long long)u);
		z[u] = fx_lp_col(lp, name, FX_LP_CONTINUOUS, 0, FX_LP_INF, w);
	}
	size_t room = n + 2;
	int *idx = fx_xmalloc((room > (size_t)nu ? room : (size_t)nu + 2) * sizeof *idx);
	double *val = fx_xmalloc((room > (size_t)nu ? room : (size_t)nu + 2) * sizeof *val);
	for (size_t j = 0; j < n; j++) {  /* every device of a job placed */
		for (int64_t u = 0; u < nu; u++) {
			idx[u] = x[j * (size_t)nu + (size_t)u];
			val[u] = 1;
		}
		double dj = (double)fx_job_devices(&jobs[j]);
		snprintf(name, sizeof name, "devices_%zu", j);
		fx_lp_row(lp, name, dj, dj, (int)nu, idx, val);
	}
	for (int64_t u = 0; u < nu; u++) {
		for (size_t j = 0; j < n; j++) {  /* a node's devices */
			idx[j] = x[j * (size_t)nu + (size_t)u];
			val[j] = 1;
		}
		snprintf(name, sizeof name, "room_%lld", (long long)u);
		fx_lp_row(lp, name, -FX_LP_INF, (double)capu[u], (int)n, idx, val);
		for (size_t j = 0; j < n; j++) {  /* x needs y */
			int k[2] = {x[j * (size_t)nu + (size_t)u], y[j * (size_t)nu + (size_t)u]};
			double v[2] = {1, -(double)capu[u]};
			snprintf(name, sizeof name, "uses_%zu_%lld", j, (long long)u);
			fx_lp_row(lp, name, -FX_LP_INF, 0, 2, k, v);
		}
		for (size_t j = 0; j < n; j++) {  /* shared >= jobs on the node - 1 */
			idx[j] = y[j * (size_t)nu + (size_t)u];
			val[j] = -1;
		}
		idx[n] = z[u];
		val[n] = 1;
		snprintf(name, sizeof name, "sharing_%lld", (long long)u);
		fx_lp_row(lp, name, -1, FX_LP_INF, (int)n + 1, idx, val);
	}
	info->cols = fx_lp_ncols(lp);
	info->rows = fx_lp_nrows(lp);
	fx_lp_opts lo = {time_limit, 0, 0};
	fx_lp_status st = fx_lp_solve(lp, &lo);
	info->status = fx_lp_status_name(st);
	if (st == FX_LP_NO_SOLUTION)
		rc = fx_diag_undecided(d, "the jobs' placement found no solution within %g s", time_limit);
	else if (st != FX_LP_OPTIMAL && st != FX_LP_FEASIBLE)
		rc = fx_diag_error(d, NULL, "the jobs' placement MILP: %s (%s)", fx_lp_status_name(st),
				   fx_lp_last_error());
	if (rc == 0) {
		/* the devices: node by node, each job its count of the node's
		 * free live devices in device order */
		int64_t **dev = fx_xcalloc(n ? n : 1, sizeof *dev);
		int64_t *got = fx_xcalloc(n ? n : 1, sizeof *got);
		for (size_t j = 0; j < n; j++)
			dev[j] = fx_xmalloc((size_t)fx_job_devices(&jobs[j]) * sizeof *dev[j]);
		int64_t *want = fx_xcalloc(n ? n : 1, sizeof *want);
		for (int64_t u = 0; u < nu && rc == 0; u++) {
			int users = 0;
			for (size_t j = 0; j < n; j++) {
				want[j] = (int64_t)llround(fx_lp_value(lp, x[j * (size_t)nu + (size_t)u]));
				users += want[j] > 0;
				info->units_used += want[j] > 0;
			}
			info->shared_units += users > 1;
			size_t j = 0;
			for (int64_t v = 0; v < f->ndev; v++) {
				if (unit[v] != u)
					continue;
				while (j < n && want[j] == 0)
					j++;
				if (j == n)
					break;
				dev[j][got[j]++] = v;
				want[j]--;
			}
		}
		for (size_t j = 0; j < n; j++)
			if (got[j] != fx_job_devices(&jobs[j]))
				rc = fx_diag_error(d, NULL, "the jobs' placement gave job '%s' %lld devices "
						   "of %lld", jobs[j].name, (long long)got[j],
						   (long long)fx_job_devices(&jobs[j]));
		for (size_t j = 0; j < n; j++) {
			if (rc == 0) {
				free(jobs[j].devices);
				jobs[j].devices = dev[j];
			} else {
				free(dev[j]);
			}
		}
		free(dev);
		free(got);
		free(want);
	}
	fx_lp_free(lp);
	free(x);
	free(y);
	free(z);
	free(idx);
	free(val);
	free(unit);
	free(capu);
	return rc;
}
