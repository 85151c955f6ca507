#include "model/prompt.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/strings.hpp"
#include "model/language.hpp"
#include "text/unicode.hpp"

namespace qwen3tts {

namespace {

bool blank(const std::string& s) {
    return s.find_first_not_of(" \t\r\n") == std::string::npos;
}

// Row-wise accumulation helpers over [rows, H] buffers.
struct Rows {
    int64_t h;
    std::vector<float> data;
    int64_t count() const { return int64_t(data.size()) / h; }
    float* push() {
        data.resize(data.size() + size_t(h), 0.0f);
        return data.data() + data.size() - size_t(h);
    }
    void push_copy(const float* v) { std::copy(v, v + h, push()); }
};

void add(float* y, const float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

}  // namespace

bool default_non_streaming(ModelType type) {
    return type != ModelType::base;
}

void add_frame_embedding(const Talker& talker, const CodePredictor& predictor, const int32_t* frame,
                         float* out) {
    backend::embedding_add_row(talker.codec_embedding(), frame[0], out);
    for (int g = 1; g < predictor.n_codebooks(); ++g)
        backend::embedding_add_row(predictor.codec_embedding(g), frame[g], out);
}

PromptRequest check_prompt_request(const ModelConfig& cfg, const Talker& talker,
                                   const PromptRequest& req) {
    const int64_t H = talker.hidden_size();
    PromptRequest out = req;
    check_utf8(req.instruct, "the instruction");
    if (req.voice) check_utf8(req.voice->ref_text, "the reference transcript");
    out.language = resolve_language(cfg, req.language);
    out.speaker = ascii_lower(req.speaker);
    const TalkerConfig& tc = cfg.talker;
    if (!out.speaker.empty()) {
        if (cfg.type != ModelType::custom_voice)
            throw Error(ErrorCode::invalid_argument,
                        std::string("a speaker name was given, but this is a ") +
                            model_type_name(cfg.type) +
                            " model: named speakers exist only in CustomVoice models");
        if (!tc.spk_id.count(out.speaker))
            throw Error(
                ErrorCode::invalid_argument,
                "unknown speaker '" + req.speaker + "'; this model has: " + join(cfg.speakers()));
    }
    if (!out.instruct.empty()) {
        if (cfg.type == ModelType::base)
            throw Error(ErrorCode::invalid_argument,
                        "Base (voice clone) models take no instruction");
        if (cfg.type == ModelType::custom_voice && cfg.ignores_instruction()) {
            log_warning("the " + cfg.size_label() +
                        " CustomVoice model ignores instructions (as the official code does); "
                        "--instruct is dropped");
            out.instruct.clear();
        }
    }
    if (cfg.type == ModelType::base && !req.voice)
        throw Error(ErrorCode::invalid_argument,
                    "Base models clone a voice: give a reference (--ref-audio or --voice)");
    if (cfg.type != ModelType::base && req.voice)
        throw Error(ErrorCode::invalid_argument, std::string("voice cloning needs a Base model; "
                                                             "this is a ") +
                                                     model_type_name(cfg.type) + " model");
    if (req.voice && int64_t(req.voice->x_vector.size()) != H)
        throw Error(ErrorCode::invalid_argument,
                    "the voice's x-vector has " + std::to_string(req.voice->x_vector.size()) +
                        " values but this model's hidden size is " + std::to_string(H) +
                        " (a voice made for another model size?)");
    if (req.voice && req.voice->in_context() && blank(req.voice->ref_text))
        throw Error(ErrorCode::invalid_argument,
                    "in-context voice cloning needs the reference transcript (--ref-text)");
    if (req.layout == TextLayout::automatic)
        out.layout =
            default_non_streaming(cfg.type) ? TextLayout::non_streaming : TextLayout::streaming;
    return out;
}

Prompt build_prompt(const backend::ExecContext& ctx, const ModelConfig& cfg, const Tokenizer& tok,
                    const Talker& talker, const CodePredictor& predictor,
                    const PromptRequest& req) {
    if (req.text.empty() || blank(req.text))
        throw Error(ErrorCode::invalid_argument, "the text to speak is empty");
    // Before the chat template wraps them, so that an offset is one in the caller's text.
    check_utf8(req.text, "the text to speak");
    const PromptRequest checked = check_prompt_request(cfg, talker, req);
    return build_prompt_from_ids(
        ctx, cfg, tok, talker, predictor, checked,
        tok.encode("<|im_start|>assistant\n" + req.text + "<|im_end|>\n<|im_start|>assistant\n"));
}

// ref: modeling_qwen3_tts.py, Qwen3TTSForConditionalGeneration.generate and
// generate_icl_prompt; qwen3_tts_model.py, _build_assistant_text / _build_instruct_text
Prompt build_prompt_from_ids(const backend::ExecContext& ctx, const ModelConfig& cfg,
                             const Tokenizer& tok, const Talker& talker,
                             const CodePredictor& predictor, const PromptRequest& request,
                             std::vector<int32_t> input_ids) {
    const TalkerConfig& tc = cfg.talker;
    const int64_t H = talker.hidden_size();
    // Silent and unchanged for a request that passed it already (build_prompt's).
    const PromptRequest req = check_prompt_request(cfg, talker, request);
    const std::string& language = req.language;
    const std::string& speaker = req.speaker;
    const std::string& instruct = req.instruct;
    const bool icl = req.voice && req.voice->in_context();

    Prompt p;
    p.hidden = H;
    p.non_streaming = req.layout == TextLayout::non_streaming;

    // ---- tokens ----
    p.input_ids = std::move(input_ids);
    if (p.input_ids.size() < 9)
        throw Error(ErrorCode::invalid_argument, "the text to speak is empty");
    const std::vector<int32_t> role(p.input_ids.begin(), p.input_ids.begin() + 3);
    const std::vector<int32_t> text_ids(p.input_ids.begin() + 3, p.input_ids.end() - 5);
    if (!instruct.empty())
        p.instruct_ids = tok.encode("<|im_start|>user\n" + instruct + "<|im_end|>\n");
    std::vector<int32_t> ref_ids;
    if (icl) {
        const auto all =
            tok.encode("<|im_start|>assistant\n" + req.voice->ref_text + "<|im_end|>\n");
        ref_ids.assign(all.begin() + 3, all.end() - 2);
    }

    // PAD_T, BOS_T, EOS_T in one projection call (as the official code does).
    std::vector<float> specials(size_t(3 * H));
    const int32_t special_ids[3] = {cfg.tts_pad_token_id, cfg.tts_bos_token_id,
                                    cfg.tts_eos_token_id};
    talker.embed_text(ctx, special_ids, 3, specials.data());
    const float* pad_t = specials.data();
    const float* bos_t = specials.data() + H;
    const float* eos_t = specials.data() + 2 * H;
    p.tts_pad.assign(pad_t, pad_t + H);

    auto project = [&](const std::vector<int32_t>& ids) {
        Rows r{H, std::vector<float>(ids.size() * size_t(H))};
        if (!ids.empty()) talker.embed_text(ctx, ids.data(), int64_t(ids.size()), r.data.data());
        return r;
    };
    const TensorView& codec = talker.codec_embedding();
    auto codec_row = [&](int id, float* out) { backend::embedding_add_row(codec, id, out); };

    // ---- codec control prefix Q (spec §4.1) ----
    int lang_id = -1;
    if (language != "auto") lang_id = tc.codec_language_id.at(language);
    if (!speaker.empty() && (language == "chinese" || language == "auto")) {
        const auto d = tc.spk_dialect.find(speaker);
        if (d != tc.spk_dialect.end() && !d->second.empty()) {
            const auto id = tc.codec_language_id.find(d->second);
            if (id == tc.codec_language_id.end())
                throw Error(ErrorCode::model, "config: speaker " + speaker + "'s dialect '" +
                                                  d->second + "' has no codec_language_id");
            lang_id = id->second;
        }
    }
    Rows q{H, {}};
    const std::vector<int> control =
        lang_id < 0
            ? std::vector<int>{tc.codec_nothink_id, tc.codec_think_bos_id, tc.codec_think_eos_id}
            : std::vector<int>{tc.codec_think_id, tc.codec_think_bos_id, lang_id,
                               tc.codec_think_eos_id};
    for (int id : control) codec_row(id, q.push());
    if (!speaker.empty())
        codec_row(tc.spk_id.at(speaker), q.push());
    else if (req.voice)
        q.push_copy(req.voice->x_vector.data());
    codec_row(tc.codec_pad_id, q.push());
    codec_row(tc.codec_bos_id, q.push());
    const int64_t K = q.count();

    // ---- common prefix (spec §4.2) ----
    Rows x{H, {}};
    if (!p.instruct_ids.empty()) {
        const Rows instr = project(p.instruct_ids);
        x.data.insert(x.data.end(), instr.data.begin(), instr.data.end());
    }
    const Rows role_rows = project(role);
    x.data.insert(x.data.end(), role_rows.data.begin(), role_rows.data.end());
    for (int64_t j = 0; j + 1 < K; ++j) {
        float* row = x.push();
        std::copy(q.data.begin() + j * H, q.data.begin() + (j + 1) * H, row);
        add(row, j < K - 2 ? pad_t : bos_t, H);
    }

    p.voice_positions = x.count();
    Rows trailing{H, {}};
    if (!icl) {
        // ---- tail, non-ICL (spec §4.3) ----
        const Rows text = project(text_ids);
        if (p.non_streaming) {
            for (int64_t i = 0; i < text.count(); ++i) {
                float* row = x.push();
                std::copy(text.data.begin() + i * H, text.data.begin() + (i + 1) * H, row);
                codec_row(tc.codec_pad_id, row);
            }
            float* eos = x.push();
            std::copy(eos_t, eos_t + H, eos);
            codec_row(tc.codec_pad_id, eos);
            float* last = x.push();
            std::copy(pad_t, pad_t + H, last);
            codec_row(tc.codec_bos_id, last);
        } else {
            float* first = x.push();
            std::copy(text.data.begin(), text.data.begin() + H, first);
            codec_row(tc.codec_bos_id, first);
            trailing.data.assign(text.data.begin() + H, text.data.end());
            trailing.push_copy(eos_t);
        }
    } else {
        // ---- tail, in-context voice clone (spec §4.4) ----
        Rows etxt = project(ref_ids);
        const Rows target = project(text_ids);
        etxt.data.insert(etxt.data.end(), target.data.begin(), target.data.end());
        etxt.push_copy(eos_t);
        const auto& rc = req.voice->ref_codes;
        const int64_t n_cb = predictor.n_codebooks();
        const int64_t ref_frames = int64_t(rc.size()) / n_cb;
        Rows fcod{H, {}};
        codec_row(tc.codec_bos_id, fcod.push());
        std::vector<int32_t> frame(static_cast<size_t>(n_cb));
        for (int64_t f = 0; f < ref_frames; ++f) {
            for (int64_t g = 0; g < n_cb; ++g) {
                const int64_t c = rc[size_t(f * n_cb + g)];
                if (c < 0 || c >= predictor.vocab_size())
                    throw Error(ErrorCode::invalid_argument,
                                "reference code " + std::to_string(c) + " at frame " +
                                    std::to_string(f) + ", codebook " + std::to_string(g) +
                                    " is outside [0, " + std::to_string(predictor.vocab_size()) +
                                    ")");
                frame[size_t(g)] = int32_t(c);
            }
            add_frame_embedding(talker, predictor, frame.data(), fcod.push());
        }
        const int64_t lt = etxt.count(), lc = fcod.count();
        // The transcript's rows come first, over codec pad or under the reference frames.
        p.voice_positions +=
            p.non_streaming ? int64_t(ref_ids.size()) : std::min(int64_t(ref_ids.size()), lc);
        if (p.non_streaming) {
            for (int64_t k = 0; k < lt; ++k) {
                float* row = x.push();
                std::copy(etxt.data.begin() + k * H, etxt.data.begin() + (k + 1) * H, row);
                codec_row(tc.codec_pad_id, row);
            }
            for (int64_t j = 0; j < lc; ++j) {
                float* row = x.push();
                std::copy(fcod.data.begin() + j * H, fcod.data.begin() + (j + 1) * H, row);
                add(row, pad_t, H);
            }
        } else {
            for (int64_t j = 0; j < lc; ++j) {
                float* row = x.push();
                std::copy(fcod.data.begin() + j * H, fcod.data.begin() + (j + 1) * H, row);
                add(row, j < lt ? etxt.data.data() + j * H : pad_t, H);
            }
            if (lt > lc) trailing.data.assign(etxt.data.begin() + lc * H, etxt.data.end());
        }
    }

    p.length = x.count();
    if (p.length >= tc.max_position_embeddings)
        throw Error(ErrorCode::invalid_argument, "the text is too long: its prompt takes " +
                                                     std::to_string(p.length) +
                                                     " positions, but the model's context is " +
                                                     std::to_string(tc.max_position_embeddings) +
                                                     " (split the text into shorter parts)");
    p.embeds = std::move(x.data);
    p.n_trailing = trailing.count();
    p.trailing = std::move(trailing.data);
    return p;
}

}  // namespace qwen3tts
