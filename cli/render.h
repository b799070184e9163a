/*
 * render's parts: one fabric's view (cli/render.c: the loads collective,
 * the placement, the command and its record) and pages of several specs,
 * or of one spec before and after a failure (cli/render_page.c).
 */
#ifndef FX_CLI_RENDER_H
#define FX_CLI_RENDER_H

#include "../render/render.h"
#include "cli.h"

/* --set overrides one SPEC@KEY=VALUE,... may carry */
#define FX_RND_SETS 16

/* render's own options (fx_cli_parse). */
extern const fx_opt fx_rnd_opts[];

/* The loads pictures' collective when none is named, render's and
 * explore's alike: all-to-all, direct, 32 MiB per rank over every device
 * (explore's links.csv holds its loads). */
#define FX_RND_DEFAULT_PATTERN "all-to-all"
#define FX_RND_DEFAULT_ALGO "direct"
#define FX_RND_DEFAULT_SIZE (32.0 * 1024 * 1024)

/* A loads picture's caption: the collective, its size per rank, algorithm,
 * ranks and timing mode, its time and the busiest of the nlinks directed
 * links (util[l] busy fraction, res->link_bytes). */
void fx_rnd_caption(const char *pattern, const char *algo, double size, int64_t ranks,
		    const fx_coll_result *res, const double *util, int64_t nlinks, char *buf,
		    size_t len);

/* --scale: 1 absolute, 0 relative, -1 neither; without it, absolute for a
 * page of several panels (paged), relative for one picture. */
int fx_rnd_scale(fx_cli *c, int paged);

/* What a view draws besides the fabric. */
typedef struct fx_rnd_view {
	double *util;               /* loads: [2 ne] busy time / completion time */
	int64_t *instance, *group;  /* placement: [ndev] instance and TP group, -1: none */
	char caption[400];          /* loads: what ran, "" otherwise */
} fx_rnd_view;

/* Computes what view draws on c's fabric with the vertices failed[nv] and
 * the bundles dead[ne] marked failed (NULL: none).  0, or -1 reported;
 * release v either way. */
int fx_rnd_view_get(fx_cli *c, int view, const uint8_t *failed, const uint8_t *dead,
		    fx_rnd_view *v);
void fx_rnd_view_release(fx_rnd_view *v);
/* --view floor: c's bill of materials on its floor plan; --view racks (view
 * FX_VIEW_RACKS): its racks' elevations (cli/bom.c). */
int fx_bom_floor_picture(fx_cli *c, int view, const char *format, const char *path, fx_render_info *info);

/* SPEC@KEY=VALUE,...: a spec with --set overrides of its own, as compare
 * takes them, so variants of one spec can be drawn side by side. */
typedef struct fx_rnd_variant {
	const char *arg;                  /* as given */
	const char *path;                 /* the file */
	const char *sets[FX_RND_SETS];
	int nsets;
	char buf[1024];
} fx_rnd_variant;

/* The specs of a render command line. */
typedef struct fx_rnd_specs {
	fx_rnd_variant *v;  /* the first FX_RENDER_MAX_PANELS + 1 of them */
	int n;              /* specs given (more than v holds is refused later) */
	int bad;            /* the first with malformed overrides, or -1 */
	char **one;         /* argv with every spec but the first left out */
	int none;
	char **argv;        /* one with the first spec's overrides as --set */
	int argc;
} fx_rnd_specs;

/* Reads argv (argv[0] the command name); release with fx_rnd_specs_release. */
void fx_rnd_specs_read(fx_rnd_specs *s, int argc, char **argv);
void fx_rnd_specs_release(fx_rnd_specs *s);

/* Draws the specs of s side by side, or c's one spec before and after the
 * --fail selectors, into -o FILE or c->outdir/<view>-side-by-side (or
 * -failed).<format>, the path written into path.  0 or -1 (reported). */
int fx_rnd_page(fx_cli *c, int view, const char *format, const fx_rnd_specs *s, char *path,
		size_t pathlen, fx_render_info *info);

#endif
