#include "model/voice_file.hpp"

#include <charconv>
#include <cstring>

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
    if (v.voice.in_context()) {
        const auto n_cb = size_t(v.n_codebook);
        if (v.n_codebook <= 0 || v.voice.ref_codes.size() % n_cb != 0)
            throw Error(ErrorCode::invalid_argument,
                        path + ": " + std::to_string(v.voice.ref_codes.size()) +
                            " reference codes are not whole frames of " +
                            std::to_string(v.n_codebook) + " codes");
        tensors.push_back({"ref_codes",
                           DType::i64,
                           {int64_t(v.voice.ref_codes.size() / n_cb), v.n_codebook},
                           v.voice.ref_codes.data()});
    }
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
                                                "' is not supported (this build reads " + kVersion +
                                                ")");
    VoiceFile v;
    const auto& t = f.tensors();
    const auto xv = t.find("x_vector");
    if (xv == t.end() || xv->second.shape.size() != 1 || xv->second.dtype != DType::f32 ||
        xv->second.shape[0] < 1)
        throw Error(ErrorCode::format, path + ": tensor x_vector [H] F32 is missing or malformed");
    v.voice.x_vector = xv->second.to_f32();
    const auto rc = t.find("ref_codes");
    if (field("mode") == "in_context") {
        // The frame width is the file's; check_voice_fits compares it with the model's.
        if (rc == t.end() || rc->second.dtype != DType::i64 || rc->second.shape.size() != 2 ||
            rc->second.shape[0] < 1 || rc->second.shape[1] < 1)
            throw Error(ErrorCode::format,
                        path + ": tensor ref_codes [T, n_codebook] I64 is missing or malformed");
        v.n_codebook = rc->second.shape[1];
        v.voice.ref_codes.resize(size_t(rc->second.numel()));
        std::memcpy(v.voice.ref_codes.data(), rc->second.data, rc->second.nbytes());
        for (size_t i = 0; i < v.voice.ref_codes.size(); ++i)
            if (v.voice.ref_codes[i] < 0)
                throw Error(ErrorCode::format,
                            path + ": ref_codes value " + std::to_string(v.voice.ref_codes[i]) +
                                " at frame " + std::to_string(i / size_t(v.n_codebook)) +
                                " is negative");
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
    const std::string hidden = field("hidden_size");
    const auto parsed =
        std::from_chars(hidden.data(), hidden.data() + hidden.size(), v.hidden_size);
    if (hidden.empty() || parsed.ec != std::errc() || parsed.ptr != hidden.data() + hidden.size() ||
        v.hidden_size <= 0)
        throw Error(ErrorCode::format,
                    path + ": metadata hidden_size '" + hidden + "' is not a positive number");
    return v;
}

void check_voice_fits(const VoiceFile& v, const ModelConfig& config, int codebook_size,
                      const std::string& path) {
    if (config.type != ModelType::base)
        throw Error(ErrorCode::invalid_argument, path +
                                                     ": voices clone with Base models; this is a " +
                                                     model_type_name(config.type) + " model");
    if (v.hidden_size != config.talker.hidden_size || v.model_size != config.size)
        throw Error(ErrorCode::invalid_argument,
                    path + ": this voice was made for a " + v.model_size + " model (hidden size " +
                        std::to_string(v.hidden_size) + "), but the model is " + config.size +
                        " (hidden size " + std::to_string(config.talker.hidden_size) +
                        "); make the voice again with this model");
    // The x-vector is the speaker encoder's output, fed to the talker as one embedding row.
    const int64_t embed =
        config.speaker_encoder.present ? config.speaker_encoder.enc_dim : config.talker.hidden_size;
    if (int64_t(v.voice.x_vector.size()) != embed)
        throw Error(ErrorCode::invalid_argument,
                    path + ": x_vector has " + std::to_string(v.voice.x_vector.size()) +
                        " values, but this model's speaker embedding has " + std::to_string(embed));
    if (!v.voice.in_context()) return;
    if (v.n_codebook != config.talker.num_code_groups)
        throw Error(ErrorCode::invalid_argument, path + ": ref_codes frames have " +
                                                     std::to_string(v.n_codebook) +
                                                     " codes, but this model's frames have " +
                                                     std::to_string(config.talker.num_code_groups));
    const auto n_cb = size_t(v.n_codebook);
    for (size_t i = 0; i < v.voice.ref_codes.size(); ++i)
        if (v.voice.ref_codes[i] >= codebook_size)
            throw Error(ErrorCode::invalid_argument,
                        path + ": ref_codes value " + std::to_string(v.voice.ref_codes[i]) +
                            " at frame " + std::to_string(i / n_cb) + ", codebook " +
                            std::to_string(i % n_cb) + " is outside [0, " +
                            std::to_string(codebook_size) + ")");
}

}  // namespace qwen3tts
