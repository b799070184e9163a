#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	return p;
}

void *fx_xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		die_oom(count * size);
	return p;
}

void *fx_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die_oom(n);
	return q;
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
