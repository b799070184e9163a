/*
 * version: what built this fabricx, for reports to say what produced them.
 */
#ifndef FX_VERSION_H
#define FX_VERSION_H

/* `git describe --always --dirty` of the tree at build time, or "unknown"
 * when it was not built from a git checkout. */
const char *fx_version(void);

#endif
