/*
 * Fuzz target: the command line of every command.
 *
 * An input is two bytes and then NUL-separated arguments:
 *
 *   byte 0     the command (commands[] below, modulo its length; import
 *              reads the spec's own file as the format --from names, or
 *              what "%N" names)
 *   byte 1     the spec (specs[] below, modulo its length, low 7 bits);
 *              its top bit runs the command with no gnuplot on PATH
 *   the rest   argv after the spec; an argument "--then" followed by a
 *              command name starts a second command on the same spec and
 *              folder, so `explore --shard 1/2 --then merge --from ...`
 *              or `explore --then explore --resume` are reachable
 *
 * An argument "%N" (or "%N@KEY=VALUE,...") names specs[N modulo its
 * length] (with those variants), for the commands that take several specs
 * (compare, render).
 *
 * Each input runs in a scratch folder of its own, emptied first, as the
 * current directory: explore's out/<name>/, render's default file and
 * every relative path an option names land there.  An argument that
 * starts with '/' (or an option's "=/..." value) is moved under the
 * folder and ".." is defused, so the writer meets empty names, "dir/",
 * FIFOs it did not make, deep and long paths, but never leaves the folder.
 * gnuplot is a sink (a script on PATH that reads its input and exits 0),
 * so every plot's script is generated and piped but no picture drawn.
 * Lifting the memory limit is not fuzzed; the placement solver is held
 * to a second (place, explore) so one input stays cheap.
 *
 * Built by `make fuzz FUZZ_TARGET=args`; replayed by fuzz/replay.c
 * (fuzz/corpus-args, fuzz/regress-args) in `make san-check`.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 32

/* The first three keep their places so inputs of the older three-command
 * target (metrics, collective, power) still mean what they meant. */
static const struct {
	const char *name;
	const fx_command *cmd;
	int solver;   /* takes --time-limit */
} commands[] = {
	{"metrics", &fx_command_metrics, 0},       {"collective", &fx_command_collective, 0},
	{"power", &fx_command_power, 0},           {"explore", &fx_command_explore, 1},
	{"place", &fx_command_place, 1},           {"compare", &fx_command_compare, 0},
	{"render", &fx_command_render, 0},         {"transport", &fx_command_transport, 0},
	{"pool", &fx_command_pool, 0},             {"slice", &fx_command_slice, 0},
	{"reconfigure", &fx_command_reconfigure, 0}, {"failures", &fx_command_failures, 0},
	{"merge", &fx_command_merge, 0},           {"export", &fx_command_export, 0},
	{"import", &fx_command_import, 0},         {"calibrate", &fx_command_calibrate, 0},
	{"plan", &fx_command_plan, 0},             {"bom", &fx_command_bom, 0},
	{"jobs", &fx_command_jobs, 1},
	/* kinds lives beside main() (cli/main.c), outside the objects a
	 * fuzz target links; it takes no argument but --json */
};
#define NCMD (sizeof commands / sizeof commands[0])

/* Small fabrics of every kind, with and without a workload, and a small
 * space; the first four as in the older target. */
static const char *const specs[] = {
	"specs/hgx-h100.yaml",      "specs/switched-64.yaml",
	"specs/dgx1.yaml",          "specs/tpu-v4-cube.yaml",
	"specs/nvl72.yaml",         "tests/specs/ring-8.yaml",
	"tests/specs/hgx-custom.yaml", "tests/specs/two-on-one-switch.yaml",
	"tests/specs/torus-4x4-failed.yaml", "fuzz/specs/fat-tree-k4.yaml",
	"fuzz/specs/ub-small.yaml", "fuzz/specs/wafer-small.yaml",
	"fuzz/specs/space-small.yaml", "fuzz/specs/mesh-workload.yaml",
	"fuzz/specs/dragonfly-small.yaml", "specs/hgx-h100-x2-rail.yaml",
};
#define NSPEC (sizeof specs / sizeof specs[0])

static char home[PATH_MAX], scratch[PATH_MAX], bin_sink[PATH_MAX], bin_none[PATH_MAX];
/* room for home, a slash and a spec's relative name */
static char spec_abs[NSPEC][PATH_MAX + 64];

static int unlink_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level > 0)
		remove(path);
	return 0;
}

static void empty_scratch(void)
{
	nftw(scratch, unlink_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* the scratch folders go with the process (libFuzzer and replay exit) */
static void remove_scratch(void)
{
	const char *dirs[] = {scratch, bin_sink, bin_none};
	for (int i = 0; i < 3; i++)
		nftw(dirs[i], unlink_one, 16, FTW_DEPTH | FTW_PHYS), rmdir(dirs[i]);
}

static void setup(void)
{
	fx_cli_init();
	if (!getcwd(home, sizeof home))
		abort();
	for (size_t i = 0; i < NSPEC; i++)
		if (snprintf(spec_abs[i], sizeof spec_abs[i], "%s/%s", home, specs[i]) >= (int)sizeof spec_abs[i])
			abort();
	long pid = (long)getpid();
	snprintf(scratch, sizeof scratch, "/tmp/fabricx-fuzz-%ld", pid);
	snprintf(bin_sink, sizeof bin_sink, "/tmp/fabricx-fuzz-%ld-bin", pid);
	snprintf(bin_none, sizeof bin_none, "/tmp/fabricx-fuzz-%ld-none", pid);
	mkdir(scratch, 0700);
	mkdir(bin_sink, 0700);
	mkdir(bin_none, 0700);
	char gp[PATH_MAX + 16];
	snprintf(gp, sizeof gp, "%s/gnuplot", bin_sink);
	FILE *f = fopen(gp, "w");
	if (!f)
		abort();
	fputs("#!/bin/sh\nexec /bin/cat >/dev/null\n", f);
	fclose(f);
	chmod(gp, 0700);
	atexit(remove_scratch);
	/* the commands print tables; nobody reads them here (their messages
	 * go to stderr: `make fuzz` closes it for this target with
	 * -close_fd_mask=2, and libFuzzer keeps its own copy); nothing
	 * reads standard input */
	if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "r", stdin))
		abort();
}

/* arg with a leading '/' (or "--opt=/...") moved under the scratch
 * folder and ".." defused; NULL when it needs no change. */
static char *confine(const char *arg)
{
	const char *v = arg;
	if (arg[0] == '-' && arg[1] == '-') {
		const char *eq = strchr(arg, '=');
		v = eq ? eq + 1 : arg + strlen(arg);
	}
	int abs = v[0] == '/';
	if (!abs && !strstr(arg, ".."))
		return NULL;
	size_t pre = (size_t)(v - arg), sl = strlen(scratch), al = strlen(arg);
	char *p = malloc(al + sl + 2);
	if (!p)
		return NULL;
	memcpy(p, arg, pre);
	size_t w = pre;
	if (abs) {
		memcpy(p + w, scratch, sl);
		w += sl;
	}
	memcpy(p + w, v, al - pre + 1);
	for (char *q = p; (q = strstr(q, "..")); )
		q[0] = q[1] = '_';
	return p;
}

/* "%N[@...]" as the absolute path of specs[N] (and the rest); NULL when
 * arg is not of that form. */
static char *spec_ref(const char *arg)
{
	if (arg[0] != '%' || arg[1] < '0' || arg[1] > '9')
		return NULL;
	char *end;
	unsigned long n = strtoul(arg + 1, &end, 10);
	const char *spec = spec_abs[n % NSPEC];
	size_t sl = strlen(spec), rl = strlen(end);
	char *p = malloc(sl + rl + 1);
	if (p) {
		memcpy(p, spec, sl);
		memcpy(p + sl, end, rl + 1);
	}
	return p;
}

static void run_one(int ci, int si, char **args, int nargs)
{
	char *argv[MAX_ARGS + 8];
	int argc = 0;
	argv[argc++] = (char *)commands[ci].name;
	if (strcmp(commands[ci].name, "kinds") != 0)
		argv[argc++] = spec_abs[si];
	for (int i = 0; i < nargs && argc < MAX_ARGS + 2; i++)
		argv[argc++] = args[i];
	if (commands[ci].solver) {
		argv[argc++] = "--time-limit";
		argv[argc++] = "1";
	}
	if (strcmp(commands[ci].name, "kinds") != 0) {
		argv[argc++] = "--max-memory";
		argv[argc++] = "256 MiB";
	}
	argv[argc] = NULL;
	int status = fx_cli_main(commands[ci].cmd, argc, argv);
	if (getenv("FABRICX_FUZZ_TRACE")) {   /* to see what a seed runs */
		for (int i = 0; i < argc; i++)
			fprintf(stderr, "%s'%s'", i ? " " : "", argv[i]);
		fprintf(stderr, " -> %d\n", status);
	}
}

static int command_named(const char *name)
{
	for (size_t i = 0; i < NCMD; i++)
		if (strcmp(commands[i].name, name) == 0)
			return (int)i;
	return -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!*scratch)
		setup();
	if (size < 2)
		return 0;
	int ci = (int)(data[0] % NCMD);
	int si = (int)((data[1] & 0x7f) % NSPEC);
	char *buf = malloc(size - 1);  /* the rest, NUL-terminated */
	if (!buf)
		return 0;
	memcpy(buf, data + 2, size - 2);
	buf[size - 2] = '\0';

	char *args[MAX_ARGS + 1];
	char *owned[MAX_ARGS + 1] = {0};
	int nargs = 0;
	for (size_t at = 0; at < size - 2 && nargs < MAX_ARGS;) {
		args[nargs++] = buf + at;
		at += strlen(buf + at) + 1;
	}
	for (int i = 0; i < nargs; i++) {
		if (strncmp(args[i], "--max-memory", 12) == 0)
			goto out;   /* lifting the memory limit is not fuzzed */
		if ((owned[i] = spec_ref(args[i])) || (owned[i] = confine(args[i])))
			args[i] = owned[i];
	}

	empty_scratch();
	if (chdir(scratch) != 0)
		goto out;
	const char *path = getenv("PATH");
	char *saved = path ? strdup(path) : NULL;
	char newpath[PATH_MAX + 32];
	snprintf(newpath, sizeof newpath, "%s:/usr/bin:/bin",
		 (data[1] & 0x80) ? bin_none : bin_sink);
	setenv("PATH", newpath, 1);

	int from = 0;
	for (int i = 0; i <= nargs; i++) {
		if (i < nargs && strcmp(args[i], "--then") != 0)
			continue;
		run_one(ci, si, args + from, i - from);
		if (i + 1 >= nargs || (ci = command_named(args[i + 1])) < 0)
			break;
		from = i + 2;
		i++;
	}

	if (saved) {
		setenv("PATH", saved, 1);
		free(saved);
	}
	if (chdir(home) != 0)   /* replay opens the next input by a relative path */
		abort();
out:
	for (int i = 0; i < nargs; i++)
		free(owned[i]);
	free(buf);
	return 0;
}
