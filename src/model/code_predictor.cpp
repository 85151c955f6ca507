#include "model/code_predictor.hpp"

#include <cstring>

#include "core/error.hpp"
#include "model/talker.hpp"
#include "nn/linear_loading.hpp"

namespace qwen3tts {

// ref: modeling_qwen3_tts.py, Qwen3TTSTalkerCodePredictorModelForConditionalGeneration
CodePredictor::CodePredictor(const WeightMap& w, const TalkerConfig& t,
                             std::optional<backend::QuantFormat> quant, ThreadPool* pool,
                             std::optional<backend::QuantFormat> head_quant, bool copy_mapped)
    : n_codebooks_(t.num_code_groups),
      vocab_(t.code_predictor.vocab_size),
      talker_hidden_(t.hidden_size),
      hidden_(t.code_predictor.hidden_size),
      stack_(w, "talker.code_predictor.model.", stack_shape(t.code_predictor), quant, pool,
             copy_mapped) {
    const std::string p = "talker.code_predictor.";
    // The projection exists exactly when the widths differ (nn.Identity otherwise).
    if (talker_hidden_ != hidden_) {
        projection_ = &w.get_float(p + "small_to_mtp_projection.weight", {hidden_, talker_hidden_});
        projection_bias_ = w.get_float(p + "small_to_mtp_projection.bias", {hidden_}).to_f32();
    }
    talker_codec_embedding_ = &w.get_float("talker.model.codec_embedding.weight");
    for (int g = 0; g + 1 < n_codebooks_; ++g) {
        embeddings_.push_back(
            &w.get_float(p + "model.codec_embedding." + std::to_string(g) + ".weight",
                         {vocab_, talker_hidden_}));
        const TensorView& head =
            w.get_float(p + "lm_head." + std::to_string(g) + ".weight", {vocab_, hidden_});
        heads_.push_back(load_linear(w, head, head_quant, pool, copy_mapped));
    }
}

KvCache CodePredictor::make_cache() const {
    return stack_.make_cache(n_codebooks_);
}

void CodePredictor::reserve(Scratch& sc, int64_t streams) const {
    if (streams <= sc.streams) return;
    sc.streams = streams;
    const auto n = size_t(streams);
    sc.stack.reserve(stack_.shape(), 2 * streams);
    sc.input.resize(2 * n * size_t(talker_hidden_));
    sc.residual.resize(2 * n * size_t(hidden_));
    sc.hidden.resize(2 * n * size_t(hidden_));
    sc.logits.resize(n * size_t(vocab_));
}

void CodePredictor::project(const backend::ExecContext& ctx, const float* in, int64_t n,
                            float* out) const {
    if (projection_)
        backend::linear(ctx, in, n, *projection_, projection_bias_.data(), out);
    else
        std::memcpy(out, in, size_t(n * hidden_) * sizeof(float));
}

void CodePredictor::predict(const backend::ExecContext& ctx, const float* past_hidden,
                            int64_t streams, int32_t* codes, KvCache* const* caches, Scratch& sc,
                            const Chooser& choose) const {
    QWEN3TTS_ASSERT(streams <= sc.streams);
    const int64_t B = streams, H = talker_hidden_, h = hidden_, ncb = n_codebooks_;
    // Segments of the stack's batched forward: [P(past_hidden), P(C(c0))] per stream at
    // positions 0, 1 (caches restart every frame), then one row per stream.
    thread_local std::vector<DecoderStack::Segment> segments;
    segments.resize(size_t(B));
    for (int64_t s = 0; s < B; ++s) {
        caches[s]->reset();
        segments[size_t(s)] = {caches[s], 2};
    }
    // Prefill input rows, stream-major: past hidden, then the codebook-0 embedding.
    std::fill(sc.input.begin(), sc.input.begin() + 2 * B * H, 0.0f);
    for (int64_t s = 0; s < B; ++s) {
        std::memcpy(sc.input.data() + 2 * s * H, past_hidden + s * H, size_t(H) * sizeof(float));
        backend::embedding_add_row(*talker_codec_embedding_, codes[s * ncb],
                                   sc.input.data() + (2 * s + 1) * H);
    }
    project(ctx, sc.input.data(), 2 * B, sc.residual.data());
    stack_.forward(ctx, sc.residual.data(), segments.data(), int(B), sc.stack, sc.hidden.data());
    // The last row of each stream's prefill continues; gather them to rows 0..B-1.
    for (int64_t s = 0; s < B; ++s)
        std::memmove(sc.hidden.data() + s * h, sc.hidden.data() + (2 * s + 1) * h,
                     size_t(h) * sizeof(float));
    for (auto& seg : segments) seg.n = 1;
    for (int g = 1; g < n_codebooks_; ++g) {
        backend::linear(ctx, sc.hidden.data(), B, heads_[size_t(g - 1)], nullptr, sc.logits.data());
        for (int64_t s = 0; s < B; ++s) {
            int32_t& code = codes[s * ncb + g];
            code = choose(s, g, sc.logits.data() + s * vocab_);
            if (code < 0 || code >= vocab_)
                throw Error(ErrorCode::internal, "code predictor chose an invalid code");
        }
        if (g + 1 == n_codebooks_) break;  // the last code is never fed back
        std::fill(sc.input.begin(), sc.input.begin() + B * H, 0.0f);
        for (int64_t s = 0; s < B; ++s)
            backend::embedding_add_row(*embeddings_[size_t(g - 1)], codes[s * ncb + g],
                                       sc.input.data() + s * H);
        project(ctx, sc.input.data(), B, sc.residual.data());
        stack_.forward(ctx, sc.residual.data(), segments.data(), int(B), sc.stack,
                       sc.hidden.data());
    }
}

}  // namespace qwen3tts
