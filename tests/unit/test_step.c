/* The step model (step/step.h) against the chapter "Supernodes": §6.1.2-6.1.3
 * (the FFN roofline, prefill), §6.2.2-6.2.6 (TP, the batch-64 table,
 * 2-D TP, SP, CP, PP, EP), §6.3.1-6.3.2 (Eq. 6-8, the busiest group) and
 * §6.7.4 (V4.1 Flash on supernodes of 8 to 256 cards).  Each test names
 * its section and the figure the chapter prints; a value fitted to a
 * published figure is checked against a different one. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../placement/model.h"
#include "../../step/step.h"
#include "helpers.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * 1024.0 * 1024.0)
#define GB 1e9
#define MS 1e-3
#define US 1e-6

/* x rounds to the figure the chapter prints to `step`. */
#define PRINTED(x, printed, step)                                                       \
	ck_assert_msg(fabs((x) - (printed)) <= (double)(step) / 2 * (1 + 1e-9),               \
		      "%s = %.6f, the book prints %s", #x, (double)(x), #printed)
/* x within frac of the printed figure (step times and throughputs: 3 %). */
#define WITHIN(x, printed, frac)                                                       \
	ck_assert_msg(fabs((x) / (printed) - 1) <= (frac),                              \
		      "%s = %.6g, the book prints %s (off %.2f %%)", #x, (double)(x),      \
		      #printed, 100 * ((x) / (printed) - 1))

/* H100 SXM (§6.1.2): 80 GB, 3350 GB/s, 989.4 TFLOP/s; 2 GiB reserve. */
static fx_step_hw h100(void)
{
	fx_step_hw h;
	memset(&h, 0, sizeof h);
	h.a = (fx_accel){80e9, 3350e9, 989.4e12, 2 * GIB};
	return h;
}

static fx_step_load decode(int64_t context, int64_t batch)
{
	fx_step_load l;
	memset(&l, 0, sizeof l);
	l.context = context;
	l.batch = batch;
	return l;
}

static fx_step_layout layout(int64_t tp, int64_t ep)
{
	fx_step_layout l;
	fx_step_layout_init(&l);
	l.tp = tp;
	l.ep = ep;
	return l;
}

/* NVLink in one HGX H100 (§6.4.2, footnote 9): alpha 0.822 us, 450 GB/s. */
static fx_step_closed nvlink = {0, 0.822e-6, 450e9, 0.822e-6, 450e9};

/* The calls a step asks for, for tests that check bytes. */
typedef struct rec {
	fx_step_call c[32];
	int n;
} rec;

static double record(void *ctx, const fx_step_call *c, int *measured)
{
	rec *r = ctx;
	if (r->n < 32)
		r->c[r->n++] = *c;
	return fx_step_comm_closed(&nvlink, c, measured);
}

static const fx_step_call *find_call(const rec *r, const char *pattern)
{
	for (int i = 0; i < r->n; i++)
		if (strcmp(r->c[i].pattern, pattern) == 0)
			return &r->c[i];
	return NULL;
}

/* One MoE layer of Qwen3-235B-A22B (§6.1.2): 128 experts of 3 x 4096 x
 * 1536 BF16 (36 MiB each), 8 per token; nothing else. */
static fx_step_model q235_moe_layer(void)
{
	fx_step_model m;
	memset(&m, 0, sizeof m);
	fx_step_part *p = &m.part[m.nparts++];
	snprintf(p->name, sizeof p->name, "experts");
	p->split = FX_SPLIT_EP;
	double e = 3.0 * 4096 * 1536;
	p->bytes = 128 * e * 2;
	p->experts = 128;
	p->top_k = 8;
	p->layers = 1;
	p->flops_per_token = 2 * 8 * e;
	p->token_bytes = 4096 * 2;
	m.layers = m.moe_layers = 1;
	m.kv.read_per_step = -1;
	return m;
}

/* ---- §6.1.2-6.1.3: one layer's experts, one token and 8192 ---- */

/* §6.1.2: 8 x 3 x 4096 x 1536 x 2 = 288 MiB read, about 90.1 us at 3350
 * GB/s; about 302 million FLOPs, about 0.31 us at 989.4 TFLOP/s; the MFU
 * of the call cannot exceed 0.31 / 90.1, about 0.3 %. */
START_TEST(ffn_roofline_batch1)
{
	fx_step_model m = q235_moe_layer();
	fx_step_hw h = h100();
	fx_step_layout l = layout(1, 1);
	fx_step_load d = decode(0, 1);
	fx_step_result r;
	ck_assert_int_eq(fx_step_eval(&m, &h, &l, &d, NULL, NULL, &r), 0);
	ck_assert(r.ok);
	ck_assert_double_eq_tol(r.read_weights, 288 * MIB, 1);
	PRINTED(r.t_weights / US, 90.1, 0.1);
	PRINTED(r.flops / 1e6, 302, 1);
	PRINTED(r.t_compute / US, 0.31, 0.01);
	PRINTED(100 * r.t_compute / r.t_local, 0.3, 0.1);
	ck_assert_str_eq(r.binds, "weights");
	ck_assert_double_eq_tol(r.t_local, fx_step_roofline(r.flops, r.read_weights, 989.4e12, 3350e9), 1e-15);
}
END_TEST

/* §6.1.3: a prefill of 8192 tokens selects all 128 experts: 4.5 GiB read,
 * about 1.44 ms; about 2.47 TFLOPs, about 2.50 ms, exceeding the read. */
START_TEST(ffn_prefill)
{
	fx_step_model m = q235_moe_layer();
	fx_step_hw h = h100();
	fx_step_layout l = layout(1, 1);
	fx_step_load d = decode(0, 1);
	d.phase = FX_PHASE_PREFILL;
	d.prompt = 8192;
	fx_step_result r;
	ck_assert_int_eq(fx_step_eval(&m, &h, &l, &d, NULL, NULL, &r), 0);
	PRINTED(r.active_experts, 128, 0.01);
	ck_assert_double_eq_tol(r.read_weights, 4.5 * GIB, 1);
	PRINTED(r.t_weights / MS, 1.44, 0.01);
	PRINTED(r.flops / 1e12, 2.47, 0.01);
	PRINTED(r.t_compute / MS, 2.50, 0.01);
	ck_assert_str_eq(r.binds, "compute");
	/* §6.1.3: the hidden tensor of 8192 tokens is 64 MiB */
	ck_assert_double_eq(8192 * 4096 * 2.0, 64 * MIB);
}
END_TEST

/* ---- §6.3.2: Eq. 6-8 and the busiest expert group ---- */

/* Eq. 6-8: E = 128, k = 8, m = 8 gives about 52 active experts, an ideal
 * read of about 1.8 GiB; if all eight tokens choose the same eight
 * experts, just 288 MiB. */
START_TEST(eq68_active)
{
	PRINTED(fx_step_active_experts(128, 8, 8), 52, 1);
	PRINTED(fx_step_active_experts(128, 8, 8) * 36 * MIB / GIB, 1.8, 0.1);
	/* every expert once k = E; none without tokens */
	ck_assert_double_eq(fx_step_active_experts(8, 8, 1), 8);
	ck_assert_double_eq(fx_step_active_experts(128, 8, 0), 0);
	/* the step model reads what Eq. 6-8 says, and concentrated 288 MiB */
	fx_step_model m = q235_moe_layer();
	fx_step_hw h = h100();
	fx_step_layout l = layout(1, 1);
	fx_step_load d = decode(0, 8);
	fx_step_result r;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &r);
	PRINTED(r.weight_read_total / GIB, 1.8, 0.1);
	d.moe = FX_MOE_HOT;
	d.hot_share = 1;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &r);
	ck_assert_double_eq_tol(r.weight_read_total, 288 * MIB, 1);
}
END_TEST

/* §6.3.2: 64 tokens x 8 experts = 512 assignments on TP2 x EP4 (attention
 * replicated, §6.3.1).  Covering the 128 experts evenly: 4.5 GiB read,
 * each group 32 x 4 = 128 assignments; all eight in one group: 288 MiB,
 * that group all 512, four times the uniform case.  Exercise 6-3(c):
 * the eight hot experts spread over the four groups read the same 288
 * MiB with 128 assignments in the busiest. */
START_TEST(busiest_group)
{
	fx_step_model m = q235_moe_layer();
	fx_step_hw h = h100();
	fx_step_layout l = layout(2, 4);
	l.ep_allreduce = 1;
	fx_step_load d = decode(0, 64);
	d.moe = FX_MOE_BALANCED;
	fx_step_result r;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &r);
	ck_assert_double_eq(r.tokens, 64);
	ck_assert_double_eq(r.busiest_rows, 128);
	ck_assert_double_eq_tol(r.weight_read_total, 4.5 * GIB, 1);
	d.moe = FX_MOE_HOT;
	d.hot_share = 1;
	d.hot_experts = 8;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &r);
	ck_assert_double_eq(r.busiest_rows, 512);
	ck_assert_double_eq(r.busiest_rows / r.mean_rows, 4);
	ck_assert_double_eq_tol(r.weight_read_total, 288 * MIB, 1);
	ck_assert_double_eq(r.busiest_experts, 8);
	d.hot_groups = 4;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &r);
	ck_assert_double_eq(r.busiest_rows, 128);
	ck_assert_double_eq(r.busiest_experts, 2);
	ck_assert_double_eq_tol(r.weight_read_total, 288 * MIB, 1);
	/* the busiest group computes four times the uniform rows: its time goes up */
	d.hot_groups = 1;
	d.phase = FX_PHASE_PREFILL;
	d.prompt = 128;
	fx_step_result hot, even;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &hot);
	d.moe = FX_MOE_BALANCED;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &even);
	ck_assert_double_eq_tol(hot.flops / even.flops, 4, 1e-12);
}
END_TEST

/* §6.2.6: a token's eight experts two by two on four remote cards, an 8
 * KiB input: 64 KiB sent per expert, 32 KiB per destination card. */
START_TEST(dispatch_per_card)
{
	ck_assert_double_eq(fx_step_dispatch_bytes(8 * KIB, 8, 4, 0), 64 * KIB);
	ck_assert_double_eq(fx_step_dispatch_bytes(8 * KIB, 8, 4, 1), 32 * KIB);
	/* the step model's dispatch: one token on EP2, per expert the remote
	 * half of k copies, per card the expected remote groups (1 - 1/2^8) */
	fx_step_model m = q235_moe_layer();
	fx_step_hw h = h100();
	fx_step_layout l = layout(1, 2);
	fx_step_load d = decode(0, 1);
	rec rc = {.n = 0};
	fx_step_result r;
	fx_step_eval(&m, &h, &l, &d, record, &rc, &r);
	const fx_step_call *c = find_call(&rc, "all-to-all");
	ck_assert_ptr_nonnull(c);
	ck_assert_double_eq(c->bytes, 8 * 8 * KIB / 2);
	ck_assert_int_eq(c->n, 2);
	m.part[0].per_card = 1;
	rc.n = 0;
	fx_step_eval(&m, &h, &l, &d, record, &rc, &r);
	c = find_call(&rc, "all-to-all");
	ck_assert_double_eq_tol(c->bytes, 8 * KIB * (1 - pow(0.5, 8)), 1e-9);
	/* dispatch and combine each layer */
	ck_assert_double_eq_tol(r.t_comm[FX_STEP_EP], 2 * fx_step_comm_closed(&nvlink, c, NULL), 1e-18);
}
END_TEST

/* ---- §6.2.2: tensor parallelism ---- */

/* One FFN of Qwen3-32B, h = 5120, f = 25600 (750 MiB in BF16). */
static fx_step_model q32_ffn(void)
{
	fx_step_model m;
	memset(&m, 0, sizeof m);
	fx_step_part *p = &m.part[m.nparts++];
	snprintf(p->name, sizeof p->name, "ffn");
	p->split = FX_SPLIT_TP;
	p->bytes = 3.0 * 5120 * 25600 * 2;
	p->read = -1;
	p->flops_per_token = 2 * 3.0 * 5120 * 25600;
	p->layers = 1;
	m.layers = 1;
	m.kv.read_per_step = -1;
	m.reduce_bytes = 5120 * 2;
	m.tp_reductions = 1;
	return m;
}

/* §6.2.2 worked example: four-way, each card 187.5 MiB of the 750; the
 * single-token read drops from about 234.8 us to 58.7 us, saving about
 * 176.1 us by reading 562.5 MiB less; the partial sums to add are 10 KiB. */
START_TEST(tp4_ffn)
{
	fx_step_model m = q32_ffn();
	fx_step_hw h = h100();
	fx_step_load d = decode(0, 1);
	fx_step_layout l1 = layout(1, 1), l4 = layout(4, 1);
	fx_step_result r1, r4;
	rec rc = {.n = 0};
	fx_step_eval(&m, &h, &l1, &d, NULL, NULL, &r1);
	fx_step_eval(&m, &h, &l4, &d, record, &rc, &r4);
	ck_assert_double_eq(r1.read_weights, 750 * MIB);
	ck_assert_double_eq(r4.read_weights, 187.5 * MIB);
	ck_assert_double_eq(r4.weights, 187.5 * MIB);
	ck_assert_double_eq(r1.read_weights - r4.read_weights, 562.5 * MIB);
	PRINTED(r1.t_weights / US, 234.8, 0.1);
	PRINTED(r4.t_weights / US, 58.7, 0.1);
	PRINTED((r1.t_weights - r4.t_weights) / US, 176.1, 0.1);
	const fx_step_call *c = find_call(&rc, "allreduce");
	ck_assert_ptr_nonnull(c);
	ck_assert_double_eq(c->bytes, 10 * KIB);
	ck_assert_int_eq(c->n, 4);
}
END_TEST

/* Qwen3-32B (§6.2.2; Qwen3 technical report Table 1), BF16 reductions at
 * decode (§6.4.2: M = 10 KiB). */
static const fx_model qwen32 = {
	.layers = 64, .hidden = 5120, .heads = 64, .kv_heads = 8, .head_dim = 128,
	.dense_ffn = 25600, .vocab = 151936, .dtype_bytes = 2, .reduce_bytes = 2};

/* §6.4.2's table by Eq. 6-4, 6-5 and 6-9: a 128K session of Qwen3-32B,
 * TP1 29.35, TP2 14.89, TP4 7.97, TP8 5.15 ms per step (local 29.35 /
 * 14.68 / 7.34 / 3.67 ms; 128 reductions 0.21 / 0.64 / 1.48 ms); §6.5.1:
 * TP16 over two servers only gets to 2.48 ms locally, KV not splitting
 * past 8 heads, and with the measured 32.74 us per reduction takes about
 * 6.67 ms.  The step model on the shape agrees with model.c's up to TP8;
 * at TP16 it also reads the K/V projections of each KV head on both cards
 * that need it (as they hold them), 2.50 ms where the chapter halves all
 * weights (model.c's fx_model_local_time: 2.48). */
START_TEST(tp_table)
{
	fx_step_model m;
	fx_step_from_shape(&qwen32, &m);
	fx_step_hw h = h100();
	fx_step_load d = decode(131064, 1);
	static const double local[] = {29.35, 14.68, 7.34, 3.67}, step[] = {29.35, 14.89, 7.97, 5.15};
	static const double red[] = {0, 0.21, 0.64, 1.48};
	for (int i = 0; i < 4; i++) {
		int64_t p = (int64_t)1 << i;
		fx_step_layout l = layout(p, 1);
		fx_step_result r;
		ck_assert_int_eq(fx_step_eval(&m, &h, &l, &d, fx_step_comm_closed, &nvlink, &r), 0);
		PRINTED(r.t_local / MS, local[i], 0.01);
		PRINTED(r.t_comm[FX_STEP_TP] / MS, red[i], 0.01);
		PRINTED(r.step / MS, step[i], 0.01);
		ck_assert_double_eq_tol(r.t_local, fx_model_local_time(&qwen32, &h.a, p, 131064), 1e-12);
		ck_assert_str_eq(r.binds, "weights");
	}
	/* §6.5.1: two HGX H100 servers, the ring waiting on the NIC hop every
	 * round (InfiniBand 3.76 us, footnote 9): 30 rounds, about 113 us */
	fx_step_closed two = {8, 0.822e-6, 450e9, 3.76e-6, 48.94e9};
	fx_step_call c = {FX_STEP_TP, "allreduce", NULL, 16, 1, 10 * KIB};
	PRINTED(fx_step_comm_closed(&two, &c, NULL) / US, 113, 1);
	fx_step_layout l = layout(16, 1);
	fx_step_result r;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &r);
	PRINTED(fx_model_local_time(&qwen32, &h.a, 16, 131064) / MS, 2.48, 0.01);
	WITHIN(r.t_local / MS, 2.48, 0.01);
	double kvproj = 64 * 2.0 * 5120 * 1024 * 2;  /* read by 8, not 16, ways */
	ck_assert_double_eq_tol(r.t_local - fx_model_local_time(&qwen32, &h.a, 16, 131064),
				kvproj * (1.0 / 8 - 1.0 / 16) / 3350e9, 1e-12);
	WITHIN((r.t_local + 128 * 32.74e-6) / MS, 6.67, 0.03);
}
END_TEST

/* §6.2.2's table: batch 1 and 64 at a 32K context.  Weight read 63.97 /
 * 6.08 GB (batch 1), 63.97 / 60.44 GB (batch 64, balanced routing,
 * footnote 36); matrix work at batch 64 8.49 / 2.04 TFLOPs; state read
 * 549.8 / 206.2 GB, about 164 and 62 ms at 3350 GB/s, against 18-20 ms of
 * weights. */
static const fx_model qwen30 = {
	.layers = 48, .hidden = 2048, .heads = 32, .kv_heads = 4, .head_dim = 128,
	.experts = 128, .top_k = 8, .expert_ffn = 768, .vocab = 151936,
	.dtype_bytes = 2, .reduce_bytes = 4};

START_TEST(dense_moe_table)
{
	fx_step_hw h = h100();
	h.a.hbm = 1e15;  /* the table's reads, not its capacity */
	fx_step_layout l = layout(1, 1);
	fx_step_model m32, m30;
	fx_step_from_shape(&qwen32, &m32);
	fx_step_from_shape(&qwen30, &m30);
	fx_step_load d = decode(32768 - 1, 1);  /* a step reads 32K tokens of KV */
	d.moe = FX_MOE_BALANCED;
	fx_step_result r;
	fx_step_eval(&m32, &h, &l, &d, NULL, NULL, &r);
	PRINTED(r.read_weights / GB, 63.97, 0.01);
	fx_step_eval(&m30, &h, &l, &d, NULL, NULL, &r);
	PRINTED(r.read_weights / GB, 6.08, 0.01);
	d.batch = 64;
	fx_step_eval(&m32, &h, &l, &d, NULL, NULL, &r);
	PRINTED(r.read_weights / GB, 63.97, 0.01);
	PRINTED(r.flops / 1e12, 8.49, 0.01);
	PRINTED(r.read_state / GB, 549.8, 0.1);
	PRINTED(r.t_state / MS, 164, 1);
	ck_assert(r.t_weights >= 18 * MS && r.t_weights <= 20 * MS);
	ck_assert_str_eq(r.binds, "state");
	fx_step_eval(&m30, &h, &l, &d, NULL, NULL, &r);
	PRINTED(r.read_weights / GB, 60.44, 0.01);
	PRINTED(r.flops / 1e12, 2.04, 0.01);
	PRINTED(r.read_state / GB, 206.2, 0.1);
	PRINTED(r.t_state / MS, 62, 1);
	ck_assert(r.t_weights >= 18 * MS && r.t_weights <= 20 * MS);
}
END_TEST

/* Qwen3.6-35B-A3B (§6.2.2): of 40 layers 10 full attention with 2 KV heads
 * of 256, 20 KiB of KV per token; 30 linear, a fixed 62.9 MB recurrent
 * (FP32) + 2.0 MB convolution state per request; 69.32 GB resident BF16
 * weights (the chapter's figure, as one TP part). */
static fx_step_model q36_inventory(void)
{
	fx_model s = {.layers = 40, .hidden = 2048, .heads = 16, .kv_heads = 2, .head_dim = 256,
		      .experts = 256, .top_k = 8, .expert_ffn = 512, .vocab = 248320,
		      .dtype_bytes = 2, .reduce_bytes = 4, .linear_layers = 30,
		      .linear_state = 62.9e6 + 2.0e6};
	fx_step_model m;
	fx_step_from_shape(&s, &m);
	ck_assert_double_eq(m.kv.per_token, 20 * KIB);
	m.nparts = 1;
	memset(&m.part[0], 0, sizeof m.part[0]);
	snprintf(m.part[0].name, sizeof m.part[0].name, "weights");
	m.part[0].split = FX_SPLIT_TP;
	m.part[0].bytes = 69.32e9;
	m.part[0].read = -1;
	return m;
}

/* §6.2.2 table and footnote 36: requests one H100 holds at 128K / 32K, 0/1,
 * 1/5, 3/11; two H100s 2/10, 7/29, 31/117; state for one 128K request
 * 34.36 / 12.88 / 2.75 GB; Qwen3.6's at 262,144 tokens about 5.43 GB; its
 * state read at batch 64 and 32K 47.1 GB (about 14 ms).  Resident
 * weights 65.52 / 61.06 GB from the shapes. */
START_TEST(state_capacity)
{
	fx_step_model m[3];
	fx_step_from_shape(&qwen32, &m[0]);
	fx_step_from_shape(&qwen30, &m[1]);
	m[2] = q36_inventory();
	PRINTED(fx_step_model_bytes(&m[0]) / GB, 65.52, 0.01);
	PRINTED(fx_step_model_bytes(&m[1]) / GB, 61.06, 0.01);
	static const int64_t one[3][2] = {{0, 1}, {1, 5}, {3, 11}}, two[3][2] = {{2, 10}, {7, 29}, {31, 117}};
	static const double st128[3] = {34.36, 12.88, 2.75};
	fx_step_hw h = h100();
	for (int i = 0; i < 3; i++)
		for (int c = 0; c < 2; c++) {
			fx_step_load d = decode(c ? 32768 : 131072, 0);
			fx_step_result r;
			fx_step_layout l1 = layout(1, 1), l2 = layout(2, 1);
			fx_step_eval(&m[i], &h, &l1, &d, NULL, NULL, &r);
			ck_assert_msg(r.capacity == one[i][c], "model %d ctx %d: %lld on one H100", i, c,
				      (long long)r.capacity);
			if (!c)
				PRINTED(r.state_session / GB, st128[i], 0.01);
			fx_step_eval(&m[i], &h, &l2, &d, NULL, NULL, &r);
			ck_assert_msg(r.capacity == two[i][c], "model %d ctx %d: %lld on two", i, c,
				      (long long)r.capacity);
		}
	fx_step_load d = decode(262144, 1);
	fx_step_result r;
	fx_step_layout l1 = layout(1, 1);
	fx_step_eval(&m[2], &h, &l1, &d, NULL, NULL, &r);
	PRINTED(r.state_session / GB, 5.43, 0.01);
	h.a.hbm = 1e15;
	d = decode(32768 - 1, 64);
	fx_step_eval(&m[2], &h, &l1, &d, NULL, NULL, &r);
	PRINTED(r.read_state / GB, 47.1, 0.1);
	PRINTED(r.t_state / MS, 14, 1);
}
END_TEST

/* §6.2.2: [8192, 4096] x [4096, 12288] BF16 on 16 cards: 4 x 4 sends 12
 * MiB along rows and 18 MiB along columns, 2 x 8 28 and 6 MiB, 8 x 2 4 and
 * 42 MiB; the shards are 4 and 6 MiB. */
START_TEST(tp2d)
{
	static const int64_t g[3][2] = {{4, 4}, {2, 8}, {8, 2}};
	static const double rows[3] = {12, 28, 4}, cols[3] = {18, 6, 42};
	for (int i = 0; i < 3; i++) {
		double a, b;
		fx_step_tp2d_gather(8192, 4096, 12288, 2, g[i][0], g[i][1], &a, &b);
		ck_assert_double_eq(a, rows[i] * MIB);
		ck_assert_double_eq(b, cols[i] * MIB);
	}
	/* the step model's 2-D TP: weights split 16 ways, reduce-scatter over
	 * the row then all-gather over the column */
	fx_step_model m = q32_ffn();
	fx_step_hw h = h100();
	fx_step_layout l = layout(16, 1);
	l.tp_rows = 4;
	fx_step_load d = decode(0, 1);
	rec rc = {.n = 0};
	fx_step_result r;
	fx_step_eval(&m, &h, &l, &d, record, &rc, &r);
	ck_assert_double_eq(r.weights, 750 * MIB / 16);
	ck_assert_int_eq(find_call(&rc, "reduce-scatter")->n, 4);
	ck_assert_int_eq(find_call(&rc, "all-gather")->n, 4);
	ck_assert_int_eq(find_call(&rc, "all-gather")->stride, 4);
	ck_assert_ptr_null(find_call(&rc, "allreduce"));
}
END_TEST

/* §6.2.3: a [8192, 4096] BF16 activation is 64 MiB; four cards each
 * keeping a [2048, 4096] shard hold 16 MiB each, 64 MiB in all, against
 * 256 MiB if all four stored it whole.  SP swaps the allreduce for a
 * reduce-scatter and an all-gather. */
START_TEST(sp_activations)
{
	fx_step_model m = q32_ffn();
	m.act_bytes = 4096 * 2;
	fx_step_hw h = h100();
	fx_step_load d = decode(0, 1);
	d.phase = FX_PHASE_PREFILL;
	d.prompt = 8192;
	fx_step_layout l = layout(4, 1);
	fx_step_result r;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &r);
	ck_assert_double_eq(r.activations, 64 * MIB);
	ck_assert_double_eq(4 * r.activations, 256 * MIB);
	l.sp = 1;
	rec rc = {.n = 0};
	fx_step_eval(&m, &h, &l, &d, record, &rc, &r);
	ck_assert_double_eq(r.activations, 16 * MIB);
	ck_assert_ptr_nonnull(find_call(&rc, "reduce-scatter"));
	ck_assert_ptr_null(find_call(&rc, "allreduce"));
}
END_TEST

/* §6.2.4: causal attention over eight positions has 36 query-key pairs;
 * split in half contiguously the two cards get 10 and 26 (a factor of
 * 2.6); pairing early with late positions gives 18 each.  In the step
 * model CP's busiest card computes the larger share. */
START_TEST(cp_causal)
{
	ck_assert_double_eq(fx_step_causal_pairs(0, 8), 36);
	ck_assert_double_eq(fx_step_causal_pairs(0, 4), 10);
	ck_assert_double_eq(fx_step_causal_pairs(4, 8), 26);
	PRINTED(fx_step_causal_pairs(4, 8) / fx_step_causal_pairs(0, 4), 2.6, 0.1);
	ck_assert_double_eq(fx_step_cp_busiest(8, 2, 0), 26);
	ck_assert_double_eq(fx_step_cp_busiest(8, 2, 1), 18);
	ck_assert_double_eq(fx_step_cp_busiest(8, 1, 0), 36);
	fx_step_model m;
	memset(&m, 0, sizeof m);
	m.layers = 1;
	m.kv = (fx_step_state){.per_token = 1024, .read_per_step = -1, .units = 1, .layers = 1,
			       .attn_flops = 1e6, .q_heads = 8, .head_dim = 128};
	fx_step_hw h = h100();
	fx_step_load d = decode(0, 1);
	d.phase = FX_PHASE_PREFILL;
	d.prompt = 8;
	fx_step_layout l = layout(1, 1);
	l.cp = 2;
	rec rc = {.n = 0};
	fx_step_result a, b;
	fx_step_eval(&m, &h, &l, &d, record, &rc, &a);
	l.cp_zigzag = 1;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &b);
	ck_assert_double_eq(a.flops, 26e6);
	ck_assert_double_eq(b.flops, 18e6);
	/* prefill gathers the K/V of all eight positions */
	const fx_step_call *c = find_call(&rc, "all-gather");
	ck_assert_ptr_nonnull(c);
	ck_assert_double_eq(c->bytes, 8 * 1024);
	/* decode reduces each query head's (m, l, u): (128 + 2) x 4 bytes */
	d = decode(1000, 1);
	rc.n = 0;
	l.cp_zigzag = 0;
	fx_step_eval(&m, &h, &l, &d, record, &rc, &a);
	c = find_call(&rc, "allreduce");
	ck_assert_ptr_nonnull(c);
	ck_assert_double_eq(c->bytes, 8 * 130 * 4);
	ck_assert_double_eq(a.state_session, 1000 * 1024 / 2.0);
}
END_TEST

/* §6.2.5, Eq. 6-7: four stages of 1 ms, four micro-batches: utilisation
 * 4/7 (about 57 %); sixteen: 16/19 (about 84 %); micro-batch 0 finishes at
 * 4 ms, each later one 1 ms after.  Stages of 1, 1, 2, 1 ms: the first at
 * 5 ms, then one every 2 ms. */
START_TEST(pp_bubble)
{
	PRINTED(100 * fx_step_pipeline_eff(4, 4), 57, 1);
	PRINTED(100 * fx_step_pipeline_eff(4, 16), 84, 1);
	ck_assert_double_eq(fx_step_pipeline(4, 1, NULL, 1), 4);
	ck_assert_double_eq(fx_step_pipeline(4, 2, NULL, 1), 5);
	ck_assert_double_eq(fx_step_pipeline(4, 8, NULL, 1), 11);
	static const double t[] = {1, 1, 2, 1};
	ck_assert_double_eq(fx_step_pipeline(4, 1, t, 0), 5);
	ck_assert_double_eq(fx_step_pipeline(4, 2, t, 0), 7);
	ck_assert_double_eq(fx_step_pipeline(4, 8, t, 0), 19);
	/* in the step model: four stages of one layer each, four micro-batches
	 * of one session: 7 stage times, the bubble 3/7 */
	fx_step_model m = q32_ffn();
	m.part[0].layers = 4;
	m.part[0].bytes *= 4;
	m.layers = 4;
	fx_step_hw h = h100();
	fx_step_layout l = layout(1, 1);
	l.pp = 4;
	l.microbatches = 4;
	fx_step_load d = decode(0, 4);
	fx_step_result r;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &r);
	ck_assert_double_eq_tol(r.step, 7 * r.t_stage, 1e-15);
	ck_assert_double_eq_tol(r.bubble, 3.0 / 7, 1e-15);
	ck_assert_double_eq(r.weights, 750 * MIB);
	ck_assert_int_eq(r.cards, 4);
}
END_TEST

/* §6.3.1: TP2 x EP4 of Qwen3-235B-A22B holds about 64.8 GB per card; the
 * FP32 reductions send 16 + 16 + 24 = 56 KiB per card per layer. */
static const fx_model qwen235 = {
	.layers = 94, .hidden = 4096, .heads = 64, .kv_heads = 4, .head_dim = 128,
	.experts = 128, .top_k = 8, .expert_ffn = 1536, .vocab = 151936,
	.dtype_bytes = 2, .reduce_bytes = 4};

START_TEST(tp2_ep4)
{
	fx_step_model m;
	fx_step_from_shape(&qwen235, &m);
	PRINTED(fx_step_model_bytes(&m) / GB, 470.2, 0.1);
	ck_assert_double_eq(fx_step_model_bytes(&m), 470187269120.0);
	fx_step_hw h = h100();
	fx_step_layout l = layout(2, 4);
	l.ep_allreduce = 1;
	fx_step_load d = decode(8192, 1);
	rec rc = {.n = 0};
	fx_step_result r;
	fx_step_eval(&m, &h, &l, &d, record, &rc, &r);
	PRINTED(r.weights / GB, 64.8, 0.1);
	ck_assert_double_eq_tol(r.weights, fx_model_weights_per_device(&qwen235, 2, 4), 1);
	/* §6.3.1: per-card KV of 8192 tokens, 752 MiB */
	ck_assert_double_eq(r.state_session, 752 * MIB);
	/* footnote 1: TP8 holds 58,959,617,024 bytes */
	fx_step_layout l8 = layout(8, 1);
	fx_step_eval(&m, &h, &l8, &d, NULL, NULL, &r);
	ck_assert_double_eq(r.weights, 58959617024.0);
	ck_assert_double_eq(r.state_session, 394264576.0);
	/* the ring sends 2 (n-1)/n of the 16 KiB: 16 within the group twice, 24 across */
	const fx_step_call *tp = find_call(&rc, "allreduce");
	ck_assert_int_eq(tp->n, 2);
	ck_assert_double_eq(tp->bytes, 16 * KIB);
	double sent = 0;
	for (int i = 0; i < rc.n; i++)
		sent += (rc.c[i].group == FX_STEP_TP ? 2 : 1) * 2.0 * (double)(rc.c[i].n - 1) /
			(double)rc.c[i].n * rc.c[i].bytes;
	ck_assert_double_eq(sent, 56 * KIB);
	ck_assert_double_eq(sent, fx_model_send_per_token(&qwen235, 2, 4));
	/* across eight cards 448 KiB; a prefill of 8192 tokens, 448 MiB each card */
	ck_assert_double_eq(8 * sent, 448 * KIB);
	fx_step_load pf = decode(0, 1);
	pf.phase = FX_PHASE_PREFILL;
	pf.prompt = 8192;
	rc.n = 0;
	fx_step_eval(&m, &h, &l, &pf, record, &rc, &r);
	sent = 0;
	for (int i = 0; i < rc.n; i++)
		sent += (rc.c[i].group == FX_STEP_TP ? 2 : 1) * 2.0 * (double)(rc.c[i].n - 1) /
			(double)rc.c[i].n * rc.c[i].bytes;
	ck_assert_double_eq(sent, 448 * MIB);
	/* §6.1.2: one token reads about 43.1 GB of weights and 1.58 GB of KV,
	 * about 13.3 ms on one card; "split evenly across eight cards", about
	 * 5.79 GB and 1.73 ms a card.  The step model reads the router on
	 * every card and the K/V projections, as the KV, only four ways (4 KV
	 * heads): 5.97 GB, 1.78 ms, 3 % more than the even split */
	fx_step_layout l1 = layout(1, 1);
	fx_step_eval(&m, &h, &l1, &d, NULL, NULL, &r);
	PRINTED(r.read_weights / GB, 43.1, 0.1);
	PRINTED(r.read_state / GB, 1.58, 0.01);
	PRINTED(r.t_local / MS, 13.3, 0.1);
	PRINTED((fx_model_read_per_token(&qwen235) / 8 + 188 * KIB * 8193 / 4) / GB, 5.79, 0.01);
	fx_step_eval(&m, &h, &l8, &d, NULL, NULL, &r);
	WITHIN((r.read_weights + r.read_state) / GB, 5.79, 0.035);
	WITHIN(r.t_local / MS, 1.73, 0.035);
	double router = 94 * 4096.0 * 128 * 2, kvproj = 94 * 2 * 4096.0 * 4 * 128 * 2;
	ck_assert_double_eq_tol(r.read_weights - fx_model_read_per_token(&qwen235) / 8,
				router * 7 / 8 + kvproj * (1.0 / 4 - 1.0 / 8), 1);
	/* §6.1.2, footnote 1: under TP8 each card holds at most 47 sessions of
	 * 8192 tokens (weights 58.96 GB, KV 0.39 GB, 2 GiB reserved) */
	fx_step_eval(&m, &h, &l8, &d, NULL, NULL, &r);
	ck_assert_int_eq(r.capacity, 47);
	PRINTED((r.weights + r.state_session + r.reserve) / GB, 61.50, 0.01);
}
END_TEST

/* The shape's inventory against model.c: weights per card under TP x EP,
 * and a batch-1 step's read. */
START_TEST(shape_matches_model)
{
	const fx_model *ms[] = {&qwen235, &qwen32, &qwen30};
	for (int i = 0; i < 3; i++) {
		fx_step_model m;
		fx_step_from_shape(ms[i], &m);
		ck_assert_double_eq_tol(fx_step_model_bytes(&m), fx_model_params(ms[i]) * 2, 1);
		fx_step_hw h = h100();
		h.a.hbm = 1e15;
		fx_step_load d = decode(1000, 1);
		for (int64_t tp = 1; tp <= 16; tp *= 2)
			for (int64_t ep = 1; ep <= 8; ep *= 2) {
				if (ep > 1 && !ms[i]->experts)
					continue;
				fx_step_layout l = layout(tp, ep);
				l.ep_allreduce = 1;
				fx_step_result r;
				fx_step_eval(&m, &h, &l, &d, NULL, NULL, &r);
				ck_assert_double_eq_tol(r.weights, fx_model_weights_per_device(ms[i], tp, ep), 1);
			}
		fx_step_layout l = layout(1, 1);
		fx_step_result r;
		fx_step_eval(&m, &h, &l, &d, NULL, NULL, &r);
		ck_assert_double_eq_tol(r.read_weights, fx_model_read_per_token(ms[i]), 1);
		ck_assert_double_eq_tol(r.flops, fx_model_step_flops(ms[i], 1000), 1);
	}
}
END_TEST

/* Extended shapes: MLA keeps (kv_lora_rank + qk_rope_dim) per layer
 * (DeepSeek-V3: (512 + 64) x 61 x 2 = 70,272 B per token, by hand), not
 * split by TP; shared experts and the first dense layers count once. */
START_TEST(shape_extended)
{
	fx_model v3 = {.layers = 61, .hidden = 7168, .heads = 128, .kv_heads = 128, .head_dim = 128,
		       .dense_ffn = 18432, .experts = 256, .top_k = 8, .expert_ffn = 2048,
		       .vocab = 129280, .dtype_bytes = 2, .reduce_bytes = 4, .dense_layers = 3,
		       .shared_experts = 1, .shared_expert_ffn = 2048, .kv_lora_rank = 512,
		       .qk_rope_dim = 64, .cross_layer_state = 0};
	ck_assert_double_eq(fx_model_kv_per_token(&v3), 70272);
	fx_step_model m;
	fx_step_from_shape(&v3, &m);
	ck_assert_int_eq(m.kv.units, 1);
	ck_assert_int_eq(m.moe_layers, 58);
	fx_step_hw h = h100();
	h.a.hbm = 1e15;
	fx_step_load d = decode(1000, 1);
	fx_step_layout l = layout(8, 1);
	fx_step_result r;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &r);
	ck_assert_double_eq(r.state_session, 70272.0 * 1000);  /* MLA: every TP rank keeps it */
	/* experts in 58 layers, dense FFN in 3, shared experts in the 58 */
	double e = 3.0 * 7168 * 2048, dense = 3.0 * 7168 * 18432;
	double want = 61 * (2.0 * 7168 * 128 * 128 * 2 + 2 * 7168 + 2 * 128) + 3 * dense +
		      58 * (256 * e + 7168.0 * 256 + e) + 2.0 * 129280 * 7168 + 7168;
	ck_assert_double_eq_tol(fx_model_params(&v3), want, 1);
	ck_assert_double_eq_tol(fx_step_model_bytes(&m), 2 * want, 1);
	/* a cross-layer state per token (§6.7.1: 890 B) adds to the KV */
	v3.cross_layer_state = 890;
	ck_assert_double_eq(fx_model_kv_per_token(&v3), 70272 + 890);
}
END_TEST

/* ---- §6.7.4: V4.1 Flash on supernodes of 8 to 256 H100 cards ----
 *
 * The inventory from §6.7.4: attention, shared experts and the output head
 * once per card; routed experts 288.8 GB and the Engram table 203.1 GB
 * (2 x 384 M rows of 256 FP8 values + an 8-byte scale, 24 rows per token
 * per module) over the S cards; K = 180.7 MB per 200K session; 80
 * all-to-alls per step (one dispatch and one combine in each of 40
 * layers); 48 experts per layer per card at 8 cards (384 in all); attention
 * data parallel; a batch-1 step reads 8.2 GB of the per-card weights.
 * NVLink alpha 0.822 us and 450 GB/s per card (§6.4.2).  Not stated, so:
 *   top_k 6: DeepSeek V4-Flash's (§6.3.3), assumed for V4.1;
 *   replicated 9.54 GB: derived, the chapter's 9.5 GB rounded, from the
 *     13.4 and 11.5 GB per card it prints at 128 and 256 cards (9.528 to
 *     9.5625 GB);
 *   62.0 KB per token per all-to-all: derived from the 3.7 ms of
 *     communication at 64 cards;
 *   40.02 GFLOP per token: derived from the 64-card step (19,420 token/s);
 *   37.2 MB of state read per session per step: derived from the 8-card
 *     step (2,632 token/s).
 * So those four figures are not evidence here; the others are. */
static fx_step_model v41(int table_in_host)
{
	fx_step_model m;
	memset(&m, 0, sizeof m);
	fx_step_part *p = &m.part[m.nparts++];
	snprintf(p->name, sizeof p->name, "attention, shared experts, output head");
	p->split = FX_SPLIT_REPLICATED;
	p->bytes = 9.54e9;
	p->read = 8.2e9;
	p->layers = 40;
	p = &m.part[m.nparts++];
	snprintf(p->name, sizeof p->name, "routed experts");
	p->split = FX_SPLIT_EP;
	p->bytes = 288.8e9;
	p->experts = 384;
	p->top_k = 6;
	p->layers = 40;
	p->a2a_token_bytes = 62.0e3;
	p->even = 1;  /* Eq. 6-14: 288.8 GB / S (1.5 experts per layer at 256 cards) */
	p = &m.part[m.nparts++];
	snprintf(p->name, sizeof p->name, "Engram table");
	p->split = FX_SPLIT_TABLE;
	p->where = table_in_host ? FX_WHERE_HOST : FX_WHERE_HBM;
	p->bytes = 203.1e9;
	p->row_bytes = 256 + 8;
	p->rows_per_token = 48;
	m.kv = (fx_step_state){.per_session = 180.7e6, .read_per_step = 37.2e6, .units = 1,
			       .layers = 40};
	m.flops_per_token = 40.02e9;
	m.layers = m.moe_layers = 40;
	return m;
}

static fx_step_hw v41_hw(void)
{
	fx_step_hw h = h100();
	h.host_rtt = 1.05e-6;   /* §6.7.4: one host round trip (KV-Direct, §7.3.4) */
	h.host_reads = 61e6;    /* §6.7.4: 61 million reads per second */
	return h;
}

static fx_step_layout v41_layout(int64_t S)
{
	fx_step_layout l = layout(1, S);
	l.overlap_step = 1;   /* "reading and computation take the longer of the two" */
	return l;
}

/* §6.7.4's table: weights per card 71.0 / 17.2 / 13.4 / 11.5 GB, sessions
 * 37 / 335 / 356 / 367, step 14.1 / 17.3 / 18.4 / 18.9 ms, throughput
 * 2,632 / 19,420 / 19,392 / 19,378 token/s per card; 64 cards give 7.4
 * times 8.  (The 8- and 64-card steps and 13.4 / 11.5 GB are fitted.) */
START_TEST(v41_supernode_table)
{
	static const int64_t S[] = {8, 64, 128, 256}, sess[] = {37, 335, 356, 367};
	static const double w[] = {71.0, 17.2, 13.4, 11.5}, st[] = {14.1, 17.3, 18.4, 18.9};
	static const double thr[] = {2632, 19420, 19392, 19378};
	fx_step_model m = v41(0);
	fx_step_hw h = v41_hw();
	fx_step_load d = decode(200000, 0);
	fx_step_result r[4];
	for (int i = 0; i < 4; i++) {
		fx_step_layout l = v41_layout(S[i]);
		ck_assert_int_eq(fx_step_eval(&m, &h, &l, &d, fx_step_comm_closed, &nvlink, &r[i]), 0);
		ck_assert_msg(r[i].ok, "%s", r[i].why);
		PRINTED(r[i].weights / GB, w[i], 0.1);
		ck_assert_int_eq(r[i].capacity, sess[i]);
		ck_assert_int_eq(r[i].batch, sess[i]);
		WITHIN(r[i].step / MS, st[i], 0.03);
		WITHIN(r[i].tokens_per_s_card, thr[i], 0.03);
		ck_assert_int_eq(r[i].calls, 2);  /* the dispatch (the combine the same call), the table fetch */
	}
	/* 8 cards: each holds 48 experts per layer, nearly all read; reading
	 * the experts takes most of the step.  64: one-eighth of the experts
	 * per card, all read (the chapter says the read falls to "less than
	 * one-tenth"; all of one-eighth read is one-eighth) */
	ck_assert_double_eq(r[0].busiest_experts, 48);
	ck_assert_str_eq(r[0].binds, "weights");
	ck_assert(36.1e9 / 3350e9 > 0.5 * r[0].step);
	ck_assert_double_eq(r[1].busiest_experts, 6);
	ck_assert_str_eq(r[1].binds, "compute");
	PRINTED(r[1].tokens_per_s_card / r[0].tokens_per_s_card, 7.4, 0.1);
	/* 64 cards: the 3.7 ms of dispatch and combine (fitted) */
	PRINTED(r[1].comm / MS, 3.7, 0.1);
}
END_TEST

/* §6.7.4: with the Engram table in host memory an 8-card supernode holds
 * 178 sessions per card, narrowing the gap to 64 cards to 1.9-fold; in
 * HBM the table takes 25.4 GB per card at 8 cards (equivalent to 140
 * sessions) and 3.2 GB at 64 (18 sessions; the count only 5 % lower). */
START_TEST(v41_engram_placement)
{
	fx_step_hw h = v41_hw();
	fx_step_load d = decode(200000, 0);
	fx_step_model hbm = v41(0), host = v41(1);
	fx_step_layout l8 = v41_layout(8), l64 = v41_layout(64);
	fx_step_result r, r64, h64;
	fx_step_eval(&host, &h, &l8, &d, fx_step_comm_closed, &nvlink, &r);
	ck_assert_int_eq(r.capacity, 178);
	fx_step_eval(&hbm, &h, &l64, &d, fx_step_comm_closed, &nvlink, &r64);
	PRINTED(r64.tokens_per_s_card / r.tokens_per_s_card, 1.9, 0.1);
	fx_step_eval(&hbm, &h, &l8, &d, NULL, NULL, &r);
	PRINTED(r.part_card[2] / GB, 25.4, 0.1);
	ck_assert_int_eq((int64_t)floor(r.part_card[2] / 180.7e6), 140);
	PRINTED(r64.part_card[2] / GB, 3.2, 0.1);
	ck_assert_int_eq((int64_t)llround(r64.part_card[2] / 180.7e6), 18);
	fx_step_eval(&host, &h, &l64, &d, NULL, NULL, &h64);
	PRINTED(100.0 * (double)(h64.capacity - r64.capacity) / (double)h64.capacity, 5, 1);
	/* 12.7 KB per token: 48 rows of 264 bytes */
	PRINTED(48 * 264 / 1e3, 12.7, 0.1);
}
END_TEST

/* §6.7.4: a 64-card instance performs 16,080 random reads per card per
 * step, 0.26 ms at the measured 61 million reads per second, 1.5 % of the
 * step and hidden behind the first block; one user's 48 rows take one
 * round trip, 1.05 us, against 69 us of the first block on an H100. */
START_TEST(v41_host_table)
{
	fx_step_hw h = v41_hw();
	fx_step_model host = v41(1);
	fx_step_layout l = v41_layout(64);
	fx_step_load d = decode(200000, 335);
	fx_step_result r;
	fx_step_eval(&host, &h, &l, &d, fx_step_comm_closed, &nvlink, &r);
	ck_assert_double_eq(335 * 48, 16080);
	PRINTED(r.t_table / MS, 0.26, 0.01);
	PRINTED(100 * r.t_table / 17.25e-3, 1.5, 0.1);
	ck_assert(r.table_hidden);
	fx_step_layout l8 = v41_layout(8);
	d = decode(200000, 0);
	d.total = 1;
	fx_step_eval(&host, &h, &l8, &d, fx_step_comm_closed, &nvlink, &r);
	PRINTED(r.t_table / US, 1.05, 0.01);
	PRINTED(r.t_first / US, 69, 1);
	ck_assert(r.table_hidden);
}
END_TEST

/* §6.7.4: one user, batch 1: its card reads the 8.2 GB of per-card
 * weights once and one expert per layer, 2.76 ms or 362 token/s, the
 * same on 8 and 256 cards; the ROM-wafer table's GPU row: storage and
 * compute 2,689 us, collectives 76 us, 3 % of the time. */
START_TEST(v41_single_user)
{
	fx_step_hw h = v41_hw();
	fx_step_model m = v41(0);
	fx_step_load d = decode(200000, 0);
	d.total = 1;
	static const int64_t S[] = {8, 256};
	for (int i = 0; i < 2; i++) {
		fx_step_layout l = v41_layout(S[i]);
		fx_step_result r;
		fx_step_eval(&m, &h, &l, &d, fx_step_comm_closed, &nvlink, &r);
		ck_assert_msg(r.ok, "%s", r.why);
		ck_assert_double_eq(r.busiest_experts, 1);
		ck_assert_double_eq(r.tokens, 1);
		WITHIN(r.step / MS, 2.76, 0.03);
		PRINTED(r.step / MS, 2.76, 0.01);
		WITHIN(r.tokens_per_s, 362, 0.03);
		PRINTED(r.tokens_per_s, 362, 1);
		if (S[i] == 8) {
			WITHIN(r.t_local / US, 2689, 0.03);
			WITHIN(r.comm / US, 76, 0.03);
			PRINTED(100 * r.comm_share, 3, 1);
		}
	}
}
END_TEST

/* §6.7.4: the same 64 cards as eight HGX H100 servers over one 400 Gbit/s
 * (50 GB/s, §6.1.2) NIC per card: seven-eighths of the dispatch and
 * combine bytes cross the NIC, communication goes from 3.7 to 29.2 ms and
 * the throughput per card drops to 7,828 token/s.  The NIC's per-round
 * startup is 5 us (Exercise 6-11(c): "from 5 us to 2 us"). */
START_TEST(v41_over_nics)
{
	fx_step_hw h = v41_hw();
	fx_step_model m = v41(0);
	fx_step_load d = decode(200000, 0);
	fx_step_layout l = v41_layout(64);
	fx_step_closed nic = {8, 0.822e-6, 450e9, 5e-6, 50e9};
	fx_step_result sn, r;
	fx_step_eval(&m, &h, &l, &d, fx_step_comm_closed, &nvlink, &sn);
	fx_step_eval(&m, &h, &l, &d, fx_step_comm_closed, &nic, &r);
	ck_assert_int_eq(r.capacity, 335);
	WITHIN(r.comm / MS, 29.2, 0.03);
	WITHIN(r.tokens_per_s_card, 7828, 0.03);
	ck_assert_str_eq(r.binds, "communication");
	ck_assert_double_eq_tol(r.step - r.comm, sn.step - sn.comm, 1e-12);
	/* footnote 9's measured InfiniBand (3.76 us, 48.94 GB/s) instead */
	fx_step_closed ib = {8, 0.822e-6, 450e9, 3.76e-6, 48.94e9};
	fx_step_eval(&m, &h, &l, &d, fx_step_comm_closed, &ib, &r);
	WITHIN(r.comm / MS, 29.2, 0.03);
	WITHIN(r.tokens_per_s_card, 7828, 0.03);
}
END_TEST

/* §6.7.4, Eq. 6-15: the ROM-wafer table.  Two ROM wafers: weight reading
 * 69 us (/0.9: 77 us), 159 us of collectives, 4,070 token/s, 65 % of the
 * time communication; 58 B200 cards with TP: weights 148 us (165 us),
 * 562 us, 1,357 token/s, 76 %.  T_fixed is not printed: derived from the
 * wafer's 4,070 token/s (10 us, 0.25 us per layer of 40) and checked on
 * the B200 row. */
START_TEST(eq615_rom)
{
	double fixed = 40 * 0.25e-6;
	double wafer = fx_step_eq615(69e-6, 0, 0, 159e-6, fixed, 0.9);
	PRINTED(69e-6 / 0.9 / US, 77, 1);
	PRINTED(1 / wafer, 4070, 5);
	PRINTED(100 * 159e-6 / wafer, 65, 1);
	double b200 = fx_step_eq615(148e-6, 0, 0, 562e-6, fixed, 0.9);
	WITHIN(148e-6 / 0.9 / US, 165, 0.01);
	WITHIN(1 / b200, 1357, 0.01);
	PRINTED(100 * 562e-6 / b200, 76, 1);
	/* the step model applies it: ROM weights, KV on its own path */
	fx_step_model m;
	memset(&m, 0, sizeof m);
	m.part[0] = (fx_step_part){.name = "weights", .split = FX_SPLIT_REPLICATED,
				   .where = FX_WHERE_ROM, .bytes = 1e9, .read = -1, .layers = 40};
	m.nparts = 1;
	m.layers = 40;
	m.kv = (fx_step_state){.per_session = 1e6, .read_per_step = -1, .units = 1, .layers = 40};
	fx_step_hw h = h100();
	h.rom_bw = 1e9 / 69e-6;
	h.balance = 0.9;
	h.fixed_per_layer = 0.25e-6;
	fx_step_layout l = layout(1, 1);
	l.overlap_step = 1;
	fx_step_load d = decode(0, 1);
	fx_step_result r;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &r);
	ck_assert_double_eq_tol(r.step, fx_step_eq615(69e-6, 1e6 / 3350e9, 0, 0, fixed, 0.9), 1e-15);
}
END_TEST

/* The cache answers a repeated call without asking again. */
static int asked;
static double count_calls(void *ctx, const fx_step_call *c, int *measured)
{
	(void)ctx;
	asked++;
	*measured = 1;
	return (double)c->n * 1e-6;
}

START_TEST(cache_memo)
{
	fx_step_cache *c = fx_step_cache_new(count_calls, NULL);
	asked = 0;
	fx_step_model m = v41(0);
	fx_step_hw h = v41_hw();
	fx_step_load d = decode(200000, 0);
	fx_step_result r1, r2;
	for (int k = 0; k < 200; k++) {  /* grows past its first table */
		fx_step_layout l = v41_layout(8);
		d.batch = 1 + k % 37;
		fx_step_eval(&m, &h, &l, &d, fx_step_comm_cached, c, &r1);
	}
	int64_t hits, misses;
	fx_step_cache_stats(c, &hits, &misses);
	ck_assert_int_eq(misses, asked);
	ck_assert_int_eq(misses, 2 * 37);  /* a dispatch and a table fetch per batch */
	ck_assert_int_eq(hits + misses, 200 * 2);
	fx_step_layout l = v41_layout(8);
	d.batch = 5;
	fx_step_eval(&m, &h, &l, &d, count_calls, NULL, &r2);
	fx_step_eval(&m, &h, &l, &d, fx_step_comm_cached, c, &r1);
	ck_assert_double_eq(r1.step, r2.step);
	ck_assert_int_eq(r1.measured, r1.calls);
	fx_step_cache_free(c);
}
END_TEST

/* Layouts that cannot run say why; a callback without a time fails the step. */
static double no_time(void *ctx, const fx_step_call *c, int *measured)
{
	(void)ctx;
	(void)c;
	(void)measured;
	return NAN;
}

START_TEST(not_ok)
{
	fx_step_model m = v41(0);
	fx_step_hw h = v41_hw();
	fx_step_load d = decode(200000, 0);
	fx_step_layout l = v41_layout(4);  /* 4 cards: the table alone is 50.8 GB each */
	fx_step_result r;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &r);
	ck_assert(!r.ok);
	ck_assert_ptr_nonnull(strstr(r.why, "no session fits"));
	l = v41_layout(512);
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &r);
	ck_assert(!r.ok);
	ck_assert_ptr_nonnull(strstr(r.why, "EP groups"));
	l = v41_layout(64);
	d.batch = 400;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &r);
	ck_assert(!r.ok);
	ck_assert_ptr_nonnull(strstr(r.why, "more than it holds"));
	d.batch = 0;
	ck_assert_int_eq(fx_step_eval(&m, &h, &l, &d, no_time, NULL, &r), -1);
	ck_assert(!r.ok);
	ck_assert_ptr_nonnull(strstr(r.why, "no time for the ep all-to-all"));
}
END_TEST


/* §6.7.3's expert replicas and a separate expert pool, each in memory and
 * time: r copies of every expert cost r times the expert memory and share
 * the hot experts' rows; a pool of cards holds the experts, attention
 * cards none, and every token's experts are remote. */
START_TEST(replicas_and_pool)
{
	fx_step_model m = q235_moe_layer();
	fx_step_hw h = h100();
	fx_step_layout l = layout(1, 4);
	l.ep_allreduce = 1;
	fx_step_load d = decode(0, 64);
	d.moe = FX_MOE_HOT;
	d.hot_share = 1;
	fx_step_result one, two;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &one);
	l.expert_replicas = 2;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &two);
	ck_assert_double_eq(two.weights, 2 * one.weights);
	ck_assert_double_eq(one.weights, 32 * 36 * MIB);
	ck_assert_double_eq(one.busiest_rows, 512);
	ck_assert_double_eq(two.busiest_rows, 256);
	/* a pool of 8 expert cards beside 4 attention cards */
	l = layout(1, 4);
	l.expert_pool = 8;
	d = decode(0, 16);
	rec rc = {.n = 0};
	fx_step_result p;
	fx_step_eval(&m, &h, &l, &d, record, &rc, &p);
	ck_assert(p.ok);
	ck_assert_double_eq(p.weights, 0);  /* the attention cards hold no expert */
	ck_assert_double_eq(p.pool_card, 16 * 36 * MIB);
	ck_assert_double_eq(p.part_card[0], p.pool_card);
	ck_assert_int_eq(p.cards, 12);
	const fx_step_call *c = find_call(&rc, "all-to-all");
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->n, 12);
	ck_assert_double_eq(c->bytes, 16 * 8 * 8 * KIB);  /* all 8 copies leave the card */
	/* the pool card reads its 16 experts, nearly all touched by 64 tokens */
	ck_assert_double_eq(p.busiest_experts, 16);
	ck_assert_double_eq(p.read_weights, 16 * 36 * MIB);
}
END_TEST

/* Efficiency scales compute; state in host memory is read over its own
 * path and takes no HBM (a batch must be given). */
START_TEST(efficiency_and_host_state)
{
	fx_step_model m = q235_moe_layer();
	fx_step_hw h = h100();
	fx_step_layout l = layout(1, 1);
	fx_step_load d = decode(0, 1);
	d.phase = FX_PHASE_PREFILL;
	d.prompt = 8192;
	fx_step_result a, b;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &a);
	h.efficiency = 0.5;
	fx_step_eval(&m, &h, &l, &d, NULL, NULL, &b);
	ck_assert_double_eq_tol(b.t_compute, 2 * a.t_compute, 1e-15);
	fx_step_model s;
	memset(&s, 0, sizeof s);
	s.layers = 1;
	s.kv = (fx_step_state){.per_session = 1e9, .read_per_step = -1, .units = 1, .layers = 1,
			       .where = FX_WHERE_HOST};
	h = h100();
	h.host_bw = 64e9;
	d = decode(0, 0);
	fx_step_eval(&s, &h, &l, &d, NULL, NULL, &a);
	ck_assert(!a.ok);
	ck_assert_ptr_nonnull(strstr(a.why, "give the batch"));
	d.batch = 10;
	fx_step_eval(&s, &h, &l, &d, NULL, NULL, &a);
	ck_assert(a.ok);
	ck_assert_double_eq(a.t_state, 10 * 1e9 / 64e9);
	ck_assert_double_eq(a.weights, 0);
}
END_TEST

Suite *suite_step(void)
{
	Suite *s = suite_create("step");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, ffn_roofline_batch1);
	tcase_add_test(tc, ffn_prefill);
	tcase_add_test(tc, eq68_active);
	tcase_add_test(tc, busiest_group);
	tcase_add_test(tc, dispatch_per_card);
	tcase_add_test(tc, tp4_ffn);
	tcase_add_test(tc, tp_table);
	tcase_add_test(tc, dense_moe_table);
	tcase_add_test(tc, state_capacity);
	tcase_add_test(tc, tp2d);
	tcase_add_test(tc, sp_activations);
	tcase_add_test(tc, cp_causal);
	tcase_add_test(tc, pp_bubble);
	tcase_add_test(tc, tp2_ep4);
	tcase_add_test(tc, shape_matches_model);
	tcase_add_test(tc, shape_extended);
	tcase_add_test(tc, v41_supernode_table);
	tcase_add_test(tc, v41_engram_placement);
	tcase_add_test(tc, v41_host_table);
	tcase_add_test(tc, v41_single_user);
	tcase_add_test(tc, v41_over_nics);
	tcase_add_test(tc, eq615_rom);
	tcase_add_test(tc, cache_memo);
	tcase_add_test(tc, not_ok);
	tcase_add_test(tc, replicas_and_pool);
	tcase_add_test(tc, efficiency_and_host_state);
	suite_add_tcase(s, tc);
	return s;
}
