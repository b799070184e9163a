/*
 * space/run: which points of a space to evaluate and who evaluates them.
 *
 * The whole grid, or past --budget-points a seeded Latin hypercube sample
 * of half the budget and then, round by round, the grid neighbours (one
 * step along one axis) of the Pareto front not yet evaluated, until the
 * budget is spent or the front has no new neighbour.  Every choice depends
 * only on the space, the seed and the points' results, so a rerun, a
 * resumed run and an MPI run choose the same points.
 *
 * Points run on --jobs worker processes (fork: a point shares nothing with
 * another, so processes need no locks and a crash stays in its worker),
 * each taking every jobs-th point of a batch and writing its lines to a
 * pipe the parent drains; under MPI each rank takes every size-th point
 * and all ranks gather all lines (space/mpi.c).  Lines are parsed back
 * the same way whoever wrote them.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../core/sha256.h"
#include "../core/xalloc.h"
#include "run.h"

/* ---- the results so far: points by index ---- */

static size_t slot_of(const fx_space_run *r, uint64_t idx)
{
	size_t mask = r->cap_hash - 1, h = (size_t)((idx * 0x9e3779b97f4a7c15ull) >> 17) & mask;
	while (r->hash[h] && r->pts[r->hash[h] - 1].index != idx)
		h = (h + 1) & mask;
	return h;
}

const fx_space_pt *fx_space_run_find(const fx_space_run *r, uint64_t idx)
{
	if (!r->cap_hash)
		return NULL;
	size_t h = slot_of(r, idx);
	return r->hash[h] ? &r->pts[r->hash[h] - 1] : NULL;
}

/* Keeps p (moved in); a point already held is kept as it was. */
static void keep(fx_space_run *r, fx_space_pt *p)
{
	if (fx_space_run_find(r, p->index)) {
		fx_space_pt_release(p);
		return;
	}
	if (2 * (r->npts + 1) > r->cap_hash) {
		size_t cap = r->cap_hash ? 2 * r->cap_hash : 1024;
		free(r->hash);
		r->hash = fx_xcalloc(cap, sizeof *r->hash);
		r->cap_hash = cap;
		for (size_t i = 0; i < r->npts; i++)
			r->hash[slot_of(r, r->pts[i].index)] = i + 1;
	}
	if (r->npts == r->cap_pts) {
		r->cap_pts = r->cap_pts ? 2 * r->cap_pts : 256;
		r->pts = fx_xrealloc(r->pts, r->cap_pts * sizeof *r->pts);
	}
	r->pts[r->npts] = *p;
	r->hash[slot_of(r, p->index)] = ++r->npts;
	*p = (fx_space_pt){0};
}

/* The first column in which two results for one point differ, into why;
 * 0 when they are alike. */
static int differs(const fx_space_run *r, const fx_space_pt *a, const fx_space_pt *b, char *why, size_t len)
{
	if (a->status != b->status) {
		snprintf(why, len, "status %s against %s", fx_space_status_name(a->status),
			 fx_space_status_name(b->status));
		return 1;
	}
	if ((a->reason == NULL) != (b->reason == NULL) ||
	    (a->reason && strcmp(a->reason, b->reason))) {
		snprintf(why, len, "reason '%s' against '%s'", a->reason ? a->reason : "",
			 b->reason ? b->reason : "");
		return 1;
	}
	for (size_t k = 0; k < r->ev->nnames; k++) {
		double x = a->m[k], y = b->m[k];
		if (x != y && !(isnan(x) && isnan(y))) {
			snprintf(why, len, "%s %.17g against %.17g", r->ev->names[k], x, y);
			return 1;
		}
	}
	return 0;
}

int fx_space_run_take_line(fx_space_run *r, const char *line, int with_pareto, char *why,
			   size_t len)
{
	fx_space_pt p;
	if (fx_space_read_line(r->ev, line, &p, with_pareto))
		return -1;
	p.pareto = 0;
	const fx_space_pt *had = fx_space_run_find(r, p.index);
	char none[8];
	int clash = had && differs(r, had, &p, why ? why : none, why ? len : sizeof none);
	keep(r, &p);  /* a duplicate is dropped: the first stands */
	return clash;
}

void fx_space_run_release(fx_space_run *r)
{
	for (size_t i = 0; i < r->npts; i++)
		fx_space_pt_release(&r->pts[i]);
	free(r->pts);
	free(r->hash);
	free(r->todo);
	*r = (fx_space_run){0};
}

/* ---- progress on stderr ---- */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void progress(fx_space_run *r, size_t done, size_t total, int last)
{
	if (!r->progress)
		return;
	double t = now(), el = t - r->t0;
	if (last ? !r->shown_any : el < 1.0 || t - r->t_shown < 0.1)
		return;  /* a space done within a second shows nothing */
	r->t_shown = t;
	double rate = el > 0 ? (double)(r->done_before + done) / el : 0;
	fprintf(stderr, "\rexplore: %zu/%zu points, %.1f points/s, ETA %.0f s   ", done, total, rate,
		rate > 0 ? (double)(total - done) / rate : 0.0);
	if (last && r->shown_any)
		fputc('\n', stderr);
	r->shown_any = 1;
}

/* ---- evaluating a batch ---- */

static int eval_serial(fx_space_run *r, const uint64_t *idx, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		fx_space_pt p;
		if (fx_space_evaluate(r->ev, idx[k], &p, r->d)) {
			fx_space_pt_release(&p);
			return -1;
		}
		keep(r, &p);
		progress(r, k + 1, n, 0);
	}
	return 0;
}

/* A child of fx_lines_parallel: its share as lines on fd; a run-stopping
 * error as "!STATUS message".  Never returns. */
static void line_worker(const fx_lines_job *job, int w, int jobs, int fd)
{
	FILE *f = fdopen(fd, "w");
	fx_diag d;
	fx_diag_init(&d);
	int st = 0;
	if (f && job->work(job->ctx, w, jobs, f, &d)) {
		fprintf(f, "!%d %s\n", d.status ? d.status : 1, d.last ? d.last : "failed");
		st = 1;
	}
	_exit(!f || fclose(f) ? 1 : st);
}

typedef struct pipe_buf {
	int fd;
	char *s;
	size_t len, cap;
} pipe_buf;

/* Takes the complete lines of b. */
static void drain_lines(const fx_lines_job *job, pipe_buf *b, size_t *got, int *stop, fx_diag *d)
{
	size_t start = 0;
	for (size_t i = 0; i < b->len; i++) {
		if (b->s[i] != '\n')
			continue;
		b->s[i] = '\0';
		const char *line = b->s + start;
		if (line[0] == '!') {
			int st = atoi(line + 1);
			const char *msg = strchr(line, ' ');
			if (!*stop) {
				d->status = 0;
				if (st == 2)
					fx_diag_error(d, NULL, "%s", msg ? msg + 1 : "failed");
				else
					fx_diag_internal(d, "%s", msg ? msg + 1 : "failed");
			}
			*stop = 1;
		} else if (job->take(job->ctx, line)) {
			fx_diag_internal(d, "a worker wrote a line fabricx cannot read: %.80s", line);
			*stop = 1;
		} else {
			(*got)++;
		}
		start = i + 1;
	}
	memmove(b->s, b->s + start, b->len - start);
	b->len -= start;
}

int fx_lines_parallel(const fx_lines_job *job, int jobs, size_t expect, fx_diag *d)
{
	pipe_buf *b = fx_xcalloc((size_t)jobs, sizeof *b);
	pid_t *pid = fx_xcalloc((size_t)jobs, sizeof *pid);
	fflush(stdout);
	fflush(stderr);
	int started = 0, rc = 0;
	for (int w = 0; w < jobs; w++) {
		int fds[2];
		if (pipe(fds)) {
			rc = fx_diag_internal(d, "cannot start a worker: %s", strerror(errno));
			break;
		}
		pid[w] = fork();
		if (pid[w] < 0) {
			close(fds[0]);
			close(fds[1]);
			rc = fx_diag_internal(d, "cannot start a worker: %s", strerror(errno));
			break;
		}
		if (pid[w] == 0) {
			close(fds[0]);
			for (int k = 0; k < w; k++)
				close(b[k].fd);
			line_worker(job, w, jobs, fds[1]);
		}
		close(fds[1]);
		b[w].fd = fds[0];
		started++;
	}
	size_t got = 0;
	int open_n = started, stop = 0;
	struct pollfd *pf = fx_xcalloc((size_t)jobs, sizeof *pf);
	while (open_n > 0) {
		int m = 0;
		for (int w = 0; w < started; w++)
			if (b[w].fd >= 0)
				pf[m++] = (struct pollfd){.fd = b[w].fd, .events = POLLIN};
		if (poll(pf, (nfds_t)m, 200) < 0 && errno != EINTR)
			break;
		for (int w = 0; w < started; w++) {
			if (b[w].fd < 0)
				continue;
			int ready = 0;
			for (int k = 0; k < m; k++)
				ready |= pf[k].fd == b[w].fd && pf[k].revents;
			if (!ready)
				continue;
			if (b[w].cap - b[w].len < 4096) {
				b[w].cap = b[w].cap ? 2 * b[w].cap : 65536;
				b[w].s = fx_xrealloc(b[w].s, b[w].cap);
			}
			ssize_t k = read(b[w].fd, b[w].s + b[w].len, b[w].cap - b[w].len);
			if (k > 0) {
				b[w].len += (size_t)k;
				drain_lines(job, &b[w], &got, &stop, d);
			} else if (k == 0 || errno != EINTR) {
				close(b[w].fd);
				b[w].fd = -1;
				open_n--;
			}
		}
		if (job->progress)
			job->progress(job->ctx, got);
	}
	for (int w = 0; w < started; w++) {
		int status = 0;
		while (waitpid(pid[w], &status, 0) < 0 && errno == EINTR)
			;
		if (!stop && !rc && (!WIFEXITED(status) || WEXITSTATUS(status)))
			rc = fx_diag_internal(d, "a worker %s", WIFSIGNALED(status) ? "was killed by "
					      "a signal" : "failed");
		free(b[w].s);
	}
	free(pf);
	free(b);
	free(pid);
	if (!rc && !stop && got != expect)
		rc = fx_diag_internal(d, "the workers returned %zu of %zu lines", got, expect);
	return rc || stop ? -1 : 0;
}

/* A space batch as lines: each worker draws the next chunk of points not
 * taken (every jobs-th point left one worker 7 % longer than the other:
 * points of different shapes cost differently). */
typedef struct space_lines {
	fx_space_run *r;
	const uint64_t *idx;
	size_t n, chunk;
	fx_lines_counter *next;
} space_lines;

static int space_work(void *ctx, int w, int jobs, FILE *f, fx_diag *d)
{
	space_lines *sl = ctx;
	sl->r->d = d;
	double flushed = now();
	(void)w;
	(void)jobs;
	for (size_t k0 = fx_lines_counter_take(sl->next, sl->chunk); k0 < sl->n;
	     k0 = fx_lines_counter_take(sl->next, sl->chunk))
		for (size_t k = k0; k < k0 + sl->chunk && k < sl->n; k++) {
			fx_space_pt p;
			if (fx_space_evaluate(sl->r->ev, sl->idx[k], &p, d)) {
				fx_space_pt_release(&p);
				return -1;
			}
			fx_space_write_line(sl->r->ev, &p, f, 0);
			fx_space_pt_release(&p);
			/* lines go to the parent at most every 50 ms (and when
			 * the buffer fills): a flush per point woke the parent
			 * for every point, and with workers on every core each
			 * wake-up took a worker's core (a tenth of a
			 * 10,000-point run) */
			double t = now();
			if (t - flushed >= 0.05) {
				fflush(f);
				flushed = t;
			}
		}
	return 0;
}

static int space_take(void *ctx, const char *line)
{
	return fx_space_run_take_line(((space_lines *)ctx)->r, line, 0, NULL, 0);
}

static void space_progress(void *ctx, size_t got)
{
	space_lines *sl = ctx;
	progress(sl->r, got, sl->n, 0);
}

static int eval_parallel(fx_space_run *r, const uint64_t *idx, size_t n)
{
	int jobs = r->jobs < (int)n ? r->jobs : (int)n;
	/* chunks of 1/64 of a worker's share: few draws, an even finish */
	size_t chunk = n / ((size_t)jobs * 64);
	space_lines sl = {r, idx, n, chunk ? chunk : 1, fx_lines_counter_new(1, r->d)};
	if (!sl.next)
		return -1;
	fx_lines_job job = {space_work, space_take, space_progress, &sl};
	int rc = fx_lines_parallel(&job, jobs, n, r->d);
	fx_lines_counter_free(sl.next);
	return rc;
}

/* Evaluates the points of idx[0..n) not held yet. */
static int eval_batch(fx_space_run *r, const uint64_t *idx, size_t n)
{
	uint64_t *need = fx_xmalloc((n + 1) * sizeof *need);
	size_t m = 0;
	for (size_t k = 0; k < n; k++)
		if (!fx_space_run_find(r, idx[k]))
			need[m++] = idx[k];
	r->done_before = 0;
	int rc = 0;
	if (m && r->no_eval)
		rc = fx_diag_error(r->d, NULL, "%zu points of the space are in none of the folders "
				   "merged (the first: point %llu)", m, (unsigned long long)need[0]);
	else if (m && r->mpi_size > 1)
		rc = fx_space_mpi_batch(r, need, m);
	else if (m)
		rc = r->jobs > 1 && m > 1 ? eval_parallel(r, need, m) : eval_serial(r, need, m);
	progress(r, m, m, 1);
	r->evaluated += m;
	free(need);
	return rc;
}

/* ---- which points ---- */

static void add_todo(fx_space_run *r, uint64_t i)
{
	r->todo = fx_xrealloc(r->todo, (r->ntodo + 1) * sizeof *r->todo);
	r->todo[r->ntodo++] = i;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Marks the Pareto front among the points held. */
void fx_space_run_front(fx_space_run *r)
{
	size_t n = r->npts, m = r->ev->space->nobj;
	double *vals = fx_xmalloc((n * m + 1) * sizeof *vals);
	unsigned char *feas = fx_xmalloc(n + 1), *par = fx_xcalloc(n + 1, 1);
	for (size_t i = 0; i < n; i++) {
		feas[i] = r->pts[i].status == FX_SPACE_FEASIBLE;
		for (size_t k = 0; k < m; k++) {
			size_t j = 0;
			while (strcmp(r->ev->names[j], r->ev->space->obj[k].metric))
				j++;
			vals[i * m + k] = r->pts[i].m[j];
		}
	}
	fx_space_pareto(r->ev->space, n, vals, feas, par);
	for (size_t i = 0; i < n; i++)
		r->pts[i].pareto = par[i];
	free(vals);
	free(feas);
	free(par);
}

/* The grid neighbours of the front not yet held, ascending, at most cap,
 * into out[cap]. */
static size_t neighbours(fx_space_run *r, uint64_t *out, size_t cap)
{
	const fx_space *s = r->ev->space;
	size_t n = 0, room = 0, dig[64];
	uint64_t *v = NULL;
	for (size_t i = 0; i < r->npts; i++) {
		if (!r->pts[i].pareto)
			continue;
		fx_space_digits(s, r->pts[i].index, dig);
		uint64_t stride = 1, idx = r->pts[i].index;
		for (size_t a = s->naxes; a-- > 0;) {
			if (n + 2 > room) {
				room = room ? 2 * room : 256;
				v = fx_xrealloc(v, room * sizeof *v);
			}
			if (dig[a] > 0 && !fx_space_run_find(r, idx - stride))
				v[n++] = idx - stride;
			if (dig[a] + 1 < s->axes[a].nvals && !fx_space_run_find(r, idx + stride))
				v[n++] = idx + stride;
			stride *= s->axes[a].nvals;
		}
	}
	if (n)
		qsort(v, n, sizeof *v, cmp_u64);
	size_t u = 0;
	for (size_t i = 0; i < n && u < cap; i++)
		if (u == 0 || out[u - 1] != v[i])
			out[u++] = v[i];
	free(v);
	return u;
}

int fx_space_run_all(fx_space_run *r)
{
	const fx_space *s = r->ev->space;
	uint64_t total = fx_space_count(s);
	r->total = total;
	r->t0 = now();
	if (!r->budget || r->budget >= total) {
		r->sampled = 0;
		uint64_t step = (uint64_t)(r->shard_n ? r->shard_n : 1);
		for (uint64_t i = (uint64_t)r->shard_i; i < total; i += step)
			add_todo(r, i);
		return eval_batch(r, r->todo, r->ntodo);
	}
	/* a Latin hypercube of half the budget, then the front's neighbours */
	r->sampled = 1;
	size_t first = (size_t)(r->budget / 2 ? r->budget / 2 : 1);
	uint64_t *v = fx_xmalloc((size_t)r->budget * sizeof *v);
	size_t n = fx_space_sample(s, first, r->seed, v);
	r->nsample = n;
	for (size_t k = 0; k < n; k++)
		add_todo(r, v[k]);
	int rc = eval_batch(r, v, n);
	while (rc == 0 && r->ntodo < r->budget) {
		fx_space_run_front(r);
		size_t k = neighbours(r, v, (size_t)(r->budget - r->ntodo));
		if (k == 0)
			break;
		for (size_t j = 0; j < k; j++)
			add_todo(r, v[j]);
		r->rounds++;
		rc = eval_batch(r, v, k);
	}
	free(v);
	return rc;
}

/* The digest of a space's axes, for provenance (explore --resume, merge):
 * each axis's counts, then its paths and values, length-prefixed. */
void fx_space_signature(const fx_space *s, char out[65])
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		fx_xalloc_failed();
	/* unit and record separators: no path or flow value holds them
	 * unescaped next to each other in a way that could alias */
	for (size_t a = 0; a < s->naxes; a++) {
		const fx_space_axis *x = &s->axes[a];
		fprintf(f, "%zu %zu", x->npaths, x->nvals);
		for (size_t p = 0; p < x->npaths; p++)
			fprintf(f, "\x1f%zu:%s", strlen(x->paths[p]), x->paths[p]);
		for (size_t v = 0; v < x->nvals * x->npaths; v++)
			fprintf(f, "\x1f%zu:%s", strlen(x->vals[v]), x->vals[v]);
		fputc('\x1e', f);
	}
	fclose(f);
	fx_sha256_hex(text, len, out);
	free(text);
}
