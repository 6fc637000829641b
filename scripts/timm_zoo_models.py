"""timm (PyTorch Image Models) architectures for dsmp's zoo (make-zoo.py --timm).

Built by timm's own code (pip install timm; not part of the default tests)
with random weights and 10 classes: mobile CNNs searched by NAS (MixNet,
MNASNet, TinyNet, HardCoReNAS), re-parameterisable nets (RepVGG, MobileOne,
FastViT, RepViT), TensorFlow "same" padding ports, normaliser-free nets
(scaled weight standardisation), split/selective attention (ResNeSt, SKNet),
HRNet's multi-resolution fusion, and the vision transformers that differ
from ViT in their attention (XCiT's cross-covariance, ConViT's gated
positional attention, CoaT's convolutional relative positions, EVA-02's
rotary SwiGLU blocks, LeViT, EfficientViT's linear attention, CrossViT,
halo/lambda/bottleneck attention in ResNets) plus timm's test_* models.
Entries have the layout of zoo_models.ZOO: (build, make_inputs, dynamic
axes, opset). Models whose own layers fix the input size take it; the rest
run at 64x64 (CNNs) or 160x160 (test_*), which keeps calibration quick.
"""
import timm
import torch

IMAGE_AXES = [{"batch": 0}]

# timm name -> input side. Params 0.1-14 M.
MODELS = {
    # Mobile and NAS CNNs
    "ghostnet_050": 64, "ghostnetv2_100": 64, "ghostnetv3_050": 64, "repghostnet_050": 64,
    "mobilenetv3_small_050": 64, "tf_mobilenetv3_small_minimal_100": 64,
    "mobilenetv4_conv_small": 64, "mobilenetv4_hybrid_medium": 64, "lcnet_050": 64,
    "tinynet_e": 64, "mixnet_s": 64, "semnasnet_050": 64, "hardcorenas_a": 64,
    "tf_efficientnet_b0": 64, "rexnet_100": 64, "hgnetv2_b0": 64, "regnety_002": 64,
    # Re-parameterisable and ResNet-family CNNs
    "mobileone_s0": 64, "repvgg_a0": 64, "repvit_m0_9": 64, "fastvit_t8": 64,
    "resnet10t": 64, "gernet_s": 64, "resnest14d": 64, "skresnet18": 64, "ecaresnet26t": 64,
    "nf_regnet_b0": 64, "dla46_c": 64, "dpn48b": 64, "ese_vovnet19b_slim_dw": 64,
    "cs3darknet_s": 64, "hrnet_w18_small": 64,
    # Modern conv/metaformer blocks
    "convnextv2_atto": 64, "inception_next_atto": 64, "starnet_s1": 64, "mambaout_femto": 64,
    "poolformerv2_s12": 64, "edgenext_xx_small": 64, "mobilevit_xxs": 64,
    "mobilevitv2_050": 64, "efficientvit_b0": 64, "pvt_v2_b0": 64,
    # Attention inside ResNets (fixed feature-map sizes)
    # (HaloNet's Unfold of a dynamic batch does not export to ONNX.)
    "botnet26t_256": 256, "lambda_resnet26t": 256,
    # Vision transformers
    "pit_ti_224": 224, "xcit_nano_12_p16_224": 224, "convit_tiny": 224,
    "coat_lite_tiny": 224, "tiny_vit_5m_224": 224, "eva02_tiny_patch14_224": 224,
    "gmlp_ti16_224": 224, "efficientvit_m0": 224, "efficientformerv2_s0": 224,
    "levit_128s": 224, "crossvit_tiny_240": 240, "visformer_tiny": 224,
    "gcvit_xxtiny": 224, "coatnet_nano_rw_224": 224,
    # timm's own tiny test models
    "test_byobnet": 160, "test_coatnet": 160, "test_convnext": 160,
    "test_efficientnet_evos": 160, "test_efficientnet_gn": 160, "test_efficientnet_ln": 160,
    "test_mambaout": 160, "test_maxvit": 160, "test_nfnet": 160, "test_vit": 160,
    "test_vit2": 160, "test_vit3": 160, "test_vit_relpos": 160,
    # (test_vit4's RMSNorm exports only from opset 23, which the TorchScript
    # exporter does not write.)
}


def untrained_zeros(model, gen):
    """timm zero-initialises what training later grows: classifier heads,
    the last norm's scale in residual branches (zero_init_last) and
    1e-5..1e-6 layer scales. Left so, a model ends in a constant head or
    computes nothing in its residual branches, and its rounding errors say
    nothing. Give such tensors the magnitudes trained weights have."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("bias") or p.abs().max() >= 1e-4:
                continue
            if p.dim() >= 2:
                p.copy_(torch.randn(p.shape, generator=gen) * 0.05)
            else:
                p.copy_(torch.rand(p.shape, generator=gen) * 0.9 + 0.1)


def build(name, fused_attn=True):
    def make():
        timm.layers.set_fused_attn(fused_attn)
        model = timm.create_model(name, pretrained=False, num_classes=10)
        timm.layers.set_fused_attn(True)
        untrained_zeros(model, torch.Generator().manual_seed(2))
        return model
    return make


def images(side):
    def make(batch, gen, which=0):
        return (torch.randn(batch, 3, side, side, generator=gen),)
    return make


TIMM_ZOO = {f"timm_{name}": (build(name), images(side), IMAGE_AXES, 17)
            for name, side in MODELS.items()}
# EVA-02 passes is_causal as a tensor to scaled_dot_product_attention, which
# the TorchScript exporter refuses: its attention written out instead.
TIMM_ZOO["timm_eva02_tiny_patch14_224"] = (
    build("eva02_tiny_patch14_224", fused_attn=False), images(224), IMAGE_AXES, 17)
