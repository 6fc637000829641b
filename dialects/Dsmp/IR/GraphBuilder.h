//===- GraphBuilder.h - Build dsmp ops, types inferred -------- -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Code that writes graphs (VJPs, the adjoint builder, instrumentation) names
// ops and ONNX attributes and lets the importer's shape rules give the
// result types, as the ONNX importer does.
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DIALECTS_DSMP_IR_GRAPHBUILDER_H
#define DSMP_DIALECTS_DSMP_IR_GRAPHBUILDER_H

#include "dialects/Dsmp/IR/DsmpOps.h"

#include "mlir/IR/Builders.h"

namespace mlir::dsmp {

class GraphBuilder {
public:
  GraphBuilder(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  /// Op `name` ("dsmp.conv") on `operands` with ONNX attributes; its result
  /// types come from the shape rules. Null when they cannot be inferred.
  Operation *create(StringRef name, ValueRange operands,
                    ArrayRef<NamedAttribute> attrs = {});
  /// Op `name` with the given result types (where the caller knows them
  /// better than the shape rules).
  Value typed(StringRef name, ValueRange operands, Type resultType,
              ArrayRef<NamedAttribute> attrs = {});
  /// The first result of create().
  Value value(StringRef name, ValueRange operands,
              ArrayRef<NamedAttribute> attrs = {});

  Value none();
  /// A rank-0 constant of `elementType` (a float type).
  Value scalar(double v, Type elementType);
  Value i64s(ArrayRef<int64_t> values);
  /// A float constant of `type` (any float element type) with the given
  /// values, each rounded to it.
  Value floats(RankedTensorType type, ArrayRef<float> values);

  Value add(Value a, Value c) { return value("dsmp.add", {a, c}); }
  Value sub(Value a, Value c) { return value("dsmp.sub", {a, c}); }
  Value mul(Value a, Value c) { return value("dsmp.mul", {a, c}); }
  Value div(Value a, Value c) { return value("dsmp.div", {a, c}); }
  Value neg(Value a) { return value("dsmp.neg", {a}); }
  Value reshape(Value v, ArrayRef<int64_t> shape);
  Value transpose(Value v, ArrayRef<int64_t> perm);
  Value convert(Value v, Type elementType);
  /// Sums `grad` over the dims that broadcasting added to reach it from
  /// `target`'s shape, giving `target`'s shape.
  Value unbroadcast(Value grad, Type target);
  /// Reduces all dims to a rank-0 tensor with `op` ("dsmp.reduce_sum").
  Value reduceAll(StringRef op, Value v);
  /// Where `cond` holds, `a`, else zero (of `a`'s type).
  Value selectOrZero(Value cond, Value a);
  /// `a` where it is finite, else 0 (x - x is 0 only for finite x).
  Value finiteOrZero(Value a);

  NamedAttribute attr(StringRef name, Attribute value) {
    return b.getNamedAttr(name, value);
  }
  NamedAttribute i64(StringRef name, int64_t v) {
    return attr(name, b.getI64IntegerAttr(v));
  }
  NamedAttribute f32(StringRef name, float v) {
    return attr(name, b.getF32FloatAttr(v));
  }
  NamedAttribute array(StringRef name, ArrayRef<int64_t> v) {
    return attr(name, b.getDenseI64ArrayAttr(v));
  }

  OpBuilder &builder() { return b; }
  Location location() const { return loc; }

private:
  OpBuilder &b;
  Location loc;
};

} // namespace mlir::dsmp

#endif // DSMP_DIALECTS_DSMP_IR_GRAPHBUILDER_H
