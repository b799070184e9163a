/*
 * design/'s own steps of fx_design_load(), one file each.
 */
#ifndef FX_DESIGN_INTERNAL_H
#define FX_DESIGN_INTERNAL_H

#include "design.h"

/* design/workload.c: `workload.collectives`, plus placement/'s keys and
 * the decode model's accelerator and sessions. */
int fx_design_workload_parse(fx_design *ds, fx_diag *d);
/* design/groups.c: every `groups:` selector, and the ranks and groups of
 * `workload.collectives`, against the built fabric. */
int fx_design_groups_check(const fx_design *ds, fx_diag *d);

/* design/jobs.c: `workload.jobs` (w the workload map), and their devices
 * once the fabric is built. */
int fx_design_jobs_parse(fx_design *ds, const fx_snode *w, fx_diag *d);
int fx_design_jobs_check(fx_design *ds, fx_diag *d);

#endif
