/*
 * explore over a design space (a `space:` block or --vary), and `merge`,
 * which joins the folders of a sharded run.  docs/spaces.md says how to
 * write a space and run it on all cores, under MPI or as a batch array.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/outfile.h"
#include "../core/limits.h"
#include "../core/xalloc.h"
#include "report.h"
#include "space_run.h"

/* Spaces past this many points are refused before anything runs unless
 * --budget-points samples them or --max-points raises it: a grid that
 * large is a typo more often than a plan. */
#define SPACE_DEFAULT_MAX 100000

/* The file's text, or NULL (errno set; EILSEQ for a NUL byte, which
 * would end the text early: no spec or points.csv holds one). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *s = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&s, &len);
	char buf[65536];
	size_t k;
	while ((k = fread(buf, 1, sizeof buf, f)) > 0)
		fwrite(buf, 1, k, m);
	int bad = ferror(f);
	fclose(f);
	fclose(m);
	if (!bad && memchr(s, '\0', len)) {
		bad = 1;
		errno = EILSEQ;
	}
	if (bad) {
		free(s);
		return NULL;
	}
	return s;
}

/* Holds the points of DIR/points.csv, which must be this space's, run
 * from the same spec, overrides and fabricx (cli/space_provenance.c), and
 * agree with every point held before.  what: "merge" (the folder must
 * exist) or "--resume" (a folder not there leaves nothing to resume).
 * 0, or -1 after reporting. */
static int take_folder(fx_cli *c, fx_space_run *r, const char *dir, const char *what)
{
	int must = strcmp(what, "merge") == 0;
	char *path = fx_xasprintf("%s/points.csv", dir);
	char *text = slurp(path);
	int rc = 0;
	if (!text) {
		if (must || errno != ENOENT)
			rc = fx_diag_error(&c->d, NULL, "cannot read '%s': %s", path, errno == EILSEQ
					   ? "it holds a NUL byte, so it is no points.csv" : strerror(errno));
		free(path);
		return rc;
	}
	char *save = NULL, *line = strtok_r(text, "\n", &save);
	/* the header must be this space's, or the lines mean something else */
	char *head = NULL;
	size_t hl = 0;
	FILE *h = open_memstream(&head, &hl);
	fx_space_write_header(r->ev, h, 1);
	fclose(h);
	head[hl ? hl - 1 : 0] = '\0';
	if (!line || strcmp(line, head)) {
		rc = fx_diag_error(&c->d, NULL, "%s: '%s' is not from this space (its header "
				   "differs: other parameters or metrics)%s", what, path,
				   must ? "" : "; drop --resume to compute every point again");
	} else {
		rc = fx_space_provenance_check(c, dir, r->ev->spec_text, r->ev->space, what);
		size_t bad = 0;
		char why[512];
		while (rc == 0 && (line = strtok_r(NULL, "\n", &save))) {
			int k = fx_space_run_take_line(r, line, 1, why, sizeof why);
			bad += k < 0;
			if (k > 0)
				rc = fx_diag_error(&c->d, NULL, "%s: '%s' holds point %llu measured "
						   "otherwise than the same point read before (%s): "
						   "results of one point must agree", what, path,
						   strtoull(line, NULL, 10), why);
		}
		if (rc == 0 && bad)
			rc = fx_diag_error(&c->d, NULL, "'%s': %zu %s of this space", path, bad,
					   bad == 1 ? "line is not a point" : "lines are not points");
	}
	free(head);
	free(text);
	free(path);
	return rc;
}

typedef struct space_opts {
	int64_t jobs, budget, seed, max_points, node_limit;
	double time_limit;         /* placement, per point */
	int shard_i, shard_n, resume, progress;
	const char *const *from;   /* merge: the shards' folders */
	int nfrom;
} space_opts;

static int parse_shard(fx_cli *c, const char *text, space_opts *o)
{
	char *end;
	long i = strtol(text, &end, 10), n = 0;
	if (end != text && *end == '/')
		n = strtol(end + 1, &end, 10);
	if (*end || i < 1 || n < 1 || i > n || n > 1000000)
		return fx_diag_error(&c->d, NULL, "--shard: '%s' must be I/N with 1 <= I <= N, e.g. "
				     "2/8 (batch arrays number from 1)", text);
	o->shard_i = (int)i - 1;
	o->shard_n = (int)n;
	return 0;
}

/* Runs the space and writes out/<name>/ (out/<name>-shard-I-of-N/ for a
 * shard).  Returns the exit status's rc as commands do. */
static int run_space(fx_cli *c, fx_space *s, const space_opts *o, int diagrams, int mpi_rank,
		     int mpi_size)
{
	uint64_t count = fx_space_count(s);
	if (count == (uint64_t)-1)
		return fx_diag_error(&c->d, NULL, "the space has more than 2^62 points, more than "
				     "fabricx can number even to sample: vary fewer values");
	/* a sample is any size; the whole grid up to --max-points */
	if (!o->budget && count > (uint64_t)o->max_points)
		return fx_diag_error(&c->d, NULL, "the space has %llu points, over the limit of %lld "
				     "for the whole grid: sample it with --budget-points N%s",
				     (unsigned long long)count, (long long)o->max_points,
				     count <= FX_SPACE_MAX_POINTS ? ", or raise --max-points"
				     : " (--max-points goes up to 10^7)");
	if (o->budget && o->shard_n)
		return fx_diag_error(&c->d, NULL, "--shard with --budget-points: refining around the "
				     "front needs every point; run a sampled space on all cores "
				     "(--jobs) or under MPI");
	size_t nparams = 0;
	for (size_t a = 0; a < s->naxes; a++)
		nparams += s->axes[a].npaths;
	if (nparams > 64)
		return fx_diag_error(&c->d, NULL, "the space varies %zu spec paths; fabricx takes at "
				     "most 64", nparams);
	char *text = slurp(c->spec_path);
	if (!text)
		return fx_diag_error(&c->d, NULL, "cannot read '%s': %s", c->spec_path, strerror(errno));
	char **names;
	size_t nnames = fx_space_names(s, &names);
	fx_space_eval ev = {
		.spec_path = c->spec_path, .spec_text = text, .space = s, .names = names,
		.nnames = nnames, .sets = c->sets, .nsets = (size_t)c->nsets,
		.limits = {.max_memory = c->max_mem}, .time_limit = o->time_limit,
		.node_limit = (long)o->node_limit, .plan = c->plan,
	};
	fx_space_run r = {
		.ev = &ev, .d = &c->d, .jobs = (int)o->jobs, .shard_i = o->shard_i,
		.shard_n = o->shard_n, .budget = (uint64_t)o->budget, .seed = (uint64_t)o->seed,
		.progress = o->progress && mpi_rank == 0, .no_eval = o->nfrom > 0,
		.mpi_rank = mpi_rank, .mpi_size = mpi_size,
	};
	if (o->shard_n) {
		size_t len = strlen(c->design.name);
		snprintf(c->design.name + len, sizeof c->design.name - len, "-shard-%d-of-%d",
			 o->shard_i + 1, o->shard_n);
		if (strlen(c->design.name) < len + 10) {
			free(text), free(names);
			return fx_diag_error(&c->d, NULL, "--shard: the name '%s' leaves no room for the "
					     "shard's folder name", c->design.name);
		}
	}
	/* the spec parsed once for every point (its positions point at bd's
	 * names); should it fail here, each point reports it as it loads */
	fx_diag bd;
	fx_diag_init(&bd);
	bd.out = NULL;
	fx_spec base;
	if (fx_spec_load_text(&base, c->spec_path, text, &bd) == 0)
		ev.spec = &base;
	int rc = 0;
	for (int k = 0; rc == 0 && k < o->nfrom; k++)
		rc = take_folder(c, &r, o->from[k], "merge");
	if (rc == 0 && o->resume) {
		char *dir = fx_xasprintf("%s/%s", c->out_root, c->design.name);
		rc = take_folder(c, &r, dir, "--resume");
		free(dir);
	}
	if (rc == 0)
		rc = fx_space_run_all(&r);
	if (rc == 0)
		fx_space_run_front(&r);
	/* only rank 0 writes; the others computed their share and are done */
	if (rc == 0 && mpi_rank == 0) {
		rc = fx_cli_outdir_begin(c);
		char *mdt = NULL, *json = NULL;
		size_t mdl = 0, jl = 0;
		FILE *md = open_memstream(&mdt, &mdl), *jf = open_memstream(&json, &jl);
		if (rc == 0) {
			int json_stdout = c->json;
			fprintf(md, "# %s: design space\n\n", c->design.name);
			fprintf(md, "Spec `%s`; %zu parameter%s, %zu objective%s, %zu constraint%s. "
				"Every point is the spec with its overrides, measured by the commands' "
				"own reports (docs/spaces.md).\n\n", c->spec_path, nparams,
				nparams == 1 ? "" : "s", s->nobj, s->nobj == 1 ? "" : "s", s->ncons,
				s->ncons == 1 ? "" : "s");
			c->md = md;
			c->json = 1;  /* the report is built as JSON and Markdown at once */
			c->out_given = 0;
			fx_json_init(&c->js, jf);
			fx_json_obj_begin(&c->js, NULL);
			fx_json_str(&c->js, "name", c->design.name);
			fx_json_str(&c->js, "spec", c->spec_path);
			char space_sha[65];
			fx_space_signature(s, space_sha);
			fx_explore_provenance(c, md, space_sha);
			/* the tables go to report.md and report.json; the CSVs are
			 * points.csv and pareto.csv alone */
			char *dir = fx_xstrdup(c->outdir);
			c->outdir[0] = '\0';
			rc = fx_space_report(c, &r, dir, diagrams, !json_stdout);
			memcpy(c->outdir, dir, strlen(dir) + 1);
			free(dir);
			fx_json_obj_end(&c->js);
			fputc('\n', jf);
			fclose(md), fclose(jf);
			md = jf = NULL;
			c->md = NULL;
			if (rc == 0) {
				char *p1 = fx_xasprintf("%s/report.md", c->outdir);
				char *p2 = fx_xasprintf("%s/report.json", c->outdir);
				int bad = fx_outfile_write(p1, mdt, mdl) || fx_outfile_write(p2, json, jl);
				if (bad)
					rc = fx_diag_error(&c->d, NULL, "cannot write '%s': %s", p1,
							   strerror(errno));
				free(p1), free(p2);
			}
			if (fx_cli_outdir_end(c, rc == 0))
				rc = -1;
			c->json = json_stdout;
			if (rc == 0 && json_stdout)
				fwrite(json, 1, jl, stdout);
			else if (rc == 0)
				printf("report: %s/report.md, points.csv, pareto.csv%s\n", c->outdir,
				       diagrams && !r.plots_skipped[0] ? ", plots (*.svg, *.png)" : "");
		}
		if (md)
			fclose(md);
		if (jf)
			fclose(jf);
		free(mdt);
		free(json);
		c->outdir[0] = '\0';
	}
	/* what the points say about the run as a whole */
	if (rc == 0) {
		size_t n = 0, feas = 0, invalid = 0;
		const char *first_invalid = NULL;
		const fx_space_pt *first_out = NULL;  /* the lowest-indexed infeasible point */
		for (size_t i = 0; i < r.ntodo; i++) {
			const fx_space_pt *p = fx_space_run_find(&r, r.todo[i]);
			if (!p)
				continue;
			n++;
			feas += p->status == FX_SPACE_FEASIBLE;
			if (p->status != FX_SPACE_FEASIBLE && p->status != FX_SPACE_INVALID && p->reason &&
			    (!first_out || p->index < first_out->index))
				first_out = p;
			if (p->status == FX_SPACE_INVALID) {
				invalid++;
				if (!first_invalid)
					first_invalid = p->reason;
			}
		}
		if (n && invalid == n)
			rc = fx_diag_error(&c->d, NULL, "every point is bad input; the first: %s",
					   first_invalid);
		else if (n && !feas && r.sampled)
			rc = fx_diag_undecided(&c->d, "no feasible point among the %zu sampled of %llu; "
					       "a larger --budget-points may find one", n,
					       (unsigned long long)r.total);
		else if (n && !feas)
			rc = first_out ? fx_diag_infeasible(&c->d, "no point of the space meets the "
							    "constraints; point %llu: %s (points.csv says "
							    "why each fails)",
							    (unsigned long long)first_out->index,
							    first_out->reason)
				       : fx_diag_infeasible(&c->d, "no point of the space meets the "
							    "constraints (points.csv says why each fails)");
	}
	fx_space_run_release(&r);
	if (ev.spec)
		fx_spec_release(&base);
	fx_diag_release(&bd);
	free(names);
	free(text);
	return rc;
}

/* The options explore and merge share for a space. */
static int read_opts(fx_cli *c, fx_space *s, space_opts *o)
{
	const char *v;
	o->jobs = 1;
	o->max_points = SPACE_DEFAULT_MAX;
	o->time_limit = FX_DEFAULT_TIME_LIMIT;
	o->progress = isatty(2) && !fx_cli_opt(c, "quiet") && !c->json;
	int rc = 0;
	const char *vary[64];
	int nv = fx_cli_opt_each(c, "vary", vary, 64);
	for (int i = 0; i < nv && i < 64 && rc == 0; i++)
		rc = fx_space_vary(s, vary[i], &c->d);
	if (rc == 0 && (v = fx_cli_opt(c, "jobs"))) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		if (strcmp(v, "all") == 0)
			o->jobs = cpus > 0 ? cpus : 1;
		else
			rc = fx_cli_int(c, "--jobs", v, 1, 1024, &o->jobs);
	}
	if (rc == 0 && (v = fx_cli_opt(c, "budget-points")))
		rc = fx_cli_int(c, "--budget-points", v, 1, 10000000, &o->budget);
	if (rc == 0 && (v = fx_cli_opt(c, "seed")))
		rc = fx_cli_int(c, "--seed", v, 0, INT64_MAX, &o->seed);
	if (rc == 0 && (v = fx_cli_opt(c, "max-points")))
		rc = fx_cli_int(c, "--max-points", v, 1, FX_SPACE_MAX_POINTS, &o->max_points);
	if (rc == 0 && (v = fx_cli_opt(c, "time-limit")))
		rc = fx_cli_time_limit(c, v, &o->time_limit);
	if (rc == 0 && (v = fx_cli_opt(c, "node-limit")))
		rc = fx_cli_int(c, "--node-limit", v, 1, 1000000000, &o->node_limit);
	if (rc == 0 && (v = fx_cli_opt(c, "shard")))
		rc = parse_shard(c, v, o);
	o->resume = fx_cli_opt(c, "resume") != NULL;
	if (rc == 0 && s->naxes == 0)
		rc = fx_diag_error(&c->d, NULL, "the spec has no space: block and no --vary was given");
	if (rc == 0 && s->nobj == 0 && c->plan) {
		/* plan over builds: which build and which scheme, the front of
		 * the plan's objective against the build's power */
		int max = 0;
		char *field = fx_plan_primary_metric(&c->design, c->plan, &max, &c->d);
		if (!field)
			return -1;
		s->obj = fx_xcalloc(2, sizeof *s->obj);
		s->obj[0] = (fx_space_objective){field, max ? FX_SPACE_MAX : FX_SPACE_MIN};
		s->obj[1] = (fx_space_objective){fx_xstrdup("power_W"), FX_SPACE_MIN};
		s->nobj = 2;
	}
	if (rc == 0 && s->nobj == 0 && s->nmetrics == 0) {
		/* nothing named: what an architect looks at first */
		static const char *const dflt[] = {"devices", "diameter_hops", "bisection_per_device_Bps",
						   "power_W"};
		s->nmetrics = sizeof dflt / sizeof dflt[0];
		s->metrics = fx_xcalloc(s->nmetrics, sizeof *s->metrics);
		for (size_t k = 0; k < s->nmetrics; k++)
			s->metrics[k] = fx_xstrdup(dflt[k]);
	}
	return rc;
}

int fx_explore_space(fx_cli *c, int diagrams, int *handled)
{
	fx_space s;
	int present = 0;
	*handled = 0;
	if (fx_space_parse(&s, &c->design.spec, &c->d, &present))
		return -1;
	const char *probe[1];
	if (!present && fx_cli_opt_each(c, "vary", probe, 1) == 0) {
		fx_space_release(&s);
		return 0;
	}
	*handled = 1;
	space_opts o = {0};
	int rank = 0, size = 1;
	int rc = read_opts(c, &s, &o);
	if (rc == 0)
		rc = fx_space_mpi_begin(&rank, &size, &c->d);
	if (rc == 0 && size > 1 && (o.shard_n || o.jobs > 1))
		rc = fx_diag_error(&c->d, NULL, "under MPI each rank takes its share of the points: "
				   "--shard and --jobs do not apply");
	if (rc == 0)
		rc = run_space(c, &s, &o, diagrams, rank, size);
	fx_space_mpi_end();
	fx_space_release(&s);
	return rc;
}

static int merge_main(int argc, char **argv)
{
	static const fx_opt opts[] = {
		{"from", "DIR", "a shard's folder (out/NAME-shard-I-of-N; repeatable)"},
		{"vary", "PATH=VALUES", "vary a spec path, as the shards were run"},
		{"no-plots", NULL, "write no plots"},
		{NULL, NULL, NULL},
	};
	fx_cli c;
	int rc = fx_cli_parse(&c, "merge", "merge SPEC --from DIR [--from DIR]... [--vary PATH=VALUES]... "
			      "[--set KEY=VALUE]...", opts, argc, argv);
	if (rc)
		return fx_cli_finish(&c, rc > 0 ? 0 : -1);
	rc = fx_cli_load(&c);
	fx_space s;
	int present = 0;
	if (rc == 0)
		rc = fx_space_parse(&s, &c.design.spec, &c.d, &present);
	else
		s = (fx_space){0};
	const char *from[256];
	space_opts o = {0};
	if (rc == 0)
		rc = read_opts(&c, &s, &o);
	o.nfrom = fx_cli_opt_each(&c, "from", from, 256);
	o.from = from;
	o.shard_n = 0;
	if (rc == 0 && o.nfrom == 0)
		rc = fx_diag_error(&c.d, NULL, "merge: give the shards' folders with --from DIR");
	if (rc == 0 && o.nfrom > 256)
		rc = fx_diag_error(&c.d, NULL, "merge: at most 256 folders (%d given)", o.nfrom);
	if (rc == 0)
		rc = run_space(&c, &s, &o, !fx_cli_opt(&c, "no-plots"), 0, 1);
	fx_space_release(&s);
	return fx_cli_finish(&c, rc);
}

const fx_command fx_command_merge = {
	.name = "merge",
	.summary = "join the points of a space run as shards (--shard I/N)",
	.main = merge_main,
};
