#include "runtime/session.hpp"

#include <chrono>
#include <cmath>
#include <string>

#include "core/error.hpp"
#include "core/thread_pool.hpp"

namespace qwen3tts {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// NaN/Inf logits (from non-finite weights or an overflow) would be sampled as garbage codes;
// one pass over a few thousand floats per step is cheap next to the matrix products.
int64_t first_non_finite(const float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i])) return i;
    return -1;
}

[[noreturn]] void fail_non_finite(const std::string& what, int64_t index, float value) {
    throw Error(ErrorCode::model, what + " are not finite (index " + std::to_string(index) +
                                      " is " + std::to_string(value) +
                                      "): the checkpoint's weights may hold NaN/Inf");
}

}  // namespace

GenerationParams GenerationParams::defaults(const GenerationDefaults& d) {
    GenerationParams p;
    p.talker = {d.do_sample, d.temperature, d.top_k, d.top_p, d.repetition_penalty};
    p.predictor = {d.subtalker_do_sample, d.subtalker_temperature, d.subtalker_top_k,
                   d.subtalker_top_p, 1.0f};
    p.max_new_tokens = d.max_new_tokens;
    return p;
}

void GenerationParams::validate() const {
    talker.validate("talker sampling");
    predictor.validate("code predictor sampling");
    if (max_new_tokens < 2)
        throw Error(ErrorCode::invalid_argument,
                    "max frames must be at least 1 (max_new_tokens >= 2), got max_new_tokens = " +
                        std::to_string(max_new_tokens));
}

Session::Session(std::shared_ptr<const TtsModel> model, const SessionOptions& options)
    : model_(std::move(model)),
      pool_(std::make_unique<ThreadPool>(
          resolve_thread_count(options.threads, "threads", options.oversubscribe))),
      predictor_state_(model_->predictor().make_state()) {
    exec_.kernels = options.kernels;
    exec_.pool = pool_.get();
}

Prompt Session::build_prompt(const PromptRequest& request) const {
    const TtsModel& m = *model_;
    return qwen3tts::build_prompt(exec_, m.config(), m.tokenizer(), m.talker(), m.predictor(),
                                  request);
}

// ref: modeling_qwen3_tts.py, Qwen3TTSForConditionalGeneration.generate (talker.generate with
// the HF logits processors) and Qwen3TTSTalkerForConditionalGeneration.forward
std::vector<int32_t> Session::generate(const Prompt& prompt, const GenerationParams& params,
                                       const GenerationHooks& hooks, GenerationStats* stats) {
    params.validate();
    const TtsModel& m = *model_;
    const Talker& talker = m.talker();
    const CodePredictor& predictor = m.predictor();
    const TalkerConfig& tc = m.config().talker;
    const int64_t H = talker.hidden_size(), V = tc.vocab_size;
    const int n_cb = predictor.n_codebooks();
    const int eos = tc.codec_eos_id;
    QWEN3TTS_ASSERT(prompt.hidden == H);

    // Generation stops at the end of the model's context like at the frame limit.
    const int64_t max_tokens =
        std::min<int64_t>(params.max_new_tokens, tc.max_position_embeddings - prompt.length);
    QWEN3TTS_ASSERT(max_tokens >= 1);  // build_prompt rejects prompts that fill the context
    // Reserve everything the loop needs.
    const int64_t capacity = prompt.length + max_tokens;
    if (talker_cache_.capacity() < capacity) {
        talker_cache_ = KvCache();  // the old cache goes first: no peak of both
        try {
            talker_cache_ = talker.stack().make_cache(capacity);
        } catch (const Error& e) {
            throw Error(e.code(), std::string("talker: ") + e.what() + " (prompt of " +
                                      std::to_string(prompt.length) + " positions + at most " +
                                      std::to_string(max_tokens) + " generated)");
        }
    }
    talker_cache_.reset();
    talker_scratch_.reserve(talker.stack().shape(), prompt.length);
    sampler_.reseed(params.seed);
    std::vector<float> x(prompt.embeds);  // [L, H] residual stream
    std::vector<float> hidden(size_t(prompt.length * H));
    std::vector<float> logits(static_cast<size_t>(V));
    std::vector<int32_t> codes;
    codes.reserve(size_t(max_tokens) * size_t(n_cb));
    std::vector<int32_t> frame(static_cast<size_t>(n_cb));
    std::vector<int32_t> distinct;
    std::vector<uint8_t> seen(static_cast<size_t>(V), 0);
    distinct.reserve(size_t(V));

    GenerationStats st;
    st.prompt_positions = prompt.length;
    auto t0 = std::chrono::steady_clock::now();
    talker.stack().forward(exec_, x.data(), prompt.length, talker_cache_, talker_scratch_,
                           hidden.data());
    const float* past_hidden = hidden.data() + (prompt.length - 1) * H;

    int64_t drawn = 0;  // codebook-0 tokens drawn so far
    auto draw_talker_token = [&]() -> int32_t {
        talker.logits(exec_, past_hidden, 1, logits.data());
        if (hooks.talker_logits) hooks.talker_logits(drawn, logits.data(), V);
        if (const int64_t i = first_non_finite(logits.data(), V); i >= 0)
            fail_non_finite("talker logits of frame " + std::to_string(drawn) + " (codebook 0)", i,
                            logits[size_t(i)]);
        apply_talker_processors(logits.data(), V, distinct, drawn, params.talker.repetition_penalty,
                                params.min_new_tokens, eos);
        const int32_t token = sampler_.choose(logits.data(), V, params.talker);
        ++drawn;
        if (!seen[size_t(token)]) {
            seen[size_t(token)] = 1;
            distinct.push_back(token);
        }
        return token;
    };

    int32_t token = draw_talker_token();
    st.prefill_ms = ms_since(t0);
    int64_t frame_index = 0;
    const auto choose_code = [&](int g, float* cp_logits) {
        if (hooks.predictor_logits)
            hooks.predictor_logits(frame_index, g, cp_logits, predictor.vocab_size());
        if (const int64_t i = first_non_finite(cp_logits, predictor.vocab_size()); i >= 0)
            fail_non_finite("code predictor logits of frame " + std::to_string(frame_index) +
                                " (codebook " + std::to_string(g) + ")",
                            i, cp_logits[i]);
        return sampler_.choose(cp_logits, predictor.vocab_size(), params.predictor);
    };
    std::vector<float> step_in(static_cast<size_t>(H));
    for (;;) {
        if (token == eos) {
            st.stopped_at_eos = true;
            break;
        }
        if (drawn >= max_tokens) break;
        frame[0] = token;
        t0 = std::chrono::steady_clock::now();
        predictor.predict(exec_, past_hidden, frame.data(), predictor_state_, choose_code);
        st.predictor_ms += ms_since(t0);
        codes.insert(codes.end(), frame.begin(), frame.end());
        ++st.frames;
        if (hooks.on_frame && !hooks.on_frame(frame_index, frame.data())) break;

        t0 = std::chrono::steady_clock::now();
        const float* text = frame_index < prompt.n_trailing
                                ? prompt.trailing.data() + frame_index * H
                                : prompt.tts_pad.data();
        std::copy(text, text + H, step_in.begin());
        add_frame_embedding(talker, predictor, frame.data(), step_in.data());
        talker.stack().forward(exec_, step_in.data(), 1, talker_cache_, talker_scratch_,
                               hidden.data());
        past_hidden = hidden.data();
        ++frame_index;
        token = draw_talker_token();
        st.talker_ms += ms_since(t0);
    }
    if (stats) *stats = st;
    return codes;
}

}  // namespace qwen3tts
