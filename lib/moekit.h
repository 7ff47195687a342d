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

#include "errmsg.h"
#include "dtype.h"
#include "tensor.h"
#include "npy.h"
#include "csvio.h"
#include "stream.h"
#include "cpu.h"
#include "kern.h"
#include "io.h"
#include "cli.h"

#endif
