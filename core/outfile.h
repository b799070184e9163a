/*
 * outfile: files under out/ are written whole or not at all.
 *
 * A report that stops half-way (a failed command, a full disk, Ctrl-C)
 * must not be left behind looking complete.  fx_outfile_open() writes to a
 * hidden temporary beside the target ("DIR/.NAME.tmp.PID"); only
 * fx_outfile_close(o, 1) with every write successful renames it onto the
 * target, atomically on POSIX file systems.  On failure, or when a
 * SIGINT/SIGTERM/SIGHUP arrives while a file is open, the temporary is
 * removed and the previous version of the target (if any) stays intact.
 *
 * Ownership: fx_outfile owns its FILE and paths until fx_outfile_close().
 */
#ifndef FX_OUTFILE_H
#define FX_OUTFILE_H

#include <stdio.h>

typedef struct fx_outfile {
	FILE *f;
	char *path;   /* the target */
	char *tmp;    /* where it is written until closed */
	int slot;     /* its entry in the signal handler's table */
} fx_outfile;

/* Opens the temporary for `path`; returns its FILE, or NULL with errno set. */
FILE *fx_outfile_open(fx_outfile *o, const char *path);
/* Closes and, if ok and nothing failed, renames onto the target; else
 * removes the temporary.  Returns -1 with errno set when ok was asked for
 * but a write, the close or the rename failed; 0 otherwise.  A no-op on an
 * fx_outfile that was never opened. */
int fx_outfile_close(fx_outfile *o, int ok);

#endif
