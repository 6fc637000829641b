//===- ImportAttributeTypesTest.cpp - Wrongly typed ONNX attributes ------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Every op type of the importer's table gets each of its attributes with
// every wrong attribute type, and the declared type paired with every value
// field, in one-node models at opset 17 (ONNX's schema check runs) and 21
// (it does not), with and without declared graph outputs. Each must end in
// one clean error that names the node and the attribute: no crash, no
// import. A missing required attribute must be refused the same way.
//
//===----------------------------------------------------------------------===//

#include "dialects/Dsmp/IR/DsmpDialect.h"
#include "dialects/Dsmp/IR/OnnxOpRegistry.h"
#include "dsmp/Import/ONNXImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringSet.h"

#include <gtest/gtest.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <set>

namespace {

using AttrProto = onnx::AttributeProto;

/// The seven attribute types the issue names (each both as a declared type
/// and as the field the value is put in).
const AttrProto::AttributeType kTypes[] = {
    AttrProto::INT,    AttrProto::FLOAT,  AttrProto::STRING, AttrProto::INTS,
    AttrProto::FLOATS, AttrProto::TENSOR, AttrProto::GRAPH};

void fill(AttrProto &attr, AttrProto::AttributeType field) {
  switch (field) {
  case AttrProto::INT:
    attr.set_i(1);
    break;
  case AttrProto::FLOAT:
    attr.set_f(1.0f);
    break;
  case AttrProto::STRING:
    attr.set_s("x");
    break;
  case AttrProto::INTS:
    attr.add_ints(1);
    attr.add_ints(0);
    break;
  case AttrProto::FLOATS:
    attr.add_floats(1.0f);
    break;
  case AttrProto::TENSOR: {
    onnx::TensorProto *t = attr.mutable_t();
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_dims(1);
    t->add_float_data(1.0f);
    break;
  }
  case AttrProto::GRAPH: {
    onnx::GraphProto *g = attr.mutable_g();
    g->set_name("sub");
    break;
  }
  default:
    break;
  }
}

struct Case {
  std::string opType;
  std::string attrName; // empty: no attribute (the missing case)
  AttrProto::AttributeType declared = AttrProto::UNDEFINED;
  AttrProto::AttributeType field = AttrProto::UNDEFINED;
  int opset = 17;
  bool declareOutputs = false;
  int numInputs = 1;
  std::vector<std::string> otherRequired; // filled with their right types
};

onnx::ValueInfoProto floatTensor(const std::string &name, int rank) {
  onnx::ValueInfoProto v;
  v.set_name(name);
  auto *tensor = v.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  for (int d = 0; d < rank; ++d)
    tensor->mutable_shape()->add_dim()->set_dim_value(2 + d);
  return v;
}

std::string modelBytes(const Case &c, const onnx::OpSchema *schema) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto *opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(c.opset);
  onnx::GraphProto *graph = model.mutable_graph();
  graph->set_name("g");
  onnx::NodeProto *node = graph->add_node();
  node->set_op_type(c.opType);
  node->set_name("n");
  for (int i = 0; i < c.numInputs; ++i) {
    std::string name = "x" + std::to_string(i);
    node->add_input(name);
    *graph->add_input() = floatTensor(name, 4);
  }
  node->add_output("y");
  if (c.declareOutputs)
    *graph->add_output() = floatTensor("y", 4);
  if (!c.attrName.empty()) {
    AttrProto *attr = node->add_attribute();
    attr->set_name(c.attrName);
    attr->set_type(c.declared);
    fill(*attr, c.field);
  }
  for (const std::string &name : c.otherRequired) {
    AttrProto *attr = node->add_attribute();
    attr->set_name(name);
    auto type = schema->attributes().at(name).type;
    attr->set_type(type);
    fill(*attr, type);
  }
  std::string bytes;
  model.SerializeToString(&bytes);
  return bytes;
}

class ImportAttributeTypes : public ::testing::Test {
protected:
  ImportAttributeTypes() {
    context.loadDialect<mlir::dsmp::DsmpDialect, mlir::func::FuncDialect>();
  }

  /// Imports `c`'s model; returns the error text, or "" when it imported.
  std::string importError(const Case &c, const onnx::OpSchema *schema) {
    auto module = mlir::dsmp::importONNXModelFromBuffer(
        modelBytes(c, schema), "gen/model.onnx", context);
    ++imports;
    if (module)
      return "";
    return llvm::toString(module.takeError());
  }

  mlir::MLIRContext context{mlir::MLIRContext::Threading::DISABLED};
  int imports = 0;
};

std::string describe(const Case &c) {
  return c.opType + "." + (c.attrName.empty() ? "<none>" : c.attrName) +
         " declared " + AttrProto::AttributeType_Name(c.declared) + " filled " +
         AttrProto::AttributeType_Name(c.field) + " opset " +
         std::to_string(c.opset) + (c.declareOutputs ? " with" : " without") +
         " outputs";
}

TEST_F(ImportAttributeTypes, EveryWrongTypeIsACleanError) {
  context.getDiagEngine().registerHandler(
      [](mlir::Diagnostic &) { return mlir::success(); });
  int refused = 0, checkedAttributes = 0;
  for (const mlir::dsmp::OnnxOpInfo &info : mlir::dsmp::getOnnxOps()) {
    const onnx::OpSchema *schema =
        onnx::OpSchemaRegistry::Schema(info.onnxType, 17, "");
    auto registered =
        mlir::RegisteredOperationName::lookup(info.opName, &context);
    ASSERT_TRUE(registered) << info.opName;
    // Its attributes: the dsmp op's and the ONNX schema's.
    std::set<std::string> names;
    for (mlir::StringAttr name : registered->getAttributeNames())
      names.insert(name.str());
    std::vector<std::string> required;
    if (schema)
      for (const auto &[name, attr] : schema->attributes()) {
        names.insert(name);
        if (attr.required)
          required.push_back(name);
      }
    int numInputs = schema ? std::max(schema->min_input(), 1)
                           : std::max<int>(info.numOperands, 1);
    for (const std::string &name : names) {
      auto inSchema = schema ? schema->attributes().find(name)
                             : decltype(schema->attributes().end()){};
      bool known = schema && inSchema != schema->attributes().end();
      AttrProto::AttributeType right =
          known ? inSchema->second.type : AttrProto::UNDEFINED;
      ++checkedAttributes;
      std::vector<std::string> others;
      for (const std::string &r : required)
        if (r != name)
          others.push_back(r);
      std::vector<Case> cases;
      for (auto declared : kTypes)
        for (auto field : kTypes) {
          if (declared == right && field == right)
            continue;
          Case c{info.onnxType, name, declared, field};
          c.numInputs = numInputs;
          c.otherRequired = others;
          cases.push_back(c);
          if (declared == field) // a plain wrong type: every graph form
            for (int opset : {17, 21})
              for (bool outputs : {false, true}) {
                if (opset == 17 && !outputs)
                  continue;
                Case d = c;
                d.opset = opset;
                d.declareOutputs = outputs;
                cases.push_back(d);
              }
        }
      for (const Case &c : cases) {
        std::string error = importError(c, schema);
        // Without an ONNX type to hold it against (a dsmp-only attribute),
        // the right kind may import; it must not crash either way.
        // dsmp's own attributes (`acc`) are never taken from a model.
        bool mustFail = known || c.declared != c.field ||
                        mlir::dsmp::isDsmpOnlyAttribute(c.attrName);
        if (!mustFail)
          continue;
        ASSERT_FALSE(error.empty()) << describe(c) << " imported";
        EXPECT_NE(error.find("node 'n' (" + c.opType), std::string::npos)
            << describe(c) << ": " << error;
        EXPECT_NE(error.find("'" + c.attrName + "'"), std::string::npos)
            << describe(c) << ": " << error;
        EXPECT_EQ(error.find('\n'), std::string::npos)
            << describe(c) << ": " << error;
        ++refused;
      }
    }
    // Each required attribute left out, the others given rightly.
    for (const std::string &name : required) {
      if (schema->attributes().at(name).type == AttrProto::GRAPH)
        continue;
      for (int opset : {17, 21}) {
        Case c{info.onnxType, ""};
        c.opset = opset;
        c.numInputs = numInputs;
        for (const std::string &r : required)
          if (r != name)
            c.otherRequired.push_back(r);
        std::string error = importError(c, schema);
        ASSERT_FALSE(error.empty()) << info.onnxType << " without " << name
                                    << " at opset " << opset << " imported";
        EXPECT_NE(error.find(name), std::string::npos)
            << info.onnxType << " without " << name << ": " << error;
        ++refused;
      }
    }
  }
  // The table has well over a hundred op types with attributes.
  EXPECT_GT(checkedAttributes, 150);
  EXPECT_GT(refused, 5000);
  std::printf("%d imports, %d attributes, %d refused cleanly\n", imports,
              checkedAttributes, refused);
}

} // namespace
