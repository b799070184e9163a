/*
 * The jobs of `workload.jobs` on the fabric together (issue #33 item 5):
 * each one's communication alone and beside the others (the
 * interference), the links and switch chips they share with the bytes
 * each job puts on them, and the interference-aware placement
 * (placement/jobs_place.c) measured the same way.  The computing is
 * placement/'s (fx_jobs_run, fx_jobs_place); this file reports.
 *
 * The text layout predates the table model and is kept byte for byte as
 * verbatim tables; the figures go to JSON and CSV as typed tables, nested
 * as `interference.given` / `interference.placed` (docs/output.md) by
 * open and close records.  The two are written from the same result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/limits.h"
#include "../core/xalloc.h"
#include "../placement/placement.h"
#include "report.h"

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

/* The shared switches per role, "14 L1, 112 L2" style, into buf. */
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

/* Directed link l's ends: l = 2e runs ends[2e] -> ends[2e+1], 2e+1 back. */
static int64_t link_from(const fx_fabric *f, int64_t l)
{
	return f->ends[l];
}

static int64_t link_to(const fx_fabric *f, int64_t l)
{
	return f->ends[l ^ 1];
}

/* The text of one placement's measurement, as `fabricx jobs` has always
 * printed it: a line per job in µs, the shared links and chips, the
 * first four shared links with each job's bytes. */
static char *text_of(const fx_fabric *f, const char *head, const fx_job *jobs,
		     const fx_jobs_result *r)
{
	char *text = NULL, buf[256], a[96], b[96];
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		fx_xalloc_failed();
	fprintf(m, "%s:\n  %-16s %8s %6s %12s %12s %15s\n", head, "job", "devices", "nodes",
		"alone_us", "together_us", "interference_us");
	for (size_t j = 0; j < r->njobs; j++)
		fprintf(m, "  %-16s %8lld %6lld %12.3f %12.3f %15.3f\n", jobs[j].name,
			(long long)fx_job_devices(&jobs[j]), (long long)nodes_of(f, &jobs[j]),
			r->alone[j] * 1e6, r->together[j] * 1e6, (r->together[j] - r->alone[j]) * 1e6);
	fprintf(m, "  shared: %zu directed links, %zu switch chips%s%s%s\n", r->nshared,
		r->nshared_sw, r->nshared_sw ? " (" : "",
		r->nshared_sw ? roles_of(f, r, buf, sizeof buf) : "", r->nshared_sw ? ")" : "");
	for (size_t i = 0; i < r->nshared && i < 4; i++) {
		fprintf(m, "    %s -> %s:", fx_fabric_vertex_name(f, link_from(f, r->shared[i]), a, sizeof a),
			fx_fabric_vertex_name(f, link_to(f, r->shared[i]), b, sizeof b));
		for (size_t j = 0; j < r->njobs; j++)
			if (r->shared_bytes[i * r->njobs + j] > 0)
				fprintf(m, " %s %.6g B", jobs[j].name, r->shared_bytes[i * r->njobs + j]);
		fprintf(m, "\n");
	}
	if (r->nshared > 4)
		fprintf(m, "    ... (%zu more; --json lists them all)\n", r->nshared - 4);
	if (fclose(m))
		fx_xalloc_failed();
	return text;
}

static int put_text(fx_sink *out, const char *name, char *text, fx_diag *d)
{
	int rc = fx_sink_put(out, fx_table_verbatim(name, text), d);
	free(text);
	return rc;
}

/* One placement's tables, inside the object `open` (already filled)
 * begins: per job, the shared counts, the shared links' bytes, the
 * shared chips' names, the text; `pre` names the CSV files
 * (jobs_given_per_job.csv). */
static int put_placement(const fx_fabric *f, fx_table *open, const char *pre, const char *head,
			 const fx_job *jobs, const fx_jobs_result *r, fx_sink *out, fx_diag *d)
{
	char name[64], a[96];
	int rc = fx_sink_put(out, open, d);

	static const fx_col jcols[] = {
		{"name", "job", FX_F_TEXT},
		{"devices", "devices", FX_F_INT},
		{"nodes", "nodes", FX_F_INT},
		{"device_ids", "device ids", FX_F_INT},
		{"start_s", "start", FX_F_SECONDS},
		{"steps", "steps", FX_F_INT},
		{"alone_s", "alone", FX_F_SECONDS},
		{"together_s", "together", FX_F_SECONDS},
		{"interference_s", "interference", FX_F_SECONDS},
		{NULL, NULL, 0},
	};
	snprintf(name, sizeof name, "%s_per_job", pre);
	fx_table *t = fx_table_typed(name, "Jobs", jcols);
	fx_table_json_key(t, "per_job");
	t->no_text = 1;
	for (size_t j = 0; j < r->njobs; j++) {
		int64_t n = fx_job_devices(&jobs[j]);
		double *ids = fx_xmalloc((size_t)(n + 1) * sizeof *ids);
		for (int64_t i = 0; i < n; i++)
			ids[i] = (double)jobs[j].devices[i];
		fx_table_cell(t, "%s", jobs[j].name);
		fx_table_int(t, (long long)n);
		fx_table_int(t, (long long)nodes_of(f, &jobs[j]));
		fx_table_list(t, ids, (size_t)n);
		fx_table_num(t, jobs[j].start);
		fx_table_int(t, (long long)r->steps[j]);
		fx_table_num(t, r->alone[j]);
		fx_table_num(t, r->together[j]);
		fx_table_num(t, r->together[j] - r->alone[j]);
		free(ids);
	}
	rc |= fx_sink_put(out, t, d);

	snprintf(name, sizeof name, "%s_shared", pre);
	t = fx_record_new(name, "Shared", NULL);
	t->no_text = 1;
	fx_record_int(t, "shared_links", "directed links two jobs or more load", (long long)r->nshared);
	fx_record_int(t, "shared_switches", "switch chips two jobs or more enter",
		      (long long)r->nshared_sw);
	rc |= fx_sink_put(out, t, d);

	/* bytes_by_job keeps the name it has always had in the JSON */
	static const fx_col lcols[] = {
		{"link_from", "from", FX_F_TEXT},
		{"link_to", "to", FX_F_TEXT},
		{"bytes_by_job", "bytes by job", FX_F_NUM},
		{NULL, NULL, 0},
	};
	snprintf(name, sizeof name, "%s_shared_links", pre);
	t = fx_table_typed(name, "Shared links", lcols);
	fx_table_json_key(t, "shared_link_loads");
	t->no_text = 1;
	for (size_t i = 0; i < r->nshared; i++) {
		fx_table_cell(t, "%s", fx_fabric_vertex_name(f, link_from(f, r->shared[i]), a, sizeof a));
		fx_table_cell(t, "%s", fx_fabric_vertex_name(f, link_to(f, r->shared[i]), a, sizeof a));
		fx_table_list(t, r->shared_bytes + i * r->njobs, r->njobs);
	}
	rc |= fx_sink_put(out, t, d);

	static const fx_col scols[] = {{"switch", "switch chip", FX_F_TEXT}, {NULL, NULL, 0}};
	snprintf(name, sizeof name, "%s_shared_switches", pre);
	t = fx_table_typed(name, "Shared switch chips", scols);
	fx_table_json_key(t, "shared_switch_names");
	t->no_text = 1;
	t->json_values = 1;
	for (size_t i = 0; i < r->nshared_sw; i++)
		fx_table_cell(t, "%s", fx_fabric_vertex_name(f, r->shared_sw[i], a, sizeof a));
	rc |= fx_sink_put(out, t, d);

	snprintf(name, sizeof name, "%s_text", pre);
	rc |= put_text(out, name, text_of(f, head, jobs, r), d);
	snprintf(name, sizeof name, "%s_end", pre);
	rc |= fx_sink_put(out, fx_record_close(name), d);
	return rc ? -1 : 0;
}

int fx_report_jobs(const fx_design *ds, const fx_jobs_report_opts *o, fx_sink *out, fx_diag *d)
{
	if (!ds->njobs)
		return fx_diag_error(d, NULL, "'%s' gives no 'workload.jobs' (docs/spec.md §6c.2)",
				     ds->name);
	const fx_fabric *f = &ds->fab;
	double limit = o && o->time_limit > 0 ? o->time_limit : FX_DEFAULT_TIME_LIMIT;
	int place = !(o && o->no_place);
	fx_job *given = fx_jobs_dup(ds->jobs, ds->njobs), *placed = NULL;
	fx_jobs_result rg = {0}, rp = {0};
	fx_jobs_place_info info = {0};
	int rc = fx_jobs_pack(f, given, ds->njobs, d);
	if (rc == 0)
		rc = fx_jobs_run(f, given, ds->njobs, &ds->coll, &rg, d);
	if (rc == 0 && place) {
		placed = fx_jobs_dup(given, ds->njobs);
		rc = fx_jobs_place(f, placed, ds->njobs, limit, &info, d);
	}
	if (rc == 0 && place)
		rc = fx_jobs_run(f, placed, ds->njobs, &ds->coll, &rp, d);
	if (rc == 0) {
		const char *policy = fx_route_policy_name(ds->coll.policy);
		rc |= put_text(out, "jobs_head", fx_xasprintf("%zu jobs, timed step by step under the "
							     "bound model (routing %s)\n",
							     ds->njobs, policy), d);
		fx_table *t = fx_record_open("jobs", "interference");
		fx_record_text(t, "timing", "timing", "bound");
		fx_record_text(t, "routing_policy", "routing policy", "%s", policy);
		rc |= fx_sink_put(out, t, d);
		rc |= put_placement(f, fx_record_open("jobs_given", "given"), "jobs_given",
				    "the spec's placement", given, &rg, out, d);
		if (place) {
			rc |= put_text(out, "jobs_placed_head",
				       fx_xasprintf("interference-aware placement (GLPK MILP, %s; %lld nodes "
						   "shared by two jobs or more)\n", info.status,
						   (long long)info.shared_units), d);
			t = fx_record_open("jobs_placed", "placed");
			fx_record_text(t, "status", "status", "%s", info.status);
			fx_record_int(t, "shared_nodes", "nodes shared by two jobs or more",
				      (long long)info.shared_units);
			fx_record_int(t, "milp_columns", "MILP columns", (long long)info.cols);
			fx_record_int(t, "milp_rows", "MILP rows", (long long)info.rows);
			rc |= put_placement(f, t, "jobs_placed", "placed", placed, &rp, out, d);
		}
		rc |= fx_sink_put(out, fx_record_close("jobs_end"), d);
		rc = rc ? -1 : 0;
	}
	fx_jobs_result_release(&rg);
	fx_jobs_result_release(&rp);
	fx_jobs_free(given, ds->njobs);
	fx_jobs_free(placed, ds->njobs);
	return rc;
}
