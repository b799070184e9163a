/*
 * Fuzz target: the command line.  One input is NUL-separated arguments;
 * the first byte picks the command (metrics, collective, power) and the
 * spec (the tool's small shipped specs), the rest become argv after it, so
 * the fuzzer mutates options and their values (--size, --ranks, --group,
 * --chunks, --cut selectors, --set, ...).  Output goes to /dev/null and
 * files under a scratch folder in /tmp: the options that name files
 * (--out, -o, --links, --lp, --csv) are fuzzed with their values moved
 * under it.
 *
 * Built by `make fuzz FUZZ_TARGET=args`; replayed by fuzz/replay.c like the
 * spec target (fuzz/corpus-args, fuzz/regress-args).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cli/cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 24

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{"metrics", fx_cmd_metrics}, {"collective", fx_cmd_collective}, {"power", fx_cmd_power},
};
/* small fabrics of different kinds, so one input stays fast */
static const char *const specs[] = {"specs/hgx-h100.yaml", "specs/switched-64.yaml",
				    "specs/dgx1.yaml", "specs/tpu-v4-cube.yaml"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out_dir[64];
	if (!*out_dir) {
		fx_cli_init();
		snprintf(out_dir, sizeof out_dir, "/tmp/fabricx-fuzz-%ld", (long)getpid());
		/* the commands print tables; nobody reads them here (their
		 * messages go to stderr: `make fuzz` closes it for this target
		 * with -close_fd_mask=2, and libFuzzer keeps its own copy) */
		if (!freopen("/dev/null", "w", stdout))
			abort();
	}
	if (size < 1)
		return 0;
	size_t nc = sizeof commands / sizeof commands[0], ns = sizeof specs / sizeof specs[0];
	int ci = (int)(data[0] % nc);
	const char *spec = specs[(data[0] / nc) % ns];
	char *buf = malloc(size);  /* the rest, NUL-terminated */
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	char *argv[MAX_ARGS + 7];
	int argc = 0;
	argv[argc++] = (char *)commands[ci].name;
	argv[argc++] = (char *)spec;
	argv[argc++] = "--out";
	argv[argc++] = out_dir;
	for (size_t at = 0; at < size - 1 && argc < MAX_ARGS + 4;) {
		argv[argc++] = buf + at;
		at += strlen(buf + at) + 1;
	}
	/* lifting the memory limit is not fuzzed */
	for (int i = 4; i < argc; i++)
		if (strncmp(argv[i], "--max-memory", 12) == 0) {
			free(buf);
			return 0;
		}
	/* options that write files are fuzzed inside the scratch folder: each
	 * value becomes OUT/value with ".." defused, so the writer meets empty
	 * names, "dir/", deep and long paths, but never leaves the folder */
	static const char *const paths[] = {"--out", "--output", "-o", "--links", "--lp",
					    "--csv", NULL};
	char *owned[MAX_ARGS + 7] = {0};
	for (int i = 4; i < argc; i++)
		for (int b = 0; paths[b]; b++) {
			size_t l = strlen(paths[b]);
			if (strncmp(argv[i], paths[b], l) != 0 || (argv[i][l] && argv[i][l] != '='))
				continue;
			int at = argv[i][l] == '=' ? i : i + 1;  /* the value: "--opt=v" or "--opt v" */
			if (at >= argc)
				break;
			const char *v = at == i ? argv[i] + l + 1 : argv[at];
			size_t vl = strlen(v), ol = strlen(out_dir);
			char *p = malloc(ol + vl + 2 + (at == i ? l + 1 : 0));
			if (!p)
				break;
			char *w = p;
			if (at == i) {
				memcpy(w, paths[b], l);
				w += l;
				*w++ = '=';
			}
			memcpy(w, out_dir, ol);
			w[ol] = '/';
			memcpy(w + ol + 1, v, vl + 1);
			for (char *q = w + ol + 1; (q = strstr(q, "..")); )
				q[0] = q[1] = '_';
			owned[at] = argv[at] = p;
			break;
		}
	argv[argc++] = "--max-memory";
	argv[argc++] = "256 MiB";
	argv[argc] = NULL;
	(void)commands[ci].fn(argc, argv);
	for (int i = 0; i < argc; i++)
		free(owned[i]);
	free(buf);
	return 0;
}
