//===- DnnlConv.cpp - Convolutions through oneDNN ------------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "DnnlConv.h"
#include "Sgemm.h"

#if defined(DSMP_EVAL_DNNL)
#include <oneapi/dnnl/dnnl.h>
#endif

namespace mlir::dsmp::eval {

#if defined(DSMP_EVAL_DNNL)
namespace {
/// The CPU engine and an in-order stream, made once per thread (a stream
/// takes one thread's calls at a time; the primitive cache is shared).
struct DnnlContext {
  dnnl_engine_t engine = nullptr;
  dnnl_stream_t stream = nullptr;
  DnnlContext() {
    if (dnnl_engine_create(&engine, dnnl_cpu, 0) != dnnl_success) {
      engine = nullptr;
      return;
    }
    if (dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) !=
        dnnl_success)
      stream = nullptr;
  }
  ~DnnlContext() {
    if (stream)
      dnnl_stream_destroy(stream);
    if (engine)
      dnnl_engine_destroy(engine);
  }
};

DnnlContext &dnnlContext() {
  thread_local DnnlContext context;
  return context;
}

/// Destroys what oneDNN handed out when the call ends, however it ends.
struct Handles {
  dnnl_primitive_desc_t pd = nullptr;
  dnnl_primitive_t primitive = nullptr;
  dnnl_memory_t memories[3] = {};
  ~Handles() {
    for (dnnl_memory_t m : memories)
      if (m)
        dnnl_memory_destroy(m);
    if (primitive)
      dnnl_primitive_destroy(primitive);
    if (pd)
      dnnl_primitive_desc_destroy(pd);
  }
};
} // namespace
#endif

#if defined(DSMP_EVAL_DNNL)
namespace {
/// A convolution (or, `transposed`, a ConvTranspose) as one oneDNN
/// primitive on the plain layouts; false where oneDNN takes none.
bool runPrimitive(bool transposed, int spatial, int64_t batches,
                  int64_t channels, int64_t maps, int64_t groups,
                  const Window &win, const float *x, const float *w, float *y) {
  DnnlContext &context = dnnlContext();
  if (!context.stream || spatial < 1 || spatial > 3 || groups < 1)
    return false;
  static const dnnl_format_tag_t data[] = {dnnl_ncw, dnnl_nchw, dnnl_ncdhw};
  // Weights as [out, in, k..] (grouped: [g, out, in, k..]) logically; a
  // Conv stores them so, a ConvTranspose as [in, out, k..].
  static const dnnl_format_tag_t convWeights[2][3] = {
      {dnnl_oiw, dnnl_oihw, dnnl_oidhw}, {dnnl_goiw, dnnl_goihw, dnnl_goidhw}};
  static const dnnl_format_tag_t transposedWeights[2][3] = {
      {dnnl_bac, dnnl_iohw, dnnl_iodhw}, {dnnl_acbd, dnnl_giohw, dnnl_giodhw}};
  dnnl_dims_t src = {batches, channels}, dst = {batches, maps}, wei = {};
  dnnl_dims_t strides = {}, dilates = {}, padL = {}, padR = {};
  int w0 = 0;
  if (groups > 1)
    wei[w0++] = groups;
  wei[w0++] = maps / groups;
  wei[w0++] = channels / groups;
  int64_t macs = batches * maps * (channels / groups);
  for (int d = 0; d < spatial; ++d) {
    int k = 3 - spatial + d;
    src[2 + d] = win.in[k];
    dst[2 + d] = win.out[k];
    wei[w0 + d] = win.kernel[k];
    strides[d] = win.stride[k];
    dilates[d] = win.dilation[k] - 1; // oneDNN counts the gaps
    padL[d] = win.padBegin[k];
    // The end padding the last window reaches past the larger side's end
    // (negative where it stops short of it).
    int64_t reach = (win.kernel[k] - 1) * win.dilation[k] + 1 - padL[d];
    padR[d] = transposed ? (win.in[k] - 1) * win.stride[k] + reach - win.out[k]
                         : (win.out[k] - 1) * win.stride[k] + reach - win.in[k];
    if (padR[d] < 0)
      return false;
    macs *= win.kernel[k] * (transposed ? win.in[k] : win.out[k]);
  }
  dnnl_format_tag_t weightsTag =
      (transposed ? transposedWeights : convWeights)[groups > 1][spatial - 1];
  dnnl_memory_desc_t srcMd, weiMd, dstMd;
  if (dnnl_memory_desc_init_by_tag(&srcMd, 2 + spatial, src, dnnl_f32,
                                   data[spatial - 1]) != dnnl_success ||
      dnnl_memory_desc_init_by_tag(&dstMd, 2 + spatial, dst, dnnl_f32,
                                   data[spatial - 1]) != dnnl_success ||
      dnnl_memory_desc_init_by_tag(&weiMd, w0 + spatial, wei, dnnl_f32,
                                   weightsTag) != dnnl_success)
    return false;
  dnnl_convolution_desc_t convDesc;
  dnnl_deconvolution_desc_t deconvDesc;
  if (transposed ? dnnl_dilated_deconvolution_forward_desc_init(
                       &deconvDesc, dnnl_forward_inference,
                       dnnl_deconvolution_direct, &srcMd, &weiMd, nullptr,
                       &dstMd, strides, dilates, padL, padR) != dnnl_success
                 : dnnl_dilated_convolution_forward_desc_init(
                       &convDesc, dnnl_forward_inference,
                       dnnl_convolution_direct, &srcMd, &weiMd, nullptr, &dstMd,
                       strides, dilates, padL, padR) != dnnl_success)
    return false;
  chooseThreads(macs);
  Handles h;
  // The primitive comes from oneDNN's primitive cache after the first call
  // for a shape.
  const_dnnl_op_desc_t desc = transposed
                                  ? static_cast<const void *>(&deconvDesc)
                                  : static_cast<const void *>(&convDesc);
  if (dnnl_primitive_desc_create(&h.pd, desc, nullptr, context.engine,
                                 nullptr) != dnnl_success ||
      dnnl_primitive_create(&h.primitive, h.pd) != dnnl_success)
    return false;
  // The plain layouts were asked for, so the primitive reads and writes the
  // evaluator's arrays in place.
  if (dnnl_memory_create(&h.memories[0], &srcMd, context.engine,
                         const_cast<float *>(x)) != dnnl_success ||
      dnnl_memory_create(&h.memories[1], &weiMd, context.engine,
                         const_cast<float *>(w)) != dnnl_success ||
      dnnl_memory_create(&h.memories[2], &dstMd, context.engine, y) !=
          dnnl_success)
    return false;
  dnnl_exec_arg_t args[] = {{DNNL_ARG_SRC, h.memories[0]},
                            {DNNL_ARG_WEIGHTS, h.memories[1]},
                            {DNNL_ARG_DST, h.memories[2]}};
  return dnnl_primitive_execute(h.primitive, context.stream, 3, args) ==
             dnnl_success &&
         dnnl_stream_wait(context.stream) == dnnl_success;
}
} // namespace
#else
namespace {
bool runPrimitive(bool, int, int64_t, int64_t, int64_t, int64_t, const Window &,
                  const float *, const float *, float *) {
  return false; // no oneDNN in this build
}
} // namespace
#endif

bool dnnlConv(int spatial, int64_t batches, int64_t channels, int64_t maps,
              int64_t groups, const Window &win, const float *x, const float *w,
              float *y) {
  return runPrimitive(/*transposed=*/false, spatial, batches, channels, maps,
                      groups, win, x, w, y);
}

bool dnnlConvTranspose(int spatial, int64_t batches, int64_t channels,
                       int64_t maps, int64_t groups, const Window &win,
                       const float *x, const float *w, float *y) {
  return runPrimitive(/*transposed=*/true, spatial, batches, channels, maps,
                      groups, win, x, w, y);
}

} // namespace mlir::dsmp::eval
