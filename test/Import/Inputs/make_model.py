#!/usr/bin/env python3
"""Builds small ONNX models with the quirks real exporters produce.

usage: make_model.py NAME OUT.onnx
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def model(nodes, inputs, outputs, inits=(), opset=13, extra_opsets=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    opsets = [helper.make_opsetid("", opset)] + [
        helper.make_opsetid(d, v) for d, v in extra_opsets]
    m = helper.make_model(graph, opset_imports=opsets)
    m.ir_version = 8
    return m


def vi(name, shape, dtype=F):
    return helper.make_tensor_value_info(name, dtype, shape)


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def unsorted():
    # Relu consumes Add's output but comes first in the file.
    return model([
        helper.make_node("Relu", ["sum"], ["y"], name="relu_first"),
        helper.make_node("Add", ["x", "x"], ["sum"], name="add_second"),
    ], [vi("x", [2, 3])], [vi("y", [2, 3])])


def unused_opset():
    return model([helper.make_node("Sigmoid", ["x"], ["y"], name="sig")],
                 [vi("x", [4])], [vi("y", [4])],
                 extra_opsets=[("ai.onnx.ml", 2), ("com.example", 1)])


def opaque_names():
    # Output named by a JSON string, input with punctuation, output "13".
    name = '{"1": "a, b", "2": "c"}'
    return model([
        helper.make_node("Neg", ["onnx::Neg_0"], ["13"], name=""),
        helper.make_node("Abs", ["13"], [name], name="abs"),
    ], [vi("onnx::Neg_0", [3])], [vi(name, [3]), vi("13", [3])])


def symbolic_dims():
    return model([
        helper.make_node("MatMul", ["x", "w"], ["y"], name="mm"),
    ], [vi("x", ["batch", "seq", 8])], [vi("y", ["batch", "seq", 4])],
        [const("w", np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32))])


def refined_dims():
    # The exporter knows a dim its input leaves symbolic (wav2vec2's
    # LogSoftmax over frames: input ?x?x12, value_info ?x159x12).
    m = model([
        helper.make_node("LogSoftmax", ["x"], ["l"], name="log_softmax", axis=-1),
        helper.make_node("Identity", ["l"], ["y"], name="identity"),
    ], [vi("x", ["batch", "frames", 4])], [vi("y", ["batch", 3, 4])],
        opset=17)
    m.graph.value_info.append(vi("l", ["batch", 3, 4]))
    return m


def stale_output_rank():
    # ddddocr's CRNN declares its [T, 1, C] result as [1, seqlen]: the
    # Reshape's shape comes from Shape/Gather/Concat, so ONNX's inference
    # cannot check the declaration (onnxruntime runs it with a warning).
    n = helper.make_tensor("zero", onnx.TensorProto.INT64, [], [0])
    return model([
        helper.make_node("Shape", ["x"], ["s"], name="shape"),
        helper.make_node("Gather", ["s", "zero"], ["n"], name="gather", axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["nn"], name="unsqueeze"),
        helper.make_node("Concat", ["nn", "rest"], ["target"], name="concat", axis=0),
        helper.make_node("Reshape", ["x", "target"], ["r"], name="reshape"),
        helper.make_node("Relu", ["r"], ["y"], name="relu"),
    ], [vi("x", ["n", 6])], [vi("y", [1, "seqlen"])],
        [n, const("axes", np.array([0], np.int64)),
         const("rest", np.array([1, 6], np.int64))])


def squeeze_all_units():
    # PLCMOS and AECMOS (speechmos): a [batch, 1] score through Squeeze
    # without axes (opset 11), which squeezes every dim of size 1, so a
    # batch of 1 gives a scalar and a batch of 2 a vector.
    return model([
        helper.make_node("MatMul", ["x", "w"], ["s"], name="score"),
        helper.make_node("Squeeze", ["s"], ["q"], name="squeeze"),
        helper.make_node("Sigmoid", ["q"], ["y"], name="sigmoid"),
    ], [vi("x", ["batch", 4])], [vi("y", None)],
        [const("w", np.linspace(-1, 1, 4, dtype=np.float32).reshape(4, 1))], opset=11)


def uint8_table():
    # A uint8 initializer read as numbers (an image model's table of pixel
    # levels, a quantized model's weights): Cast to float, then Add. 128
    # levels, more than the Cast folds at import (64).
    return model([
        helper.make_node("Cast", ["t"], ["tf"], name="levels", to=TensorProto.FLOAT),
        helper.make_node("Add", ["x", "tf"], ["y"], name="add"),
    ], [vi("x", [2, 128])], [vi("y", [2, 128])],
        [const("t", (np.arange(128) * 2 + 1).astype(np.uint8))])


def hf_token_types():
    # HuggingFace BERT's token-type lookup: a [1, 8] buffer expanded to
    # (batch, -1) through Where(Equal(s, -1), 1, s), then GatherElements
    # with the position ids sliced to the sequence length; and DeBERTa's
    # Expand to ConstantOfShape(Shape(Concat(1-element pieces))). ONNX's
    # inference types neither GatherElements nor that Expand.
    I = TensorProto.INT64
    n = helper.make_node
    return model([
        n("Shape", ["x"], ["sh"], name="shape"),
        n("Gather", ["sh", "zero"], ["b"], name="batch", axis=0),
        n("Gather", ["sh", "one"], ["t"], name="length", axis=0),
        n("Unsqueeze", ["b", "axis0"], ["b1"], name="b1"),
        n("Unsqueeze", ["t", "axis0"], ["t1"], name="t1"),
        n("Concat", ["b1", "minus1"], ["c"], name="concat", axis=0),
        n("Reshape", ["c", "minus1"], ["r"], name="reshape"),
        n("Shape", ["r"], ["rs"], name="r_shape"),
        n("ConstantOfShape", ["rs"], ["ones"], name="ones",
          value=helper.make_tensor("v", I, [1], [1])),
        n("Mul", ["ones", "minus1"], ["m"], name="minus_ones"),
        n("Equal", ["r", "m"], ["eq"], name="equal"),
        n("Where", ["eq", "ones", "r"], ["s"], name="where"),
        n("Expand", ["table", "s"], ["data"], name="expand_table"),
        n("Slice", ["positions", "axis0", "t1", "one1"], ["idx"], name="slice"),
        n("GatherElements", ["data", "idx"], ["g"], name="gather_elements", axis=1),
        n("Add", ["x", "g"], ["sum"], name="add"),
        n("Concat", ["one1", "one1", "one1"], ["pieces"], name="pieces", axis=0),
        n("Shape", ["pieces"], ["ps"], name="pieces_shape"),
        n("ConstantOfShape", ["ps"], ["ones3"], name="ones3",
          value=helper.make_tensor("v", I, [1], [1])),
        n("Unsqueeze", ["sum", "axis0"], ["sum3"], name="sum3"),
        n("Expand", ["sum3", "ones3"], ["y"], name="expand_ones"),
    ], [vi("x", ["batch", "seq"])], [vi("y", [1, "batch", "seq"])],
        [const("zero", np.int64(0)), const("one", np.int64(1)),
         const("axis0", np.array([0], np.int64)), const("one1", np.array([1], np.int64)),
         const("minus1", np.array([-1], np.int64)),
         const("table", np.arange(8, dtype=np.float32).reshape(1, 8) * 0.5),
         const("positions", np.array([[7, 6, 5, 4, 3, 2, 1, 0]], np.int64))])


def identity_weight():
    # torch's exporter writes Identity nodes for shared initializers; what
    # reads one sees the weight itself (YOLOS interpolates its position
    # embeddings through such an Identity).
    return model([
        helper.make_node("Identity", ["w"], ["w_copy"], name="identity_of_w"),
        helper.make_node("MatMul", ["x", "w_copy"], ["y"], name="mm"),
    ], [vi("x", ["batch", 8])], [vi("y", ["batch", 4])],
        [const("w", np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32))])


def if_constants():
    # Weights live in Constant nodes inside the If branches, which also read
    # the outer-scope value x.
    rng = np.random.default_rng(1)
    then_w = rng.standard_normal((4, 4)).astype(np.float32)
    else_w = rng.standard_normal((4, 4)).astype(np.float32)
    def branch(tag, w):
        return helper.make_graph([
            helper.make_node("Constant", [], [f"{tag}_w"], name=f"{tag}_const",
                             value=numpy_helper.from_array(w)),
            helper.make_node("MatMul", ["x", f"{tag}_w"], [f"{tag}_y"], name=f"{tag}_mm"),
        ], f"{tag}_branch", [], [vi(f"{tag}_y", [2, 4])])
    return model([
        helper.make_node("ReduceSum", ["x"], ["s"], name="sum", keepdims=0),
        helper.make_node("Constant", [], ["zero"], name="zero",
                         value=numpy_helper.from_array(np.array(0, np.float32))),
        helper.make_node("Greater", ["s", "zero"], ["cond"], name="positive"),
        helper.make_node("If", ["cond"], ["y"], name="branch",
                         then_branch=branch("then", then_w),
                         else_branch=branch("else", else_w)),
    ], [vi("x", [2, 4])], [vi("y", [2, 4])])


def opset9_forms():
    # Attributes that later opsets turned into inputs.
    return model([
        helper.make_node("Clip", ["x"], ["c"], name="clip", min=-0.5, max=0.5),
        helper.make_node("Slice", ["c"], ["s"], name="slice",
                         starts=[0, 1], ends=[2, 3], axes=[0, 1]),
        helper.make_node("Unsqueeze", ["s"], ["u"], name="unsqueeze", axes=[0]),
        helper.make_node("Squeeze", ["u"], ["q"], name="squeeze", axes=[0]),
        helper.make_node("ReduceMean", ["q"], ["m"], name="mean", axes=[1]),
        helper.make_node("Pad", ["m"], ["p"], name="pad", pads=[0, 1, 0, 1],
                         value=2.0),
        helper.make_node("Softmax", ["p"], ["y"], name="softmax", axis=1),
    ], [vi("x", [2, 4])], [vi("y", [2, 3])], opset=9)


def resize11_empty_inputs():
    # torchvision's LRASPP at opset 11: Resize with an empty roi and empty
    # scales, the sizes given.
    empty = np.zeros((0,), np.float32)
    return model([
        helper.make_node("Resize", ["x", "roi", "scales", "sizes"], ["y"], name="up",
                         mode="linear", coordinate_transformation_mode="half_pixel"),
    ], [vi("x", [1, 2, 3, 3])], [vi("y", [1, 2, 6, 5])],
        [const("roi", empty), const("scales", empty),
         const("sizes", np.array([1, 2, 6, 5], np.int64))], opset=11)


def large_weights():
    rng = np.random.default_rng(3)
    return model([
        helper.make_node("Gemm", ["x", "w", "b"], ["y"], name="fc", transB=1),
    ], [vi("x", [1, 256])], [vi("y", [1, 512])],
        [const("w", rng.standard_normal((512, 256)).astype(np.float32)),
         const("b", rng.standard_normal(512).astype(np.float32))])


def external_data():
    m = large_weights()
    return m  # saved with external data below


BUILDERS = {f.__name__: f for f in [unsorted, unused_opset, opaque_names,
                                    symbolic_dims, refined_dims, stale_output_rank,
                                    squeeze_all_units, uint8_table,
                                    hf_token_types, identity_weight,
                                    if_constants, opset9_forms,
                                    resize11_empty_inputs,
                                    large_weights, external_data]}

if __name__ == "__main__":
    name, out = sys.argv[1], sys.argv[2]
    m = BUILDERS[name]()
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    if name == "external_data":
        onnx.save(m, out, save_as_external_data=True, all_tensors_to_one_file=True,
                  location=os.path.basename(out) + ".data", size_threshold=1024)
    else:
        onnx.save(m, out)
