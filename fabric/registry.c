/* The builder registry: one entry per `fabric.kind`, in documentation order. */
#include <stddef.h>

#include "fabric.h"

extern const fx_builder fx_builder_torus, fx_builder_mesh, fx_builder_fattree,
	fx_builder_nvswitch, fx_builder_ub, fx_builder_wafer, fx_builder_custom,
	fx_builder_railclos, fx_builder_composite, fx_builder_dragonfly, fx_builder_slimfly,
	fx_builder_hyperx;

const fx_builder *const fx_builders[] = {
	&fx_builder_torus,
	&fx_builder_mesh,
	&fx_builder_fattree,
	&fx_builder_railclos,
	&fx_builder_nvswitch,
	&fx_builder_ub,
	&fx_builder_wafer,
	&fx_builder_dragonfly,
	&fx_builder_slimfly,
	&fx_builder_hyperx,
	&fx_builder_custom,
	&fx_builder_composite,
	NULL,
};
