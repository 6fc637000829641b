"""The small float CNN that the quantization tests quantize with
onnxruntime: Conv 3->8 3x3 (with bias), Relu, Flatten, MatMul to 10 classes
and, with `bias_add`, an Add of a class bias. Input x: [n, 3, 8, 8]."""
import numpy as np
from onnx import TensorProto, helper, numpy_helper


def float_cnn(rng, bias_add):
    inits = [numpy_helper.from_array(rng.normal(0, 0.3, (8, 3, 3, 3)).astype(np.float32), "w"),
             numpy_helper.from_array(rng.normal(0, 0.1, 8).astype(np.float32), "b"),
             numpy_helper.from_array(rng.normal(0, 0.05, (8 * 6 * 6, 10)).astype(np.float32),
                                     "m")]
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["h"], name="conv", kernel_shape=[3, 3]),
             helper.make_node("Relu", ["h"], ["r"], name="relu"),
             helper.make_node("Flatten", ["r"], ["f"], name="flatten"),
             helper.make_node("MatMul", ["f", "m"], ["p" if bias_add else "y"], name="matmul")]
    if bias_add:
        inits.append(numpy_helper.from_array(rng.normal(0, 0.1, 10).astype(np.float32), "c"))
        nodes.append(helper.make_node("Add", ["p", "c"], ["y"], name="bias"))
    graph = helper.make_graph(
        nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 10])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model
