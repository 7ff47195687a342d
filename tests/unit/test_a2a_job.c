/*
 * test_a2a_job.c - a2a-layout's pass over a trace as a library call: a
 * file laid out in batches (read in place), by pread, and from a pipe
 * gives every step exactly what mk_a2a_layout gives it alone; a plan
 * routes logical ids as mk_moe_phys_map does; the tally is the worst step;
 * a trace without steps is empty; the report prints DeepEP's numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "a2a/a2a_job.h"
#include "a2a/a2a_outputs.h"
#include "moe/phys.h"
#include "base/threads.h"
#include "util.h"

#define NS	40	/* more than the 32 steps that batches need */
#define NR	8
#define NT	50
#define NK	4
#define NE	32

/* A random stepped trace [NS, NR, NT, NK] i64 with drops, as NPY bytes. */
static char *
random_trace(uint64_t seed, int steps, size_t *len)
{
	struct mk_tensor t;
	struct mk_err e;
	struct rng rg = { seed };
	int64_t shape[4] = { steps, NR, NT, NK }, *ids;
	size_t i;
	char *buf;

	mk_tensor_init(&t);
	CU_ASSERT_FATAL(mk_tensor_alloc(&t, MK_I64, 4, shape, &e) == 0);
	ids = t.data;
	for (i = 0; i < t.nelem; i++)
		ids[i] = rng_next(&rg) % 9 == 0 ? -1 :
		    (int64_t)(rng_next(&rg) % (rng_next(&rg) % 3 ? NE : 5));
	buf = write_mem(&t, 0, len);
	mk_tensor_free(&t);
	return buf;
}

/* buf[0..n) in a temporary file; returns its path (static). */
static const char *
temp_file(const char *buf, size_t n)
{
	static char path[64];
	FILE *fp;
	int fd;

	snprintf(path, sizeof(path), "/tmp/test-a2a-job.XXXXXX");
	CU_ASSERT_FATAL((fd = mkstemp(path)) >= 0);
	CU_ASSERT_FATAL((fp = fdopen(fd, "w")) != NULL);
	CU_ASSERT_FATAL(fwrite(buf, 1, n, fp) == n);
	fclose(fp);
	return path;
}

static struct mk_a2a_job_opts
job_opts(struct mk_a2a_sizing *sz)
{
	struct mk_a2a_job_opts o;

	memset(&o, 0, sizeof(o));
	memset(sz, 0, sizeof(*sz));
	sz->num_sms = 6;
	sz->hidden = 7168;
	sz->hidden_bytes = 7168 * 2;
	o.cfg.E = NE;
	o.cfg.C = 3;
	o.cfg.align = 1;
	o.rank = o.step = -1;
	o.sizing = sz;
	return o;
}

/*
 * Every group output of every step, concatenated, as the job hands them
 * out on source s; how steps are read comes from MOEKIT_A2A_READ (read).
 */
static char *
run_job(struct mk_src *s, const char *read, const struct mk_a2a_job_opts *o,
    size_t *len, struct mk_a2a_tally *tally)
{
	struct mk_a2a_output out[MK_A2A_MAX_OUTPUTS];
	struct mk_a2a_view v;
	struct mk_a2a_job *j;
	struct mk_err e;
	char *buf = NULL;
	FILE *fp;
	int n, i, r, steps = 0;

	if (read != NULL)
		setenv("MOEKIT_A2A_READ", read, 1);
	j = mk_a2a_job_open(o, s, &e);
	unsetenv("MOEKIT_A2A_READ");
	CU_ASSERT_FATAL(j != NULL);
	n = mk_a2a_outputs(mk_a2a_job_cfg(j), NULL, out);
	CU_ASSERT_FATAL((fp = open_memstream(&buf, len)) != NULL);
	while ((r = mk_a2a_job_next(j, &v, &e)) > 0) {
		CU_ASSERT_EQUAL(v.step, steps);
		steps++;
		for (i = 0; i < n; i++)
			fwrite(mk_a2a_output_data(&out[i], v.g, v.pr, v.rows),
			    mk_dtype_size(out[i].dtype),
			    mk_a2a_output_nelem(&out[i]), fp);
	}
	CU_ASSERT_EQUAL(r, 0);
	CU_ASSERT_EQUAL(steps, mk_a2a_job_shape(j).S);
	*tally = *mk_a2a_job_tally(j);
	mk_a2a_job_close(j);
	fclose(fp);
	return buf;
}

/*
 * The same by hand: each step alone through mk_a2a_layout (the plan's
 * mapping first when m is given), and the tally computed here.
 */
static char *
by_hand(const char *npy, size_t nbytes, const struct mk_moe_phys *m,
    size_t *len, struct mk_a2a_tally *tally)
{
	struct mk_a2a_cfg c = {
	    .R = NR, .E = m ? m->P : NE, .K = NK, .C = 3,
	    .style = MK_A2A_DEEPEP, .align = 1, .threads = 1 };
	struct mk_a2a_output out[MK_A2A_MAX_OUTPUTS];
	struct mk_tensor t[1];
	struct mk_moe_step st, ph;
	struct mk_a2a_group g;
	struct mk_err e;
	int32_t *bufs[NR];
	int64_t rows[NR] = { 0 }, most;
	char *buf = NULL;
	FILE *fp;
	int k, r, i, n;

	CU_ASSERT_FATAL(read_all(npy, nbytes, 0, t, 1, &e) == 1);
	CU_ASSERT_FATAL(mk_a2a_config(&c, &e) == 0);
	CU_ASSERT_FATAL(mk_a2a_group_alloc(&g, &c) == 0);
	n = mk_a2a_outputs(&c, NULL, out);
	memset(tally, 0, sizeof(*tally));
	for (r = 0; r < NR; r++)
		bufs[r] = malloc(sizeof(int32_t) * NT * NK);
	CU_ASSERT_FATAL((fp = open_memstream(&buf, len)) != NULL);
	for (k = 0; k < (int)t[0].shape[0]; k++) {
		memset(&st, 0, sizeof(st));
		st.R = NR;
		st.K = NK;
		st.elem = 8;
		for (r = 0; r < NR; r++) {
			st.T[r] = NT;
			st.ids[r] = (const int64_t *)t[0].data + ((size_t)k * NR +
			    (size_t)r) * NT * NK;
		}
		if (m != NULL)
			CU_ASSERT_FATAL(mk_moe_phys_map(m, &st, &ph, bufs, 0,
			    "", &e) == 0);
		CU_ASSERT_FATAL(mk_a2a_layout(&c, m ? &ph : &st, &g, "", &e) ==
		    0);
		for (r = 0, most = 0; r < NR; r++)
			most = g.recv_rows[r] > most ? g.recv_rows[r] : most;
		rows[0] = mk_a2a_triton_rows(rows[0], NT, NK, most);
		for (r = 1; r < NR; r++)
			rows[r] = rows[0];
		mk_a2a_tally_step(tally, &c, &g, k, rows[0]);
		for (i = 0; i < n; i++)
			fwrite(mk_a2a_output_data(&out[i], &g, NULL, rows),
			    mk_dtype_size(out[i].dtype),
			    mk_a2a_output_nelem(&out[i]), fp);
	}
	fclose(fp);
	for (r = 0; r < NR; r++)
		free(bufs[r]);
	mk_a2a_group_free(&g);
	mk_tensor_free(&t[0]);
	return buf;
}

static int
same_tally(const struct mk_a2a_tally *a, const struct mk_a2a_tally *b)
{
	return a->steps == b->steps && a->max_recv == b->max_recv &&
	    a->max_rank == b->max_rank && a->max_step == b->max_step &&
	    a->sum_recv == b->sum_recv && a->max_rows == b->max_rows &&
	    a->rows == b->rows;
}

/* In place (batches), by pread, from a pipe: all equal each step alone. */
static void
test_batches(void)
{
	static const char *const how[] = { "map", "pread", NULL };
	struct mk_a2a_sizing sz;
	struct mk_a2a_job_opts o = job_opts(&sz);
	struct mk_a2a_tally want, got;
	struct mk_src *s;
	struct mk_err e;
	size_t n, wn, gn;
	char *npy = random_trace(test_seed(), NS, &n), *w, *g;
	const char *path = temp_file(npy, n);
	int i, threads;

	w = by_hand(npy, n, NULL, &wn, &want);
	CU_ASSERT(want.max_recv > 0 && want.steps == NS);
	for (threads = 1; threads <= 3; threads += 2) {
		mk_threads_set(threads);
		for (i = 0; i < 3; i++) {
			s = how[i] ? mk_src_open(path, &e) :
			    mk_src_mem(npy, n, "pipe", 1000);
			CU_ASSERT_FATAL(s != NULL);
			g = run_job(s, how[i], &o, &gn, &got);
			CU_ASSERT_EQUAL(gn, wn);
			CU_ASSERT(gn == wn && memcmp(g, w, wn) == 0);
			CU_ASSERT(same_tally(&got, &want));
			free(g);
			mk_src_close(s);
		}
	}
	mk_threads_set(0);
	unlink(path);
	free(w);
	free(npy);
}

/* A plan routes the trace's logical ids as mk_moe_phys_map does. */
static void
test_plan(void)
{
	struct mk_a2a_sizing sz;
	struct mk_a2a_job_opts o = job_opts(&sz);
	struct mk_a2a_tally want, got;
	struct mk_moe_phys m;
	struct mk_src *s;
	struct mk_err e;
	int64_t plan[NE + 8];
	size_t n, wn, gn;
	char *npy = random_trace(77, 3, &n), *w, *g;
	int p;

	/* 40 slots: experts 0..31, then 8 more replicas of the first 5 */
	for (p = 0; p < NE + 8; p++)
		plan[p] = p < NE ? (p * 7) % NE : p % 5;
	CU_ASSERT_FATAL(mk_moe_phys_init(&m, plan, NE + 8, NE, "plan", &e) == 0);
	o.cfg.E = 0;
	o.plan = plan;
	o.plan_slots = NE + 8;
	o.plan_experts = NE;
	o.plan_name = "plan";
	w = by_hand(npy, n, &m, &wn, &want);
	CU_ASSERT_FATAL((s = mk_src_mem(npy, n, "mem", 0)) != NULL);
	g = run_job(s, NULL, &o, &gn, &got);
	CU_ASSERT(gn == wn && memcmp(g, w, wn) == 0);
	CU_ASSERT(same_tally(&got, &want));
	mk_src_close(s);
	free(g);
	/* from a pipe, on 3 threads */
	mk_threads_set(3);
	CU_ASSERT_FATAL((s = mk_src_mem(npy, n, "pipe", 777)) != NULL);
	g = run_job(s, NULL, &o, &gn, &got);
	CU_ASSERT(gn == wn && memcmp(g, w, wn) == 0);
	CU_ASSERT(same_tally(&got, &want));
	mk_src_close(s);
	mk_threads_set(0);
	mk_moe_phys_free(&m);
	free(w);
	free(g);
	free(npy);
}

/*
 * A pipe that ends inside step 2 (on 1 or 3 threads, in pieces of 1 to
 * 5000 bytes): steps 0 and 1 come out, then one message, the same every
 * way.
 */
static void
test_pipe_cut(void)
{
	const size_t step = (size_t)NR * NT * NK * 8;
	struct mk_a2a_sizing sz;
	struct mk_a2a_job_opts o = job_opts(&sz);
	struct mk_a2a_view v;
	struct mk_a2a_job *j;
	struct mk_src *s;
	struct mk_err e;
	size_t n, drip[] = { 1, 64, 5000 };
	char *npy = random_trace(9, 4, &n), want[200];
	int threads, d, k, r;

	n = n - 4 * step + 2 * step + 1000;
	snprintf(want, sizeof(want), "pipe: step 2: data ends after 1000 of "
	    "%zu bytes", step);
	for (threads = 1; threads <= 3; threads += 2)
		for (d = 0; d < 3; d++) {
			mk_threads_set(threads);
			s = mk_src_mem(npy, n, "pipe", drip[d]);
			CU_ASSERT_FATAL(s != NULL);
			j = mk_a2a_job_open(&o, s, &e);
			CU_ASSERT_FATAL(j != NULL);
			for (k = 0; (r = mk_a2a_job_next(j, &v, &e)) > 0; k++)
				continue;
			CU_ASSERT_EQUAL(k, 2);
			CU_ASSERT_EQUAL(r, -1);
			CU_ASSERT_STRING_EQUAL(e.msg, want);
			mk_a2a_job_close(j);
			mk_src_close(s);
		}
	mk_threads_set(0);
	free(npy);
}

/* [0, NR, NT, NK]: no step, an empty tally; --step is refused. */
static void
test_no_steps(void)
{
	struct mk_a2a_sizing sz;
	struct mk_a2a_job_opts o = job_opts(&sz);
	struct mk_a2a_tally got;
	struct mk_src *s;
	struct mk_err e;
	size_t n, gn;
	char *npy = random_trace(5, 0, &n), *g;

	CU_ASSERT_FATAL((s = mk_src_mem(npy, n, "mem", 0)) != NULL);
	g = run_job(s, NULL, &o, &gn, &got);
	CU_ASSERT_EQUAL(gn, 0);
	CU_ASSERT_EQUAL(got.steps, 0);
	CU_ASSERT_EQUAL(got.max_recv, 0);
	mk_src_close(s);
	free(g);
	o.rank = 0;
	o.step = 0;
	CU_ASSERT_FATAL((s = mk_src_mem(npy, n, "mem", 0)) != NULL);
	CU_ASSERT_PTR_NULL(mk_a2a_job_open(&o, s, &e));
	CU_ASSERT_STRING_EQUAL(e.msg, "--step 0: the trace has 0 steps");
	CU_ASSERT_EQUAL(e.status, MK_EXIT_USAGE);
	mk_src_close(s);
	free(npy);
}

/* The report: the values real DeepEP prints, and the rows in order. */
static void
test_report(void)
{
	struct mk_a2a_sizing sz = { 7168, 7168, 0, 24, 0, 1,
	    { 24, 8, 512, 16, 128, 8 }, 0, 8 };
	struct mk_a2a_cfg c = {
	    .R = 16, .E = 256, .K = 8, .C = 12, .style = MK_A2A_DEEPEP,
	    .align = 1, .local = 8, .threads = 1 };
	struct mk_a2a_tally t = { .steps = 3, .max_recv = 77, .max_worst = 80,
	    .max_rank = 5, .max_step = 2, .sum_recv = 3000.0, .max_rows = 900,
	    .rows = 2048 };
	struct mk_err e;
	char *buf = NULL;
	size_t len;
	FILE *fp;

	CU_ASSERT_FATAL((fp = open_memstream(&buf, &len)) != NULL);
	CU_ASSERT_EQUAL(mk_a2a_report_write(fp, &sz, &c, &t, &e), 0);
	fclose(fp);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\nnvl_buffer_size_hint.dispatch,"
	    "453380736,432.38\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\nrdma_buffer_size_hint.dispatch,"
	    "56774016,54.14\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\ntrace.max_recv_tokens,77,\n"
	    "trace.mean_recv_tokens,62.5,\ntrace.max_recv_rank,5,\n"
	    "trace.max_recv_step,2,\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\ntrace.num_worst_tokens,80,\n"
	    "# trace.num_worst_tokens internode:"));
	CU_ASSERT_EQUAL(strncmp(buf, "quantity,bytes,mib\n# R=16 "
	    "(internode), E=256, K=8", 44), 0);
	free(buf);
	/* 40 ranks: no DeepEP table entry, and no --config */
	sz.has_config = 0;
	c.R = 40;
	CU_ASSERT_FATAL((fp = open_memstream(&buf, &len)) != NULL);
	CU_ASSERT_EQUAL(mk_a2a_report_write(fp, &sz, &c, &t, &e), -1);
	CU_ASSERT_STRING_EQUAL(e.msg, "40 ranks: DeepEP has no default config; "
	    "give --config");
	fclose(fp);
	CU_ASSERT_EQUAL(len, 0);
	free(buf);
}

/*
 * The thread rule: one thread for short work on small machines; a thread
 * per 0.1 ms of work on hosts of 8 CPUs or more (one 8 MB step, 0.65 ms
 * at 13 GB/s: 7 threads of 16); every CPU from 5 ms.
 */
static void
test_threads_rule(void)
{
	CU_ASSERT_EQUAL(mk_threads_pick(0.65, 2), 1);
	CU_ASSERT_EQUAL(mk_threads_pick(4.99, 4), 1);
	CU_ASSERT_EQUAL(mk_threads_pick(5, 2), 2);
	CU_ASSERT_EQUAL(mk_threads_pick(0.65, 16), 7);
	CU_ASSERT_EQUAL(mk_threads_pick(0.05, 16), 1);
	CU_ASSERT_EQUAL(mk_threads_pick(0, 16), 1);
	CU_ASSERT_EQUAL(mk_threads_pick(-1, 16), 1);
	CU_ASSERT_EQUAL(mk_threads_pick(0.5, 8), 6);
	CU_ASSERT_EQUAL(mk_threads_pick(4.9, 16), 16);
	CU_ASSERT_EQUAL(mk_threads_pick(1e9, 128), 128);
}

void
suite_a2a_job(void)
{
	CU_pSuite s = CU_add_suite("a2a job", NULL, NULL);

	CU_add_test(s, "batches, pread, pipe = each step alone", test_batches);
	CU_add_test(s, "routed through a plan", test_plan);
	CU_add_test(s, "a pipe cut short in a later step", test_pipe_cut);
	CU_add_test(s, "a trace without steps", test_no_steps);
	CU_add_test(s, "the buffer-size report", test_report);
	CU_add_test(s, "threads for short work", test_threads_rule);
}
