/* util.h - helpers shared by the unit test suites. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <CUnit/CUnit.h>

#include "moekit.h"

/* Deterministic xorshift64* generator; each test seeds its own. */
struct rng {
	uint64_t	s;
};

static inline uint64_t
rng_next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1DULL;
}

/*
 * The seed of a test's fresh random inputs: MOEKIT_TEST_SEED when set
 * (to replay a failure), else the clock.  Printed by main() at the end
 * of a failing run.
 */
uint64_t	test_seed(void);

/* Uniform in [0, 1). */
static inline double
rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * Read every tensor of the n bytes at p (NUL-terminated text is fine) into
 * t[0..max), through a memory source with the given drip.  Returns the
 * count, or -1 with e filled.
 */
int	read_all(const void *p, size_t n, size_t drip, struct mk_tensor *t,
	    int max, struct mk_err *e);

/* Same for a C string. */
int	read_str(const char *s, struct mk_tensor *t, int max, struct mk_err *e);

/* Read a string that must fail; returns the error message (static). */
const char	*read_fail(const char *s, size_t n);

/* Write t with the NPY or CSV writer into a malloc'd buffer. */
char	*write_mem(const struct mk_tensor *t, int csv, size_t *len);

/* Suites. */
void	suite_tensor(void);
void	suite_npy(void);
void	suite_csv(void);
void	suite_stream(void);
void	suite_kern(void);
void	suite_eplb(void);
void	suite_eplb_xfer(void);
void	suite_loads(void);
void	suite_a2a(void);
void	suite_a2a_capacity(void);
void	suite_a2a_scan(void);
void	suite_a2a_job(void);
void	suite_mdec(void);
void	suite_replay(void);

/* Tests of one suite kept in a file of their own. */
void	test_mdec_populate(void);

#endif
