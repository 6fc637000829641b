// RUN: dsmp-opt %s --dsmp-outline-loop-nests=split-parallel=1 | FileCheck %s --check-prefix=OUTLINE
// RUN: dsmp-opt %s --dsmp-outline-loop-nests=split-parallel=1 --convert-scf-to-cf --finalize-memref-to-llvm --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm --reconcile-unrealized-casts --dsmp-fork-loop-nests | FileCheck %s

/// A 64 x 512 parallel nest (32768 iterations, above the 16384 default)
/// takes [lo, hi) of its first dim; the 4 x 4 one (16) stays whole.
// OUTLINE: func.func private @main_graph_loop0(%[[LO:.+]]: index, %[[HI:.+]]: index, %{{.+}}: memref<64x512xf32>, %{{.+}}: memref<64x512xf32>)
// OUTLINE-SAME: dsmp.fork
// OUTLINE-SAME: dsmp.noalias_pointers = array<i64: 3, 10>
// OUTLINE: scf.parallel (%{{.+}}, %{{.+}}) = (%[[LO]], %{{.+}}) to (%[[HI]], %{{.+}})
// OUTLINE: func.func private @main_graph_loop1(%{{.+}}: memref<4x4xf32>, %{{.+}}: memref<4x4xf32>)
// OUTLINE-NOT: dsmp.fork
// OUTLINE-LABEL: func.func @main_graph(
// OUTLINE: arith.constant 512 : index
// OUTLINE-NEXT: %[[ZERO:.+]] = arith.constant 0 : index
// OUTLINE-NEXT: %[[ROWS:.+]] = arith.constant 64 : index
// OUTLINE-NEXT: call @main_graph_loop0(%[[ZERO]], %[[ROWS]], %{{.+}}, %{{.+}})
// OUTLINE: call @main_graph_loop1(%{{.+}}, %{{.+}}) :

/// The thunk takes its thread's share of [lo, hi) and calls the nest; the
/// call stores its arguments in a stack frame and hands it with the thunk
/// to GOMP_parallel.
// CHECK-DAG: llvm.func @GOMP_parallel(!llvm.ptr, !llvm.ptr, i32, i32)
// CHECK-DAG: llvm.func @omp_get_thread_num() -> i32
// CHECK-LABEL: llvm.func internal @main_graph_loop0_fork(
// CHECK: llvm.call @omp_get_thread_num()
// CHECK: llvm.call @omp_get_num_threads()
// CHECK: llvm.cond_br
// CHECK: llvm.call @main_graph_loop0(
// CHECK-LABEL: llvm.func @main_graph(
// CHECK: %[[FRAME:.+]] = llvm.alloca %{{.+}} x !llvm.struct<(i64, i64, ptr, ptr, i64, i64, i64, i64, i64, ptr, ptr, i64, i64, i64, i64, i64)>
// CHECK: llvm.store
// CHECK: %[[THUNK:.+]] = llvm.mlir.addressof @main_graph_loop0_fork : !llvm.ptr
// CHECK: llvm.call @GOMP_parallel(%[[THUNK]], %[[FRAME]], %{{.+}}, %{{.+}}) : (!llvm.ptr, !llvm.ptr, i32, i32) -> ()
// CHECK-NOT: llvm.call @main_graph_loop0(
// CHECK: llvm.call @main_graph_loop1(
func.func @main_graph(%x: memref<64x512xf32>, %y: memref<64x512xf32>, %a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c512 = arith.constant 512 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c512) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<64x512xf32>
    memref.store %v, %y[%i, %j] : memref<64x512xf32>
  }
  scf.parallel (%i, %j) = (%c0, %c0) to (%c4, %c4) step (%c1, %c1) {
    %v = memref.load %a[%i, %j] : memref<4x4xf32>
    memref.store %v, %b[%i, %j] : memref<4x4xf32>
  }
  return
}
