#define _DEFAULT_SOURCE  /* madvise, MADV_HUGEPAGE */
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Large arrays (a WSE-2's 3 M links, 754k vertices: tens of MiB each) are
 * asked to be backed by 2 MiB pages where the kernel allows it
 * (transparent_hugepage=madvise): glibc maps each such block afresh, and
 * first touching it 4 KiB at a time was a third of `explore wse2`'s time
 * (184k page faults, 10x fewer this way).  Only a hint: contents, sizes
 * and results are unchanged, and nothing happens where it is not
 * supported. */
#define HUGE_BYTES ((size_t)8 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)

static void *huge_hint(void *p, size_t n)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
	if (n >= HUGE_BYTES) {
		uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
		uintptr_t b = ((uintptr_t)p + n) & ~(HUGE_PAGE - 1);
		if (b > a)
			(void)madvise((void *)a, b - a, MADV_HUGEPAGE);
	}
#else
	(void)n;
#endif
	return p;
}

static void die_oom(size_t n)
{
	fprintf(stderr, "fabricx: fatal: out of memory allocating %zu bytes\n", n);
	exit(1);
}

void *fx_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_oom(n);
	return huge_hint(p, n);
}

void *fx_xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		die_oom(count * size);
	return huge_hint(p, count * size);
}

void *fx_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die_oom(n);
	return huge_hint(q, n);
}

void *fx_xgrow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : 8;
	while (c < need)
		c *= 2;
	*cap = c;
	return fx_xrealloc(p, c * size);
}

char *fx_xstrdup(const char *s)
{
	return fx_xstrndup(s, strlen(s));
}

char *fx_xstrndup(const char *s, size_t n)
{
	char *p = fx_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *fx_xvasprintf(const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	char *s = fx_xmalloc((size_t)n + 1);
	vsnprintf(s, (size_t)n + 1, fmt, again);
	va_end(again);
	return s;
}

char *fx_xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = fx_xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

_Noreturn void fx_xalloc_failed(void)
{
	fputs("fabricx: fatal: out of memory\n", stderr);
	exit(1);
}
