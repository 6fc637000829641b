// The profiler's instrumentation: dsmp-tag-profile-ops records each op's
// node, type, format and FLOPs and tags its location; after lowering,
// dsmp-time-calls reads the clock around each outlined nest and adds the
// time to the exported counters, one row per call, naming the ops it computes.
// RUN: dsmp-opt %s --dsmp-tag-profile-ops --mlir-print-debuginfo | FileCheck %s --check-prefix=TAG
// RUN: dsmp-opt %s --pass-pipeline="builtin.module(dsmp-tag-profile-ops,dsmp-lower-to-llvm{profile-counters=dsmp_profile_test})" | FileCheck %s --check-prefix=TIMED
// RUN: dsmp-opt %s --pass-pipeline="builtin.module(dsmp-lower-to-llvm)" | FileCheck %s --check-prefix=PLAIN

// FLOPs are 2 per multiply-add (32x64 times 64x16: 65536); the casts'
// format is their result's; an op no ONNX node made says so.
// TAG: module attributes {dsmp.profile_ops = [{flops = 0 : i64, format = "f16", name = "in_cast", type = "Cast"}, {flops = 0 : i64, format = "f16", name = "w_cast", type = "Cast"}, {flops = 65536 : i64, format = "f16", name = "mm", type = "MatMul"}, {flops = 512 : i64, format = "f16", name = "act", type = "Relu"}, {flops = 0 : i64, format = "f32", name = "(added by dsmp)", type = "Cast"}]}
// TAG: dsmp.matmul {{.*}} loc([[MM:#loc[0-9]+]])
// TAG: [[MM]] = loc(fused<{dsmp.profile_op = 2 : i64}>[#loc{{[0-9]+}}])

// Five nests, each a row; the last computes the matmul's rounding to f16,
// the relu and the cast back (fused), so it names all three.
// TIMED: dsmp.profile_regions = [{callee = "main_graph_loop0", kind = "loop", ops = array<i64: 0>}, {callee = "main_graph_loop1", kind = "loop", ops = array<i64: 1>}, {callee = "main_graph_loop2", kind = "loop", ops = array<i64: 2>}, {callee = "main_graph_loop3", kind = "loop", ops = array<i64: 2>}, {callee = "main_graph_loop4", kind = "loop", ops = array<i64: 4, 3, 2>}]
// TIMED: llvm.mlir.global external @dsmp_profile_test(dense<0> : tensor<5x2xi64>)
// TIMED-LABEL: llvm.func @main_graph(
// TIMED: llvm.mlir.addressof @dsmp_profile_test
// TIMED: %[[START:.+]] = llvm.call @dsmp_profile_clock()
// TIMED: llvm.call @main_graph_loop0(
// TIMED-NEXT: %[[END:.+]] = llvm.call @dsmp_profile_clock()
// TIMED-NEXT: %[[NANOS:.+]] = llvm.sub %[[END]], %[[START]]
// TIMED: llvm.atomicrmw add %{{.+}}, %[[NANOS]]
// TIMED: llvm.atomicrmw add
// TIMED-COUNT-4: llvm.call @dsmp_profile_clock()
// TIMED: llvm.func internal @dsmp_profile_clock() -> i64
// TIMED: llvm.call @clock_gettime

// Without profiling nothing is timed.
// PLAIN-NOT: dsmp_profile
// PLAIN-NOT: clock_gettime
func.func @main_graph(%a: tensor<32x64xf32>, %b: tensor<64x16xf32>) -> tensor<32x16xf32> {
  %ah = dsmp.cast %a : (tensor<32x64xf32>) -> tensor<32x64xf16> loc("in_cast")
  %bh = dsmp.cast %b : (tensor<64x16xf32>) -> tensor<64x16xf16> loc("w_cast")
  %p = dsmp.matmul %ah, %bh {dsmp.assigned = #dsmp.format<f16>} : (tensor<32x64xf16>, tensor<64x16xf16>) -> tensor<32x16xf16> loc("mm")
  %r = dsmp.relu %p : (tensor<32x16xf16>) -> tensor<32x16xf16> loc("act")
  %o = dsmp.cast %r : (tensor<32x16xf16>) -> tensor<32x16xf32>
  return %o : tensor<32x16xf32>
}
