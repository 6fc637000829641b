// RUN: dsmp-opt %s --dsmp-assign-precision="target=sm_80" --split-input-file -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s --check-prefix=SM80
// RUN: dsmp-opt %s --dsmp-assign-precision="target=gfx90a" --split-input-file -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s --check-prefix=GFX
// RUN: dsmp-opt %s --dsmp-assign-precision="target=gfx90a default-format=f16" --split-input-file -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s --check-prefix=F16ONLY
// RUN: dsmp-opt %s --dsmp-assign-precision="target=x86_64" --split-input-file -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s --check-prefix=X86
// RUN: dsmp-opt %s --dsmp-assign-precision="target=x86_64 features=+avx512bf16" --split-input-file -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s --check-prefix=X86BF
// RUN: dsmp-opt %s --dsmp-assign-precision="target=sm_80 sensitive-layers=^encoder/fc1$" --split-input-file -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s --check-prefix=REGEX

// The budget is (margin * tolerance)^2 = (0.5 * 1e-2)^2 = 2.5e-5. Each
// rounding costs u^2/(8 ln 2) (0.18 u^2, RoundingCost.cpp) x the energy of
// the value rounded (u = 2^-11 for f16
// and tf32, 2^-8 for bf16): a 16-bit matmul rounds its result (energy) and
// casts its graph-input factors (operand_energy each, for want of their
// own); tf32 only casts the factors.

/// The same graph on two targets. @sensitive's f16/bf16 cost (5.1e-5) is
/// over the budget; its tf32 cost (8.7e-6) fits, so sm_80 runs it in tf32
/// (reason budget_fallback: a cheaper format than its best),
/// and gfx90a, which has no tf32, keeps it f32. @wide's range overflows
/// f16, so both targets give it bf16.
// SM80-LABEL: func.func @main_graph
// SM80: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<tf32>{{.*}}dsmp.reason = "budget_fallback"{{.*}}loc("sensitive")
// SM80: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<bf16>{{.*}}dsmp.reason = "sensitivity"{{.*}}loc("wide")
// GFX-LABEL: func.func @main_graph
// GFX: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f32>{{.*}}dsmp.reason = "budget"{{.*}}loc("sensitive")
// GFX: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<bf16>{{.*}}loc("wide")
// GFX-NOT: tf32
/// x86-64 computes in f32 unless it has avx512bf16, which adds bf16
/// matmuls (too coarse for @sensitive within the budget).
// X86-LABEL: func.func @main_graph
// X86: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f32>{{.*}}dsmp.reason = "target"{{.*}}loc("sensitive")
// X86: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f32>{{.*}}dsmp.reason = "target"{{.*}}loc("wide")
// X86BF-LABEL: func.func @main_graph
// X86BF: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f32>{{.*}}dsmp.reason = "budget"{{.*}}loc("sensitive")
// X86BF: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<bf16>{{.*}}dsmp.reason = "sensitivity"{{.*}}loc("wide")
/// With f16 as the only 16-bit format (and no tf32, whose range is f32's),
/// the overflowing op stays f32.
// F16ONLY-LABEL: func.func @main_graph
// F16ONLY: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f32>{{.*}}dsmp.reason = "overflow"{{.*}}loc("wide")
module {
  func.func @main_graph(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
    %0 = dsmp.matmul %a, %b {dsmp.flops = 8192 : i64, dsmp.sensitivity = {adapt = 1.0e+01 : f64, energy = 1.0e+03 : f64, operand_energy = 1.0e+02 : f64}, dsmp.range = {amax = 1.0e+01 : f64}} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> loc("sensitive")
    %1 = dsmp.matmul %c, %c {dsmp.flops = 8192 : i64, dsmp.sensitivity = {adapt = 1.0e-02 : f64, energy = 1.0e-02 : f64, operand_energy = 1.0e-02 : f64}, dsmp.range = {amax = 1.0e+06 : f64}} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> loc("wide")
    return %0, %1 : tensor<16x16xf32>, tensor<16x16xf32>
  }
}

// -----

/// Softmax and LayerNormalization stay f32 by policy (the peers' shared
/// rule: normalization statistics and exp accumulate and run in f32), even
/// with no measurable sensitivity; their neighbours go 16-bit.
// SM80-LABEL: func.func @main_graph
// SM80: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f16>
// SM80: dsmp.softmax {{.*}}dsmp.assigned = #dsmp.format<f32>{{.*}}dsmp.reason = "policy"
// SM80: dsmp.layer_normalization {{.*}}dsmp.assigned = #dsmp.format<f32>{{.*}}dsmp.reason = "policy"
// SM80: dsmp.relu {{.*}}dsmp.assigned = #dsmp.format<f16>
/// A node named by the sensitive-layers regex stays f32.
// REGEX-LABEL: func.func @main_graph
// REGEX: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f32>{{.*}}dsmp.reason = "sensitive_layer"{{.*}}loc("encoder/fc1")
// REGEX: dsmp.relu {{.*}}dsmp.assigned = #dsmp.format<f16>
module {
  func.func @main_graph(%a: tensor<4x16xf32>, %b: tensor<16x16xf32>, %s: tensor<16xf32>) -> tensor<4x16xf32> {
    %n = dsmp.none
    %0 = dsmp.matmul %a, %b {dsmp.flops = 2048 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e-03 : f64, operand_energy = 1.0e-03 : f64}} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32> loc("encoder/fc1")
    %1 = dsmp.softmax %0 {dsmp.flops = 320 : i64, dsmp.sensitivity = {adapt = 0.0 : f64, energy = 0.0 : f64}} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %2, %m, %v = dsmp.layer_normalization %1, %s, %n {dsmp.flops = 512 : i64, dsmp.sensitivity = {adapt = 0.0 : f64, energy = 0.0 : f64}} : (tensor<4x16xf32>, tensor<16xf32>, none) -> (tensor<4x16xf32>, none, none)
    %3 = dsmp.relu %2 {dsmp.flops = 64 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e-03 : f64}} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    return %3 : tensor<4x16xf32>
  }
}

// -----

/// Costs are counted per rounded value. A Relu of an f16 value is exact, so
/// @exact adds nothing (error share 0) though its energy (200, like its
/// input's) would be over what the budget has left after @first (1.6e-5).
/// @cast's own rounding is cheap, but in f16 it would round its input, the
/// result of @kept (energy 1e3: too much for f16, so tf32, whose result is
/// f32): it stays f32.
// SM80-LABEL: func.func @main_graph
// SM80: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f16>{{.*}}loc("first")
// SM80: dsmp.relu {{.*}}dsmp.assigned = #dsmp.format<f16>, dsmp.error_share = 0.000000e+00 : f64{{.*}}loc("exact")
// SM80: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<tf32>{{.*}}dsmp.reason = "budget_fallback"{{.*}}loc("kept")
// SM80: dsmp.add {{.*}}dsmp.assigned = #dsmp.format<f32>{{.*}}dsmp.reason = "budget"{{.*}}loc("cast")
module {
  func.func @main_graph(%a: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
    %w = dsmp.constant dense<0.25> : tensor<16x16xf32>
    %0 = dsmp.matmul %a, %w {dsmp.flops = 8192 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 2.0e+02 : f64, operand_energy = 1.0 : f64}} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> loc("first")
    %1 = dsmp.relu %0 {dsmp.flops = 256 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 2.0e+02 : f64}} : (tensor<16x16xf32>) -> tensor<16x16xf32> loc("exact")
    %2 = dsmp.matmul %a, %w {dsmp.flops = 8192 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e+03 : f64, operand_energy = 1.0e-03 : f64}} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> loc("kept")
    %3 = dsmp.add %2, %2 {dsmp.flops = 256 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e-03 : f64}} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> loc("cast")
    return %1, %3 : tensor<16x16xf32>, tensor<16x16xf32>
  }
}

// -----

/// Two f16 readers of one f32 value share its cast: the first pays for it
/// (u^2/(8 ln 2) x 100 = 4.3e-6, a share of 0.17 of the budget, plus its
/// own rounding, 0.0017), the second only for its own rounding.
// SM80-LABEL: func.func @main_graph
// SM80: dsmp.softmax {{.*}}dsmp.assigned = #dsmp.format<f32>{{.*}}dsmp.reason = "policy"
// SM80: dsmp.add {{.*}}dsmp.assigned = #dsmp.format<f16>, dsmp.error_share = 0.173{{[0-9]*}} : f64{{.*}}loc("first_reader")
// SM80: dsmp.add {{.*}}dsmp.assigned = #dsmp.format<f16>, dsmp.error_share = 0.00171{{[0-9]*}} : f64{{.*}}loc("second_reader")
module {
  func.func @main_graph(%a: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
    %0 = dsmp.softmax %a {dsmp.flops = 320 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e+02 : f64}} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %1 = dsmp.add %0, %0 {dsmp.flops = 64 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0 : f64}} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32> loc("first_reader")
    %2 = dsmp.add %0, %0 {dsmp.flops = 64 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0 : f64}} : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32> loc("second_reader")
    return %1, %2 : tensor<4x16xf32>, tensor<4x16xf32>
  }
}

// -----

/// Constant tables read by data movement (embedding Gathers) are stored in
/// 16 bits with what the budget has left (weight_storage), rounding the
/// table being rounding what is gathered (u^2/(8 ln 2) x its energy): @word
/// is free, its only reader (@proj, f16) rounds the gathered rows anyway;
/// @pos costs 4.3e-8 x 10 (share 0.0172 of the budget) and fits; @huge
/// would cost 4.3e-8 x 1e3, over the 2.5e-5 budget, and stays f32.
// SM80-LABEL: func.func @main_graph
// SM80: dsmp.gather {{.*}}dsmp.assigned = #dsmp.format<f16>, dsmp.error_share = 0.000000e+00 : f64, dsmp.reason = "weight_storage"{{.*}}loc("word")
// SM80: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f16>{{.*}}dsmp.reason = "sensitivity"{{.*}}loc("proj")
// SM80: dsmp.gather {{.*}}dsmp.assigned = #dsmp.format<f16>, dsmp.error_share = 0.0171{{[0-9]*}} : f64, dsmp.reason = "weight_storage"{{.*}}loc("pos")
// SM80: dsmp.gather {{.*}}dsmp.assigned = #dsmp.format<f32>, dsmp.reason = "budget"{{.*}}loc("huge")
module {
  func.func @main_graph(%ids: tensor<4xi64>, %b: tensor<16x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
    %word = dsmp.constant dense<1.0> : tensor<100x16xf32>
    %pos = dsmp.constant dense<2.0> : tensor<100x16xf32>
    %huge = dsmp.constant dense<3.0> : tensor<100x16xf32>
    %0 = dsmp.gather %word, %ids {axis = 0 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e+01 : f64}} : (tensor<100x16xf32>, tensor<4xi64>) -> tensor<4x16xf32> loc("word")
    %1 = dsmp.matmul %0, %b {dsmp.flops = 2048 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0 : f64, operand_energy = 1.0e+01 : f64}} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32> loc("proj")
    %2 = dsmp.gather %pos, %ids {axis = 0 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e+01 : f64}} : (tensor<100x16xf32>, tensor<4xi64>) -> tensor<4x16xf32> loc("pos")
    %3 = dsmp.softmax %2 {dsmp.flops = 320 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0 : f64}} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %4 = dsmp.gather %huge, %ids {axis = 0 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e+03 : f64}} : (tensor<100x16xf32>, tensor<4xi64>) -> tensor<4x16xf32> loc("huge")
    %5 = dsmp.softmax %4 {dsmp.flops = 320 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0 : f64}} : (tensor<4x16xf32>) -> tensor<4x16xf32>
    return %1, %3, %5 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
  }
}

// -----

/// A Div whose divisor has non-zero values that f16 flushes to zero (a
/// calibrated value below 2^-26: bin 0 of the |x| histogram) would divide
/// by zero in f16 where FP32 divides by 1e-12 (F.normalize's guard): f16
/// is excluded, so sm_80 takes bf16 (f32's exponent range) and an
/// f16-only target keeps it f32. @safe's divisor has nothing below 2^-12.
// SM80-LABEL: func.func @main_graph
// SM80: dsmp.div {{.*}}dsmp.assigned = #dsmp.format<bf16>{{.*}}loc("normalize")
// SM80: dsmp.div {{.*}}dsmp.assigned = #dsmp.format<f16>{{.*}}loc("safe")
// F16ONLY-LABEL: func.func @main_graph
// F16ONLY: dsmp.div {{.*}}dsmp.assigned = #dsmp.format<f32>{{.*}}dsmp.reason = "flushed_divisor"{{.*}}loc("normalize")
// F16ONLY: dsmp.div {{.*}}dsmp.assigned = #dsmp.format<f16>{{.*}}loc("safe")
module {
  func.func @main_graph(%x: tensor<8xf32>,
      %tiny: tensor<8xf32> {dsmp.range = {amax = 4.0 : f64, hist = array<i64: 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}},
      %fine: tensor<8xf32> {dsmp.range = {amax = 4.0 : f64, hist = array<i64: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>}}) -> (tensor<8xf32>, tensor<8xf32>) {
    %0 = dsmp.div %x, %tiny {dsmp.flops = 8 : i64, dsmp.sensitivity = {adapt = 1.0e-06 : f64, energy = 1.0e-06 : f64}} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> loc("normalize")
    %1 = dsmp.div %x, %fine {dsmp.flops = 8 : i64, dsmp.sensitivity = {adapt = 1.0e-06 : f64, energy = 1.0e-06 : f64}} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32> loc("safe")
    return %0, %1 : tensor<8xf32>, tensor<8xf32>
  }
}

// -----

/// A 16-bit MatMul whose every reader takes its product in f32 (here the
/// graph's output) stores it unrounded once dsmp-minimize-casts has run, so
/// the predicted error counts only its factors' roundings: sqrt(2 x
/// u^2/(8 ln 2) x 1) = 2.93e-4. The choice still charges the product's
/// rounding (error share 0.17 of the budget), so that an exact reader
/// after it stays free; with a Relu reading it in f16 the product is
/// rounded and the prediction is sqrt(u^2/(8 ln 2) x (2 + 100)) = 2.09e-3.
// SM80: module attributes {dsmp.precision = {margin = 5.000000e-01 : f64, predicted_error = 2.93{{[0-9]+}}E-4 : f64
// SM80: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f16>, dsmp.error_share = 0.175{{[0-9]*}} : f64{{.*}}loc("logits")
// SM80: module attributes {dsmp.precision = {margin = 5.000000e-01 : f64, predicted_error = 0.00209{{[0-9]+}} : f64
// SM80: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f16>{{.*}}loc("logits")
// SM80: dsmp.relu {{.*}}dsmp.assigned = #dsmp.format<f16>, dsmp.error_share = 0.000000e+00 : f64{{.*}}loc("relu")
module {
  func.func @main_graph(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
    %0 = dsmp.matmul %a, %b {dsmp.flops = 8192 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e+02 : f64, operand_energy = 1.0 : f64}} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> loc("logits")
    return %0 : tensor<16x16xf32>
  }
}
// -----
module {
  func.func @main_graph(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> tensor<16x16xf32> {
    %0 = dsmp.matmul %a, %b {dsmp.flops = 8192 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e+02 : f64, operand_energy = 1.0 : f64}} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> loc("logits")
    %1 = dsmp.relu %0 {dsmp.flops = 256 : i64, dsmp.sensitivity = {adapt = 1.0 : f64, energy = 1.0e+02 : f64}} : (tensor<16x16xf32>) -> tensor<16x16xf32> loc("relu")
    return %1 : tensor<16x16xf32>
  }
}

// -----

/// Values so small throughout that f16 holds them as subnormals (largest
/// |x| under 2^-13: an untrained network's shrinking activations) are not
/// rounded to f16, whose absolute step there outweighs its relative
/// rounding: sm_80 runs such an op, and an op reading it, in bf16 (f32's
/// range); with f16 alone they stay f32 ("underflow"). An op whose values
/// reach 1e-3 keeps f16.
// SM80: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<bf16>{{.*}}loc("tiny")
// SM80: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<bf16>{{.*}}loc("reads_tiny")
// SM80: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f16>{{.*}}loc("small")
// F16ONLY: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f32>{{.*}}dsmp.reason = "underflow"{{.*}}loc("tiny")
// F16ONLY: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f32>{{.*}}dsmp.reason = "underflow"{{.*}}loc("reads_tiny")
// F16ONLY: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<f16>{{.*}}loc("small")
module {
  func.func @main_graph(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
    %0 = dsmp.matmul %a, %b {dsmp.flops = 8192 : i64, dsmp.sensitivity = {adapt = 1.0e-02 : f64, energy = 1.0e-02 : f64, operand_energy = 1.0e-02 : f64}, dsmp.range = {amax = 1.0e-06 : f64}} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> loc("tiny")
    %1 = dsmp.matmul %0, %b {dsmp.flops = 8192 : i64, dsmp.sensitivity = {adapt = 1.0e-02 : f64, energy = 1.0e-02 : f64, operand_energy = 1.0e-02 : f64}, dsmp.range = {amax = 1.0 : f64}} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> loc("reads_tiny")
    %2 = dsmp.matmul %a, %b {dsmp.flops = 8192 : i64, dsmp.sensitivity = {adapt = 1.0e-02 : f64, energy = 1.0e-02 : f64, operand_energy = 1.0e-02 : f64}, dsmp.range = {amax = 1.0e-03 : f64}} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> loc("small")
    return %1, %2 : tensor<16x16xf32>, tensor<16x16xf32>
  }
}

// -----

/// A recurrence computes every part of its steps in its format, so it
/// takes 16 bits or f32, never tf32 (which rounds only a contraction's two
/// operands, and would leave the recurrent weights f32 beside them): too
/// sensitive for f16, the GRU stays f32 where the MatMul as sensitive takes
/// tf32.
// SM80: dsmp.gru {{.*}}dsmp.assigned = #dsmp.format<f32>{{.*}}dsmp.reason = "budget"{{.*}}loc("recurrence")
// SM80: dsmp.matmul {{.*}}dsmp.assigned = #dsmp.format<tf32>{{.*}}loc("contraction")
module {
  func.func @main_graph(%x: tensor<2x1x4xf32>, %w: tensor<1x12x4xf32>, %r: tensor<1x12x4xf32>, %a: tensor<16x16xf32>, %b: tensor<16x16xf32>) -> (tensor<2x1x1x4xf32>, tensor<16x16xf32>) {
    %none = dsmp.none
    %y, %yh = dsmp.gru %x, %w, %r, %none, %none, %none {hidden_size = 4 : i64, dsmp.flops = 8192 : i64, dsmp.sensitivity = {adapt = 1.0e+01 : f64, energy = 1.0e+03 : f64, operand_energy = 1.0e+02 : f64}, dsmp.range = {amax = 1.0 : f64}} : (tensor<2x1x4xf32>, tensor<1x12x4xf32>, tensor<1x12x4xf32>, none, none, none) -> (tensor<2x1x1x4xf32>, tensor<1x1x4xf32>) loc("recurrence")
    %m = dsmp.matmul %a, %b {dsmp.flops = 8192 : i64, dsmp.sensitivity = {adapt = 1.0e+01 : f64, energy = 1.0e+03 : f64, operand_energy = 1.0e+02 : f64}, dsmp.range = {amax = 1.0 : f64}} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> loc("contraction")
    return %y, %m : tensor<2x1x1x4xf32>, tensor<16x16xf32>
  }
}
