/*
 * crc32.h - zip's CRC-32 (reflected polynomial 0xedb88320, inverted
 * start and end), the checksum of every .npz member written.
 */
#ifndef MK_CRC32_H
#define MK_CRC32_H

#include <stddef.h>
#include <stdint.h>

/*
 * The CRC of n bytes at p continuing crc (0 to start): mk_crc32(mk_crc32(
 * 0, a, n), b, m) is the CRC of a followed by b.  Runs the kernel path's
 * row (mk_kern()->crc32).
 */
uint32_t	mk_crc32(uint32_t crc, const void *p, size_t n);

/* The rows: eight table lookups a word; carry-less multiplication. */
uint32_t	mk_crc32_generic(uint32_t crc, const void *p, size_t n);
uint32_t	mk_crc32_avx2(uint32_t crc, const void *p, size_t n);

#endif
