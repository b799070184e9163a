#include "version.h"

/* FX_VERSION comes from the Makefile (core/version.o alone is rebuilt when
 * it changes). */
#ifndef FX_VERSION
#define FX_VERSION "unknown"
#endif

const char *fx_version(void)
{
	return FX_VERSION;
}
