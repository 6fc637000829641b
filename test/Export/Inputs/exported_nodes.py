"""Shared by the export checks: loads an exported model, runs onnx.checker
(full check) and prints "checker: ok", then one line per node in order:
Casts with their source, destination and `to`; other nodes with their
input and output element types (from strict shape inference)."""
import onnx


def check_and_print(path):
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    print("checker: ok")
    name = onnx.TensorProto.DataType.Name
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    types = {v.name: v.type.tensor_type.elem_type for v in
             list(inferred.graph.value_info) + list(inferred.graph.input) +
             list(inferred.graph.output)}
    types.update({i.name: i.data_type for i in model.graph.initializer})
    for node in model.graph.node:
        if node.op_type == "Cast":
            to = next(a.i for a in node.attribute if a.name == "to")
            print(f"Cast {node.input[0]} -> {node.output[0]} to={name(to)}")
        else:
            print(f"{node.op_type} {node.name} inputs="
                  + ",".join(name(types[i]) for i in node.input if i)
                  + " outputs=" + ",".join(name(types[o]) for o in node.output))
    return model
