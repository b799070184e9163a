/*
 * isolate: run a piece of work in a child process, so that a crash or an
 * abort inside a library it calls (Graphviz has aborted on graph shapes it
 * mishandles) ends that piece of work, not the program around it.
 *
 * fx_isolate forks; the child runs fn(arg, d) with its messages captured,
 * sends back fn's result, the messages, the status they call for and the
 * outfile failures it counted, and leaves with _exit (no atexit handlers,
 * no stdio buffers of the parent's flushed twice).  The parent prints the
 * messages to d as if fn had run here.  Whatever fn changes in memory stays
 * in the child: fn's results must be files (written through core/outfile.h,
 * so they are whole or absent) or its return value.  If fork itself fails,
 * fn runs in this process.  Reads and waits retry on EINTR; the child's
 * pipe is written by the child only, so no SIGPIPE can reach the parent.
 */
#ifndef FX_ISOLATE_H
#define FX_ISOLATE_H

#include "diag.h"

/* fn's result (0 or -1), or -1 after an internal error through d when the
 * child died of a signal or without answering: "WHAT: killed by signal 6
 * (Aborted)". */
int fx_isolate(const char *what, int (*fn)(void *arg, fx_diag *d), void *arg, fx_diag *d);

#endif
