// RUN: not dsmp-opt %s --dsmp-specialize-shapes="shapes=x:2x4" 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not dsmp-opt %s --dsmp-specialize-shapes="fix-inputs=n" 2>&1 | FileCheck %s --check-prefix=FIX
// RUN: not dsmp-opt %s --dsmp-specialize-shapes="default-dim=0" 2>&1 | FileCheck %s --check-prefix=DIM

/// A malformed option is an error that quotes it, not a crash (the pass
/// reads its options before it has an operation to run on).
// SHAPE: error: dsmp-specialize-shapes: 'x:2x4' is not NAME=D0xD1x... with dims >= 0
// FIX: error: dsmp-specialize-shapes: fix-inputs expects NAME=V[:V...], got 'n'
// DIM: error: dsmp-specialize-shapes: default-dim must be at least 1
func.func @main_graph(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}
