/*
 * spec: fabricx's YAML specs as a tree of nodes that remember where they came
 * from.
 *
 * fx_spec_load() reads a file with libyaml's document API and copies it into
 * an fx_snode tree.  Every node keeps its source position (file, line,
 * column) and its dotted path ("fabric.link.bandwidth", "fabric.links[2].a"),
 * so any later check can say exactly where the bad value is.  YAML merge keys
 * ("<<"), duplicate keys and runaway alias expansion are rejected here.
 *
 * --set KEY=VALUE overrides (fx_spec_set) parse VALUE as YAML and graft it at
 * the dotted path, creating maps on the way; positions in the grafted nodes
 * point into the option text.
 *
 * The typed getters below read one key of a map and report a precise error
 * (missing, wrong type, out of range, missing unit) through fx_diag.  They
 * return 0 on success and -1 after reporting.  The *_opt forms leave *out
 * untouched when the key is absent, so the caller sets the default first.
 *
 * Ownership: fx_spec owns every node and string in it; getters return
 * pointers into the tree, valid until fx_spec_release().  Source positions
 * point at file names owned by the fx_diag used to load, which must outlive
 * the spec.
 */
#ifndef FX_SPEC_H
#define FX_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "../core/diag.h"
#include "../core/units.h"

typedef enum fx_snode_kind { FX_SNODE_SCALAR, FX_SNODE_SEQ, FX_SNODE_MAP } fx_snode_kind;

typedef struct fx_snode {
	fx_snode_kind kind;
	fx_loc loc;               /* where the value starts */
	char *path;               /* dotted path from the root */
	char *text;               /* scalar text (NULL for seq/map) */
	int plain;                /* scalar was written without quotes */
	size_t n;                 /* items in a seq, pairs in a map */
	char **keys;              /* map keys (NULL for seq) */
	fx_loc *keyloc;           /* where each map key starts */
	struct fx_snode **items;  /* seq items or map values */
} fx_snode;

typedef struct fx_spec {
	char *file;       /* path as given; also the name used in messages */
	fx_snode *root;   /* a map */
} fx_spec;

/* Loads a spec file.  On failure reports through d, frees what it
 * allocated and returns -1. */
int fx_spec_load(fx_spec *s, const char *path, fx_diag *d);
/* Loads spec text held in memory; `name` stands for the file in messages. */
int fx_spec_load_text(fx_spec *s, const char *name, const char *text, fx_diag *d);
/* A deep copy of src into dst (a spec parsed once and loaded many times,
 * as a space's points are).  Source positions are shared: they point at
 * the names of the fx_diag src was loaded with, which must outlive dst. */
void fx_spec_copy(fx_spec *dst, const fx_spec *src);
/* Applies one "KEY=VALUE" override. */
int fx_spec_set(fx_spec *s, const char *assignment, fx_diag *d);
void fx_spec_release(fx_spec *s);

/* The spec's `name`, or the file's base name without extension, malloc'd;
 * *from is the `name` node, or NULL when the name comes from the file. */
char *fx_spec_name_new(const fx_spec *s, const fx_snode **from);
/* The same into buf (cut at len: for display only; check the whole name
 * with fx_name_check before it names anything). */
const char *fx_spec_name(const fx_spec *s, char *buf, size_t len);

/*
 * The name rule: a spec's name becomes a folder, out/<name>, so it must be
 * 1 to FX_NAME_MAX bytes of printable UTF-8 (no control characters), with
 * no '/' and no leading '.' (which would be hidden, or be "." or "..").  A
 * name that breaks it is refused, never cut or rewritten.  Returns NULL
 * when name obeys the rule, else what is wrong ("starts with '.'").
 */
#define FX_NAME_MAX 100
#define FX_STR_(x) #x
#define FX_STR(x) FX_STR_(x)
const char *fx_name_check(const char *name);
/* The printable part of the rule, for names shown but not used as paths
 * (vertex names): NULL, or "is not valid UTF-8" / "holds a control ...". */
const char *fx_text_check(const char *text);

/* The value under key in map, or NULL. */
const fx_snode *fx_snode_get(const fx_snode *map, const char *key);
const char *fx_snode_kind_name(const fx_snode *n);

/* Reports every key of map not in the NULL-terminated list `allowed`. */
int fx_spec_keys(fx_diag *d, const fx_snode *map, const char *const *allowed);

/* Map-valued child; *out is NULL when absent and optional. */
int fx_spec_map(fx_diag *d, const fx_snode *map, const char *key, int required,
		const fx_snode **out);
/* Sequence-valued child (a scalar is not accepted). */
int fx_spec_seq(fx_diag *d, const fx_snode *map, const char *key, int required,
		const fx_snode **out);

/* A node's value as an integer in [lo, hi]. */
int fx_snode_int(fx_diag *d, const fx_snode *n, int64_t lo, int64_t hi, int64_t *out);
/* A node's value as a quantity of kind k, required to be >= lo (> 0 if strict). */
int fx_snode_qty(fx_diag *d, const fx_snode *n, fx_unit_kind k, double lo, int strict,
		 double *out);
/* The same, naming the units a value may carry in the messages about a
 * missing or unknown unit ("FLOP/s, ... or PFLOP/s, e.g. ..."; NULL: the
 * kind and an example). */
int fx_snode_qty_units(fx_diag *d, const fx_snode *n, fx_unit_kind k, double lo, int strict,
		       const char *units, double *out);
int fx_snode_bool(fx_diag *d, const fx_snode *n, int *out);
int fx_snode_str(fx_diag *d, const fx_snode *n, const char **out);

int fx_spec_int(fx_diag *d, const fx_snode *map, const char *key, int64_t lo, int64_t hi,
		int64_t *out);
int fx_spec_int_opt(fx_diag *d, const fx_snode *map, const char *key, int64_t lo,
		    int64_t hi, int64_t *out);
int fx_spec_qty(fx_diag *d, const fx_snode *map, const char *key, fx_unit_kind k,
		double lo, int strict, double *out);
int fx_spec_qty_opt(fx_diag *d, const fx_snode *map, const char *key, fx_unit_kind k,
		    double lo, int strict, double *out);
int fx_spec_bool_opt(fx_diag *d, const fx_snode *map, const char *key, int *out);
int fx_spec_str(fx_diag *d, const fx_snode *map, const char *key, const char **out);
int fx_spec_str_opt(fx_diag *d, const fx_snode *map, const char *key, const char **out);
/* A list of integers in [lo, hi]; *out is malloc'd and owned by the caller. */
int fx_spec_int_list(fx_diag *d, const fx_snode *map, const char *key, int64_t lo,
		     int64_t hi, int64_t **out, size_t *n);

/* Reports a problem with a node's value at its position. Returns -1. */
int fx_snode_error(fx_diag *d, const fx_snode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
