/* crc32.c - zip's CRC-32, the table row and the dispatch; see crc32.h. */
#include <pthread.h>

#include "simd/kern.h"
#include "simd/crc32.h"

/*
 * Slicing by 8: table k holds the CRC of a byte followed by k zero
 * bytes, so eight lookups consume a word.  The path for CPUs without
 * carry-less multiplication, and for the few bytes around its blocks.
 */
static uint32_t crc_table[8][256];

static void
crc_init(void)
{
	uint32_t c;
	int i, k;

	for (i = 0; i < 256; i++) {
		c = (uint32_t)i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[0][i] = c;
	}
	for (i = 0; i < 256; i++)
		for (k = 1; k < 8; k++)
			crc_table[k][i] = crc_table[0][crc_table[k - 1][i] &
			    0xff] ^ (crc_table[k - 1][i] >> 8);
}

/* Little-endian 32 bits at p, any alignment. */
static uint32_t
le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

uint32_t
mk_crc32_generic(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *b = p;
	uint32_t lo, hi;

	static pthread_once_t once = PTHREAD_ONCE_INIT;

	/* once, whichever thread comes first: writers run side by side */
	(void)pthread_once(&once, crc_init);
	crc = ~crc;
	for (; n >= 8; n -= 8, b += 8) {
		lo = le32(b) ^ crc;
		hi = le32(b + 4);
		crc = crc_table[7][lo & 0xff] ^ crc_table[6][lo >> 8 & 0xff] ^
		    crc_table[5][lo >> 16 & 0xff] ^ crc_table[4][lo >> 24] ^
		    crc_table[3][hi & 0xff] ^ crc_table[2][hi >> 8 & 0xff] ^
		    crc_table[1][hi >> 16 & 0xff] ^ crc_table[0][hi >> 24];
	}
	while (n--)
		crc = crc_table[0][(crc ^ *b++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

uint32_t
mk_crc32(uint32_t crc, const void *p, size_t n)
{
	return mk_kern()->crc32(crc, p, n);
}
