/* Transport state, connection setup and memory pooling against the
 * worked numbers of the chapter "Supernodes" §6.5.5 and §6.6. */
#include <math.h>

#include "../../access/access.h"
#include "helpers.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)

/* §6.5.5, A = 8: per-pair connections add 512 x 64 = 32 KiB per host, so
 * a 256 KiB cache holds 8 hosts (S(8) = 229,632 B, S(9) = 262,400 B);
 * endpoint + channel add 56 B per host: 416 + 56 (H-1) <= 262,144 up to
 * H = 4,674 ("over four thousand"). */
START_TEST(state_and_cache)
{
	fx_transport t;
	fx_transport_defaults(&t);
	ck_assert_double_eq(fx_transport_pair_state(&t, 9) - fx_transport_pair_state(&t, 8), 32 * KIB);
	ck_assert_double_eq(fx_transport_hosts_in_cache(&t, fx_transport_pair_state), 8);
	ck_assert_double_eq(fx_transport_ub_state(&t, 2) - fx_transport_ub_state(&t, 1), 56);
	ck_assert_double_eq(fx_transport_hosts_in_cache(&t, fx_transport_ub_state), 4674);
	/* CloudMatrix384's 192 hosts: about 6 MiB per-pair, 24 times the
	 * cache; about 11 KiB with endpoint + channel */
	double pair = fx_transport_pair_state(&t, 192), ub = fx_transport_ub_state(&t, 192);
	ck_assert_double_eq(pair, 32768.0 * 191 + 256);
	ck_assert_double_eq_tol(pair / MIB, 6.0, 0.05);
	ck_assert_double_eq_tol(pair / t.cache, 24, 0.2);
	ck_assert_double_eq(ub, 416 + 56.0 * 191);
	ck_assert_double_eq_tol(ub / KIB, 11, 0.2);
	/* a directory of 2^20 lines: W ((H-1)/8 + 8) B, about 8 MiB at two
	 * hosts and 136 MiB at 1,024 */
	ck_assert_double_eq(fx_transport_directory_state(&t, 2), 8.125 * MIB);
	ck_assert_double_eq(fx_transport_directory_state(&t, 1024), 135.875 * MIB);
	/* a smaller cache holds fewer; none when one host's state is too big */
	t.cache = 100;
	ck_assert_double_eq(fx_transport_hosts_in_cache(&t, fx_transport_pair_state), 0);
}
END_TEST

/* §6.5.5: one per-pair connection = 4 system calls of 5 us + one 500 us
 * round trip = 0.52 ms; N = M = 1,024: 1,048,576 connections, about 545 s
 * serially and 17 s on 32 cores; endpoint + channel 2,048 objects,
 * 1,024 x 5 us + 1,024 x 505 us = 522.24 ms, about 16 ms on 32 cores. */
START_TEST(setup_time)
{
	fx_transport t;
	fx_transport_defaults(&t);
	ck_assert_double_eq_tol(fx_transport_pair_setup(&t, 1, 1), 0.52e-3, 1e-12);
	double p = fx_transport_pair_setup(&t, 1024, 1024);
	ck_assert_double_eq_tol(p, 1048576 * 520e-6, 1e-6);
	ck_assert_double_eq_tol(p, 545, 0.5);
	ck_assert_double_eq_tol(p / t.cores, 17.04, 0.01);
	double u = fx_transport_ub_setup(&t, 1024, 1024);
	ck_assert_double_eq_tol(u, 0.52224, 1e-9);
	ck_assert_double_eq_tol(u / t.cores * 1e3, 16.32, 0.01);
}
END_TEST

/* §6.6.2, Eq. 6-12: 50 GB/s path, L = 7.52 us, q = 256 B.  u = 128: 32 KiB
 * in flight, 4.36 GB/s; u >= ceil(50e9 x 7.52e-6 / 256) = 1,469 fills the
 * path; u = 4,096: 139 GB/s, so path-bound at 50 GB/s.  §6.6.3: 20 GB read
 * path-bound in 0.40 s (0.60 s idle at one read a second; a read every
 * 0.05 s backs up), 4.59 s at u = 128 (a backlog even once a second);
 * demand 0.33 GB/s once a minute, 20 GB/s once a second, 400 GB/s at 20 a
 * second. */
START_TEST(eq_6_12)
{
	fx_pool_read r;
	fx_pool_read_model(50e9, 7.52e-6, 256, 128, 20e9, 1, &r);
	ck_assert_double_eq_tol(r.window / 1e9, 4.36, 0.005);
	ck_assert_double_eq(r.usable, r.window);
	ck_assert_double_eq(r.inflight_to_fill, 1469);
	ck_assert_double_eq_tol(r.read_time, 4.59, 0.005);
	ck_assert(r.backlog);
	fx_pool_read_model(50e9, 7.52e-6, 256, 4096, 20e9, 1, &r);
	ck_assert_double_eq_tol(r.window / 1e9, 139, 0.5);
	ck_assert_double_eq(r.usable, 50e9);
	ck_assert_double_eq_tol(r.read_time, 0.40, 1e-12);
	ck_assert_double_eq_tol(r.idle, 0.60, 1e-12);
	ck_assert(!r.backlog);
	fx_pool_read_model(50e9, 7.52e-6, 256, 4096, 20e9, 0.05, &r);
	ck_assert(r.backlog);
	ck_assert_double_eq_tol(r.demand / 1e9, 400, 1e-9);
	fx_pool_read_model(50e9, 7.52e-6, 256, 4096, 20e9, 60, &r);
	ck_assert_double_eq_tol(r.demand / 1e9, 0.333, 0.001);
}
END_TEST

/* §6.6.1: tasks of 100, 60, 40, 40 GB on four 80 GB nodes: 240 GB of 320
 * fit only by borrowing; node 1 lends task 0 its 20 GB, leaving 80, 80,
 * 40, 40 occupied.  Needing more than all nodes hold cannot be borrowed. */
START_TEST(borrowing)
{
	double need[4] = {100e9, 60e9, 40e9, 40e9};
	fx_loan l[8];
	ck_assert_int_eq(fx_pool_borrow(need, 4, 80e9, l, 8), 1);
	ck_assert_int_eq(l[0].lender, 1);
	ck_assert_int_eq(l[0].borrower, 0);
	ck_assert_double_eq(l[0].bytes, 20e9);
	/* a bigger want than any node's idle memory is split, largest first */
	double big[3] = {150e9, 40e9, 50e9};
	ck_assert_int_eq(fx_pool_borrow(big, 3, 80e9, l, 8), 2);
	ck_assert_int_eq(l[0].lender, 1);
	ck_assert_double_eq(l[0].bytes, 40e9);
	ck_assert_int_eq(l[1].lender, 2);
	ck_assert_double_eq(l[1].bytes, 30e9);
	double over[2] = {150e9, 20e9};
	ck_assert_int_eq(fx_pool_borrow(over, 2, 80e9, l, 8), -1);
}
END_TEST

Suite *suite_access(void)
{
	Suite *s = suite_create("access");
	TCase *tc = tcase_create("book");
	tcase_add_test(tc, state_and_cache);
	tcase_add_test(tc, setup_time);
	tcase_add_test(tc, eq_6_12);
	tcase_add_test(tc, borrowing);
	suite_add_tcase(s, tc);
	return s;
}
