/*
 * fabricx jobs SPEC: the jobs of `workload.jobs` on the fabric together --
 * each one's communication alone and beside the others (the
 * interference), the links and switch chips they share -- and the
 * interference-aware placement (placement/jobs_place.c) measured the
 * same way.  The computing is placement/'s (fx_jobs_run, fx_jobs_place);
 * this file prints.
 */
#include <string.h>

#include "../core/limits.h"
#include "cli.h"

static const fx_opt opts[] = {
	{"time-limit", "S", "seconds GLPK may search for the placement (default "
	 FX_LIMIT_TEXT(FX_DEFAULT_TIME_LIMIT) ")"},
	{"no-place", NULL, "measure the spec's placement only"},
	FX_CLI_FAIL_OPT,
	{NULL, NULL, NULL},
};

/* Nodes a job's devices span. */
static int64_t nodes_of(const fx_fabric *f, const fx_job *j)
{
	int64_t n = 0;
	for (int64_t i = 0; i < fx_job_devices(j); i++) {
		int32_t node = f->v[j->devices[i]].node;
		int seen = 0;
		for (int64_t k = 0; k < i && !seen; k++)
			seen = node >= 0 && f->v[j->devices[k]].node == node;
		n += !seen;
	}
	return n;
}

/* The shared switches per role, "112 L2" style, into buf. */
static const char *roles_of(const fx_fabric *f, const fx_jobs_result *r, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int ro = -1; ro < f->nroles; ro++) {
		size_t k = 0;
		for (size_t i = 0; i < r->nshared_sw; i++)
			k += f->v[r->shared_sw[i]].role == ro;
		if (k && used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%zu %s", used ? ", " : "", k,
						 ro >= 0 ? f->roles[ro].name : "switch");
	}
	return buf;
}

static void report(fx_cli *c, const char *key, const fx_job *jobs, const fx_jobs_result *r)
{
	const fx_fabric *f = &c->design.fab;
	char buf[256], a[96], b[96];
	if (c->json) {
		fx_json_arr_begin(&c->js, "per_job");
		for (size_t j = 0; j < r->njobs; j++) {
			fx_json_obj_begin(&c->js, NULL);
			fx_json_str(&c->js, "name", jobs[j].name);
			fx_json_int(&c->js, "devices", (long long)fx_job_devices(&jobs[j]));
			fx_json_int(&c->js, "nodes", (long long)nodes_of(f, &jobs[j]));
			fx_json_arr_begin(&c->js, "device_ids");
			for (int64_t i = 0; i < fx_job_devices(&jobs[j]); i++)
				fx_json_int(&c->js, NULL, (long long)jobs[j].devices[i]);
			fx_json_arr_end(&c->js);
			fx_json_num(&c->js, "start_s", jobs[j].start);
			fx_json_int(&c->js, "steps", (long long)r->steps[j]);
			fx_json_num(&c->js, "alone_s", r->alone[j]);
			fx_json_num(&c->js, "together_s", r->together[j]);
			fx_json_num(&c->js, "interference_s", r->together[j] - r->alone[j]);
			fx_json_obj_end(&c->js);
		}
		fx_json_arr_end(&c->js);
		fx_json_int(&c->js, "shared_links", (long long)r->nshared);
		fx_json_int(&c->js, "shared_switches", (long long)r->nshared_sw);
		fx_json_arr_begin(&c->js, "shared_link_loads");
		for (size_t i = 0; i < r->nshared; i++) {
			int64_t l = r->shared[i], e = l / 2;
			fx_json_obj_begin(&c->js, NULL);
			fx_json_str(&c->js, "link_from", fx_fabric_vertex_name(f, f->ends[l % 2 ? 2 * e + 1 : 2 * e],
									 a, sizeof a));
			fx_json_str(&c->js, "link_to", fx_fabric_vertex_name(f, f->ends[l % 2 ? 2 * e : 2 * e + 1],
									 b, sizeof b));
			fx_json_arr_begin(&c->js, "bytes_by_job");
			for (size_t j = 0; j < r->njobs; j++)
				fx_json_num(&c->js, NULL, r->shared_bytes[i * r->njobs + j]);
			fx_json_arr_end(&c->js);
			fx_json_obj_end(&c->js);
		}
		fx_json_arr_end(&c->js);
		fx_json_arr_begin(&c->js, "shared_switch_names");
		for (size_t i = 0; i < r->nshared_sw; i++)
			fx_json_str(&c->js, NULL, fx_fabric_vertex_name(f, r->shared_sw[i], a, sizeof a));
		fx_json_arr_end(&c->js);
		return;
	}
	printf("%s:\n  %-16s %8s %6s %12s %12s %15s\n", key, "job", "devices", "nodes", "alone_us",
	       "together_us", "interference_us");
	for (size_t j = 0; j < r->njobs; j++)
		printf("  %-16s %8lld %6lld %12.3f %12.3f %15.3f\n", jobs[j].name,
		       (long long)fx_job_devices(&jobs[j]), (long long)nodes_of(f, &jobs[j]),
		       r->alone[j] * 1e6, r->together[j] * 1e6, (r->together[j] - r->alone[j]) * 1e6);
	printf("  shared: %zu directed links, %zu switch chips%s%s%s\n", r->nshared, r->nshared_sw,
	       r->nshared_sw ? " (" : "", r->nshared_sw ? roles_of(f, r, buf, sizeof buf) : "",
	       r->nshared_sw ? ")" : "");
	for (size_t i = 0; i < r->nshared && i < 4; i++) {
		int64_t l = r->shared[i], e = l / 2;
		printf("    %s -> %s:", fx_fabric_vertex_name(f, f->ends[l % 2 ? 2 * e + 1 : 2 * e], a, sizeof a),
		       fx_fabric_vertex_name(f, f->ends[l % 2 ? 2 * e : 2 * e + 1], b, sizeof b));
		for (size_t j = 0; j < r->njobs; j++)
			if (r->shared_bytes[i * r->njobs + j] > 0)
				printf(" %s %.6g B", jobs[j].name, r->shared_bytes[i * r->njobs + j]);
		printf("\n");
	}
	if (r->nshared > 4)
		printf("    ... (%zu more; --json lists them all)\n", r->nshared - 4);
}

int fx_cmd_jobs(int argc, char **argv)
{
	fx_cli c;
	int rc = fx_cli_parse(&c, "jobs", "jobs SPEC [--time-limit S] [--no-place] [--json]", opts,
			      argc, argv);
	if (rc)
		return fx_cli_finish(&c, rc > 0 ? 0 : -1);
	double limit = FX_DEFAULT_TIME_LIMIT;
	const char *v;
	if ((v = fx_cli_opt(&c, "time-limit")) && fx_cli_time_limit(&c, v, &limit))
		return fx_cli_finish(&c, -1);
	rc = fx_cli_load(&c);
	fx_design *ds = &c.design;
	if (rc == 0 && !ds->njobs)
		rc = fx_diag_error(&c.d, NULL, "%s gives no 'workload.jobs' (docs/spec.md §6c.2)",
				   c.spec_path);
	fx_job *given = NULL, *placed = NULL;
	fx_jobs_result rg = {0}, rp = {0};
	fx_jobs_place_info info = {0};
	if (rc == 0) {
		given = fx_jobs_dup(ds->jobs, ds->njobs);
		rc = fx_jobs_pack(&ds->fab, given, ds->njobs, &c.d);
	}
	if (rc == 0)
		rc = fx_jobs_run(&ds->fab, given, ds->njobs, &ds->coll, &rg, &c.d);
	int place = rc == 0 && !fx_cli_opt(&c, "no-place");
	if (place) {
		placed = fx_jobs_dup(given, ds->njobs);
		rc = fx_jobs_place(&ds->fab, placed, ds->njobs, limit, &info, &c.d);
	}
	if (place && rc == 0)
		rc = fx_jobs_run(&ds->fab, placed, ds->njobs, &ds->coll, &rp, &c.d);
	if (rc == 0) {
		fx_cli_begin(&c);
		if (c.json) {
			fx_json_obj_begin(&c.js, "interference");
			fx_json_str(&c.js, "timing", "bound");
			fx_json_str(&c.js, "routing_policy", fx_route_policy_name(ds->coll.policy));
			fx_json_obj_begin(&c.js, "given");
		} else {
			printf("%zu jobs, timed step by step under the bound model (routing %s)\n",
			       ds->njobs, fx_route_policy_name(ds->coll.policy));
		}
		report(&c, "the spec's placement", given, &rg);
		if (c.json)
			fx_json_obj_end(&c.js);
		if (place && c.json) {
			fx_json_obj_begin(&c.js, "placed");
			fx_json_str(&c.js, "status", info.status);
			fx_json_int(&c.js, "shared_nodes", (long long)info.shared_units);
			fx_json_int(&c.js, "milp_columns", (long long)info.cols);
			fx_json_int(&c.js, "milp_rows", (long long)info.rows);
			report(&c, "placed", placed, &rp);
			fx_json_obj_end(&c.js);
		} else if (place) {
			printf("interference-aware placement (GLPK MILP, %s; %lld nodes shared by two "
			       "jobs or more)\n", info.status, (long long)info.shared_units);
			report(&c, "placed", placed, &rp);
		}
		if (c.json)
			fx_json_obj_end(&c.js);
		fx_cli_end(&c);
	}
	fx_jobs_result_release(&rg);
	fx_jobs_result_release(&rp);
	fx_jobs_free(given, ds->njobs);
	fx_jobs_free(placed, ds->njobs);
	return fx_cli_finish(&c, rc);
}
