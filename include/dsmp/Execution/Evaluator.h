//===- Evaluator.h - Evaluate a graph op by op on the host ---- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A reference evaluator for @main_graph: each dsmp op runs as a plain C++
// kernel in f32 (integers and bools in int64), nothing is compiled. The
// precision analyses use it to run their instrumented FP32 graphs: building
// a program through LLVM costs far more than evaluating the few calibration
// inputs, and the cost grows faster than the graph. Graphs it cannot
// evaluate (dynamic shapes, 16-bit element types, ops without a kernel,
// regions) are rejected up front, naming the op, so that the caller can
// compile them instead.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_EXECUTION_EVALUATOR_H
#define DSMP_EXECUTION_EVALUATOR_H

#include "dsmp/Execution/HostRun.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/DenseMap.h"

#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace mlir::dsmp {

namespace eval {
struct Array;
} // namespace eval

class GraphEvaluator {
public:
  /// Prepares `graph` (static shapes, inline constants). Fails, naming the
  /// first op it cannot evaluate and why.
  static llvm::Expected<std::unique_ptr<GraphEvaluator>>
  create(func::FuncOp graph);
  ~GraphEvaluator();

  /// Called with each float result an op computes, as it is computed (the
  /// op, its result number, the values in f32): what a calibration pass
  /// reads without making every value a graph output.
  using Observer =
      llvm::function_ref<void(Operation *, unsigned, llvm::ArrayRef<float>)>;

  /// Runs on `inputs` (bound by name, shapes and dtypes checked); returns
  /// the outputs in @main_graph's result order.
  llvm::Expected<std::vector<HostTensor>> run(const HostInputs &inputs,
                                              Observer observe = nullptr);

private:
  struct Step;
  GraphEvaluator() = default;
  llvm::Error prepare(func::FuncOp graph);
  struct BufferPool;
  llvm::Error runSteps(const std::vector<Step> &list,
                       std::vector<std::shared_ptr<const eval::Array>> &slots,
                       BufferPool &pool, Observer observe);

  std::vector<Step> steps;
  unsigned numSlots = 0;
  std::vector<std::pair<unsigned, std::shared_ptr<const eval::Array>>>
      constants;
  struct Port {
    std::string name;
    unsigned slot;
    Type type;
  };
  std::vector<Port> inputs, outputs;
};

/// Decoded constants shared by every GraphEvaluator created on one context
/// while this lives: the precision flow evaluates the same weights (f32,
/// and the same f16 copies) in every validation round, and decoding them
/// each time cost resnet34 ~30 ms of a ~70 ms round. One per context; a
/// second made while one lives does nothing. Keyed by the constant's
/// (uniqued, immutable) attribute; stops adding past `maxBytes`.
class EvaluatorConstantCache {
public:
  explicit EvaluatorConstantCache(MLIRContext *context,
                                  size_t maxBytes = size_t(1) << 30);
  ~EvaluatorConstantCache();
  EvaluatorConstantCache(const EvaluatorConstantCache &) = delete;
  EvaluatorConstantCache &operator=(const EvaluatorConstantCache &) = delete;

  /// The cache that lives for `context`, or null.
  static EvaluatorConstantCache *active(MLIRContext *context);

  std::shared_ptr<const eval::Array> lookup(Attribute value, Type type);
  size_t size();
  void remember(Attribute value, Type type,
                std::shared_ptr<const eval::Array> array, size_t bytes);

private:
  MLIRContext *context;
  bool registered = false;
  size_t maxBytes, bytes = 0;
  std::mutex mutex;
  llvm::DenseMap<std::pair<Attribute, Type>, std::shared_ptr<const eval::Array>>
      arrays;
};

/// Runs the evaluator's one-time set-up (oneDNN's kernel generation, tens
/// of milliseconds) on a thread of its own from construction, so that it
/// overlaps with the work before the first evaluation (importing the model,
/// reading calibration data); the destructor waits for it. An evaluation
/// that starts earlier simply waits for the set-up inside the library.
class EvaluatorWarmUp {
public:
  EvaluatorWarmUp();
  ~EvaluatorWarmUp();
  EvaluatorWarmUp(const EvaluatorWarmUp &) = delete;
  EvaluatorWarmUp &operator=(const EvaluatorWarmUp &) = delete;

private:
  std::thread thread;
};

} // namespace mlir::dsmp

#endif // DSMP_EXECUTION_EVALUATOR_H
