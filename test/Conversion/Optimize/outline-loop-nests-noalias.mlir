// RUN: dsmp-opt %s --dsmp-outline-loop-nests | FileCheck %s
// RUN: dsmp-opt %s --dsmp-outline-loop-nests --convert-scf-to-cf --finalize-memref-to-llvm --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts --dsmp-mark-noalias-pointers | FileCheck %s --check-prefix=LLVM

/// A nest reading one buffer and writing another: its memrefs' aligned
/// pointers (positions 1 and 6 once each 1-D memref is 5 values) are noalias.
// CHECK: func.func private @main_graph_loop0(%{{.+}}: memref<4xf32>, %{{.+}}: memref<4xf32>) attributes {dsmp.noalias_pointers = array<i64: 1, 6>
/// A nest writing a buffer that it also reads through a view of the same
/// allocation gets nothing.
// CHECK: func.func private @main_graph_loop1(
// CHECK-NOT: dsmp.noalias_pointers
// CHECK-SAME: {
// LLVM: llvm.func internal @main_graph_loop0(%{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr {llvm.noalias}, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr {llvm.noalias},
// LLVM-NOT: dsmp.noalias_pointers
// LLVM: llvm.func internal @main_graph_loop1(
// LLVM-NOT: llvm.noalias
// LLVM-SAME: {
func.func @main_graph(%x: memref<4xf32>, %y: memref<4xf32>, %z: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf32>
    memref.store %v, %y[%i] : memref<4xf32>
  }
  %lo = memref.subview %z[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %hi = memref.subview %z[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %lo[%i] : memref<4xf32, strided<[1]>>
    memref.store %v, %hi[%i] : memref<4xf32, strided<[1], offset: 4>>
  }
  return
}
