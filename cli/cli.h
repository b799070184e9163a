/*
 * cli: what every fabricx command shares.
 *
 * A command declares its own options in a table of fx_opt, then calls
 * fx_cli_parse(), which also handles the options every command takes:
 *
 *   --json            one JSON object on stdout instead of tables
 *   --set KEY=VALUE   override a spec value by dotted path (repeatable)
 *   --out DIR         write tables as CSV into DIR/<name>/ (explore: default
 *                     out; other commands write no files without it)
 *   --max-memory SIZE refuse fabrics estimated to need more (default: half of RAM)
 *   -h, --help        usage
 *
 * fx_cli_load() loads the design (design/design.h: the spec with --set,
 * its fabric, power model, workload and groups).  Tables go to stdout (unless
 * --json), and to DIR/<spec name>/<table>.csv with --out DIR.  fx_cli_finish() frees
 * everything and turns the diagnostics into the exit status.
 */
#ifndef FX_CLI_H
#define FX_CLI_H

#include "../core/diag.h"
#include "../core/json.h"
#include "../core/sink.h"
#include "../core/table.h"
#include "../design/design.h"
#include "../fabric/fabric.h"
#include "../placement/placement.h"
#include "../power/power.h"
#include "../routing/routing.h"
#include "../spec/spec.h"

#define FX_CLI_MAX_OPTS 32
#define FX_CLI_MAX_SETS 64
/* out/<name> is refused past this many bytes, never cut; the commands
 * append file names of at most 64 bytes to it in buffers of 600. */
#define FX_CLI_OUTDIR_MAX 511

typedef struct fx_opt {
	const char *name;   /* long name without dashes */
	const char *arg;    /* argument placeholder, NULL for a flag */
	const char *help;
} fx_opt;

/* --fail SEL, for commands that measure a degraded fabric: fx_cli_load
 * marks what each selector names failed (fabric/fail.c), after the spec's
 * own `failures:`.  (failures and render take a --fail of their own.) */
#define FX_CLI_FAIL_OPT \
	{"fail", "SEL", "measure the fabric with these elements failed: a selector as --cut " \
	 "takes, or A~B for the links between two (repeatable)"}

typedef struct fx_cli {
	const char *cmd;
	const fx_opt *opts;                  /* the command's own options */
	const char *vals[FX_CLI_MAX_OPTS];   /* their values ("1" for flags) */
	const char *spec_path;
	int argc;                            /* the command line, from the command's */
	char **argv;                         /* name on (reports record it) */
	int json;
	const char *sets[FX_CLI_MAX_SETS];
	int nsets;
	const char *out_root;
	int out_given;                       /* --out on the command line */
	int json_error_done;                 /* --json: the error object is written */
	double max_mem;
	const char *routing;                 /* --routing: replaces collective.routing */
	fx_diag d;
	fx_design design;                    /* the loaded spec, fabric, workload */
	fx_fault fault;                      /* place --fail-at (at < 0: none) */
	char outdir[FX_CLI_OUTDIR_MAX + 1];  /* out/<name> */
	fx_json js;
	FILE *json_buf;                      /* --json: the object, until finish */
	char *json_text;
	size_t json_len;
	int quiet;                           /* explore: tables to files only */
	FILE *md;                            /* explore: tables also as Markdown */
	fx_sink *also;                       /* explore: a capture its summary reads, or NULL */
	fx_sink sink;                        /* fx_cli_sink's */
	void *od;                            /* fx_outdir between outdir_begin and _end */
	const struct fx_plan_opts *plan;     /* `plan` over a space: each point plans */
	/* outdir holds explore's report: the files it lists (report.json's
	 * `files`), which another command may not replace; all: every file
	 * there (a report without the list) */
	char **report_files;
	size_t nreport_files;
	int report_all;
} fx_cli;

/* Whether text goes to stdout (not with --json, not under explore). */
static inline int fx_cli_text(const fx_cli *c)
{
	return !c->json && !c->quiet;
}

/* Sets up the libraries for a command-line run: igraph's errors come back
 * as return codes (its default handler aborts).  Call once, first. */
void fx_cli_init(void);
/* Parses argv (argv[0] is the command name).  Returns 0 to go on, 1 when
 * help was printed, -1 on a usage error (reported). */
int fx_cli_parse(fx_cli *c, const char *cmd, const char *usage, const fx_opt *opts,
		 int argc, char **argv);
/* The value of the command's option `name`, or NULL. */
const char *fx_cli_opt(const fx_cli *c, const char *name);
/* Every value given to a repeatable option, in order: up to cap into
 * vals; returns how many were given. */
int fx_cli_opt_each(const fx_cli *c, const char *name, const char **vals, int cap);
/* Loads the spec with --set and --max-memory (fx_design_load), then
 * fails what --fail names when the command takes FX_CLI_FAIL_OPT. */
int fx_cli_load(fx_cli *c);
/* Whether an output folder resolves to the root folder, which no
 * command writes into. */
int fx_cli_unsafe_dir(const char *path);
/* fx_cli_outdir when --out was given, else nothing: commands other than
 * explore write files only when asked. */
int fx_cli_outdir_asked(fx_cli *c);
/* Writes the error object of a failed run ({"status", "message", "file",
 * "line", "column", "key"}) under key into j, and marks it written. */
void fx_cli_json_error(fx_cli *c, fx_json *j, const char *key);
/* Prints {"error": {...}} for the first error d holds, with exit status
 * status, on stdout: what a failure under --json prints. */
void fx_cli_print_json_error(const fx_diag *d, int status);
/* mkdir -p; 0 or -1 with errno. */
int fx_cli_mkdirs(const char *path);
/* Creates out/<name>/ if needed (refused when longer than
 * FX_CLI_OUTDIR_MAX or a symbolic link) and sweeps temporaries that killed
 * runs left there. */
int fx_cli_outdir(fx_cli *c);
/* out/<name> written whole (fx_outdir in core/outfile.h): begin locks it,
 * sweeps what killed runs left and points c->outdir at a fresh folder
 * beside it; end with ok swaps that folder in and points c->outdir at
 * out/<name>, without ok removes it, leaving out/<name> as it was.  Both
 * report their errors. */
int fx_cli_outdir_begin(fx_cli *c);
int fx_cli_outdir_end(fx_cli *c, int ok);
/* Starts a command's output: with --json the object (name and spec keys),
 * else the header line "name: kind fabric, spec"; fx_cli_end closes it. */
void fx_cli_begin(fx_cli *c);
void fx_cli_end(fx_cli *c);
/* Runs one collective over the first n devices with time model tm (NULL:
 * the spec's), reporting through d (NULL: the command's).  0 or -1; the
 * result is the caller's to release. */
int fx_cli_coll_first(fx_cli *c, const char *pattern, const char *algo, int64_t n, double size,
		      const fx_coll_time *tm, fx_diag *d, fx_coll_result *out);
/* Writes src,dst,bytes,busy_us,utilisation for every directed link. */
int fx_cli_write_links(fx_cli *c, const char *path, const fx_coll_result *res);
/* Prints t (unless --json), writes its CSV, frees it: the sinks of
 * core/sink.h the command's options ask for, in a tee. */
int fx_cli_table(fx_cli *c, fx_table *t);
/* The command as a sink (fx_cli_table for every table), for report/. */
fx_sink *fx_cli_sink(fx_cli *c);
/* Prints a typed table that needs no spec (kinds, collective --list): as
 * text, or with json as one object holding it under its key.  Frees t. */
void fx_cli_print_list(fx_table *t, int json);
/* Releases everything; returns the exit status for rc. */
int fx_cli_finish(fx_cli *c, int rc);
/* A whole number given to option opt, in [lo, hi]. */
int fx_cli_int(fx_cli *c, const char *opt, const char *text, int64_t lo, int64_t hi,
	       int64_t *out);
/* --time-limit: seconds, bare ("10") or with a unit ("500 ms"), in
 * (0, FX_MAX_TIME_LIMIT] (core/limits.h): no solve runs unbounded. */
int fx_cli_time_limit(fx_cli *c, const char *text, double *out);
/* The command's option `name` (without dashes) when given: a positive
 * quantity of kind k, or a whole number in [lo, hi], into *out; absent
 * leaves *out as it was.  0, or -1 after reporting. */
int fx_cli_qty_opt(fx_cli *c, const char *name, fx_unit_kind k, double *out);
int fx_cli_count_opt(fx_cli *c, const char *name, int64_t lo, int64_t hi, double *out);
/* Whether this command may write `file` (a name in c->outdir): not when
 * it is one of explore's report's files (metrics.csv of another build
 * beside report.md would pass for part of the report; explore replaces
 * its folder whole).  0, or -1 after reporting. */
int fx_cli_may_write(fx_cli *c, const char *file);
/* A comma list given to option opt ("100GB,60GB"): an empty entry ("a,,b",
 * a comma first or last) is an error, never dropped.  0, or -1 after
 * reporting. */
int fx_cli_list_check(fx_cli *c, const char *opt, const char *text);
/* Parses a quantity given on the command line, e.g. --size "32 MiB". */
int fx_cli_qty(fx_cli *c, const char *opt, const char *text, fx_unit_kind k, double *out);

/* The ranks of a collective: --ranks N, --group NAME, or every device.
 * *out is malloc'd (device ids in device order). */
int fx_cli_ranks(fx_cli *c, const char *nranks, const char *group, int64_t **out, int64_t *n);

/*
 * A command: its name, the line `fabricx help` shows, and either run,
 * which fx_cli_main calls between fx_cli_parse (usage, opts) and
 * fx_cli_finish, or main, for a command that reads its own argv (one
 * that needs no SPEC, or parses before the shared parser can).
 */
typedef struct fx_command {
	const char *name;
	const char *summary;
	const char *usage;       /* after "usage: fabricx " */
	const fx_opt *opts;
	int (*run)(fx_cli *c);   /* returns 0 or -1, errors in c->d */
	int (*main)(int argc, char **argv);
} fx_command;

/* Runs cmd on argv (argv[0] is its name); returns the exit status. */
int fx_cli_main(const fx_command *cmd, int argc, char **argv);

/* The commands (cli/<name>.c), listed in cli/main.c. */
extern const fx_command fx_command_explore;
extern const fx_command fx_command_metrics;
extern const fx_command fx_command_collective;
extern const fx_command fx_command_calibrate;
extern const fx_command fx_command_bom;
extern const fx_command fx_command_power;
extern const fx_command fx_command_place;
extern const fx_command fx_command_plan;
extern const fx_command fx_command_compare;
extern const fx_command fx_command_render;
extern const fx_command fx_command_transport;
extern const fx_command fx_command_pool;
extern const fx_command fx_command_slice;
extern const fx_command fx_command_reconfigure;
extern const fx_command fx_command_failures;
extern const fx_command fx_command_merge;
extern const fx_command fx_command_jobs;
extern const fx_command fx_command_export;
extern const fx_command fx_command_import;
extern const fx_command fx_command_kinds;

#endif
