#include "runtime/frame_step.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>

#include "core/error.hpp"

namespace qwen3tts {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// NaN/Inf logits (from non-finite weights or an overflow) would be sampled as garbage codes;
// one pass over a few thousand floats per step is cheap next to the matrix products.
void check_finite(const float* x, int64_t n, const std::string& what) {
    for (int64_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i]))
            throw Error(ErrorCode::model, what + " are not finite (index " + std::to_string(i) +
                                              " is " + std::to_string(x[i]) +
                                              "): the checkpoint's weights may hold NaN/Inf");
}

// Draws the next codebook-0 token from the talker's raw logits (modified in place) and
// decides whether the request ends there.
// ref: modeling_qwen3_tts.py, Qwen3TTSForConditionalGeneration.generate (talker.generate with
// the HF logits processors)
void draw_talker_token(const TtsModel& model, StreamState& st, float* logits) {
    const TalkerConfig& tc = model.config().talker;
    const int64_t V = tc.vocab_size;
    const int eos = tc.codec_eos_id;
    if (st.hooks.talker_logits) st.hooks.talker_logits(st.drawn, logits, V);
    check_finite(logits, V, "talker logits of frame " + std::to_string(st.drawn) + " (codebook 0)");
    apply_talker_processors(logits, V, st.distinct, st.drawn, st.params.talker.repetition_penalty,
                            st.params.min_new_tokens, eos);
    st.token = st.sampler.choose(logits, V, st.params.talker);
    ++st.drawn;
    if (!st.seen[size_t(st.token)]) {
        st.seen[size_t(st.token)] = 1;
        st.distinct.push_back(st.token);
    }
    if (st.token == eos) {
        st.stats.stopped_at_eos = true;
        st.finished = true;
    } else if (st.drawn >= st.max_tokens) {
        st.finished = true;
    }
}

}  // namespace

void StepScratch::reserve(const TtsModel& model, int64_t n) {
    const int64_t rows = std::max(n, kPrefillChunk);
    const int64_t H = model.talker().hidden_size(), V = model.config().talker.vocab_size;
    talker.reserve(model.talker().stack().shape(), rows);
    if (n <= streams) return;
    streams = n;
    model.predictor().reserve(predictor, n);
    x.resize(size_t(rows * H));
    hidden.resize(size_t(rows * H));
    logits.resize(size_t(n * V));
    codes.resize(size_t(n * model.predictor().n_codebooks()));
    caches.resize(size_t(n));
    segments.resize(size_t(n));
    row_states.resize(size_t(n));
}

void prefill_step(const backend::ExecContext& ctx, const TtsModel& model, StreamState& st,
                  StepScratch& sc) {
    QWEN3TTS_ASSERT(st.prefilling());
    const auto t0 = std::chrono::steady_clock::now();
    try {
        sc.reserve(model, 1);
        // Before the first chunk (nothing run yet beyond what was reused), the copied voices:
        // looked up here rather than at admission, so that in a burst of requests in one voice
        // the later ones get the voice of the first, whose prompt ran in between.
        if (st.pool && st.prefilled == st.stats.reused_positions)
            st.prefilled = st.stats.reused_positions =
                st.pool->restore_voice(st.prompt, st.prefilled, st.talker_cache);
        const int64_t H = st.prompt.hidden;
        const int64_t n = std::min(kPrefillChunk, st.prompt.length - st.prefilled);
        std::copy_n(st.prompt.embeds.data() + st.prefilled * H, n * H, sc.x.data());
        model.talker().stack().forward(ctx, sc.x.data(), n, st.talker_cache, sc.talker,
                                       sc.hidden.data());
        st.prefilled += n;
        const float* last = sc.hidden.data() + (n - 1) * H;
        std::copy_n(last, H, st.past_hidden.data());
        if (!st.prefilling()) {
            if (st.pool) st.pool->remember_voice(st.prompt, st.prefilled, st.talker_cache);
            model.talker().logits(ctx, last, 1, sc.logits.data());
            draw_talker_token(model, st, sc.logits.data());
        }
    } catch (...) {
        st.fail();
    }
    st.stats.prefill_ms += ms_since(t0);
}

// ref: modeling_qwen3_tts.py, Qwen3TTSTalkerForConditionalGeneration.forward (a decode step:
// the code predictor fills the frame, then its embedding plus the trailing text goes in)
void decode_step(const backend::ExecContext& ctx, const TtsModel& model, StreamState* const* states,
                 int64_t count, StepScratch& sc, const std::function<void()>& frames_out) {
    if (count == 0) return;
    sc.reserve(model, count);
    const Talker& talker = model.talker();
    const CodePredictor& predictor = model.predictor();
    const int64_t H = talker.hidden_size(), V = model.config().talker.vocab_size;
    const int n_cb = predictor.n_codebooks();
    for (int64_t s = 0; s < count; ++s) QWEN3TTS_ASSERT(states[s]->steppable());

    // Codebooks 1..15 for every request at once.
    auto t0 = std::chrono::steady_clock::now();
    for (int64_t s = 0; s < count; ++s) {
        StreamState& st = *states[s];
        std::copy_n(st.past_hidden.data(), H, sc.x.data() + s * H);
        sc.codes[size_t(s * n_cb)] = st.token;
        sc.caches[size_t(s)] = &st.predictor_cache;
    }
    const auto choose = [&](int64_t s, int g, float* logits) -> int32_t {
        StreamState& st = *states[s];
        if (st.finished) return 0;  // failed earlier in this frame: its row is not used
        try {
            const int64_t vocab = predictor.vocab_size();
            if (st.hooks.predictor_logits)
                st.hooks.predictor_logits(st.stats.frames, g, logits, vocab);
            check_finite(logits, vocab,
                         "code predictor logits of frame " + std::to_string(st.stats.frames) +
                             " (codebook " + std::to_string(g) + ")");
            return st.sampler.choose(logits, vocab, st.params.predictor);
        } catch (...) {
            st.fail();
            return 0;
        }
    };
    predictor.predict(ctx, sc.x.data(), count, sc.codes.data(), sc.caches.data(), sc.predictor,
                      choose);
    const double predictor_ms = ms_since(t0);

    // Hand out the frames.
    for (int64_t s = 0; s < count; ++s) {
        StreamState& st = *states[s];
        st.stats.predictor_ms += predictor_ms;
        if (st.finished) continue;
        std::copy_n(sc.codes.data() + s * n_cb, n_cb, st.frame.data());
        if (st.keep_codes) st.codes.insert(st.codes.end(), st.frame.begin(), st.frame.end());
        const int64_t f = st.stats.frames++;
        try {
            if (st.hooks.on_frame && !st.hooks.on_frame(f, st.frame.data())) st.finished = true;
        } catch (...) {
            st.fail();
        }
    }
    if (frames_out) frames_out();

    // The requests that go on get their talker input row.
    t0 = std::chrono::steady_clock::now();
    int64_t rows = 0;
    for (int64_t s = 0; s < count; ++s) {
        StreamState& st = *states[s];
        if (st.finished) continue;
        const int64_t f = st.stats.frames - 1;  // the frame just handed out
        const float* text =
            f < st.prompt.n_trailing ? st.prompt.trailing.data() + f * H : st.prompt.tts_pad.data();
        float* x = sc.x.data() + rows * H;
        std::copy_n(text, H, x);
        add_frame_embedding(talker, predictor, st.frame.data(), x);
        sc.segments[size_t(rows)] = {&st.talker_cache, 1};
        sc.row_states[size_t(rows)] = &st;
        ++rows;
    }
    if (rows == 0) return;
    talker.stack().forward(ctx, sc.x.data(), sc.segments.data(), int(rows), sc.talker,
                           sc.hidden.data());
    talker.logits(ctx, sc.hidden.data(), rows, sc.logits.data());
    for (int64_t row = 0; row < rows; ++row) {
        StreamState& st = *sc.row_states[size_t(row)];
        std::copy_n(sc.hidden.data() + row * H, H, st.past_hidden.data());
        try {
            draw_talker_token(model, st, sc.logits.data() + row * V);
        } catch (...) {
            st.fail();
        }
    }
    const double talker_ms = ms_since(t0);
    for (int64_t row = 0; row < rows; ++row)
        sc.row_states[size_t(row)]->stats.talker_ms += talker_ms;
}

}  // namespace qwen3tts
