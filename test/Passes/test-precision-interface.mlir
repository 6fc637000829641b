// RUN: dsmp-opt %s --dsmp-test-precision-interface -verify-diagnostics

/// Each op class reports its FLOPs from the static shapes.
func.func @classes(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>,
                   %a: tensor<4x8xf32>, %b: tensor<8x16xf32>,
                   %i: tensor<4xi64>) {
  %n = dsmp.none
  // expected-remark @+1 {{class=conv flops=7776 acc=f32 formats=[f32,tf32,f16,bf16,f8E4M3FN,f8E5M2,f8E4M3FNUZ,f8E5M2FNUZ]}}
  %c = dsmp.conv %x, %w, %n : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, none) -> tensor<1x4x6x6xf32>
  // expected-remark @+1 {{class=matmul flops=1024 acc=f32}}
  %m = dsmp.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  // expected-remark @+1 {{class=transcendental flops=64 acc=f32 formats=[f32,f16,bf16]}}
  %e = dsmp.exp %m : (tensor<4x16xf32>) -> tensor<4x16xf32>
  // expected-remark @+1 {{class=normalization flops=320 acc=bf16}}
  %s = dsmp.softmax %e {acc = #dsmp.format<bf16>} : (tensor<4x16xf32>) -> tensor<4x16xf32>
  // expected-remark @+1 {{class=reduction flops=144 acc=f32}}
  %g = dsmp.global_average_pool %c : (tensor<1x4x6x6xf32>) -> tensor<1x4x1x1xf32>
  // expected-remark @+1 {{class=data_movement flops=0 acc=f32 formats=[f32,tf32,f16,bf16,f8E4M3FN,f8E5M2,f8E4M3FNUZ,f8E5M2FNUZ]}}
  %t = dsmp.transpose %a : (tensor<4x8xf32>) -> tensor<8x4xf32>
  // expected-remark @+1 {{class=elementwise flops=4 acc=f32 formats=[]}}
  %k = dsmp.add %i, %i : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return
}

/// Dynamic dims leave the FLOP count unknown.
func.func @dynamic(%a: tensor<?x8xf32>, %b: tensor<8x16xf32>) {
  // expected-remark @+1 {{class=matmul flops=? acc=f32}}
  %m = dsmp.matmul %a, %b : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  return
}
