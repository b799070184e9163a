/* renameat2 and flock are Linux/BSD, not POSIX */
#define _GNU_SOURCE
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) ? -1 : 0;
}

/* rm -rf of a folder this module made (never follows symbolic links). */
static void remove_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void release(fx_outdir *o)
{
	if (o->lock_fd >= 0)
		close(o->lock_fd);  /* releases the flock */
	free(o->final);
	free(o->stage);
	o->final = o->stage = NULL;
	o->lock_fd = -1;
}

/* Staging and old folders of `name` left by killed runs. */
static void sweep(const char *root, const char *name)
{
	DIR *d = opendir(root);
	if (!d)
		return;
	char *new_ = fx_xasprintf(".%s.new-", name), *old = fx_xasprintf(".%s.old-", name);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, new_, strlen(new_)) && strncmp(e->d_name, old, strlen(old)))
			continue;
		char *p = fx_xasprintf("%s/%s", root, e->d_name);
		remove_tree(p);
		free(p);
	}
	closedir(d);
	free(new_);
	free(old);
}

static int mkdir_p(const char *path)
{
	char *p = fx_xstrdup(path);
	int rc = 0;
	for (char *s = p + 1; *s && rc == 0; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0777) && errno != EEXIST)
				rc = -1;
			*s = '/';
		}
	if (rc == 0 && mkdir(p, 0777) && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
}

int fx_outdir_begin(fx_outdir *o, const char *root, const char *name, const char **what)
{
	o->final = fx_xasprintf("%s/%s", root, name);
	o->stage = fx_xasprintf("%s/.%s.new-XXXXXX", root, name);
	o->lock_fd = -1;
	if (what)
		*what = root;
	if (mkdir_p(root))
		goto fail;
	char *lock = fx_xasprintf("%s/.%s.lock", root, name);
	o->lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
	free(lock);
	if (o->lock_fd < 0 || flock(o->lock_fd, LOCK_EX))
		goto fail;
	struct stat st;
	if (what)
		*what = o->final;
	if (lstat(o->final, &st) == 0 && (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode))) {
		errno = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
		goto fail;
	}
	sweep(root, name);
	if (what)
		*what = o->stage;
	if (!mkdtemp(o->stage))
		goto fail;
	mode_t mask = umask(0);  /* mkdtemp makes it 0700: a report folder is not private */
	umask(mask);
	if (chmod(o->stage, 0777 & ~mask))
		goto fail;
	return 0;
fail:;
	int e = errno;
	release(o);
	errno = e;
	return -1;
}

int fx_outdir_commit(fx_outdir *o)
{
	int rc;
	if (renameat2(AT_FDCWD, o->stage, AT_FDCWD, o->final, RENAME_EXCHANGE) == 0) {
		rc = 0;  /* the old report is now at the staging path */
	} else if (errno == ENOENT) {
		rc = rename(o->stage, o->final);  /* no earlier report */
	} else if (errno == EINVAL || errno == ENOSYS) {
		/* no RENAME_EXCHANGE on this file system: two renames, with a
		 * moment between them when there is no report */
		char *old = fx_xasprintf("%s.old", o->stage);
		rc = rename(o->final, old);
		if (rc == 0 && (rc = rename(o->stage, o->final)) != 0)
			rename(old, o->final);
		else if (rc == 0)
			remove_tree(old);
		free(old);
	} else {
		rc = -1;
	}
	int e = errno;
	remove_tree(o->stage);
	release(o);
	errno = e;
	return rc;
}

void fx_outdir_abort(fx_outdir *o)
{
	if (o->stage && !strstr(o->stage, "XXXXXX"))
		remove_tree(o->stage);
	release(o);
}
