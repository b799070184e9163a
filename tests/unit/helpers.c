#include "helpers.h"

#include <string.h>

static void read_messages(fixture *fx)
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
	read_messages(fx);
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
