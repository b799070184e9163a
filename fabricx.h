/*
 * fabricx.h: the library's umbrella header.  A program includes this one
 * file and links with `pkg-config --cflags --libs fabricx`.
 *
 *   fx_design_load()   a spec with its overrides: fabric, power, workload
 *   fx_route_*()       hop counts, bisection and cuts (routing/routing.h)
 *   fx_coll_run()      link loads and time of a collective
 *   fx_power_*()       what a power budget buys (power/power.h)
 *   fx_bom_build()     the bill of materials: cables, optics, racks, cost (bom/bom.h)
 *   fx_place_*()       where a workload's groups go (placement/placement.h)
 *   fx_step_eval()     a serving step's memory, time and throughput (step/step.h)
 *   fx_export()        the fabric in a peer tool's format (interop/interop.h)
 *   fx_report_*()      the reports as typed tables: metrics, power,
 *                      collectives, the fields docs/output.md lists (report/report.h)
 *   fx_sink_*()        where result tables go: text, Markdown, JSON, CSV, or
 *                      captured for a program to read (core/sink.h)
 *
 * FX_VERSION ("MAJOR.MINOR.PATCH", with FX_VERSION_MAJOR/_MINOR/_PATCH) is
 * the release these headers belong to (core/version.h).
 *
 * Errors are reported through an fx_diag (core/diag.h), which collects
 * them and keeps the exit status; functions return 0 or -1.  See
 * docs/example.c.
 */
#ifndef FABRICX_H
#define FABRICX_H

#include "bom/bom.h"
#include "core/diag.h"
#include "core/sink.h"
#include "core/table.h"
#include "core/units.h"
#include "core/version.h"
#include "design/design.h"
#include "fabric/fabric.h"
#include "interop/interop.h"
#include "placement/placement.h"
#include "power/power.h"
#include "report/report.h"
#include "routing/routing.h"
#include "space/space.h"
#include "spec/spec.h"
#include "step/step.h"

#endif
