/* Model sizes, decode times and the deployment table against the "Supernodes" chapter's
 * Chapter 6 numbers (Qwen3-235B-A22B and Qwen3-32B on an HGX H100). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../placement/model.h"
#include "../../placement/placement.h"
#include "helpers.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * 1024.0 * 1024.0)
#define GB 1e9

/* x agrees with a figure the chapter prints to `step` (e.g. 470.2 with step
 * 0.1): it rounds to the printed value. */
#define PRINTED(x, printed, step)                                                       \
	ck_assert_msg(fabs((x) - (printed)) <= (step) / 2 * (1 + 1e-9),                 \
		      "%s = %.6f, the book prints %s", #x, (double)(x), #printed)

/* Qwen3-235B-A22B (the chapter, §6.1.2, official config). */
static const fx_model qwen235 = {
	.layers = 94, .hidden = 4096, .heads = 64, .kv_heads = 4, .head_dim = 128,
	.experts = 128, .top_k = 8, .expert_ffn = 1536, .vocab = 151936,
	.dtype_bytes = 2, .reduce_bytes = 4};

/* Qwen3-32B (the chapter, §6.2.2, Qwen3 technical report Table 1). */
static const fx_model qwen32 = {
	.layers = 64, .hidden = 5120, .heads = 64, .kv_heads = 8, .head_dim = 128,
	.dense_ffn = 25600, .vocab = 151936, .dtype_bytes = 2, .reduce_bytes = 4};

/* Qwen3-30B-A3B (the chapter, §6.2.2 table: 48 layers, 4 KV heads, head_dim 128). */
static const fx_model qwen30 = {
	.layers = 48, .hidden = 2048, .heads = 32, .kv_heads = 4, .head_dim = 128,
	.experts = 128, .top_k = 8, .expert_ffn = 768, .vocab = 151936,
	.dtype_bytes = 2, .reduce_bytes = 4};

/* H100 SXM (the chapter, §6.1.2): 80 GB, 3350 GB/s, 989.4 TFLOP/s; 2 GiB reserve. */
static const fx_accel h100 = {80e9, 3350e9, 989.4e12, 2 * GIB};

/* Ring allreduce, Eq. 6-9, with the chapter's NVLink figures (§6.4.2): alpha
 * 0.822 us, B 450 GB/s per direction.  The program routes it instead. */
static double ring_ar(int64_t n, double bytes, void *ctx)
{
	(void)ctx;
	const double alpha = 0.822e-6, B = 450e9;
	return 2.0 * (double)(n - 1) * alpha + 2.0 * (double)(n - 1) * bytes / ((double)n * B);
}

/* §6.5.1: two HGX H100 servers, TP16, nccl-tests' 32.74 us per reduction. */
static double measured_ar(int64_t n, double bytes, void *ctx)
{
	(void)n;
	(void)bytes;
	(void)ctx;
	return 32.74e-6;
}

/* ---- Qwen3-235B-A22B ---- */

/* §6.1.2: "the full-model BF16 weights total about 470.2 GB"; footnote 1:
 * "A single card's complete BF16 weights are 470,187,269,120 bytes". */
START_TEST(q235_weights)
{
	double w = fx_model_params(&qwen235) * qwen235.dtype_bytes;
	ck_assert_double_eq(w, 470187269120.0);
	PRINTED(w / GB, 470.2, 0.1);
	/* TP1 x EP1 holds everything once */
	ck_assert_double_eq(fx_model_weights_per_device(&qwen235, 1, 1), w);
}
END_TEST

/* §6.1.2: KV per token 2 x 94 x 4 x 128 x 2 = 188 KiB; "The KV for 8192
 * tokens totals about 1.58 GB" (footnote 1: 1,577,058,304 bytes; per card
 * under TP8 394,264,576 bytes, each KV head on two cards). */
START_TEST(q235_kv)
{
	double kv = fx_model_kv_per_token(&qwen235);
	ck_assert_double_eq(kv, 188 * KIB);
	ck_assert_double_eq(kv * 8192, 1577058304.0);
	PRINTED(kv * 8192 / GB, 1.58, 0.01);
	ck_assert_double_eq(kv * 8192 / 4, 394264576.0);
	PRINTED(kv * 8192 / 4 / GB, 0.39, 0.01);
}
END_TEST

/* §6.1.2 table: each of eight cards 58.96 GB weights, 61.50 GB in all with
 * 0.39 GB KV and 2.15 GB reserve; footnote 1: 58,959,617,024 bytes per
 * card and at most 47 sessions of 8192 tokens. */
START_TEST(q235_tp8)
{
	double w8 = fx_model_weights_per_device(&qwen235, 8, 1);
	ck_assert_double_eq(w8, 58959617024.0);
	PRINTED(w8 / GB, 58.96, 0.01);
	/* "slightly more than one-eighth of 470.2 GB" */
	ck_assert(w8 > fx_model_params(&qwen235) * 2 / 8);
	double card = w8 + fx_model_kv_per_token(&qwen235) * 8192 / 4 + h100.reserve;
	PRINTED(card / GB, 61.50, 0.01);
	PRINTED(h100.reserve / GB, 2.15, 0.01);
	ck_assert_int_eq(fx_model_sessions_fit(&qwen235, &h100, 8, 8192), 47);
}
END_TEST

/* §6.1.2: "Generating one token across the whole model reads about 43.1 GB
 * of weights and 1.58 GB of KV; if a single card reads all of it, this
 * takes about 13.3 ms; split evenly across eight cards ... each card reads
 * about 5.79 GB, taking about 1.73 ms" (8192 tokens in cache: s + 1 = 8192). */
START_TEST(q235_step)
{
	double w = fx_model_read_per_token(&qwen235);
	double kv = fx_model_kv_per_token(&qwen235) * 8192;
	PRINTED(w / GB, 43.1, 0.1);
	PRINTED(fx_model_local_time(&qwen235, &h100, 1, 8191) * 1e3, 13.3, 0.1);
	PRINTED((w / 8 + kv / 4) / GB, 5.79, 0.01);
	PRINTED(fx_model_local_time(&qwen235, &h100, 8, 8191) * 1e3, 1.73, 0.01);
}
END_TEST

/* §6.3.1: TP2 x EP4, "each card's weights come to about 64.8 GB, totaling
 * 518.6 GB across eight cards - about 48.4 GB more than the 470.2 GB";
 * "per-card KV is 752 MiB, totaling 5.875 GiB across eight cards". */
START_TEST(q235_tp2_ep4)
{
	double w = fx_model_weights_per_device(&qwen235, 2, 4);
	PRINTED(w / GB, 64.8, 0.1);
	PRINTED(8 * w / GB, 518.6, 0.1);
	PRINTED((8 * w - fx_model_params(&qwen235) * 2) / GB, 48.4, 0.1);
	double kv = fx_model_kv_per_token(&qwen235) * 8192 / 2;  /* 2 of 4 KV heads */
	ck_assert_double_eq(kv, 752 * MIB);
	ck_assert_double_eq(8 * kv, 5.875 * GIB);
}
END_TEST

/* §6.3.1: FP32 reductions of the 4096-wide hidden vector (16 KiB); a 2-card
 * ring sends one full vector, a 4-card ring 1.5 times; "each card sends
 * 16 + 16 + 24 = 56 KiB. Across eight cards this totals 448 KiB; for a
 * prefill of 8192 tokens ... each card sends 448 MiB". */
START_TEST(q235_send)
{
	double s = fx_model_send_per_token(&qwen235, 2, 4);
	ck_assert_double_eq(s, 56 * KIB);
	ck_assert_double_eq(8 * s, 448 * KIB);
	ck_assert_double_eq(8192 * s, 448 * MIB);
	ck_assert_double_eq(fx_model_send_per_token(&qwen235, 2, 1), 2 * 16 * KIB);
	ck_assert_double_eq(fx_model_send_per_token(&qwen235, 1, 4), 24 * KIB);
	ck_assert_double_eq(fx_model_send_per_token(&qwen235, 1, 1), 0);
}
END_TEST

/* ---- Qwen3-32B ---- */

/* §6.2.2: "BF16 weights totaling about 65.52 GB"; KV 2 x 64 x 8 x 128 x 2
 * = 256 KiB per token; "a single 128K session requires storing about 34.36
 * GB"; single card with 2 GiB workspace 102.03 GB, two cards 52.09 GB
 * each, four 27.12 GB. */
START_TEST(q32_sizes)
{
	double w = fx_model_params(&qwen32) * 2;
	PRINTED(w / GB, 65.52, 0.01);
	ck_assert_double_eq(fx_model_kv_per_token(&qwen32), 256 * KIB);
	double s = fx_model_kv_per_token(&qwen32) * 131072;
	PRINTED(s / GB, 34.36, 0.01);
	PRINTED((w + s + h100.reserve) / GB, 102.03, 0.01);
	PRINTED((fx_model_weights_per_device(&qwen32, 2, 1) + s / 2 + h100.reserve) / GB, 52.09,
		0.01);
	PRINTED((fx_model_weights_per_device(&qwen32, 4, 1) + s / 4 + h100.reserve) / GB, 27.12,
		0.01);
}
END_TEST

/* §6.2.2 Eq. 6-4: V(s) = 64 x 930 MiB + 256 KiB x (s+1) + 151936 x 5120 x
 * 2 bytes; "Substituting 131,064 gives about 98.32 GB, of which 63.97 GB
 * is weights and 34.36 GB is KV ... about 29.35 ms; the matrix operations
 * for the same step come to about 0.34 TFLOPs". */
START_TEST(q32_eq_6_4)
{
	double w = fx_model_read_per_token(&qwen32);
	ck_assert_double_eq(w, 64 * 930 * MIB + 151936.0 * 5120 * 2);
	double kv = fx_model_kv_per_token(&qwen32) * (131064 + 1);
	PRINTED(w / GB, 63.97, 0.01);
	PRINTED(kv / GB, 34.36, 0.01);
	PRINTED((w + kv) / GB, 98.32, 0.01);
	PRINTED(fx_model_local_time(&qwen32, &h100, 1, 131064) * 1e3, 29.35, 0.01);
	PRINTED(fx_model_step_flops(&qwen32, 131064) / 1e12, 0.34, 0.01);
	/* §6.2.2 FFN example: 750 MiB of FFN weights per layer, 1/4 under TP4 */
	ck_assert_double_eq(3.0 * 5120 * 25600 * 2, 750 * MIB);
}
END_TEST

/* §6.2.2: "split across two cards ... enough for two such sessions; across
 * four cards ... seven; across eight cards, sixteen"; TP1 holds none
 * (footnote 36's floor((n x (80 GB - 2 GiB) - W) / S)).  Table: 128K/32K
 * requests one H100 holds 0/1, two H100s 2/10. */
START_TEST(q32_capacity)
{
	static const struct { int64_t p, n; } c[] = {{1, 0}, {2, 2}, {4, 7}, {8, 16}};
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(fx_model_sessions_fit(&qwen32, &h100, c[i].p, 131072), c[i].n);
	ck_assert_int_eq(fx_model_sessions_fit(&qwen32, &h100, 1, 32768), 1);
	ck_assert_int_eq(fx_model_sessions_fit(&qwen32, &h100, 2, 32768), 10);
}
END_TEST

/* §6.2.2 table, Qwen3-30B-A3B column: resident 61.06 GB, 96 KiB per token,
 * batch-1 weight read 6.08 GB, 128K/32K requests 1/5 on one H100 and 7/29
 * on two. */
START_TEST(q30_table)
{
	PRINTED(fx_model_params(&qwen30) * 2 / GB, 61.06, 0.01);
	ck_assert_double_eq(fx_model_kv_per_token(&qwen30), 96 * KIB);
	PRINTED(fx_model_read_per_token(&qwen30) / GB, 6.08, 0.01);
	ck_assert_int_eq(fx_model_sessions_fit(&qwen30, &h100, 1, 131072), 1);
	ck_assert_int_eq(fx_model_sessions_fit(&qwen30, &h100, 1, 32768), 5);
	ck_assert_int_eq(fx_model_sessions_fit(&qwen30, &h100, 2, 131072), 7);
	ck_assert_int_eq(fx_model_sessions_fit(&qwen30, &h100, 2, 32768), 29);
}
END_TEST

/* The §6.7.1 workload: four sessions at 131,064 tokens, eight steps each,
 * 130 ms deadline, at least 3 of 4 on time (§6.7.2). */
static const fx_sessions four = {4, 131064, 8, 0.130, 0.75};

/* §6.4.2 table (Eq. 6-5 with ring reductions of the 10 KiB BF16 vector):
 * local 29.35/14.68/7.34/3.67 ms, 128 reductions 0/0.21/0.64/1.48 ms,
 * single step 29.35/14.89/7.97/5.15 ms. */
START_TEST(q32_eq_6_5)
{
	fx_choice c[8];
	ck_assert_uint_eq(fx_model_choices(&qwen32, &h100, &four, 8, ring_ar, NULL, c, 8), 4);
	static const double local[] = {29.35, 14.68, 7.34, 3.67}, red[] = {0, 0.21, 0.64, 1.48},
			    step[] = {29.35, 14.89, 7.97, 5.15};
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(c[i].tp, (int64_t)1 << i);
		ck_assert_int_eq(c[i].instances, 8 >> i);
		PRINTED(fx_model_local_time(&qwen32, &h100, c[i].tp, 131064) * 1e3, local[i], 0.01);
		PRINTED(128 * c[i].allreduce_time * 1e3, red[i], 0.01);
		PRINTED(c[i].step_time * 1e3, step[i], 0.01);
	}
	/* "TP8 ... a single reduction of about 11.55 us" */
	PRINTED(c[3].allreduce_time * 1e6, 11.55, 0.01);
}
END_TEST

/* §6.5.1: TP16 over two servers, "local time drops only from 3.67 ms to
 * 2.48 ms" (8 KV heads: KV per card stops shrinking), and with the measured
 * 32.74 us per reduction T(16) is about 6.67 ms; eight steps about 53.3 ms
 * (§6.7.1). */
START_TEST(q32_tp16)
{
	PRINTED(fx_model_local_time(&qwen32, &h100, 8, 131064) * 1e3, 3.67, 0.01);
	PRINTED(fx_model_local_time(&qwen32, &h100, 16, 131064) * 1e3, 2.48, 0.01);
	fx_choice c[8];
	size_t n = fx_model_choices(&qwen32, &h100, &four, 16, measured_ar, NULL, c, 8);
	ck_assert_uint_eq(n, 5);
	ck_assert_int_eq(c[4].tp, 16);
	PRINTED(c[4].step_time * 1e3, 6.67, 0.01);
	PRINTED(c[4].session_time * 1e3, 53.3, 0.1);
}
END_TEST

/* §6.7.1 table and §6.7.2 costs: TP1 cannot fit; four TP2 instances 119.1
 * ms per session, all done at 119.1 ms; two TP4 instances 63.8 ms,
 * finishing 63.8, 63.8, 127.6, 127.6; one TP8 instance 41.2 ms, finishing
 * 41.2, 82.4, 123.5, 164.7.  Cost 8 x 0.1191 = 0.953 GPU-s, 0.238 per
 * on-time session; 1.021 / 0.255; 1.318 / 0.439 (Eq. 6-13). */
START_TEST(q32_deployment_table)
{
	fx_choice c[8];
	ck_assert_uint_eq(fx_model_choices(&qwen32, &h100, &four, 8, ring_ar, NULL, c, 8), 4);

	ck_assert_int_eq(c[0].capacity, 0);
	ck_assert_int_eq(c[0].fits, 0);
	ck_assert_int_eq(c[0].meets, 0);

	static const struct {
		int64_t capacity;
		double session, finish[4], cost, per;
		int64_t on_time;
	} want[] = {
		{2, 119.1, {119.1, 119.1, 119.1, 119.1}, 0.953, 0.238, 4},
		{7, 63.8, {63.8, 63.8, 127.6, 127.6}, 1.021, 0.255, 4},
		{16, 41.2, {41.2, 82.4, 123.5, 164.7}, 1.318, 0.439, 3},
	};
	for (int i = 0; i < 3; i++) {
		const fx_choice *r = &c[i + 1];
		ck_assert_int_eq(r->capacity, want[i].capacity);
		ck_assert_int_eq(r->fits, 1);
		PRINTED(r->session_time * 1e3, want[i].session, 0.1);
		for (int k = 0; k < 4; k++)
			PRINTED(fx_model_session_finish(r, k) * 1e3, want[i].finish[k], 0.1);
		PRINTED(r->finish * 1e3, want[i].finish[3], 0.1);
		ck_assert_int_eq(r->on_time, want[i].on_time);
		ck_assert_int_eq(r->meets, 1);
		PRINTED(r->cost, want[i].cost, 0.001);
		PRINTED(r->cost_per_on_time, want[i].per, 0.001);
	}
	/* "8 x 0.1191 = 0.953" */
	PRINTED(c[1].finish, 0.1191, 0.0001);

	/* the context grows: each step reads more KV than the last */
	double first = c[1].step_time, t = 0;
	for (int64_t k = 0; k < 8; k++)
		t += fx_model_local_time(&qwen32, &h100, 2, 131064 + k) + 128 * c[1].allreduce_time;
	ck_assert_double_eq_tol(c[1].session_time, t, 1e-15);
	ck_assert(c[1].session_time > 8 * first);

	/* §6.7.1: "With only one session and a 50 ms deadline, the eight-card
	 * instance meets the target" - and no smaller one does */
	fx_sessions one = {1, 131064, 8, 0.050, 1};
	ck_assert_uint_eq(fx_model_choices(&qwen32, &h100, &one, 8, ring_ar, NULL, c, 8), 4);
	ck_assert_int_eq(c[0].meets + c[1].meets + c[2].meets, 0);
	ck_assert_int_eq(c[3].meets, 1);
}
END_TEST

/* §6.7.2: card 0 fails at 20 ms, its instance stalls 40 ms and redoes its
 * session.  Four TP2 instances: 119 / 119 / 119 / 179.1 ms, 75 % on time,
 * 8 x 0.1791 = 1.433 GPU-s, 1.433 / 3 = 0.478 per on-time session, 2.0x
 * the fault-free 0.238.  Two TP4: 64 / 124 / 128 / 188 ms, 0.500 per
 * on-time session.  One TP8: 101 / 142 / 184 / 225 ms, one on time.
 * Energy at 10.2 kW per DGX H100 (§6.5.2) without a fault: TP2 runs
 * 119.1 ms = 1.21 kJ, TP4 127.6 ms = 1.30 kJ. */
START_TEST(q32_fault_timeline)
{
	fx_choice c[8], f;
	ck_assert_uint_eq(fx_model_choices(&qwen32, &h100, &four, 8, ring_ar, NULL, c, 8), 4);
	fx_fault fault = {0, 0.020, 0.040};
	double done[4];
	static const struct {
		double finish[4];  /* by session, ms */
		int64_t on_time;
		double per;
	} want[] = {
		{{179.1, 119.1, 119.1, 119.1}, 3, 0.478},
		{{123.8, 63.8, 187.6, 127.6}, 3, 0.500},
		{{101.2, 142.4, 183.5, 224.7}, 1, 1.798},
	};
	for (int i = 0; i < 3; i++) {
		fx_model_choice_fault(&c[i + 1], &four, 8, &fault, &f, done);
		for (int k = 0; k < 4; k++)
			PRINTED(done[k] * 1e3, want[i].finish[k], 0.1);
		ck_assert_int_eq(f.on_time, want[i].on_time);
		PRINTED(f.cost_per_on_time, want[i].per, 0.001);
	}
	fx_model_choice_fault(&c[1], &four, 8, &fault, &f, NULL);
	PRINTED(f.cost, 1.433, 0.001);
	PRINTED(f.cost_per_on_time / c[1].cost_per_on_time, 2.0, 0.05);
	ck_assert_int_eq(f.meets, 1);
	/* a fault after the instance's work is done costs nothing */
	fx_fault late = {0, 0.200, 0.040};
	fx_model_choice_fault(&c[1], &four, 8, &late, &f, NULL);
	ck_assert_double_eq(f.finish, c[1].finish);
	/* a card of another instance: instance 3 (cards 6-7) under TP2 */
	fx_fault other = {7, 0.020, 0.040};
	fx_model_choice_fault(&c[1], &four, 8, &other, &f, done);
	PRINTED(done[3] * 1e3, 179.1, 0.1);
	PRINTED(done[0] * 1e3, 119.1, 0.1);
	/* energy: node power x occupied time */
	PRINTED(10.2e3 * c[1].finish / 1e3, 1.21, 0.01);
	PRINTED(10.2e3 * c[2].finish / 1e3, 1.30, 0.01);
}
END_TEST

/* ---- parsing ---- */

typedef struct parsed {
	fx_diag d;
	fx_spec s;
	FILE *err;
	int rc;
	char msg[4096];
} parsed;

static void parse(parsed *p, const char *yaml, fx_model *m)
{
	memset(p, 0, sizeof *p);
	fx_diag_init(&p->d);
	p->err = tmpfile();
	p->d.out = p->err;
	p->rc = fx_spec_load_text(&p->s, "m.yaml", yaml, &p->d);
	ck_assert_int_eq(p->rc, 0);
	const fx_snode *map;
	p->rc = fx_spec_map(&p->d, p->s.root, "model", 1, &map);
	if (p->rc == 0)
		p->rc = fx_model_parse(&p->d, map, m);
	fflush(p->err);
	rewind(p->err);
	size_t n = fread(p->msg, 1, sizeof p->msg - 1, p->err);
	p->msg[n] = '\0';
}

static void parsed_release(parsed *p)
{
	fx_spec_release(&p->s);
	fx_diag_release(&p->d);
	fclose(p->err);
}

static void same_model(const fx_model *a, const fx_model *b)
{
	ck_assert_int_eq(a->layers, b->layers);
	ck_assert_int_eq(a->hidden, b->hidden);
	ck_assert_int_eq(a->heads, b->heads);
	ck_assert_int_eq(a->kv_heads, b->kv_heads);
	ck_assert_int_eq(a->head_dim, b->head_dim);
	ck_assert_int_eq(a->dense_ffn, b->dense_ffn);
	ck_assert_int_eq(a->experts, b->experts);
	ck_assert_int_eq(a->top_k, b->top_k);
	ck_assert_int_eq(a->expert_ffn, b->expert_ffn);
	ck_assert_int_eq(a->vocab, b->vocab);
	ck_assert_int_eq(a->tied_embeddings, b->tied_embeddings);
	ck_assert_double_eq(a->dtype_bytes, b->dtype_bytes);
	ck_assert_double_eq(a->reduce_bytes, b->reduce_bytes);
}

#define HAS(p, s) ck_assert_msg(strstr((p)->msg, s) != NULL, "expected '%s' in:\n%s", s, (p)->msg)

/* The chapter's two running models as specs parse to the shapes above. */
START_TEST(parse_book_models)
{
	parsed p;
	fx_model m;
	parse(&p,
	      "model:\n  layers: 94\n  hidden: 4096\n  heads: 64\n  kv_heads: 4\n"
	      "  head_dim: 128\n  experts: 128\n  top_k: 8\n  expert_ffn: 1536\n"
	      "  vocab: 151936\n  tied_embeddings: false\n  dtype: bf16\n",
	      &m);
	ck_assert_msg(p.rc == 0, "%s", p.msg);
	same_model(&m, &qwen235);
	ck_assert_double_eq(fx_model_params(&m) * m.dtype_bytes, 470187269120.0);
	parsed_release(&p);

	parse(&p,
	      "model: {layers: 64, hidden: 5120, heads: 64, kv_heads: 8, dense_ffn: 25600,\n"
	      "        vocab: 151936, ffn: gated}\n",
	      &m);
	ck_assert_msg(p.rc == 0, "%s", p.msg);
	ck_assert_int_eq(m.head_dim, 80);  /* hidden / heads by default */
	m.head_dim = 128;
	same_model(&m, &qwen32);
	parsed_release(&p);

	/* defaults: kv_heads = heads, bf16, fp32 reductions; fp8 weights */
	parse(&p, "model: {layers: 2, hidden: 64, heads: 4, vocab: 100, dense_ffn: 128,\n"
		  "        dtype: fp8, reduce_dtype: bf16, tied_embeddings: true, ffn: gated}\n", &m);
	ck_assert_msg(p.rc == 0, "%s", p.msg);
	ck_assert_int_eq(m.kv_heads, 4);
	ck_assert_int_eq(m.head_dim, 16);
	ck_assert_double_eq(m.dtype_bytes, 1);
	ck_assert_double_eq(m.reduce_bytes, 2);
	ck_assert_int_eq(m.tied_embeddings, 1);
	/* one vocab matrix when tied */
	ck_assert_double_eq(fx_model_params(&m),
			    2 * (2 * 64 * 64 + 2 * 64 * 64 + 3 * 64 * 128 + 2 * 64 + 2 * 16) +
				    100 * 64 + 64);
	parsed_release(&p);
}
END_TEST

START_TEST(parse_errors)
{
	parsed p;
	fx_model m;
	parse(&p, "model:\n  layers: 4\n  hidden: 64\n  heads: 4\n  vocab: 10\n  dense_ffn: 8\n"
		  "  dtype: int4\n  kv_head: 2\n  ffn: gated\n", &m);
	ck_assert_int_eq(p.rc, -1);
	HAS(&p, "m.yaml:7:10: error: 'model.dtype' must be bf16, fp16, fp8 or fp32, got 'int4'");
	HAS(&p, "m.yaml:8:3: error: unknown key 'kv_head' in 'model'");
	parsed_release(&p);

	parse(&p, "model:\n  hidden: 64\n  heads: 4\n  vocab: 10\n  dense_ffn: 8\n", &m);
	ck_assert_int_eq(p.rc, -1);
	HAS(&p, "missing key 'model.layers'");
	parsed_release(&p);

	/* partial MoE */
	parse(&p, "model:\n  layers: 4\n  hidden: 64\n  heads: 4\n  vocab: 10\n  experts: 8\n", &m);
	ck_assert_int_eq(p.rc, -1);
	HAS(&p, "m.yaml:2:3: error: missing key 'model.top_k' (an MoE model needs experts, top_k "
		"and expert_ffn)");
	HAS(&p, "missing key 'model.expert_ffn'");
	parsed_release(&p);

	/* no FFN at all */
	parse(&p, "model:\n  layers: 4\n  hidden: 64\n  heads: 4\n  vocab: 10\n", &m);
	ck_assert_int_eq(p.rc, -1);
	HAS(&p, "'model' has no FFN: give dense_ffn, or experts, top_k and expert_ffn");
	parsed_release(&p);

	/* shapes that cannot be */
	parse(&p, "model:\n  layers: 4\n  hidden: 60\n  heads: 8\n  kv_heads: 3\n  vocab: 10\n"
		  "  experts: 4\n  top_k: 5\n  expert_ffn: 8\n  reduce_dtype: \"fp64\"\n", &m);
	ck_assert_int_eq(p.rc, -1);
	HAS(&p, "m.yaml:5:13: error: 'model.kv_heads' must divide heads (8), got 3");
	HAS(&p, "missing key 'model.head_dim' (hidden 60 is not a multiple of heads 8)");
	HAS(&p, "m.yaml:8:10: error: 'model.top_k' must be at most experts (4), got 5");
	HAS(&p, "'model.reduce_dtype' must be bf16, fp16, fp8 or fp32, got 'fp64'");
	parsed_release(&p);

	parse(&p, "model:\n  layers: 0\n  hidden: 64\n  heads: 4\n  vocab: 10\n  dense_ffn: 8\n"
		  "  tied_embeddings: yes\n  ffn: gated\n", &m);
	ck_assert_int_eq(p.rc, -1);
	HAS(&p, "m.yaml:2:11: error: 'model.layers' must be between 1 and");
	HAS(&p, "'model.tied_embeddings' must be true or false, got 'yes'");
	parsed_release(&p);

	parse(&p, "model: [1, 2]\n", &m);
	ck_assert_int_eq(p.rc, -1);
	HAS(&p, "'model' must be a map, got a list");
	parsed_release(&p);

	/* a dense FFN says its kind: no silent gating */
	parse(&p, "model:\n  layers: 4\n  hidden: 64\n  heads: 4\n  vocab: 10\n  dense_ffn: 8\n", &m);
	ck_assert_int_eq(p.rc, -1);
	HAS(&p, "m.yaml:2:3: error: missing key 'model.ffn' (a dense FFN is gated, as SwiGLU, or "
		"plain, as GPT-3: say which)");
	parsed_release(&p);
	parse(&p, "model:\n  layers: 4\n  hidden: 64\n  heads: 4\n  vocab: 10\n  dense_ffn: 8\n"
		  "  ffn: swiglu\n", &m);
	ck_assert_int_eq(p.rc, -1);
	HAS(&p, "m.yaml:7:8: error: 'model.ffn' must be gated (SwiGLU: gate, up, down) or plain "
		"(up, down), got 'swiglu'");
	parsed_release(&p);
}
END_TEST

/* GPT-3 (Brown et al. 2020, Table 2.1: 96 layers, d_model 12288, 96
 * heads, d_ff = 4 d_model, 50257-token vocabulary, tied embeddings) is
 * 175 B parameters with its plain FFN: per layer 4 d^2 attention + 8 d^2
 * FFN = 12 d^2 = 1,811,939,328, x 96 = 173.95 B, + 0.62 B embedding.
 * Gated it would be 16 d^2 per layer, 232.5 B: the figure a dense model
 * silently taken as gated used to give. */
START_TEST(gpt3_plain_ffn)
{
	parsed p;
	fx_model m;
	parse(&p, "model: {layers: 96, hidden: 12288, heads: 96, dense_ffn: 49152, vocab: 50257,\n"
		  "        tied_embeddings: true, ffn: plain}\n", &m);
	ck_assert_msg(p.rc == 0, "%s", p.msg);
	double d = 12288, layer = 12 * d * d + 2 * d + 2 * 128;  /* + norms, q/k norms */
	ck_assert_double_eq_tol(fx_model_params(&m), 96 * layer + 50257 * d + d, 1);
	ck_assert(fx_model_params(&m) > 174.5e9 && fx_model_params(&m) < 174.7e9);
	m.ffn_plain = 0;
	ck_assert(fx_model_params(&m) > 232.3e9 && fx_model_params(&m) < 232.6e9);
	parsed_release(&p);
}
END_TEST

/* Pipeline stages split the layers: Qwen3-32B under TP2 holds 30.51 GiB
 * per device (64 layers); under TP2 x PP2 the busiest stage holds 32
 * layers and one vocabulary matrix.  By hand: per layer, TP2 attention
 * (Q,O: 2 x 5120 x 64 x 128 / 2 = 41,943,040; K,V: 2 x 5120 x 8 x 128 / 2
 * = 5,242,880), FFN 3 x 5120 x 25600 / 2 = 196,608,000, norms 2 x 5120 +
 * 2 x 128 = 10,496: 243,804,416; x 32 = 7,801,741,312; vocab 151,936 x
 * 5120 / 2 = 388,956,160; final norm 5,120: 8,190,702,592 parameters =
 * 16,381,405,184 bytes in BF16. */
START_TEST(pipeline_stage_weights)
{
	double tp2 = fx_model_weights_per_device(&qwen32, 2, 1);
	ck_assert_double_eq_tol(tp2 / (1 << 30), 30.51, 0.005);
	ck_assert_double_eq(fx_model_weights_per_stage(&qwen32, 2, 1, 1), tp2);
	ck_assert_double_eq(fx_model_weights_per_stage(&qwen32, 2, 1, 2), 16381405184.0);
	/* 3 stages of 64 layers: the busiest holds 22 */
	ck_assert(fx_model_weights_per_stage(&qwen32, 2, 1, 3) <
		  fx_model_weights_per_stage(&qwen32, 2, 1, 2));
}
END_TEST

/* Memory per device: Qwen3-235B-A22B (470.2 GB, the chapter, §6.1.2) under TP2
 * holds 235.14 GB of weights per device (half, plus the norms and routers
 * every device keeps), 219 GiB, over an H100's 80 GB before any
 * KV; under TP8 x EP1 it holds 58.96 GB (footnote 1) and one session of
 * 8192 tokens adds 8192 x 188 KiB / min(8, 4) = 376 MiB per device. */
START_TEST(memory_per_device)
{
	fx_accel a = {80e9, 3.35e12, 989.4e12, 2.0 * (1 << 30)};
	fx_sessions s = {4, 8184, 8, 0.13, 0.75};
	fx_model_memory mm;
	fx_model_memory_per_device(&qwen235, 2, 1, 1, 1, 1, &a, NULL, &mm);
	ck_assert(mm.weights > 235.1e9 && mm.weights < 235.2e9);
	ck_assert_double_eq_tol(mm.weights / (1 << 30), 219.0, 0.05);
	ck_assert(mm.total > a.hbm);
	fx_model_memory_per_device(&qwen235, 8, 1, 1, 1, 1, &a, &s, &mm);
	ck_assert_double_eq(mm.weights, 58959617024.0);
	ck_assert_int_eq(mm.sessions, 4);
	ck_assert_int_eq(mm.tokens, 8192);
	/* 4 sessions x 8192 tokens x 188 KiB / 4 KV-head ways */
	ck_assert_double_eq(mm.kv, 4.0 * 8192 * 188 * 1024 / 4);
	ck_assert_double_eq(mm.total, mm.weights + mm.kv + a.reserve);
	/* two instances split the sessions; EP2 splits each instance's again */
	fx_model_memory_per_device(&qwen235, 8, 2, 1, 1, 2, &a, &s, &mm);
	ck_assert_int_eq(mm.sessions, 1);
}
END_TEST

/* workload.accelerator.flops and workload.sessions.min_on_time through
 * fx_accel_sessions_parse: the unit scales the number (SI steps of 1e3),
 * anything but a positive number and a FLOP/s unit is refused at the key. */
static void parse_accel(parsed *p, const char *accel, const char *sessions, fx_accel *a,
			fx_sessions *ss)
{
	char yaml[512];
	snprintf(yaml, sizeof yaml, "workload:\n  accelerator: {hbm: 80 GB, hbm_bandwidth: 3 TB/s, "
		 "%s}\n  sessions: {count: 1, context: 8%s%s}\n", accel, sessions ? ", " : "",
		 sessions ? sessions : "");
	memset(p, 0, sizeof *p);
	fx_diag_init(&p->d);
	p->err = tmpfile();
	p->d.out = p->err;
	p->rc = fx_spec_load_text(&p->s, "a.yaml", yaml, &p->d);
	ck_assert_int_eq(p->rc, 0);
	p->rc = fx_accel_sessions_parse(&p->d, &p->s, a, ss);
	fflush(p->err);
	rewind(p->err);
	size_t n = fread(p->msg, 1, sizeof p->msg - 1, p->err);
	p->msg[n] = '\0';
}

START_TEST(parse_flops)
{
	static const struct { const char *text; double flops; } ok[] = {
		{"flops: 989.4 TFLOP/s", 989.4e12}, {"flops: 2 PFLOP/s", 2e15},
		{"flops: 1.5 GFLOP/s", 1.5e9}, {"flops: 7e9 FLOP/s", 7e9},
		{"flops: 989.4TFLOP/s", 989.4e12}, {"flops: '0.5 PFLOP/s'", 0.5e15},
	};
	parsed p;
	fx_accel a;
	fx_sessions ss;
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		parse_accel(&p, ok[i].text, NULL, &a, &ss);
		ck_assert_msg(p.rc == 0, "%s: %s", ok[i].text, p.msg);
		ck_assert_msg(fabs(a.flops - ok[i].flops) <= 1e-12 * ok[i].flops, "%s read as %g",
			      ok[i].text, a.flops);
		parsed_release(&p);
	}
	/* the same figure in every unit */
	parse_accel(&p, "flops: 0.9894 PFLOP/s", NULL, &a, &ss);
	double pf = a.flops;
	parsed_release(&p);
	parse_accel(&p, "flops: 989400 GFLOP/s", NULL, &a, &ss);
	ck_assert_double_eq_tol(a.flops, pf, 1e-3);
	parsed_release(&p);

	static const struct { const char *text, *msg; } bad[] = {
		{"flops: 5 W", "'workload.accelerator.flops' must be a compute rate, but '5 W' is a power"},
		{"flops: nan", "'workload.accelerator.flops' must be a compute rate such as '989.4 TFLOP/s', got 'nan'"},
		{"flops: inf TFLOP/s", "got 'inf TFLOP/s'"},
		{"flops: -3 TFLOP/s", "'workload.accelerator.flops' must be greater than 0, got '-3 TFLOP/s'"},
		{"flops: 0 PFLOP/s", "must be greater than 0, got '0 PFLOP/s'"},
		{"flops: 1000", "'workload.accelerator.flops' needs a unit: '1000' (expected FLOP/s, "
				"GFLOP/s, TFLOP/s or PFLOP/s, e.g. '989.4 TFLOP/s')"},
		{"flops: 2 PFLOPS", "has an unknown unit in '2 PFLOPS'"},
		{"flops: 2 tflop/s", "has an unknown unit in '2 tflop/s'"},
		{"flops: many", "a.yaml:2:59: error: 'workload.accelerator.flops' must be a compute rate"},
		{"flops: [1]", "must be a compute rate such as '989.4 TFLOP/s', got a list"},
		{"flops: 1e400 TFLOP/s", "'workload.accelerator.flops' is out of range"},
		{"flops: 1e7 PFLOP/s", "'workload.accelerator.flops' is out of range"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		parse_accel(&p, bad[i].text, NULL, &a, &ss);
		ck_assert_msg(p.rc == -1, "%s accepted", bad[i].text);
		HAS(&p, bad[i].msg);
		parsed_release(&p);
	}

	/* min_on_time: NaN and infinities fail, not pass, the range test */
	parse_accel(&p, "flops: 1 PFLOP/s", "min_on_time: 0.75", &a, &ss);
	ck_assert_msg(p.rc == 0, "%s", p.msg);
	ck_assert_double_eq(ss.min_on_time, 0.75);
	parsed_release(&p);
	static const char *const frac[] = {"min_on_time: nan", "min_on_time: .nan",
					   "min_on_time: inf", "min_on_time: .inf",
					   "min_on_time: 1.5", "min_on_time: -0.1",
					   "min_on_time: 0x1"};
	for (size_t i = 0; i < sizeof frac / sizeof frac[0]; i++) {
		parse_accel(&p, "flops: 1 PFLOP/s", frac[i], &a, &ss);
		ck_assert_msg(p.rc == -1, "%s accepted", frac[i]);
		HAS(&p, "'workload.sessions.min_on_time' must be a fraction from 0 to 1");
		parsed_release(&p);
	}
}
END_TEST

Suite *suite_model(void)
{
	Suite *s = suite_create("model");
	TCase *tc = tcase_create("book");
	tcase_add_test(tc, q235_weights);
	tcase_add_test(tc, q235_kv);
	tcase_add_test(tc, q235_tp8);
	tcase_add_test(tc, q235_step);
	tcase_add_test(tc, q235_tp2_ep4);
	tcase_add_test(tc, q235_send);
	tcase_add_test(tc, q32_sizes);
	tcase_add_test(tc, q32_eq_6_4);
	tcase_add_test(tc, q32_capacity);
	tcase_add_test(tc, q30_table);
	tcase_add_test(tc, q32_eq_6_5);
	tcase_add_test(tc, q32_tp16);
	tcase_add_test(tc, q32_deployment_table);
	tcase_add_test(tc, q32_fault_timeline);
	suite_add_tcase(s, tc);
	tc = tcase_create("parse");
	tcase_add_test(tc, parse_book_models);
	tcase_add_test(tc, parse_errors);
	tcase_add_test(tc, gpt3_plain_ffn);
	tcase_add_test(tc, pipeline_stage_weights);
	tcase_add_test(tc, memory_per_device);
	tcase_add_test(tc, parse_flops);
	suite_add_tcase(s, tc);
	return s;
}
