// RUN: dsmp-opt %s --dsmp-linalg-to-blas --cse | FileCheck %s

/// A row-major f32 matmul on buffers becomes cblas_sgemm(RowMajor, NoTrans,
/// NoTrans, M, N, K, 1, A, K, B, N, 1, C, N): C = A B + C.
// CHECK: func.func private @cblas_sgemm(i32, i32, i32, i32, i32, i32, f32, !llvm.ptr, i32, !llvm.ptr, i32, f32, !llvm.ptr, i32)
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:.+]]: memref<3x5xf32>, %[[B:.+]]: memref<5x4xf32>, %[[C:.+]]: memref<3x4xf32>
// CHECK-DAG: %[[ROW:.+]] = arith.constant 101 : i32
// CHECK-DAG: %[[NT:.+]] = arith.constant 111 : i32
// CHECK-DAG: %[[M:.+]] = arith.constant 3 : i32
// CHECK-DAG: %[[N:.+]] = arith.constant 4 : i32
// CHECK-DAG: %[[K:.+]] = arith.constant 5 : i32
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: memref.extract_aligned_pointer_as_index %[[A]]
// CHECK-DAG: memref.extract_aligned_pointer_as_index %[[B]]
// CHECK-DAG: memref.extract_aligned_pointer_as_index %[[C]]
// CHECK: call @cblas_sgemm(%[[ROW]], %[[NT]], %[[NT]], %[[M]], %[[N]], %[[K]], %[[ONE]], %{{.+}}, %[[K]], %{{.+}}, %[[N]], %[[ONE]], %{{.+}}, %[[N]])
// CHECK-NOT: linalg.matmul
func.func @matmul(%a: memref<3x5xf32>, %b: memref<5x4xf32>, %c: memref<3x4xf32>) {
  linalg.matmul ins(%a, %b : memref<3x5xf32>, memref<5x4xf32>) outs(%c : memref<3x4xf32>)
  return
}

/// Strided views and other element types stay for the loop lowering.
// CHECK-LABEL: func.func @strided(
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @f16(
// CHECK: linalg.matmul
func.func @strided(%a: memref<3x5xf32, strided<[10, 1]>>, %b: memref<5x4xf32>, %c: memref<3x4xf32>) {
  linalg.matmul ins(%a, %b : memref<3x5xf32, strided<[10, 1]>>, memref<5x4xf32>) outs(%c : memref<3x4xf32>)
  return
}
func.func @f16(%a: memref<3x5xf16>, %b: memref<5x4xf16>, %c: memref<3x4xf16>) {
  linalg.matmul ins(%a, %b : memref<3x5xf16>, memref<5x4xf16>) outs(%c : memref<3x4xf16>)
  return
}

/// Dense rows at an offset (one sample of a batch, as a batched convolution's
/// im2col GEMM reads it): the pointer is the base plus 4 bytes per element
/// of the offset, the leading dimension the row length.
// CHECK-LABEL: func.func @offset_rows(
// CHECK-SAME: %[[A:.+]]: memref<3x5xf32, strided<[5, 1], offset: ?>>
// CHECK: %[[BASE:.+]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[BUF:.+]], %[[OFFSET:.+]], %{{.+}}:2, %{{.+}}:2 = memref.extract_strided_metadata %[[A]]
// CHECK: %[[BYTES:.+]] = arith.muli %[[OFFSET]], %c4
// CHECK: arith.addi %[[BASE]], %[[BYTES]]
// CHECK: call @cblas_sgemm(
// CHECK-NOT: linalg.matmul
func.func @offset_rows(%a: memref<3x5xf32, strided<[5, 1], offset: ?>>, %b: memref<5x4xf32>, %c: memref<3x4xf32>) {
  linalg.matmul ins(%a, %b : memref<3x5xf32, strided<[5, 1], offset: ?>>, memref<5x4xf32>) outs(%c : memref<3x4xf32>)
  return
}

/// B read transposed through the indexing maps: CblasTrans (112), ldb = K.
/// A zero fill of C right before the call becomes beta = 0.
// CHECK-LABEL: func.func @transposed_b(
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[TRANS:.+]] = arith.constant 112 : i32
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[K5:.+]] = arith.constant 5 : i32
// CHECK: call @cblas_sgemm(%{{.+}}, %{{.+}}, %[[TRANS]], %{{.+}}, %{{.+}}, %[[K5]], %{{.+}}, %{{.+}}, %[[K5]], %{{.+}}, %[[K5]], %[[ZERO]], %{{.+}}, %{{.+}})
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @transposed_b(%a: memref<3x5xf32>, %b: memref<4x5xf32>, %c: memref<3x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<3x4xf32>)
  linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%a, %b : memref<3x5xf32>, memref<4x5xf32>) outs(%c : memref<3x4xf32>)
  return
}
