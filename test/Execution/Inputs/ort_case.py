"""One test case for dsmp-run --compare: a model saved as DIR/NAME/model.onnx
and DIR/NAME/test_data_set_0/{input,output}_K.pb, the outputs computed by
onnxruntime (CPU) as the reference. Shared by the make_*.py generators."""
import os

import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper


def write_case(out, name, nodes, feeds, outputs, inits=(), opset=17, domains=()):
    """`feeds`: {input name: array}; `outputs`: [(name, TensorProto type)];
    `domains`: more (domain, version) opset imports (com.microsoft).
    Returns onnxruntime's outputs, in order."""
    inputs = [helper.make_tensor_value_info(
        n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape) for n, a in feeds.items()]
    graph = helper.make_graph(nodes, name, inputs,
                              [helper.make_tensor_value_info(o, t, None) for o, t in outputs],
                              list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)] +
                              [helper.make_opsetid(d, v) for d, v in domains])
    model.ir_version = 8
    case = os.path.join(out, name)
    data = os.path.join(case, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    onnx.save(model, os.path.join(case, "model.onnx"))
    results = ort.InferenceSession(os.path.join(case, "model.onnx"),
                                   providers=["CPUExecutionProvider"]).run(None, feeds)
    for k, (n, a) in enumerate(feeds.items()):
        with open(os.path.join(data, f"input_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())
    for k, ((o, _), a) in enumerate(zip(outputs, results)):
        with open(os.path.join(data, f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, o).SerializeToString())
    return results
