/*
 * moekit.h - the one header the commands include.
 *
 * moekit is a set of Unix filters for Mixture-of-Experts serving that pipe
 * NPY or CSV tensors between them.  This library holds everything they
 * share: tensors and their formats (tensor.h, npy.h, csvio.h, stream.h),
 * the CPU probe and kernel table (cpu.h, kern.h), and the command-line
 * layer (cli.h, io.h) - the only part of lib/ that prints or exits.
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
