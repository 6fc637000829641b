// RUN: dsmp-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dsmp-convert-to-linalg))' | FileCheck %s

// Ops sized at run time (docs/dynamic-shapes.md): results take their dynamic
// dims from the operands (tensor.dim) or from shape tensors computed at run
// time.

// An elementwise op sizes its result from the operand that has the dim.
// CHECK-LABEL: func.func @unary(
// CHECK: %[[D0:.+]] = tensor.dim %arg0, %c0
// CHECK: %[[D1:.+]] = tensor.dim %arg0, %c1
// CHECK: tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?x8xf32>
// CHECK: linalg.generic
func.func @unary(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %y = dsmp.relu %x : (tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// Two operands that both size a dim at run time may broadcast either way:
// the result is the larger size. When every such dim is the full size the
// generic reads through its maps (the fast path); else each operand is read
// at index 0 where its size is 1 (tensor.extract).
// CHECK-LABEL: func.func @runtime_broadcast(
// CHECK: arith.maxsi
// CHECK: %[[INIT:.+]] = tensor.empty({{.*}}) : tensor<?x?xf32>
// CHECK: arith.andi
// CHECK: scf.if %{{.+}} -> (tensor<?x?xf32>)
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : {{.*}}) outs(%[[INIT]]
// CHECK: } else {
// CHECK: linalg.generic {{.*}} outs(%[[INIT]]
// CHECK: arith.select
// CHECK: tensor.extract %arg0
// CHECK: tensor.extract %arg1
func.func @runtime_broadcast(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %y = dsmp.add %a, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// A static 1 broadcasts through the indexing map, as with static shapes:
// no run-time choice.
// CHECK-LABEL: func.func @static_broadcast(
// CHECK-NOT: scf.if
// CHECK: linalg.generic {indexing_maps = [#{{.+}}, #{{.+}}, #{{.+}}]
func.func @static_broadcast(%a: tensor<?x8xf32>, %b: tensor<1x8xf32>) -> tensor<?x8xf32> {
  %y = dsmp.add %a, %b : (tensor<?x8xf32>, tensor<1x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// Shape reads the dims at run time.
// CHECK-LABEL: func.func @shape(
// CHECK: %[[D:.+]] = tensor.dim %arg0, %c1
// CHECK: %[[I:.+]] = arith.index_cast %[[D]] : index to i64
// CHECK: tensor.from_elements %{{.+}}, %[[I]] : tensor<2xi64>
func.func @shape(%x: tensor<4x?xf32>) -> tensor<2xi64> {
  %s = dsmp.shape %x : (tensor<4x?xf32>) -> tensor<2xi64>
  return %s : tensor<2xi64>
}

// -----

// Reshape to a shape tensor: 0 copies the input's dim, -1 takes the rest.
// CHECK-LABEL: func.func @reshape(
// CHECK: tensor.extract %arg1[%c0]
// CHECK: arith.select
// CHECK: arith.divsi
// CHECK: %[[SHAPE:.+]] = tensor.from_elements
// CHECK: tensor.reshape %arg0(%[[SHAPE]]) : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x4x?xf32>
func.func @reshape(%x: tensor<?x?xf32>, %s: tensor<3xi64>) -> tensor<?x4x?xf32> {
  %y = dsmp.reshape %x, %s : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x4x?xf32>
  return %y : tensor<?x4x?xf32>
}

// -----

// Slice with bounds computed at run time: made positive, clamped, one
// extract_slice.
// CHECK-LABEL: func.func @slice(
// CHECK: arith.minsi
// CHECK: arith.ceildivsi
// CHECK: tensor.extract_slice %arg0[0, %{{.+}}] [%{{.+}}, %{{.+}}] [1, 2]
func.func @slice(%x: tensor<?x?xf32>, %start: tensor<1xi64>, %end: tensor<1xi64>) -> tensor<?x?xf32> {
  %axes = dsmp.constant dense<1> : tensor<1xi64>
  %steps = dsmp.constant dense<2> : tensor<1xi64>
  %y = dsmp.slice %x, %start, %end, %axes, %steps : (tensor<?x?xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// Expand decides broadcasting at run time: a dim of size 1 reads index 0.
// CHECK-LABEL: func.func @expand(
// CHECK: tensor.extract %arg1
// CHECK: linalg.generic
// CHECK: arith.select
// CHECK: tensor.extract %arg0
func.func @expand(%x: tensor<?x?xf32>, %s: tensor<3xi64>) -> tensor<?x?x?xf32> {
  %y = dsmp.expand %x, %s : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

// -----

// ConstantOfShape and Range of lengths computed at run time.
// CHECK-LABEL: func.func @fill_and_range(
// CHECK: tensor.empty(%{{.+}}, %{{.+}}) : tensor<?x?xf32>
// CHECK: linalg.fill
// CHECK: arith.ceildivsi
// CHECK: tensor.empty(%{{.+}}) : tensor<?xi64>
// CHECK: linalg.index 0
func.func @fill_and_range(%s: tensor<2xi64>, %n: tensor<i64>) -> (tensor<?x?xf32>, tensor<?xi64>) {
  %f = dsmp.constant_of_shape %s {value = dense<2.0> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<?x?xf32>
  %zero = dsmp.constant dense<0> : tensor<i64>
  %one = dsmp.constant dense<1> : tensor<i64>
  %r = dsmp.range %zero, %n, %one : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return %f, %r : tensor<?x?xf32>, tensor<?xi64>
}

// -----

// Gather of token ids of a dynamic shape: the result's dims are the ids'.
// CHECK-LABEL: func.func @embedding(
// CHECK: %[[B:.+]] = tensor.dim %arg1, %c0
// CHECK: %[[S:.+]] = tensor.dim %arg1, %c1
// CHECK: tensor.empty(%[[B]], %[[S]]) : tensor<?x?x4xf32>
func.func @embedding(%table: tensor<10x4xf32>, %ids: tensor<?x?xi64>) -> tensor<?x?x4xf32> {
  %y = dsmp.gather %table, %ids : (tensor<10x4xf32>, tensor<?x?xi64>) -> tensor<?x?x4xf32>
  return %y : tensor<?x?x4xf32>
}

// -----

// A batched f32 product of run-time sizes is a linalg.batch_matmul (a loop
// of GEMM calls after dsmp-linalg-to-blas), its batch the larger of the two.
// CHECK-LABEL: func.func @batched_product(
// CHECK: %[[B:.+]] = arith.maxsi
// CHECK: %[[INIT:.+]] = tensor.empty(%[[B]], %{{.+}}, %{{.+}}) : tensor<?x?x?xf32>
// CHECK: %[[ZERO:.+]] = linalg.fill {{.*}} outs(%[[INIT]]
// CHECK: linalg.batch_matmul ins(%arg0, %arg1 : tensor<?x?x?xf32>, tensor<?x?x?xf32>) outs(%[[ZERO]]
func.func @batched_product(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %y = dsmp.matmul %a, %b : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

// -----

// A static result dim above 1 that an operand sizes at run time: that size
// may be 1 (T5's mask [b, 1, s, s] against the position bias [1, 4, s, s]
// in a Where of result [b, 4, s, s]), so the choice is made at run time.
// CHECK-LABEL: func.func @static_result_dim(
// CHECK: scf.if
// CHECK: } else {
// CHECK: tensor.extract %arg0
func.func @static_result_dim(%a: tensor<?x?xf32>, %b: tensor<1x4xf32>) -> tensor<?x4xf32> {
  %y = dsmp.add %a, %b : (tensor<?x?xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// Concat along a dynamic dim: the result's size is the sum of the inputs',
// each piece inserted at the running sum of the sizes before it.
// CHECK-LABEL: func.func @concat(
// CHECK: %[[B:.+]] = tensor.dim %arg0, %c0
// CHECK: %[[S:.+]] = tensor.dim %arg0, %c1
// CHECK: %[[SUM:.+]] = arith.addi %[[S]], %c3
// CHECK: %[[E:.+]] = tensor.empty(%[[B]], %[[SUM]]) : tensor<?x?x8xf32>
// CHECK: %[[S2:.+]] = tensor.dim %arg0, %c1
// CHECK: %[[I:.+]] = tensor.insert_slice %arg0 into %[[E]][0, 0, 0]
// CHECK: tensor.insert_slice %arg1 into %[[I]][0, %[[S2]], 0] [%{{.+}}, 3, 8]
func.func @concat(%a: tensor<?x?x8xf32>, %b: tensor<?x3x8xf32>) -> tensor<?x?x8xf32> {
  %y = dsmp.concat %a, %b {axis = 1 : i64} : (tensor<?x?x8xf32>, tensor<?x3x8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// Split into num_outputs parts of a run-time dim: ceil(dim / 2) each, the
// last one what is left.
// CHECK-LABEL: func.func @split_halves(
// CHECK: %[[D:.+]] = tensor.dim %arg0, %c1
// CHECK: %[[P:.+]] = arith.ceildivsi %[[D]], %c2
// CHECK: %[[L0:.+]] = arith.minsi %[[P]],
// CHECK: %[[L1:.+]] = arith.minsi %[[P]],
// CHECK: tensor.extract_slice %arg0[0, 0] [2, %[[L0]]]
// CHECK: tensor.extract_slice %arg0[0, %[[L0]]] [2, %[[L1]]]
func.func @split_halves(%x: tensor<2x?xf32>) -> (tensor<2x?xf32>, tensor<2x?xf32>) {
  %n = dsmp.none
  %a, %b = dsmp.split %x, %n {axis = 1 : i64, num_outputs = 2 : i64} : (tensor<2x?xf32>, none) -> (tensor<2x?xf32>, tensor<2x?xf32>)
  return %a, %b : tensor<2x?xf32>, tensor<2x?xf32>
}

// -----

// Tile with repeats read at run time: each result dim the input's times
// its repeat, read back at the remainder.
// CHECK-LABEL: func.func @tile(
// CHECK: %[[D:.+]] = tensor.dim %arg0, %c0
// CHECK: %[[R0:.+]] = tensor.extract %arg1[%c0]
// CHECK: %[[R0I:.+]] = arith.index_cast %[[R0]]
// CHECK: %[[N0:.+]] = arith.muli %[[D]], %[[R0I]]
// CHECK: tensor.empty(%[[N0]], %{{.+}}) : tensor<?x?xf32>
// CHECK: linalg.generic
// CHECK: arith.remui %{{.+}}, %[[D]]
// CHECK: tensor.extract %arg0
func.func @tile(%x: tensor<?x4xf32>, %r: tensor<2xi64>) -> tensor<?x?xf32> {
  %y = dsmp.tile %x, %r : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// Pad of a run-time dim: its size plus the pads; edge clamps to the
// run-time size minus one.
// CHECK-LABEL: func.func @pad(
// CHECK: %[[D:.+]] = tensor.dim %arg0, %c0
// CHECK: %[[N:.+]] = arith.addi %{{.+}}, %c3
// CHECK: tensor.empty(%[[N]]) : tensor<?x5xf32>
// CHECK: linalg.generic
// CHECK: %[[LAST:.+]] = arith.subi %[[D]], %c1
// CHECK: arith.minsi %{{.+}}, %[[LAST]]
func.func @pad(%x: tensor<?x3xf32>) -> tensor<?x5xf32> {
  %p = arith.constant dense<[1, 0, 2, 2]> : tensor<4xi64>
  %n = dsmp.none
  %y = dsmp.pad %x, %p, %n, %n {mode = "edge"} : (tensor<?x3xf32>, tensor<4xi64>, none, none) -> tensor<?x5xf32>
  return %y : tensor<?x5xf32>
}

// -----

// GatherElements: the result has the indices' run-time shape; negative
// indices wrap by the data's run-time size along the axis.
// CHECK-LABEL: func.func @gather_elements(
// CHECK: %[[AX:.+]] = tensor.dim %arg0, %c0
// CHECK: tensor.empty(%{{.+}}, %{{.+}}) : tensor<?x?xf32>
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<?x?xi64>)
// CHECK: arith.addi %{{.+}}, %[[AX]]
// CHECK: tensor.extract %arg0
func.func @gather_elements(%x: tensor<?x8xf32>, %i: tensor<?x?xi64>) -> tensor<?x?xf32> {
  %y = dsmp.gather_elements %x, %i {axis = 0 : i64} : (tensor<?x8xf32>, tensor<?x?xi64>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// CumSum sizes its result from its input.
// CHECK-LABEL: func.func @cum_sum(
// CHECK: %[[D0:.+]] = tensor.dim %arg0, %c0
// CHECK: %[[D1:.+]] = tensor.dim %arg0, %c1
// CHECK: tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?xf32>
// CHECK: linalg.fill
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
func.func @cum_sum(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %a = arith.constant dense<1> : tensor<i64>
  %y = dsmp.cum_sum %x, %a : (tensor<?x?xf32>, tensor<i64>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// A convolution over a run-time batch and length: the output length is
// floor((length - span) / stride) + 1 (at least 0), and the batch goes
// sample by sample, each an im2col GEMM with a run-time number of columns.
// CHECK-LABEL: func.func @conv_dynamic(
// CHECK: %[[B:.+]] = tensor.dim %arg0, %c0
// CHECK: %[[L:.+]] = tensor.dim %arg0, %c2
// CHECK: %[[SPAN:.+]] = arith.subi %[[L]], %c3
// CHECK: %[[Q:.+]] = arith.floordivsi %[[SPAN]], %c2
// CHECK: %[[O1:.+]] = arith.addi %[[Q]], %c1
// CHECK: %[[O:.+]] = arith.maxsi %[[O1]], %c0
// CHECK: %[[E:.+]] = tensor.empty(%[[B]], %[[O]]) : tensor<?x8x?xf32>
// CHECK: scf.for %[[N:.+]] = %c0 to %{{.+}} step %c1 iter_args(%[[ACC:.+]] = %[[E]])
// CHECK: tensor.extract_slice %arg0[%[[N]], 0, 0] [1, 4, %{{.+}}] [1, 1, 1] : tensor<?x4x?xf32> to tensor<1x4x?xf32>
// CHECK: tensor.empty(%[[O]]) : tensor<4x3x?xf32>
// CHECK: linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x12xf32>, tensor<12x?xf32>)
// CHECK: tensor.expand_shape %{{.+}} {{\[\[}}0, 1], [2]] output_shape [1, 8, %[[O]]]
// CHECK: tensor.insert_slice %{{.+}} into %[[ACC]][%[[N]], 0, 0] [1, 8, %[[O]]]
func.func @conv_dynamic(%x: tensor<?x4x?xf32>, %w: tensor<8x4x3xf32>) -> tensor<?x8x?xf32> {
  %n = dsmp.none
  %y = dsmp.conv %x, %w, %n {strides = array<i64: 2>} : (tensor<?x4x?xf32>, tensor<8x4x3xf32>, none) -> tensor<?x8x?xf32>
  return %y : tensor<?x8x?xf32>
}

// -----

// MaxPool over a run-time length (floor mode): sized as a convolution's
// output.
// CHECK-LABEL: func.func @pool(
// CHECK: %[[B:.+]] = tensor.dim %arg0, %c0
// CHECK: arith.floordivsi
// CHECK: %[[O:.+]] = arith.maxsi
// CHECK: %[[E:.+]] = tensor.empty(%[[B]], %[[O]]) : tensor<?x4x?xf32>
// CHECK: %[[F:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E]]
// CHECK: linalg.generic {{.*}} outs(%[[F]] : tensor<?x4x?xf32>)
// CHECK: arith.maximumf
func.func @pool(%x: tensor<?x4x?xf32>) -> tensor<?x4x?xf32> {
  %y, %i = dsmp.max_pool %x {kernel_shape = array<i64: 2>, strides = array<i64: 2>} : (tensor<?x4x?xf32>) -> (tensor<?x4x?xf32>, none)
  return %y : tensor<?x4x?xf32>
}

// -----

// GlobalAveragePool divides by the run-time count of the window's
// elements, computed in f32.
// CHECK-LABEL: func.func @global_average(
// CHECK: tensor.dim %arg0, %c2
// CHECK: %[[N:.+]] = arith.sitofp %{{.+}} : i64 to f32
// CHECK: linalg.generic
// CHECK: arith.divf %{{.+}}, %[[N]]
func.func @global_average(%x: tensor<?x4x?xf32>) -> tensor<?x4x1xf32> {
  %y = dsmp.global_average_pool %x : (tensor<?x4x?xf32>) -> tensor<?x4x1xf32>
  return %y : tensor<?x4x1xf32>
}

// -----

// InstanceNormalization over a run-time batch and length (wav2vec 2.0's
// feature extractor): the mean divides by the run-time element count.
// CHECK-LABEL: func.func @instance_norm(
// CHECK: %[[L:.+]] = tensor.dim %arg0, %c2
// CHECK: %[[N:.+]] = arith.sitofp %{{.+}} : i64 to f32
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.divf %{{.+}}, %[[N]]
func.func @instance_norm(%x: tensor<?x4x?xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<?x4x?xf32> {
  %y = dsmp.instance_normalization %x, %s, %b : (tensor<?x4x?xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<?x4x?xf32>
  return %y : tensor<?x4x?xf32>
}

// -----

// Pads computed at run time (Swin pads its windows to a multiple of the
// run-time size): read from the pads tensor; the result's size is the
// input's plus both pads, the source coordinate the index less the first.
// CHECK-LABEL: func.func @runtime_pads(
// CHECK: %[[B:.+]] = tensor.extract %arg1[%c1]
// CHECK: %[[BI:.+]] = arith.index_cast %[[B]] : i64 to index
// CHECK: %[[E:.+]] = tensor.extract %arg1[%c3]
// CHECK: %[[EI:.+]] = arith.index_cast %[[E]] : i64 to index
// CHECK: %[[P:.+]] = arith.addi %[[BI]], %[[EI]]
// CHECK: %[[N:.+]] = arith.addi %{{.+}}, %[[P]]
// CHECK: tensor.empty(%[[N]]) : tensor<2x?xf32>
// CHECK: linalg.generic
// CHECK: arith.subi %{{.+}}, %[[BI]]
func.func @runtime_pads(%x: tensor<2x?xf32>, %p: tensor<4xi64>) -> tensor<2x?xf32> {
  %n = dsmp.none
  %y = dsmp.pad %x, %p, %n, %n {mode = "constant"} : (tensor<2x?xf32>, tensor<4xi64>, none, none) -> tensor<2x?xf32>
  return %y : tensor<2x?xf32>
}
