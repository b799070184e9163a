#include "version.h"

/* FX_BUILD_DESCRIBE comes from the Makefile (core/version.o alone is
 * rebuilt when it changes). */
#ifndef FX_BUILD_DESCRIBE
#define FX_BUILD_DESCRIBE "unknown"
#endif

const char *fx_version_release(void)
{
	return FX_VERSION;
}

const char *fx_version(void)
{
	return FX_BUILD_DESCRIBE;
}
