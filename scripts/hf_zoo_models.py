"""HuggingFace transformers architectures for dsmp's zoo (make-zoo.py --hf).

The models' own code from the `transformers` package (pip install
transformers; not part of the default tests), built from tiny configs with
random weights: 2 layers, width 64, 4 heads. What they add over the zoo's
hand-written look-alikes is the library's real export: its attention masks
(finfo.min fills), position ids, rotary and ALiBi tables, relative position
buckets, its Conv1D, GELU variants and pooling heads. Entries have the
layout of zoo_models.ZOO: (build, make_inputs, dynamic axes, opset).
"""
import torch
import torch.nn as nn
import transformers as hf

WIDTH = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128)
VOCAB = 1000
TEXT_AXES = [{"batch": 0, "seq": 1}, {"batch": 0, "seq": 1}]
IMAGE_AXES = [{"batch": 0}]


class Logits(nn.Module):
    """The first tensor a HuggingFace model returns (logits or hidden states)."""

    def __init__(self, model):
        super().__init__()
        self.model = model.eval()

    def forward(self, x, mask=None):
        if mask is None:
            out = self.model(x, return_dict=False)
        else:
            out = self.model(input_ids=x, attention_mask=mask, return_dict=False)
        return out[0]


def text(batch, gen, which=0):
    """Token ids and an attention mask whose first row pads its last 4."""
    t = (16, 20)[which]
    ids = torch.randint(0, VOCAB, (batch, t), generator=gen)
    mask = torch.ones(batch, t, dtype=torch.int64)
    mask[0, t - 4:] = 0
    return ids, mask


def images(size, channels=3):
    def make(batch, gen, which=0):
        return (torch.randn(batch, channels, size, size, generator=gen),)
    return make


def waveform(batch, gen, which=0):
    return (torch.randn(batch, 4000 + 800 * which, generator=gen),)


def mels(batch, gen, which=0):
    # Whisper's encoder takes a fixed 2 * max_source_positions frames.
    return (torch.randn(batch, 16, 64, generator=gen),)


def text_model(config_class, model_class, **extra):
    def build():
        config = config_class(vocab_size=VOCAB, **{**WIDTH, **extra})
        return Logits(model_class(config))
    return build


def causal_lm(config_class, model_class, **extra):
    def build():
        config = config_class(vocab_size=VOCAB, use_cache=False, **{**WIDTH, **extra})
        return Logits(model_class(config))
    return build


def vision_model(config_class, model_class, **extra):
    def build():
        return Logits(model_class(config_class(**extra)))
    return build


def whisper_encoder():
    config = hf.WhisperConfig(vocab_size=VOCAB, d_model=64, encoder_layers=2, decoder_layers=2,
                              encoder_attention_heads=4, decoder_attention_heads=4,
                              encoder_ffn_dim=128, decoder_ffn_dim=128, num_mel_bins=16,
                              max_source_positions=32, pad_token_id=0, bos_token_id=0,
                              eos_token_id=0, decoder_start_token_id=0)
    return Logits(hf.WhisperModel(config).get_encoder())


def t5_encoder():
    config = hf.T5Config(vocab_size=VOCAB, d_model=64, d_kv=16, d_ff=128, num_layers=2,
                         num_heads=4, use_cache=False)
    return Logits(hf.T5EncoderModel(config))


def bart_encoder():
    config = hf.BartConfig(vocab_size=VOCAB, d_model=64, encoder_layers=2, decoder_layers=2,
                           encoder_attention_heads=4, decoder_attention_heads=4,
                           encoder_ffn_dim=128, decoder_ffn_dim=128,
                           use_cache=False, max_position_embeddings=64)
    return Logits(hf.BartModel(config).get_encoder())


SMALL_VISION = dict(image_size=32, patch_size=4, num_channels=3, num_labels=10, **WIDTH)
HF_ZOO = {
    "hf_bert": (text_model(hf.BertConfig, hf.BertForSequenceClassification, num_labels=3),
                text, TEXT_AXES, 17),
    "hf_roberta": (text_model(hf.RobertaConfig, hf.RobertaForSequenceClassification,
                              num_labels=3, pad_token_id=1), text, TEXT_AXES, 17),
    "hf_distilbert": (lambda: Logits(hf.DistilBertForSequenceClassification(hf.DistilBertConfig(
        vocab_size=VOCAB, dim=64, n_layers=2, n_heads=4, hidden_dim=128, num_labels=3))),
        text, TEXT_AXES, 17),
    "hf_albert": (text_model(hf.AlbertConfig, hf.AlbertForSequenceClassification, embedding_size=32,
                             num_labels=3), text, TEXT_AXES, 17),
    "hf_electra": (text_model(hf.ElectraConfig, hf.ElectraForSequenceClassification,
                              embedding_size=32, num_labels=3), text, TEXT_AXES, 17),
    "hf_deberta_v2": (text_model(hf.DebertaV2Config, hf.DebertaV2ForSequenceClassification,
                                 num_labels=3, relative_attention=True, position_buckets=16,
                                 pos_att_type=["p2c", "c2p"]), text, TEXT_AXES, 17),
    "hf_gpt2": (lambda: Logits(hf.GPT2LMHeadModel(hf.GPT2Config(
        vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, n_positions=64, use_cache=False,
        bos_token_id=0, eos_token_id=0))),
        text, TEXT_AXES, 17),
    "hf_gpt_neox": (causal_lm(hf.GPTNeoXConfig, hf.GPTNeoXForCausalLM), text, TEXT_AXES, 17),
    "hf_opt": (lambda: Logits(hf.OPTForCausalLM(hf.OPTConfig(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
        ffn_dim=128, word_embed_proj_dim=64, max_position_embeddings=64, use_cache=False))),
        text, TEXT_AXES, 17),
    "hf_bloom": (lambda: Logits(hf.BloomForCausalLM(hf.BloomConfig(
        vocab_size=VOCAB, hidden_size=64, n_layer=2, n_head=4, use_cache=False))),
        text, TEXT_AXES, 17),
    "hf_llama": (causal_lm(hf.LlamaConfig, hf.LlamaForCausalLM, num_key_value_heads=2),
                 text, TEXT_AXES, 17),
    "hf_mistral": (causal_lm(hf.MistralConfig, hf.MistralForCausalLM, num_key_value_heads=2),
                   text, TEXT_AXES, 17),
    "hf_qwen2": (causal_lm(hf.Qwen2Config, hf.Qwen2ForCausalLM, num_key_value_heads=2),
                 text, TEXT_AXES, 17),
    "hf_phi": (causal_lm(hf.PhiConfig, hf.PhiForCausalLM), text, TEXT_AXES, 17),
    "hf_falcon": (causal_lm(hf.FalconConfig, hf.FalconForCausalLM, new_decoder_architecture=False),
                  text, TEXT_AXES, 17),
    "hf_t5_encoder": (t5_encoder, text, TEXT_AXES, 17),
    "hf_bart_encoder": (bart_encoder, text, TEXT_AXES, 17),
    "hf_vit": (vision_model(hf.ViTConfig, hf.ViTForImageClassification, **SMALL_VISION),
               images(32), IMAGE_AXES, 17),
    "hf_deit": (vision_model(hf.DeiTConfig, hf.DeiTForImageClassification, **SMALL_VISION),
                images(32), IMAGE_AXES, 17),
    "hf_beit": (vision_model(hf.BeitConfig, hf.BeitForImageClassification,
                             use_relative_position_bias=True, **SMALL_VISION),
                images(32), IMAGE_AXES, 17),
    "hf_swin": (vision_model(hf.SwinConfig, hf.SwinForImageClassification, image_size=32,
                             patch_size=2, embed_dim=32, depths=[2, 2], num_heads=[2, 4],
                             window_size=4, num_labels=10), images(32), IMAGE_AXES, 17),
    "hf_convnext": (vision_model(hf.ConvNextConfig, hf.ConvNextForImageClassification,
                                 num_stages=2, hidden_sizes=[32, 64], depths=[2, 2],
                                 num_labels=10), images(64), IMAGE_AXES, 17),
    "hf_mobilevit": (vision_model(hf.MobileViTConfig, hf.MobileViTForImageClassification,
                                  image_size=64, num_labels=10), images(64), IMAGE_AXES, 17),
    "hf_segformer": (vision_model(hf.SegformerConfig, hf.SegformerForSemanticSegmentation,
                                  num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1],
                                  hidden_sizes=[32, 64], num_attention_heads=[1, 2],
                                  decoder_hidden_size=64, num_labels=5),
                     images(64), IMAGE_AXES, 17),
    "hf_resnet": (vision_model(hf.ResNetConfig, hf.ResNetForImageClassification,
                               embedding_size=32, hidden_sizes=[32, 64], depths=[1, 1],
                               num_labels=10), images(64), IMAGE_AXES, 17),
    "hf_levit": (vision_model(hf.LevitConfig, hf.LevitForImageClassification, image_size=64,
                              hidden_sizes=[64, 96, 128], num_attention_heads=[2, 3, 4],
                              depths=[1, 1, 1], key_dim=[16, 16, 16], num_labels=10),
                 images(64), IMAGE_AXES, 17),
    "hf_wav2vec2": (lambda: Logits(hf.Wav2Vec2ForSequenceClassification(hf.Wav2Vec2Config(
        **WIDTH, conv_dim=(32, 32, 32), conv_stride=(5, 4, 2), conv_kernel=(10, 4, 2),
        num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4, num_labels=4,
        do_stable_layer_norm=True, feat_extract_norm="layer"))),
        waveform, [{"batch": 0, "samples": 1}], 17),
    "hf_whisper_encoder": (whisper_encoder, mels, [{"batch": 0}], 17),
    "hf_clip_vision": (vision_model(hf.CLIPVisionConfig, hf.CLIPVisionModel, image_size=32,
                                    patch_size=4, **WIDTH), images(32), IMAGE_AXES, 17),
}


def audio_model(model_class, config_class, **extra):
    def build():
        return Logits(model_class(config_class(
            **WIDTH, conv_dim=(32, 32, 32), conv_stride=(5, 4, 2), conv_kernel=(10, 4, 2),
            num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4, num_labels=4, **extra)))
    return build


def spectrogram(batch, gen, which=0):
    return (torch.randn(batch, 64, 16, generator=gen),)


SMALL_LM = dict(num_key_value_heads=2, head_dim=16)
HF_ZOO.update({
    "hf_mpnet": (text_model(hf.MPNetConfig, hf.MPNetForSequenceClassification, num_labels=3),
                 text, TEXT_AXES, 17),
    "hf_xlm_roberta": (text_model(hf.XLMRobertaConfig, hf.XLMRobertaForSequenceClassification,
                                  num_labels=3, pad_token_id=1), text, TEXT_AXES, 17),
    "hf_mobilebert": (text_model(hf.MobileBertConfig, hf.MobileBertForSequenceClassification,
                                 embedding_size=32, intra_bottleneck_size=32,
                                 num_feedforward_networks=2, num_labels=3), text, TEXT_AXES, 17),
    "hf_squeezebert": (text_model(hf.SqueezeBertConfig, hf.SqueezeBertForSequenceClassification,
                                  embedding_size=64, num_labels=3), text, TEXT_AXES, 17),
    "hf_convbert": (text_model(hf.ConvBertConfig, hf.ConvBertForSequenceClassification,
                               embedding_size=64, conv_kernel_size=5, num_labels=3),
                    text, TEXT_AXES, 17),
    "hf_roformer": (text_model(hf.RoFormerConfig, hf.RoFormerForSequenceClassification,
                               embedding_size=64, num_labels=3), text, TEXT_AXES, 17),
    "hf_ernie": (text_model(hf.ErnieConfig, hf.ErnieForSequenceClassification, num_labels=3),
                 text, TEXT_AXES, 17),
    "hf_gptj": (lambda: Logits(hf.GPTJForCausalLM(hf.GPTJConfig(
        vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, rotary_dim=8, n_positions=64,
        use_cache=False))), text, TEXT_AXES, 17),
    "hf_codegen": (lambda: Logits(hf.CodeGenForCausalLM(hf.CodeGenConfig(
        vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, rotary_dim=8, n_positions=64,
        n_ctx=64, use_cache=False))), text, TEXT_AXES, 17),
    "hf_gemma": (causal_lm(hf.GemmaConfig, hf.GemmaForCausalLM, **SMALL_LM), text, TEXT_AXES, 17),
    "hf_gemma2": (causal_lm(hf.Gemma2Config, hf.Gemma2ForCausalLM, **SMALL_LM),
                  text, TEXT_AXES, 17),
    "hf_stablelm": (causal_lm(hf.StableLmConfig, hf.StableLmForCausalLM, num_key_value_heads=2),
                    text, TEXT_AXES, 17),
    "hf_olmo": (causal_lm(hf.OlmoConfig, hf.OlmoForCausalLM, num_key_value_heads=2),
                text, TEXT_AXES, 17),
    "hf_phi3": (causal_lm(hf.Phi3Config, hf.Phi3ForCausalLM, num_key_value_heads=2,
                          pad_token_id=0), text, TEXT_AXES, 17),
    "hf_starcoder2": (causal_lm(hf.Starcoder2Config, hf.Starcoder2ForCausalLM,
                                num_key_value_heads=2), text, TEXT_AXES, 17),
    "hf_gpt_bigcode": (lambda: Logits(hf.GPTBigCodeForCausalLM(hf.GPTBigCodeConfig(
        vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, n_positions=64, multi_query=True,
        use_cache=False))), text, TEXT_AXES, 17),
    "hf_mpt": (lambda: Logits(hf.MptForCausalLM(hf.MptConfig(
        vocab_size=VOCAB, d_model=64, n_heads=4, n_layers=2, expansion_ratio=2,
        max_seq_len=64, use_cache=False))), text, TEXT_AXES, 17),
    "hf_biogpt": (causal_lm(hf.BioGptConfig, hf.BioGptForCausalLM), text, TEXT_AXES, 17),
    "hf_xglm": (lambda: Logits(hf.XGLMForCausalLM(hf.XGLMConfig(
        vocab_size=VOCAB, d_model=64, num_layers=2, attention_heads=4, ffn_dim=128,
        max_position_embeddings=64, use_cache=False))), text, TEXT_AXES, 17),
    "hf_dinov2": (vision_model(hf.Dinov2Config, hf.Dinov2ForImageClassification,
                               **SMALL_VISION), images(32), IMAGE_AXES, 17),
    "hf_data2vec_vision": (vision_model(hf.Data2VecVisionConfig,
                                        hf.Data2VecVisionForImageClassification,
                                        use_relative_position_bias=True, **SMALL_VISION),
                           images(32), IMAGE_AXES, 17),
    "hf_regnet": (vision_model(hf.RegNetConfig, hf.RegNetForImageClassification,
                               embedding_size=16, hidden_sizes=[16, 32], depths=[1, 1],
                               groups_width=8, num_labels=10), images(64), IMAGE_AXES, 17),
    "hf_poolformer": (vision_model(hf.PoolFormerConfig, hf.PoolFormerForImageClassification,
                                   num_encoder_blocks=2, depths=[1, 1], hidden_sizes=[32, 64],
                                   patch_sizes=[7, 3], strides=[4, 2], padding=[2, 1],
                                   num_labels=10), images(64), IMAGE_AXES, 17),
    "hf_pvt_v2": (vision_model(hf.PvtV2Config, hf.PvtV2ForImageClassification,
                               hidden_sizes=[16, 32, 64, 128], depths=[1, 1, 1, 1],
                               num_attention_heads=[1, 1, 2, 4], num_labels=10),
                  images(64), IMAGE_AXES, 17),
    "hf_mobilenet_v2": (vision_model(hf.MobileNetV2Config, hf.MobileNetV2ForImageClassification,
                                     image_size=64, depth_multiplier=0.35, num_labels=10),
                        images(64), IMAGE_AXES, 17),
    "hf_bit": (vision_model(hf.BitConfig, hf.BitForImageClassification, embedding_size=32,
                            hidden_sizes=[32, 64, 128, 256], depths=[1, 1, 1, 1], num_groups=8,
                            num_labels=10),
               images(64), IMAGE_AXES, 17),
    "hf_focalnet": (vision_model(hf.FocalNetConfig, hf.FocalNetForImageClassification,
                                 image_size=64, embed_dim=16, depths=[1, 1], num_labels=10),
                    images(64), IMAGE_AXES, 17),
    "hf_yolos": (vision_model(hf.YolosConfig, hf.YolosForObjectDetection, image_size=[32, 32],
                              patch_size=4, num_detection_tokens=10, **WIDTH),
                 images(32), IMAGE_AXES, 17),
    "hf_hubert": (audio_model(hf.HubertForSequenceClassification, hf.HubertConfig),
                  waveform, [{"batch": 0, "samples": 1}], 17),
    "hf_wavlm": (audio_model(hf.WavLMForSequenceClassification, hf.WavLMConfig,
                             num_buckets=32, max_bucket_distance=64),
                 waveform, [{"batch": 0, "samples": 1}], 17),
    "hf_sew": (audio_model(hf.SEWForSequenceClassification, hf.SEWConfig, squeeze_factor=2),
               waveform, [{"batch": 0, "samples": 1}], 17),
    "hf_ast": (vision_model(hf.ASTConfig, hf.ASTForAudioClassification, max_length=64,
                            num_mel_bins=16, patch_size=8, frequency_stride=8, time_stride=8,
                            num_labels=5, **WIDTH), spectrogram, [{"batch": 0}], 17),
})


def speech_features(batch, gen, which=0):
    """Filter-bank frames, 40 or 48 of 16 bins."""
    return (torch.randn(batch, 40 + 8 * which, 16, generator=gen),)


def speech2text_encoder():
    config = hf.Speech2TextConfig(vocab_size=VOCAB, d_model=64, encoder_layers=2, decoder_layers=1,
                                  encoder_attention_heads=4, decoder_attention_heads=4,
                                  encoder_ffn_dim=128, decoder_ffn_dim=128,
                                  input_feat_per_channel=16, conv_channels=32,
                                  max_source_positions=64)
    return Logits(hf.Speech2TextModel(config).get_encoder())


# Session 40: families none of the entries above shares code with. Left out,
# with why: FNet (DFT, which dsmp does not import; torch exports it only
# through dynamo), Cohere and PatchTST (their torch.onnx exports do not run
# in onnxruntime; dynamo's do), Mixtral, Mamba and RWKV (neither exporter
# handles them), BigBird's sequence classifier (meets tau, but its 3 logits
# on set 1 are 2.8x smaller than on set 0, so measured/predicted is 4.16:
# docs/precision.md; its base model is hf_bigbird below).
AUDIO_AXES = [{"batch": 0, "samples": 1}]
HF_ZOO.update({
    "hf_xlnet": (lambda: Logits(hf.XLNetForSequenceClassification(hf.XLNetConfig(
        vocab_size=VOCAB, d_model=64, n_layer=2, n_head=4, d_inner=128, num_labels=3,
        use_mems_eval=False))), text, TEXT_AXES, 17),
    "hf_canine": (lambda: Logits(hf.CanineForSequenceClassification(hf.CanineConfig(
        **WIDTH, num_labels=3, downsampling_rate=4, local_transformer_stride=16))),
        text, TEXT_AXES, 17),
    "hf_ctrl": (lambda: Logits(hf.CTRLLMHeadModel(hf.CTRLConfig(
        vocab_size=VOCAB, n_embd=64, n_layer=2, n_head=4, dff=128, use_cache=False))),
        text, TEXT_AXES, 17),
    "hf_gpt_neo": (lambda: Logits(hf.GPTNeoForCausalLM(hf.GPTNeoConfig(
        vocab_size=VOCAB, hidden_size=64, num_layers=2, num_heads=4,
        attention_types=[[["global", "local"], 1]], window_size=8, use_cache=False))),
        text, TEXT_AXES, 17),
    "hf_qwen3": (causal_lm(hf.Qwen3Config, hf.Qwen3ForCausalLM, **SMALL_LM), text, TEXT_AXES, 17),
    "hf_granite": (causal_lm(hf.GraniteConfig, hf.GraniteForCausalLM, num_key_value_heads=2),
                   text, TEXT_AXES, 17),
    "hf_olmo2": (causal_lm(hf.Olmo2Config, hf.Olmo2ForCausalLM, num_key_value_heads=2),
                 text, TEXT_AXES, 17),
    "hf_esm": (lambda: Logits(hf.EsmForSequenceClassification(hf.EsmConfig(
        vocab_size=33, pad_token_id=1, mask_token_id=32, position_embedding_type="rotary",
        num_labels=3, **WIDTH))),
        lambda b, g, w=0: (torch.randint(4, 30, (b, (16, 20)[w]), generator=g),
                           torch.ones(b, (16, 20)[w], dtype=torch.int64)), TEXT_AXES, 17),
    "hf_deberta": (text_model(hf.DebertaConfig, hf.DebertaForSequenceClassification,
                              relative_attention=True, pos_att_type=["c2p", "p2c"],
                              max_relative_positions=32, num_labels=3), text, TEXT_AXES, 17),
    "hf_megatron_bert": (text_model(hf.MegatronBertConfig, hf.MegatronBertForSequenceClassification,
                                    num_labels=3), text, TEXT_AXES, 17),
    "hf_rembert": (text_model(hf.RemBertConfig, hf.RemBertForSequenceClassification,
                              input_embedding_size=32, output_embedding_size=32, num_labels=3),
                   text, TEXT_AXES, 17),
    "hf_modernbert": (text_model(hf.ModernBertConfig, hf.ModernBertForSequenceClassification,
                                 num_labels=3, global_attn_every_n_layers=2, local_attention=8,
                                 pad_token_id=0, bos_token_id=1, eos_token_id=2, cls_token_id=1,
                                 sep_token_id=2), text, TEXT_AXES, 17),
    "hf_efficientnet": (vision_model(hf.EfficientNetConfig, hf.EfficientNetForImageClassification,
                                     image_size=64, width_coefficient=0.25, depth_coefficient=0.25,
                                     hidden_dim=320, num_labels=10), images(64), IMAGE_AXES, 17),
    "hf_mobilenet_v1": (vision_model(hf.MobileNetV1Config, hf.MobileNetV1ForImageClassification,
                                     image_size=64, depth_multiplier=0.25, num_labels=10),
                        images(64), IMAGE_AXES, 17),
    "hf_convnextv2": (vision_model(hf.ConvNextV2Config, hf.ConvNextV2ForImageClassification,
                                   hidden_sizes=[16, 24, 32, 48], depths=[1, 1, 1, 1], num_labels=10),
                      images(64), IMAGE_AXES, 17),
    "hf_swinv2": (vision_model(hf.Swinv2Config, hf.Swinv2ForImageClassification, image_size=32,
                               patch_size=2, embed_dim=16, depths=[1, 1], num_heads=[2, 2],
                               window_size=4, num_labels=10), images(32), IMAGE_AXES, 17),
    "hf_pvt": (vision_model(hf.PvtConfig, hf.PvtForImageClassification, image_size=64,
                            hidden_sizes=[16, 32, 48, 64], depths=[1, 1, 1, 1],
                            num_attention_heads=[1, 2, 2, 4], num_labels=10),
               images(64), IMAGE_AXES, 17),
    "hf_swiftformer": (vision_model(hf.SwiftFormerConfig, hf.SwiftFormerForImageClassification,
                                    depths=[1, 1, 1, 1], embed_dims=[16, 24, 32, 48], num_labels=10),
                       images(64), IMAGE_AXES, 17),
    "hf_hiera": (vision_model(hf.HieraConfig, hf.HieraForImageClassification, image_size=[64, 64],
                              embed_dim=16, depths=[1, 1, 1, 1], num_heads=[1, 1, 2, 2],
                              num_labels=10), images(64), IMAGE_AXES, 17),
    "hf_siglip_vision": (vision_model(hf.SiglipVisionConfig, hf.SiglipVisionModel, image_size=32,
                                      patch_size=4, **WIDTH), images(32), IMAGE_AXES, 17),
    "hf_dpt": (vision_model(hf.DPTConfig, hf.DPTForDepthEstimation, image_size=32, patch_size=4,
                            hidden_size=64, num_hidden_layers=4, num_attention_heads=4,
                            intermediate_size=128, backbone_out_indices=[0, 1, 2, 3],
                            neck_hidden_sizes=[16, 32, 64, 64], fusion_hidden_size=32,
                            head_in_index=-1), images(32), IMAGE_AXES, 17),
    "hf_glpn": (vision_model(hf.GLPNConfig, hf.GLPNForDepthEstimation, hidden_sizes=[16, 32, 48, 64],
                             depths=[1, 1, 1, 1], num_attention_heads=[1, 2, 2, 4],
                             decoder_hidden_size=16), images(64), IMAGE_AXES, 17),
    "hf_data2vec_audio": (audio_model(hf.Data2VecAudioForSequenceClassification,
                                      hf.Data2VecAudioConfig), waveform, AUDIO_AXES, 17),
    "hf_unispeech": (audio_model(hf.UniSpeechForSequenceClassification, hf.UniSpeechConfig),
                     waveform, AUDIO_AXES, 17),
    "hf_wav2vec2_conformer": (audio_model(hf.Wav2Vec2ConformerForSequenceClassification,
                                          hf.Wav2Vec2ConformerConfig,
                                          position_embeddings_type="rotary"),
                              waveform, AUDIO_AXES, 17),
    "hf_sew_d": (audio_model(hf.SEWDForSequenceClassification, hf.SEWDConfig, squeeze_factor=2,
                             max_position_embeddings=64, position_buckets=32),
                 waveform, AUDIO_AXES, 17),
    "hf_speech2text_encoder": (speech2text_encoder, speech_features, [{"batch": 0, "frames": 1}], 17),
})


# Session 45: detection (DETR), video (VideoMAE), depth (Depth Anything), CvT,
# audio codecs' encoders (EnCodec with its LSTM, DAC's Snake activations),
# a vocoder (HiFi-GAN), GroupViT's hard assignment (ScatterElements), and
# (dynamo exports only) MobileViTV2's fold.
MONO_AXES = [{"batch": 0, "samples": 2}]


class First(nn.Module):
    """The first tensor a model (or a model's part, such as a codec's
    encoder) returns, its input passed as keyword `kw` where given."""

    def __init__(self, model, kw=None):
        super().__init__()
        self.model = model.eval()
        self.kw = kw

    def forward(self, x):
        out = self.model(**{self.kw: x}, return_dict=False) if self.kw else self.model(x)
        return out[0] if isinstance(out, (tuple, list)) else out


def detr():
    backbone = hf.ResNetConfig(embedding_size=16, hidden_sizes=[16, 32, 48, 64], depths=[1, 1, 1, 1],
                               out_features=["stage4"])
    config = hf.DetrConfig(use_timm_backbone=False, backbone_config=backbone,
                           use_pretrained_backbone=False, d_model=64, encoder_layers=2,
                           decoder_layers=2, encoder_attention_heads=4, decoder_attention_heads=4,
                           encoder_ffn_dim=128, decoder_ffn_dim=128, num_queries=10, num_labels=5)
    return First(hf.DetrForObjectDetection(config), "pixel_values")


def videomae():
    config = hf.VideoMAEConfig(image_size=32, patch_size=8, num_frames=4, tubelet_size=2, num_labels=10,
                               **WIDTH)
    return First(hf.VideoMAEForVideoClassification(config), "pixel_values")


def video(batch, gen, which=0):
    return (torch.randn(batch, 4, 3, 32, 32, generator=gen),)


def encodec():
    config = hf.EncodecConfig(hidden_size=32, num_filters=8, num_residual_layers=1,
                              upsampling_ratios=[4, 4], codebook_size=64, codebook_dim=32,
                              num_lstm_layers=2)
    return First(hf.EncodecModel(config).encoder)


def mono(batch, gen, which=0):
    """Mono audio [batch, 1, samples]: a tone of 100-400 Hz plus noise."""
    t = torch.arange(4000 + 800 * which) / 16000.0
    f = torch.rand(batch, 1, 1, generator=gen) * 300 + 100
    noise = torch.randn(batch, 1, t.numel(), generator=gen)
    return (torch.sin(2 * torch.pi * f * t) * 0.5 + 0.05 * noise,)


def dac():
    config = hf.DacConfig(encoder_hidden_size=8, downsampling_ratios=[2, 4], decoder_hidden_size=32,
                          n_codebooks=2, codebook_size=64, codebook_dim=8, hidden_size=64)
    return First(hf.DacModel(config).encoder)


def hifigan():
    config = hf.SpeechT5HifiGanConfig(model_in_dim=16, upsample_initial_channel=32,
                                      upsample_rates=[4, 4], upsample_kernel_sizes=[8, 8],
                                      resblock_kernel_sizes=[3, 7],
                                      resblock_dilation_sizes=[[1, 3], [1, 3]])
    return First(hf.SpeechT5HifiGan(config))


def spectrum(batch, gen, which=0):
    return (torch.randn(batch, 20 + 4 * which, 16, generator=gen) * 0.5,)


def depth_anything():
    backbone = hf.Dinov2Config(image_size=32, patch_size=4, hidden_size=64, num_hidden_layers=4,
                               num_attention_heads=4, intermediate_size=128,
                               out_features=["stage1", "stage2", "stage3", "stage4"],
                               reshape_hidden_states=False)
    config = hf.DepthAnythingConfig(backbone_config=backbone, reassemble_hidden_size=64,
                                    neck_hidden_sizes=[16, 32, 48, 64], fusion_hidden_size=32,
                                    head_hidden_size=16, patch_size=4)
    return First(hf.DepthAnythingForDepthEstimation(config), "pixel_values")


HF_ZOO.update({
    "hf_detr": (detr, images(64), IMAGE_AXES, 17),
    # CvT: convolutional token embeddings and Q/K/V projections. A stage's
    # depth must exceed its index (transformers indexes its drop-path
    # rates by stage).
    "hf_cvt": (vision_model(hf.CvtConfig, hf.CvtForImageClassification, embed_dim=[16, 32, 64],
                            num_heads=[1, 2, 4], depth=[1, 2, 3], num_labels=10),
               images(64), IMAGE_AXES, 17),
    "hf_videomae": (videomae, video, IMAGE_AXES, 17),
    "hf_encodec_encoder": (encodec, mono, MONO_AXES, 17),
    "hf_dac_encoder": (dac, mono, MONO_AXES, 17),
    "hf_hifigan": (hifigan, spectrum, [{"batch": 0, "frames": 1}], 17),
    "hf_depth_anything": (depth_anything, images(32), IMAGE_AXES, 17),
    "hf_groupvit_vision": (vision_model(hf.GroupViTVisionConfig, hf.GroupViTVisionModel,
                                        image_size=32, patch_size=4, hidden_size=64, intermediate_size=128,
                                        depths=[2, 2], num_group_tokens=[8, 0],
                                        num_output_groups=[8, 8], num_attention_heads=4),
                           images(32), IMAGE_AXES, 17),
})


def swin2sr():
    config = hf.Swin2SRConfig(image_size=32, patch_size=1, embed_dim=32, depths=[2, 2], num_heads=[2, 2],
                              window_size=8, upscale=2)
    return First(hf.Swin2SRForImageSuperResolution(config), "pixel_values")


def timesformer():
    config = hf.TimesformerConfig(image_size=32, patch_size=8, num_frames=4, num_labels=10, **WIDTH)
    return First(hf.TimesformerForVideoClassification(config), "pixel_values")


# Session 47's unseen architectures: BigBird (full attention at these
# lengths), ImageGPT (pixel-token decoder), LayoutLM (2-D position
# embeddings), Swin2SR (shifted windows, pixel-shuffle upscaling),
# TimeSformer (divided space-time attention), ViTDet (windowed and global
# attention with relative positions).
HF_ZOO.update({
    "hf_bigbird": (text_model(hf.BigBirdConfig, hf.BigBirdModel, attention_type="original_full"),
                   text, TEXT_AXES, 17),
    "hf_imagegpt": (text_model(hf.ImageGPTConfig, hf.ImageGPTModel, n_embd=64, n_layer=2, n_head=4,
                               n_positions=64), text, TEXT_AXES, 17),
    "hf_layoutlm": (text_model(hf.LayoutLMConfig, hf.LayoutLMModel), text, TEXT_AXES, 17),
    "hf_swin2sr": (swin2sr, images(32), IMAGE_AXES, 17),
    "hf_timesformer": (timesformer, video, IMAGE_AXES, 17),
    "hf_vitdet": (vision_model(hf.VitDetConfig, hf.VitDetModel, image_size=64, patch_size=8,
                               pretrain_image_size=64, **WIDTH), images(64), IMAGE_AXES, 17),
})

# F.fold is ONNX's Col2Im (opset 18), which the TorchScript exporter fails
# to write with a dynamic batch; make-zoo.py --hf --dynamo adds these.
HF_DYNAMO_ZOO = {
    # torch.fft.fftn exports (through dynamo only) as ONNX DFT.
    "hf_fnet": (text_model(hf.FNetConfig, hf.FNetForSequenceClassification, num_labels=3,
                           use_tpu_fourier_optimizations=False), text, TEXT_AXES, 18),
    "hf_mobilevitv2": (vision_model(hf.MobileViTV2Config, hf.MobileViTV2ForImageClassification,
                                    image_size=64, width_multiplier=0.5, num_labels=10),
                       images(64), IMAGE_AXES, 18),
}
