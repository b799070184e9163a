/*
 * xalloc: allocation that cannot fail.
 *
 * A command-line tool cannot do anything useful after running out of memory,
 * so these helpers print one line and exit with status 1 (internal error)
 * instead of returning NULL.  Keeping that decision here means every other
 * error path in fabricx is about user mistakes, not allocator failures.
 * (Fabrics too large for memory are refused earlier, from their estimated
 * size; see fx_fabric_estimate.)
 */
#ifndef FX_XALLOC_H
#define FX_XALLOC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

void *fx_xmalloc(size_t n);
void *fx_xcalloc(size_t count, size_t size);
void *fx_xrealloc(void *p, size_t n);
/* Grows an array of *cap elements of size `size` so it holds at least `need`. */
void *fx_xgrow(void *p, size_t *cap, size_t need, size_t size);
char *fx_xstrdup(const char *s);
char *fx_xstrndup(const char *s, size_t n);
/* printf into a fresh string the caller frees. */
char *fx_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *fx_xvasprintf(const char *fmt, va_list ap);
/* The policy above, for allocations made elsewhere (open_memstream). */
_Noreturn void fx_xalloc_failed(void);

/* Checked arithmetic on counts from a spec: the exact result, or INT64_MAX
 * (INT64_MIN) where it would overflow, so a sum or product of huge but
 * legal values is refused by a later range check instead of wrapping. */
static inline int64_t fx_add_sat(int64_t a, int64_t b)
{
	int64_t r;
	return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}

static inline int64_t fx_mul_sat(int64_t a, int64_t b)
{
	int64_t r;
	return __builtin_mul_overflow(a, b, &r) ? ((a < 0) != (b < 0) ? INT64_MIN : INT64_MAX) : r;
}

#endif
