/*
 * outdir: a run's output folder, replaced whole or not at all.
 *
 * explore writes out/<name>/ as one report: its files must come from one
 * run.  So the run writes into a staging folder beside the target
 * (out/.<name>.new-XXXXXX, made by mkdtemp), and only when every file is
 * complete swaps it with the target in one rename (renameat2 with
 * RENAME_EXCHANGE when the target exists), then removes the old folder.
 * A failed run removes its staging folder and leaves the target as it
 * was.  Runs on the same name are serialised by an flock on
 * out/.<name>.lock, held from begin to commit or abort; so any staging or
 * old folder found under the lock was left by a killed run, and is swept.
 * A target that is a symbolic link, or not a folder, is refused rather
 * than followed or replaced.
 *
 * Ownership: the fx_outdir holds its paths and the lock until commit or
 * abort, which release them.
 */
#ifndef FX_OUTDIR_H
#define FX_OUTDIR_H

typedef struct fx_outdir {
	char *final;    /* root/name */
	char *stage;    /* root/.name.new-XXXXXX: write here */
	int lock_fd;    /* -1 when not held */
} fx_outdir;

/* Creates root if needed, takes the lock, sweeps stale folders and makes
 * the staging folder.  0, or -1 with errno (and *what naming the path
 * that failed, owned by o until commit/abort; may be NULL). */
int fx_outdir_begin(fx_outdir *o, const char *root, const char *name, const char **what);
/* Swaps the staging folder in; 0 or -1 with errno (the staging folder is
 * then removed and the target kept).  Releases o either way. */
int fx_outdir_commit(fx_outdir *o);
/* Removes the staging folder; releases o. */
void fx_outdir_abort(fx_outdir *o);

#endif
