/*
 * The provenance of a space's folder, checked before its points are used
 * again (merge --from DIR, explore --resume): a point is a number only for
 * the spec, the overrides, the fabricx and the space it was computed with,
 * so a folder whose report.json records another of any of them is refused,
 * naming the first that differs (issue 25: shards of sp1.yaml merged under
 * an edited copy reported 42.8 us where the spec gives 3.01 ms, stamped
 * with the new spec's SHA-256).
 *
 * report.json is read with the spec loader (JSON is YAML's flow style):
 * its "provenance" object holds fabricx_version, spec_sha256, sets (the
 * --set overrides, in order) and, for a space, space_sha256: the digest of
 * its axes, every path and value, --vary's included, in order, so the
 * same point index names the same overrides.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../core/sha256.h"
#include "../core/version.h"
#include "../core/xalloc.h"
#include "space_run.h"

/* The text of provenance key k, or NULL. */
static const char *field(const fx_snode *prov, const char *k)
{
	const fx_snode *n = prov ? fx_snode_get(prov, k) : NULL;
	return n && n->kind == FX_SNODE_SCALAR ? n->text : NULL;
}

int fx_space_provenance_check(fx_cli *c, const char *dir, const char *spec_text,
			      const fx_space *s, const char *what)
{
	char *path = fx_xasprintf("%s/report.json", dir);
	FILE *f = fopen(path, "r");
	if (!f) {
		int rc = fx_diag_error(&c->d, NULL, "%s: '%s' cannot say what its points were computed "
				       "from (%s: %s); fabricx writes it beside points.csv and refuses "
				       "points it cannot trace", what, dir, path, strerror(errno));
		free(path);
		return rc;
	}
	fclose(f);
	/* the loader's diagnostics would name report.json's lines as a
	 * spec's: read it quietly, and say in one line what is wrong */
	fx_diag quiet;
	fx_diag_init(&quiet);
	quiet.max_shown = 0;
	fx_spec js;
	const fx_snode *prov = NULL;
	int loaded = fx_spec_load(&js, path, &quiet) == 0;
	if (loaded)
		prov = fx_snode_get(js.root, "provenance");
	char want_spec[65], want_space[65];
	fx_sha256_hex(spec_text, strlen(spec_text), want_spec);
	fx_space_signature(s, want_space);
	int rc = 0;
	const char *v;
	if (!prov || prov->kind != FX_SNODE_MAP) {
		rc = fx_diag_error(&c->d, NULL, "%s: '%s' holds no provenance object, so the points "
				   "beside it cannot be traced", what, path);
	} else if (!(v = field(prov, "fabricx_version")) || strcmp(v, fx_version())) {
		rc = fx_diag_error(&c->d, NULL, "%s: '%s' was computed by fabricx %s, this is %s: "
				   "its numbers may differ; compute them again", what, dir,
				   v ? v : "(unknown)", fx_version());
	} else if (!(v = field(prov, "spec_sha256")) || strcmp(v, want_spec)) {
		rc = fx_diag_error(&c->d, NULL, "%s: '%s' was computed from a spec with SHA-256 %s, "
				   "but '%s' has %s: the spec is not the one its points were run "
				   "from", what, dir, v ? v : "(none)", c->spec_path, want_spec);
	} else {
		const fx_snode *sets = fx_snode_get(prov, "sets");
		size_t n = sets && sets->kind == FX_SNODE_SEQ ? sets->n : 0;
		int ok = sets && sets->kind == FX_SNODE_SEQ;
		for (size_t i = 0; ok && i < n && i < (size_t)c->nsets; i++) {
			const fx_snode *x = sets->items[i];
			if (x->kind != FX_SNODE_SCALAR || strcmp(x->text, c->sets[i])) {
				rc = fx_diag_error(&c->d, NULL, "%s: '%s' was run with --set '%s' as "
						   "override %zu, this run with '%s'", what, dir,
						   x->kind == FX_SNODE_SCALAR ? x->text : "?", i + 1,
						   c->sets[i]);
				ok = 0;
			}
		}
		if (rc == 0 && (!ok || n != (size_t)c->nsets))
			rc = fx_diag_error(&c->d, NULL, "%s: '%s' was run with %zu --set override%s, this "
					   "run with %d: give the same overrides, in the same order",
					   what, dir, n, n == 1 ? "" : "s", c->nsets);
		if (rc == 0 && (!(v = field(prov, "space_sha256")) || strcmp(v, want_space)))
			rc = fx_diag_error(&c->d, NULL, "%s: '%s' was run over another space (its axes "
					   "and values, --vary included, have SHA-256 %s, this run's "
					   "%s)", what, dir, v ? v : "(none)", want_space);
	}
	if (loaded)
		fx_spec_release(&js);
	fx_diag_release(&quiet);
	free(path);
	return rc;
}
