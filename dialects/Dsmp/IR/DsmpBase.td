//===- DsmpBase.td - dsmp dialect, enums and type ----------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DIALECT_BASE_TD
#define DSMP_DIALECT_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

def Dsmp_Dialect : Dialect {
  let name = "dsmp";
  let cppNamespace = "::mlir::dsmp";
  let summary = "Mixed-precision graph dialect with ONNX operator semantics";
  let description = [{
    The `dsmp` dialect holds a neural-network graph imported from ONNX. Each
    op follows the semantics of the ONNX operator of the same name (in its
    newest opset form: inputs that older opsets passed as attributes are
    operands here), including multidirectional broadcasting and the ONNX
    attribute defaults.

    Absent optional inputs and outputs are values of type `none`, produced
    by `dsmp.none`. Compute ops carry an accumulation format (`acc`), FP32
    by default, and implement `PrecisionOpInterface`, which the precision
    passes are written against.

    Large weights are not printed inline: `dsmp.constant` refers to a byte
    range of the module's weight file with `#dsmp.external<...>`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    void registerAttributes();

    /// A constant already converted to another type (the precision flow
    /// folds the same weights to f16 in every validation round), or null.
    /// Attributes are uniqued and live as long as the context, so the memo
    /// holds no data of its own.
    Attribute lookupConvertedConstant(Attribute from, Type to);
    void rememberConvertedConstant(Attribute from, Type to, Attribute result);

  private:
    llvm::DenseMap<std::pair<Attribute, Type>, Attribute> convertedConstants;
    std::mutex convertedConstantsMutex;

  public:
  }];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Dsmp_Format : I32EnumAttr<"Format", "number format an op computes in", [
    I32EnumAttrCase<"f32", 0>,
    I32EnumAttrCase<"tf32", 1>,
    I32EnumAttrCase<"f16", 2>,
    I32EnumAttrCase<"bf16", 3>,
    I32EnumAttrCase<"f8E4M3FN", 4>,
    I32EnumAttrCase<"f8E5M2", 5>,
    I32EnumAttrCase<"f8E4M3FNUZ", 6>,
    I32EnumAttrCase<"f8E5M2FNUZ", 7>
  ]> {
  let cppNamespace = "::mlir::dsmp";
  let genSpecializedAttr = 0;
}

def Dsmp_OpClass : I32EnumAttr<"OpClass", "precision class of a compute op", [
    I32EnumAttrCase<"matmul", 0>,
    I32EnumAttrCase<"conv", 1>,
    I32EnumAttrCase<"elementwise", 2>,
    I32EnumAttrCase<"transcendental", 3>,
    I32EnumAttrCase<"reduction", 4>,
    I32EnumAttrCase<"normalization", 5>,
    I32EnumAttrCase<"data_movement", 6>
  ]> {
  let cppNamespace = "::mlir::dsmp";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

/// Tensors in dsmp IR are ranked (dims may be dynamic) wherever ONNX shape
/// inference or the importer's rank rules can tell the rank. The only
/// unranked tensors come from rank-polymorphic graphs: an If whose branches
/// yield different ranks, and what consumes it.
def Dsmp_Tensor : TensorOf<[AnyType]>;
def Dsmp_FloatTensor : TensorOf<[AnyFloat]>;
def Dsmp_IntTensor : TensorOf<[AnySignlessInteger, AnyUnsignedInteger]>;
def Dsmp_IndexTensor : TensorOf<[I32, I64]>;
def Dsmp_I64Tensor : TensorOf<[I64]>;
def Dsmp_BoolTensor : TensorOf<[I1]>;
def Dsmp_NumericTensor : TensorOf<[AnyFloat, AnySignlessInteger,
                                   AnyUnsignedInteger]>;
/// An optional input or output: a tensor, or `none` when ONNX leaves it out.
def Dsmp_OptTensor : AnyTypeOf<[AnyTensor, NoneType]>;
def Dsmp_OptIndexTensor : AnyTypeOf<[Dsmp_IndexTensor, NoneType]>;
def Dsmp_OptFloatTensor : AnyTypeOf<[Dsmp_FloatTensor, NoneType]>;

#endif // DSMP_DIALECT_BASE_TD
