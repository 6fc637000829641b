// RUN: dsmp-opt %s --split-input-file --dsmp-fold-constant-math | FileCheck %s

/// Weight standardisation on a constant weight: W - mean(W) per row is
/// computed once into the constant the MatMul reads, and the math is gone.
/// A causal mask that a few integers make (Trilu of ConstantOfShape) takes
/// more bytes than the constants it reads, so it stays computed; so does
/// the math on the graph's input.
// CHECK-LABEL: func.func @main_graph
// CHECK-NOT: dsmp.reduce_mean
// CHECK: %[[W:.*]] = dsmp.constant dense<{{\[\[}}-5.000000e-01, 5.000000e-01], [-1.000000e+00, 1.000000e+00]]> : tensor<2x2xf32>
// CHECK-NOT: dense<{{\[\[}}1.000000e+00, 2.000000e+00]
// CHECK: %[[ONES:.*]] = dsmp.constant_of_shape
// CHECK: %[[MASK:.*]] = dsmp.trilu %[[ONES]]
// CHECK: %[[P:.*]] = dsmp.matmul %arg0, %[[W]]
// CHECK: %[[Y:.*]] = dsmp.matmul %[[P]], %[[MASK]]
// CHECK: return %[[Y]]
func.func @main_graph(%x: tensor<2x2xf32>) -> tensor<2x4xf32> {
  %n = dsmp.none
  %w = dsmp.constant dense<[[1.0, 2.0], [3.0, 5.0]]> : tensor<2x2xf32>
  %axes = dsmp.constant dense<1> : tensor<1xi64>
  %m = dsmp.reduce_mean %w, %axes : (tensor<2x2xf32>, tensor<1xi64>) -> tensor<2x1xf32>
  %ws = dsmp.sub %w, %m : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
  %shape = dsmp.constant dense<[2, 4]> : tensor<2xi64>
  %ones = dsmp.constant_of_shape %shape {value = dense<1.0> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<2x4xf32>
  %mask = dsmp.trilu %ones, %n {upper = 0 : i64} : (tensor<2x4xf32>, none) -> tensor<2x4xf32>
  %p = dsmp.matmul %x, %ws : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = dsmp.matmul %p, %mask : (tensor<2x2xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

/// A tied embedding: the table is read by a Gather and, transposed, by the
/// output MatMul. Folding the Transpose would store the table twice, so it
/// stays computed and the one table feeds both.
// CHECK-LABEL: func.func @main_graph
// CHECK: %[[T:.*]] = dsmp.constant {{.*}} : tensor<3x2xf32>
// CHECK-NOT: dsmp.constant {{.*}} : tensor<2x3xf32>
// CHECK: dsmp.gather %[[T]], %arg0
// CHECK: %[[TT:.*]] = dsmp.transpose %[[T]]
// CHECK: dsmp.matmul {{.*}}, %[[TT]]
func.func @main_graph(%ids: tensor<4xi64>) -> tensor<4x3xf32> {
  %table = dsmp.constant dense<[[1.0, 2.0], [3.0, 5.0], [7.0, 11.0]]> : tensor<3x2xf32>
  %e = dsmp.gather %table, %ids {axis = 0 : i64} : (tensor<3x2xf32>, tensor<4xi64>) -> tensor<4x2xf32>
  %tt = dsmp.transpose %table {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %y = dsmp.matmul %e, %tt : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %y : tensor<4x3xf32>
}

// -----

/// A table normalised and then repeated per batch (SEW-D's relative
/// position embeddings: LayerNorm, then expanded per batch and head): the
/// expanded value is larger than the table, so it stays computed, but the
/// LayerNorm, which alone reads the table, is folded into a table of the
/// same size. The scale and bias, which the other LayerNorm reads too, stay.
// CHECK-LABEL: func.func @main_graph
// CHECK-DAG: %[[G:.*]] = dsmp.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[NORMED:.*]] = dsmp.constant dense<{{\[\[}}-0.99{{[0-9]+}}, 0.99{{[0-9]+}}], [-0.99{{[0-9]+}}, 0.99{{[0-9]+}}], [-0.99{{[0-9]+}}, 0.99{{[0-9]+}}], [0.99{{[0-9]+}}, -0.99{{[0-9]+}}]]> : tensor<4x2xf32>
// CHECK-NOT: dense<{{\[\[}}1.000000e+00, 3.000000e+00]
// CHECK: %[[E:.*]] = dsmp.expand %[[NORMED]]
// CHECK: dsmp.layer_normalization %arg0, %[[G]]
// CHECK-NOT: dsmp.layer_normalization
// CHECK: dsmp.add %{{.*}}, %[[E]]
func.func @main_graph(%x: tensor<2x4x2xf32>) -> tensor<2x4x2xf32> {
  %table = dsmp.constant dense<[[1.0, 3.0], [2.0, 6.0], [0.0, 4.0], [5.0, 1.0]]> : tensor<4x2xf32>
  %g = dsmp.constant dense<1.0> : tensor<2xf32>
  %b = dsmp.constant dense<0.0> : tensor<2xf32>
  %y, %m, %s = dsmp.layer_normalization %table, %g, %b : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<4x2xf32>, none, none)
  %shape = dsmp.constant dense<[2, 4, 2]> : tensor<3xi64>
  %e = dsmp.expand %y, %shape : (tensor<4x2xf32>, tensor<3xi64>) -> tensor<2x4x2xf32>
  %xn, %xm, %xs = dsmp.layer_normalization %x, %g, %b : (tensor<2x4x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x4x2xf32>, none, none)
  %out = dsmp.add %xn, %e : (tensor<2x4x2xf32>, tensor<2x4x2xf32>) -> tensor<2x4x2xf32>
  return %out : tensor<2x4x2xf32>
}

// -----

/// Two projections of one normalised table (SEW-D's relative position
/// keys and queries), by weights the graph's own contractions read too:
/// each projection is as large as the table, but together they are twice
/// its size, so they stay computed and the LayerNorm alone is folded.
// CHECK-LABEL: func.func @main_graph
// CHECK-DAG: %[[NORMED:.*]] = dsmp.constant dense<{{\[\[}}-0.99{{.*}} : tensor<4x2xf32>
// CHECK-NOT: dsmp.layer_normalization %{{.*}} : (tensor<4x2xf32>
// CHECK-DAG: dsmp.matmul %[[NORMED]], %{{.*}} : (tensor<4x2xf32>, tensor<2x2xf32>)
// CHECK-DAG: dsmp.matmul %[[NORMED]], %{{.*}} : (tensor<4x2xf32>, tensor<2x2xf32>)
func.func @main_graph(%x: tensor<4x2xf32>) -> tensor<4x2xf32> {
  %table = dsmp.constant dense<[[1.0, 3.0], [2.0, 6.0], [0.0, 4.0], [5.0, 1.0]]> : tensor<4x2xf32>
  %g = dsmp.constant dense<1.0> : tensor<2xf32>
  %b = dsmp.constant dense<0.0> : tensor<2xf32>
  %wq = dsmp.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %wk = dsmp.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %y, %m, %s = dsmp.layer_normalization %table, %g, %b : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<4x2xf32>, none, none)
  %pq = dsmp.matmul %y, %wq : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %pk = dsmp.matmul %y, %wk : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %xn, %xm, %xs = dsmp.layer_normalization %x, %g, %b : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<4x2xf32>, none, none)
  %xq = dsmp.matmul %xn, %wq : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %xk = dsmp.matmul %xn, %wk : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %q = dsmp.add %xq, %pq : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %k = dsmp.add %xk, %pk : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %out = dsmp.add %q, %k : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  return %out : tensor<4x2xf32>
}
