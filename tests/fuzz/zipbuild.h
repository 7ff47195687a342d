/*
 * zipbuild.h - a stored zip archive built around fuzzed bytes, with right
 * CRCs, so that the fuzzer's changes reach what the members hold rather
 * than libzip's checks (fuzz_pt, fuzz_npz).  Include after defining
 * MAXENT, the most entries an archive has.
 */
#ifndef ZIPBUILD_H
#define ZIPBUILD_H

#include <stdint.h>
#include <string.h>


struct ent {
	char		 name[32];
	const uint8_t	*p;
	size_t		 n;
};

static uint32_t
crc32(const uint8_t *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	int k;

	while (n--) {
		c ^= *p++;
		for (k = 0; k < 8; k++)
			c = c >> 1 ^ (0xedb88320u & (0u - (c & 1)));
	}
	return ~c;
}

static void
put(uint8_t **o, uint64_t v, int bytes)
{
	while (bytes--) {
		*(*o)++ = (uint8_t)v;
		v >>= 8;
	}
}

/* A stored zip of the entries, in buf (room for everything + 200/entry). */
static size_t
zip(const struct ent *e, int n, uint8_t *buf)
{
	uint32_t off[MAXENT], crc[MAXENT];
	uint8_t *o = buf, *cd;
	size_t nl;
	int i;

	for (i = 0; i < n; i++) {
		nl = strlen(e[i].name);
		off[i] = (uint32_t)(o - buf);
		crc[i] = crc32(e[i].p, e[i].n);
		put(&o, 0x04034b50, 4); put(&o, 20, 2); put(&o, 0, 2);
		put(&o, 0, 2); put(&o, 0, 4); put(&o, crc[i], 4);
		put(&o, e[i].n, 4); put(&o, e[i].n, 4); put(&o, nl, 2);
		put(&o, 0, 2);
		memcpy(o, e[i].name, nl);
		o += nl;
		memcpy(o, e[i].p, e[i].n);
		o += e[i].n;
	}
	cd = o;
	for (i = 0; i < n; i++) {
		nl = strlen(e[i].name);
		put(&o, 0x02014b50, 4); put(&o, 20, 2); put(&o, 20, 2);
		put(&o, 0, 2); put(&o, 0, 2); put(&o, 0, 4); put(&o, crc[i], 4);
		put(&o, e[i].n, 4); put(&o, e[i].n, 4); put(&o, nl, 2);
		put(&o, 0, 2); put(&o, 0, 2); put(&o, 0, 2); put(&o, 0, 2);
		put(&o, 0, 4); put(&o, off[i], 4);
		memcpy(o, e[i].name, nl);
		o += nl;
	}
	put(&o, 0x06054b50, 4); put(&o, 0, 2); put(&o, 0, 2);
	put(&o, (uint64_t)n, 2); put(&o, (uint64_t)n, 2);
	put(&o, (uint64_t)(o - cd - 12), 4); put(&o, (uint64_t)(cd - buf), 4);
	put(&o, 0, 2);
	return (size_t)(o - buf);
}

/* The next u16-prefixed piece of the input. */
static size_t
piece(const uint8_t **d, size_t *left, const uint8_t **p)
{
	size_t n;

	*p = *d;
	if (*left < 2)
		return *left = 0;
	n = (size_t)(*d)[0] | (size_t)(*d)[1] << 8;
	*d += 2;
	*left -= 2;
	n = n < *left ? n : *left;
	*p = *d;
	*d += n;
	*left -= n;
	return n;
}

#endif
