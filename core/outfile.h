/*
 * outfile: files under out/ are written whole or not at all, and only
 * where they were asked for.
 *
 * A report that stops half-way (a failed command, a full disk, Ctrl-C)
 * must not be left behind looking complete.  fx_outfile_open() writes a
 * regular file to a fresh temporary beside the target, created with
 * mkstemp() ("DIR/.fxtmp.PID.XXXXXX": O_EXCL, so a planted symlink is never
 * followed, and short, so any legal target name has a legal temporary).
 * Only fx_outfile_close(o, 1) with every write, the flush and the close
 * successful renames it onto the target, atomically on POSIX file systems.
 * On failure the temporary is removed and the previous version of the
 * target (if any) stays intact; so too when SIGINT/SIGTERM/SIGHUP arrives
 * while a file is open, once the program asked for that with
 * fx_outfile_policy() (the library alone never touches a signal).
 *
 * Targets that are not regular files are never replaced:
 *   - a character device or FIFO (/dev/null, a terminal, a pipe) is written
 *     in place, as a shell redirection would;
 *   - a symbolic link to one of those (/dev/stdout) is written through;
 *   - a symbolic link to anything else fails with ELOOP, a directory or a
 *     path ending in '/' with EISDIR, a block device or socket with EPERM.
 *
 * Every write goes through a cookie that keeps the first real errno, so a
 * failure is reported as what it was (ENOSPC, EFBIG, EIO ...).
 *
 * Temporaries left by a run that was killed (SIGKILL, a power cut) are
 * removed by fx_outfile_sweep() when the next file is opened in that folder
 * (and by fx_cli_outdir): only names of our pattern, only regular files,
 * and only when their PID is gone.
 *
 * fx_outdir is the same promise for a whole folder (explore's out/<name>):
 * the run writes into a fresh hidden folder beside it and the commit swaps
 * it in at once; runs on one folder are serialised by a lock.
 *
 * Ownership: fx_outfile and fx_outdir own their FILE, paths and
 * descriptors until closed, committed or aborted.
 */
#ifndef FX_OUTFILE_H
#define FX_OUTFILE_H

#include <stdio.h>

typedef struct fx_outfile {
	FILE *f;
	char *path;   /* the target */
	char *tmp;    /* where it is written until closed; NULL when in place */
	int slot;     /* its entry in the signal handler's table, or -1 */
	void *cookie; /* the descriptor and the first errno of a failed write */
} fx_outfile;

/*
 * The process-wide policy, a program's choice and never the library's:
 * by default fx_outfile installs no signal handler and leaves every
 * disposition as it found it.  A program (cli/main.c) opts in, before its
 * first output file or folder, which is when the dispositions are set:
 *   FX_OUTFILE_CLEANUP_ON_SIGNAL  SIGINT, SIGTERM and SIGHUP remove the
 *       open temporaries, then take their default action (a signal the
 *       program ignores, nohup's SIGHUP, stays ignored);
 *   FX_OUTFILE_EFBIG_NOT_SIGXFSZ  SIGXFSZ is ignored, so a write past
 *       RLIMIT_FSIZE fails with EFBIG, which is reported and cleaned up,
 *       instead of the signal killing the run mid-file.
 * Flags add up; a call after the first file changes nothing.
 */
enum {
	FX_OUTFILE_CLEANUP_ON_SIGNAL = 1 << 0,
	FX_OUTFILE_EFBIG_NOT_SIGXFSZ = 1 << 1,
};
void fx_outfile_policy(unsigned flags);

/* Opens the temporary for `path` (or `path` itself, when a device or a
 * FIFO); returns its FILE, or NULL with errno set. */
FILE *fx_outfile_open(fx_outfile *o, const char *path);
/* Closes and, if ok and nothing failed, renames onto the target; else
 * removes the temporary.  Returns -1 with errno set (the real cause) when
 * ok was asked for but a write, the flush, the close or the rename failed;
 * 0 otherwise.  A no-op on an fx_outfile that was never opened. */
int fx_outfile_close(fx_outfile *o, int ok);
/* The whole of buf into path through the same temporary and rename:
 * 0, or -1 with errno set (the real cause). */
int fx_outfile_write(const char *path, const void *buf, size_t len);
/* Opens and closes of fx_outfile that failed so far in this process. */
long fx_outfile_failures(void);
/* Adds n failures counted by a child process working for this one
 * (core/isolate.h), so a run that checks the count sees them. */
void fx_outfile_failures_add(long n);
/* Removes temporaries left in dir by runs that no longer exist.  Errors
 * are ignored: a sweep never fails a run. */
void fx_outfile_sweep(const char *dir);

/*
 * A folder replaced whole: out/<name> as one unit.
 *
 *   fx_outdir od;
 *   if (fx_outdir_begin(&od, "out", name)) ... report errno
 *   ... write files under od.work (with fx_outfile, as usual) ...
 *   if (ok) rc = fx_outdir_commit(&od); else fx_outdir_abort(&od);
 *
 * begin creates ROOT (mkdir -p), takes an exclusive lock on
 * ROOT/.NAME.lock (flock: a second run on the same NAME waits for the
 * first), removes folders a killed run left (ROOT/.NAME.new.*), refuses a
 * symbolic link at ROOT/NAME (ELOOP) and creates the fresh folder
 * ROOT/.NAME.new.XXXXXX (od.work).  commit swaps od.work and ROOT/NAME
 * atomically (renameat2 RENAME_EXCHANGE; a plain rename if ROOT/NAME did
 * not exist), then removes the previous folder and releases the lock.
 * abort removes od.work and releases the lock, leaving ROOT/NAME as it
 * was.  Both return -1 with errno set on failure; abort never fails.
 * NAME must already obey the name rule (fx_name_check in spec/spec.h).
 */
typedef struct fx_outdir {
	char *path;   /* ROOT/NAME, the folder readers see */
	char *work;   /* ROOT/.NAME.new.XXXXXX, written during the run */
	int lock;     /* the lock file's descriptor, or -1 */
} fx_outdir;

int fx_outdir_begin(fx_outdir *d, const char *root, const char *name);
int fx_outdir_commit(fx_outdir *d);
void fx_outdir_abort(fx_outdir *d);

/* Makes stdout keep the errno of its first failed write (call first in
 * main), and closes it: 0, or that errno (ENOSPC for /dev/full, EPIPE for
 * a closed pipe when SIGPIPE is ignored). */
void fx_stdout_wrap(void);
int fx_stdout_close(void);

/* mkdir -p: every missing folder of path.  0, or -1 with errno set. */
int fx_mkdirs(const char *path);

#endif
