//===- GraphSort.cpp - Topological order and dangling inputs ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// ONNX requires nodes in topological order, but real exporters do not
// always deliver it. This sorts each graph (Kahn's algorithm, stable with
// respect to the file order) and reports cycles and inputs that nothing
// produces. A node's dependencies include the outer-scope names its
// subgraphs read.
//
//===----------------------------------------------------------------------===//

#include "ImportUtils.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <deque>

using llvm::Error;

namespace mlir::dsmp::onnx_import {

namespace {

/// Names a graph reads from enclosing scopes (recursively).
void collectFreeNames(const onnx::GraphProto &graph, llvm::StringSet<> &free) {
  llvm::StringSet<> defined;
  for (const auto &input : graph.input())
    defined.insert(input.name());
  for (const auto &init : graph.initializer())
    defined.insert(init.name());
  for (const auto &node : graph.node())
    for (const auto &output : node.output())
      defined.insert(output);
  auto use = [&](const std::string &name) {
    if (!name.empty() && !defined.contains(name))
      free.insert(name);
  };
  for (const auto &node : graph.node()) {
    for (const auto &input : node.input())
      use(input);
    for (const auto &attr : node.attribute()) {
      llvm::StringSet<> inner;
      if (attr.has_g())
        collectFreeNames(attr.g(), inner);
      for (const auto &g : attr.graphs())
        collectFreeNames(g, inner);
      for (const auto &entry : inner)
        use(entry.getKey().str());
    }
  }
  for (const auto &output : graph.output())
    use(output.name());
}

Where whereOf(const onnx::NodeProto &node) {
  return {node.name().empty() && node.output_size() ? node.output(0)
                                                    : node.name(),
          node.op_type()};
}

} // namespace

Error sortGraph(onnx::GraphProto &graph,
                const std::vector<std::string> &outerNames,
                llvm::StringRef file, int64_t opset) {
  llvm::StringSet<> available;
  for (const auto &name : outerNames)
    available.insert(name);
  for (const auto &input : graph.input())
    available.insert(input.name());
  for (const auto &init : graph.initializer())
    available.insert(init.name());

  int numNodes = graph.node_size();
  llvm::StringMap<int> producer;
  for (int i = 0; i < numNodes; ++i)
    for (const auto &output : graph.node(i).output())
      if (!output.empty()) {
        if (producer.count(output) || available.contains(output))
          return makeError(file, whereOf(graph.node(i)), opset,
                           "output '" + output +
                               "' is already defined elsewhere in the graph");
        producer[output] = i;
      }

  // Dependencies: direct inputs plus the outer names subgraphs read.
  std::vector<std::vector<int>> users(numNodes);
  std::vector<int> pending(numNodes, 0);
  for (int i = 0; i < numNodes; ++i) {
    const auto &node = graph.node(i);
    llvm::StringSet<> needs;
    for (const auto &input : node.input())
      if (!input.empty())
        needs.insert(input);
    for (const auto &attr : node.attribute()) {
      if (attr.has_g())
        collectFreeNames(attr.g(), needs);
      for (const auto &g : attr.graphs())
        collectFreeNames(g, needs);
    }
    for (const auto &entry : needs) {
      llvm::StringRef name = entry.getKey();
      auto it = producer.find(name);
      if (it != producer.end()) {
        if (it->second == i)
          return makeError(file, whereOf(node), opset,
                           "node reads its own output '" + name + "'");
        users[it->second].push_back(i);
        ++pending[i];
      } else if (!available.contains(name)) {
        return makeError(file, whereOf(node), opset,
                         "input '" + name +
                             "' is not produced by any node, graph input "
                             "or initializer");
      }
    }
  }

  std::deque<int> ready;
  for (int i = 0; i < numNodes; ++i)
    if (pending[i] == 0)
      ready.push_back(i);
  std::vector<int> order;
  order.reserve(numNodes);
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (int user : users[i])
      if (--pending[user] == 0)
        ready.push_back(user);
  }
  if (static_cast<int>(order.size()) != numNodes) {
    for (int i = 0; i < numNodes; ++i)
      if (pending[i] > 0)
        return makeError(file, whereOf(graph.node(i)), opset,
                         "the graph has a cycle through this node");
  }

  bool sorted = true;
  for (int i = 0; i < numNodes; ++i)
    sorted &= order[i] == i;
  if (!sorted) {
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    for (int i : order)
      *nodes.Add() = graph.node(i);
    graph.mutable_node()->Swap(&nodes);
  }

  for (const auto &output : graph.output())
    if (!producer.count(output.name()) && !available.contains(output.name()))
      return makeError(file, {}, opset,
                       "graph output '" + output.name() +
                           "' is not produced by any node");

  // Recurse with every name visible here as the outer scope.
  std::vector<std::string> inner(outerNames);
  for (const auto &entry : available)
    inner.push_back(entry.getKey().str());
  for (const auto &entry : producer)
    inner.push_back(entry.getKey().str());
  for (auto &node : *graph.mutable_node())
    for (auto &attr : *node.mutable_attribute()) {
      if (attr.has_g())
        if (Error err = sortGraph(*attr.mutable_g(), inner, file, opset))
          return err;
      for (auto &g : *attr.mutable_graphs())
        if (Error err = sortGraph(g, inner, file, opset))
          return err;
    }
  return Error::success();
}

} // namespace mlir::dsmp::onnx_import
