/*
 * Measured collective times: `collective.measured` in a spec, rows of
 * {pattern, ranks, size, time} or nccl-tests logs, used instead of the
 * model for the calls they cover (routing.h, fx_coll_curve).
 *
 *   collective:
 *     measured:
 *       - {pattern: allreduce, ranks: 16, nodes: 2, size: 16 KiB, time: 32.74 us}
 *       - {pattern: allreduce, ranks: 16, nodes: 2, size: 64 MiB, time: 466.1 us}
 *       - {pattern: all-to-all, nccl_tests: logs/alltoall-16.txt}
 *
 * Rows with the same pattern, algo, ranks and nodes make one curve and
 * must come in increasing size.  An nccl-tests log is the text
 * all_reduce_perf and its siblings print: '#' header lines (one "#  Rank
 * N ... on HOST ..." line per rank, from which ranks and nodes are
 * counted) and one line per size whose out-of-place time, in
 * microseconds, is the column the header names "time" first.
 *
 * Between two points the time is interpolated log-log (a power law
 * between neighbours: exact at both, and linear for large messages where
 * time ~ size / bandwidth); `between: next` takes the next measured size up
 * instead, as nccl-tests buckets are read (the chapter "Supernodes",
 * §6.5.1: "for a 10 KiB message, taking the recorded 16 KiB bucket, the
 * measured value is 32.74 us").  Nothing is extrapolated.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/units.h"
#include "../core/xalloc.h"
#include "routing.h"

/* An nccl-tests log larger than this is not one (a full sweep is ~6 KiB). */
#define MAX_LOG_BYTES (16u << 20)

void fx_coll_measured_free(fx_coll_measured *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->n; i++) {
		free(m->c[i].size);
		free(m->c[i].time);
		free(m->c[i].source);
	}
	free(m->c);
	free(m);
}

/* The patterns of the registry, ", "-joined, for messages. */
static const char *patterns(char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (const fx_coll_algo *const *a = fx_coll_algos; *a && used < len; a++) {
		const fx_coll_algo *const *b = fx_coll_algos;
		while (b < a && strcmp((*b)->pattern, (*a)->pattern) != 0)
			b++;
		if (b < a)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
					 (*a)->pattern);
	}
	return buf;
}

static fx_coll_curve *find_curve(fx_coll_measured *m, const char *pattern, const char *algo,
				 int64_t ranks, int64_t nodes)
{
	for (size_t i = 0; i < m->n; i++) {
		fx_coll_curve *c = &m->c[i];
		if (c->ranks == ranks && c->nodes == nodes && strcmp(c->pattern, pattern) == 0 &&
		    strcmp(c->algo, algo) == 0)
			return c;
	}
	return NULL;
}

static fx_coll_curve *add_curve(fx_coll_measured *m, const char *pattern, const char *algo,
				int64_t ranks, int64_t nodes, int next, const char *source)
{
	m->c = fx_xrealloc(m->c, (m->n + 1) * sizeof *m->c);
	fx_coll_curve *c = &m->c[m->n++];
	memset(c, 0, sizeof *c);
	snprintf(c->pattern, sizeof c->pattern, "%s", pattern);
	snprintf(c->algo, sizeof c->algo, "%s", algo);
	c->ranks = ranks;
	c->nodes = nodes;
	c->next = next;
	c->source = fx_xstrdup(source);
	return c;
}

static void add_point(fx_coll_curve *c, double size, double time)
{
	c->size = fx_xrealloc(c->size, (c->n + 1) * sizeof *c->size);
	c->time = fx_xrealloc(c->time, (c->n + 1) * sizeof *c->time);
	c->size[c->n] = size;
	c->time[c->n] = time;
	c->n++;
}

/* The keys an entry shares with every other: pattern, algo, ranks,
 * nodes, between.  ranks may be left for a log to count (0). */
typedef struct entry_key {
	const char *pattern, *algo;
	int64_t ranks, nodes;
	int next;
} entry_key;

static int entry_keys(fx_diag *d, const fx_snode *e, int need_ranks, entry_key *k)
{
	char list[256];
	k->algo = "";
	k->ranks = 0;
	k->nodes = 0;
	k->next = 0;
	int rc = fx_spec_str(d, e, "pattern", &k->pattern);
	rc |= fx_spec_str_opt(d, e, "algo", &k->algo);
	if (need_ranks)
		rc |= fx_spec_int(d, e, "ranks", 1, INT32_MAX, &k->ranks);
	else
		rc |= fx_spec_int_opt(d, e, "ranks", 1, INT32_MAX, &k->ranks);
	rc |= fx_spec_int_opt(d, e, "nodes", 1, INT32_MAX, &k->nodes);
	const char *between = NULL;
	rc |= fx_spec_str_opt(d, e, "between", &between);
	if (rc)
		return -1;
	const fx_snode *pn = fx_snode_get(e, "pattern"), *an = fx_snode_get(e, "algo");
	if (!fx_coll_find(k->pattern, NULL))
		return fx_snode_error(d, pn, "'%s' names no collective pattern: '%s' (expected: %s)",
				      pn->path, k->pattern, patterns(list, sizeof list));
	if (an && !fx_coll_find(k->pattern, k->algo))
		return fx_snode_error(d, an, "'%s' names no algorithm for %s: '%s' (see fabricx "
				      "collective --list)", an->path, k->pattern, k->algo);
	if (strlen(k->pattern) >= sizeof ((fx_coll_curve *)0)->pattern ||
	    strlen(k->algo) >= sizeof ((fx_coll_curve *)0)->algo)
		return fx_snode_error(d, an ? an : pn, "'%s' is too long", (an ? an : pn)->path);
	if (k->ranks && k->nodes > k->ranks)
		return fx_snode_error(d, fx_snode_get(e, "nodes"), "'%s' must be at most ranks "
				      "(%lld), got %lld", fx_snode_get(e, "nodes")->path,
				      (long long)k->ranks, (long long)k->nodes);
	if (between) {
		if (strcmp(between, "next") == 0)
			k->next = 1;
		else if (strcmp(between, "interpolate") != 0)
			return fx_snode_error(d, fx_snode_get(e, "between"), "'%s' must be interpolate "
					      "(log-log between measured sizes) or next (the next "
					      "measured size up), got '%s'",
					      fx_snode_get(e, "between")->path, between);
	}
	return 0;
}

static void show_size(double v, char *buf, size_t len)
{
	fx_unit_format(v, FX_UNIT_SIZE, buf, len);
}

/* One row {pattern, ranks, size, time, ...}. */
static int parse_row(fx_diag *d, const fx_snode *e, fx_coll_measured *m)
{
	static const char *const keys[] = {"pattern", "algo", "ranks", "nodes", "size", "time",
					   "between", "source", NULL};
	entry_key k;
	double size = 0, time = 0;
	const char *src = NULL;
	int rc = fx_spec_keys(d, e, keys);
	rc |= entry_keys(d, e, 1, &k);
	rc |= fx_spec_qty(d, e, "size", FX_UNIT_SIZE, 0, 1, &size);
	rc |= fx_spec_qty(d, e, "time", FX_UNIT_TIME, 0, 1, &time);
	rc |= fx_spec_str_opt(d, e, "source", &src);
	if (rc)
		return -1;
	fx_coll_curve *c = find_curve(m, k.pattern, k.algo, k.ranks, k.nodes);
	char where[256];
	snprintf(where, sizeof where, "%s:%d", e->loc.file ? e->loc.file : "?", e->loc.line);
	if (!c)
		c = add_curve(m, k.pattern, k.algo, k.ranks, k.nodes, k.next, where);
	else if (strncmp(c->source, "nccl-tests ", 11) == 0)
		return fx_snode_error(d, e, "'%s' measures %s over %lld ranks again: %s already "
				      "gives that curve", e->path, k.pattern, (long long)k.ranks,
				      c->source);
	else if (c->next != k.next)
		return fx_snode_error(d, fx_snode_get(e, "between") ? fx_snode_get(e, "between") : e,
				      "'%s' reads between sizes as %s, but the earlier rows of %s "
				      "over %lld ranks (%s) read them as %s", e->path,
				      k.next ? "next" : "interpolate", k.pattern, (long long)k.ranks,
				      c->source, c->next ? "next" : "interpolate");
	if (c->n && !(size > c->size[c->n - 1])) {
		char a[32], b[32];
		show_size(c->size[c->n - 1], a, sizeof a);
		show_size(size, b, sizeof b);
		return fx_snode_error(d, fx_snode_get(e, "size"), "'%s' must be larger than the "
				      "previous row's %s for %s over %lld ranks (rows of one curve "
				      "come in increasing size), got %s",
				      fx_snode_get(e, "size")->path, a, k.pattern, (long long)k.ranks, b);
	}
	add_point(c, size, time);
	return 0;
}

/* The directory part of path ("specs/" of "specs/x.yaml"), into buf. */
static void dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	size_t n = slash ? (size_t)(slash - path + 1) : 0;
	if (n >= len)
		n = 0;
	memcpy(buf, path, n);
	buf[n] = '\0';
}

static char *read_all(const char *path, size_t *len, int *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		*err = errno;
		return NULL;
	}
	size_t cap = 8192, n = 0;
	char *s = fx_xmalloc(cap + 1);
	for (;;) {
		size_t k = fread(s + n, 1, cap - n, f);
		n += k;
		if (n < cap)
			break;
		if (cap >= MAX_LOG_BYTES) {
			free(s);
			fclose(f);
			*err = EFBIG;
			return NULL;
		}
		cap *= 2;
		s = fx_xrealloc(s, cap + 1);
	}
	*err = ferror(f) ? EIO : 0;
	fclose(f);
	if (*err) {
		free(s);
		return NULL;
	}
	s[n] = '\0';
	*len = n;
	return s;
}

/* Splits line into whitespace-separated words (at most cap); returns how
 * many.  line is modified. */
static int words(char *line, char **w, int cap)
{
	int n = 0;
	for (char *p = strtok(line, " \t\r"); p && n < cap; p = strtok(NULL, " \t\r"))
		w[n++] = p;
	return n;
}

/* One entry {nccl_tests: FILE, pattern, ...}: the log's sizes and
 * out-of-place times. */
static int parse_log(fx_diag *d, const fx_snode *e, const char *spec_file, fx_coll_measured *m)
{
	static const char *const keys[] = {"pattern", "algo", "ranks", "nodes", "nccl_tests",
					   "between", "source", NULL};
	entry_key k;
	const char *file, *src = NULL;
	int rc = fx_spec_keys(d, e, keys);
	rc |= entry_keys(d, e, 0, &k);
	rc |= fx_spec_str(d, e, "nccl_tests", &file);
	rc |= fx_spec_str_opt(d, e, "source", &src);
	if (rc)
		return -1;
	const fx_snode *fn = fx_snode_get(e, "nccl_tests");
	char dir[1024], path[2048];
	dir_of(file[0] == '/' ? NULL : spec_file, dir, sizeof dir);
	snprintf(path, sizeof path, "%s%s", dir, file);
	size_t len = 0;
	int err = 0;
	char *text = read_all(path, &len, &err);
	if (!text)
		return fx_snode_error(d, fn, "'%s': cannot read the nccl-tests log '%s': %s", fn->path,
				      path, err == EFBIG ? "larger than 16 MiB, not a log"
							 : strerror(err));
	if (memchr(text, '\0', len)) {
		free(text);
		return fx_snode_error(d, fn, "'%s': '%s' is not text (it holds NUL bytes)", fn->path,
				      path);
	}
	const char *name = fx_diag_add_source(d, path, text);
	/* ranks and hosts from the "#  Rank N Group G Pid P on HOST ..." lines */
	int64_t nranks = 0, nhosts = 0;
	char **hosts = NULL;
	int time_col = -1, line_no = 0;
	double *sz = NULL, *tm = NULL;
	size_t np = 0;
	rc = 0;
	char *copy = fx_xstrdup(text);
	for (char *ln = copy, *nl; ln && rc == 0; ln = nl) {
		nl = strchr(ln, '\n');
		if (nl)
			*nl++ = '\0';
		line_no++;
		char buf[1024];
		snprintf(buf, sizeof buf, "%s", ln);
		char *w[32];
		int nw = words(buf, w, 32);
		if (nw == 0)
			continue;
		fx_loc at = {name, line_no, 1};
		if (w[0][0] == '#') {
			/* "#" may stand alone or lead the first word */
			char **h = w;
			int nh = nw;
			if (strcmp(w[0], "#") == 0) {
				h++;
				nh--;
			} else {
				w[0]++;
			}
			if (nh >= 2 && strcmp(h[0], "Rank") == 0) {
				nranks++;
				for (int i = 1; i + 1 < nh; i++)
					if (strcmp(h[i], "on") == 0) {
						int64_t j = 0;
						while (j < nhosts && strcmp(hosts[j], h[i + 1]))
							j++;
						if (j == nhosts) {
							hosts = fx_xrealloc(hosts, (size_t)(nhosts + 1) * sizeof *hosts);
							hosts[nhosts++] = fx_xstrdup(h[i + 1]);
						}
						break;
					}
			} else if (time_col < 0 && nh >= 2 && strcmp(h[0], "size") == 0) {
				for (int i = 1; i < nh; i++)
					if (strcmp(h[i], "time") == 0) {
						time_col = i;
						break;
					}
			}
			continue;
		}
		/* lines that do not start with a number (NCCL_DEBUG=INFO's
		 * "host:pid:tid NCCL INFO ...", a launcher's echo) are not data */
		if (!(w[0][0] >= '0' && w[0][0] <= '9'))
			continue;
		if (time_col < 0) {
			rc = fx_diag_error(d, &at, "a line of sizes before the header that names the "
					   "'time' column (is this an nccl-tests log?)");
			break;
		}
		if (nw <= time_col) {
			rc = fx_diag_error(d, &at, "%d columns, but the header puts 'time' in column %d",
					   nw, time_col + 1);
			break;
		}
		char *end;
		at.col = (int)(w[0] - buf) + 1;
		double s = strtod(w[0], &end);
		if (*end || !(s > 0) || !isfinite(s) || s > 1e18) {
			rc = fx_diag_error(d, &at, "the size must be a positive number of bytes, got '%s'",
					   w[0]);
			break;
		}
		fx_loc tat = {name, line_no, (int)(w[time_col] - buf) + 1};
		double t = strtod(w[time_col], &end);
		if (*end || !isfinite(t)) {
			rc = fx_diag_error(d, &tat, "the time must be a number of microseconds, got '%s'",
					   w[time_col]);
			break;
		}
		if (!(t > 0)) {
			rc = fx_diag_error(d, &tat, "the time must be greater than 0, got '%s'",
					   w[time_col]);
			break;
		}
		if (np && !(s > sz[np - 1])) {
			rc = fx_diag_error(d, &at, "sizes must increase from line to line: %s bytes "
					   "after %.0f", w[0], sz[np - 1]);
			break;
		}
		sz = fx_xrealloc(sz, (np + 1) * sizeof *sz);
		tm = fx_xrealloc(tm, (np + 1) * sizeof *tm);
		sz[np] = s;
		tm[np] = t * 1e-6;
		np++;
	}
	free(copy);
	for (int64_t j = 0; j < nhosts; j++)
		free(hosts[j]);
	free(hosts);
	if (rc == 0 && np == 0)
		rc = fx_snode_error(d, fn, "'%s': '%s' has no measured sizes (is it an nccl-tests "
				    "log?)", fn->path, path);
	if (rc == 0 && k.ranks && nranks && k.ranks != nranks)
		rc = fx_snode_error(d, fx_snode_get(e, "ranks"), "'%s' says %lld ranks, but the log "
				    "'%s' lists %lld", fx_snode_get(e, "ranks")->path,
				    (long long)k.ranks, path, (long long)nranks);
	if (rc == 0 && !k.ranks && !nranks)
		rc = fx_snode_error(d, e, "'%s': the log '%s' lists no '#  Rank' lines: give "
				    "'ranks'", e->path, path);
	if (rc == 0) {
		int64_t ranks = k.ranks ? k.ranks : nranks;
		int64_t nodes = k.nodes ? k.nodes : nhosts;
		if (k.nodes && nhosts && k.nodes != nhosts)
			rc = fx_snode_error(d, fx_snode_get(e, "nodes"), "'%s' says %lld nodes, but the "
					    "log '%s' runs on %lld hosts",
					    fx_snode_get(e, "nodes")->path, (long long)k.nodes, path,
					    (long long)nhosts);
		else if (find_curve(m, k.pattern, k.algo, ranks, nodes))
			rc = fx_snode_error(d, e, "'%s' measures %s over %lld ranks again: an earlier "
					    "entry gives that curve", e->path, k.pattern,
					    (long long)ranks);
		else {
			char where[2200];
			snprintf(where, sizeof where, "nccl-tests %s", path);
			fx_coll_curve *c = add_curve(m, k.pattern, k.algo, ranks, nodes, k.next, where);
			for (size_t i = 0; i < np; i++)
				add_point(c, sz[i], tm[i]);
		}
	}
	free(sz);
	free(tm);
	free(text);
	return rc;
}

int fx_coll_measured_parse(fx_diag *d, const fx_snode *list, const char *spec_file,
			   fx_coll_measured **out)
{
	*out = NULL;
	if (!list)
		return 0;
	if (list->kind != FX_SNODE_SEQ)
		return fx_snode_error(d, list, "'%s' must be a list of {pattern, ranks, size, time} "
				      "rows or {pattern, nccl_tests: FILE} logs, got %s", list->path,
				      fx_snode_kind_name(list));
	fx_coll_measured *m = fx_xcalloc(1, sizeof *m);
	int rc = 0;
	for (size_t i = 0; i < list->n; i++) {
		const fx_snode *e = list->items[i];
		if (e->kind != FX_SNODE_MAP)
			rc |= fx_snode_error(d, e, "'%s' must be a map {pattern, ranks, size, time} or "
					     "{pattern, nccl_tests: FILE}, got %s", e->path,
					     fx_snode_kind_name(e));
		else if (fx_snode_get(e, "nccl_tests"))
			rc |= parse_log(d, e, spec_file, m);
		else
			rc |= parse_row(d, e, m);
	}
	if (rc) {
		fx_coll_measured_free(m);
		return -1;
	}
	*out = m;
	return 0;
}

/* The curve for a call: an algorithm's own before one of any algorithm,
 * one of the call's node count before one of any. */
static const fx_coll_curve *match(const fx_coll_measured *m, const char *pattern,
				  const char *algo, int64_t ranks, int64_t nodes)
{
	const fx_coll_curve *best = NULL;
	int best_score = -1;
	for (size_t i = 0; m && i < m->n; i++) {
		const fx_coll_curve *c = &m->c[i];
		if (c->ranks != ranks || strcmp(c->pattern, pattern) != 0)
			continue;
		if (c->algo[0] && (!algo || strcmp(c->algo, algo) != 0))
			continue;
		if (c->nodes && c->nodes != nodes)
			continue;
		int score = (c->algo[0] ? 2 : 0) + (c->nodes ? 1 : 0);
		if (score > best_score) {
			best = c;
			best_score = score;
		}
	}
	return best;
}

fx_coll_match fx_coll_measured_lookup(const fx_coll_measured *m, const char *pattern,
				      const char *algo, int64_t ranks, int64_t nodes, double size,
				      double *time, char *why, size_t len)
{
	char tmp[8];
	if (!why) {
		why = tmp;
		len = sizeof tmp;
	}
	snprintf(why, len, "modelled");
	if (algo && !algo[0])
		algo = NULL;
	const fx_coll_curve *c = match(m, pattern, algo, ranks, nodes);
	if (!c || c->n == 0)
		return FX_COLL_MODELLED;
	char a[32], b[32], s[32];
	show_size(size, s, sizeof s);
	char on[48] = "";
	if (c->nodes)
		snprintf(on, sizeof on, " on %lld nodes", (long long)c->nodes);
	size_t k = 0;
	while (k < c->n && c->size[k] < size)
		k++;
	if (k < c->n && c->size[k] == size) {
		*time = c->time[k];
		snprintf(why, len, "measured: %s over %lld ranks%s at %s (%s)", c->pattern,
			 (long long)ranks, on, s, c->source);
		return FX_COLL_MEASURED;
	}
	show_size(c->size[0], a, sizeof a);
	show_size(c->size[c->n - 1], b, sizeof b);
	if (k == c->n || (k == 0 && !c->next) || !(size > 0)) {
		snprintf(why, len, "modelled: %s is outside the measured %s to %s of %s over %lld "
			 "ranks%s (%s), not extrapolated", s, a, b, c->pattern, (long long)ranks, on,
			 c->source);
		return FX_COLL_OUTSIDE;
	}
	if (c->next) {
		*time = c->time[k];
		show_size(c->size[k], a, sizeof a);
		snprintf(why, len, "measured: %s over %lld ranks%s, the %s point for %s (next "
			 "measured size up, %s)", c->pattern, (long long)ranks, on, a, s, c->source);
		return FX_COLL_MEASURED;
	}
	double x0 = log(c->size[k - 1]), x1 = log(c->size[k]);
	double y0 = log(c->time[k - 1]), y1 = log(c->time[k]);
	*time = exp(y0 + (log(size) - x0) / (x1 - x0) * (y1 - y0));
	show_size(c->size[k - 1], a, sizeof a);
	show_size(c->size[k], b, sizeof b);
	snprintf(why, len, "measured: %s over %lld ranks%s at %s, log-log between %s and %s (%s)",
		 c->pattern, (long long)ranks, on, s, a, b, c->source);
	return FX_COLL_MEASURED;
}
