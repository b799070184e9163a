/*
 * fabricx: interconnect fabrics for AI supernodes — hop counts, cut sets,
 * link loads, power and placement.  The command table below is the table of
 * contents of the tool.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "../core/json.h"
#include "../core/version.h"
#include "../core/outfile.h"
#include "cli.h"

/* The commands in the order `fabricx help` lists them. */
static const fx_command *const commands[] = {
	&fx_command_explore,
	&fx_command_metrics,
	&fx_command_collective,
	&fx_command_calibrate,
	&fx_command_bom,
	&fx_command_power,
	&fx_command_place,
	&fx_command_plan,
	&fx_command_compare,
	&fx_command_render,
	&fx_command_transport,
	&fx_command_pool,
	&fx_command_slice,
	&fx_command_reconfigure,
	&fx_command_failures,
	&fx_command_merge,
	&fx_command_jobs,
	&fx_command_export,
	&fx_command_import,
	&fx_command_kinds,
	NULL,
};

static void usage(FILE *f)
{
	fprintf(f, "usage: fabricx COMMAND SPEC [options]\n\ncommands:\n");
	for (const fx_command *const *c = commands; *c; c++)
		fprintf(f, "  %-12s %s\n", (*c)->name, (*c)->summary);
	fprintf(f, "\n'fabricx COMMAND --help' shows a command's options.\n"
		   "exit status: 0 ok, 1 internal error, 2 bad input, 3 infeasible, 4 not decided\n");
}

static int kinds_main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			printf("usage: fabricx kinds [--json]\n\nLists the fabric kinds a spec's "
			       "'fabric.kind' can name, with what each describes.\n");
			return 0;
		}

	int json = 0;
	for (int i = 1; i < argc; i++)
		json |= strcmp(argv[i], "--json") == 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json")) {
			fx_diag d;
			fx_diag_init(&d);
			fx_diag_error(&d, NULL, "kinds takes no arguments but --json, got '%s'", argv[i]);
			if (json)
				fx_cli_print_json_error(&d, d.status);
			int status = d.status;
			fx_diag_release(&d);
			return status;
		}
	}
	static const fx_col cols[] = {
		{"kind", "kind", FX_F_TEXT},
		{"summary", "what it describes", FX_F_TEXT},
		{NULL, NULL, 0},
	};
	fx_table *t = fx_table_typed("kinds", "Fabric kinds (fabric.kind)", cols);
	for (const fx_builder *const *b = fx_builders; *b; b++) {
		fx_table_cell(t, "%s", (*b)->kind);
		fx_table_cell(t, "%s", (*b)->summary);
	}
	fx_cli_print_list(t, json);
	return 0;
}

const fx_command fx_command_kinds = {
	.name = "kinds",
	.summary = "list the fabric kinds a spec can describe",
	.main = kinds_main,
};

/* Standard output is a file like any other: a full disk, a closed pipe or
 * /dev/full must not pass for success.  Returns the exit status. */
static int finish_stdout(int status)
{
	int e = fx_stdout_close();
	if (!e)
		return status;
	fprintf(stderr, "fabricx: error: cannot write to standard output: %s\n", strerror(e));
	return status ? status : FX_EXIT_INPUT;  /* like any output that cannot be written */
}

static int run(int argc, char **argv);

/*
 * The program's choice of allocator policy (the library leaves it alone):
 * glibc maps every block past its threshold afresh and unmaps it on free,
 * so each collective's per-link arrays (24 MB each on a WSE-2) came back
 * as fresh pages the kernel had to fault in and zero again; on a virtual
 * machine that was a third of `explore wse2`'s CPU time.  Served from the
 * heap and kept there when freed, the next array of the run reuses them.
 * The peak resident size is about the same (393 against 376 MB on a
 * WSE-2): memory is reused, not added.
 */
static void alloc_policy(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_MAX, 0);                      /* no block mapped apart */
	mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);  /* freed memory stays for reuse */
#endif
}

/*
 * The program's signal policy (the library sets none): SIGPIPE is ignored,
 * so a closed pipe is an EPIPE that every writer reports (standard output
 * included, exit 2), never a silent kill half-way through a file.  Child
 * programs (gnuplot) get the default back (plot/run.c).  From the first
 * output file on, Ctrl-C, SIGTERM and SIGHUP remove the half-written
 * temporaries, and a file past `ulimit -f` is an EFBIG reported, not a
 * SIGXFSZ kill (core/outfile.h).
 */
static void signal_policy(void)
{
	signal(SIGPIPE, SIG_IGN);
	fx_outfile_policy(FX_OUTFILE_CLEANUP_ON_SIGNAL | FX_OUTFILE_EFBIG_NOT_SIGXFSZ);
}

int main(int argc, char **argv)
{
	alloc_policy();
	signal_policy();
	fx_stdout_wrap();
	return finish_stdout(run(argc, argv));
}

/* No command, or an unknown one: the message, the usage, and under --json
 * the error object every failure prints on stdout. */
static int no_command(int argc, char **argv, const char *name)
{
	int json = 0;
	for (int i = 1; i < argc; i++)
		json |= strcmp(argv[i], "--json") == 0;
	fx_diag d;
	fx_diag_init(&d);
	if (name)
		fx_diag_error(&d, NULL, "unknown command '%s'", name);
	else
		fx_diag_error(&d, NULL, "no command given");
	fputc('\n', stderr);
	usage(stderr);
	if (json)
		fx_cli_print_json_error(&d, d.status);
	int status = d.status;
	fx_diag_release(&d);
	return status;
}

static int run(int argc, char **argv)
{
	fx_cli_init();
	if (argc < 2 || strcmp(argv[1], "--json") == 0)
		return no_command(argc, argv, NULL);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 2 && strcmp(argv[1], "help") == 0)
			for (const fx_command *const *c = commands; *c; c++)
				if (strcmp((*c)->name, argv[2]) == 0) {
					char *av[] = {argv[2], "--help", NULL};
					return fx_cli_main(*c, 2, av);
				}
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("fabricx %s (build %s, igraph %s)\n", FX_VERSION, fx_version(), IGRAPH_VERSION);
		return 0;
	}
	for (const fx_command *const *c = commands; *c; c++)
		if (strcmp((*c)->name, argv[1]) == 0)
			return fx_cli_main(*c, argc - 1, argv + 1);
	return no_command(argc, argv, argv[1]);
}
