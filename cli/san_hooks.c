/*
 * LeakSanitizer's hooks, linked into the programs only (fabricx, the Check
 * suites, the fuzz harnesses that drive the commands), never into
 * libfabricx: a library that defined them would set the leak policy of
 * every program that links it (issue #26).  Without ASan nothing calls them.
 *
 * Under AddressSanitizer (make san-check), LeakSanitizer also reports what
 * Graphviz 2.43 and its pango, cairo and fontconfig plugins never free: the
 * HTML label parser, dot's mincross virtual edges, gvconfig, font caches
 * (valgrind on the `dot` program itself shows the same blocks).  These
 * suppress leaks allocated inside those libraries only; leaks of cgraph
 * objects (a graph never agclose'd) and of fabricx's own memory are still
 * reported.  render/graphviz.supp is the same list for valgrind.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libgvc.so\n"
	       "leak:libgvplugin_\n"
	       "leak:libpango\n"
	       "leak:libcairo.so\n"
	       "leak:libfontconfig.so\n"
	       "leak:libglib-2.0.so\n"
	       "leak:libexpat.so\n";
}

/* ...and keeps its statistics of what it suppressed to itself. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}
