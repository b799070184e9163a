/*
 * Runs files through the fuzz target without libFuzzer, so the corpus and
 * every past finding are replayed under gcc's ASan/UBSan in CI:
 *
 *   replay FILE|DIR...
 *
 * Exits 0 when every input ran (a sanitizer aborts the process otherwise).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	size_t cap = 4096, len = 0, r;
	uint8_t *buf = malloc(cap);
	while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
		len += r;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	if (!buf)
		return -1;
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files of a directory in name order, so a failure is reproducible. */
static int run_dir(const char *dir, long *count)
{
	DIR *d = opendir(dir);
	if (!d) {
		perror(dir);
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || (len > 3 && strcmp(e->d_name + len - 3, ".md") == 0))
			continue;  /* hidden files and the folder's README.md */
		if (n == cap)
			names = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n > 1)  /* qsort may not be given NULL, even for nothing */
		qsort(names, n, sizeof *names, cmp);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		struct stat st;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			rc |= run_file(path);
			(*count)++;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	long count = 0;
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			rc |= run_dir(argv[i], &count);
		} else {
			rc |= run_file(argv[i]);
			count++;
		}
	}
	/* stderr: the args target sends stdout to /dev/null */
	fprintf(stderr, "replay: %ld inputs ran through the fuzz target\n", count);
	return rc ? 1 : 0;
}
