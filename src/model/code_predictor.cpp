#include "model/code_predictor.hpp"

#include <cstring>

#include "core/error.hpp"
#include "model/talker.hpp"

namespace qwen3tts {

// ref: modeling_qwen3_tts.py, Qwen3TTSTalkerCodePredictorModelForConditionalGeneration
CodePredictor::CodePredictor(const WeightMap& w, const TalkerConfig& t,
                             std::optional<backend::QuantFormat> quant, ThreadPool* pool,
                             std::optional<backend::QuantFormat> head_quant)
    : n_codebooks_(t.num_code_groups),
      vocab_(t.code_predictor.vocab_size),
      talker_hidden_(t.hidden_size),
      hidden_(t.code_predictor.hidden_size),
      stack_(w, "talker.code_predictor.model.", stack_shape(t.code_predictor), quant, pool) {
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
        heads_.emplace_back(head, head_quant, pool);
        if (head_quant) w.release_pages(head);
    }
}

CodePredictor::State CodePredictor::make_state() const {
    State s;
    s.cache = stack_.make_cache(n_codebooks_);
    s.scratch.reserve(stack_.shape(), 2);
    s.input.resize(size_t(talker_hidden_));
    s.residual.resize(size_t(2 * hidden_));
    s.hidden.resize(size_t(2 * hidden_));
    s.logits.resize(size_t(vocab_));
    return s;
}

void CodePredictor::project(const backend::ExecContext& ctx, const float* in, float* out) const {
    if (projection_)
        backend::linear(ctx, in, 1, *projection_, projection_bias_.data(), out);
    else
        std::memcpy(out, in, size_t(hidden_) * sizeof(float));
}

void CodePredictor::predict(const backend::ExecContext& ctx, const float* past_hidden,
                            int32_t* codes, State& st, const Chooser& choose) const {
    st.cache.reset();  // positions restart at 0 every frame
    // Prefill [P(past_hidden), P(C(c0))] at positions 0, 1.
    project(ctx, past_hidden, st.residual.data());
    std::fill(st.input.begin(), st.input.end(), 0.0f);
    backend::embedding_add_row(*talker_codec_embedding_, codes[0], st.input.data());
    project(ctx, st.input.data(), st.residual.data() + hidden_);
    stack_.forward(ctx, st.residual.data(), 2, st.cache, st.scratch, st.hidden.data());
    const float* last = st.hidden.data() + hidden_;
    for (int g = 1; g < n_codebooks_; ++g) {
        backend::linear(ctx, last, 1, heads_[size_t(g - 1)], nullptr, st.logits.data());
        codes[g] = choose(g, st.logits.data());
        if (codes[g] < 0 || codes[g] >= vocab_)
            throw Error(ErrorCode::internal, "code predictor chose an invalid code");
        if (g + 1 == n_codebooks_) break;  // the last code is never fed back
        std::fill(st.input.begin(), st.input.end(), 0.0f);
        backend::embedding_add_row(*embeddings_[size_t(g - 1)], codes[g], st.input.data());
        project(ctx, st.input.data(), st.residual.data());
        stack_.forward(ctx, st.residual.data(), 1, st.cache, st.scratch, st.hidden.data());
        last = st.hidden.data();
    }
}

}  // namespace qwen3tts
