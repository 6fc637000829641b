//===- DsmpOps.td - dsmp operations ------------------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Ops mirror ONNX operators in their newest opset form. ONNX attributes keep
// their ONNX names and defaults; ONNX optional inputs and outputs are
// `Dsmp_OptTensor` values that are `none` when absent. The importer and the
// exporter rely on that 1:1 correspondence (see OnnxOpRegistry.h).
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DIALECT_OPS_TD
#define DSMP_DIALECT_OPS_TD

include "dialects/Dsmp/IR/DsmpBase.td"
include "dialects/Dsmp/IR/DsmpAttrs.td"
include "dialects/Dsmp/IR/DsmpInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/IR/BuiltinTypes.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Traits and base classes
//===----------------------------------------------------------------------===//

/// Marks an op that has an ONNX operator of the same (CamelCase) name.
def Dsmp_OnnxOpTrait : NativeOpTrait<"OnnxOp"> {
  let cppNamespace = "::mlir::dsmp::OpTrait";
}

class Dsmp_OpClassTrait<string cls>
    : ParamNativeOpTrait<"OpClassIs", "::mlir::dsmp::OpClass::" # cls> {
  let cppNamespace = "::mlir::dsmp::OpTrait";
}
def Dsmp_MatmulClass : Dsmp_OpClassTrait<"matmul">;
def Dsmp_ConvClass : Dsmp_OpClassTrait<"conv">;
def Dsmp_ElementwiseClass : Dsmp_OpClassTrait<"elementwise">;
def Dsmp_TranscendentalClass : Dsmp_OpClassTrait<"transcendental">;
def Dsmp_ReductionClass : Dsmp_OpClassTrait<"reduction">;
def Dsmp_NormalizationClass : Dsmp_OpClassTrait<"normalization">;
def Dsmp_DataMovementClass : Dsmp_OpClassTrait<"data_movement">;

/// The named operands and results have shapes that may still be equal:
/// the same rank, and equal sizes where both are static. ONNX exporters
/// leave one side dynamic where the other is known (GroupViT's
/// ScatterElements: indices [?, 1, 64], updates [?, ?, ?]).
class Dsmp_AllShapesCompatible<list<string> names> : PredOpTrait<
    "all of {" # !interleave(names, ", ") # "} have compatible shapes",
    CPred<"::mlir::succeeded(::mlir::verifyCompatibleShapes(::mlir::TypeRange{" #
          !interleave(!foreach(n, names, "$" # n # ".getType()"), ", ") # "}))">>;

def Dsmp_AccAttr : DefaultValuedAttr<Dsmp_FormatAttr, "::mlir::dsmp::Format::f32">;

class Dsmp_Op<string mnemonic, list<Trait> traits = []>
    : Op<Dsmp_Dialect, mnemonic, traits> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

/// An op with an ONNX counterpart whose precision class is `cls`. Ops that
/// compute (every class but data movement) get an accumulation format `acc`.
class Dsmp_OnnxOp<string mnemonic, Dsmp_OpClassTrait cls, dag args, dag res,
                  list<Trait> traits = [],
                  Trait precision = Dsmp_PrecisionOpInterface>
    : Dsmp_Op<mnemonic, !listconcat([Dsmp_OnnxOpTrait, cls, precision]<Trait>, traits)> {
  let arguments = !if(!eq(cls, Dsmp_DataMovementClass), args,
                      !con(args, (ins Dsmp_AccAttr:$acc)));
  let results = res;
}

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

class Dsmp_UnaryOp<string mnemonic, string onnxName, string formula,
                   Dsmp_OpClassTrait cls = Dsmp_ElementwiseClass,
                   TypeConstraint T = Dsmp_FloatTensor, dag attrs = (ins)>
    : Dsmp_OnnxOp<mnemonic, cls, !con((ins T:$X), attrs), (outs T:$Y),
                  [Pure, SameOperandsAndResultShape,
                   SameOperandsAndResultElementType]> {
  let summary = "ONNX " # onnxName # ": y = " # formula;
  let description = "Applies `" # formula # "` to each element of `X`, with "
    # "the semantics of the ONNX `" # onnxName # "` operator. `X` and `Y` have "
    # "the same shape and element type.\n\n```mlir\n%y = dsmp." # mnemonic
    # " %x : (tensor<2x?xf32>) -> tensor<2x?xf32>\n```";
}

def Dsmp_AbsOp : Dsmp_UnaryOp<"abs", "Abs", "|x|", Dsmp_ElementwiseClass, Dsmp_NumericTensor> {
  let hasFolder = 1; // integer shape arithmetic
}
def Dsmp_AcosOp : Dsmp_UnaryOp<"acos", "Acos", "acos(x)", Dsmp_TranscendentalClass>;
def Dsmp_AcoshOp : Dsmp_UnaryOp<"acosh", "Acosh", "acosh(x)", Dsmp_TranscendentalClass>;
def Dsmp_AsinOp : Dsmp_UnaryOp<"asin", "Asin", "asin(x)", Dsmp_TranscendentalClass>;
def Dsmp_AsinhOp : Dsmp_UnaryOp<"asinh", "Asinh", "asinh(x)", Dsmp_TranscendentalClass>;
def Dsmp_AtanOp : Dsmp_UnaryOp<"atan", "Atan", "atan(x)", Dsmp_TranscendentalClass>;
def Dsmp_AtanhOp : Dsmp_UnaryOp<"atanh", "Atanh", "atanh(x)", Dsmp_TranscendentalClass>;
def Dsmp_CeilOp : Dsmp_UnaryOp<"ceil", "Ceil", "ceil(x)">;
def Dsmp_CeluOp : Dsmp_UnaryOp<"celu", "Celu", "max(0,x) + min(0, alpha*(exp(x/alpha)-1))",
    Dsmp_TranscendentalClass, Dsmp_FloatTensor,
    (ins DefaultValuedAttr<F32Attr, "1.0f">:$alpha)>;
def Dsmp_CosOp : Dsmp_UnaryOp<"cos", "Cos", "cos(x)", Dsmp_TranscendentalClass>;
def Dsmp_CoshOp : Dsmp_UnaryOp<"cosh", "Cosh", "cosh(x)", Dsmp_TranscendentalClass>;
def Dsmp_EluOp : Dsmp_UnaryOp<"elu", "Elu", "x < 0 ? alpha*(exp(x)-1) : x",
    Dsmp_TranscendentalClass, Dsmp_FloatTensor,
    (ins DefaultValuedAttr<F32Attr, "1.0f">:$alpha)>;
def Dsmp_ErfOp : Dsmp_UnaryOp<"erf", "Erf", "erf(x)", Dsmp_TranscendentalClass>;
def Dsmp_ExpOp : Dsmp_UnaryOp<"exp", "Exp", "exp(x)", Dsmp_TranscendentalClass>;
def Dsmp_FloorOp : Dsmp_UnaryOp<"floor", "Floor", "floor(x)">;
def Dsmp_GeluOp : Dsmp_UnaryOp<"gelu", "Gelu",
    "0.5*x*(1+erf(x/sqrt(2))), or its tanh form when approximate = \"tanh\"",
    Dsmp_TranscendentalClass, Dsmp_FloatTensor,
    (ins DefaultValuedStrAttr<StrAttr, "none">:$approximate)>;
def Dsmp_HardSigmoidOp : Dsmp_UnaryOp<"hard_sigmoid", "HardSigmoid",
    "max(0, min(1, alpha*x + beta))", Dsmp_ElementwiseClass, Dsmp_FloatTensor,
    (ins DefaultValuedAttr<F32Attr, "0.2f">:$alpha,
         DefaultValuedAttr<F32Attr, "0.5f">:$beta)>;
def Dsmp_HardSwishOp : Dsmp_UnaryOp<"hard_swish", "HardSwish",
    "x * max(0, min(1, x/6 + 0.5))">;
def Dsmp_LeakyReluOp : Dsmp_UnaryOp<"leaky_relu", "LeakyRelu",
    "x < 0 ? alpha*x : x", Dsmp_ElementwiseClass, Dsmp_FloatTensor,
    (ins DefaultValuedAttr<F32Attr, "0.01f">:$alpha)>;
def Dsmp_LogOp : Dsmp_UnaryOp<"log", "Log", "log(x)", Dsmp_TranscendentalClass>;
def Dsmp_MishOp : Dsmp_UnaryOp<"mish", "Mish", "x * tanh(softplus(x))", Dsmp_TranscendentalClass>;
def Dsmp_NegOp : Dsmp_UnaryOp<"neg", "Neg", "-x", Dsmp_ElementwiseClass, Dsmp_NumericTensor> {
  let hasFolder = 1; // integer shape arithmetic (XLNet's Range(n, -n, -1))
}
def Dsmp_ReciprocalOp : Dsmp_UnaryOp<"reciprocal", "Reciprocal", "1/x">;
def Dsmp_ReluOp : Dsmp_UnaryOp<"relu", "Relu", "max(0, x)", Dsmp_ElementwiseClass, Dsmp_NumericTensor>;
def Dsmp_RoundOp : Dsmp_UnaryOp<"round", "Round", "round half to even(x)">;
def Dsmp_SeluOp : Dsmp_UnaryOp<"selu", "Selu",
    "x <= 0 ? gamma*(alpha*exp(x)-alpha) : gamma*x", Dsmp_TranscendentalClass,
    Dsmp_FloatTensor,
    (ins DefaultValuedAttr<F32Attr, "1.67326319217681884765625f">:$alpha,
         DefaultValuedAttr<F32Attr, "1.05070102214813232421875f">:$gamma)>;
def Dsmp_ShrinkOp : Dsmp_UnaryOp<"shrink", "Shrink",
    "x < -lambd ? x+bias : (x > lambd ? x-bias : 0)", Dsmp_ElementwiseClass,
    Dsmp_NumericTensor,
    (ins DefaultValuedAttr<F32Attr, "0.0f">:$bias,
         DefaultValuedAttr<F32Attr, "0.5f">:$lambd)>;
def Dsmp_SigmoidOp : Dsmp_UnaryOp<"sigmoid", "Sigmoid", "1/(1+exp(-x))", Dsmp_TranscendentalClass>;
def Dsmp_SignOp : Dsmp_UnaryOp<"sign", "Sign", "sign(x)", Dsmp_ElementwiseClass, Dsmp_NumericTensor>;
def Dsmp_SinOp : Dsmp_UnaryOp<"sin", "Sin", "sin(x)", Dsmp_TranscendentalClass>;
def Dsmp_SinhOp : Dsmp_UnaryOp<"sinh", "Sinh", "sinh(x)", Dsmp_TranscendentalClass>;
def Dsmp_SoftplusOp : Dsmp_UnaryOp<"softplus", "Softplus", "log(exp(x)+1)", Dsmp_TranscendentalClass>;
def Dsmp_SoftsignOp : Dsmp_UnaryOp<"softsign", "Softsign", "x/(1+|x|)">;
def Dsmp_SqrtOp : Dsmp_UnaryOp<"sqrt", "Sqrt", "sqrt(x)", Dsmp_TranscendentalClass>;
def Dsmp_TanOp : Dsmp_UnaryOp<"tan", "Tan", "tan(x)", Dsmp_TranscendentalClass>;
def Dsmp_TanhOp : Dsmp_UnaryOp<"tanh", "Tanh", "tanh(x)", Dsmp_TranscendentalClass>;
def Dsmp_ThresholdedReluOp : Dsmp_UnaryOp<"thresholded_relu", "ThresholdedRelu",
    "x > alpha ? x : 0", Dsmp_ElementwiseClass, Dsmp_FloatTensor,
    (ins DefaultValuedAttr<F32Attr, "1.0f">:$alpha)>;

class Dsmp_PredicateOp<string mnemonic, string onnxName, string formula,
                       TypeConstraint T, dag attrs = (ins)>
    : Dsmp_OnnxOp<mnemonic, Dsmp_ElementwiseClass, !con((ins T:$X), attrs),
                  (outs Dsmp_BoolTensor:$Y), [Pure, SameOperandsAndResultShape]> {
  let summary = "ONNX " # onnxName # ": y = " # formula;
  let description = "Computes the boolean `" # formula # "` for each element "
    # "of `X` (ONNX `" # onnxName # "`).\n\n```mlir\n%y = dsmp." # mnemonic
    # " %x : (tensor<4xf32>) -> tensor<4xi1>\n```";
}

def Dsmp_IsInfOp : Dsmp_PredicateOp<"is_inf", "IsInf", "x is +inf or -inf (as enabled)",
    Dsmp_FloatTensor,
    (ins DefaultValuedAttr<I64Attr, "1">:$detect_negative,
         DefaultValuedAttr<I64Attr, "1">:$detect_positive)>;
def Dsmp_IsNaNOp : Dsmp_PredicateOp<"is_nan", "IsNaN", "x is NaN", Dsmp_FloatTensor>;

def Dsmp_NotOp : Dsmp_OnnxOp<"not", Dsmp_ElementwiseClass, (ins Dsmp_BoolTensor:$X),
    (outs Dsmp_BoolTensor:$Y), [Pure, SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "ONNX Not: logical negation";
  let description = [{
    Negates each element of a boolean tensor.

    ```mlir
    %y = dsmp.not %x : (tensor<4xi1>) -> tensor<4xi1>
    ```
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary and n-ary (multidirectional broadcasting)
//===----------------------------------------------------------------------===//

class Dsmp_BinaryOp<string mnemonic, string onnxName, string formula,
                    TypeConstraint T = Dsmp_NumericTensor,
                    Dsmp_OpClassTrait cls = Dsmp_ElementwiseClass,
                    dag attrs = (ins)>
    : Dsmp_OnnxOp<mnemonic, cls, !con((ins T:$A, T:$B), attrs), (outs T:$C),
                  [Pure, ResultsBroadcastableShape,
                   SameOperandsAndResultElementType]> {
  let hasFolder = 1;
  let summary = "ONNX " # onnxName # ": c = " # formula;
  let description = "Computes `" # formula # "` elementwise with ONNX "
    # "multidirectional (numpy) broadcasting of `A` and `B` (ONNX `"
    # onnxName # "`).\n\n```mlir\n%c = dsmp." # mnemonic
    # " %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>\n```";
}

def Dsmp_AddOp : Dsmp_BinaryOp<"add", "Add", "a + b">;
def Dsmp_DivOp : Dsmp_BinaryOp<"div", "Div", "a / b">;
def Dsmp_ModOp : Dsmp_BinaryOp<"mod", "Mod", "a mod b (fmod when fmod = 1)",
    Dsmp_NumericTensor, Dsmp_ElementwiseClass,
    (ins DefaultValuedAttr<I64Attr, "0">:$fmod)>;
def Dsmp_MulOp : Dsmp_BinaryOp<"mul", "Mul", "a * b">;
def Dsmp_SubOp : Dsmp_BinaryOp<"sub", "Sub", "a - b">;

def Dsmp_PowOp : Dsmp_OnnxOp<"pow", Dsmp_TranscendentalClass,
    (ins Dsmp_NumericTensor:$X, Dsmp_NumericTensor:$Y), (outs Dsmp_NumericTensor:$Z),
    [Pure, ResultsBroadcastableShape, AllElementTypesMatch<["X", "Z"]>]> {
  let summary = "ONNX Pow: z = x ^ y";
  let description = [{
    Raises `X` to the power `Y` elementwise, with multidirectional
    broadcasting. The exponent may have a different element type.

    ```mlir
    %z = dsmp.pow %x, %y : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
}

def Dsmp_PReluOp : Dsmp_OnnxOp<"prelu", Dsmp_ElementwiseClass,
    (ins Dsmp_NumericTensor:$X, Dsmp_NumericTensor:$slope), (outs Dsmp_NumericTensor:$Y),
    [Pure, SameOperandsAndResultElementType, AllShapesMatch<["X", "Y"]>]> {
  let summary = "ONNX PRelu: y = x < 0 ? slope*x : x";
  let description = [{
    Leaky ReLU with a learned slope that broadcasts unidirectionally to `X`.

    ```mlir
    %y = dsmp.prelu %x, %s : (tensor<1x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
}

class Dsmp_CompareOp<string mnemonic, string onnxName, string formula,
                     TypeConstraint T = Dsmp_NumericTensor,
                     string exampleElement = "i64">
    : Dsmp_OnnxOp<mnemonic, Dsmp_ElementwiseClass, (ins T:$A, T:$B),
                  (outs Dsmp_BoolTensor:$C),
                  [Pure, ResultsBroadcastableShape, AllElementTypesMatch<["A", "B"]>]> {
  let summary = "ONNX " # onnxName # ": c = " # formula;
  let description = "Computes the boolean `" # formula # "` elementwise with "
    # "multidirectional broadcasting (ONNX `" # onnxName # "`).\n\n```mlir\n"
    # "%c = dsmp." # mnemonic # " %a, %b : (tensor<4x" # exampleElement
    # ">, tensor<" # exampleElement # ">) -> tensor<4xi1>\n```";
}

def Dsmp_AndOp : Dsmp_CompareOp<"and", "And", "a && b", Dsmp_BoolTensor, "i1"> {
  let hasFolder = 1; // a Loop's condition (tf2onnx: iteration < count)
}
def Dsmp_EqualOp : Dsmp_CompareOp<"equal", "Equal", "a == b"> {
  let hasFolder = 1;
}
def Dsmp_GreaterOp : Dsmp_CompareOp<"greater", "Greater", "a > b"> {
  let hasFolder = 1; // a Loop's condition (tf2onnx: iteration < count)
}
def Dsmp_GreaterOrEqualOp : Dsmp_CompareOp<"greater_or_equal", "GreaterOrEqual", "a >= b"> {
  let hasFolder = 1; // a Loop's condition (tf2onnx: iteration < count)
}
def Dsmp_LessOp : Dsmp_CompareOp<"less", "Less", "a < b"> {
  let hasFolder = 1; // a Loop's condition (tf2onnx: iteration < count)
}
def Dsmp_LessOrEqualOp : Dsmp_CompareOp<"less_or_equal", "LessOrEqual", "a <= b"> {
  let hasFolder = 1; // a Loop's condition (tf2onnx: iteration < count)
}
def Dsmp_OrOp : Dsmp_CompareOp<"or", "Or", "a || b", Dsmp_BoolTensor, "i1"> {
  let hasFolder = 1; // a Loop's condition (tf2onnx: iteration < count)
}
def Dsmp_XorOp : Dsmp_CompareOp<"xor", "Xor", "a != b", Dsmp_BoolTensor, "i1"> {
  let hasFolder = 1; // a Loop's condition (tf2onnx: iteration < count)
}

class Dsmp_VariadicOp<string mnemonic, string onnxName, string formula>
    : Dsmp_OnnxOp<mnemonic, Dsmp_ElementwiseClass,
                  (ins Variadic<Dsmp_NumericTensor>:$data_0),
                  (outs Dsmp_NumericTensor:$result),
                  [Pure, ResultsBroadcastableShape, SameOperandsAndResultElementType]> {
  let summary = "ONNX " # onnxName # ": elementwise " # formula # " of all inputs";
  let description = "Computes the elementwise " # formula # " of one or more "
    # "inputs with multidirectional broadcasting (ONNX `" # onnxName
    # "`).\n\n```mlir\n%r = dsmp." # mnemonic # " %a, %b : (tensor<2x3xf32>, "
    # "tensor<3xf32>) -> tensor<2x3xf32>\n```";
  let hasVerifier = 1;
}

def Dsmp_MaxOp : Dsmp_VariadicOp<"max", "Max", "maximum"> {
  let hasFolder = 1;
}
def Dsmp_MeanOp : Dsmp_VariadicOp<"mean", "Mean", "mean">;
def Dsmp_MinOp : Dsmp_VariadicOp<"min", "Min", "minimum"> {
  let hasFolder = 1;
}
def Dsmp_SumOp : Dsmp_VariadicOp<"sum", "Sum", "sum">;

def Dsmp_WhereOp : Dsmp_OnnxOp<"where", Dsmp_ElementwiseClass,
    (ins Dsmp_BoolTensor:$condition, Dsmp_Tensor:$X, Dsmp_Tensor:$Y),
    (outs Dsmp_Tensor:$output),
    [Pure, ResultsBroadcastableShape, AllElementTypesMatch<["X", "Y", "output"]>]> {
  let summary = "ONNX Where: select X where condition holds, else Y";
  let hasFolder = 1;
  let description = [{
    Selects elementwise between `X` and `Y`, with all three inputs broadcast
    together.

    ```mlir
    %r = dsmp.where %c, %x, %y : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    ```
  }];
}

def Dsmp_ClipOp : Dsmp_OnnxOp<"clip", Dsmp_ElementwiseClass,
    (ins Dsmp_NumericTensor:$input, Dsmp_OptTensor:$min, Dsmp_OptTensor:$max),
    (outs Dsmp_NumericTensor:$output),
    [Pure, AllTypesMatch<["input", "output"]>]> {
  let summary = "ONNX Clip: clamp to [min, max]";
  let description = [{
    Clamps each element to `[min, max]`; a `none` bound is unbounded. The
    bounds are rank-0 tensors of the input's element type. Opset < 11 passed
    the bounds as attributes; the importer turns them into constants.

    ```mlir
    %lo = dsmp.constant dense<0.0> : tensor<f32>
    %n = dsmp.none
    %y = dsmp.clip %x, %lo, %n : (tensor<4xf32>, tensor<f32>, none) -> tensor<4xf32>
    ```
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def Dsmp_MatMulOp : Dsmp_OnnxOp<"matmul", Dsmp_MatmulClass,
    (ins Dsmp_NumericTensor:$A, Dsmp_NumericTensor:$B), (outs Dsmp_NumericTensor:$Y),
    [Pure],
    DeclareOpInterfaceMethods<Dsmp_PrecisionOpInterface, ["getFlopCount"]>> {
  let summary = "ONNX MatMul: numpy matmul with batch broadcasting";
  let description = [{
    Matrix product with numpy semantics: 1-D operands are promoted to
    matrices and the batch dims broadcast.

    `A` and `B` have one element type. The result has it too, or is f32
    where the operands are f16 or bf16: the sum, accumulated in f32, is
    stored without rounding to 16 bits, as GEMM libraries' f32 output
    does (dsmp-minimize-casts folds a widening cast of the product into
    it). This form has no ONNX node of its own; it exports as f32 copies of
    the operands and an f32 MatMul, which gives the same values.

    ```mlir
    %y = dsmp.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
    %w = dsmp.matmul %h, %e : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_GemmOp : Dsmp_OnnxOp<"gemm", Dsmp_MatmulClass,
    (ins Dsmp_NumericTensor:$A, Dsmp_NumericTensor:$B, Dsmp_OptTensor:$C,
         DefaultValuedAttr<F32Attr, "1.0f">:$alpha,
         DefaultValuedAttr<F32Attr, "1.0f">:$beta,
         DefaultValuedAttr<I64Attr, "0">:$transA,
         DefaultValuedAttr<I64Attr, "0">:$transB),
    (outs Dsmp_NumericTensor:$Y), [Pure],
    DeclareOpInterfaceMethods<Dsmp_PrecisionOpInterface, ["getFlopCount"]>> {
  let summary = "ONNX Gemm: Y = alpha * op(A) * op(B) + beta * C";
  let description = [{
    2-D general matrix multiply; `transA`/`transB` transpose the operands and
    the optional `C` broadcasts unidirectionally to `[M, N]`.

    As with MatMul, f16 or bf16 `A` and `B` may give an f32 result: the sum
    and `C` are added in f32 and stored unrounded (dsmp-minimize-casts). It
    exports as f32 copies of the operands and an f32 Gemm.

    ```mlir
    %n = dsmp.none
    %y = dsmp.gemm %a, %b, %n {transB = 1 : i64} : (tensor<4x8xf32>, tensor<16x8xf32>, none) -> tensor<4x16xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_EinsumOp : Dsmp_OnnxOp<"einsum", Dsmp_MatmulClass,
    (ins Variadic<Dsmp_NumericTensor>:$Inputs, StrAttr:$equation),
    (outs Dsmp_NumericTensor:$Output), [Pure],
    DeclareOpInterfaceMethods<Dsmp_PrecisionOpInterface, ["getFlopCount"]>> {
  let summary = "ONNX Einsum: Einstein summation";
  let description = [{
    Contracts the inputs as the Einstein-summation `equation` says: letters
    name dims, `...` the dims an ellipsis covers (broadcast right-aligned),
    a letter repeated within a term takes a diagonal, and letters missing
    from the result (after `->`, or else the letters used once, sorted)
    are summed over. The sum accumulates in the op's accumulation format.

    ```mlir
    %y = dsmp.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_ConvAttrs {
  dag attrs = (ins DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
                   OptionalAttr<DenseI64ArrayAttr>:$dilations,
                   DefaultValuedAttr<I64Attr, "1">:$group,
                   OptionalAttr<DenseI64ArrayAttr>:$kernel_shape,
                   OptionalAttr<DenseI64ArrayAttr>:$pads,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
}

def Dsmp_ConvOp : Dsmp_OnnxOp<"conv", Dsmp_ConvClass,
    !con((ins Dsmp_FloatTensor:$X, Dsmp_FloatTensor:$W, Dsmp_OptTensor:$B),
         Dsmp_ConvAttrs.attrs),
    (outs Dsmp_FloatTensor:$Y), [Pure],
    DeclareOpInterfaceMethods<Dsmp_PrecisionOpInterface, ["getFlopCount"]>> {
  let summary = "ONNX Conv: N-d grouped convolution";
  let description = [{
    Convolution of `X` [N, C, D1..Dn] with `W` [M, C/group, k1..kn] plus the
    optional bias `B` [M]. Unset `dilations`/`strides` are 1, unset `pads`
    are 0, and `kernel_shape` defaults to W's spatial dims.

    ```mlir
    %n = dsmp.none
    %y = dsmp.conv %x, %w, %n {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x8x8xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_ConvTransposeOp : Dsmp_OnnxOp<"conv_transpose", Dsmp_ConvClass,
    !con((ins Dsmp_FloatTensor:$X, Dsmp_FloatTensor:$W, Dsmp_OptTensor:$B,
              OptionalAttr<DenseI64ArrayAttr>:$output_padding,
              OptionalAttr<DenseI64ArrayAttr>:$output_shape),
         Dsmp_ConvAttrs.attrs),
    (outs Dsmp_FloatTensor:$Y), [Pure],
    DeclareOpInterfaceMethods<Dsmp_PrecisionOpInterface, ["getFlopCount"]>> {
  let summary = "ONNX ConvTranspose: transposed (fractionally strided) convolution";
  let description = [{
    The gradient of Conv with respect to its input. `W` is [C, M/group, k..].

    ```mlir
    %n = dsmp.none
    %y = dsmp.conv_transpose %x, %w, %n {strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x2x2x2xf32>, none) -> tensor<1x2x16x16xf32>
    ```
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

// Elementwise class: in inference its statistics are inputs (constants in a
// trained model), so it is a per-channel affine map, computed in f32 from a
// 16-bit X, its parameters kept f32 (isDataOperand).
def Dsmp_BatchNormalizationOp : Dsmp_OnnxOp<"batch_normalization",
    Dsmp_ElementwiseClass,
    (ins Dsmp_FloatTensor:$X, Dsmp_FloatTensor:$scale, Dsmp_FloatTensor:$B,
         Dsmp_FloatTensor:$input_mean, Dsmp_FloatTensor:$input_var,
         DefaultValuedAttr<F32Attr, "1e-05f">:$epsilon,
         DefaultValuedAttr<F32Attr, "0.9f">:$momentum),
    (outs Dsmp_FloatTensor:$Y), [Pure, AllShapesMatch<["X", "Y"]>]> {
  let summary = "ONNX BatchNormalization in inference mode";
  let description = [{
    `Y = (X - mean) / sqrt(var + epsilon) * scale + B` per channel (dim 1).
    Only the inference form is modelled; training-mode outputs are rejected
    by the importer.

    ```mlir
    %y = dsmp.batch_normalization %x, %s, %b, %m, %v : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_GroupNormalizationOp : Dsmp_OnnxOp<"group_normalization",
    Dsmp_NormalizationClass,
    (ins Dsmp_FloatTensor:$X, Dsmp_FloatTensor:$scale, Dsmp_FloatTensor:$bias,
         DefaultValuedAttr<F32Attr, "1e-05f">:$epsilon, I64Attr:$num_groups,
         DefaultValuedAttr<I64Attr, "1">:$stash_type),
    (outs Dsmp_FloatTensor:$Y), [Pure, AllShapesMatch<["X", "Y"]>]> {
  let summary = "ONNX GroupNormalization";
  let description = [{
    Normalizes each of `num_groups` channel groups over the group's channels
    and spatial dims, then applies the per-channel `scale` and `bias`.

    ```mlir
    %y = dsmp.group_normalization %x, %s, %b {num_groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
}

def Dsmp_InstanceNormalizationOp : Dsmp_OnnxOp<"instance_normalization",
    Dsmp_NormalizationClass,
    (ins Dsmp_FloatTensor:$input, Dsmp_FloatTensor:$scale, Dsmp_FloatTensor:$B,
         DefaultValuedAttr<F32Attr, "1e-05f">:$epsilon),
    (outs Dsmp_FloatTensor:$output), [Pure, AllShapesMatch<["input", "output"]>]> {
  let summary = "ONNX InstanceNormalization";
  let description = [{
    Normalizes each channel of each sample over its spatial dims.

    ```mlir
    %y = dsmp.instance_normalization %x, %s, %b : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
}

def Dsmp_LayerNormalizationOp : Dsmp_OnnxOp<"layer_normalization",
    Dsmp_NormalizationClass,
    (ins Dsmp_FloatTensor:$X, Dsmp_FloatTensor:$Scale, Dsmp_OptTensor:$B,
         DefaultValuedAttr<I64Attr, "-1">:$axis,
         DefaultValuedAttr<F32Attr, "1e-05f">:$epsilon,
         DefaultValuedAttr<I64Attr, "1">:$stash_type),
    (outs Dsmp_FloatTensor:$Y, Dsmp_OptTensor:$Mean, Dsmp_OptTensor:$InvStdDev),
    [Pure, AllShapesMatch<["X", "Y"]>]> {
  let summary = "ONNX LayerNormalization";
  let description = [{
    Normalizes over the dims from `axis` on, then applies `Scale` and `B`.
    `Mean` and `InvStdDev` are optional outputs (`none` when unused).

    ```mlir
    %n = dsmp.none
    %y, %m, %i = dsmp.layer_normalization %x, %s, %n : (tensor<2x8xf32>, tensor<8xf32>, none) -> (tensor<2x8xf32>, none, none)
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_LpNormalizationOp : Dsmp_OnnxOp<"lp_normalization", Dsmp_NormalizationClass,
    (ins Dsmp_FloatTensor:$input, DefaultValuedAttr<I64Attr, "-1">:$axis,
         DefaultValuedAttr<I64Attr, "2">:$p),
    (outs Dsmp_FloatTensor:$output), [Pure, SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "ONNX LpNormalization";
  let description = [{
    Divides by the Lp norm along `axis`.

    ```mlir
    %y = dsmp.lp_normalization %x : (tensor<2x8xf32>) -> tensor<2x8xf32>
    ```
  }];
}

def Dsmp_LRNOp : Dsmp_OnnxOp<"lrn", Dsmp_NormalizationClass,
    (ins Dsmp_FloatTensor:$X, DefaultValuedAttr<F32Attr, "0.0001f">:$alpha,
         DefaultValuedAttr<F32Attr, "0.75f">:$beta,
         DefaultValuedAttr<F32Attr, "1.0f">:$bias, I64Attr:$size),
    (outs Dsmp_FloatTensor:$Y), [Pure, SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "ONNX LRN: local response normalization across channels";
  let description = [{
    ```mlir
    %y = dsmp.lrn %x {size = 3 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
}

def Dsmp_MeanVarianceNormalizationOp : Dsmp_OnnxOp<"mean_variance_normalization",
    Dsmp_NormalizationClass,
    (ins Dsmp_FloatTensor:$X, OptionalAttr<DenseI64ArrayAttr>:$axes),
    (outs Dsmp_FloatTensor:$Y), [Pure, SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "ONNX MeanVarianceNormalization: (x - mean) / std over axes";
  let description = [{
    `axes` defaults to [0, 2, 3].

    ```mlir
    %y = dsmp.mean_variance_normalization %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
}

class Dsmp_SoftmaxLikeOp<string mnemonic, string onnxName, string formula,
                         Dsmp_OpClassTrait cls>
    : Dsmp_OnnxOp<mnemonic, cls,
                  (ins Dsmp_FloatTensor:$input, DefaultValuedAttr<I64Attr, "-1">:$axis),
                  (outs Dsmp_FloatTensor:$output), [Pure, SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "ONNX " # onnxName # " along one axis";
  let description = "Computes `" # formula # "` along `axis` (opset-13 "
    # "semantics; the importer rewrites the older flattening form).\n\n```mlir\n"
    # "%y = dsmp." # mnemonic # " %x {axis = 1 : i64} : (tensor<2x8xf32>) -> tensor<2x8xf32>\n```";
  let hasVerifier = 1;
}

def Dsmp_HardmaxOp : Dsmp_SoftmaxLikeOp<"hardmax", "Hardmax", "one-hot of argmax", Dsmp_ReductionClass>;
def Dsmp_LogSoftmaxOp : Dsmp_SoftmaxLikeOp<"log_softmax", "LogSoftmax",
    "x - log(sum(exp(x)))", Dsmp_NormalizationClass>;
def Dsmp_SoftmaxOp : Dsmp_SoftmaxLikeOp<"softmax", "Softmax",
    "exp(x) / sum(exp(x))", Dsmp_NormalizationClass>;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Dsmp_ReduceOp<string mnemonic, string onnxName, string formula,
                    TypeConstraint T = Dsmp_NumericTensor>
    : Dsmp_OnnxOp<mnemonic, Dsmp_ReductionClass,
                  (ins T:$data, Dsmp_OptIndexTensor:$axes,
                       DefaultValuedAttr<I64Attr, "1">:$keepdims,
                       DefaultValuedAttr<I64Attr, "0">:$noop_with_empty_axes),
                  (outs T:$reduced), [Pure, AllElementTypesMatch<["data", "reduced"]>]> {
  let summary = "ONNX " # onnxName # ": " # formula # " over axes";
  let description = "Reduces `data` with " # formula # " over `axes` (all "
    # "dims when `axes` is none or empty, unless `noop_with_empty_axes`). "
    # "Opsets that passed `axes` as an attribute are imported with a constant "
    # "operand.\n\n```mlir\n%a = dsmp.constant dense<1> : tensor<1xi64>\n"
    # "%r = dsmp." # mnemonic # " %x, %a : (tensor<2x8xf32>, tensor<1xi64>) -> "
    # "tensor<2x1xf32>\n```";
  let hasVerifier = 1;
}

def Dsmp_ReduceL1Op : Dsmp_ReduceOp<"reduce_l1", "ReduceL1", "sum(|x|)">;
def Dsmp_ReduceL2Op : Dsmp_ReduceOp<"reduce_l2", "ReduceL2", "sqrt(sum(x^2))">;
def Dsmp_ReduceLogSumOp : Dsmp_ReduceOp<"reduce_log_sum", "ReduceLogSum", "log(sum(x))">;
def Dsmp_ReduceLogSumExpOp : Dsmp_ReduceOp<"reduce_log_sum_exp", "ReduceLogSumExp", "log(sum(exp(x)))">;
def Dsmp_ReduceMaxOp : Dsmp_ReduceOp<"reduce_max", "ReduceMax", "max"> {
  let hasFolder = 1; // integer shape arithmetic (tf2onnx: ReduceProd of dims)
}
def Dsmp_ReduceMeanOp : Dsmp_ReduceOp<"reduce_mean", "ReduceMean", "mean">;
def Dsmp_ReduceMinOp : Dsmp_ReduceOp<"reduce_min", "ReduceMin", "min"> {
  let hasFolder = 1; // integer shape arithmetic (tf2onnx: ReduceProd of dims)
}
def Dsmp_ReduceProdOp : Dsmp_ReduceOp<"reduce_prod", "ReduceProd", "product"> {
  let hasFolder = 1; // integer shape arithmetic (tf2onnx: ReduceProd of dims)
}
def Dsmp_ReduceSumOp : Dsmp_ReduceOp<"reduce_sum", "ReduceSum", "sum"> {
  let hasFolder = 1; // integer shape arithmetic (tf2onnx: ReduceProd of dims)
}
def Dsmp_ReduceSumSquareOp : Dsmp_ReduceOp<"reduce_sum_square", "ReduceSumSquare", "sum(x^2)">;

class Dsmp_ArgOp<string mnemonic, string onnxName, string what>
    : Dsmp_OnnxOp<mnemonic, Dsmp_ReductionClass,
                  (ins Dsmp_NumericTensor:$data, DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedAttr<I64Attr, "1">:$keepdims,
                       DefaultValuedAttr<I64Attr, "0">:$select_last_index),
                  (outs Dsmp_I64Tensor:$reduced), [Pure]> {
  let summary = "ONNX " # onnxName # ": index of the " # what # " along axis";
  let description = "Returns the int64 index of the " # what # " along `axis`."
    # "\n\n```mlir\n%i = dsmp." # mnemonic # " %x {axis = 1 : i64} : "
    # "(tensor<2x8xf32>) -> tensor<2x1xi64>\n```";
  let hasVerifier = 1;
}

def Dsmp_ArgMaxOp : Dsmp_ArgOp<"arg_max", "ArgMax", "largest element">;
def Dsmp_ArgMinOp : Dsmp_ArgOp<"arg_min", "ArgMin", "smallest element">;

def Dsmp_CumSumOp : Dsmp_OnnxOp<"cum_sum", Dsmp_ReductionClass,
    (ins Dsmp_NumericTensor:$x, Dsmp_IndexTensor:$axis,
         DefaultValuedAttr<I64Attr, "0">:$exclusive,
         DefaultValuedAttr<I64Attr, "0">:$reverse),
    (outs Dsmp_NumericTensor:$y), [Pure, AllTypesMatch<["x", "y"]>]> {
  let summary = "ONNX CumSum: cumulative sum along an axis";
  let description = [{
    ```mlir
    %a = dsmp.constant dense<0> : tensor<i64>
    %y = dsmp.cum_sum %x, %a : (tensor<8xf32>, tensor<i64>) -> tensor<8xf32>
    ```
  }];
}

def Dsmp_TopKOp : Dsmp_OnnxOp<"top_k", Dsmp_DataMovementClass,
    (ins Dsmp_NumericTensor:$X, Dsmp_I64Tensor:$K,
         DefaultValuedAttr<I64Attr, "-1">:$axis,
         DefaultValuedAttr<I64Attr, "1">:$largest,
         DefaultValuedAttr<I64Attr, "1">:$sorted),
    (outs Dsmp_NumericTensor:$Values, Dsmp_I64Tensor:$Indices),
    [Pure, AllElementTypesMatch<["X", "Values"]>]> {
  let summary = "ONNX TopK: the k largest (or smallest) elements along an axis";
  let description = [{
    ```mlir
    %k = dsmp.constant dense<2> : tensor<1xi64>
    %v, %i = dsmp.top_k %x, %k : (tensor<2x8xf32>, tensor<1xi64>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

def Dsmp_AveragePoolOp : Dsmp_OnnxOp<"average_pool", Dsmp_ReductionClass,
    (ins Dsmp_FloatTensor:$X,
         DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
         DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
         DefaultValuedAttr<I64Attr, "0">:$count_include_pad,
         OptionalAttr<DenseI64ArrayAttr>:$dilations,
         DenseI64ArrayAttr:$kernel_shape,
         OptionalAttr<DenseI64ArrayAttr>:$pads,
         OptionalAttr<DenseI64ArrayAttr>:$strides),
    (outs Dsmp_FloatTensor:$Y), [Pure, SameOperandsAndResultElementType]> {
  let summary = "ONNX AveragePool";
  let description = [{
    ```mlir
    %y = dsmp.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_MaxPoolOp : Dsmp_OnnxOp<"max_pool", Dsmp_ReductionClass,
    (ins Dsmp_NumericTensor:$X,
         DefaultValuedStrAttr<StrAttr, "NOTSET">:$auto_pad,
         DefaultValuedAttr<I64Attr, "0">:$ceil_mode,
         OptionalAttr<DenseI64ArrayAttr>:$dilations,
         DenseI64ArrayAttr:$kernel_shape,
         OptionalAttr<DenseI64ArrayAttr>:$pads,
         DefaultValuedAttr<I64Attr, "0">:$storage_order,
         OptionalAttr<DenseI64ArrayAttr>:$strides),
    (outs Dsmp_NumericTensor:$Y, Dsmp_OptTensor:$Indices), [Pure]> {
  let summary = "ONNX MaxPool";
  let description = [{
    `Indices` is an optional output (`none` when unused).

    ```mlir
    %y, %i = dsmp.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> (tensor<1x4x4x4xf32>, none)
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_MaxPoolGradOp : Dsmp_Op<"max_pool_grad",
    [Pure, AllTypesMatch<["X", "dX"]>, AllTypesMatch<["Y", "dY"]>]> {
  let summary = "MaxPool's vector-Jacobian product (no ONNX counterpart)";
  let description = [{
    The gradient with respect to `X` of `Y = dsmp.max_pool X` with the same
    window attributes (no auto_pad, no ceil_mode), given `dY`: each window's
    gradient goes to the window's elements equal to its maximum `Y`, shared
    evenly where several tie; positions no window reaches get 0.

    MaxPool's VJP model emits it for the precision analyses' adjoint graphs:
    the reference evaluator runs it as one kernel, and the host lowering
    first expands it (`dsmp-expand-max-pool-grad`) into one strided slice,
    comparison and one-hot depthwise ConvTranspose per window offset.

    ```mlir
    %dx = dsmp.max_pool_grad %x, %y, %dy {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x8x8xf32>
    ```
  }];
  let arguments = (ins Dsmp_FloatTensor:$X, Dsmp_FloatTensor:$Y,
                       Dsmp_FloatTensor:$dY,
                       DenseI64ArrayAttr:$kernel_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       OptionalAttr<DenseI64ArrayAttr>:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs Dsmp_FloatTensor:$dX);
  let hasVerifier = 1;
}

def Dsmp_ScanGradientsOp : Dsmp_Op<"scan_gradients", [Pure]> {
  let summary = "Unscales gradients and measures them in one pass (no ONNX "
                "counterpart)";
  let description = [{
    What dynamic loss scaling needs from a step's gradients, read once:
    `unscaled` is each gradient (as f32) times `inverse_scale`, and row `i`
    of `stats` (tensor<N x 5 x f32>) describes gradient `i` as it was given
    (still scaled):

    | column | value |
    |---|---|
    | 0 | amax: the largest finite or infinite magnitude (NaNs left out) |
    | 1 | underflows: nonzero values below `format`'s smallest normal (subnormal or flushed to zero there) |
    | 2 | infs |
    | 3 | NaNs |
    | 4 | the sum of the squares of the unscaled values |

    Counts are f32 sums (exact up to 2^24 per gradient). The training step
    emits it to unscale (`--train`); the lowering reads each gradient once
    in lanes (a thread each: on a GPU lane p reads elements p, p + L, ...,
    so neighbouring threads read neighbouring addresses) and reduces the
    lanes' partial results in a second, small pass.

    ```mlir
    %u0, %u1, %stats = dsmp.scan_gradients %inv, %g0, %g1 {format = f16} : (tensor<f32>, tensor<64x3xf32>, tensor<64xf32>) -> (tensor<64x3xf32>, tensor<64xf32>, tensor<2x5xf32>)
    ```
  }];
  let arguments = (ins TensorOf<[F32]>:$inverse_scale,
                       Variadic<Dsmp_FloatTensor>:$gradients,
                       TypeAttr:$format);
  let results = (outs Variadic<TensorOf<[F32]>>:$unscaled,
                      TensorOf<[F32]>:$stats);
  let hasVerifier = 1;
}

def Dsmp_DftTableOp : Dsmp_Op<"dft_table", [Pure]> {
  let summary = "A DFT's cosine and sine table for a length known at run "
                "time (no ONNX counterpart)";
  let description = [{
    ONNX's DFT imports as a MatMul by a table (lib/Import/ONNX/Spectral.cpp,
    dialects/Dsmp/IR/DftTable.h): row `n * parts + q` (q: the real or
    imaginary part of sample n), column `2k + p` (p: the part of bin k).
    Where the transformed dim is static, the table is a constant; where it
    is a run-time dim (FNet's mixing over a dynamic sequence), this op
    stands for it: once shape specialization makes `length` a constant,
    dsmp-refine-shapes gives it the table's static type and it folds to
    that constant. `parts` is 1 (a real signal) or 2;
    `onesided` keeps bins 0..length/2 of a real forward transform;
    `inverse` transforms back and divides by the length.

    ```mlir
    %t = dsmp.dft_table %n {inverse = false, onesided = false, parts = 2 : i64} : (tensor<1xi64>) -> tensor<?x?xf32>
    ```
  }];
  let arguments = (ins Dsmp_I64Tensor:$length, I64Attr:$parts,
                       BoolAttr:$inverse, BoolAttr:$onesided);
  let results = (outs TensorOf<[AnyFloat]>:$table);
  let extraClassDeclaration = [{
    /// The table's static type where `length` is a constant (for
    /// dsmp-refine-shapes), else null.
    RankedTensorType knownType();
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

class Dsmp_GlobalPoolOp<string mnemonic, string onnxName, string what>
    : Dsmp_OnnxOp<mnemonic, Dsmp_ReductionClass, (ins Dsmp_FloatTensor:$X),
                  (outs Dsmp_FloatTensor:$Y), [Pure, SameOperandsAndResultElementType]> {
  let summary = "ONNX " # onnxName # ": " # what # " over all spatial dims";
  let description = "Reduces [N, C, D1..Dn] to [N, C, 1..1] with the " # what
    # ".\n\n```mlir\n%y = dsmp." # mnemonic
    # " %x : (tensor<1x4x8x8xf32>) -> tensor<1x4x1x1xf32>\n```";
  let hasVerifier = 1;
}

def Dsmp_GlobalAveragePoolOp : Dsmp_GlobalPoolOp<"global_average_pool", "GlobalAveragePool", "mean">;
def Dsmp_GlobalMaxPoolOp : Dsmp_GlobalPoolOp<"global_max_pool", "GlobalMaxPool", "maximum">;

//===----------------------------------------------------------------------===//
// Recurrent
//===----------------------------------------------------------------------===//

def Dsmp_RecurrentAttrs {
  dag attrs = (ins OptionalAttr<DenseF32ArrayAttr>:$activation_alpha,
                   OptionalAttr<DenseF32ArrayAttr>:$activation_beta,
                   OptionalAttr<StrArrayAttr>:$activations,
                   OptionalAttr<F32Attr>:$clip,
                   DefaultValuedStrAttr<StrAttr, "forward">:$direction,
                   OptionalAttr<I64Attr>:$hidden_size,
                   DefaultValuedAttr<I64Attr, "0">:$layout);
}

def Dsmp_LSTMOp : Dsmp_OnnxOp<"lstm", Dsmp_MatmulClass,
    !con((ins Dsmp_FloatTensor:$X, Dsmp_FloatTensor:$W, Dsmp_FloatTensor:$R,
              Dsmp_OptTensor:$B, Dsmp_OptTensor:$sequence_lens,
              Dsmp_OptTensor:$initial_h, Dsmp_OptTensor:$initial_c,
              Dsmp_OptTensor:$P, DefaultValuedAttr<I64Attr, "0">:$input_forget),
         Dsmp_RecurrentAttrs.attrs),
    (outs Dsmp_OptTensor:$Y, Dsmp_OptTensor:$Y_h, Dsmp_OptTensor:$Y_c), [Pure],
    DeclareOpInterfaceMethods<Dsmp_PrecisionOpInterface, ["getFlopCount"]>> {
  let summary = "ONNX LSTM: a one-layer long short-term memory network";
  let description = [{
    Gates in iofc order; `W` [dirs, 4H, I], `R` [dirs, 4H, H], `B` [dirs, 8H].

    ```mlir
    %n = dsmp.none
    %y, %h, %c = dsmp.lstm %x, %w, %r, %n, %n, %n, %n, %n {hidden_size = 4 : i64} : (tensor<5x1x3xf32>, tensor<1x16x3xf32>, tensor<1x16x4xf32>, none, none, none, none, none) -> (tensor<5x1x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>)
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_GRUOp : Dsmp_OnnxOp<"gru", Dsmp_MatmulClass,
    !con((ins Dsmp_FloatTensor:$X, Dsmp_FloatTensor:$W, Dsmp_FloatTensor:$R,
              Dsmp_OptTensor:$B, Dsmp_OptTensor:$sequence_lens,
              Dsmp_OptTensor:$initial_h,
              DefaultValuedAttr<I64Attr, "0">:$linear_before_reset),
         Dsmp_RecurrentAttrs.attrs),
    (outs Dsmp_OptTensor:$Y, Dsmp_OptTensor:$Y_h), [Pure],
    DeclareOpInterfaceMethods<Dsmp_PrecisionOpInterface, ["getFlopCount"]>> {
  let summary = "ONNX GRU: a one-layer gated recurrent unit network";
  let description = [{
    Gates in zrh order; `W` [dirs, 3H, I], `R` [dirs, 3H, H].

    ```mlir
    %n = dsmp.none
    %y, %h = dsmp.gru %x, %w, %r, %n, %n, %n {hidden_size = 4 : i64} : (tensor<5x1x3xf32>, tensor<1x12x3xf32>, tensor<1x12x4xf32>, none, none, none) -> (tensor<5x1x1x4xf32>, tensor<1x1x4xf32>)
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_RNNOp : Dsmp_OnnxOp<"rnn", Dsmp_MatmulClass,
    !con((ins Dsmp_FloatTensor:$X, Dsmp_FloatTensor:$W, Dsmp_FloatTensor:$R,
              Dsmp_OptTensor:$B, Dsmp_OptTensor:$sequence_lens,
              Dsmp_OptTensor:$initial_h),
         Dsmp_RecurrentAttrs.attrs),
    (outs Dsmp_OptTensor:$Y, Dsmp_OptTensor:$Y_h), [Pure],
    DeclareOpInterfaceMethods<Dsmp_PrecisionOpInterface, ["getFlopCount"]>> {
  let summary = "ONNX RNN: a one-layer simple recurrent network";
  let description = [{
    `W` [dirs, H, I], `R` [dirs, H, H]; activation Tanh by default.

    ```mlir
    %n = dsmp.none
    %y, %h = dsmp.rnn %x, %w, %r, %n, %n, %n {hidden_size = 4 : i64} : (tensor<5x1x3xf32>, tensor<1x4x3xf32>, tensor<1x4x4xf32>, none, none, none) -> (tensor<5x1x1x4xf32>, tensor<1x1x4xf32>)
    ```
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement and shape computation
//===----------------------------------------------------------------------===//

def Dsmp_ConcatOp : Dsmp_OnnxOp<"concat", Dsmp_DataMovementClass,
    (ins Variadic<Dsmp_Tensor>:$inputs, I64Attr:$axis),
    (outs Dsmp_Tensor:$concat_result), [Pure, SameOperandsAndResultElementType]> {
  let summary = "ONNX Concat: join tensors along an axis";
  let description = [{
    ```mlir
    %y = dsmp.concat %a, %b {axis = 0 : i64} : (tensor<1xi64>, tensor<2xi64>) -> tensor<3xi64>
    ```
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dsmp_ConstantOfShapeOp : Dsmp_OnnxOp<"constant_of_shape", Dsmp_DataMovementClass,
    (ins Dsmp_I64Tensor:$input, OptionalAttr<ElementsAttr>:$value),
    (outs Dsmp_Tensor:$output), [Pure]> {
  let summary = "ONNX ConstantOfShape: a tensor of the given shape filled with one value";
  let description = [{
    `value` is a one-element tensor (default float 0).

    ```mlir
    %y = dsmp.constant_of_shape %s {value = dense<1> : tensor<1xi64>} : (tensor<2xi64>) -> tensor<?x?xi64>
    ```
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dsmp_DepthToSpaceOp : Dsmp_OnnxOp<"depth_to_space", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$input, I64Attr:$blocksize,
         DefaultValuedStrAttr<StrAttr, "DCR">:$mode),
    (outs Dsmp_Tensor:$output), [Pure, SameOperandsAndResultElementType]> {
  let summary = "ONNX DepthToSpace";
  let description = [{
    ```mlir
    %y = dsmp.depth_to_space %x {blocksize = 2 : i64} : (tensor<1x8x2x2xf32>) -> tensor<1x2x4x4xf32>
    ```
  }];
}

def Dsmp_DropoutOp : Dsmp_OnnxOp<"dropout", Dsmp_DataMovementClass,
    (ins Dsmp_FloatTensor:$data, Dsmp_OptTensor:$ratio, Dsmp_OptTensor:$training_mode,
         OptionalAttr<I64Attr>:$seed),
    (outs Dsmp_FloatTensor:$output, Dsmp_OptTensor:$mask),
    [Pure, AllTypesMatch<["data", "output"]>]> {
  let summary = "ONNX Dropout (identity at inference)";
  let description = [{
    ```mlir
    %n = dsmp.none
    %y, %m = dsmp.dropout %x, %n, %n : (tensor<4xf32>, none, none) -> (tensor<4xf32>, none)
    ```
  }];
}

def Dsmp_ExpandOp : Dsmp_OnnxOp<"expand", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$input, Dsmp_I64Tensor:$shape),
    (outs Dsmp_Tensor:$output), [Pure, AllElementTypesMatch<["input", "output"]>]> {
  let summary = "ONNX Expand: broadcast to a shape";
  let description = [{
    ```mlir
    %y = dsmp.expand %x, %s : (tensor<1x4xf32>, tensor<2xi64>) -> tensor<3x4xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_FlattenOp : Dsmp_OnnxOp<"flatten", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$input, DefaultValuedAttr<I64Attr, "1">:$axis),
    (outs Dsmp_Tensor:$output), [Pure, AllElementTypesMatch<["input", "output"]>]> {
  let summary = "ONNX Flatten: collapse to 2-D at axis";
  let description = [{
    ```mlir
    %y = dsmp.flatten %x : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_GatherOp : Dsmp_OnnxOp<"gather", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$data, Dsmp_IndexTensor:$indices,
         DefaultValuedAttr<I64Attr, "0">:$axis),
    (outs Dsmp_Tensor:$output), [Pure, AllElementTypesMatch<["data", "output"]>]> {
  let summary = "ONNX Gather: take slices along an axis";
  let description = [{
    Output rank is rank(data) - 1 + rank(indices); negative indices count
    from the end.

    ```mlir
    %y = dsmp.gather %x, %i {axis = 0 : i64} : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
    ```
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dsmp_GatherElementsOp : Dsmp_OnnxOp<"gather_elements", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$data, Dsmp_IndexTensor:$indices,
         DefaultValuedAttr<I64Attr, "0">:$axis),
    (outs Dsmp_Tensor:$output), [Pure, AllElementTypesMatch<["data", "output"]>,
                                  Dsmp_AllShapesCompatible<["indices", "output"]>]> {
  let summary = "ONNX GatherElements";
  let description = [{
    ```mlir
    %y = dsmp.gather_elements %x, %i {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
    ```
  }];
}

def Dsmp_GatherNDOp : Dsmp_OnnxOp<"gather_nd", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$data, Dsmp_I64Tensor:$indices,
         DefaultValuedAttr<I64Attr, "0">:$batch_dims),
    (outs Dsmp_Tensor:$output), [Pure, AllElementTypesMatch<["data", "output"]>]> {
  let summary = "ONNX GatherND";
  let description = [{
    ```mlir
    %y = dsmp.gather_nd %x, %i : (tensor<2x4xf32>, tensor<3x2xi64>) -> tensor<3xf32>
    ```
  }];
}

def Dsmp_ScatterNDOp : Dsmp_OnnxOp<"scatter_nd", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$data, Dsmp_I64Tensor:$indices, Dsmp_Tensor:$updates,
         DefaultValuedStrAttr<StrAttr, "none">:$reduction),
    (outs Dsmp_Tensor:$output), [Pure, AllTypesMatch<["data", "output"]>,
                                  AllElementTypesMatch<["data", "updates"]>]> {
  let summary = "ONNX ScatterND: write slices of `updates` at index tuples";
  let description = [{
    `indices` is [..., q]: each q-tuple names a slice of `data` (its first q
    dims fixed) that the matching slice of `updates` replaces, or is combined
    with by `reduction` (none, add, mul, max, min). Folds when every operand
    is a constant and reduction is none; the host lowering is an scf.for
    over the index tuples (Swin's shifted-window masks).

    ```mlir
    %y = dsmp.scatter_nd %x, %i, %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
    ```
  }];
  let hasFolder = 1;
}

def Dsmp_ScatterElementsOp : Dsmp_OnnxOp<"scatter_elements", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$data, Dsmp_IndexTensor:$indices, Dsmp_Tensor:$updates,
         DefaultValuedAttr<I64Attr, "0">:$axis,
         DefaultValuedStrAttr<StrAttr, "none">:$reduction),
    (outs Dsmp_Tensor:$output), [Pure, AllTypesMatch<["data", "output"]>,
                                  AllElementTypesMatch<["data", "updates"]>,
                                  Dsmp_AllShapesCompatible<["indices", "updates"]>]> {
  let summary = "ONNX ScatterElements: y[.., indices[.., i, ..], ..] = updates[.., i, ..]";
  let description = [{
    Along `axis` (negative indices count from the end), combined by
    `reduction` (none, add, mul, max, min).

    ```mlir
    %y = dsmp.scatter_elements %x, %i, %u {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x4xf32>
    ```
  }];
}

def Dsmp_IdentityOp : Dsmp_OnnxOp<"identity", Dsmp_DataMovementClass,
    (ins AnyType:$input), (outs AnyType:$output), [Pure, SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "ONNX Identity";
  let description = [{
    Folds to its input.

    ```mlir
    %y = dsmp.identity %x : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let hasFolder = 1;
}

def Dsmp_PadOp : Dsmp_OnnxOp<"pad", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$data, Dsmp_I64Tensor:$pads,
         Dsmp_OptTensor:$constant_value, Dsmp_OptIndexTensor:$axes,
         DefaultValuedStrAttr<StrAttr, "constant">:$mode),
    (outs Dsmp_Tensor:$output), [Pure, AllElementTypesMatch<["data", "output"]>]> {
  let summary = "ONNX Pad";
  let description = [{
    `pads` holds the begin pads of each (selected) axis, then the end pads.
    `mode` is constant, reflect, edge or wrap.

    ```mlir
    %n = dsmp.none
    %y = dsmp.pad %x, %p, %n, %n : (tensor<2x3xf32>, tensor<4xi64>, none, none) -> tensor<?x?xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_RangeOp : Dsmp_OnnxOp<"range", Dsmp_DataMovementClass,
    (ins Dsmp_NumericTensor:$start, Dsmp_NumericTensor:$limit, Dsmp_NumericTensor:$delta),
    (outs Dsmp_NumericTensor:$output),
    [Pure, AllElementTypesMatch<["start", "limit", "delta", "output"]>]> {
  let summary = "ONNX Range: [start, limit) in steps of delta";
  let description = [{
    ```mlir
    %y = dsmp.range %a, %b, %c : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
    ```
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dsmp_ReshapeOp : Dsmp_OnnxOp<"reshape", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$data, Dsmp_I64Tensor:$shape,
         DefaultValuedAttr<I64Attr, "0">:$allowzero),
    (outs Dsmp_Tensor:$reshaped), [Pure, AllElementTypesMatch<["data", "reshaped"]>]> {
  let summary = "ONNX Reshape";
  let description = [{
    A 0 in `shape` copies the input dim (unless `allowzero`), and one -1 is
    inferred from the element count.

    ```mlir
    %y = dsmp.reshape %x, %s : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<6x4xf32>
    ```
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dsmp_GridSampleOp : Dsmp_OnnxOp<"grid_sample", Dsmp_DataMovementClass,
    (ins Dsmp_FloatTensor:$X, Dsmp_FloatTensor:$grid,
         DefaultValuedAttr<I64Attr, "0">:$align_corners,
         DefaultValuedStrAttr<StrAttr, "bilinear">:$mode,
         DefaultValuedStrAttr<StrAttr, "zeros">:$padding_mode),
    (outs Dsmp_FloatTensor:$Y), [Pure, AllElementTypesMatch<["X", "Y"]>]> {
  let summary = "ONNX GridSample: X [N, C, H, W] sampled at grid [N, Ho, Wo, 2]";
  let description = [{
    Each grid point (x, y in [-1, 1], unnormalized by `align_corners`) is
    sampled from X by `mode` (bilinear, nearest; bicubic is not lowered),
    points outside X as `padding_mode` says (zeros, border, reflection).

    ```mlir
    %y = dsmp.grid_sample %x, %g : (tensor<1x3x8x8xf32>, tensor<1x4x4x2xf32>) -> tensor<1x3x4x4xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_RoiAlignOp : Dsmp_OnnxOp<"roi_align", Dsmp_DataMovementClass,
    (ins Dsmp_FloatTensor:$X, Dsmp_FloatTensor:$rois,
         Dsmp_IndexTensor:$batch_indices,
         DefaultValuedStrAttr<StrAttr, "half_pixel">:$coordinate_transformation_mode,
         DefaultValuedStrAttr<StrAttr, "avg">:$mode,
         DefaultValuedAttr<I64Attr, "1">:$output_height,
         DefaultValuedAttr<I64Attr, "1">:$output_width,
         DefaultValuedAttr<I64Attr, "0">:$sampling_ratio,
         DefaultValuedAttr<F32Attr, "1.0f">:$spatial_scale),
    (outs Dsmp_FloatTensor:$Y), [Pure, AllElementTypesMatch<["X", "Y"]>]> {
  let summary = "ONNX RoiAlign: X [N, C, H, W] pooled over each of rois "
                "[R, 4] into Y [R, C, output_height, output_width]";
  let description = [{
    Each region (x1, y1, x2, y2, times `spatial_scale`, less half a pixel
    with `half_pixel`; at least 1 x 1 with `output_half_pixel`, opset 10's
    only form) of the image `batch_indices` names is cut into
    output_height x output_width bins, each sampled bilinearly on a grid of
    `sampling_ratio` points per side (0: ceil(bin size) points, which the
    region decides) and averaged (`mode` avg; `max` takes onnxruntime's
    largest weighted tap). Points more than a pixel outside X read 0.

    ```mlir
    %y = dsmp.roi_align %x, %rois, %idx {output_height = 2 : i64, output_width = 2 : i64, sampling_ratio = 2 : i64} : (tensor<1x3x8x8xf32>, tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x3x2x2xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_ResizeOp : Dsmp_OnnxOp<"resize", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$X, Dsmp_OptTensor:$roi, Dsmp_OptTensor:$scales,
         Dsmp_OptTensor:$sizes,
         DefaultValuedAttr<I64Attr, "0">:$antialias,
         OptionalAttr<DenseI64ArrayAttr>:$axes,
         DefaultValuedStrAttr<StrAttr, "half_pixel">:$coordinate_transformation_mode,
         DefaultValuedAttr<F32Attr, "-0.75f">:$cubic_coeff_a,
         DefaultValuedAttr<I64Attr, "0">:$exclude_outside,
         DefaultValuedAttr<F32Attr, "0.0f">:$extrapolation_value,
         DefaultValuedStrAttr<StrAttr, "stretch">:$keep_aspect_ratio_policy,
         DefaultValuedStrAttr<StrAttr, "nearest">:$mode,
         DefaultValuedStrAttr<StrAttr, "round_prefer_floor">:$nearest_mode),
    (outs Dsmp_Tensor:$Y), [Pure, AllElementTypesMatch<["X", "Y"]>]> {
  let summary = "ONNX Resize: nearest, linear or cubic interpolation";
  let description = [{
    Exactly one of `scales` and `sizes` is given. Opset-10 Resize (no `roi`)
    is imported with `coordinate_transformation_mode = "asymmetric"`.

    ```mlir
    %n = dsmp.none
    %y = dsmp.resize %x, %n, %s, %n {mode = "nearest"} : (tensor<1x4x8x8xf32>, none, tensor<4xf32>, none) -> tensor<1x4x16x16xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_ShapeOp : Dsmp_OnnxOp<"shape", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$data, DefaultValuedAttr<I64Attr, "0">:$start,
         OptionalAttr<I64Attr>:$end),
    (outs Dsmp_I64Tensor:$shape), [Pure]> {
  let summary = "ONNX Shape: the dims of a tensor as a 1-D int64 tensor";
  let description = [{
    Returns dims `[start, end)`. Folds to a constant when those dims are
    static.

    ```mlir
    %s = dsmp.shape %x : (tensor<2x?xf32>) -> tensor<2xi64>
    ```
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dsmp_SizeOp : Dsmp_OnnxOp<"size", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$data), (outs Dsmp_I64Tensor:$size), [Pure]> {
  let summary = "ONNX Size: the element count as a rank-0 int64 tensor";
  let description = [{
    Folds to a constant when the shape is static.

    ```mlir
    %n = dsmp.size %x : (tensor<2x3xf32>) -> tensor<i64>
    ```
  }];
  let hasFolder = 1;
}

def Dsmp_SliceOp : Dsmp_OnnxOp<"slice", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$data, Dsmp_IndexTensor:$starts, Dsmp_IndexTensor:$ends,
         Dsmp_OptIndexTensor:$axes, Dsmp_OptIndexTensor:$steps),
    (outs Dsmp_Tensor:$output), [Pure, AllElementTypesMatch<["data", "output"]>]> {
  let summary = "ONNX Slice";
  let description = [{
    Start/end indices are clamped to the dim; `axes` defaults to the first
    dims and `steps` to 1. Opset < 10 passed them as attributes.

    ```mlir
    %n = dsmp.none
    %y = dsmp.slice %x, %b, %e, %n, %n : (tensor<8xf32>, tensor<1xi64>, tensor<1xi64>, none, none) -> tensor<?xf32>
    ```
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dsmp_SpaceToDepthOp : Dsmp_OnnxOp<"space_to_depth", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$input, I64Attr:$blocksize),
    (outs Dsmp_Tensor:$output), [Pure, SameOperandsAndResultElementType]> {
  let summary = "ONNX SpaceToDepth";
  let description = [{
    ```mlir
    %y = dsmp.space_to_depth %x {blocksize = 2 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x8x2x2xf32>
    ```
  }];
}

def Dsmp_SplitOp : Dsmp_OnnxOp<"split", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$input, Dsmp_OptIndexTensor:$split,
         DefaultValuedAttr<I64Attr, "0">:$axis, OptionalAttr<I64Attr>:$num_outputs),
    (outs Variadic<Dsmp_Tensor>:$outputs), [Pure]> {
  let summary = "ONNX Split: cut a tensor into pieces along an axis";
  let description = [{
    ```mlir
    %n = dsmp.none
    %a, %b = dsmp.split %x, %n {axis = 0 : i64} : (tensor<4xf32>, none) -> (tensor<2xf32>, tensor<2xf32>)
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_SqueezeOp : Dsmp_OnnxOp<"squeeze", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$data, Dsmp_OptIndexTensor:$axes),
    (outs Dsmp_Tensor:$squeezed), [Pure, AllElementTypesMatch<["data", "squeezed"]>]> {
  let summary = "ONNX Squeeze: drop size-1 dims";
  let description = [{
    ```mlir
    %a = dsmp.constant dense<0> : tensor<1xi64>
    %y = dsmp.squeeze %x, %a : (tensor<1x4xf32>, tensor<1xi64>) -> tensor<4xf32>
    ```
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dsmp_TileOp : Dsmp_OnnxOp<"tile", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$input, Dsmp_I64Tensor:$repeats),
    (outs Dsmp_Tensor:$output), [Pure, AllElementTypesMatch<["input", "output"]>]> {
  let summary = "ONNX Tile: repeat a tensor along each dim";
  let description = [{
    ```mlir
    %y = dsmp.tile %x, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<4x3xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_TriluOp : Dsmp_OnnxOp<"trilu", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$input, Dsmp_OptIndexTensor:$k,
         DefaultValuedAttr<I64Attr, "1">:$upper),
    (outs Dsmp_Tensor:$output), [Pure, AllTypesMatch<["input", "output"]>]> {
  let summary = "ONNX Trilu: the upper or lower triangle of the last two dims";
  let description = [{
    Keeps, in each matrix of the last two dims, the elements on and above
    (`upper` = 1) or on and below (`upper` = 0) the `k`-th diagonal (a
    scalar; 0 when absent; positive above the main diagonal), and zeroes the
    rest: causal attention masks.

    ```mlir
    %n = dsmp.none
    %y = dsmp.trilu %x, %n {upper = 0 : i64} : (tensor<4x4xf32>, none) -> tensor<4x4xf32>
    ```
  }];
  let hasVerifier = 1;
}

def Dsmp_OneHotOp : Dsmp_OnnxOp<"one_hot", Dsmp_DataMovementClass,
    (ins Dsmp_NumericTensor:$indices, Dsmp_NumericTensor:$depth,
         Dsmp_Tensor:$values, DefaultValuedAttr<I64Attr, "-1">:$axis),
    (outs Dsmp_Tensor:$output),
    [Pure, AllElementTypesMatch<["values", "output"]>]> {
  let summary = "ONNX OneHot: values[1] where an index names the position, else values[0]";
  let description = [{
    The output is `indices`' shape with a dim of `depth` (a scalar of any
    numeric type, taken as an integer) inserted at `axis`; element k along
    it is `values[1]` (on) where the index at the other dims is k, else
    `values[0]` (off). Negative indices count from `depth`; indices outside
    [-depth, depth) give a row of off values. Float indices are truncated.

    ```mlir
    %y = dsmp.one_hot %i, %d, %v : (tensor<2x3xi64>, tensor<i64>, tensor<2xf32>) -> tensor<2x3x10xf32>
    ```
  }];
  let hasVerifier = 1;  let hasFolder = 1;
}

def Dsmp_TransposeOp : Dsmp_OnnxOp<"transpose", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$data, OptionalAttr<DenseI64ArrayAttr>:$perm),
    (outs Dsmp_Tensor:$transposed), [Pure, AllElementTypesMatch<["data", "transposed"]>]> {
  let summary = "ONNX Transpose: permute dims (reverse them by default)";
  let description = [{
    ```mlir
    %y = dsmp.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
    ```
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dsmp_UnsqueezeOp : Dsmp_OnnxOp<"unsqueeze", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$data, Dsmp_IndexTensor:$axes),
    (outs Dsmp_Tensor:$expanded), [Pure, AllElementTypesMatch<["data", "expanded"]>]> {
  let summary = "ONNX Unsqueeze: insert size-1 dims";
  let description = [{
    ```mlir
    %a = dsmp.constant dense<0> : tensor<1xi64>
    %y = dsmp.unsqueeze %x, %a : (tensor<4xf32>, tensor<1xi64>) -> tensor<1x4xf32>
    ```
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Casts and quantization
//===----------------------------------------------------------------------===//

def Dsmp_CastOp : Dsmp_OnnxOp<"cast", Dsmp_DataMovementClass,
    (ins Dsmp_Tensor:$input, DefaultValuedAttr<I64Attr, "1">:$saturate),
    (outs Dsmp_Tensor:$output), [Pure, SameOperandsAndResultShape]> {
  let summary = "ONNX Cast: convert the element type (the precision cast)";
  let description = [{
    Converts each element to the result's element type. This is the cast the
    precision passes insert: a cast to `tf32` rounds an f32 value to a 10-bit
    mantissa and keeps f32 storage; casts to the f8 types round and saturate
    (when `saturate` is set) as the OCP FP8 specification says. Exports as
    an ONNX `Cast` node (a tf32 cast exports as float).

    ```mlir
    %y = dsmp.cast %x : (tensor<4xf32>) -> tensor<4xbf16>
    ```
  }];
  let extraClassDeclaration = [{
    /// The precision format this cast produces, if its result is a float
    /// format dsmp assigns.
    std::optional<::mlir::dsmp::Format> getTargetFormat();
  }];
  let hasFolder = 1;
}

def Dsmp_DequantizeLinearOp : Dsmp_OnnxOp<"dequantize_linear", Dsmp_ElementwiseClass,
    (ins Dsmp_Tensor:$x, Dsmp_FloatTensor:$x_scale, Dsmp_OptTensor:$x_zero_point,
         DefaultValuedAttr<I64Attr, "1">:$axis, DefaultValuedAttr<I64Attr, "0">:$block_size),
    (outs Dsmp_FloatTensor:$y), [Pure, AllShapesMatch<["x", "y"]>]> {
  let summary = "ONNX DequantizeLinear: y = (x - zero_point) * scale";
  let description = [{
    ```mlir
    %n = dsmp.none
    %y = dsmp.dequantize_linear %q, %s, %n : (tensor<4xi8>, tensor<f32>, none) -> tensor<4xf32>
    ```
  }];
}

def Dsmp_QuantizeLinearOp : Dsmp_OnnxOp<"quantize_linear", Dsmp_ElementwiseClass,
    (ins Dsmp_FloatTensor:$x, Dsmp_FloatTensor:$y_scale, Dsmp_OptTensor:$y_zero_point,
         DefaultValuedAttr<I64Attr, "1">:$axis, DefaultValuedAttr<I64Attr, "0">:$block_size,
         DefaultValuedAttr<I64Attr, "0">:$output_dtype,
         DefaultValuedAttr<I64Attr, "1">:$saturate),
    (outs Dsmp_Tensor:$y), [Pure, AllShapesMatch<["x", "y"]>]> {
  let summary = "ONNX QuantizeLinear: y = saturate(round(x / scale) + zero_point)";
  let description = [{
    ```mlir
    %z = dsmp.constant dense<0> : tensor<i8>
    %y = dsmp.quantize_linear %x, %s, %z : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xi8>
    ```
  }];
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

def Dsmp_IfOp : Dsmp_Op<"if", [Dsmp_OnnxOpTrait, RecursiveMemoryEffects,
                               NoRegionArguments]> {
  let summary = "ONNX If: run one of two subgraphs";
  let description = [{
    Runs `then_branch` when the one-element boolean `cond` is true, else
    `else_branch`. Each branch ends in `dsmp.yield` with values matching the
    results. Branches may use values defined outside the op (ONNX
    outer-scope references).

    ```mlir
    %r = dsmp.if %c : tensor<i1> -> tensor<2xf32> {
      dsmp.yield %a : tensor<2xf32>
    } else {
      dsmp.yield %b : tensor<2xf32>
    }
    ```
  }];
  let arguments = (ins Dsmp_BoolTensor:$cond);
  let results = (outs Variadic<Dsmp_OptTensor>:$outputs);
  let regions = (region SizedRegion<1>:$then_branch, SizedRegion<1>:$else_branch);
  let assemblyFormat = [{
    $cond `:` type($cond) (`->` type($outputs)^)? $then_branch `else`
    $else_branch attr-dict
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Dsmp_LoopOp : Dsmp_Op<"loop", [Dsmp_OnnxOpTrait, RecursiveMemoryEffects]> {
  let summary = "ONNX Loop: a counted and/or conditional loop";
  let description = [{
    The body's block arguments are the iteration number (tensor<i64>), the
    condition (tensor<i1>) and the loop-carried values. It yields the next
    condition, the loop-carried values and the scan outputs, which are
    concatenated along a new leading dim.

    ```mlir
    %r = dsmp.loop %m, %c, %x : (tensor<i64>, tensor<i1>, tensor<2xf32>) -> tensor<2xf32> {
    ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %v: tensor<2xf32>):
      dsmp.yield %cond, %v : tensor<i1>, tensor<2xf32>
    }
    ```
  }];
  let arguments = (ins Dsmp_OptTensor:$M, Dsmp_OptTensor:$cond,
                       Variadic<Dsmp_Tensor>:$v_initial);
  let results = (outs Variadic<Dsmp_Tensor>:$v_final_and_scan_outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $M `,` $cond (`,` $v_initial^)? `:` functional-type(operands, results)
    $body attr-dict
  }];
  let hasVerifier = 1;
}

def Dsmp_YieldOp : Dsmp_Op<"yield", [Pure, Terminator, ReturnLike,
                                     ParentOneOf<["IfOp", "LoopOp"]>]> {
  let summary = "Returns the outputs of an If branch or a Loop body";
  let description = [{
    ```mlir
    dsmp.yield %a, %b : tensor<2xf32>, tensor<i1>
    ```
  }];
  let arguments = (ins Variadic<Dsmp_OptTensor>:$results);
  let assemblyFormat = "attr-dict ($results^ `:` type($results))?";
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Dsmp_ConstantOp : Dsmp_Op<"constant", [ConstantLike, Pure]> {
  let summary = "A constant tensor: inline elements or a weight-file range";
  let description = [{
    Holds an ONNX initializer or `Constant` node. Small tensors are inline
    elements; large ones are `#dsmp.external` ranges of the module's weight
    file, so that a 50 MB model prints as a small `.mlir`. The custom
    assembly format (like `arith.constant`) avoids printing the type twice
    for inline elements.

    ```mlir
    %a = dsmp.constant dense<[1, 2]> : tensor<2xi64>
    %w = dsmp.constant #dsmp.external<offset = 0, size = 4096> : tensor<32x32xf32>
    ```
  }];
  let arguments = (ins AnyAttrOf<[ElementsAttr, Dsmp_ExternalAttr]>:$value);
  let results = (outs AnyRankedTensor:$output);
  let assemblyFormat = ?;
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dsmp_NoneOp : Dsmp_Op<"none", [ConstantLike, Pure]> {
  let summary = "The value of an absent optional input";
  let description = [{
    ```mlir
    %n = dsmp.none
    ```
  }];
  let results = (outs NoneType:$none);
  let assemblyFormat = "attr-dict";
  let hasFolder = 1;
}

#endif // DSMP_DIALECT_OPS_TD
