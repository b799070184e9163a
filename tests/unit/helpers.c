#include "helpers.h"

#include <stdlib.h>
#include <string.h>

#include "../../core/xalloc.h"
#include "../../routing/routing.h"

void fixture_messages(fixture *fx)
{
	fflush(fx->err);
	rewind(fx->err);
	size_t n = fread(fx->msg, 1, sizeof fx->msg - 1, fx->err);
	fx->msg[n] = '\0';
}

int fixture_load(fixture *fx, const char *path, const char *text, const char *const *sets)
{
	memset(fx, 0, sizeof *fx);
	fx_diag_init(&fx->d);
	fx->err = tmpfile();
	fx->d.out = fx->err;
	int rc = text ? fx_spec_load_text(&fx->s, path, text, &fx->d)
		      : fx_spec_load(&fx->s, path, &fx->d);
	fx->loaded = 1;
	for (int i = 0; rc == 0 && sets && sets[i]; i++)
		rc = fx_spec_set(&fx->s, sets[i], &fx->d);
	if (rc == 0)
		rc = fx_fabric_build(&fx->f, &fx->s, 8e9, &fx->d);
	fx->built = rc == 0;
	fixture_messages(fx);
	return rc;
}

void fixture_release(fixture *fx)
{
	if (fx->built)
		fx_fabric_release(&fx->f);
	if (fx->loaded)
		fx_spec_release(&fx->s);
	fx_diag_release(&fx->d);
	if (fx->err)
		fclose(fx->err);
	memset(fx, 0, sizeof *fx);
}

void load_ok(fixture *fx, const char *path, const char *const *sets)
{
	int rc = fixture_load(fx, path, NULL, sets);
	ck_assert_msg(rc == 0, "%s failed to build: %s", path, fx->msg);
}

double *a2a_util(const fx_fabric *f, int64_t nranks)
{
	int64_t *ranks = fx_xmalloc((size_t)(nranks > 0 ? nranks : 1) * sizeof *ranks);
	for (int64_t i = 0; i < nranks; i++)
		ranks[i] = i;
	fx_coll_req q = {"all-to-all", "direct", ranks, nranks, 32.0 * 1024 * 1024, 0};
	fx_coll_time tm = {.alpha = 0, .alpha_replaces_latency = 0, .policy = FX_ROUTE_SPLIT};
	fx_coll_result res;
	fx_router *r = fx_router_new(f, 0);
	fx_diag d;
	fx_diag_init(&d);
	ck_assert_int_eq(fx_coll_run(f, r, &q, &tm, &res, &d), 0);
	double *u = fx_xcalloc((size_t)(2 * f->ne + 1), sizeof *u);
	for (int64_t l = 0; l < 2 * f->ne; l++)
		u[l] = res.time > 0 ? res.link_busy[l] / res.time : 0;
	fx_coll_result_release(&res);
	fx_router_free(r);
	fx_diag_release(&d);
	free(ranks);
	return u;
}

int png_size(const char *path, int64_t *w, int64_t *h)
{
	unsigned char b[24];
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	size_t n = fread(b, 1, sizeof b, f);
	fclose(f);
	if (n != sizeof b || memcmp(b + 1, "PNG", 3) != 0)
		return -1;
	*w = (int64_t)b[16] << 24 | (int64_t)b[17] << 16 | (int64_t)b[18] << 8 | b[19];
	*h = (int64_t)b[20] << 24 | (int64_t)b[21] << 16 | (int64_t)b[22] << 8 | b[23];
	return 0;
}
