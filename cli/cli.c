#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../core/limits.h"
#include "../core/outfile.h"
#include "../core/units.h"
#include "../core/xalloc.h"
#include "../report/report.h"
#include "../routing/routing.h"

static const fx_opt common[] = {
	{"json", NULL, "print one JSON object instead of tables"},
	{"set", "KEY=VALUE", "override a spec value by dotted path (repeatable)"},
	{"out", "DIR", "write the tables as CSV into DIR/<name>/ (explore: default out; "
	 "other commands write no files without it)"},
	{"max-memory", "SIZE", "refuse fabrics estimated to need more (default: half of RAM)"},
	{"routing", "P", "how flows use equal-cost paths in every collective the command runs: "
	 "split (= minimal), hash, dmodk, smodk, rail, pxn, valiant or ugal (replaces collective.routing)"},
	{"help", NULL, "show this help"},
	{NULL, NULL, NULL},
};

void fx_cli_init(void)
{
	fx_igraph_quiet();
}

static void print_opts(const fx_opt *o, FILE *f)
{
	for (; o && o->name; o++) {
		char left[64];
		snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(f, "  %-24s %s\n", left, o->help);
	}
}

static void usage(const fx_cli *c, const char *text, FILE *f)
{
	fprintf(f, "usage: fabricx %s\n\n", text);
	if (c->opts && c->opts->name) {
		fprintf(f, "options:\n");
		print_opts(c->opts, f);
	}
	fprintf(f, "common options:\n");
	print_opts(common, f);
	fprintf(f, "\nexit status: 0 ok, 1 internal error, 2 bad input, 3 infeasible, 4 not decided\n");
}

static int find(const fx_opt *o, const char *name)
{
	for (int i = 0; o && o[i].name; i++)
		if (strcmp(o[i].name, name) == 0)
			return i;
	return -1;
}

/* Whether an argument is one of the command's or the common long options
 * (with or without "=value"), or -h. */
static int is_option(const fx_opt *opts, const char *a)
{
	if (strcmp(a, "-h") == 0)
		return 1;
	if (strncmp(a, "--", 2) != 0)
		return 0;
	char name[64];
	size_t len = strcspn(a + 2, "=");
	snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), a + 2);
	return find(opts, name) >= 0 || find(common, name) >= 0 || strcmp(name, "help") == 0;
}

int fx_cli_parse(fx_cli *c, const char *cmd, const char *text, const fx_opt *opts,
		 int argc, char **argv)
{
	memset(c, 0, sizeof *c);
	fx_diag_init(&c->d);
	c->cmd = cmd;
	c->opts = opts;
	c->argc = argc;
	c->argv = argv;
	c->fault.at = -1;  /* no failure injected */
	c->out_root = "out";
	c->max_mem = fx_fabric_default_limit();
	/* known before any error, so that a usage error is JSON too */
	for (int i = 1; i < argc; i++)
		c->json |= strcmp(argv[i], "--json") == 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-' || a[1] == '\0') {
			if (c->spec_path)
				return fx_diag_error(&c->d, NULL, "%s: unexpected argument '%s' (one spec only)",
						     cmd, a);
			c->spec_path = a;
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(c, text, stdout);
			return 1;
		}
		if (strcmp(a, "-o") == 0 && find(opts, "output") >= 0) {  /* -o FILE = --output FILE */
			if (i + 1 >= argc)
				return fx_diag_error(&c->d, NULL, "%s: option '-o' needs a value (FILE)", cmd);
			c->vals[find(opts, "output")] = argv[++i];
			continue;
		}
		if (a[1] != '-')
			return fx_diag_error(&c->d, NULL, "%s: unknown option '%s' (see --help)", cmd, a);
		/* --name, --name=value, --name value */
		char name[64];
		const char *eq = strchr(a + 2, '='), *val = NULL;
		size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), a + 2);
		int ci = find(common, name), oi = find(opts, name);
		const fx_opt *o = oi >= 0 ? &opts[oi] : ci >= 0 ? &common[ci] : NULL;
		if (!o)
			return fx_diag_error(&c->d, NULL, "%s: unknown option '--%.*s' (see --help)", cmd,
					     (int)len, a + 2);  /* whole, not name[] */
		if (o->arg) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc && !is_option(opts, argv[i + 1]))
				val = argv[++i];
			else  /* "--max-memory --json": the value was forgotten */
				return fx_diag_error(&c->d, NULL, "%s: option '--%s' needs a value (%s)", cmd,
						     name, o->arg);
		} else if (eq) {
			return fx_diag_error(&c->d, NULL, "%s: option '--%s' takes no value", cmd, name);
		}
		if (oi >= 0) {
			c->vals[oi] = val ? val : "1";
		} else if (strcmp(name, "json") == 0) {
			c->json = 1;
		} else if (strcmp(name, "set") == 0) {
			if (c->nsets == FX_CLI_MAX_SETS)
				return fx_diag_error(&c->d, NULL, "%s: too many --set options", cmd);
			c->sets[c->nsets++] = val;
		} else if (strcmp(name, "out") == 0) {
			if (!*val)  /* "" + "/name" would be /name */
				return fx_diag_error(&c->d, NULL, "%s: option '--out' needs a folder, got an "
						     "empty string (use --out . for this folder)", cmd);
			if (fx_cli_unsafe_dir(val))
				return fx_diag_error(&c->d, NULL, "%s: option '--out' refuses '%s': it is "
						     "the root folder (give a folder of its own)", cmd, val);
			c->out_root = val;
			c->out_given = 1;
		} else if (strcmp(name, "max-memory") == 0) {
			if (fx_cli_qty(c, "--max-memory", val, FX_UNIT_SIZE, &c->max_mem))
				return -1;
		} else if (strcmp(name, "routing") == 0) {
			fx_route_policy pol;
			if (fx_route_policy_parse(val, &pol))
				return fx_diag_error(&c->d, NULL, "%s: --routing must be "
						     FX_ROUTE_POLICY_LIST ", got '%s'", cmd, val);
			c->routing = val;
		}
	}
	if (!c->spec_path) {
		usage(c, text, stderr);
		return fx_diag_error(&c->d, NULL, "%s: missing SPEC (a YAML file; see specs/)", cmd);
	}
	return 0;
}

int fx_cli_opt_each(const fx_cli *c, const char *name, const char **vals, int cap)
{
	size_t len = strlen(name);
	int n = 0;
	for (int i = 1; i < c->argc; i++) {
		const char *a = c->argv[i], *v = NULL;
		if (strncmp(a, "--", 2) != 0)
			continue;
		if (strncmp(a + 2, name, len) == 0 && a[2 + len] == '=')
			v = a + 3 + len;
		else if (strcmp(a + 2, name) == 0 && i + 1 < c->argc)
			v = c->argv[++i];
		else if (i + 1 < c->argc && !strchr(a, '=') && c->argv[i + 1][0] != '-')
			i++;  /* another option's value: not a name to match */
		if (v && n < cap)
			vals[n] = v;
		n += v != NULL;
	}
	return n;
}

int fx_cli_qty_opt(fx_cli *c, const char *name, fx_unit_kind k, double *out)
{
	const char *v = fx_cli_opt(c, name);
	if (!v)
		return 0;
	char *opt = fx_xasprintf("--%s", name);
	double q;
	int rc = fx_cli_qty(c, opt, v, k, &q);
	if (rc == 0 && !(q > 0))
		rc = fx_diag_error(&c->d, NULL, "%s: '%s' must be positive", opt, v);
	if (rc == 0)
		*out = q;
	free(opt);
	return rc;
}

int fx_cli_count_opt(fx_cli *c, const char *name, int64_t lo, int64_t hi, double *out)
{
	const char *v = fx_cli_opt(c, name);
	if (!v)
		return 0;
	char *opt = fx_xasprintf("--%s", name);
	int64_t n;
	int rc = fx_cli_int(c, opt, v, lo, hi, &n);
	if (rc == 0)
		*out = (double)n;
	free(opt);
	return rc;
}

int fx_cli_list_check(fx_cli *c, const char *opt, const char *text)
{
	int k = 1;
	for (const char *p = text, *start = text;; p++) {
		if (*p != ',' && *p)
			continue;
		if (strspn(start, " \t") >= (size_t)(p - start))
			return fx_diag_error(&c->d, NULL, "%s: '%s' has an empty entry (entry %d: %s)", opt,
					     text, k, *p ? "two commas, or one at the start" : "a comma at "
					     "the end, or no entry");
		if (!*p)
			return 0;
		start = p + 1;
		k++;
	}
}

int fx_cli_qty(fx_cli *c, const char *opt, const char *text, fx_unit_kind k, double *out)
{
	fx_unit_kind got = FX_UNIT_NONE;
	double v;
	fx_unit_status st = fx_unit_parse(text, k, &v, &got);
	if (st != FX_UNIT_OK) {
		char *msg = fx_unit_message(st, text, k, got, 1, opt, NULL);
		fx_diag_error(&c->d, NULL, "%s", msg);
		free(msg);
		return -1;
	}
	if (v < 0)
		return fx_diag_error(&c->d, NULL, "%s: '%s' must not be negative", opt, text);
	if (v > 1e18 || (v != 0 && v < 1e-18))  /* as in specs: beyond any real system */
		return fx_diag_error(&c->d, NULL, "%s: '%s' is out of range", opt, text);
	if (v == 0 && k == FX_UNIT_POWER)  /* budgets and caps: 0 W is not "none" */
		return fx_diag_error(&c->d, NULL, "%s: '%s' must be more than 0 (leave the "
				     "option out for no limit)", opt, text);
	*out = v;
	return 0;
}

int fx_cli_int(fx_cli *c, const char *opt, const char *text, int64_t lo, int64_t hi,
	       int64_t *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(text, &end, 10);
	if (end == text || *end || errno == ERANGE || v < lo || v > hi)
		return fx_diag_error(&c->d, NULL, "%s: expected an integer from %lld to %lld, got '%s'",
				     opt, (long long)lo, (long long)hi, text);
	*out = v;
	return 0;
}

int fx_cli_time_limit(fx_cli *c, const char *text, double *out)
{
	double v;
	fx_unit_kind got = FX_UNIT_NONE;
	/* a bare decimal number of seconds, or a time with its unit; no hex,
	 * no "inf" (fx_unit_parse takes decimal digits only) */
	if ((fx_unit_parse(text, FX_UNIT_NONE, &v, &got) != FX_UNIT_OK &&
	     fx_unit_parse(text, FX_UNIT_TIME, &v, &got) != FX_UNIT_OK) ||
	    !(v > 0) || v > FX_MAX_TIME_LIMIT)
		return fx_diag_error(&c->d, NULL, "--time-limit: expected more than 0 and at most %d "
				     "seconds (a day), bare (10) or with a unit ('500 ms'), got '%s'", FX_MAX_TIME_LIMIT, text);
	*out = v;
	return 0;
}

const char *fx_cli_opt(const fx_cli *c, const char *name)
{
	int i = find(c->opts, name);
	return i >= 0 ? c->vals[i] : NULL;
}

/* --set and --max-memory as fx_design_load takes them. */
static fx_design_limits limits(const fx_cli *c)
{
	return (fx_design_limits){.max_memory = c->max_mem};
}

int fx_cli_load(fx_cli *c)
{
	fx_design_limits l = limits(c);
	if (fx_design_load(&c->design, c->spec_path, c->sets, (size_t)c->nsets, &l, &c->d))
		return -1;
	if (c->routing)  /* checked when parsed */
		fx_route_policy_parse(c->routing, &c->design.coll.policy);
	/* failures and render read --fail themselves (elements to evaluate,
	 * a picture beside the intact one) */
	if (find(c->opts, "fail") < 0 || !strcmp(c->cmd, "failures") || !strcmp(c->cmd, "render"))
		return 0;
	const char *fails[64];
	int n = fx_cli_opt_each(c, "fail", fails, 64);
	if (n > 64)
		return fx_diag_error(&c->d, NULL, "--fail: at most 64, got %d", n);
	for (int i = 0; i < n; i++)
		if (fx_fabric_fail(&c->design.fab, fails[i], "--fail", &c->d))
			return -1;
	return 0;
}

int fx_cli_unsafe_dir(const char *path)
{
	/* the same file as "/", however spelt ("//", "/tmp/..", a link) */
	struct stat a, b;
	return stat(path, &a) == 0 && stat("/", &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int fx_cli_outdir_asked(fx_cli *c)
{
	return c->out_given ? fx_cli_outdir(c) : 0;
}

int fx_cli_mkdirs(const char *path)
{
	return fx_mkdirs(path);
}

/* The files of explore's report in c->outdir, when it holds one: what
 * report.json's `files` lists, or with no list (a space's report) every
 * file there (c->report_all). */
static void report_files(fx_cli *c)
{
	char *rep = fx_xasprintf("%s/report.json", c->outdir);
	struct stat st;
	if (lstat(rep, &st) != 0) {
		free(rep);
		return;
	}
	fx_diag quiet;
	fx_diag_init(&quiet);
	quiet.max_shown = 0;
	fx_spec js;
	c->report_all = 1;
	if (fx_spec_load(&js, rep, &quiet) == 0) {
		const fx_snode *fl = fx_snode_get(js.root, "files");
		if (fl && fl->kind == FX_SNODE_SEQ) {
			c->report_all = 0;
			c->report_files = fx_xcalloc(fl->n + 1, sizeof *c->report_files);
			for (size_t i = 0; i < fl->n; i++)
				if (fl->items[i]->kind == FX_SNODE_SCALAR)
					c->report_files[c->nreport_files++] = fx_xstrdup(fl->items[i]->text);
		}
		fx_spec_release(&js);
	}
	fx_diag_release(&quiet);
	free(rep);
}

int fx_cli_may_write(fx_cli *c, const char *file)
{
	int theirs = 0;
	for (size_t i = 0; i < c->nreport_files && !theirs; i++)
		theirs = strcmp(c->report_files[i], file) == 0;
	if (c->report_all && !theirs) {
		char *p = fx_xasprintf("%s/%s", c->outdir, file);
		struct stat st;
		theirs = lstat(p, &st) == 0;
		free(p);
	}
	if (!theirs)
		return 0;
	return fx_diag_error(&c->d, NULL, "'%s/%s' is part of explore's report there (report.json): "
			     "%s's %s would pass for the report's; give another --out%s", c->outdir,
			     file, c->cmd, file, strcmp(c->cmd, "render") == 0 ? " or -o FILE" : "");
}

int fx_cli_outdir(fx_cli *c)
{
	size_t len = strlen(c->out_root) + 1 + strlen(c->design.name);
	if (len > FX_CLI_OUTDIR_MAX)
		return fx_diag_error(&c->d, NULL, "the output folder '%s/%s' is %zu bytes long, over "
				     "fabricx's limit of %d (a shorter --out)", c->out_root, c->design.name,
				     len, FX_CLI_OUTDIR_MAX);
	size_t rl = strlen(c->out_root);
	memcpy(c->outdir, c->out_root, rl);
	c->outdir[rl] = '/';
	memcpy(c->outdir + rl + 1, c->design.name, strlen(c->design.name) + 1);
	struct stat st;
	if (lstat(c->outdir, &st) == 0 && S_ISLNK(st.st_mode))
		return fx_diag_error(&c->d, NULL, "cannot write into '%s': it is a symbolic link, "
				     "which fabricx does not follow (remove it, or give --out the "
				     "folder it points to)", c->outdir);
	report_files(c);
	if (fx_mkdirs(c->outdir))
		return fx_diag_error(&c->d, NULL, "cannot create output folder '%s': %s", c->outdir,
				     strerror(errno));
	fx_outfile_sweep(c->outdir);
	return 0;
}

int fx_cli_outdir_begin(fx_cli *c)
{
	/* the work folder's name adds '.' and ".new.XXXXXX" to the name */
	size_t len = strlen(c->out_root) + 1 + strlen(c->design.name) + 12;
	if (len > FX_CLI_OUTDIR_MAX)
		return fx_diag_error(&c->d, NULL, "the output folder '%s/%s' is %zu bytes long, over "
				     "fabricx's limit of %d (a shorter --out)", c->out_root, c->design.name,
				     len - 12, FX_CLI_OUTDIR_MAX - 12);
	fx_outdir *od = fx_xmalloc(sizeof *od);
	if (fx_outdir_begin(od, c->out_root, c->design.name)) {
		free(od);
		return fx_diag_error(&c->d, NULL, "cannot write the folder '%s/%s': %s", c->out_root,
				     c->design.name, errno == ELOOP ? "it is a symbolic link, which fabricx "
				     "does not follow" : strerror(errno));
	}
	c->od = od;
	memcpy(c->outdir, od->work, strlen(od->work) + 1);
	return 0;
}

int fx_cli_outdir_end(fx_cli *c, int ok)
{
	fx_outdir *od = c->od;
	if (!od)
		return 0;
	c->od = NULL;
	char *path = fx_xstrdup(od->path);
	int rc = 0;
	if (!ok)  /* the caller says whether the run is whole (explore: its report is) */
		fx_outdir_abort(od);
	else if (fx_outdir_commit(od))
		rc = fx_diag_error(&c->d, NULL, "cannot put the new '%s' in place: %s", path,
				   strerror(errno));
	memcpy(c->outdir, path, strlen(path) + 1);  /* no longer than the work folder's */
	free(path);
	free(od);
	return rc;
}

void fx_cli_begin(fx_cli *c)
{
	if (c->json) {
		/* held in memory and printed by fx_cli_finish only on success:
		 * a failed command prints no JSON rather than half an object */
		c->json_buf = open_memstream(&c->json_text, &c->json_len);
		fx_json_init(&c->js, c->json_buf ? c->json_buf : stdout);
		fx_json_obj_begin(&c->js, NULL);
		fx_json_str(&c->js, "name", c->design.name);
		fx_json_str(&c->js, "spec", c->spec_path);
	} else if (!c->quiet) {
		printf("%s: %s fabric, %s\n\n", c->design.name, c->design.fab.builder->kind, c->spec_path);
	}
}

void fx_cli_end(fx_cli *c)
{
	if (c->json)
		fx_json_obj_end(&c->js);
}

int fx_cli_coll_first(fx_cli *c, const char *pattern, const char *algo, int64_t n, double size,
		      const fx_coll_time *tm, fx_diag *d, fx_coll_result *out)
{
	return fx_report_coll_first(&c->design, pattern, algo, n, size, tm, out, d ? d : &c->d);
}

/* The command's outputs as one sink: text on stdout (unless --json or
 * under explore), explore's Markdown, the JSON object, the CSV copies
 * under out/<name>/. */
int fx_cli_table(fx_cli *c, fx_table *t)
{
	if (c->outdir[0] && (c->nreport_files || c->report_all)) {
		char *f = fx_xasprintf("%s.csv", t->name);
		int rc = fx_cli_may_write(c, f);
		free(f);
		if (rc) {
			fx_table_free(t);
			return rc;
		}
	}
	fx_sink print, md, json, csv, tee, *to[5];
	size_t n = 0;
	if (fx_cli_text(c))
		fx_sink_print_init(to[n++] = &print, stdout);
	if (c->md)
		fx_sink_markdown_init(to[n++] = &md, c->md);
	if (c->json)
		fx_sink_json_init(to[n++] = &json, &c->js);
	fx_sink_csv_init(to[n++] = &csv, c->outdir);
	if (c->also)  /* explore: its summary reads the tables */
		to[n++] = c->also;
	fx_sink_tee_init(&tee, to, n);
	return fx_sink_put(&tee, t, &c->d);
}

/* The sink the report functions (report/) write into for a command. */
static int cli_adopt(fx_sink *s, fx_table *t, fx_diag *d)
{
	(void)d;
	return fx_cli_table(s->ctx, t);
}

static int cli_put(fx_sink *s, const fx_table *t, fx_diag *d)
{
	return cli_adopt(s, fx_table_dup(t), d);
}

fx_sink *fx_cli_sink(fx_cli *c)
{
	memset(&c->sink, 0, sizeof c->sink);
	c->sink.put = cli_put;
	c->sink.adopt = cli_adopt;
	c->sink.ctx = c;
	return &c->sink;
}

void fx_cli_print_list(fx_table *t, int json)
{
	if (json) {
		fx_json j;
		fx_json_init(&j, stdout);
		fx_json_obj_begin(&j, NULL);
		fx_table_write_json(t, &j);
		fx_json_obj_end(&j);
	} else {
		fx_table_print(t, stdout);
	}
	fx_table_free(t);
}

static void diag_json(const fx_diag *d, int status, fx_json *j, const char *key)
{
	fx_json_obj_begin(j, key);
	fx_json_int(j, "status", status ? status : FX_EXIT_INTERNAL);
	fx_json_str(j, "message", d->first ? d->first : d->last ? d->last
		    : "failed (see the messages on stderr)");
	if (d->first_loc.file)
		fx_json_str(j, "file", d->first_loc.file);
	else
		fx_json_null(j, "file");
	if (d->first_loc.line > 0) {
		fx_json_int(j, "line", d->first_loc.line);
		fx_json_int(j, "column", d->first_loc.col);
	} else {
		fx_json_null(j, "line");
		fx_json_null(j, "column");
	}
	if (d->first_key)
		fx_json_str(j, "key", d->first_key);
	else
		fx_json_null(j, "key");
	fx_json_obj_end(j);
}

void fx_cli_json_error(fx_cli *c, fx_json *j, const char *key)
{
	diag_json(&c->d, c->d.status, j, key);
	c->json_error_done = 1;
}

void fx_cli_print_json_error(const fx_diag *d, int status)
{
	fx_json j;
	fx_json_init(&j, stdout);
	fx_json_obj_begin(&j, NULL);
	diag_json(d, status, &j, "error");
	fx_json_obj_end(&j);
}

int fx_cli_finish(fx_cli *c, int rc)
{
	fx_cli_outdir_end(c, 0);  /* a run that never reached its end writes nothing */
	fx_design_release(&c->design);
	int status = c->d.status;
	if (rc && status == 0)
		status = FX_EXIT_INTERNAL;  /* failed without saying why: a bug */
	if (c->json_buf) {
		if (fclose(c->json_buf) == 0 && status == 0)
			fwrite(c->json_text, 1, c->json_len, stdout);
		free(c->json_text);
		c->json_buf = NULL;
	}
	/* --json and a failure: one object {"error": {...}} on stdout, beside
	 * the message on stderr, so a program reading stdout always gets JSON */
	if (c->json && status != 0 && !c->json_error_done)
		fx_cli_print_json_error(&c->d, status);
	if (c->d.nerr > c->d.max_shown)
		fprintf(stderr, "fabricx: %d more errors not shown\n", c->d.nerr - c->d.max_shown);
	fx_diag_release(&c->d);
	for (size_t i = 0; i < c->nreport_files; i++)
		free(c->report_files[i]);
	free(c->report_files);
	c->report_files = NULL;
	c->nreport_files = 0;
	fflush(stdout);
	return status;
}

int fx_cli_main(const fx_command *cmd, int argc, char **argv)
{
	if (cmd->main)
		return cmd->main(argc, argv);
	fx_cli c;
	int rc = fx_cli_parse(&c, cmd->name, cmd->usage, cmd->opts, argc, argv);
	if (rc)
		return fx_cli_finish(&c, rc > 0 ? 0 : -1);  /* help (1) is a success */
	return fx_cli_finish(&c, cmd->run(&c));
}
