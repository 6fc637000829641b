#!/usr/bin/env python3
"""Writes the malformed-model corpus of this folder and expected.tsv.

Each case is a small ONNX file (or not-quite-ONNX bytes) that dsmp-translate
--import-onnx must reject with one line naming the file (and the node or
tensor where one is to blame), exit status 1, no crash and no output file.
expected.tsv lists, per file, a text the error line must contain.

usage: make_corpus.py   (rewrites the corpus in place)
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

here = os.path.dirname(os.path.abspath(__file__))
F = TensorProto.FLOAT
cases = []


def vi(name, shape, dtype=F):
    return helper.make_tensor_value_info(name, dtype, shape)


def model(nodes, inputs=None, outputs=None, inits=(), opset=13, opsets=None,
          ir_version=8):
    graph = helper.make_graph(nodes, "g", inputs if inputs is not None else [vi("x", [4])],
                              outputs if outputs is not None else [vi("y", [4])],
                              list(inits))
    m = helper.make_model(graph, opset_imports=opsets or [helper.make_opsetid("", opset)])
    m.ir_version = ir_version
    return m


def add(name, expect, m=None, raw=None):
    path = os.path.join(here, name)
    if os.path.lexists(path):
        os.remove(path)
    with open(path, "wb") as f:
        f.write(raw if raw is not None else m.SerializeToString())
    cases.append((name, expect))


def relu_model():
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")])


def tensor(name, dims, dtype=F, raw=b"", **fields):
    t = TensorProto(name=name, data_type=dtype, dims=dims)
    if raw:
        t.raw_data = raw
    for k, v in fields.items():
        getattr(t, k).extend(v)
    return t


def with_init(t, node_inputs=("x", "w")):
    return model([helper.make_node("Add", list(node_inputs), ["y"], name="add")],
                 inits=[t])


def external(location, offset=0, length=16):
    t = TensorProto(name="w", data_type=F, dims=[4])
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", str(offset)), ("length", str(length))):
        e = t.external_data.add()
        e.key, e.value = k, v
    return with_init(t)


good = relu_model().SerializeToString()
# Files and protobuf structure.
add("truncated.onnx", "protobuf is truncated or corrupt", raw=good[: len(good) // 2])
add("not_protobuf.onnx", "not a valid ONNX model", raw=b"this is a text file, not ONNX\n" * 4)
add("empty.onnx", "no graph", raw=b"")
add("random_bytes.onnx", "not a valid ONNX model",
    raw=bytes(np.random.default_rng(7).integers(0, 256, 512, dtype=np.uint8)))
add("ir_version_zero.onnx", "ir_version 0",
    model([helper.make_node("Relu", ["x"], ["y"], name="relu")], ir_version=0))
nested = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "g",
                           [], [vi("y", [4])])
leaf = nested
for depth in range(30):
    nested = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], name=f"if{depth}",
                          then_branch=nested, else_branch=leaf)],
        "g", [], [vi("y", [4])])
add("deeply_nested.onnx", "not a valid ONNX model",
    model(nested.node, inputs=[vi("x", [4]), vi("c", [], TensorProto.BOOL)]))

# Opsets.
add("opset_too_old.onnx",
    "node 'bn' (BatchNormalization, opset 7): this op changed after opset 7; dsmp supports opsets 9 to 23",
    # Per-activation statistics (spatial = 0): no opset-9 form.
    model([helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bn",
                            spatial=0)],
          inputs=[vi("x", [1, 2, 2, 2])], outputs=[vi("y", [1, 2, 2, 2])],
          inits=[numpy_helper.from_array(np.ones(2, np.float32), n) for n in "sbmv"],
          opset=7))
add("opset_zero.onnx", "opset 0 of the default domain is not supported",
    model([helper.make_node("Relu", ["x"], ["y"], name="relu")], opset=0))
add("opset_too_new.onnx", "opset 25 of the default domain is not supported",
    model([helper.make_node("Relu", ["x"], ["y"], name="relu")], opset=25))
add("no_default_opset.onnx", "imports no default-domain opset",
    model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
          opsets=[helper.make_opsetid("ai.onnx.ml", 2)]))

# Graph structure.
add("cycle.onnx", "node 'first' (Relu, opset 13): the graph has a cycle",
    model([helper.make_node("Relu", ["b"], ["a"], name="first"),
           helper.make_node("Neg", ["a"], ["b"], name="second"),
           helper.make_node("Abs", ["a"], ["y"], name="out")]))
add("self_loop.onnx", "node 'loop' (Add, opset 13): node reads its own output 'y'",
    model([helper.make_node("Add", ["x", "y"], ["y"], name="loop")]))
add("missing_input.onnx",
    "node 'add' (Add, opset 13): input 'ghost' is not produced by any node",
    model([helper.make_node("Add", ["x", "ghost"], ["y"], name="add")]))
add("duplicate_output.onnx", "output 'y' is already defined",
    model([helper.make_node("Relu", ["x"], ["y"], name="relu"),
           helper.make_node("Neg", ["x"], ["y"], name="neg")]))
add("undefined_graph_output.onnx", "graph output 'z' is not produced",
    model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
          outputs=[vi("z", [4])]))
add("input_without_type.onnx", "graph input 'x' has no tensor type",
    model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
          inputs=[onnx.ValueInfoProto(name="x")]))
add("string_input.onnx", "graph input 'x' has unsupported dtype STRING",
    model([helper.make_node("Identity", ["x"], ["y"], name="id")],
          inputs=[vi("x", [4], TensorProto.STRING)],
          outputs=[vi("y", [4], TensorProto.STRING)]))

# Ops and attributes.
add("unknown_op.onnx", "node 'frob' (FrobnicateOp, opset 13): op type FrobnicateOp (opset 13) "
    "is not supported (docs/conformance.md lists the supported op types)",
    model([helper.make_node("FrobnicateOp", ["x"], ["y"], name="frob")]))
# ImageScaler imports before opset 10, which removed it.
add("old_image_scaler.onnx", "node 'scale' (ImageScaler, opset 10): op type ImageScaler (opset 10) "
    "is not supported; export it as Mul and Add",
    model([helper.make_node("ImageScaler", ["x"], ["y"], name="scale", scale=2.0)],
          inputs=[vi("x", [1, 3, 2, 2])], outputs=[vi("y", [1, 3, 2, 2])], opset=10))
add("misspelt_op.onnx", "node 'relu' (Relux, opset 13): op type Relux (opset 13) is not "
    "supported; the nearest supported op type is Relu",
    model([helper.make_node("Relux", ["x"], ["y"], name="relu")]))
# A DFT cut or padded to dft_length along a dynamic axis: dsmp does that
# only at a static length. NonZero's output shape depends on the data.
add("dft_op.onnx", "node 'fft' (DFT, opset 17): DFT's axis 1 is dynamic and dft_length is given",
    model([helper.make_node("DFT", ["x", "n"], ["y"], name="fft")],
          inputs=[vi("x", [1, "n", 1])], outputs=[vi("y", [1, 8, 2])],
          inits=[numpy_helper.from_array(np.array(8, np.int64), "n")], opset=17))
add("nonzero_op.onnx", "node 'where' (NonZero, opset 13): op type NonZero (opset 13) is not "
    "supported; its output's shape depends on the data and dsmp compiles static shapes",
    model([helper.make_node("NonZero", ["x"], ["y"], name="where")],
          outputs=[vi("y", None, TensorProto.INT64)]))
# onnxruntime's FusedConv with a LeakyRelu but no activation_params.
add("fused_conv_params.onnx", "node 'fused' (FusedConv, opset 13): FusedConv's activation "
    "LeakyRelu takes 1 activation_params; it has 0",
    model([helper.make_node("FusedConv", ["img", "w"], ["y"], name="fused", domain="com.microsoft",
                            activation="LeakyRelu")],
          inputs=[vi("img", [1, 2, 4, 4])], outputs=[vi("y", [1, 3, 2, 2])],
          inits=[numpy_helper.from_array(np.ones((3, 2, 3, 3), np.float32), "w")],
          opsets=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)]))
add("unknown_domain.onnx", "node 'custom' (Relu, opset 13): op domain 'com.example'",
    model([helper.make_node("Relu", ["x"], ["y"], name="custom", domain="com.example")],
          opsets=[helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)]))
conv_attr = helper.make_node("Conv", ["img", "w"], ["y"], name="conv")
conv_attr.attribute.append(helper.make_attribute("strides", 2.0))
add("attr_wrong_type.onnx",
    "node 'conv' (Conv, opset 13): attribute 'strides' must be INTS for Conv (ONNX schema, "
    "opset 11); it is FLOAT",
    model([conv_attr], inputs=[vi("img", [1, 1, 4, 4])], outputs=[vi("y", [1, 1, 3, 3])],
          inits=[numpy_helper.from_array(np.ones((1, 1, 2, 2), np.float32), "w")]))
softmax_attr = helper.make_node("Softmax", ["x"], ["y"], name="softmax")
softmax_attr.attribute.append(helper.make_attribute("axis", "last"))
add("attr_string_for_int.onnx",
    "node 'softmax' (Softmax, opset 13): attribute 'axis' must be INT for Softmax",
    model([softmax_attr]))
# Found by the import fuzzer (../shared/fuzz-crashes): an attribute whose
# declared type is not the field it fills, in a graph that declares no
# outputs (ONNX's checker then passes it); it crashed Softmax's verifier.
declared_string = helper.make_node("Softmax", ["x"], ["y"], name="softmax")
axis = declared_string.attribute.add()
axis.name, axis.type, axis.i = "axis", onnx.AttributeProto.STRING, 1
add("softmax_axis_declared_string.onnx",
    "node 'softmax' (Softmax, opset 21): attribute 'axis' declares type STRING but "
    "holds a value of type INT",
    model([declared_string], outputs=[], opset=21))
no_type = helper.make_node("Transpose", ["x"], ["y"], name="transpose")
perm = no_type.attribute.add()
perm.name = "perm"
perm.ints.extend([0])
add("attr_without_type.onnx",
    "node 'transpose' (Transpose, opset 13): attribute 'perm' declares no type",
    model([no_type]))
cast_to_string = helper.make_node("Cast", ["x"], ["y"], name="cast")
cast_to_string.attribute.append(helper.make_attribute("to", "float"))
add("cast_to_string.onnx",
    "node 'cast' (Cast, opset 21): attribute 'to' must be INT for Cast",
    model([cast_to_string], outputs=[], opset=21))
add("missing_required_attr.onnx", "node 'branch' (If, opset 13)",
    model([helper.make_node("If", ["c"], ["y"], name="branch",
                            then_branch=helper.make_graph(
                                [helper.make_node("Relu", ["x"], ["t"], name="t")],
                                "t", [], [vi("t", [4])]))],
          inputs=[vi("x", [4]), vi("c", [], TensorProto.BOOL)]))
add("too_many_inputs.onnx", "node 'relu' (Relu, opset 13)",
    model([helper.make_node("Relu", ["x", "x"], ["y"], name="relu")]))
add("wrong_tensor_dtype.onnx",
    "node 'sigmoid' (Sigmoid, opset 13): 'dsmp.sigmoid' op operand #0 must be tensor of floating-point",
    model([helper.make_node("Sigmoid", ["x"], ["y"], name="sigmoid")],
          inputs=[vi("x", [4], TensorProto.INT64)], outputs=[vi("y", [4], TensorProto.INT64)]))
add("training_outputs.onnx",
    "node 'bn' (BatchNormalization, opset 14): Node (bn) has output size 5 not in range",
    model([helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"],
                            ["y", "rm", "rv", "sm", "sv"], name="bn", training_mode=1)],
          inputs=[vi("x", [1, 2, 2, 2])], outputs=[vi("y", [1, 2, 2, 2])],
          inits=[numpy_helper.from_array(np.ones(2, np.float32), n)
                 for n in "sbmv"], opset=14))
add("constant_without_value.onnx", "node 'c' (Constant, opset 13)",
    model([helper.make_node("Constant", [], ["y"], name="c")], inputs=[]))

# Tensors.
add("raw_data_size_mismatch.onnx", "tensor 'w': raw_data has 12 bytes but dims need 16",
    with_init(tensor("w", [4], raw=b"\0" * 12)))
add("typed_data_count_mismatch.onnx", "tensor 'w': holds 3 values but dims need 4",
    with_init(tensor("w", [4], float_data=[1.0, 2.0, 3.0])))
add("dims_overflow.onnx", "tensor 'w': dims' element count overflows int64",
    with_init(tensor("w", [1 << 40, 1 << 40])))
add("negative_dims.onnx", "tensor 'w': has negative dim -4",
    with_init(tensor("w", [-4])))
add("declared_10gb.onnx", "tensor 'w': declares 10737418240 bytes, more than the limit",
    with_init(tensor("w", [10 * (1 << 30) // 4])))
add("string_initializer.onnx", "tensor 'w': has unsupported dtype STRING",
    with_init(tensor("w", [1], TensorProto.STRING, string_data=[b"a"])))
add("undefined_dtype_initializer.onnx", "tensor 'w': has unsupported dtype UNDEFINED",
    with_init(tensor("w", [4], 0, raw=b"\0" * 16)))
bad_const = helper.make_node("Constant", [], ["w"], name="bad_const",
                             value=tensor("cval", [4], raw=b"\0" * 8))
add("constant_node_bad_tensor.onnx",
    "node 'bad_const' (Constant, opset 13): tensor 'cval': raw_data has 8 bytes",
    model([bad_const, helper.make_node("Add", ["x", "w"], ["y"], name="add")]))

# External data.
with open(os.path.join(here, "weights.bin"), "wb") as f:
    f.write(b"\0" * 16)
add("external_dotdot.onnx", "escapes the model's folder through '..'",
    external("../malformed/weights.bin"))
add("external_absolute.onnx", "is an absolute path", external("/etc/hostname"))
link = os.path.join(here, "outside_link.bin")
if os.path.lexists(link):
    os.remove(link)
os.symlink("/etc/passwd", link)
add("external_symlink.onnx", "leads outside the model's folder (through a symlink)",
    external("outside_link.bin"))
add("external_missing_file.onnx", "external data file 'nowhere.bin' not found",
    external("nowhere.bin"))
add("external_out_of_range.onnx", "external data range lies outside 'weights.bin'",
    external("weights.bin", offset=8))

# Found by the import fuzzer: ONNX 1.12's shape inference reads out of
# bounds when a Conv's weight rank differs from its input's, or its window
# attributes from the spatial rank.
conv_w = numpy_helper.from_array(np.zeros((1, 1, 2, 2), np.float32), "w")
add("conv_rank_mismatch.onnx",
    "node 'conv' (Conv, opset 13): the weight has rank 4, the input rank 3",
    model([helper.make_node("Conv", ["x", "w"], ["y"], name="conv")],
          inputs=[vi("x", [1, 1, 4])], outputs=[vi("y", None)], inits=[conv_w]))
add("pool_window_mismatch.onnx",
    "node 'pool' (MaxPool, opset 13): attribute 'kernel_shape' has 1 values; "
    "the input's 2 spatial dims need 2",
    model([helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2])],
          inputs=[vi("x", [1, 1, 4, 4])], outputs=[vi("y", None)]))

with open(os.path.join(here, "expected.tsv"), "w") as f:
    f.write("# file\ttext the one-line error must contain\n")
    for name, expect in cases:
        f.write(f"{name}\t{expect}\n")
print(f"{len(cases)} malformed models")
