#include "outfile.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xalloc.h"

/* Temporaries open right now, for the signal handler: fixed storage, since
 * a handler may only call async-signal-safe functions (unlink, raise). */
#define MAX_PENDING 16
#define TMP_MAX_LEN 1024
static char pending[MAX_PENDING][TMP_MAX_LEN];
static volatile sig_atomic_t pending_used[MAX_PENDING];
static int handlers_set;

static void on_signal(int sig)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending_used[i])
			unlink(pending[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void set_handlers(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	if (handlers_set)
		return;
	handlers_set = 1;
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		/* leave alone a signal the caller chose to ignore (nohup) */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
}

static char *tmp_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	return fx_xasprintf("%.*s.%s.tmp.%ld", dirlen, path, path + dirlen, (long)getpid());
}

FILE *fx_outfile_open(fx_outfile *o, const char *path)
{
	memset(o, 0, sizeof *o);
	o->slot = -1;
	char *tmp = tmp_name(path);
	if (strlen(tmp) >= TMP_MAX_LEN) {
		free(tmp);
		errno = ENAMETOOLONG;
		return NULL;
	}
	set_handlers();
	int slot = -1;
	for (int i = 0; i < MAX_PENDING && slot < 0; i++)
		if (!pending_used[i])
			slot = i;
	if (slot >= 0) {
		memcpy(pending[slot], tmp, strlen(tmp) + 1);
		pending_used[slot] = 1;
	}
	FILE *f = fopen(tmp, "wb");
	if (!f) {
		int e = errno;
		if (slot >= 0)
			pending_used[slot] = 0;
		free(tmp);
		errno = e;
		return NULL;
	}
	o->f = f;
	o->tmp = tmp;
	o->path = fx_xstrdup(path);
	o->slot = slot;
	return f;
}

int fx_outfile_close(fx_outfile *o, int ok)
{
	if (!o->f)
		return 0;
	int failed = ferror(o->f) != 0;
	int e = failed ? EIO : 0;
	if (fclose(o->f) != 0 && !failed) {
		failed = 1;
		e = errno;
	}
	if (ok && !failed && rename(o->tmp, o->path) != 0) {
		failed = 1;
		e = errno;
	}
	if (!ok || failed)
		unlink(o->tmp);
	if (o->slot >= 0)
		pending_used[o->slot] = 0;
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof *o);
	o->slot = -1;
	if (failed && ok) {
		errno = e;
		return -1;
	}
	return 0;
}
