/*
 * moekit.h - the header every command includes: the layers every tool
 * shares.  The library is in layer folders (README, "Layout"), each of
 * which includes only those below it:
 *   base/    errors, dtypes, f16/bf16 scalars, the thread rule
 *   simd/    the CPU probe, the kernel level, the table every tool uses
 *   tensor/  tensors, byte sources, NPY, CSV, streams, slabs
 *   cli/     options and outputs: the only part of lib/ that prints or
 *            exits
 * and, which a command includes itself, moe/ (routing records, plan
 * files, load logs) under one wing per tool: eplb/ (planners, replay,
 * statistics), a2a/ (traces, layouts, sizes, the pass over a trace),
 * mdec/ (decode attention, its kernels, inputs, the bench).
 */
#ifndef MOEKIT_H
#define MOEKIT_H

#include "base/errmsg.h"
#include "base/dtype.h"
#include "base/threads.h"
#include "tensor/tensor.h"
#include "tensor/npy.h"
#include "tensor/csvio.h"
#include "tensor/stream.h"
#include "simd/cpu.h"
#include "simd/kern.h"
#include "cli/io.h"
#include "cli/cli.h"

#endif
