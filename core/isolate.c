#include "isolate.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "outfile.h"
#include "xalloc.h"

/* What the child sends back, then text, last and first (the lengths). */
typedef struct answer {
	int rc, status, nerr;
	long files;        /* outfile failures counted in the child */
	size_t ltext, llast, lfirst;
} answer;

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

static void child(int fd, int (*fn)(void *, fx_diag *), void *arg, fx_diag *d)
{
	char *text = NULL;
	size_t ltext = 0;
	FILE *cap = open_memstream(&text, &ltext);
	if (cap)
		d->out = cap;  /* the parent prints them, in its order */
	int nerr = d->nerr;
	char *first = d->first, *last = d->last;
	d->status = 0;
	long files = fx_outfile_failures();
	answer a = {.rc = fn(arg, d)};
	if (cap)
		fclose(cap);
	a.status = d->status;
	a.nerr = d->nerr - nerr;
	a.files = fx_outfile_failures() - files;
	const char *nl = d->last != last && d->last ? d->last : "";
	const char *nf = d->first != first && d->first ? d->first : "";
	a.ltext = text ? ltext : 0;
	a.llast = strlen(nl);
	a.lfirst = strlen(nf);
	int bad = write_all(fd, &a, sizeof a) || write_all(fd, text ? text : "", a.ltext) ||
		  write_all(fd, nl, a.llast) || write_all(fd, nf, a.lfirst);
	_exit(bad ? 1 : 0);
}

/* Reads the child's whole answer (to its end of file). */
static char *read_all(int fd, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = fx_xmalloc(cap);
	for (;;) {
		if (n == cap)
			buf = fx_xgrow(buf, &cap, n + 1, 1);
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	*len = n;
	return buf;
}

int fx_isolate(const char *what, int (*fn)(void *arg, fx_diag *d), void *arg, fx_diag *d)
{
	fx_diag local;  /* no fx_diag given: the child still needs one to count in */
	if (!d) {
		fx_diag_init(&local);
		int rc = fx_isolate(what, fn, arg, &local);
		fx_diag_release(&local);
		return rc;
	}
	int p[2];
	if (pipe(p) != 0)
		return fn(arg, d);  /* no isolation to be had: the work still runs */
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return fn(arg, d);
	}
	if (pid == 0) {
		close(p[0]);
		child(p[1], fn, arg, d);
	}
	close(p[1]);
	size_t len;
	char *buf = read_all(p[0], &len);
	close(p[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			st = -1;
			break;
		}
	answer a;
	int whole = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && len >= sizeof a;
	if (whole) {
		memcpy(&a, buf, sizeof a);
		whole = len == sizeof a + a.ltext + a.llast + a.lfirst;
	}
	if (!whole) {
		free(buf);
		if (st != -1 && WIFSIGNALED(st))
			return fx_diag_internal(d, "%s: killed by signal %d (%s)", what, WTERMSIG(st),
						strsignal(WTERMSIG(st)));
		return fx_diag_internal(d, "%s: the child process that ran it ended without an answer",
					what);
	}
	const char *text = buf + sizeof a, *last = text + a.ltext, *first = last + a.llast;
	fwrite(text, 1, a.ltext, d->out);
	d->nerr += a.nerr;
	if (fx_diag_gravity(a.status) > fx_diag_gravity(d->status))
		d->status = a.status;
	if (a.llast) {
		free(d->last);
		d->last = fx_xstrndup(last, a.llast);
	}
	if (a.lfirst && !d->first)
		d->first = fx_xstrndup(first, a.lfirst);
	fx_outfile_failures_add(a.files);
	free(buf);
	return a.rc ? -1 : 0;
}
