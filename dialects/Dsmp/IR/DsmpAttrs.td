//===- DsmpAttrs.td - dsmp attributes ----------------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef DSMP_DIALECT_ATTRS_TD
#define DSMP_DIALECT_ATTRS_TD

include "dialects/Dsmp/IR/DsmpBase.td"

class Dsmp_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Dsmp_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

/// `#dsmp.format<bf16>`: a number format.
def Dsmp_FormatAttr : EnumAttr<Dsmp_Dialect, Dsmp_Format, "format"> {
  let assemblyFormat = "`<` $value `>`";
}

/// `#dsmp.op_class<matmul>`: the precision class of a compute op.
def Dsmp_OpClassAttr : EnumAttr<Dsmp_Dialect, Dsmp_OpClass, "op_class"> {
  let assemblyFormat = "`<` $value `>`";
}

def Dsmp_ExternalAttr : Dsmp_Attr<"External", "external", [TypedAttrInterface]> {
  let summary = "A byte range of the module's weight file";
  let description = [{
    Refers to `size` bytes at `offset` in the weight file that the enclosing
    module names in its `dsmp.weights` attribute (a path relative to the
    `.mlir` file). The bytes are the tensor's elements in row-major order,
    little-endian, exactly as ONNX `raw_data` stores them. This keeps large
    weights out of the printed IR.

    ```mlir
    %w = dsmp.constant #dsmp.external<offset = 0, size = 432> : tensor<4x3x3x3xf32>
    ```
  }];
  let parameters = (ins "uint64_t":$offset, "uint64_t":$size,
                        AttributeSelfTypeParameter<"">:$type);
  let assemblyFormat = "`<` struct($offset, $size) `>`";
}

#endif // DSMP_DIALECT_ATTRS_TD
