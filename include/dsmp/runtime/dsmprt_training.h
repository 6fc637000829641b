/*===- dsmprt_training.h - The runtime's training C API --------------*- C
 *-*-===
 *
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 *===----------------------------------------------------------------------===
 *
 * Train from a training artifact (dsmp-compile MODEL --train -o ART) in C:
 *
 *   dsmp_trainer *t;
 *   dsmp_trainer_options o;
 *   dsmp_trainer_default_options(&o);
 *   o.dynamic_loss_scale = 1;
 *   if (dsmp_trainer_load("digits.train", &o, &t) != 0)
 *     fprintf(stderr, "%s\n", dsmp_last_error());
 *   dsmp_trainer_initialize(t, 0);                  // fresh weights, seed 0
 *   const void *inputs[1] = {images};               // 1347 x 1 x 8 x 8 f32
 *   dsmp_trainer_train(t, inputs, 1, labels, 1347, 40);
 *   double accuracy;
 *   dsmp_trainer_evaluate(t, test_inputs, 1, test_labels, 450, NULL,
 *                         &accuracy);
 *   dsmp_trainer_save(t, "digits.ckpt");
 *   dsmp_trainer_free(t);
 *
 * Inputs hold `samples` samples each, dense, in the compiled step's sample
 * shape and dtype; labels are int64 classes (cross entropy) or f32 targets
 * (mse). Functions return 0 on success and -1 on failure, with the reason
 * in dsmp_last_error(). The C++ API is include/dsmp/runtime/TrainingLoop.h.
 *
 *===----------------------------------------------------------------------===*/

#ifndef DSMP_RUNTIME_DSMPRT_TRAINING_H
#define DSMP_RUNTIME_DSMPRT_TRAINING_H

#include "dsmp/runtime/dsmprt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dsmp_trainer dsmp_trainer;

typedef struct dsmp_trainer_options {
  double learning_rate;        /* 1e-3 */
  uint64_t seed;               /* 0: the data order's shuffle */
  int verbose;                 /* 0: no progress on stderr */
  int dynamic_loss_scale;      /* 0: the scale stays `initial_scale` */
  double initial_scale;        /* 65536 (dynamic), 1 (static) */
  double growth_factor;        /* 2 */
  double backoff_factor;       /* 0.5 */
  int64_t growth_interval;     /* 2000 clean steps */
  double min_scale, max_scale; /* 2^-24, 2^24 */
  int64_t hysteresis;          /* 1 overflowing step before backing off */
  /* The gradient monitor: every N-th step (0: off), its JSON-lines log
   * (NULL: in memory only; an unwritable path fails dsmp_trainer_load). */
  int64_t monitor_every;
  const char *monitor_log;
  /* The per-layer FP32 fallback (an artifact compiled with --fallback):
   * threshold in (0, 1], 0 off; the window in steps (20); the probation
   * in applied steps before a layer returns to its format (0: never). */
  double fallback_threshold;
  int64_t fallback_window;
  int64_t fallback_probation;
} dsmp_trainer_options;

/* Fills `options` with the defaults above (a static scale of 1). */
void dsmp_trainer_default_options(dsmp_trainer_options *options);

/* Loads and checks a training artifact; refuses bad scaler settings
 * (growth <= 1, backoff outside (0, 1), min > max, ...). */
int dsmp_trainer_load(const char *artifact_dir,
                      const dsmp_trainer_options *options,
                      dsmp_trainer **trainer);
void dsmp_trainer_free(dsmp_trainer *trainer);

/* Fresh weights as torch's layers draw them, from `seed`. */
int dsmp_trainer_initialize(dsmp_trainer *trainer, uint64_t seed);

/* `epochs` passes in shuffled batches of the compiled size. */
int dsmp_trainer_train(dsmp_trainer *trainer, const void *const *inputs,
                       size_t num_inputs, const void *labels, int64_t samples,
                       int epochs);
/* Mean loss and top-1 accuracy (cross entropy; else 0) over every sample;
 * either pointer may be NULL. */
int dsmp_trainer_evaluate(dsmp_trainer *trainer, const void *const *inputs,
                          size_t num_inputs, const void *labels,
                          int64_t samples, double *loss, double *accuracy);

/* Optimizer steps applied, steps skipped (non-finite gradients), and the
 * loss scale now. */
int64_t dsmp_trainer_steps(const dsmp_trainer *trainer);
int64_t dsmp_trainer_skipped_steps(const dsmp_trainer *trainer);
double dsmp_trainer_loss_scale(const dsmp_trainer *trainer);

/* A weight's current values (f32) and element count; NULL if unknown. The
 * pointer is valid until the next train or load call. */
const float *dsmp_trainer_weight(const dsmp_trainer *trainer, const char *name,
                                 size_t *count);

/* The gradient monitor's last sample: the number of weights it covers, and
 * weight i's name and statistics (largest |unscaled gradient|, fraction of
 * values zero in its format, inf count, NaN count). -1 if out of range or
 * nothing was sampled yet. */
size_t dsmp_trainer_num_gradient_stats(const dsmp_trainer *trainer);
int dsmp_trainer_gradient_stats(const dsmp_trainer *trainer, size_t i,
                                const char **name, float stats[4]);

/* The layers with an FP32 variant (--fallback): how many, layer k's name,
 * whether it runs FP32 now, its last measured statistics (largest |forward
 * value|, 1 if a forward value is inf/NaN, 1 if a gradient is, fraction of its
 * incoming gradient its format rounds to zero), and the fallbacks so far.
 */
size_t dsmp_trainer_num_layers(const dsmp_trainer *trainer);
const char *dsmp_trainer_layer_name(const dsmp_trainer *trainer, size_t k);
int dsmp_trainer_layer_is_fp32(const dsmp_trainer *trainer, size_t k);
int dsmp_trainer_layer_stats(const dsmp_trainer *trainer, size_t k,
                             float stats[4]);
int64_t dsmp_trainer_fallbacks(const dsmp_trainer *trainer);

/* A training artifact compiled with --profile: the train steps' per-op
 * time, FLOPs and format, each format's share, and the steps, skipped
 * steps and fallbacks (dsmp/runtime/Profiler.h), as strict JSON or as a
 * table of the `top_ops` slowest ops; NULL (and dsmp_last_error) for one
 * compiled without. The string lives until the next call of either. */
const char *dsmp_trainer_profile_json(dsmp_trainer *trainer);
const char *dsmp_trainer_profile_text(dsmp_trainer *trainer, size_t top_ops);
/* Starts a new profile (the steps' times and FLOPs so far are dropped). */
int dsmp_trainer_profile_reset(dsmp_trainer *trainer);

/* Checkpoints (weights, optimizer state, step, loss scaler, the layers'
 * fallback state), written
 * atomically; loading refuses another model's or a damaged one and then
 * changes nothing. */
int dsmp_trainer_save(const dsmp_trainer *trainer, const char *path);
int dsmp_trainer_load_checkpoint(dsmp_trainer *trainer, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* DSMP_RUNTIME_DSMPRT_TRAINING_H */
