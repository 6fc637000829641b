// RUN: dsmp-opt %s --dsmp-linalg-to-blas=api=dnnl --cse | FileCheck %s
// RUN: not dsmp-opt %s --dsmp-linalg-to-blas=api=mkl 2>&1 | FileCheck %s --check-prefix=BAD

/// oneDNN's row-major dnnl_sgemm('N', 'T', M, N, K, 1, A, lda, B, ldb,
/// beta, C, N): 64-bit sizes, the flags as characters ('N' = 78,
/// 'T' = 84); the zero fill before it becomes beta = 0.
// CHECK: func.func private @dnnl_sgemm(i32, i32, i64, i64, i64, f32, !llvm.ptr, i64, !llvm.ptr, i64, f32, !llvm.ptr, i64) -> i32
// CHECK-LABEL: func.func @transposed_b(
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[N:.+]] = arith.constant 78 : i32
// CHECK-DAG: %[[T:.+]] = arith.constant 84 : i32
// CHECK-DAG: %[[M3:.+]] = arith.constant 3 : i64
// CHECK-DAG: %[[N4:.+]] = arith.constant 4 : i64
// CHECK-DAG: %[[K5:.+]] = arith.constant 5 : i64
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: call @dnnl_sgemm(%[[N]], %[[T]], %[[M3]], %[[N4]], %[[K5]], %[[ONE]], %{{.+}}, %[[K5]], %{{.+}}, %[[K5]], %[[ZERO]], %{{.+}}, %[[N4]])
// CHECK-NOT: linalg.matmul
// BAD: unknown api 'mkl' (cblas or dnnl)
#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @transposed_b(%a: memref<3x5xf32>, %b: memref<4x5xf32>, %c: memref<3x4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<3x4xf32>)
  linalg.matmul indexing_maps = [#mk, #nk, #mn]
    ins(%a, %b : memref<3x5xf32>, memref<4x5xf32>) outs(%c : memref<3x4xf32>)
  return
}

/// Run-time sizes (a dynamic variant): M, N, K read from the buffers; a
/// batched product is a loop of calls, each operand advanced by its
/// matrix size, or by 0 where its batch is 1 at run time (broadcast).
// CHECK-LABEL: func.func @dynamic(
// CHECK: %[[M:.+]] = memref.dim %arg2, %c0
// CHECK: arith.index_cast %[[M]] : index to i64
// CHECK: call @dnnl_sgemm
// CHECK-LABEL: func.func @batched(
// CHECK-NOT: linalg.fill
// CHECK: arith.cmpi eq
// CHECK: arith.select
// CHECK: scf.for %[[I:.+]] = %c0 to %{{.+}} step %c1 {
// CHECK: arith.muli %[[I]]
// CHECK: call @dnnl_sgemm(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[ZERO]], %{{.+}}, %{{.+}})
// CHECK-NOT: linalg.batch_matmul
func.func @dynamic(%a: memref<?x5xf32>, %b: memref<5x4xf32>, %c: memref<?x4xf32>) {
  linalg.matmul ins(%a, %b : memref<?x5xf32>, memref<5x4xf32>) outs(%c : memref<?x4xf32>)
  return
}
func.func @batched(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %c: memref<?x?x?xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<?x?x?xf32>)
  linalg.batch_matmul ins(%a, %b : memref<?x?x?xf32>, memref<?x?x?xf32>) outs(%c : memref<?x?x?xf32>)
  return
}
