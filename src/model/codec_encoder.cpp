#include "model/codec_encoder.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"
#include "nn/rope.hpp"
#include "weights/safetensors.hpp"

namespace qwen3tts {

namespace {

std::string resolve_codec_dir(const std::string& dir) {
    namespace fs = std::filesystem;
    // A TTS model root also has config.json + model.safetensors (the talker's): prefer the
    // codec sub-folder when there is one.
    if (fs::exists(fs::path(dir) / "speech_tokenizer" / "config.json"))
        return (fs::path(dir) / "speech_tokenizer").string();
    if (fs::exists(fs::path(dir) / "config.json")) return dir;
    throw Error(ErrorCode::io,
                "no codec found in " + dir +
                    " (expected config.json + model.safetensors, or speech_tokenizer/)");
}

}  // namespace

std::unique_ptr<CodecEncoder> CodecEncoder::load(const std::string& dir_in,
                                                 const CodecEncoderOptions& options) {
    if (options.attention_window < 0)
        throw Error(ErrorCode::invalid_argument,
                    "codec encoder: attention_window must be >= 0 (0 = full causal), got " +
                        std::to_string(options.attention_window));
    if (options.chunk_samples <= 0)
        throw Error(ErrorCode::invalid_argument, "codec encoder: chunk_samples must be > 0");
    const std::string dir = resolve_codec_dir(dir_in);
    std::unique_ptr<CodecEncoder> e(new CodecEncoder());
    e->cfg_ = load_codec_encoder_config(dir + "/config.json");
    e->opt_ = options;
    const CodecEncoderConfig& c = e->cfg_;
    const WeightMap wm = WeightMap::open(dir, "model");

    MimiSeanetShape ss;
    ss.n_filters = c.n_filters;
    ss.strides = c.encoder_strides();
    ss.kernel = c.kernel_size;
    ss.last_kernel = c.last_kernel_size;
    ss.residual_kernel = c.residual_kernel_size;
    ss.n_residual_layers = c.n_residual_layers;
    ss.dilation_growth = c.dilation_growth_rate;
    ss.compress = c.compress;
    ss.hidden = c.hidden_size;
    e->seanet_.load(wm, "encoder.encoder", ss);

    MimiTransformerShape& ts = e->tshape_;
    ts.hidden = c.hidden_size;
    ts.intermediate = c.intermediate_size;
    ts.n_head = c.n_head;
    ts.n_head_kv = c.n_head_kv;
    ts.head_dim = c.head_dim;
    ts.eps = c.norm_eps;
    ts.window = options.attention_window;
    e->layers_.resize(size_t(c.n_layer));
    for (int l = 0; l < c.n_layer; ++l)
        e->layers_[size_t(l)].load(wm, "encoder.encoder_transformer.layers." + std::to_string(l),
                                   ts);

    if (c.downsample_kernel() > 0) {
        e->has_downsample_ = true;
        e->downsample_.load(wm, "encoder.downsample.conv", c.hidden_size, c.hidden_size,
                            c.downsample_kernel(), 2, false);
    }

    MimiRvqShape rs;
    rs.hidden = c.hidden_size;
    rs.dim = c.vq_hidden_dim;
    rs.codebook_size = c.codebook_size;
    rs.n_semantic = std::min(c.n_semantic, c.n_valid_quantizers);
    rs.n_acoustic = c.n_valid_quantizers - rs.n_semantic;
    e->rvq_.load(wm, "encoder.quantizer", rs);
    return e;
}

int64_t CodecEncoder::n_frames(int64_t n_samples) const {
    const int64_t spf = samples_per_frame();
    return (n_samples + spf - 1) / spf;
}

double CodecEncoder::flops(int64_t n_samples) const {
    const int64_t t25 = seanet_.out_frames(n_samples);
    double f = seanet_.flops(n_samples);
    for (const auto& l : layers_) f += l.flops(t25);
    const int64_t t12 = has_downsample_ ? (t25 + 1) / 2 : t25;
    if (has_downsample_) f += downsample_.flops(t12);
    return f + rvq_.flops(t12);
}

std::vector<int64_t> CodecEncoder::encode(const std::vector<float>& audio,
                                          const backend::ExecContext& ctx) const {
    return encode(audio.data(), int64_t(audio.size()), ctx);
}

std::vector<int64_t> CodecEncoder::encode(const float* audio, int64_t n,
                                          const backend::ExecContext& ctx,
                                          const CodecEncoderTapFn& tap) const {
    if (n <= 0)
        throw Error(ErrorCode::invalid_argument, "codec encoder: the audio is empty (0 samples)");
    for (int64_t i = 0; i < n; ++i)
        if (!std::isfinite(audio[i]))
            throw Error(ErrorCode::invalid_argument, "codec encoder: audio sample " +
                                                         std::to_string(i) + " of " +
                                                         std::to_string(n) + " is not finite (" +
                                                         std::to_string(audio[i]) + ")");
    const int h = cfg_.hidden_size;

    // SEANet: [T25, hidden]
    std::vector<float> x = seanet_.forward(audio, n, ctx, opt_.chunk_samples);
    const int64_t t25 = seanet_.out_frames(n);
    if (tap) tap("seanet", x.data(), t25, h);

    // Transformer over positions 0..T25-1 (no final norm).
    {
        const int hd = tshape_.head_dim;
        std::vector<float> cos(size_t(t25) * hd / 2), sin(size_t(t25) * hd / 2);
        RopeFrequencies(cfg_.rope_theta, hd).tables(0, t25, cos.data(), sin.data());
        std::vector<float> scratch(MimiTransformerLayer::scratch_floats(tshape_, t25));
        for (const auto& layer : layers_)
            layer.forward(x.data(), t25, cos.data(), sin.data(), scratch.data(), ctx);
    }
    if (tap) tap("transformer", x.data(), t25, h);

    // Downsample 25 → 12.5 Hz: replicate padding, left from row 0 and right from the last row.
    int64_t t12 = t25;
    std::vector<float> z;
    if (has_downsample_) {
        const int s = downsample_.stride();
        const int64_t hist = downsample_.history();
        const int64_t rows_p = (t25 + s - 1) / s * s;
        t12 = rows_p / s;
        std::vector<float> buf(size_t(hist + rows_p) * h);
        float* cur = buf.data() + hist * h;
        std::memcpy(cur, x.data(), sizeof(float) * size_t(t25) * h);
        for (int64_t r = t25; r < rows_p; ++r)
            std::memcpy(cur + r * h, x.data() + (t25 - 1) * h, sizeof(float) * size_t(h));
        std::vector<float> state(downsample_.state_floats());
        downsample_.init_state(state.data(), x.data(), true);
        z.resize(size_t(t12) * h);
        downsample_.forward(cur, rows_p, state.data(), z.data(), h, ctx);
    } else {
        z = std::move(x);
    }
    if (tap) tap("downsample", z.data(), t12, h);

    // Split RVQ, then the reference's trim to ceil(n / encode_downsample_rate) frames.
    const int n_code = rvq_.n_codebook();
    std::vector<int64_t> codes(size_t(t12) * n_code);
    rvq_.encode(z.data(), t12, codes.data(), ctx);
    const int64_t keep = std::min(t12, n_frames(n));
    codes.resize(size_t(keep) * n_code);
    return codes;
}

}  // namespace qwen3tts
