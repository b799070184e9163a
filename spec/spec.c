#include "spec.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "../core/xalloc.h"

/*
 * Limits that keep alias bombs and cycles from eating the machine.  A node
 * that contains an alias to itself is refused as a loop.  Aliases may
 * expand the tree to ALIAS_GROWTH times the document's own nodes plus
 * ALIAS_SLACK, which real specs never approach but which stops a few
 * hundred bytes of nested aliases (10 x 10 x ... references) long before
 * they expand into millions of nodes (a fuzzing finding).  A map may hold
 * MAX_KEYS keys, which bounds the duplicate-key check.
 */
#define MAX_DEPTH 64
#define ALIAS_GROWTH 4
#define ALIAS_SLACK 10000
#define MAX_NODES 4000000
#define MAX_KEYS 10000
/*
 * Bounds on the text itself, checked before libyaml sees it: a spec file
 * holds at most MAX_SPEC_BYTES (and must be a regular file or a pipe, not
 * /dev/zero); flow collections ('[', '{') nest at most MAX_DEPTH deep,
 * found by a byte scan, since libyaml's tokenizer is quadratic in that
 * depth (100,000 '[' took 65 s); and the tree, aliases expanded, holds at
 * most BYTES_GROWTH times the text plus BYTES_SLACK bytes of scalars,
 * keys and paths, so a megabyte of aliases to a long scalar cannot expand
 * into gigabytes.
 */
#define MAX_SPEC_BYTES (8 << 20)
#define BYTES_GROWTH 32
#define BYTES_SLACK (8u << 20)

typedef struct loader {
	fx_diag *d;
	const char *file;
	yaml_document_t *doc;
	size_t nodes, max_nodes;
	size_t bytes, max_bytes;  /* scalar, key and path bytes in the tree */
	unsigned char *open;    /* [document nodes] 1 while being converted */
	int failed;
} loader;

static void node_free(fx_snode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++) {
		node_free(n->items[i]);
		if (n->keys)
			free(n->keys[i]);
	}
	free(n->items);
	free(n->keys);
	free(n->keyloc);
	free(n->text);
	free(n->path);
	free(n);
}

static fx_loc mark_loc(const char *file, yaml_mark_t m)
{
	fx_loc l = {file, (int)m.line + 1, (int)m.column + 1};
	return l;
}

static fx_snode *node_new(fx_snode_kind kind, fx_loc loc, const char *path)
{
	fx_snode *n = fx_xcalloc(1, sizeof *n);
	n->kind = kind;
	n->loc = loc;
	n->path = fx_xstrdup(path);
	return n;
}

static void node_push(fx_snode *n, const char *key, fx_loc keyloc, fx_snode *child)
{
	n->items = fx_xrealloc(n->items, (n->n + 1) * sizeof *n->items);
	n->items[n->n] = child;
	if (n->kind == FX_SNODE_MAP) {
		n->keys = fx_xrealloc(n->keys, (n->n + 1) * sizeof *n->keys);
		n->keyloc = fx_xrealloc(n->keyloc, (n->n + 1) * sizeof *n->keyloc);
		n->keys[n->n] = fx_xstrdup(key);
		n->keyloc[n->n] = keyloc;
	}
	n->n++;
}

static char *child_path(const char *parent, const char *key)
{
	return *parent ? fx_xasprintf("%s.%s", parent, key) : fx_xstrdup(key);
}

static fx_snode *convert_node(loader *L, yaml_node_t *y, fx_loc loc, const char *path,
			     int depth);

/* A libyaml node as an fx_snode tree (aliases expanded), or NULL after
 * reporting. */
static fx_snode *convert(loader *L, yaml_node_t *y, const char *path, int depth)
{
	fx_loc loc = mark_loc(L->file, y->start_mark);
	size_t idx = (size_t)(y - L->doc->nodes.start);
	if (L->open[idx]) {
		if (!L->failed)
			fx_diag_error(L->d, &loc, "YAML alias loop: this anchored node contains an alias "
				      "to itself (reached again at '%s')", *path ? path : "(top)");
		L->failed = 1;
		return NULL;
	}
	if (depth > MAX_DEPTH || ++L->nodes > L->max_nodes) {
		if (!L->failed)
			fx_diag_error(L->d, &loc, "spec nests too deeply or expands too many aliases at '%s'",
				      *path ? path : "(top)");
		L->failed = 1;
		return NULL;
	}
	L->bytes += strlen(path) + 1 + (y->type == YAML_SCALAR_NODE ? y->data.scalar.length : 0);
	if (L->bytes > L->max_bytes) {
		if (!L->failed)
			fx_diag_error(L->d, &loc, "spec expands to more than %zu MiB of text at '%s' "
				      "(aliases to long values, or very long keys)", L->max_bytes >> 20,
				      *path ? path : "(top)");
		L->failed = 1;
		return NULL;
	}
	L->open[idx] = 1;
	fx_snode *n = convert_node(L, y, loc, path, depth);
	L->open[idx] = 0;
	return n;
}

static fx_snode *convert_node(loader *L, yaml_node_t *y, fx_loc loc, const char *path, int depth)
{
	switch (y->type) {
	case YAML_SCALAR_NODE: {
		fx_snode *n = node_new(FX_SNODE_SCALAR, loc, path);
		n->text = fx_xstrndup((const char *)y->data.scalar.value, y->data.scalar.length);
		n->plain = y->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		return n;
	}
	case YAML_SEQUENCE_NODE: {
		fx_snode *n = node_new(FX_SNODE_SEQ, loc, path);
		size_t i = 0;
		for (yaml_node_item_t *it = y->data.sequence.items.start;
		     it < y->data.sequence.items.top; it++, i++) {
			char *p = fx_xasprintf("%s[%zu]", path, i);
			fx_snode *c = convert(L, yaml_document_get_node(L->doc, *it), p, depth + 1);
			free(p);
			if (!c) {
				node_free(n);
				return NULL;
			}
			node_push(n, NULL, loc, c);
		}
		return n;
	}
	case YAML_MAPPING_NODE: {
		fx_snode *n = node_new(FX_SNODE_MAP, loc, path);
		if (y->data.mapping.pairs.top - y->data.mapping.pairs.start > MAX_KEYS) {
			fx_diag_error(L->d, &loc, "'%s' has more than %d keys", *path ? path : "(top)",
				      MAX_KEYS);
			L->failed = 1;
			node_free(n);
			return NULL;
		}
		for (yaml_node_pair_t *pr = y->data.mapping.pairs.start;
		     pr < y->data.mapping.pairs.top; pr++) {
			yaml_node_t *k = yaml_document_get_node(L->doc, pr->key);
			fx_loc kl = mark_loc(L->file, k->start_mark);
			if (k->type != YAML_SCALAR_NODE) {
				fx_diag_error(L->d, &kl, "keys in '%s' must be plain names",
					      *path ? path : "(top)");
				L->failed = 1;
				continue;
			}
			const char *key = (const char *)k->data.scalar.value;
			if (strcmp(key, "<<") == 0 && k->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
				fx_diag_error(L->d, &kl, "YAML merge keys '<<' are not supported; write the keys out");
				L->failed = 1;
				continue;
			}
			if (fx_snode_get(n, key)) {
				fx_diag_error(L->d, &kl, "duplicate key '%s' in '%s'", key,
					      *path ? path : "(top)");
				L->failed = 1;
				continue;
			}
			char *p = child_path(path, key);
			fx_snode *c = convert(L, yaml_document_get_node(L->doc, pr->value), p, depth + 1);
			free(p);
			if (!c) {
				node_free(n);
				return NULL;
			}
			node_push(n, key, kl, c);
		}
		return n;
	}
	default:
		fx_diag_error(L->d, &loc, "empty YAML node");
		L->failed = 1;
		return NULL;
	}
}

/* Line and column of a byte offset, for libyaml errors that lack a mark. */
static fx_loc offset_loc(const char *file, const char *text, size_t off)
{
	fx_loc l = {file, 1, 1};
	for (size_t i = 0; i < off && text[i]; i++) {
		if (text[i] == '\n') {
			l.line++;
			l.col = 1;
		} else {
			l.col++;
		}
	}
	return l;
}

/* libyaml reports errors found at the end of the input on the line after
 * the last; point at the construct left open (its context mark) instead,
 * or at the end of the last line. */
static fx_loc error_loc(const char *name, const char *text, const yaml_parser_t *p)
{
	if (p->error == YAML_READER_ERROR)
		return offset_loc(name, text, p->problem_offset);
	fx_loc l = mark_loc(name, p->problem_mark);
	if (p->problem_mark.index < strlen(text))
		return l;
	if (p->context)
		return mark_loc(name, p->context_mark);
	size_t n = strlen(text);
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == ' '))
		n--;
	return offset_loc(name, text, n > 0 ? n - 1 : 0);
}

/* Whether a '[', '{' or quote at text[i] starts a token: only then does it
 * open a flow collection or a quoted scalar ("it's" and "a[1" are plain). */
static int token_start(const char *text, size_t i)
{
	while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t'))
		i--;
	return i == 0 || strchr("\n\r:,[{-?", text[i - 1]) != NULL;
}

/* The byte scan: refuses flow collections nested past MAX_DEPTH before
 * libyaml's tokenizer, quadratic in that depth, runs.  Quoted scalars and
 * comments are skipped; anything it misreads, libyaml then reports. */
static int depth_scan(const char *name, const char *text, fx_diag *d)
{
	int depth = 0;
	for (size_t i = 0; text[i]; i++) {
		char ch = text[i];
		if (ch == '#' && (i == 0 || strchr(" \t\n\r", text[i - 1]))) {
			while (text[i + 1] && text[i + 1] != '\n')
				i++;
		} else if ((ch == '"' || ch == '\'') && token_start(text, i)) {
			for (i++; text[i]; i++) {
				if (ch == '"' && text[i] == '\\' && text[i + 1])
					i++;
				else if (text[i] == ch && !(ch == '\'' && text[i + 1] == '\''))
					break;
				else if (ch == '\'' && text[i] == '\'')
					i++;
			}
			if (!text[i])
				return 0;
		} else if ((ch == '[' || ch == '{') && (depth > 0 || token_start(text, i))) {
			if (++depth > MAX_DEPTH) {
				fx_loc l = offset_loc(name, text, i);
				return fx_diag_error(d, &l, "spec nests more than %d levels deep here",
						     MAX_DEPTH);
			}
		} else if ((ch == ']' || ch == '}') && depth > 0) {
			depth--;
		}
	}
	return 0;
}

/* Parses text into a tree whose paths start at base. NULL after reporting. */
static fx_snode *parse(const char *name, const char *text, const char *base, fx_diag *d)
{
	yaml_parser_t p;
	yaml_document_t doc;
	fx_snode *root = NULL;

	name = fx_diag_add_source(d, name, text);  /* positions point at diag's copy */
	if (depth_scan(name, text, d))
		return NULL;
	if (!yaml_parser_initialize(&p)) {
		fx_diag_internal(d, "cannot initialise the YAML parser");
		return NULL;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, strlen(text));
	if (!yaml_parser_load(&p, &doc)) {
		fx_loc l = error_loc(name, text, &p);
		if (p.context)
			fx_diag_error(d, &l, "invalid YAML: %s (%s)", p.problem ? p.problem : "?",
				      p.context);
		else
			fx_diag_error(d, &l, "invalid YAML: %s", p.problem ? p.problem : "?");
		yaml_parser_delete(&p);
		return NULL;
	}
	yaml_node_t *y = yaml_document_get_root_node(&doc);
	if (!y) {
		fx_loc l = {name, 1, 1};
		fx_diag_error(d, &l, "empty document");
	} else {
		size_t ndoc = (size_t)(doc.nodes.top - doc.nodes.start);
		loader L = {d, name, &doc, 0, ALIAS_GROWTH * ndoc + ALIAS_SLACK, 0,
			    BYTES_GROWTH * strlen(text) + BYTES_SLACK, NULL, 0};
		if (L.max_nodes > MAX_NODES)
			L.max_nodes = MAX_NODES;
		L.open = fx_xcalloc(ndoc ? ndoc : 1, 1);
		root = convert(&L, y, base, 0);
		free(L.open);
		if (L.failed) {
			node_free(root);
			root = NULL;
		}
	}
	yaml_document_delete(&doc);
	if (root) {  /* a spec is one document: anything after it is a mistake */
		yaml_document_t more;
		if (!yaml_parser_load(&p, &more)) {
			fx_loc l = error_loc(name, text, &p);
			fx_diag_error(d, &l, "invalid YAML after the spec: %s", p.problem ? p.problem : "?");
			node_free(root);
			root = NULL;
		} else {
			yaml_node_t *r2 = yaml_document_get_root_node(&more);
			if (r2) {
				fx_loc l = mark_loc(name, more.start_mark);
				fx_diag_error(d, &l, "a spec is one YAML document, but a second one starts here");
				node_free(root);
				root = NULL;
			}
			yaml_document_delete(&more);
		}
	}
	yaml_parser_delete(&p);
	return root;
}

int fx_spec_load_text(fx_spec *s, const char *name, const char *text, fx_diag *d)
{
	if (!s)
		return fx_diag_error(d, NULL, "fx_spec_load_text: no spec to load into");
	memset(s, 0, sizeof *s);
	if (!name || !text)
		return fx_diag_error(d, NULL, "fx_spec_load_text: no %s", name ? "text" : "name");
	s->file = fx_xstrdup(name);
	s->root = parse(name, text, "", d);
	if (s->root && s->root->kind == FX_SNODE_SCALAR && !*s->root->text) {
		fx_loc l = {s->root->loc.file, 1, 1};  /* "---" alone */
		fx_diag_error(d, &l, "empty document");
	} else if (s->root && s->root->kind != FX_SNODE_MAP)
		fx_snode_error(d, s->root, "a spec must be a map of keys (name, fabric, ...), got %s",
			       fx_snode_kind_name(s->root));
	else if (s->root)
		return 0;
	fx_spec_release(s);  /* a failed load leaves nothing to release */
	return -1;
}

int fx_spec_load(fx_spec *s, const char *path, fx_diag *d)
{
	if (!s)
		return fx_diag_error(d, NULL, "fx_spec_load: no spec to load into");
	memset(s, 0, sizeof *s);
	if (!path || !*path)
		return fx_diag_error(d, NULL, "fx_spec_load: no path");
	fx_loc l = {path, 0, 0};
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return fx_diag_error(d, &l, "cannot read spec: it is a directory");
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode))
		return fx_diag_error(d, &l, "cannot read spec: it is a device or a socket, not a file");
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > MAX_SPEC_BYTES)
		return fx_diag_error(d, &l, "spec is %lld bytes, over the limit of %d MiB",
				     (long long)st.st_size, MAX_SPEC_BYTES >> 20);
	FILE *f = fopen(path, "rb");
	if (!f)
		return fx_diag_error(d, &l, "cannot open spec: %s", strerror(errno));
	size_t cap = 4096, len = 0;
	char *buf = fx_xmalloc(cap);
	size_t r;
	while (len <= MAX_SPEC_BYTES && (r = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += r;
		if (cap - len - 1 == 0)
			buf = fx_xrealloc(buf, cap *= 2);
	}
	if (len > MAX_SPEC_BYTES) {  /* a pipe that keeps going, or a file that grew */
		fclose(f);
		free(buf);
		return fx_diag_error(d, &l, "spec is over the limit of %d MiB", MAX_SPEC_BYTES >> 20);
	}
	int err = ferror(f);
	fclose(f);
	buf[len] = '\0';
	const char *nul = err ? NULL : memchr(buf, '\0', len);
	if (err || nul) {
		if (nul) {  /* where the NUL is; the text before it shows the line */
			const char *name = fx_diag_add_source(d, path, buf);
			l = offset_loc(name, buf, (size_t)(nul - buf));
		}
		int rc = fx_diag_error(d, &l, err ? "cannot read spec: %s" : "%s",
				       err ? strerror(EIO) : "spec is not a text file (it holds a NUL byte)");
		free(buf);
		return rc;
	}
	int rc = fx_spec_load_text(s, path, buf, d);
	free(buf);
	return rc;
}

static fx_snode *node_copy(const fx_snode *n)
{
	if (!n)
		return NULL;
	fx_snode *c = fx_xmalloc(sizeof *c);
	*c = *n;
	c->path = fx_xstrdup(n->path);
	c->text = n->text ? fx_xstrdup(n->text) : NULL;
	c->items = n->n ? fx_xmalloc(n->n * sizeof *c->items) : NULL;
	c->keys = n->keys && n->n ? fx_xmalloc(n->n * sizeof *c->keys) : NULL;
	c->keyloc = n->keyloc && n->n ? fx_xmalloc(n->n * sizeof *c->keyloc) : NULL;
	for (size_t i = 0; i < n->n; i++) {
		c->items[i] = node_copy(n->items[i]);
		if (c->keys)
			c->keys[i] = fx_xstrdup(n->keys[i]);
		if (c->keyloc)
			c->keyloc[i] = n->keyloc[i];
	}
	return c;
}

void fx_spec_copy(fx_spec *dst, const fx_spec *src)
{
	dst->file = src->file ? fx_xstrdup(src->file) : NULL;
	dst->root = node_copy(src->root);
}

void fx_spec_release(fx_spec *s)
{
	if (!s)
		return;
	node_free(s->root);
	free(s->file);
	memset(s, 0, sizeof *s);
}

/* Renames the paths of a grafted subtree so they read from the spec root. */
static void repath(fx_snode *n, const char *path)
{
	free(n->path);
	n->path = fx_xstrdup(path);
	for (size_t i = 0; i < n->n; i++) {
		char *p = n->kind == FX_SNODE_MAP ? child_path(path, n->keys[i])
						  : fx_xasprintf("%s[%zu]", path, i);
		repath(n->items[i], p);
		free(p);
	}
}

int fx_spec_set(fx_spec *s, const char *assignment, fx_diag *d)
{
	if (!s || !s->root)
		return fx_diag_error(d, NULL, "fx_spec_set: no spec (NULL, or one that failed to load)");
	if (!assignment)
		return fx_diag_error(d, NULL, "fx_spec_set: no KEY=VALUE");
	const char *eq = strchr(assignment, '=');
	fx_loc opt = {NULL, 0, 0};
	if (!eq || eq == assignment)
		return fx_diag_error(d, &opt, "--set expects KEY=VALUE, got '%s'", assignment);
	char *key = fx_xstrndup(assignment, (size_t)(eq - assignment));
	char *name = fx_xasprintf("--set %s", key);
	int rc = -1;
	fx_snode *value;
	if (eq[1] == '\0') {  /* "KEY=" sets an empty value (libyaml sees no document) */
		fx_loc l = {fx_diag_add_source(d, name, ""), 1, 1};
		value = node_new(FX_SNODE_SCALAR, l, key);
		value->text = fx_xstrdup("");
		value->plain = 1;
	} else {
		value = parse(name, eq + 1, key, d);
	}
	if (!value)
		goto out;

	/* Walk the dotted path: "a.b[2].c". */
	size_t klen = strlen(key);
	if (key[0] == '.' || key[klen - 1] == '.' || strstr(key, "..")) {
		fx_diag_error(d, &opt, "--set: empty name in the key path '%s'", key);
		goto out;
	}
	fx_snode *cur = s->root, *grafted = value;
	char *walk = fx_xstrdup(key), *save = NULL;
	char *built = fx_xstrdup("");
	for (char *tok = strtok_r(walk, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		char *br = strchr(tok, '[');
		long idx = -1;
		if (br) {
			char *end;
			errno = 0;
			idx = strtol(br + 1, &end, 10);
			if (end == br + 1 || *end != ']' || idx < 0) {
				fx_diag_error(d, &opt, "--set: bad index in '%s' (expected NAME[N], N from 0)",
					      key);
				goto fail;
			}
			if (errno == ERANGE) {
				fx_diag_error(d, &opt, "--set: the index in '%s' is out of range", key);
				goto fail;
			}
			if (end[1] != '\0') {
				fx_diag_error(d, &opt, "--set: one [N] per name in '%s': spec lists do not "
					      "hold lists", key);
				goto fail;
			}
			*br = '\0';
		}
		int last_tok = save == NULL || *save == '\0';
		if (cur->kind != FX_SNODE_MAP) {
			fx_diag_error(d, &opt, "--set: '%s' is %s, not a map", *built ? built : "(top)",
				      fx_snode_kind_name(cur));
			goto fail;
		}
		char *np = child_path(built, tok);
		free(built);
		built = np;
		size_t i;
		for (i = 0; i < cur->n && strcmp(cur->keys[i], tok) != 0; i++)
			;
		if (i == cur->n) {
			if (idx >= 0) {
				fx_diag_error(d, &opt, "--set: '%s' does not exist, cannot index it", built);
				goto fail;
			}
			node_push(cur, tok, value->loc,
				  last_tok ? value : node_new(FX_SNODE_MAP, value->loc, built));
			if (last_tok) {
				value = NULL;
				break;
			}
			cur = cur->items[i];
			continue;
		}
		fx_snode **slot = &cur->items[i];
		if (idx >= 0) {
			fx_snode *seq = *slot;
			if (seq->kind != FX_SNODE_SEQ) {
				fx_diag_error(d, &opt, "--set: '%s' is %s, not a list: it has no item [%ld]",
					      built, fx_snode_kind_name(seq), idx);
				goto fail;
			}
			if ((size_t)idx >= seq->n) {
				fx_diag_error(d, &opt, "--set: '%s' has no item [%ld] (it has %zu)", built,
					      idx, seq->n);
				goto fail;
			}
			slot = &seq->items[idx];
			np = fx_xasprintf("%s[%ld]", built, idx);
			free(built);
			built = np;
		}
		if (last_tok) {
			node_free(*slot);
			*slot = value;
			value = NULL;
			break;
		}
		cur = *slot;
	}
	if (value == NULL) {
		rc = 0;
	} else {
		fx_diag_error(d, &opt, "--set: empty key in '%s'", assignment);
	}
	if (rc == 0) {
		/* The value was parsed with the key as written; its paths are
		 * renamed to where it now sits (under an index, say).  Only the
		 * grafted subtree: the rest of the tree kept its paths, and a
		 * space applies its overrides to every point's spec, so
		 * renaming the whole tree was a third of a space's run. */
		repath(grafted, built);  /* built: where the loop stopped */
	}
fail:
	free(walk);
	free(built);
out:
	node_free(value);
	free(name);
	free(key);
	return rc;
}

char *fx_spec_name_new(const fx_spec *s, const fx_snode **from)
{
	const fx_snode *n = s->root ? fx_snode_get(s->root, "name") : NULL;
	*from = NULL;
	if (n && n->kind == FX_SNODE_SCALAR && *n->text) {
		*from = n;
		return fx_xstrdup(n->text);
	}
	const char *base = strrchr(s->file, '/');
	base = base ? base + 1 : s->file;
	const char *dot = strrchr(base, '.');
	return fx_xstrndup(base, dot && dot != base ? (size_t)(dot - base) : strlen(base));
}

const char *fx_spec_name(const fx_spec *s, char *buf, size_t len)
{
	const fx_snode *from;
	char *name = fx_spec_name_new(s, &from);
	snprintf(buf, len, "%s", name);
	free(name);
	return buf;
}

const char *fx_name_check(const char *name)
{
	size_t len = strlen(name);
	if (len == 0)
		return "is empty";
	if (len > FX_NAME_MAX)
		return "is longer than " FX_STR(FX_NAME_MAX) " bytes";
	if (name[0] == '.')
		return "starts with '.'";
	if (strchr(name, '/'))
		return "contains '/'";
	return fx_text_check(name);
}

const char *fx_text_check(const char *text)
{
	const unsigned char *p = (const unsigned char *)text;
	while (*p) {
		int n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3
			: (*p & 0xf8) == 0xf0 ? 4 : 0;
		uint32_t cp = n == 1 ? *p : n == 2 ? *p & 0x1fu : n == 3 ? *p & 0x0fu : *p & 0x07u;
		for (int i = 1; i < n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return "is not valid UTF-8";
			cp = cp << 6 | (p[i] & 0x3fu);
		}
		if (n == 0 || (n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) ||
		    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
			return "is not valid UTF-8";
		if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
			return "holds a control character (a tab, a newline, an escape ...)";
		p += n;
	}
	return NULL;
}

const fx_snode *fx_snode_get(const fx_snode *map, const char *key)
{
	if (!map || map->kind != FX_SNODE_MAP)
		return NULL;
	for (size_t i = 0; i < map->n; i++)
		if (strcmp(map->keys[i], key) == 0)
			return map->items[i];
	return NULL;
}

const char *fx_snode_kind_name(const fx_snode *n)
{
	switch (n->kind) {
	case FX_SNODE_SCALAR: return *n->text ? "a single value" : "an empty value";
	case FX_SNODE_SEQ: return "a list";
	case FX_SNODE_MAP: return "a map";
	}
	return "?";
}

int fx_snode_error(fx_diag *d, const fx_snode *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = fx_xvasprintf(fmt, ap);  /* whole: paths and values can be long */
	va_end(ap);
	int rc = fx_diag_error(d, &n->loc, "%s", msg);
	fx_diag_key(d, n->path);
	free(msg);
	return rc;
}

int fx_spec_keys(fx_diag *d, const fx_snode *map, const char *const *allowed)
{
	int rc = 0;
	for (size_t i = 0; i < map->n; i++) {
		int ok = 0;
		for (const char *const *a = allowed; *a && !ok; a++)
			ok = strcmp(*a, map->keys[i]) == 0;
		if (ok)
			continue;
		char list[512] = "";
		size_t used = 0;
		for (const char *const *a = allowed; *a && used < sizeof list; a++)
			used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
						 a == allowed ? "" : ", ", *a);
		fx_diag_error(d, &map->keyloc[i], "unknown key '%s' in '%s' (expected: %s)",
			      map->keys[i], *map->path ? map->path : "(top)", list);
		char *k = child_path(map->path, map->keys[i]);
		fx_diag_key(d, k);
		free(k);
		rc = -1;
	}
	return rc;
}

static int need(fx_diag *d, const fx_snode *map, const char *key, const fx_snode **out)
{
	*out = fx_snode_get(map, key);
	if (*out)
		return 0;
	char *p = child_path(map->path, key);
	fx_diag_error(d, &map->loc, "missing key '%s'", p);
	fx_diag_key(d, p);
	free(p);
	return -1;
}

static int container(fx_diag *d, const fx_snode *map, const char *key, int required,
		     fx_snode_kind kind, const fx_snode **out)
{
	*out = fx_snode_get(map, key);
	if (!*out)
		return required ? need(d, map, key, out) : 0;
	if ((*out)->kind != kind) {
		int rc = fx_snode_error(d, *out, "'%s' must be %s, got %s", (*out)->path,
					kind == FX_SNODE_MAP ? "a map" : "a list",
					fx_snode_kind_name(*out));
		*out = NULL;
		return rc;
	}
	return 0;
}

int fx_spec_map(fx_diag *d, const fx_snode *map, const char *key, int required,
		const fx_snode **out)
{
	return container(d, map, key, required, FX_SNODE_MAP, out);
}

int fx_spec_seq(fx_diag *d, const fx_snode *map, const char *key, int required,
		const fx_snode **out)
{
	return container(d, map, key, required, FX_SNODE_SEQ, out);
}

static int scalar(fx_diag *d, const fx_snode *n, const char *what)
{
	if (n->kind != FX_SNODE_SCALAR)
		return fx_snode_error(d, n, "'%s' must be %s, got %s", n->path, what,
				      fx_snode_kind_name(n));
	if (!*n->text)
		return fx_snode_error(d, n, "'%s' has no value (expected %s)", n->path, what);
	return 0;
}

int fx_snode_int(fx_diag *d, const fx_snode *n, int64_t lo, int64_t hi, int64_t *out)
{
	if (scalar(d, n, "an integer"))
		return -1;
	if (!n->plain)
		return fx_snode_error(d, n, "'%s' must be an integer, got the quoted string \"%s\"",
				      n->path, n->text);
	char *end;
	errno = 0;
	long long v = strtoll(n->text, &end, 10);
	if (end == n->text || *end != '\0')
		return fx_snode_error(d, n, "'%s' must be an integer, got '%s'", n->path, n->text);
	if (errno != ERANGE && v < lo && hi >= INT32_MAX)
		return fx_snode_error(d, n, "'%s' must be at least %" PRId64 ", got %s", n->path, lo,
				      n->text);
	if (errno == ERANGE || v < lo || v > hi)
		return fx_snode_error(d, n, "'%s' must be between %" PRId64 " and %" PRId64
				      ", got %s", n->path, lo, hi, n->text);
	*out = v;
	return 0;
}

int fx_snode_qty(fx_diag *d, const fx_snode *n, fx_unit_kind k, double lo, int strict,
		 double *out)
{
	return fx_snode_qty_units(d, n, k, lo, strict, NULL, out);
}

int fx_snode_qty_units(fx_diag *d, const fx_snode *n, fx_unit_kind k, double lo, int strict,
		       const char *units, double *out)
{
	char what[96];
	snprintf(what, sizeof what, "a %s such as %s", fx_unit_kind_name(k), fx_unit_example(k));
	if (scalar(d, n, what))
		return -1;
	fx_unit_kind got = FX_UNIT_NONE;
	double v;
	fx_unit_status st = fx_unit_parse(n->text, k, &v, &got);
	if (st != FX_UNIT_OK) {
		char *msg = fx_unit_message(st, n->text, k, got, 0, n->path, units);
		fx_snode_error(d, n, "%s", msg);
		free(msg);
		return -1;
	}
	/* beyond any real system, and big enough to overflow sums */
	/* ... or so small that a time or a ratio computed from it overflows
	 * (5e-324 B/s made every time 'inf') */
	if (!isfinite(v) || fabs(v) > 1e18 || (v != 0 && fabs(v) < 1e-18))
		return fx_snode_error(d, n, "'%s' is out of range: '%s'", n->path, n->text);
	if (strict ? !(v > lo) : !(v >= lo))
		return fx_snode_error(d, n, "'%s' must be %s %g, got '%s'", n->path,
				      strict ? "greater than" : "at least", lo, n->text);
	*out = v;
	return 0;
}

int fx_snode_bool(fx_diag *d, const fx_snode *n, int *out)
{
	if (scalar(d, n, "true or false"))
		return -1;
	if (n->plain && strcmp(n->text, "true") == 0)
		*out = 1;
	else if (n->plain && strcmp(n->text, "false") == 0)
		*out = 0;
	else if (!n->plain)
		return fx_snode_error(d, n, "'%s' must be true or false, got the quoted string \"%s\"",
				      n->path, n->text);
	else
		return fx_snode_error(d, n, "'%s' must be true or false, got '%s'", n->path, n->text);
	return 0;
}

int fx_snode_str(fx_diag *d, const fx_snode *n, const char **out)
{
	if (scalar(d, n, "a string"))
		return -1;
	*out = n->text;
	return 0;
}

int fx_spec_int(fx_diag *d, const fx_snode *map, const char *key, int64_t lo, int64_t hi,
		int64_t *out)
{
	const fx_snode *n;
	return need(d, map, key, &n) ? -1 : fx_snode_int(d, n, lo, hi, out);
}

int fx_spec_int_opt(fx_diag *d, const fx_snode *map, const char *key, int64_t lo,
		    int64_t hi, int64_t *out)
{
	const fx_snode *n = fx_snode_get(map, key);
	return n ? fx_snode_int(d, n, lo, hi, out) : 0;
}

int fx_spec_qty(fx_diag *d, const fx_snode *map, const char *key, fx_unit_kind k,
		double lo, int strict, double *out)
{
	const fx_snode *n;
	return need(d, map, key, &n) ? -1 : fx_snode_qty(d, n, k, lo, strict, out);
}

int fx_spec_qty_opt(fx_diag *d, const fx_snode *map, const char *key, fx_unit_kind k,
		    double lo, int strict, double *out)
{
	const fx_snode *n = fx_snode_get(map, key);
	return n ? fx_snode_qty(d, n, k, lo, strict, out) : 0;
}

int fx_spec_bool_opt(fx_diag *d, const fx_snode *map, const char *key, int *out)
{
	const fx_snode *n = fx_snode_get(map, key);
	return n ? fx_snode_bool(d, n, out) : 0;
}

int fx_spec_str(fx_diag *d, const fx_snode *map, const char *key, const char **out)
{
	const fx_snode *n;
	return need(d, map, key, &n) ? -1 : fx_snode_str(d, n, out);
}

int fx_spec_str_opt(fx_diag *d, const fx_snode *map, const char *key, const char **out)
{
	const fx_snode *n = fx_snode_get(map, key);
	return n ? fx_snode_str(d, n, out) : 0;
}

int fx_spec_int_list(fx_diag *d, const fx_snode *map, const char *key, int64_t lo,
		     int64_t hi, int64_t **out, size_t *n)
{
	const fx_snode *s;
	*out = NULL;
	*n = 0;
	if (fx_spec_seq(d, map, key, 1, &s))
		return -1;
	if (s->n == 0)
		return fx_snode_error(d, s, "'%s' must not be empty", s->path);
	int64_t *v = fx_xcalloc(s->n, sizeof *v);
	int rc = 0;
	for (size_t i = 0; i < s->n; i++)
		rc |= fx_snode_int(d, s->items[i], lo, hi, &v[i]);
	if (rc) {
		free(v);
		return -1;
	}
	*out = v;
	*n = s->n;
	return 0;
}
