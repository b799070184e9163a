#define _GNU_SOURCE  /* pipe2, SOCK_CLOEXEC */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plot.h"

extern char **environ;

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The first line of gnuplot's standard error, printable characters only
 * (it may echo a title back). */
typedef struct errline {
	char s[200];
	size_t n;
	int done;
} errline;

static void keep(errline *l, const char *buf, size_t n)
{
	for (size_t i = 0; i < n && !l->done; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (c == '\n' && l->n > 0)
			l->done = 1;
		else if (c >= 0x20 && c != 0x7f && l->n + 1 < sizeof l->s)
			l->s[l->n++] = (char)c;
	}
	l->s[l->n] = '\0';
}

/* Whether an executable gnuplot is on PATH (as execvp would search it):
 * posix_spawnp reports a missing program as ENOENT only where it can (not
 * under valgrind, whose child then exits 127), so it is looked for first. */
static int on_path(void)
{
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path;; p++) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char buf[4096];
		if (n + sizeof "/gnuplot" <= sizeof buf) {
			if (n)
				snprintf(buf, sizeof buf, "%.*s/gnuplot", (int)n, p);
			else  /* an empty entry is the current folder, as for execvp */
				snprintf(buf, sizeof buf, "./gnuplot");
			if (access(buf, X_OK) == 0)
				return 1;
		}
		if (!end)
			return 0;
		p = end;
	}
}

static int start(pid_t *pid, int in, int out, int err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	if (posix_spawn_file_actions_init(&fa))
		return errno ? errno : ENOMEM;
	if (posix_spawnattr_init(&at)) {
		posix_spawn_file_actions_destroy(&fa);
		return errno ? errno : ENOMEM;
	}
	sigset_t none, def;
	sigemptyset(&none);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);  /* gnuplot gets the default, whatever ours is */
	int rc = posix_spawn_file_actions_adddup2(&fa, in, 0);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(&fa, out, 1);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(&fa, err, 2);
	if (!rc)
		rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	if (!rc)
		rc = posix_spawnattr_setsigmask(&at, &none);
	if (!rc)
		rc = posix_spawnattr_setsigdefault(&at, &def);
	char *argv[] = {"gnuplot", NULL};
	if (!rc)
		rc = posix_spawnp(pid, "gnuplot", &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	return rc;
}

int fx_plot_run(const char *script, size_t len, FILE *out, char *err, size_t errlen)
{
	int in[2] = {-1, -1}, op[2] = {-1, -1}, ep[2] = {-1, -1};
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) || pipe2(op, O_CLOEXEC) ||
	    pipe2(ep, O_CLOEXEC)) {
		snprintf(err, errlen, "cannot start gnuplot: %s", strerror(errno));
		for (int k = 0; k < 2; k++)
			close_fd(&in[k]), close_fd(&op[k]), close_fd(&ep[k]);
		return -1;
	}
	pid_t pid;
	int rc = on_path() ? start(&pid, in[1], op[1], ep[1]) : ENOENT;
	close_fd(&in[1]);
	close_fd(&op[1]);
	close_fd(&ep[1]);
	if (rc) {
		close_fd(&in[0]);
		close_fd(&op[0]);
		close_fd(&ep[0]);
		if (rc == ENOENT) {
			snprintf(err, errlen, "gnuplot is not installed (not found on PATH; Debian package "
				 "gnuplot-nox, which `make deps` installs)");
			return FX_PLOT_NO_GNUPLOT;
		}
		snprintf(err, errlen, "cannot start gnuplot: %s", strerror(rc));
		return -1;
	}
	size_t sent = 0, got = 0;
	int werr = 0, perr = 0;  /* the first errno of a write into out; of poll */
	errline el = {{0}, 0, 0};
	char buf[65536];
	while (op[0] >= 0 || ep[0] >= 0) {
		struct pollfd p[3];
		int n = 0, wi = -1, oi = -1, ei = -1;
		if (in[0] >= 0)
			p[wi = n++] = (struct pollfd){in[0], POLLOUT, 0};
		if (op[0] >= 0)
			p[oi = n++] = (struct pollfd){op[0], POLLIN, 0};
		if (ep[0] >= 0)
			p[ei = n++] = (struct pollfd){ep[0], POLLIN, 0};
		if (poll(p, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			perr = errno;
			break;
		}
		if (wi >= 0 && p[wi].revents) {
			ssize_t w = send(in[0], script + sent, len - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (w > 0)
				sent += (size_t)w;
			else if (w < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)
				close_fd(&in[0]);  /* EPIPE: gnuplot stopped reading; its status tells */
			if (sent == len)
				close_fd(&in[0]);  /* the end of the script */
		}
		if (oi >= 0 && p[oi].revents) {
			ssize_t r = read(op[0], buf, sizeof buf);
			if (r > 0) {
				got += (size_t)r;
				errno = 0;
				if (!werr && fwrite(buf, 1, (size_t)r, out) != (size_t)r)
					werr = errno ? errno : EIO;  /* gnuplot is still drained */
			} else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
				close_fd(&op[0]);
			}
		}
		if (ei >= 0 && p[ei].revents) {
			ssize_t r = read(ep[0], buf, sizeof buf);
			if (r > 0)
				keep(&el, buf, (size_t)r);
			else if (r == 0 || (errno != EINTR && errno != EAGAIN))
				close_fd(&ep[0]);
		}
	}
	close_fd(&in[0]);
	close_fd(&op[0]);
	close_fd(&ep[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			status = -1;
			break;
		}
	if (!werr && fflush(out) != 0)
		werr = errno ? errno : EIO;
	if (werr) {
		snprintf(err, errlen, "cannot write the picture: %s", strerror(werr));
		return -1;
	}
	if (perr) {
		snprintf(err, errlen, "cannot read from gnuplot: %s", strerror(perr));
		return -1;
	}
	if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 127 && got == 0 && !el.n) {
		snprintf(err, errlen, "gnuplot could not be started (exit status 127: not found or not "
			 "executable; Debian package gnuplot-nox)");
		return FX_PLOT_NO_GNUPLOT;
	}
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char how[48];
		if (status != -1 && WIFSIGNALED(status))
			snprintf(how, sizeof how, "killed by signal %d", WTERMSIG(status));
		else if (status != -1 && WIFEXITED(status))
			snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(status));
		else
			snprintf(how, sizeof how, "lost");
		snprintf(err, errlen, "gnuplot failed (%s)%s%s", how, el.n ? ": " : "", el.s);
		return -1;
	}
	if (got == 0) {
		snprintf(err, errlen, "gnuplot drew nothing%s%s", el.n ? ": " : "", el.s);
		return -1;
	}
	return 0;
}
