/*
 * space_run: the report of what a space's run (space/run.h) came out with
 * (cli/space_report.c), its provenance, and explore's entry to spaces.
 */
#ifndef FX_CLI_SPACE_RUN_H
#define FX_CLI_SPACE_RUN_H

#include "../space/run.h"
#include "cli.h"

/* Writes points.csv, pareto.csv and the plots into dir, and the space's
 * tables through the result model (c->md, c->js); text prints them. */
int fx_space_report(fx_cli *c, fx_space_run *r, const char *dir, int diagrams, int text);

/* What made a report (fabricx version, date, the spec's SHA-256, the
 * command, every --set, and a space's signature when space_sha is not
 * NULL): a "provenance" object into c->js and a line of Markdown
 * (cli/explore.c). */
void fx_explore_provenance(fx_cli *c, FILE *md, const char *space_sha);

/* Whether dir's report.json says its points were computed as this run
 * computes them: the same fabricx version, spec bytes (spec_text), --set
 * overrides in order and space signature.  0, or -1 after reporting the
 * first that differs (what: "merge" or "--resume"). */
int fx_space_provenance_check(fx_cli *c, const char *dir, const char *spec_text,
			      const fx_space *s, const char *what);

/* explore's entry: runs the spec's space or --vary axes (*handled = 1),
 * or leaves a spec without one to the design report (*handled = 0). */
int fx_explore_space(fx_cli *c, int diagrams, int *handled);

#endif
