/*
 * links.csv: bytes, busy time and utilisation of every directed link
 * under one collective (report/report.h), streamed: a wafer has millions.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../core/outfile.h"
#include "../core/table.h"
#include "../core/xalloc.h"
#include "report.h"

/* Numbers as fx_csv_num writes them, remembered by value: a wafer's
 * all-to-all has millions of links but a few thousand distinct loads. */
#define MEMO_BITS 16  /* a WSE-2's three columns hold ~10k distinct values */
typedef struct num_memo {
	double v[1 << MEMO_BITS];
	char text[1 << MEMO_BITS][40];
	uint8_t len[1 << MEMO_BITS];
	uint8_t used[1 << MEMO_BITS];
} num_memo;

static size_t memo_text(num_memo *m, double v, const char **text)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof bits);
	size_t h = (size_t)((bits * 0x9E3779B97F4A7C15ULL) >> (64 - MEMO_BITS));
	if (!m->used[h] || memcmp(&m->v[h], &v, sizeof v) != 0) {
		m->len[h] = (uint8_t)fx_csv_num_text(v, m->text[h]);
		m->v[h] = v;
		m->used[h] = 1;
	}
	*text = m->text[h];
	return m->len[h];
}

/* Each vertex's name as a CSV field, once (a row per directed link would
 * otherwise format both ends' names: half of a wafer explore's time),
 * into one buffer without stdio (quoting a WSE-2's 754k names "(x,y)"
 * character by character through a stream was a tenth of its links.csv). */
static char *csv_names(const fx_fabric *f, size_t **off)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = fx_xmalloc(cap);
	*off = fx_xmalloc((size_t)(f->nv + 1) * sizeof **off);
	char a[64];
	for (int64_t v = 0; v < f->nv; v++) {
		(*off)[v] = len;
		fx_fabric_vertex_name(f, v, a, sizeof a);
		if (len + 2 * sizeof a + 2 > cap)
			buf = fx_xgrow(buf, &cap, len + 2 * sizeof a + 2, 1);
		len += fx_csv_text_buf(a, buf + len);
	}
	(*off)[f->nv] = len;
	return buf;
}

int fx_report_links_csv(const fx_fabric *f, const char *path, const fx_coll_result *res,
			fx_diag *d)
{
	fx_outfile of;
	FILE *out = fx_outfile_open(&of, path);
	if (!out)
		return fx_diag_error(d, NULL, "cannot write '%s': %s", path, strerror(errno));
	/* streamed, not a table: a wafer has millions of links; vertex
	 * names such as "(0,0,0)" are quoted.  Rows are assembled in one
	 * buffer written a MiB at a time (a WSE-2's 3 M rows were 3 M fwrite
	 * calls and 29k write(2)s of 8 KiB); the text is fx_csv_text's and
	 * fx_csv_num's exactly */
	size_t *off;
	char *names = csv_names(f, &off);
	num_memo *memo = fx_xcalloc(1, sizeof *memo);
	fprintf(out, "src,dst,bytes,busy_s,utilisation\n");
	enum { BUF = 1 << 20, ROOM = 3 * 41 + 8 };  /* three numbers, commas, newline */
	char *buf = fx_xmalloc(BUF);
	size_t k = 0;
	for (int64_t l = 0; l < 2 * f->ne; l++) {
		int64_t e = l / 2, from = f->ends[2 * e + (l & 1)], to = f->ends[2 * e + 1 - (l & 1)];
		size_t na = off[from + 1] - off[from], nb = off[to + 1] - off[to], n;
		const char *t;
		double vals[3] = {res->link_bytes[l], res->link_busy[l],
				  res->time > 0 ? res->link_busy[l] / res->time : 0};
		if (k + na + nb + ROOM > BUF) {
			fwrite(buf, 1, k, out);
			k = 0;
		}
		if (na + nb + ROOM > BUF) {  /* names longer than the buffer */
			fwrite(names + off[from], 1, na, out);
			fputc(',', out);
			fwrite(names + off[to], 1, nb, out);
		} else {
			memcpy(buf + k, names + off[from], na);
			k += na;
			buf[k++] = ',';
			memcpy(buf + k, names + off[to], nb);
			k += nb;
		}
		for (int i = 0; i < 3; i++) {
			buf[k++] = ',';
			n = memo_text(memo, vals[i], &t);
			memcpy(buf + k, t, n);
			k += n;
		}
		buf[k++] = '\n';
	}
	fwrite(buf, 1, k, out);
	free(buf);
	free(memo);
	free(names);
	free(off);
	if (fx_outfile_close(&of, 1))
		return fx_diag_error(d, NULL, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

