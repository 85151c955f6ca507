#include "model/codec_decoder.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>

#include "backend/ops.hpp"
#include "core/error.hpp"
#include "nn/codec_weights.hpp"
#include "weights/safetensors.hpp"

namespace qwen3tts {

namespace {

constexpr int64_t kHead = CodecDecoderBlock::kStageHead;  // free rows in front of staged inputs
constexpr size_t kLowBlocks = 1;  // decoder blocks run per step rather than per conv chunk

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

int64_t prod(const std::vector<int>& v) {
    int64_t p = 1;
    for (int r : v) p *= r;
    return p;
}

// Winograd tile of the residual units' convs: F(4, 7) over F(2, 7) and F(3, 7), which are more
// accurate but slower (docs/codec.md).
constexpr int kWinogradTile = 4;

}  // namespace

std::unique_ptr<CodecDecoder> CodecDecoder::load(const std::string& dir_in,
                                                 const CodecDecoderOptions& options) {
    const std::string dir = resolve_codec_dir(dir_in);
    std::unique_ptr<CodecDecoder> d(new CodecDecoder());
    d->cfg_ = load_codec_decoder_config(dir + "/config.json");
    const CodecDecoderConfig& c = d->cfg_;
    const WeightMap wm = WeightMap::open(dir, "model");

    d->quantizer_.load(wm, c);
    d->pre_conv_.load(wm, "decoder.pre_conv.conv", c.codebook_dim, c.latent_dim, 3);

    // --- transformer ---
    CodecTransformerShape& ts = d->tshape_;
    ts.hidden = c.hidden_size;
    ts.intermediate = c.intermediate_size;
    ts.n_head = c.n_head;
    ts.n_head_kv = c.n_head_kv;
    ts.head_dim = c.head_dim;
    ts.window = c.sliding_window;
    ts.eps = c.rms_norm_eps;
    {
        const auto b = load_f32(wm, "decoder.pre_transformer.input_proj.bias", {c.hidden_size});
        d->input_proj_ = load_linear(wm, "decoder.pre_transformer.input_proj.weight", c.hidden_size,
                                     c.latent_dim, b.data());
        const auto bo = load_f32(wm, "decoder.pre_transformer.output_proj.bias", {c.latent_dim});
        d->output_proj_ = load_linear(wm, "decoder.pre_transformer.output_proj.weight",
                                      c.latent_dim, c.hidden_size, bo.data());
    }
    d->layers_.resize(size_t(c.n_layer));
    for (int l = 0; l < c.n_layer; ++l)
        d->layers_[size_t(l)].load(wm, "decoder.pre_transformer.layers." + std::to_string(l), ts);
    d->final_norm_ = load_f32(wm, "decoder.pre_transformer.norm.weight", {c.hidden_size});
    d->rope_ = RopeFrequencies(c.rope_theta, c.head_dim);

    // --- upsampling stages ---
    for (size_t i = 0; i < c.upsampling_ratios.size(); ++i) {
        const int r = c.upsampling_ratios[i];
        const std::string p = "decoder.upsample." + std::to_string(i);
        d->upsample_.emplace_back();
        d->upsample_.back().load(wm, p + ".0.conv", c.latent_dim, c.latent_dim, r, r);
        d->convnext_.emplace_back();
        d->convnext_.back().load(wm, p + ".1", c.latent_dim);
    }

    // --- decoder ---
    d->dec_in_.load(wm, "decoder.decoder.0.conv", c.latent_dim, c.decoder_dim, 7);
    const int n_block = int(c.upsample_rates.size());
    d->blocks_.resize(size_t(n_block));
    for (int b = 0; b < n_block; ++b)
        d->blocks_[size_t(b)].load(wm, "decoder.decoder." + std::to_string(b + 1),
                                   c.decoder_dim >> b, c.decoder_dim >> (b + 1),
                                   c.upsample_rates[size_t(b)],
                                   options.winograd ? kWinogradTile : 0);
    const int out_dim = c.decoder_dim >> n_block;
    d->final_snake_.load(wm, "decoder.decoder." + std::to_string(n_block + 1), out_dim);
    d->final_conv_.load(wm, "decoder.decoder." + std::to_string(n_block + 2) + ".conv", out_dim, 1,
                        7);

    // Every decoder tensor must have been used, except the encode-side projections.
    std::string unexpected;
    for (const auto& name : wm.unused()) {
        if (name.rfind("decoder.", 0) != 0) continue;
        if (name == "decoder.quantizer.rvq_first.input_proj.weight" ||
            name == "decoder.quantizer.rvq_rest.input_proj.weight")
            continue;
        unexpected += (unexpected.empty() ? "" : ", ") + name;
    }
    if (!unexpected.empty())
        throw Error(ErrorCode::model,
                    dir + "/model.safetensors: unexpected decoder tensors: " + unexpected);
    return d;
}

double CodecDecoder::flops(int64_t n) const {
    const CodecDecoderConfig& c = cfg_;
    double f = 2.0 * n * c.codebook_dim * c.vq_dim() * 2 + pre_conv_.flops(n);
    f += 2.0 * n * c.latent_dim * c.hidden_size * 2;
    for (const auto& l : layers_) f += l.flops(n);
    int64_t rows = n;
    for (size_t i = 0; i < upsample_.size(); ++i) {
        f += upsample_[i].flops(rows);
        rows *= c.upsampling_ratios[i];
        f += convnext_[i].flops(rows);
    }
    f += dec_in_.flops(rows);
    for (const auto& b : blocks_) {
        f += b.flops(rows);
        rows *= b.rate();
    }
    return f + final_conv_.flops(rows);
}

void CodecDecoder::validate_codes(const int64_t* codes, int64_t n_frames) const {
    if (n_frames < 0)
        throw Error(ErrorCode::invalid_argument,
                    "codec decode: negative frame count " + std::to_string(n_frames));
    if (n_frames > 0 && !codes)
        throw Error(ErrorCode::invalid_argument, "codec decode: null codes");
    const int ncb = cfg_.n_codebook;
    for (int64_t t = 0; t < n_frames; ++t)
        for (int q = 0; q < ncb; ++q) {
            const int64_t v = codes[t * ncb + q];
            if (v < 0 || v >= cfg_.codebook_size)
                throw Error(ErrorCode::invalid_argument,
                            "codec decode: frame " + std::to_string(t) + " codebook " +
                                std::to_string(q) + ": code " + std::to_string(v) +
                                " outside [0, " + std::to_string(cfg_.codebook_size) + ")");
        }
}

std::vector<float> CodecDecoder::decode(const int64_t* codes, int64_t n_frames,
                                        const backend::ExecContext& ctx) const {
    validate_codes(codes, n_frames);
    if (n_frames == 0) return {};
    auto stream = new_stream(ctx, int(std::min<int64_t>(n_frames, 32)));
    return stream->decode_frames(codes, n_frames);
}

std::vector<float> CodecDecoder::decode(const std::vector<int64_t>& codes,
                                        const std::vector<int64_t>& shape,
                                        const backend::ExecContext& ctx) const {
    if (shape.size() != 2 || shape[1] != cfg_.n_codebook || shape[0] < 0)
        throw Error(ErrorCode::invalid_argument, "codec decode: codes must have shape [n_frames, " +
                                                     std::to_string(cfg_.n_codebook) + "], got " +
                                                     shape_to_string(shape));
    if (int64_t(codes.size()) != shape[0] * shape[1])
        throw Error(ErrorCode::invalid_argument, "codec decode: " + std::to_string(codes.size()) +
                                                     " codes do not fill shape " +
                                                     shape_to_string(shape));
    return decode(codes.data(), shape[0], ctx);
}

std::vector<float> CodecDecoder::decode_chunked(const int64_t* codes, int64_t n_frames,
                                                int chunk_size, int left_context,
                                                const backend::ExecContext& ctx) const {
    if (chunk_size <= 0 || left_context < 0)
        throw Error(ErrorCode::invalid_argument,
                    "codec decode_chunked: chunk_size must be > 0 and "
                    "left_context >= 0");
    validate_codes(codes, n_frames);
    const int64_t spf = samples_per_frame();
    const int ncb = cfg_.n_codebook;
    std::vector<float> out(size_t(n_frames * spf));
    std::vector<float> wav;
    auto stream = new_stream(ctx, int(std::min<int64_t>(std::max<int64_t>(n_frames, 1), 32)));
    // ref: Qwen3TTSTokenizerV2Decoder.chunked_decode — context = left_context if
    // start - left_context > 0 else start.
    for (int64_t start = 0; start < n_frames;) {
        const int64_t end = std::min<int64_t>(start + chunk_size, n_frames);
        const int64_t context = start - left_context > 0 ? left_context : start;
        const int64_t len = end - start + context;
        wav.resize(size_t(len * spf));
        stream->reset();
        stream->decode_frames(codes + (start - context) * ncb, len, wav.data());
        std::memcpy(out.data() + start * spf, wav.data() + context * spf,
                    sizeof(float) * size_t((end - start) * spf));
        start = end;
    }
    return out;
}

std::unique_ptr<CodecStream> CodecDecoder::new_stream(const backend::ExecContext& ctx,
                                                      int max_chunk_frames,
                                                      int conv_chunk_frames) const {
    if (max_chunk_frames <= 0 || conv_chunk_frames <= 0)
        throw Error(ErrorCode::invalid_argument,
                    "codec stream: max_chunk_frames and conv_chunk_frames must be > 0");
    return std::unique_ptr<CodecStream>(
        new CodecStream(*this, ctx, max_chunk_frames, conv_chunk_frames));
}

// ---------------------------------------------------------------------------------------------

CodecStream::CodecStream(const CodecDecoder& dec, const backend::ExecContext& ctx,
                         int max_chunk_frames, int conv_chunk_frames)
    : dec_(dec),
      ctx_(ctx),
      max_chunk_(max_chunk_frames),
      conv_chunk_(std::min(max_chunk_frames, conv_chunk_frames)) {
    const CodecDecoderConfig& c = dec.cfg_;
    const int64_t F = max_chunk_frames;
    const int64_t L = c.latent_dim;
    quant_scratch_.assign(CodecQuantizerDecoder::scratch_floats(c, F), 0.0f);
    pre_in_.assign(size_t((kHead + F) * c.codebook_dim), 0.0f);
    lat_.assign(size_t(F * L), 0.0f);
    u_.assign(size_t(F * c.hidden_size), 0.0f);
    tr_scratch_.assign(CodecTransformerLayer::scratch_floats(dec.tshape_, F), 0.0f);
    rope_cos_.assign(size_t(F * c.head_dim / 2), 0.0f);
    rope_sin_.assign(size_t(F * c.head_dim / 2), 0.0f);
    const int64_t n_lat = F * prod(c.upsampling_ratios);  // rows after the upsampling stages
    up_in_.assign(size_t((kHead + n_lat) * L), 0.0f);
    cnx_in_.assign(size_t((kHead + n_lat) * L), 0.0f);
    cnx_scratch_.assign(CodecConvNeXtBlock::scratch_floats(int(L), n_lat), 0.0f);
    dec_in_buf_.assign(size_t((kHead + n_lat) * L), 0.0f);
    // Blocks [0, kLowBlocks) run on whole steps of F frames (their weights are large: block 1
    // alone is 130 MB, so they should be read once per F frames); the later, high-rate blocks
    // and the final conv run on sub-chunks of conv_chunk_ frames, so their activations stay
    // cache-sized (a 24 kHz, 96-channel buffer is 0.7 MB per frame).
    const int64_t Fh = conv_chunk_;
    size_t stage = 0, res_lo = size_t(n_lat * c.decoder_dim), res_hi = 0, tmp = 0;
    int64_t per_frame = n_lat / F;  // rows per frame at the current rate
    for (size_t b = 0; b < dec.blocks_.size(); ++b) {
        const CodecDecoderBlock& blk = dec.blocks_[b];
        const bool low = b < kLowBlocks;
        const int64_t frames = low ? F : Fh;
        stage = std::max(stage, blk.stage_floats(per_frame * frames));
        per_frame *= blk.rate();
        const size_t out = size_t(per_frame * frames * blk.c_out());
        tmp = std::max(tmp, out);
        (low ? res_lo : res_hi) = std::max(low ? res_lo : res_hi, out);
    }
    stage = std::max(stage, size_t((kHead + per_frame * Fh) * dec.final_conv_.c_in()));
    stage_.assign(stage, 0.0f);
    res_.assign(res_lo, 0.0f);
    res_hi_.assign(std::max<size_t>(res_hi, 1), 0.0f);
    tmp_.assign(tmp, 0.0f);

    final_tap_name_ = "decoder" + std::to_string(dec.blocks_.size() + 2);
    kv_.resize(size_t(c.n_layer));
    up_state_.resize(dec.upsample_.size());
    cnx_state_.resize(dec.convnext_.size());
    block_state_.resize(dec.blocks_.size());
    reset();
}

CodecStream::~CodecStream() = default;

void CodecStream::reset() {
    const CodecDecoder& d = dec_;
    pos_ = 0;
    pre_conv_state_.assign(d.pre_conv_.state_floats(), 0.0f);
    for (auto& kv : kv_) kv.reset(d.tshape_, max_chunk_);
    for (size_t i = 0; i < up_state_.size(); ++i) {
        up_state_[i].assign(d.upsample_[i].state_floats(), 0.0f);
        cnx_state_[i].assign(d.convnext_[i].state_floats(), 0.0f);
    }
    dec_in_state_.assign(d.dec_in_.state_floats(), 0.0f);
    for (size_t b = 0; b < block_state_.size(); ++b) block_state_[b].reset(d.blocks_[b]);
    final_state_.assign(d.final_conv_.state_floats(), 0.0f);
}

size_t CodecStream::state_bytes() const {
    size_t n = pre_conv_state_.size() + dec_in_state_.size() + final_state_.size();
    // Each layer carries keys and values of window-1 positions.
    n += kv_.size() * size_t(dec_.tshape_.window - 1) * size_t(dec_.tshape_.kv_dim()) * 2;
    for (size_t i = 0; i < up_state_.size(); ++i) n += up_state_[i].size() + cnx_state_[i].size();
    for (const auto& b : block_state_) {
        n += b.up.size();
        for (const auto& c1 : b.conv1) n += c1.size();
    }
    return n * sizeof(float);
}

size_t CodecStream::scratch_bytes() const {
    size_t n = quant_scratch_.size() + pre_in_.size() + lat_.size() + u_.size() +
               tr_scratch_.size() + rope_cos_.size() + rope_sin_.size() + up_in_.size() +
               cnx_in_.size() + cnx_scratch_.size() + dec_in_buf_.size() + stage_.size() +
               res_.size() + res_hi_.size() + tmp_.size();
    for (const auto& kv : kv_) n += size_t(kv.max_rows) * size_t(dec_.tshape_.kv_dim()) * 2;
    return n * sizeof(float);
}

int CodecStream::next_packet_frames(int max_packet) const {
    if (max_packet <= 0)
        throw Error(ErrorCode::invalid_argument,
                    "codec stream: max_packet must be > 0, got " + std::to_string(max_packet));
    return int(std::clamp<int64_t>(pos_, 1, max_packet));
}

std::vector<float> CodecStream::decode_frames(const int64_t* codes, int64_t n_frames) {
    if (n_frames < 0) dec_.validate_codes(codes, n_frames);
    std::vector<float> out(size_t(n_frames * dec_.samples_per_frame()));
    decode_frames(codes, n_frames, out.data());
    return out;
}

void CodecStream::decode_frames(const int64_t* codes, int64_t n_frames, float* out) {
    CodecStream* self = this;
    decode_batch(&self, &codes, &n_frames, &out, 1);
}

void CodecStream::decode_batch(CodecStream* const* streams, const int64_t* const* codes,
                               const int64_t* n_frames, float* const* out, int n_streams) {
    if (n_streams <= 0) return;
    const CodecDecoder& d = streams[0]->dec_;
    for (int s = 0; s < n_streams; ++s) {
        const CodecStream& a = *streams[s];
        if (&a.dec_ != &d || a.ctx_.pool != streams[0]->ctx_.pool ||
            a.ctx_.kernels != streams[0]->ctx_.kernels)
            throw Error(ErrorCode::invalid_argument,
                        "codec decode_batch: stream " + std::to_string(s) +
                            " belongs to another decoder or execution context");
        for (int t = 0; t < s; ++t)
            if (streams[t] == streams[s])
                throw Error(ErrorCode::invalid_argument,
                            "codec decode_batch: stream " + std::to_string(s) + " is also stream " +
                                std::to_string(t));
    }
    // Every stream's codes are checked before any state changes.
    for (int s = 0; s < n_streams; ++s) {
        try {
            d.validate_codes(codes[s], n_frames[s]);
        } catch (const Error& e) {
            if (n_streams == 1) throw;
            throw Error(e.code(), "codec stream " + std::to_string(s) + ": " + e.what());
        }
    }
    const int ncb = d.cfg_.n_codebook;
    const int64_t spf = d.samples_per_frame();
    // Rounds: each stream with frames left decodes up to its max_chunk_frames of them.
    std::array<CodecStream*, kMaxBatchParts> group;
    std::array<const int64_t*, kMaxBatchParts> group_codes;
    std::array<int64_t, kMaxBatchParts> group_n;
    std::array<float*, kMaxBatchParts> group_out;
    for (int s0 = 0; s0 < n_streams; s0 += kMaxBatchParts) {
        const int s1 = std::min(n_streams, s0 + kMaxBatchParts);
        for (int64_t round = 0;; ++round) {
            int g = 0;
            for (int s = s0; s < s1; ++s) {
                const int64_t done = round * streams[s]->max_chunk_;
                if (done >= n_frames[s]) continue;
                group[size_t(g)] = streams[s];
                group_codes[size_t(g)] = codes[s] + done * ncb;
                group_n[size_t(g)] = std::min<int64_t>(streams[s]->max_chunk_, n_frames[s] - done);
                group_out[size_t(g)] = out[s] + done * spf;
                ++g;
            }
            if (g == 0) break;
            step_parts(group.data(), group_codes.data(), group_n.data(), group_out.data(), g);
        }
    }
}

// One step of up to max_chunk frames for each of `count` streams: the layers run one after the
// other for all streams, each layer's weights read once for all of them (forward_parts).
void CodecStream::step_parts(CodecStream* const* streams, const int64_t* const* codes,
                             const int64_t* n, float* const* out, int count) {
    const CodecDecoder& d = streams[0]->dec_;
    const backend::ExecContext& ctx = streams[0]->ctx_;
    const CodecDecoderConfig& c = d.cfg_;
    const int cb = c.codebook_dim, L = c.latent_dim, H = c.hidden_size;
    auto st = [&](int s) -> CodecStream& { return *streams[s]; };
    std::array<CausalConvIo, kMaxBatchParts> conv;
    std::array<backend::ConvRows, kMaxBatchParts> rows_io;
    std::array<float*, kMaxBatchParts> scratch;
    std::array<float*, kMaxBatchParts> x;  // each stream's current stage output
    std::array<int64_t, kMaxBatchParts> rows;
    auto emit_all = [&](const char* name, const int64_t* n_rows, int n_ch) {
        for (int s = 0; s < count; ++s) st(s).emit(name, x[size_t(s)], n_rows[s], n_ch);
    };

    // ref: Qwen3TTSTokenizerV2Decoder.forward
    for (int s = 0; s < count; ++s) {
        CodecStream& a = st(s);
        x[size_t(s)] = a.pre_in_.data() + kHead * cb;
        d.quantizer_.dequantize(codes[s], n[s], x[size_t(s)], cb, a.quant_scratch_.data(), ctx);
        conv[size_t(s)] = {x[size_t(s)], cb, n[s], a.pre_conv_state_.data(), a.lat_.data(), L};
    }
    emit_all("quantizer", n, cb);
    d.pre_conv_.forward_parts(conv.data(), count, false, ctx);
    for (int s = 0; s < count; ++s) {
        CodecStream& a = st(s);
        x[size_t(s)] = a.lat_.data();
        rows_io[size_t(s)] = {a.lat_.data(), L, n[s], a.u_.data(), H};
    }
    emit_all("pre_conv", n, L);

    backend::conv1d_parts(ctx, d.input_proj_, rows_io.data(), count, false);
    std::array<CodecTransformerIo, kMaxBatchParts> layer_io;
    for (int s = 0; s < count; ++s) {
        CodecStream& a = st(s);
        d.rope_.tables(a.pos_, n[s], a.rope_cos_.data(), a.rope_sin_.data());
        layer_io[size_t(s)] = {
            a.u_.data(),         n[s], a.pos_, a.rope_cos_.data(), a.rope_sin_.data(), nullptr,
            a.tr_scratch_.data()};
    }
    for (size_t l = 0; l < d.layers_.size(); ++l) {
        for (int s = 0; s < count; ++s) layer_io[size_t(s)].kv = &st(s).kv_[l];
        d.layers_[l].forward_parts(layer_io.data(), count, ctx);
    }
    for (int s = 0; s < count; ++s) {
        CodecStream& a = st(s);
        backend::rms_norm(a.u_.data(), d.final_norm_.data(), n[s], H, c.rms_norm_eps, a.u_.data());
        x[size_t(s)] = a.up_in_.data() + kHead * L;
        rows_io[size_t(s)] = {a.u_.data(), H, n[s], x[size_t(s)], L};
        rows[size_t(s)] = n[s];
    }
    backend::conv1d_parts(ctx, d.output_proj_, rows_io.data(), count, false);
    emit_all("pre_transformer", n, L);

    static const char* const kUpNames[] = {"upsample0", "upsample1", "upsample2", "upsample3"};
    for (size_t i = 0; i < d.upsample_.size(); ++i) {
        for (int s = 0; s < count; ++s) {
            CodecStream& a = st(s);
            conv[size_t(s)] = {x[size_t(s)],
                               L,
                               rows[size_t(s)],
                               a.up_state_[i].data(),
                               a.cnx_in_.data() + kHead * L,
                               L};
        }
        d.upsample_[i].forward_parts(conv.data(), count, ctx);
        for (int s = 0; s < count; ++s) {
            CodecStream& a = st(s);
            rows[size_t(s)] *= c.upsampling_ratios[i];
            float* y =
                (i + 1 < d.upsample_.size() ? a.up_in_.data() : a.dec_in_buf_.data()) + kHead * L;
            conv[size_t(s)] = {a.cnx_in_.data() + kHead * L, L, rows[size_t(s)],
                               a.cnx_state_[i].data(),       y, L};
            scratch[size_t(s)] = a.cnx_scratch_.data();
            x[size_t(s)] = y;
        }
        d.convnext_[i].forward_parts(conv.data(), scratch.data(), count, ctx);
        if (i < 4) emit_all(kUpNames[i], rows.data(), L);
    }

    for (int s = 0; s < count; ++s) {
        CodecStream& a = st(s);
        conv[size_t(s)] = {x[size_t(s)], L, rows[size_t(s)], a.dec_in_state_.data(), a.res_.data(),
                           c.decoder_dim};
        x[size_t(s)] = a.res_.data();
    }
    d.dec_in_.forward_parts(conv.data(), count, false, ctx);
    emit_all("decoder0", rows.data(), c.decoder_dim);
    static const char* const kBlockNames[] = {"decoder1", "decoder2", "decoder3", "decoder4",
                                              "decoder5", "decoder6", "decoder7", "decoder8"};
    const size_t n_block = d.blocks_.size();
    const size_t n_low = std::min(kLowBlocks, n_block);
    std::array<CodecDecoderBlockIo, kMaxBatchParts> block_io;
    for (size_t b = 0; b < n_low; ++b) {
        const CodecDecoderBlock& blk = d.blocks_[b];
        for (int s = 0; s < count; ++s) {
            CodecStream& a = st(s);
            block_io[size_t(s)] = {a.res_.data(), rows[size_t(s)], &a.block_state_[b],
                                   a.res_.data(), a.stage_.data(), a.tmp_.data()};
        }
        blk.forward_parts(block_io.data(), count, ctx);
        for (int s = 0; s < count; ++s) rows[size_t(s)] *= blk.rate();
        if (b < 8) emit_all(kBlockNames[b], rows.data(), blk.c_out());
    }

    // The high-rate blocks and the final conv run on sub-chunks of conv_chunk_ frames, so their
    // activations stay cache-sized; sub-chunk k of every stream that has one runs together.
    const int ch_lo = n_low > 0 ? d.blocks_[n_low - 1].c_out() : c.decoder_dim;
    const int co = d.final_conv_.c_in();
    const int64_t spf = d.samples_per_frame();
    std::array<CodecStream*, kMaxBatchParts> sub;  // the streams of this sub-chunk
    std::array<float*, kMaxBatchParts> o;
    for (int64_t k = 0;; ++k) {
        int g = 0;
        for (int s = 0; s < count; ++s) {
            CodecStream& a = st(s);
            const int64_t f0 = k * a.conv_chunk_;
            if (f0 >= n[s]) continue;
            const int64_t rows_per_frame = rows[size_t(s)] / n[s];
            const int64_t m = std::min<int64_t>(a.conv_chunk_, n[s] - f0);
            sub[size_t(g)] = &a;
            x[size_t(g)] = a.res_.data() + f0 * rows_per_frame * ch_lo;
            o[size_t(g)] = out[s] + f0 * spf;
            block_io[size_t(g)].n_in = m * rows_per_frame;
            ++g;
        }
        if (g == 0) break;
        std::array<int64_t, kMaxBatchParts> r;
        for (int i = 0; i < g; ++i) r[size_t(i)] = block_io[size_t(i)].n_in;
        for (size_t b = n_low; b < n_block; ++b) {
            const CodecDecoderBlock& blk = d.blocks_[b];
            for (int i = 0; i < g; ++i) {
                CodecStream& a = *sub[size_t(i)];
                block_io[size_t(i)] = {x[size_t(i)],     r[size_t(i)],    &a.block_state_[b],
                                       a.res_hi_.data(), a.stage_.data(), a.tmp_.data()};
                x[size_t(i)] = a.res_hi_.data();
            }
            blk.forward_parts(block_io.data(), g, ctx);
            for (int i = 0; i < g; ++i) {
                r[size_t(i)] *= blk.rate();
                if (b < 8)
                    sub[size_t(i)]->emit(kBlockNames[b], x[size_t(i)], r[size_t(i)], blk.c_out());
            }
        }
        for (int i = 0; i < g; ++i) {
            CodecStream& a = *sub[size_t(i)];
            float* fin = a.stage_.data() + kHead * co;
            d.final_snake_.forward(x[size_t(i)], co, r[size_t(i)], fin, co, ctx);
            conv[size_t(i)] = {fin, co, r[size_t(i)], a.final_state_.data(), o[size_t(i)], 1};
        }
        d.final_conv_.forward_parts(conv.data(), g, false, ctx);
        for (int i = 0; i < g; ++i) {
            CodecStream& a = *sub[size_t(i)];
            // The reference's index of the final conv is n_block + 2 ("decoder6").
            a.emit(a.final_tap_name_.c_str(), o[size_t(i)], r[size_t(i)], 1);
            backend::clamp(o[size_t(i)], r[size_t(i)], -1.0f, 1.0f, o[size_t(i)]);
        }
    }
    for (int s = 0; s < count; ++s) st(s).pos_ += n[s];
}

}  // namespace qwen3tts
