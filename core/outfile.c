#define _GNU_SOURCE  /* fopencookie, renameat2, flock */
#include "outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "xalloc.h"

#define TMP_PREFIX ".fxtmp."

/* Temporaries open right now, for the signal handler, which may only call
 * async-signal-safe functions (unlink, raise): each entry is set only once
 * its string is whole. */
#define MAX_PENDING 16
static char *volatile pending[MAX_PENDING];
static char *volatile pending_dir;  /* an fx_outdir's work folder */
static int handlers_set;
static unsigned policy;  /* fx_outfile_policy's flags */

/* Empties and removes a flat folder with system calls only (getdents64,
 * unlinkat, rmdir): opendir and readdir may allocate, which a signal
 * handler must not. */
static void remove_flat_dir(const char *dir)
{
	static char buf[4096];
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	long n;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
		for (long off = 0; off < n;) {
			struct linux_dirent64 {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *de = (void *)(buf + off);
			if (strcmp(de->name, ".") && strcmp(de->name, ".."))
				unlinkat(fd, de->name, 0);
			off += de->reclen;
		}
	}
	close(fd);
	rmdir(dir);
}

static void on_signal(int sig)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i])
			unlink(pending[i]);
	if (pending_dir)
		remove_flat_dir(pending_dir);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* The policy's dispositions, set on the first file or folder opened (as
 * they were before the policy became the program's choice), and only
 * where the program asked for them (fx_outfile_policy). */
static void set_handlers(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	if (handlers_set || !policy)
		return;
	handlers_set = 1;
	for (size_t i = 0; (policy & FX_OUTFILE_CLEANUP_ON_SIGNAL) && i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		/* leave alone a signal the caller chose to ignore (nohup) */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
	/* past RLIMIT_FSIZE a write fails with EFBIG, which is reported and
	 * cleaned up, instead of the signal killing the run mid-file */
	if (policy & FX_OUTFILE_EFBIG_NOT_SIGXFSZ)
		signal(SIGXFSZ, SIG_IGN);
}

/* Only before the first file: the dispositions are set once. */
void fx_outfile_policy(unsigned flags)
{
	policy |= flags;
}

/* ---- the FILE: writes to a descriptor, keeping the first errno ---- */

typedef struct cookie {
	int fd;
	int err;
} cookie;

static ssize_t ck_write(void *c, const char *buf, size_t len)
{
	cookie *k = c;
	size_t done = 0;
	while (done < len) {
		ssize_t w = write(k->fd, buf + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!k->err)
				k->err = w < 0 ? errno : ENOSPC;
			/* fopencookie(3): 0 on error, never negative.  glibc adds a
			 * -1 to its count of what is left and writes a byte past the
			 * caller's buffer (valgrind: --plot onto /dev/full). */
			errno = k->err;
			return (ssize_t)done;
		}
		done += (size_t)w;
	}
	return (ssize_t)done;
}

static int ck_close(void *c)
{
	cookie *k = c;
	int rc = close(k->fd);
	if (rc && !k->err && errno != EINTR)
		k->err = errno;
	k->fd = -1;
	return k->err ? -1 : 0;
}

static FILE *cookie_file(fx_outfile *o, int fd)
{
	cookie *k = fx_xcalloc(1, sizeof *k);
	k->fd = fd;
	cookie_io_functions_t io = {NULL, ck_write, NULL, ck_close};
	FILE *f = fopencookie(k, "w", io);
	if (!f) {
		int e = errno;
		close(fd);
		free(k);
		errno = e;
		return NULL;
	}
	o->cookie = k;
	return f;
}

/* Standard output through the same kind of cookie, so its first failed
 * write is known by its real errno however much was printed after it. */
static cookie stdout_ck = {1, 0};

void fx_stdout_wrap(void)
{
	cookie_io_functions_t io = {NULL, ck_write, NULL, ck_close};
	FILE *f = fopencookie(&stdout_ck, "w", io);
	if (!f)
		return;  /* the plain stdout still has its error flag */
	setvbuf(f, NULL, isatty(1) ? _IOLBF : _IOFBF, BUFSIZ);
	fflush(stdout);
	stdout = f;
}

int fx_stdout_close(void)
{
	int e = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		e = stdout_ck.err ? stdout_ck.err : errno ? errno : EIO;
	if (fclose(stdout) != 0 && !e)
		e = stdout_ck.err ? stdout_ck.err : errno ? errno : EIO;
	return e;
}

/* ---- temporaries ---- */

static mode_t cur_umask(void)
{
	static mode_t mask = (mode_t)-1;
	if (mask == (mode_t)-1) {
		mask = umask(0);
		umask(mask);
	}
	return mask;
}

/* What open(O_CREAT, 0666) would have given: mkstemp makes 0600. */
static mode_t file_mode(void)
{
	return 0666 & ~cur_umask();
}

/* DIR/ of path, with its slash ("" for a bare name). */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return fx_xstrndup(path, slash ? (size_t)(slash - path + 1) : 0);
}

static int take_slot(char *tmp)
{
	for (int i = 0; i < MAX_PENDING; i++)
		if (!pending[i]) {
			pending[i] = tmp;
			return i;
		}
	return -1;  /* no signal cleanup for this one; the next sweep removes it */
}

static FILE *open_out(fx_outfile *o, const char *path)
{
	memset(o, 0, sizeof *o);
	o->slot = -1;
	size_t len = strlen(path);
	if (len == 0) {
		errno = ENOENT;
		return NULL;
	}
	if (path[len - 1] == '/') {
		errno = EISDIR;
		return NULL;
	}
	set_handlers();
	struct stat st, target;
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode)) {
			/* through a link only to a device or a pipe (/dev/stdout) */
			if (stat(path, &target) != 0 || !(S_ISCHR(target.st_mode) || S_ISFIFO(target.st_mode))) {
				errno = ELOOP;
				return NULL;
			}
			st = target;
		}
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			return NULL;
		}
		if (S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode)) {
			errno = EPERM;
			return NULL;
		}
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
			int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
			if (fd < 0)
				return NULL;
			o->f = cookie_file(o, fd);
			if (o->f)
				o->path = fx_xstrdup(path);
			return o->f;
		}
	} else if (errno != ENOENT) {
		return NULL;
	}
	char *dir = dir_of(path);
	fx_outfile_sweep(*dir ? dir : ".");  /* what killed runs left beside it */
	char *tmp = fx_xasprintf("%s" TMP_PREFIX "%ld.XXXXXX", dir, (long)getpid());
	free(dir);
	int fd = mkostemp(tmp, O_CLOEXEC);  /* not inherited by gnuplot (plot/run.c) */
	if (fd < 0 || fchmod(fd, file_mode()) != 0) {
		int e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		errno = e;
		return NULL;
	}
	o->slot = take_slot(tmp);
	o->f = cookie_file(o, fd);
	if (!o->f) {
		int e = errno;
		unlink(tmp);
		if (o->slot >= 0)
			pending[o->slot] = NULL;
		free(tmp);
		o->slot = -1;
		errno = e;
		return NULL;
	}
	o->tmp = tmp;
	o->path = fx_xstrdup(path);
	return o->f;
}

static int close_out(fx_outfile *o, int ok)
{
	if (!o->f)
		return 0;
	cookie *k = o->cookie;
	int e = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		e = k->err ? k->err : EIO;
	if (fclose(o->f) != 0 && !e)
		e = k->err ? k->err : EIO;
	if (ok && !e && o->tmp && rename(o->tmp, o->path) != 0)
		e = errno;
	if (o->tmp && (!ok || e))
		unlink(o->tmp);
	if (o->slot >= 0)
		pending[o->slot] = NULL;
	free(o->tmp);
	free(o->path);
	free(k);
	memset(o, 0, sizeof *o);
	o->slot = -1;
	if (e && ok) {
		errno = e;
		return -1;
	}
	return 0;
}

/* Writes that failed in this process: a run that writes many files (explore)
 * commits them only when none failed. */
static long failed_writes;

long fx_outfile_failures(void)
{
	return failed_writes;
}

void fx_outfile_failures_add(long n)
{
	if (n > 0)
		failed_writes += n;
}

FILE *fx_outfile_open(fx_outfile *o, const char *path)
{
	FILE *f = open_out(o, path);
	failed_writes += f == NULL;
	return f;
}

int fx_outfile_close(fx_outfile *o, int ok)
{
	int rc = close_out(o, ok);
	failed_writes += rc != 0;
	return rc;
}

int fx_outfile_write(const char *path, const void *buf, size_t len)
{
	fx_outfile o;
	FILE *f = fx_outfile_open(&o, path);
	if (!f)
		return -1;
	if (fwrite(buf, 1, len, f) == len)
		return fx_outfile_close(&o, 1);
	int e = errno;  /* the write's cause, not the clean-up's */
	fx_outfile_close(&o, 0);
	errno = e;
	return -1;
}

/* The PID in a temporary's name: ".fxtmp.PID.XXXXXX", or the older
 * ".NAME.tmp.PID"; 0 when the name is not one of ours. */
static long tmp_pid(const char *name)
{
	char *end;
	if (strncmp(name, TMP_PREFIX, strlen(TMP_PREFIX)) == 0) {
		long pid = strtol(name + strlen(TMP_PREFIX), &end, 10);
		return *end == '.' && strlen(end) == 7 && pid > 0 ? pid : 0;
	}
	const char *t = name[0] == '.' ? strstr(name, ".tmp.") : NULL;
	if (!t)
		return 0;
	long pid = strtol(t + 5, &end, 10);
	return *end == '\0' && end > t + 5 && pid > 0 ? pid : 0;
}

void fx_outfile_sweep(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return;
	DIR *dp = fdopendir(dfd);
	if (!dp) {
		close(dfd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(dp))) {
		long pid = tmp_pid(de->d_name);
		struct stat st;
		if (pid <= 0 || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;  /* alive (or not ours to ask about): leave it */
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			unlinkat(dfd, de->d_name, 0);
	}
	closedir(dp);
}

/* ---- folders ---- */

int fx_mkdirs(const char *path)
{
	if (!*path) {
		errno = ENOENT;
		return -1;
	}
	char *buf = fx_xstrdup(path);
	int rc = 0;
	for (char *p = buf + 1; *p && rc == 0; p++)
		if (*p == '/' && p[-1] != '/') {
			*p = '\0';
			if (mkdir(buf, 0777) && errno != EEXIST)
				rc = -1;
			*p = '/';
		}
	if (rc == 0 && mkdir(buf, 0777) && errno != EEXIST)
		rc = -1;
	struct stat st;
	if (rc == 0 && (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))) {
		if (rc == 0 && errno != ENOENT)
			errno = ENOTDIR;
		rc = -1;
	}
	int e = errno;
	free(buf);
	errno = e;
	return rc;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(p);
	else
		unlink(p);
	return 0;
}

/* rm -r without following links. */
static void remove_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Folders a killed run left beside ROOT/NAME; the caller holds the lock. */
static void sweep_dirs(const char *root, const char *name)
{
	DIR *dp = opendir(root);
	if (!dp)
		return;
	char *prefix = fx_xasprintf(".%s.new.", name);
	size_t plen = strlen(prefix);
	struct dirent *de;
	while ((de = readdir(dp))) {
		if (strncmp(de->d_name, prefix, plen) != 0 || strlen(de->d_name) != plen + 6)
			continue;
		char *p = fx_xasprintf("%s/%s", root, de->d_name);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			remove_tree(p);
		free(p);
	}
	free(prefix);
	closedir(dp);
	fx_outfile_sweep(root);
}

static void outdir_free(fx_outdir *d)
{
	if (pending_dir == d->work)
		pending_dir = NULL;
	if (d->lock >= 0)
		close(d->lock);  /* releases the flock */
	free(d->path);
	free(d->work);
	d->path = d->work = NULL;
	d->lock = -1;
}

int fx_outdir_begin(fx_outdir *d, const char *root, const char *name)
{
	memset(d, 0, sizeof *d);
	d->lock = -1;
	if (fx_mkdirs(root))
		return -1;
	char *lock = fx_xasprintf("%s/.%s.lock", root, name);
	d->lock = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
	free(lock);
	int e;
	while (d->lock >= 0 && flock(d->lock, LOCK_EX) != 0)
		if (errno != EINTR)
			goto fail;
	if (d->lock < 0)
		goto fail;
	sweep_dirs(root, name);
	d->path = fx_xasprintf("%s/%s", root, name);
	struct stat st;
	if (lstat(d->path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		errno = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
		goto fail;
	}
	d->work = fx_xasprintf("%s/.%s.new.XXXXXX", root, name);
	if (!mkdtemp(d->work))
		goto fail;
	chmod(d->work, 0777 & ~cur_umask());  /* as mkdir would; mkdtemp makes 0700 */
	set_handlers();
	pending_dir = d->work;  /* Ctrl-C removes it (it holds files only) */
	return 0;
fail:
	e = errno;
	free(d->work);
	d->work = NULL;
	outdir_free(d);
	errno = e;
	return -1;
}

int fx_outdir_commit(fx_outdir *d)
{
	int rc = 0;
	if (renameat2(AT_FDCWD, d->work, AT_FDCWD, d->path, RENAME_EXCHANGE) == 0) {
		remove_tree(d->work);  /* now the previous folder */
	} else if (errno == ENOENT) {
		rc = rename(d->work, d->path);
	} else if (errno == EINVAL || errno == ENOSYS) {
		/* no atomic exchange here: move the old folder aside first */
		char *root = dir_of(d->path);
		char *old = fx_xasprintf("%s%s", root, strrchr(d->work, '/') + 1);
		free(root);
		memcpy(old + strlen(old) - 6, "XXXXXX", 6);
		rc = mkdtemp(old) ? rmdir(old) : -1;  /* a fresh name the sweep knows */
		if (rc == 0)
			rc = rename(d->path, old);
		if (rc == 0 && (rc = rename(d->work, d->path)) != 0) {
			int e = errno;
			rename(old, d->path);
			errno = e;
		}
		if (rc == 0)
			remove_tree(old);
		free(old);
	} else {
		rc = -1;
	}
	int e = errno;
	if (rc)
		remove_tree(d->work);
	outdir_free(d);
	errno = e;
	return rc;
}

void fx_outdir_abort(fx_outdir *d)
{
	if (d->work)
		remove_tree(d->work);
	outdir_free(d);
}
