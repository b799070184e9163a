/*
 * Preloaded by tests/hardening/tools.sh (LD_PRELOAD): Graphviz's layout
 * crashes, as 2.43's flat_edges did on a rail-optimised graph (issue #32),
 * so that explore's isolation of its drawings is tested without depending
 * on that bug.  FX_GVCRASH=segv crashes with SIGSEGV, else abort().
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int gvLayout(void *gvc, void *g, const char *engine);

int gvLayout(void *gvc, void *g, const char *engine)
{
	(void)gvc;
	(void)g;
	(void)engine;
	const char *how = getenv("FX_GVCRASH");
	if (how && strcmp(how, "segv") == 0)
		raise(SIGSEGV);
	abort();
}
