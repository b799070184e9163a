/*
 * sha256: the SHA-256 digest (FIPS 180-4), so a report can name the exact
 * spec it was made from.  Small and dependency-free: one use does not
 * justify a crypto library.
 */
#ifndef FX_SHA256_H
#define FX_SHA256_H

#include <stddef.h>

/* Writes the digest of data[0..n) as 64 lowercase hex digits and a NUL. */
void fx_sha256_hex(const void *data, size_t n, char out[65]);
/* The same for a file's bytes; -1 with errno when it cannot be read. */
int fx_sha256_file(const char *path, char out[65]);

#endif
