// Public option strings → internal enums (one place, so every entry point says the same).
#pragma once

#include <string>

#include "core/error.hpp"
#include "model/prompt.hpp"
#include "model/tts_model.hpp"
#include "runtime/speech.hpp"

namespace qwen3tts {

inline TextLayout parse_text_layout(const std::string& s) {
    if (s == "auto" || s.empty()) return TextLayout::automatic;
    if (s == "streaming") return TextLayout::streaming;
    if (s == "non-streaming") return TextLayout::non_streaming;
    throw Error(ErrorCode::invalid_argument,
                "unknown text layout '" + s + "' (auto, streaming or non-streaming)");
}

inline CodecDecodeMode parse_codec_decode(const std::string& s) {
    if (s == "streaming" || s.empty()) return CodecDecodeMode::streaming;
    if (s == "official-chunked") return CodecDecodeMode::official_chunked;
    throw Error(ErrorCode::invalid_argument,
                "unknown codec decode mode '" + s + "' (streaming or official-chunked)");
}

inline CodecOverlap parse_codec_overlap(const std::string& s) {
    if (s == "auto" || s.empty()) return CodecOverlap::adaptive;
    if (s == "on") return CodecOverlap::on;
    if (s == "off") return CodecOverlap::off;
    throw Error(ErrorCode::invalid_argument, "unknown codec overlap '" + s + "' (auto, on or off)");
}

// A q4 component's output heads are q8: docs/quantization.md measured no loss from it there
// (at q8 a small one, so q8 components keep theirs as stored).
inline QuantPlan with_heads(QuantPlan plan) {
    const auto q4 = backend::QuantFormat::q4, q8 = backend::QuantFormat::q8;
    if (plan.talker == q4) plan.talker_head = q8;
    if (plan.predictor == q4) plan.predictor_heads = q8;
    return plan;
}

// "bf16" | "q8" | "q4" | "talker=F,predictor=F" (either part may be left out: bf16).
inline QuantPlan parse_quant_plan(const std::string& spec) {
    auto format = [&](const std::string& name) -> std::optional<backend::QuantFormat> {
        if (name == "bf16") return std::nullopt;
        if (name == "q8") return backend::QuantFormat::q8;
        if (name == "q4") return backend::QuantFormat::q4;
        throw Error(ErrorCode::invalid_argument,
                    "unknown quantization '" + name + "' in '" + spec + "' (bf16, q8 or q4)");
    };
    QuantPlan plan;
    if (spec.find('=') == std::string::npos) {
        plan.talker = plan.predictor = format(spec.empty() ? "bf16" : spec);
        return with_heads(plan);
    }
    size_t begin = 0;
    while (begin <= spec.size()) {
        const size_t end = std::min(spec.find(',', begin), spec.size());
        const std::string part = spec.substr(begin, end - begin);
        const size_t eq = part.find('=');
        const std::string key = part.substr(0, eq);
        if (eq == std::string::npos || (key != "talker" && key != "predictor"))
            throw Error(
                ErrorCode::invalid_argument,
                "bad quantization '" + spec + "': expected bf16, q8, q4 or talker=F,predictor=F");
        (key == "talker" ? plan.talker : plan.predictor) = format(part.substr(eq + 1));
        begin = end + 1;
    }
    return with_heads(plan);
}

inline std::string quant_plan_name(const QuantPlan& plan) {
    auto name = [](const std::optional<backend::QuantFormat>& f) -> std::string {
        return f ? backend::quant_format_name(*f) : "bf16";
    };
    if (name(plan.talker) == name(plan.predictor)) return name(plan.talker);
    return "talker=" + name(plan.talker) + ",predictor=" + name(plan.predictor);
}

}  // namespace qwen3tts
