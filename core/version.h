/*
 * version: which fabricx this is.
 *
 * FX_VERSION_MAJOR/MINOR/PATCH are the release, the one place it is set:
 * the Makefile reads them from here (fabricx.pc's Version, `fabricx
 * --version`), and a program checks them at compile time
 * (#if FX_VERSION_MAJOR == 0 ...) and against the library it runs with
 * (fx_version_release()).  MAJOR goes up with an incompatible change of
 * the API, MINOR with additions, PATCH with fixes.  The shared library's
 * ABI version (its soname, Makefile SO_MAJOR) is counted apart.
 */
#ifndef FX_VERSION_H
#define FX_VERSION_H

#define FX_VERSION_MAJOR 0
#define FX_VERSION_MINOR 1
#define FX_VERSION_PATCH 0

#define FX_VERSION_STR_(x) #x
#define FX_VERSION_STR(x) FX_VERSION_STR_(x)
/* "MAJOR.MINOR.PATCH" */
#define FX_VERSION                                                                      \
	FX_VERSION_STR(FX_VERSION_MAJOR) "." FX_VERSION_STR(FX_VERSION_MINOR) "." FX_VERSION_STR(FX_VERSION_PATCH)

/* The release the library was built as: FX_VERSION of its own build,
 * which a program compares with the FX_VERSION it was compiled with. */
const char *fx_version_release(void);

/* `git describe --always --dirty` of the tree at build time, or "unknown"
 * when it was not built from a git checkout: what reports say made them. */
const char *fx_version(void);

#endif
