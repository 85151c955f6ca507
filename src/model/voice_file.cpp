#include "model/voice_file.hpp"

#include "core/error.hpp"
#include "weights/safetensors.hpp"
#include "weights/safetensors_writer.hpp"

namespace qwen3tts {

namespace {
constexpr const char* kFormat = "qwen3tts-voice";
constexpr const char* kVersion = "1";
}  // namespace

void save_voice_file(const std::string& path, const VoiceFile& v) {
    std::vector<TensorToWrite> tensors{
        {"x_vector", DType::f32, {int64_t(v.voice.x_vector.size())}, v.voice.x_vector.data()}};
    if (v.voice.in_context())
        tensors.push_back({"ref_codes", DType::i64,
                           {int64_t(v.voice.ref_codes.size() / 16), 16},
                           v.voice.ref_codes.data()});
    write_safetensors(path, tensors,
                      {{"format", kFormat},
                       {"version", kVersion},
                       {"mode", v.voice.in_context() ? "in_context" : "x_vector"},
                       {"ref_text", v.voice.ref_text},
                       {"language", v.language},
                       {"model_type", v.model_type},
                       {"model_size", v.model_size},
                       {"hidden_size", std::to_string(v.hidden_size)},
                       {"source", v.source}});
}

VoiceFile load_voice_file(const std::string& path) {
    SafetensorsFile f(path);
    const auto& meta = f.metadata();
    auto field = [&](const char* key) -> std::string {
        const auto it = meta.find(key);
        return it == meta.end() ? "" : it->second;
    };
    if (field("format") != kFormat)
        throw Error(ErrorCode::format, path + ": not a qwen3tts voice file (metadata format is '" +
                                           field("format") + "')");
    if (field("version") != kVersion)
        throw Error(ErrorCode::unsupported, path + ": voice file version '" + field("version") +
                                                "' is not supported (this build reads " +
                                                kVersion + ")");
    VoiceFile v;
    const auto& t = f.tensors();
    const auto xv = t.find("x_vector");
    if (xv == t.end() || xv->second.shape.size() != 1 || xv->second.dtype != DType::f32)
        throw Error(ErrorCode::format, path + ": tensor x_vector [H] F32 is missing or malformed");
    v.voice.x_vector = xv->second.to_f32();
    const auto rc = t.find("ref_codes");
    if (field("mode") == "in_context") {
        if (rc == t.end() || rc->second.dtype != DType::i64 || rc->second.shape.size() != 2 ||
            rc->second.shape[1] != 16 || rc->second.shape[0] < 1)
            throw Error(ErrorCode::format,
                        path + ": tensor ref_codes [T, 16] I64 is missing or malformed");
        const auto* p = static_cast<const int64_t*>(rc->second.data);
        v.voice.ref_codes.assign(p, p + rc->second.numel());
        for (size_t i = 0; i < v.voice.ref_codes.size(); ++i)
            if (v.voice.ref_codes[i] < 0 || v.voice.ref_codes[i] >= 2048)
                throw Error(ErrorCode::format, path + ": ref_codes value at frame " +
                                                   std::to_string(i / 16) + " is outside [0, 2048)");
        v.voice.ref_text = field("ref_text");
        if (v.voice.ref_text.empty())
            throw Error(ErrorCode::format, path + ": in-context voice without ref_text");
    } else if (field("mode") != "x_vector") {
        throw Error(ErrorCode::format, path + ": unknown voice mode '" + field("mode") + "'");
    }
    v.language = field("language");
    v.model_type = field("model_type");
    v.model_size = field("model_size");
    v.source = field("source");
    try {
        v.hidden_size = std::stoll(field("hidden_size"));
    } catch (const std::exception&) {
        throw Error(ErrorCode::format, path + ": metadata hidden_size is not a number");
    }
    return v;
}

void check_voice_fits(const VoiceFile& v, const ModelConfig& config, const std::string& path) {
    if (config.type != ModelType::base)
        throw Error(ErrorCode::invalid_argument,
                    path + ": voices clone with Base models; this is a " +
                        model_type_name(config.type) + " model");
    if (v.hidden_size != config.talker.hidden_size || v.model_size != config.size)
        throw Error(ErrorCode::invalid_argument,
                    path + ": this voice was made for a " + v.model_size + " model (hidden size " +
                        std::to_string(v.hidden_size) + "), but the model is " + config.size +
                        " (hidden size " + std::to_string(config.talker.hidden_size) +
                        "); make the voice again with this model");
}

}  // namespace qwen3tts
