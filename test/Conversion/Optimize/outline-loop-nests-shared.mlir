// RUN: dsmp-opt %s --dsmp-outline-loop-nests | FileCheck %s
// RUN: dsmp-opt %s --dsmp-outline-loop-nests --convert-scf-to-cf --expand-strided-metadata --finalize-memref-to-llvm --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

/// Nests that differ only in where their views start (the steps of an
/// unrolled recurrence) outline into one function whose views take a
/// dynamic offset; each call casts its view to that type.
// CHECK: func.func private @main_graph_loop0(%{{.+}}: memref<4xf32, strided<[1], offset: ?>>, %{{.+}}: memref<4xf32, strided<[1], offset: ?>>)
/// A nest that makes a view of its argument keeps the argument's type.
// CHECK: func.func private @main_graph_loop1(%{{.+}}: memref<6xf32, strided<[1], offset: 2>>, %{{.+}}: memref<4xf32, strided<[1], offset: ?>>)
// CHECK-NOT: func.func private @main_graph_loop2
// CHECK-LABEL: func.func @main_graph(
// CHECK: %[[A0:.+]] = memref.cast %{{.+}} : memref<4xf32, strided<[1]>> to memref<4xf32, strided<[1], offset: ?>>
// CHECK: %[[B0:.+]] = memref.cast %{{.+}} : memref<4xf32, strided<[1], offset: 8>> to memref<4xf32, strided<[1], offset: ?>>
// CHECK: call @main_graph_loop0(%[[A0]], %[[B0]])
// CHECK: %[[A1:.+]] = memref.cast %{{.+}} : memref<4xf32, strided<[1], offset: 4>> to memref<4xf32, strided<[1], offset: ?>>
// CHECK: %[[B1:.+]] = memref.cast %{{.+}} : memref<4xf32, strided<[1], offset: 12>> to memref<4xf32, strided<[1], offset: ?>>
// CHECK: call @main_graph_loop0(%[[A1]], %[[B1]])
// CHECK: call @main_graph_loop1(
/// Only one function is compiled for both steps.
// LLVM-COUNT-2: llvm.func internal @main_graph_loop
// LLVM-NOT: llvm.func internal @main_graph_loop
func.func @main_graph(%x: memref<16xf32>, %w: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %x0 = memref.subview %x[0] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1]>>
  %y0 = memref.subview %x[8] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 8>>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x0[%i] : memref<4xf32, strided<[1]>>
    %d = arith.addf %v, %v : f32
    memref.store %d, %y0[%i] : memref<4xf32, strided<[1], offset: 8>>
  }
  %x1 = memref.subview %x[4] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 4>>
  %y1 = memref.subview %x[12] [4] [1] : memref<16xf32> to memref<4xf32, strided<[1], offset: 12>>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x1[%i] : memref<4xf32, strided<[1], offset: 4>>
    %d = arith.addf %v, %v : f32
    memref.store %d, %y1[%i] : memref<4xf32, strided<[1], offset: 12>>
  }
  %tail = memref.subview %w[2] [6] [1] : memref<8xf32> to memref<6xf32, strided<[1], offset: 2>>
  scf.for %i = %c0 to %c4 step %c1 {
    %half = memref.subview %tail[2] [4] [1] : memref<6xf32, strided<[1], offset: 2>> to memref<4xf32, strided<[1], offset: 4>>
    %v = memref.load %half[%i] : memref<4xf32, strided<[1], offset: 4>>
    memref.store %v, %x1[%i] : memref<4xf32, strided<[1], offset: 4>>
  }
  return
}
