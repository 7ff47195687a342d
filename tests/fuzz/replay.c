/*
 * replay - feed files to every fuzz target (the regression driver of make
 * check).  Operands are files or directories (read recursively, in name
 * order).  A target that trips an invariant aborts, and so fails the run.
 */
#include <dirent.h>
#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int	fuzz_npy_LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int	fuzz_csv_LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int	fuzz_loads_LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int	fuzz_pt_LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int	fuzz_plan_LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int	fuzz_trace_LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int	fuzz_npz_LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int	fuzz_phy2log_LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int	fuzz_mdec_LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int	fuzz_trtllm_LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int nfiles;

static void
replay_file(const char *path)
{
	unsigned char *buf;
	long n;
	FILE *fp;

	if ((fp = fopen(path, "rb")) == NULL)
		err(1, "%s", path);
	if (fseek(fp, 0, SEEK_END) != 0 || (n = ftell(fp)) < 0 ||
	    fseek(fp, 0, SEEK_SET) != 0)
		err(1, "%s", path);
	if ((buf = malloc((size_t)n + 1)) == NULL)
		err(1, NULL);
	if (fread(buf, 1, (size_t)n, fp) != (size_t)n)
		err(1, "%s", path);
	fclose(fp);
	fuzz_npy_LLVMFuzzerTestOneInput(buf, (size_t)n);
	fuzz_csv_LLVMFuzzerTestOneInput(buf, (size_t)n);
	fuzz_loads_LLVMFuzzerTestOneInput(buf, (size_t)n);
	fuzz_pt_LLVMFuzzerTestOneInput(buf, (size_t)n);
	fuzz_plan_LLVMFuzzerTestOneInput(buf, (size_t)n);
	fuzz_trace_LLVMFuzzerTestOneInput(buf, (size_t)n);
	fuzz_npz_LLVMFuzzerTestOneInput(buf, (size_t)n);
	fuzz_phy2log_LLVMFuzzerTestOneInput(buf, (size_t)n);
	fuzz_mdec_LLVMFuzzerTestOneInput(buf, (size_t)n);
	fuzz_trtllm_LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	nfiles++;
}

static int
byname(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void
replay(const char *path)
{
	struct dirent **ents;
	struct stat st;
	char sub[4096];
	int n, i;

	if (stat(path, &st) < 0)
		err(1, "%s", path);
	if (!S_ISDIR(st.st_mode)) {
		replay_file(path);
		return;
	}
	if ((n = scandir(path, &ents, NULL, byname)) < 0)
		err(1, "%s", path);
	for (i = 0; i < n; i++) {
		if (ents[i]->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", path,
			    ents[i]->d_name);
			replay(sub);
		}
		free(ents[i]);
	}
	free(ents);
}

int
main(int argc, char *argv[])
{
	int i;

	for (i = 1; i < argc; i++)
		replay(argv[i]);
	printf("replay: %d files through fuzz_npy, fuzz_csv, fuzz_loads, "
	    "fuzz_pt, fuzz_plan, fuzz_trace, fuzz_npz, fuzz_phy2log, "
	    "fuzz_mdec and fuzz_trtllm, no failure\n", nfiles);
	return 0;
}
