/*===- dsmprt.h - The dsmp runtime's C API ---------------------------*- C
 *-*-===
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 *===----------------------------------------------------------------------===
 *
 * Load an artifact folder written by dsmp-compile, bind inputs and outputs
 * by name, run. No MLIR or LLVM at run time.
 *
 *   // dsmp-compile examples/tiny_cnn/model.onnx -o tiny_cnn.dsmp
 *   //   --shapes-from examples/tiny_cnn/test_data_set_0
 *   dsmp_model *m;
 *   if (dsmp_model_load("tiny_cnn.dsmp", &m) != 0)
 *     fprintf(stderr, "%s\n", dsmp_last_error());
 *   int64_t dims[4] = {2, 3, 16, 16};
 *   dsmp_bind_input(m, "image", DSMP_F32, dims, 4, image, sizeof image);
 *   dsmp_run(m);
 *   const float *probs = dsmp_output_data(m, "probs");
 *   dsmp_model_free(m);
 *
 * Every function that can fail returns 0 on success and -1 on failure,
 * with a message naming the artifact, tensor and reason in
 * dsmp_last_error() (per thread).
 *
 * Variants: an artifact compiled for several shapes (--shapes-from with
 * several data sets, or a precision compile's calibration and validation
 * shapes) holds one entry point per shape. The shapes bound with
 * dsmp_bind_input select the variant that dsmp_run runs; the shape
 * queries answer for that variant (the last one run, or the first, before
 * inputs select one).
 *
 * Any batch: when the model computes each sample of its inputs' first dim
 * alone, dsmp-compile says so in the manifest (`batch`) and adds variants
 * at batch 1 and 8 (--batch-sizes). A batch no variant has, with the other
 * dims of one, then runs as consecutive slices through the variants of
 * those dims, largest first (17 = 8 + 8 + 1): bind it like any shape; the
 * output queries answer for the whole batch.
 *
 * Threads: a dsmp_model is used by one thread at a time (binding and
 * running change its state). Several models, even of one artifact, run on
 * as many threads at once.
 *
 * Lifetimes: strings and dims arrays the model returns (names, target,
 * dims) live until dsmp_model_free. dsmp_output_data's buffer is the
 * model's own until the next dsmp_run of the same variant or
 * dsmp_model_free (or the caller's, if bound). dsmp_last_error's string
 * lives until the next failing call on the same thread. Input memory is
 * the caller's and is read only during dsmp_run.
 *
 *===----------------------------------------------------------------------===*/

#ifndef DSMP_RUNTIME_DSMPRT_H
#define DSMP_RUNTIME_DSMPRT_H

#include <stddef.h>
#include <stdint.h>

#include "dsmp/runtime/dsmprt_version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element types, numbered as ONNX's TensorProto.DataType. */
typedef enum dsmp_dtype {
  DSMP_F32 = 1,
  DSMP_U8 = 2,
  DSMP_I8 = 3,
  DSMP_U16 = 4,
  DSMP_I16 = 5,
  DSMP_I32 = 6,
  DSMP_I64 = 7,
  DSMP_BOOL = 9,
  DSMP_F16 = 10,
  DSMP_F64 = 11,
  DSMP_U32 = 12,
  DSMP_U64 = 13,
  DSMP_BF16 = 16
} dsmp_dtype;

typedef struct dsmp_model dsmp_model;

/* The version of the loaded libdsmprt ("0.1.0"): DSMP_VERSION_STRING is
 * the header's. */
const char *dsmp_version(void);

/* The last error on this thread ("" if none). */
const char *dsmp_last_error(void);

/* Loads and checks an artifact folder (manifest, library, weights). The
 * library's code stays mapped until the process ends (dsmp_model_free
 * unmaps the weights); a folder recompiled since this process loaded it
 * loads its new library (from a private copy under TMPDIR). */
int dsmp_model_load(const char *artifact_dir, dsmp_model **model);
void dsmp_model_free(dsmp_model *model);

/* The CPU the artifact's code runs on ("x86_64", "aarch64"). */
const char *dsmp_model_target(const dsmp_model *model);

/* The GPU a device artifact's kernels run on ("sm_80", "gfx90a", ...), or
 * NULL for code that runs on the CPU. Such a model loads only where that
 * GPU's driver finds a device that runs it (dsmp_model_load fails with "no
 * CUDA driver", "no CUDA device", ...); its weights live in device memory
 * and each dsmp_run copies the bound inputs there and the outputs back. */
const char *dsmp_model_device(const dsmp_model *model);

/* For an artifact of a precision compile (dsmp-compile --tolerance): the
 * target whose formats its code runs ("sm_80": the CPU emulates them
 * exactly), the error metric ("rel-l2" or "max-abs") and the budget it met
 * on its validation inputs. NULL, NULL and 0 for a plain compile. */
const char *dsmp_model_formats_of(const dsmp_model *model);
const char *dsmp_model_error_metric(const dsmp_model *model);
double dsmp_model_tolerance(const dsmp_model *model);
/* Under rel-l2, output i's absolute floor: the budget holds for
 * |y' - y| / max(|y|, floor * sqrt(n)), n the output's element count, so an
 * output that is (near) zero is judged by its absolute error. 0 when the
 * artifact records none (max-abs, a plain compile, manifests before
 * version 8). */
double dsmp_model_error_floor(const dsmp_model *model, size_t i);

size_t dsmp_num_inputs(const dsmp_model *model);
size_t dsmp_num_outputs(const dsmp_model *model);
/* Name, element type and shape of input/output i (NULL/0 if out of range).
 */
const char *dsmp_input_name(const dsmp_model *model, size_t i);
const char *dsmp_output_name(const dsmp_model *model, size_t i);
dsmp_dtype dsmp_input_dtype(const dsmp_model *model, size_t i);
dsmp_dtype dsmp_output_dtype(const dsmp_model *model, size_t i);
size_t dsmp_input_rank(const dsmp_model *model, size_t i);
size_t dsmp_output_rank(const dsmp_model *model, size_t i);
const int64_t *dsmp_input_dims(const dsmp_model *model, size_t i);
const int64_t *dsmp_output_dims(const dsmp_model *model, size_t i);

/* Binds caller memory to an input; it must stay valid until dsmp_run
 * returns and is never written. The dtype, shape and byte count must be
 * those the artifact was compiled for. */
int dsmp_bind_input(dsmp_model *model, const char *name, dsmp_dtype dtype,
                    const int64_t *dims, size_t rank, const void *data,
                    size_t bytes);

/* Optional: writes an output into caller memory instead of the model's
 * own buffer. */
int dsmp_bind_output(dsmp_model *model, const char *name, dsmp_dtype dtype,
                     const int64_t *dims, size_t rank, void *data,
                     size_t bytes);

/* Runs the model; fails if an input is unbound. */
int dsmp_run(dsmp_model *model);

/* An output's data after dsmp_run (the bound buffer or the model's own),
 * NULL if there is no output of that name. */
const void *dsmp_output_data(const dsmp_model *model, const char *name);

/* Profiling. An artifact compiled with `dsmp-compile --profile` times each
 * op it runs: these report, for the runs since load or the last reset, per
 * op its time, FLOPs and the format it computed in, and per format its
 * share of the time and of the FLOPs (include/dsmp/runtime/Profiler.h says
 * how). Runs of other dsmp_models of the same artifact in this process are
 * counted too (the counters live in its model.so). */

/* 1 when the artifact was compiled with --profile, else 0. */
int dsmp_model_profiled(const dsmp_model *model);
/* Starts a new profile. Fails for an artifact compiled without --profile. */
int dsmp_profile_reset(dsmp_model *model);
/* The profile as strict JSON, or as a table with the `top_ops` slowest ops;
 * NULL (and dsmp_last_error) when not profiled. The string lives until the
 * next call of either on this model. */
const char *dsmp_profile_json(dsmp_model *model);
const char *dsmp_profile_text(dsmp_model *model, size_t top_ops);

#ifdef __cplusplus
}
#endif

#endif /* DSMP_RUNTIME_DSMPRT_H */
