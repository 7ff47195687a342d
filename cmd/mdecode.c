/*
 * mdecode - masked flash-decoding attention on CPUs: read q, k, v and a
 * mask, write lse and out (mdecode(1)); or, with --bench, time every kernel
 * path on a grouped-query decode shape (32 q heads, 8 kv heads, 128
 * dims) against the machine's read bandwidth.
 */
#include "moekit.h"
#include "cli/opt.h"
#include "mdec/mdec_run.h"

#define O(x)	[MK_MDECODE_O_##x]

static struct mk_opt opts[MK_MDECODE_NOPT] = {
	O(Q) = { MK_OPT_PATH, "q", "query", "FILE", "q [B,QH,Q,D] (Q <= 16) "
	    "alone in FILE", NULL },
	O(K) = { MK_OPT_PATH, "k", "keys", "FILE", "k: a KV cache [B,KH,M,D], "
	    "[B,M,KH,D], paged [blocks,bs,KH,D] or flat", NULL },
	O(V) = { MK_OPT_PATH, "v", "values", "FILE", "v, shaped as k", NULL },
	O(M) = { MK_OPT_PATH, "m", "mask", "FILE", "mask [B,KH,M] or flat, "
	    "bool/u8, true = masked out", NULL },
	O(LAYOUT) = { MK_OPT_VALUE, NULL, "kv-layout", "bhmd|bmhd|paged", "how "
	    "a 4-D cache is laid out (default: from the shapes; bench: a "
	    "list, default bhmd)", NULL },
	O(TABLE) = { MK_OPT_PATH, NULL, "block-table", "FILE", "paged cache: "
	    "block ids [B,blocks per sequence], integers", NULL },
	O(LENS) = { MK_OPT_PATH, NULL, "seq-lens", "FILE", "paged cache: the "
	    "sequences' lengths [B] (default --valid-length or all)", NULL },
	O(KVH) = { MK_OPT_VALUE, NULL, "kv-heads", "KH", "kv heads (flat k/v; "
	    "bench default 8)", NULL },
	O(VALID) = { MK_OPT_VALUE, NULL, "valid-length", "V", "positions per "
	    "row that take part (default all; bench max/2)", NULL },
	O(SCALE) = { MK_OPT_VALUE, NULL, "scale", "S", "score scale (default "
	    "D^-0.5; required with --v-dim)", NULL },
	O(DTYPE) = { MK_OPT_VALUE, NULL, "dtype",
	    "f16|bf16|f32|fp8_e4m3|fp8_e5m2", "k/v dtype (bf16: u16 inputs "
	    "hold bf16 bits; fp8: u8 inputs hold FP8 bytes; bench: a list, "
	    "default f16)", NULL },
	O(KSCALE) = { MK_OPT_VALUE, NULL, "k-scale", "S", "fp8: k's "
	    "per-tensor scale, real = fp8 x S (default 1)", NULL },
	O(VSCALE) = { MK_OPT_VALUE, NULL, "v-scale", "S", "fp8: v's "
	    "per-tensor scale (default 1)", NULL },
	O(VDIM) = { MK_OPT_VALUE, NULL, "v-dim", "DV", "MLA: no v; V is the "
	    "first DV elements of each K row (DeepSeek: 512 of 576)", NULL },
	O(ODT) = { MK_OPT_VALUE, NULL, "out-dtype", "f16|bf16|f32", "dtype of "
	    "out (default q's)", NULL },
	O(THREADS) = { MK_OPT_VALUE, NULL, "threads", "N", "threads (default: "
	    "all usable CPUs; bench: a list)", NULL },
	O(BENCH) = { MK_OPT_FLAG, NULL, "bench", NULL, "time every kernel path "
	    "on the Triton kernel's shapes against the read bandwidth and "
	    "against reading only the rows it uses", NULL },
	O(PLOT) = { MK_OPT_PATH, NULL, "plot", "FILE.svg", "--bench: a picture "
	    "of each path's GB/s beside the read probe", NULL },
	O(BKERN) = { MK_OPT_FLAG, NULL, "bench-kernel", NULL, "time every "
	    "kernel path on one row in cache (ns per position and kv head)",
	    NULL },
	O(BSZ) = { MK_OPT_VALUE, NULL, "bsz", "LIST", "bench batch sizes "
	    "(default 1,2,4,8)", NULL },
	O(QH) = { MK_OPT_VALUE, NULL, "q-heads", "N", "bench q heads (default "
	    "32)", NULL },
	O(MAXLEN) = { MK_OPT_VALUE, NULL, "max-length", "M", "bench cache "
	    "length (default 131072)", NULL },
	O(DIM) = { MK_OPT_VALUE, NULL, "dim", "D", "bench head size (default "
	    "128)", NULL },
	O(DENS) = { MK_OPT_VALUE, NULL, "mask-density", "LIST", "bench shares "
	    "of masked positions (default 0,0.5)", NULL },
	O(BSIZE) = { MK_OPT_VALUE, NULL, "block-size", "N", "bench paged "
	    "cache's positions per block (default 16)", NULL },
	O(ISA) = { MK_OPT_VALUE, NULL, "isa", "LIST", "bench kernel paths "
	    "(default: all this CPU has)", NULL },
	O(REPS) = { MK_OPT_VALUE, NULL, "reps", "N", "bench rounds per row, "
	    "median (default 11)", NULL },
	O(SEED) = { MK_OPT_VALUE, NULL, "seed", "N", "bench random seed "
	    "(default 0)", NULL },
	O(QTOK) = { MK_OPT_VALUE, NULL, "q-tokens", "LIST", "bench query "
	    "tokens a sequence, 1 to 16 (default 1)", NULL },
	O(FILE) = { MK_OPT_OPERAND, NULL, NULL, "FILE", "tensor stream q, k, "
	    "v[, mask] (default: stdin)", NULL },
};

static const struct mk_usage usage = {
	"[-q FILE -k FILE -v FILE [-m FILE]] [--kv-layout bhmd|bmhd|paged] "
	    "[--block-table FILE [--seq-lens FILE]] [--kv-heads KH] "
	    "[--valid-length V] [--scale S] "
	    "[--dtype f16|bf16|f32|fp8_e4m3|fp8_e5m2 [--k-scale S] [--v-scale S]] "
	    "[--v-dim DV] "
	    "[--out-dtype f16|bf16|f32] [-f csv|npy|npz] [--emit LIST] [-o FILE] "
	    "[--threads N] [--verbose] [--quiet] [-hV] [FILE]\n"
	    "       mdecode --bench [--plot FILE.svg]|--bench-kernel [--bsz LIST] "
	    "[--q-heads N] "
	    "[--kv-heads N] [--max-length M] [--valid-length V] [--dim D] "
	    "[--dtype LIST] [--v-dim DV] [--q-tokens LIST] [--mask-density LIST] "
	    "[--kv-layout LIST] "
	    "[--block-size N] [--isa LIST] [--threads LIST] "
	    "[--reps N] [--seed N] [-o FILE]",
	"Masked flash-decoding attention (up to 16 query tokens) on the CPU.",
	"FILE: the tensor stream q, k, v[, mask] (none or -: stdin); or -q, -k,\n"
	    "-v, -m with one tensor each.  Outputs: lse [B,QH,Q] f32, out "
	    "[B,QH,Q,D].\n"
	    "MOEKIT_PAGED_L2=0|1: a paged cache's next pages into L2 or left "
	    "to the CPU\n(default: into L2 on AMD CPUs only).\n",
};

int
main(int argc, char *argv[])
{
	struct mk_mdecode_job j;
	struct mk_opts c;

	mk_init(argc, argv);
	mk_opts_parse(argc, argv, opts, MK_MDECODE_NOPT, MK_OPT_FORMAT |
	    MK_OPT_EMIT | MK_OPT_OUTPUT | MK_OPT_NO_SHORT_V, &usage, &c);
	mk_mdecode_job(opts, &c, &j);
	return mk_mdecode_run(&j);
}
