//===- OnnxOpRegistry.cpp - ONNX operator <-> dsmp op table -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "dialects/Dsmp/IR/DsmpOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <algorithm>
#include <utility>

using namespace mlir;
using namespace mlir::dsmp;

namespace {

/// ONNX names that are not the CamelCase of the mnemonic.
std::string onnxTypeFromMnemonic(llvm::StringRef mnemonic) {
  static const llvm::StringMap<const char *> exceptions = {
      {"matmul", "MatMul"},
      {"lstm", "LSTM"},
      {"gru", "GRU"},
      {"rnn", "RNN"},
      {"prelu", "PRelu"},
      {"lrn", "LRN"},
      {"is_nan", "IsNaN"},
      {"gather_nd", "GatherND"},
      {"scatter_nd", "ScatterND"}};
  auto it = exceptions.find(mnemonic);
  if (it != exceptions.end())
    return it->second;
  std::string name;
  bool upper = true;
  for (char c : mnemonic) {
    if (c == '_') {
      upper = true;
      continue;
    }
    name.push_back(upper ? llvm::toUpper(c) : c);
    upper = false;
  }
  return name;
}

template <typename OpTy, unsigned N = 2>
std::pair<unsigned, bool> operandArity() {
  if constexpr (N == 2) {
    if (OpTy::template hasTrait<::mlir::OpTrait::ZeroOperands>())
      return {0, false};
    if (OpTy::template hasTrait<::mlir::OpTrait::OneOperand>())
      return {1, false};
    if (OpTy::template hasTrait<::mlir::OpTrait::VariadicOperands>())
      return {0, true};
    if (OpTy::template hasTrait<::mlir::OpTrait::AtLeastNOperands<1>::Impl>())
      return {1, true};
    if (OpTy::template hasTrait<::mlir::OpTrait::AtLeastNOperands<2>::Impl>())
      return {2, true};
  }
  if constexpr (N <= 12) {
    if (OpTy::template hasTrait<::mlir::OpTrait::NOperands<N>::template Impl>())
      return {N, false};
    return operandArity<OpTy, N + 1>();
  }
  return {0, true};
}

template <typename OpTy, unsigned N = 2>
std::pair<unsigned, bool> resultArity() {
  if constexpr (N == 2) {
    if (OpTy::template hasTrait<::mlir::OpTrait::ZeroResults>())
      return {0, false};
    if (OpTy::template hasTrait<::mlir::OpTrait::OneResult>())
      return {1, false};
    if (OpTy::template hasTrait<::mlir::OpTrait::VariadicResults>())
      return {0, true};
  }
  if constexpr (N <= 6) {
    if (OpTy::template hasTrait<::mlir::OpTrait::NResults<N>::template Impl>())
      return {N, false};
    return resultArity<OpTy, N + 1>();
  }
  return {0, true};
}

template <typename OpTy> void addIfOnnx(std::vector<OnnxOpInfo> &table) {
  if constexpr (OpTy::template hasTrait<::mlir::dsmp::OpTrait::OnnxOp>()) {
    OnnxOpInfo info;
    llvm::StringRef name = OpTy::getOperationName();
    info.opName = name.str();
    info.onnxType = onnxTypeFromMnemonic(name.drop_front(strlen("dsmp.")));
    std::tie(info.numOperands, info.variadicOperands) = operandArity<OpTy>();
    std::tie(info.numResults, info.variadicResults) = resultArity<OpTy>();
    table.push_back(std::move(info));
  }
}

template <typename... OpTys> std::vector<OnnxOpInfo> buildTable() {
  std::vector<OnnxOpInfo> table;
  (addIfOnnx<OpTys>(table), ...);
  std::sort(table.begin(), table.end(),
            [](const OnnxOpInfo &a, const OnnxOpInfo &b) {
              return a.onnxType < b.onnxType;
            });
  return table;
}

const std::vector<OnnxOpInfo> &table() {
  static const std::vector<OnnxOpInfo> ops = buildTable<
#define GET_OP_LIST
#include "dialects/Dsmp/IR/DsmpOps.cpp.inc"
      >();
  return ops;
}

} // namespace

llvm::ArrayRef<OnnxOpInfo> mlir::dsmp::getOnnxOps() { return table(); }

const OnnxOpInfo *mlir::dsmp::lookupOnnxType(llvm::StringRef onnxType) {
  auto ops = getOnnxOps();
  auto it = std::lower_bound(ops.begin(), ops.end(), onnxType,
                             [](const OnnxOpInfo &info, llvm::StringRef t) {
                               return info.onnxType < t;
                             });
  return it != ops.end() && it->onnxType == onnxType ? &*it : nullptr;
}

const OnnxOpInfo *mlir::dsmp::lookupDsmpOp(llvm::StringRef opName) {
  for (const OnnxOpInfo &info : getOnnxOps())
    if (info.opName == opName)
      return &info;
  return nullptr;
}

bool mlir::dsmp::isDsmpOnlyAttribute(llvm::StringRef name) {
  return name == "acc";
}

std::string mlir::dsmp::onnxNodeName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  // The first name in a fused location, which may nest (the profiler's
  // tags, dsmp-tag-profile-ops).
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string name = onnxNodeName(inner); !name.empty())
        return name;
  return "";
}

static constexpr llvm::StringLiteral kInitializerMarker = "onnx.initializer";

Location mlir::dsmp::onnxInitializerLoc(MLIRContext *context, StringRef name) {
  return NameLoc::get(
      StringAttr::get(context, name),
      NameLoc::get(StringAttr::get(context, kInitializerMarker)));
}

bool mlir::dsmp::isOnnxInitializer(Location loc) {
  auto name = dyn_cast<NameLoc>(loc);
  auto marker = name ? dyn_cast<NameLoc>(name.getChildLoc()) : NameLoc();
  return marker && marker.getName() == kInitializerMarker;
}

std::string mlir::dsmp::describeDiagnostic(const Diagnostic &diag) {
  std::string node = onnxNodeName(diag.getLocation());
  return node.empty() ? diag.str() : "node '" + node + "': " + diag.str();
}
