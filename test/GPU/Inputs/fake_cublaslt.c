/* A stand-in for libcublasLt.so.13 beside fake_libcuda.c (whose device
 * memory is host memory): cublasLtMatmul computes D = alpha op(A) op(B) +
 * beta C on the host, in cuBLAS's column-major convention, for f32 data,
 * with the layouts' rows, cols, leading dims, batch counts and strides as
 * the documentation defines them. So a device artifact's GEMM calls are
 * checked end to end without a GPU: the arguments dsmp's code passes, the
 * launch shim, and the runtime's row-major to column-major mapping. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { DESC_COMPUTE = 0, DESC_TRANSA = 3, DESC_TRANSB = 4 };
enum { LAYOUT_BATCH_COUNT = 5, LAYOUT_BATCH_STRIDE = 6 };
enum { DATA_F32 = 0, DATA_F8_E4M3 = 28 };

typedef struct {
  int compute, transa, transb;
} Desc;
typedef struct {
  int type;
  uint64_t rows, cols;
  int64_t ld, stride;
  int batch;
} Layout;

int cublasLtCreate(void **handle) {
  *handle = malloc(1);
  return 0;
}
int cublasLtMatmulDescCreate(void **desc, int compute, int scale) {
  (void)scale;
  Desc *d = calloc(1, sizeof *d);
  d->compute = compute;
  *desc = d;
  return 0;
}
int cublasLtMatmulDescDestroy(void *desc) {
  free(desc);
  return 0;
}
int cublasLtMatmulDescSetAttribute(void *desc, int attr, const void *buf,
                                   size_t size) {
  (void)size;
  Desc *d = desc;
  if (attr == DESC_TRANSA)
    d->transa = *(const int *)buf;
  if (attr == DESC_TRANSB)
    d->transb = *(const int *)buf;
  return 0;
}
int cublasLtMatrixLayoutCreate(void **layout, int type, uint64_t rows,
                               uint64_t cols, int64_t ld) {
  Layout *l = calloc(1, sizeof *l);
  l->type = type, l->rows = rows, l->cols = cols, l->ld = ld, l->batch = 1;
  *layout = l;
  return 0;
}
int cublasLtMatrixLayoutDestroy(void *layout) {
  free(layout);
  return 0;
}
int cublasLtMatrixLayoutSetAttribute(void *layout, int attr, const void *buf,
                                     size_t size) {
  (void)size;
  Layout *l = layout;
  if (attr == LAYOUT_BATCH_COUNT)
    l->batch = *(const int32_t *)buf;
  if (attr == LAYOUT_BATCH_STRIDE)
    l->stride = *(const int64_t *)buf;
  return 0;
}

/* The value of an OCP FP8 E4M3 code (bias 7, no infs, S.1111.111 NaN). */
static float e4m3(uint8_t code) {
  int sign = code >> 7, exponent = (code >> 3) & 15, mantissa = code & 7;
  float magnitude;
  if (exponent == 15 && mantissa == 7)
    magnitude = __builtin_nanf("");
  else if (exponent == 0)
    magnitude = mantissa / 512.0f; /* mantissa x 2^-9 */
  else
    magnitude = (8 + mantissa) / 8.0f * (float)(1 << exponent) / 128.0f;
  return sign ? -magnitude : magnitude;
}

/* Element (i, j) of op(X) for a column-major X of the layout's type. */
static float at(const void *x, const Layout *l, int trans, int64_t i,
                int64_t j) {
  int64_t k = trans ? j + i * l->ld : i + j * l->ld;
  if (l->type == DATA_F8_E4M3)
    return e4m3(((const uint8_t *)x)[k]);
  return ((const float *)x)[k];
}

int cublasLtMatmul(void *handle, void *desc, const void *alpha, const void *A,
                   void *Adesc, const void *B, void *Bdesc, const void *beta,
                   const void *C, void *Cdesc, void *D, void *Ddesc,
                   const void *algo, void *workspace, size_t workspaceSize,
                   void *stream) {
  (void)handle;
  (void)algo;
  (void)workspace;
  (void)workspaceSize;
  (void)stream;
  (void)Ddesc;
  Desc *d = desc;
  Layout *la = Adesc, *lb = Bdesc, *lc = Cdesc;
  int f8 = la->type == DATA_F8_E4M3 && lb->type == DATA_F8_E4M3;
  if (!(f8 || (la->type == DATA_F32 && lb->type == DATA_F32)) ||
      lc->type != DATA_F32 || (f8 && (!d->transa || d->transb)))
    return 15; /* CUBLAS_STATUS_NOT_SUPPORTED */
  int64_t m = lc->rows, n = lc->cols;
  int64_t k = d->transa ? la->rows : la->cols;
  if ((d->transa ? la->cols : la->rows) != (uint64_t)m ||
      (d->transb ? lb->rows : lb->cols) != (uint64_t)n ||
      (d->transb ? lb->cols : lb->rows) != (uint64_t)k)
    return 7; /* CUBLAS_STATUS_INVALID_VALUE */
  float a = *(const float *)alpha, b = *(const float *)beta;
  for (int batch = 0; batch < lc->batch; ++batch) {
    size_t sa = la->type == DATA_F8_E4M3 ? 1 : sizeof(float);
    size_t sb = lb->type == DATA_F8_E4M3 ? 1 : sizeof(float);
    const char *pa = (const char *)A + batch * la->stride * sa;
    const char *pb = (const char *)B + batch * lb->stride * sb;
    const float *pc = (const float *)C + batch * lc->stride;
    float *pd = (float *)D + batch * lc->stride;
    for (int64_t j = 0; j < n; ++j)
      for (int64_t i = 0; i < m; ++i) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p)
          sum +=
              (double)at(pa, la, d->transa, i, p) * at(pb, lb, d->transb, p, j);
        pd[i + j * lc->ld] = a * (float)sum + b * pc[i + j * lc->ld];
      }
  }
  return 0;
}
