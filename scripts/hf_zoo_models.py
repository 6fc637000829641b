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
