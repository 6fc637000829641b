// RUN: dsmp-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(dsmp-free-buffers-after-last-use))' | FileCheck %s

/// Each dealloc moves up to just after the last op using the buffer or a
/// view of it (the subview read by the copy, the loop that stores into it).
// CHECK-LABEL: func.func @after_last_use(
// CHECK: %[[A:.+]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT: linalg.fill ins(%{{.+}} : f32) outs(%[[A]] : memref<4x8xf32>)
// CHECK-NEXT: %[[B:.+]] = memref.alloc() : memref<2x8xf32>
// CHECK-NEXT: %[[V:.+]] = memref.subview %[[A]][1, 0] [2, 8] [1, 1]
// CHECK-NEXT: memref.copy %[[V]], %[[B]]
// CHECK-NEXT: memref.dealloc %[[A]] : memref<4x8xf32>
// CHECK-NEXT: scf.for
// CHECK: memref.store %{{.+}}, %[[B]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[B]] : memref<2x8xf32>
// CHECK-NEXT: %[[C:.+]] = memref.alloc() : memref<2x8xf32>
// CHECK-NEXT: memref.copy %{{.+}}, %[[C]]
// CHECK-NEXT: memref.copy %[[C]], %{{.+}}
// CHECK-NEXT: memref.dealloc %[[C]] : memref<2x8xf32>
// CHECK-NEXT: return
func.func @after_last_use(%out: memref<2x8xf32>, %in: memref<2x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = memref.alloc() : memref<4x8xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<4x8xf32>)
  %b = memref.alloc() : memref<2x8xf32>
  %v = memref.subview %a[1, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 8>>
  memref.copy %v, %b : memref<2x8xf32, strided<[8, 1], offset: 8>> to memref<2x8xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    memref.store %zero, %b[%i, %c0] : memref<2x8xf32>
  }
  %c = memref.alloc() : memref<2x8xf32>
  memref.copy %in, %c : memref<2x8xf32> to memref<2x8xf32>
  memref.copy %c, %out : memref<2x8xf32> to memref<2x8xf32>
  memref.dealloc %a : memref<4x8xf32>
  memref.dealloc %b : memref<2x8xf32>
  memref.dealloc %c : memref<2x8xf32>
  return
}

// -----

/// A memref that an op derives from the buffer without being a view (a
/// call returning one) may alias it: that dealloc stays where it was.
// CHECK-LABEL: func.func @unknown_alias(
// CHECK: %[[A:.+]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT: %[[R:.+]] = call @passthrough(%[[A]])
// CHECK-NEXT: memref.copy %[[R]], %{{.+}}
// CHECK-NEXT: memref.copy %{{.+}}, %[[R]]
// CHECK-NEXT: memref.dealloc %[[A]] : memref<8xf32>
func.func private @passthrough(memref<8xf32>) -> memref<8xf32>
func.func @unknown_alias(%out: memref<8xf32>, %in: memref<8xf32>) {
  %a = memref.alloc() : memref<8xf32>
  %r = call @passthrough(%a) : (memref<8xf32>) -> memref<8xf32>
  memref.copy %r, %out : memref<8xf32> to memref<8xf32>
  memref.copy %in, %r : memref<8xf32> to memref<8xf32>
  memref.dealloc %a : memref<8xf32>
  return
}
