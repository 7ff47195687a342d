/*
 * main.c - the unit test runner.  Exit status 1 if any test failed
 * (CU_basic_run_tests only reports framework errors).  Kernel suites for
 * ISAs this CPU lacks are inactive and reported as skipped, not passed.
 */
#include <stdio.h>
#include <stdlib.h>

#include <CUnit/Basic.h>

#include "util.h"

int
main(void)
{
	struct mk_err e;
	unsigned fails;

	if (mk_kern_init(&e) < 0) {
		fprintf(stderr, "test-unit: %s\n", e.msg);
		return 2;
	}
	printf("test-unit: selected kernel path %s (cpu best: %s)\n",
	    mk_isa_name(mk_kern_isa()), mk_isa_name(mk_isa_best()));
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	/* Skipped suites must not count as failures. */
	CU_set_fail_on_inactive(CU_FALSE);
	suite_tensor();
	suite_npy();
	suite_csv();
	suite_stream();
	suite_kern();
	suite_eplb();
	suite_eplb_xfer();
	suite_loads();
	suite_replay();
	/* the kernel first: the layout trusts its counts */
	suite_a2a_scan();
	suite_a2a();
	suite_a2a_capacity();
	suite_a2a_job();
	suite_mdec();
	CU_basic_set_mode(CU_BRM_NORMAL);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
	if (fails != 0)
		fprintf(stderr, "random inputs of this run: MOEKIT_TEST_SEED=%llu "
		    "replays them\n", (unsigned long long)test_seed());
	CU_cleanup_registry();
	return fails != 0;
}
