/* The training C API (dsmprt_training.h) end to end: train digits_mlp's
 * step from a fresh initialization with a dynamic loss scale, evaluate,
 * save, reload, and the refusals.
 *
 *   c_api_train ART DATA_DIR   (DATA_DIR: raw little-endian train_x.f32,
 *                               train_y.i64, test_x.f32, test_y.i64)
 */
#include "dsmp/runtime/dsmprt_training.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *readAll(const char *dir, const char *name, long *bytes) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  *bytes = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *data = malloc(*bytes);
  if (fread(data, 1, *bytes, f) != (size_t)*bytes)
    exit(2);
  fclose(f);
  return data;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  long xb, yb, txb, tyb;
  float *x = readAll(argv[2], "train_x.f32", &xb);
  int64_t *y = readAll(argv[2], "train_y.i64", &yb);
  float *tx = readAll(argv[2], "test_x.f32", &txb);
  int64_t *ty = readAll(argv[2], "test_y.i64", &tyb);
  int64_t n = yb / 8, tn = tyb / 8;

  dsmp_trainer_options o;
  dsmp_trainer_default_options(&o);
  o.dynamic_loss_scale = 1;
  o.initial_scale = 65536;
  o.learning_rate = 5e-3;
  o.growth_factor = 1.0; /* refused */
  dsmp_trainer *t = NULL;
  if (dsmp_trainer_load(argv[1], &o, &t) != 0)
    printf("growth 1: %s\n", dsmp_last_error());
  o.growth_factor = 2.0;
  o.fallback_threshold = 1.5; /* refused */
  if (dsmp_trainer_load(argv[1], &o, &t) != 0)
    printf("threshold 1.5: %s\n", dsmp_last_error());
  o.fallback_threshold = 0.5;
  o.monitor_every = 10;
  if (dsmp_trainer_load(argv[1], &o, &t) != 0) {
    printf("load: %s\n", dsmp_last_error());
    return 1;
  }
  dsmp_trainer_initialize(t, 0);
  const void *inputs[1] = {x};
  if (dsmp_trainer_train(t, inputs, 1, y, n, 3) != 0) {
    printf("train: %s\n", dsmp_last_error());
    return 1;
  }
  const void *testInputs[1] = {tx};
  double loss = 0, accuracy = 0;
  if (dsmp_trainer_evaluate(t, testInputs, 1, ty, tn, &loss, &accuracy) != 0) {
    printf("evaluate: %s\n", dsmp_last_error());
    return 1;
  }
  printf("trained: %lld steps, %lld skipped, scale %g, accuracy %.2f %%\n",
         (long long)dsmp_trainer_steps(t),
         (long long)dsmp_trainer_skipped_steps(t), dsmp_trainer_loss_scale(t),
         100 * accuracy);
  size_t count = 0;
  /* The monitor's last sample and the layers' state. */
  size_t weights = dsmp_trainer_num_gradient_stats(t);
  const char *name = NULL;
  float stats[4];
  int ok = weights > 0 && dsmp_trainer_gradient_stats(t, 0, &name, stats) == 0;
  printf("gradient stats: %zu weights, first '%s' amax finite %d\n", weights,
         ok ? name : "?", ok && stats[0] == stats[0] && stats[0] < 1e30f);
  if (dsmp_trainer_gradient_stats(t, weights, &name, stats) != 0)
    printf("past the end: %s\n", dsmp_last_error());
  size_t layers = dsmp_trainer_num_layers(t);
  printf("layers: %zu, first '%s' fp32 %d, stats %d, fallbacks %lld\n", layers,
         dsmp_trainer_layer_name(t, 0), dsmp_trainer_layer_is_fp32(t, 0),
         dsmp_trainer_layer_stats(t, 0, stats) == 0,
         (long long)dsmp_trainer_fallbacks(t));
  const float *w = dsmp_trainer_weight(t, "f.1.weight", &count);
  printf("f.1.weight: %zu values, first finite %d\n", count, w && w[0] == w[0]);
  char ckpt[4200];
  snprintf(ckpt, sizeof ckpt, "%s/c.ckpt", argv[2]);
  if (dsmp_trainer_save(t, ckpt) != 0) {
    printf("save: %s\n", dsmp_last_error());
    return 1;
  }
  /* Train on, then restore: back to the saved accuracy. */
  dsmp_trainer_train(t, inputs, 1, y, n, 1);
  if (dsmp_trainer_load_checkpoint(t, ckpt) != 0) {
    printf("load checkpoint: %s\n", dsmp_last_error());
    return 1;
  }
  double again = 0;
  dsmp_trainer_evaluate(t, testInputs, 1, ty, tn, NULL, &again);
  printf("restored: %lld steps, same accuracy %d\n",
         (long long)dsmp_trainer_steps(t), again == accuracy);
  char bogus[4200];
  snprintf(bogus, sizeof bogus, "%s/train_x.f32", argv[2]);
  if (dsmp_trainer_load_checkpoint(t, bogus) != 0)
    printf("bogus checkpoint: %s\n", dsmp_last_error());
  int64_t bad = 10;
  memcpy(y, &bad, sizeof bad);
  if (dsmp_trainer_train(t, inputs, 1, y, n, 1) != 0)
    printf("bad label: %s\n", dsmp_last_error());
  dsmp_trainer_free(t);
  return 0;
}
