/* A stable merge sort with a context pointer (see sort.h). */
#include "sort.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* Sorts a[0..n) using tmp (room for n elements) as scratch. */
static void merge_sort(char *a, char *tmp, size_t n, size_t size, fx_sort_cmp cmp, void *ctx)
{
	if (n < 2)
		return;
	size_t h = n / 2;
	merge_sort(a, tmp, h, size, cmp, ctx);
	merge_sort(a + h * size, tmp, n - h, size, cmp, ctx);
	/* already in order: the common case for nearly sorted input */
	if (cmp(a + (h - 1) * size, a + h * size, ctx) <= 0)
		return;
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n) {
		/* <= keeps the left run's element first among equals: stable */
		if (cmp(a + i * size, a + j * size, ctx) <= 0)
			memcpy(tmp + k++ * size, a + i++ * size, size);
		else
			memcpy(tmp + k++ * size, a + j++ * size, size);
	}
	memcpy(tmp + k * size, a + i * size, (h - i) * size);
	k += h - i;
	/* what is left of the right run is already in place */
	memcpy(a, tmp, k * size);
}

void fx_sort_r(void *base, size_t n, size_t size, fx_sort_cmp cmp, void *ctx)
{
	if (n < 2 || size == 0)
		return;
	char *tmp = fx_xmalloc(n * size);
	merge_sort(base, tmp, n, size, cmp, ctx);
	free(tmp);
}
