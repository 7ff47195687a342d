/*
 * tensor-cat - read the tensor streams of its operands (NPY or CSV) in
 * order and write them as one stream, converting between NPY and CSV,
 * selecting tensors (--emit), changing dtypes (--dtype) or describing them
 * (--info).
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moekit.h"
#include "cli/opt.h"

#define MAX_TENSORS	65536

struct opts {
	struct mk_opts	 c;
	int		 info;
	int		 bf16;		/* read u16 arrays as bf16 bits */
	int		 dtype;		/* conversion target, or -1 */
	const char	*names;		/* names for the output tensors */
	const char	**files;
	int		 nfiles;
};

/* Everything read, in stream order. */
struct input {
	struct mk_tensor	*t;
	const char		**from;	/* the input each tensor came from */
	int			*idx;	/* its index in that input */
	int			 n, cap;
	enum mk_fmt		 fmt;	/* format of the first input */
};

static const struct mk_usage usage = {
	"[-hVv] [--info] [-f csv|npy|npz] [--emit SEL] [--dtype TYPE] [--bf16] "
	    "[--names LIST] [-o FILE] [--threads N] [--quiet] [FILE ...]",
	"Concatenate, convert (CSV <-> NPY), select and describe tensor "
	    "streams.",
	"SEL is a comma-separated list of tensor names or 0-based indices.\n"
	    "TYPE is one of f16 bf16 f32 f64 i8 i16 i32 i64 u8 u16 u32 u64 "
	    "bool.\n"
	    "With no FILE, or when FILE is -, read standard input.\n",
};

enum { O_INFO, O_DTYPE, O_BF16, O_NAMES, O_FILES, NOPT };

static struct mk_opt opts[NOPT] = {
	[O_INFO] = { MK_OPT_FLAG, NULL, "info", NULL, "write index,name,dtype,"
	    "shape lines instead of the tensors", NULL },
	[O_DTYPE] = { MK_OPT_VALUE, NULL, "dtype", "TYPE", "convert every "
	    "tensor to TYPE (bf16 is written as <u2 bits)", NULL },
	[O_BF16] = { MK_OPT_FLAG, NULL, "bf16", NULL, "read u16 input arrays "
	    "as bf16 bits", NULL },
	[O_NAMES] = { MK_OPT_VALUE, NULL, "names", "LIST", "name the output "
	    "tensors (comma-separated, in order)", NULL },
	[O_FILES] = { MK_OPT_OPERANDS, NULL, NULL, "FILE", "input tensor "
	    "streams", NULL },
};

static void
parse_args(int argc, char **argv, struct opts *o)
{
	const char *dt;

	mk_opts_parse(argc, argv, opts, NOPT, MK_OPT_FORMAT | MK_OPT_EMIT |
	    MK_OPT_OUTPUT | MK_OPT_THREADS, &usage, &o->c);
	o->info = mk_opt_given(&opts[O_INFO]) > 0;
	o->bf16 = mk_opt_given(&opts[O_BF16]) > 0;
	o->dtype = -1;
	if ((dt = mk_opt_str(&opts[O_DTYPE])) != NULL &&
	    (o->dtype = mk_dtype_parse(dt)) < 0)
		mk_usage_error("--dtype: unknown dtype '%s' (supported: %s)",
		    dt, mk_dtype_list());
	o->names = mk_opt_str(&opts[O_NAMES]);
	if (o->info && o->c.format != MK_FMT_AUTO)
		mk_usage_error("--info writes text; it takes no -f");
	/* the strings stay valid: argtable is never freed before exit */
	o->files = mk_opt_paths(&opts[O_FILES], &o->nfiles);
}

/* Read every tensor of one input; exits on bad data. */
static void
read_input(const char *path, struct input *in)
{
	struct mk_err e;
	struct mk_src *s;
	int r, fmt, k = 0;

	if ((s = mk_src_open(path, &e)) == NULL)
		mk_fail(NULL, &e);
	if ((fmt = mk_src_format(s, &e)) < 0)
		mk_fail(s, &e);
	if (in->fmt == MK_FMT_AUTO && (fmt == MK_FMT_NPY || fmt == MK_FMT_CSV))
		in->fmt = (enum mk_fmt)fmt;
	if (in->fmt == MK_FMT_AUTO && fmt == MK_FMT_ZIP)
		in->fmt = MK_FMT_NPZ;	/* an .npz in, an .npz out */
	for (;;) {
		if (in->n == in->cap) {
			in->cap = in->cap ? in->cap * 2 : 16;
			in->t = realloc(in->t, sizeof(*in->t) * (size_t)in->cap);
			in->from = realloc(in->from, sizeof(char *) *
			    (size_t)in->cap);
			in->idx = realloc(in->idx, sizeof(int) * (size_t)in->cap);
			if (in->t == NULL || in->from == NULL || in->idx == NULL)
				err(MK_EXIT_DATA, NULL);
		}
		in->from[in->n] = path && strcmp(path, "-") ? path : "stdin";
		in->idx[in->n] = k++;
		mk_tensor_init(&in->t[in->n]);
		if ((r = mk_src_next(s, &in->t[in->n], &e)) < 0)
			mk_fail(s, &e);
		if (r == 0)
			break;
		if (++in->n > MAX_TENSORS)
			errx(MK_EXIT_DATA, "%s: more than %d tensors",
			    mk_src_name(s), MAX_TENSORS);
	}
	mk_src_close(s);
}

/* The output list: indices into in->t, from --emit or everything. */
static int *
select_tensors(const struct opts *o, const struct input *in, int *count)
{
	const char **names;
	int *order, i;

	if ((order = malloc(sizeof(int) * (size_t)(in->n + 1) * 4)) == NULL ||
	    (names = malloc(sizeof(char *) * (size_t)(in->n + 1))) == NULL)
		err(MK_EXIT_DATA, NULL);
	for (i = 0; i < in->n; i++)
		names[i] = in->t[i].name;
	*count = mk_arg_emit(o->c.emit, names, in->n, order, (in->n + 1) * 4);
	free(names);
	return order;
}

/*
 * The names the selected tensors are written under: their own, or --names.
 * Kept apart from the tensors, since --emit may select one tensor twice.
 * The returned array borrows from the tensors and from *buf.
 */
static const char **
out_names(const char *list, struct mk_tensor **out, int count, char **buf)
{
	const char **nm;
	char *tok, *save;
	int i;

	if ((nm = calloc((size_t)count + 1, sizeof(*nm))) == NULL)
		err(MK_EXIT_DATA, NULL);
	for (i = 0; i < count; i++)
		nm[i] = out[i]->name;
	*buf = NULL;
	if (list == NULL)
		return nm;
	if ((*buf = strdup(list)) == NULL)
		err(MK_EXIT_DATA, NULL);
	i = 0;
	for (tok = strtok_r(*buf, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save), i++) {
		if (i == count)
			mk_usage_error("--names: %s names more than the %d "
			    "tensors written", list, count);
		nm[i] = tok;
	}
	return nm;
}

static void
print_info(struct mk_out *out, struct mk_tensor **t, const char **nm,
    int count)
{
	char sb[MK_MAXDIM * 24];
	int i;

	for (i = 0; i < count; i++)
		fprintf(out->fp, "%d,%s,%s,\"%s\"\n", i, nm[i] ? nm[i] : "",
		    mk_dtype_name(t[i]->dtype),
		    mk_shape_str(sb, sizeof(sb), t[i]->ndim, t[i]->shape));
}

static int
run(const struct opts *o)
{
	struct input in = { NULL, NULL, NULL, 0, 0, MK_FMT_AUTO };
	struct mk_tensor **out, *conv, view;
	struct mk_out *w;
	const char **nm;
	char *nmbuf;
	struct mk_err e;
	char what[4200];
	int *order, count, i;

	if (o->nfiles == 0)
		read_input(NULL, &in);
	for (i = 0; i < o->nfiles; i++)
		read_input(o->files[i], &in);
	if (o->bf16)
		for (i = 0; i < in.n; i++)
			if (in.t[i].dtype == MK_U16)
				in.t[i].dtype = MK_BF16;
	order = select_tensors(o, &in, &count);
	out = malloc(sizeof(*out) * (size_t)(count + 1));
	conv = calloc((size_t)count + 1, sizeof(*conv));
	if (out == NULL || conv == NULL)
		err(MK_EXIT_DATA, NULL);
	for (i = 0; i < count; i++) {
		out[i] = &in.t[order[i]];
		if (o->dtype < 0 || (int)out[i]->dtype == o->dtype)
			continue;
		snprintf(what, sizeof(what), "%s: tensor %d", in.from[order[i]],
		    in.idx[order[i]]);
		mk_tensor_init(&conv[i]);
		if (mk_tensor_convert(&conv[i], out[i], (enum mk_dtype)o->dtype,
		    what, &e) < 0)
			mk_fail(NULL, &e);
		out[i] = &conv[i];
	}
	nm = out_names(o->names, out, count, &nmbuf);
	w = mk_out_open(o->c.output, o->info ? MK_FMT_CSV :
	    o->c.format != MK_FMT_AUTO ? o->c.format : in.fmt);
	if (o->info)
		print_info(w, out, nm, count);
	else
		for (i = 0; i < count; i++) {
			view = *out[i];	/* borrowed: written, never freed */
			view.name = (char *)nm[i];
			mk_out_tensor(w, &view, NULL);
		}
	mk_out_close(w);
	free(nm);
	free(nmbuf);
	for (i = 0; i < count; i++)
		mk_tensor_free(&conv[i]);
	for (i = 0; i < in.n; i++)
		mk_tensor_free(&in.t[i]);
	free(conv);
	free(out);
	free(order);
	free(in.t);
	free(in.from);
	free(in.idx);
	return MK_EXIT_OK;
}

int
main(int argc, char *argv[])
{
	struct opts o;
	int rc, i;

	mk_init(argc, argv);
	parse_args(argc, argv, &o);
	for (i = 0; i < o.nfiles; i++)
		mk_out_input(o.files[i]);
	rc = run(&o);
	return rc;
}
