/*
 * fx_sort_r: a sort whose comparison takes a context pointer, so callers
 * sort indexes by the values of their own arrays without a file-level
 * global (qsort_r is not in C11 or POSIX).
 */
#ifndef FX_SORT_H
#define FX_SORT_H

#include <stddef.h>

typedef int (*fx_sort_cmp)(const void *a, const void *b, void *ctx);

/* Sorts n elements of `size` bytes at base by cmp, stably (equal elements
 * keep their order, as glibc's qsort, a merge sort, kept them).  Dies on
 * out-of-memory, like fx_xmalloc.  Time complexity: O(n log n)
 * comparisons, O(n size) extra memory. */
void fx_sort_r(void *base, size_t n, size_t size, fx_sort_cmp cmp, void *ctx);

#endif
