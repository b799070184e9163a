/*
 * Smaller builds of a fabric in whole increments of its kind, for capped
 * builds (`compare --power-cap`).  Each builder owns its rule (the shrink
 * hook beside its wiring); this file only dispatches and collects the
 * overrides.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fabric.h"

void fx_shrink_set(fx_shrink *s, const char *fmt, ...)
{
	if (s->nsets == FX_SHRINK_MAX_SETS)
		return;  /* no builder needs more; a short list shows up in tests */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->set[s->nsets++], sizeof s->set[0], fmt, ap);
	va_end(ap);
}

int fx_fabric_shrink(const fx_fabric *f, const fx_spec *spec, int64_t max_devices, fx_shrink *out)
{
	memset(out, 0, sizeof *out);
	out->devices = f->ndev;
	if (max_devices >= f->ndev) {
		snprintf(out->rule, sizeof out->rule, "as specified");
		return 0;
	}
	if (!f->builder->shrink) {
		snprintf(out->rule, sizeof out->rule, "a %s fabric has no increments to shrink by",
			 f->builder->kind);
		return -1;
	}
	return f->builder->shrink(f, fx_snode_get(spec->root, "fabric"), max_devices < 0 ? 0 : max_devices,
				  out);
}
