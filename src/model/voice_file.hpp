// Saved voices (`.voice` files): what a Base model needs to clone a voice again without the
// reference audio. A safetensors file (docs/voice_file.md):
//   tensors  x_vector [H] F32, ref_codes [T, n_codebook] I64 (in-context voices only)
//   metadata format = "qwen3tts-voice", version = "1", mode = "x_vector" | "in_context",
//            ref_text, language (as given when made, may be empty), model_type, model_size,
//            hidden_size, source (the reference audio file name)
#pragma once

#include <string>

#include "model/config.hpp"
#include "model/prompt.hpp"

namespace qwen3tts {

struct VoiceFile {
    VoiceClonePrompt voice;
    std::string language;
    std::string model_type = "base";
    std::string model_size;  // tts_model_size of the model that made it ("0b6", "1b7", ...)
    int64_t hidden_size = 0;
    std::string source;
    int64_t n_codebook = 0;  // codes per ref_codes frame (in-context voices)
};

void save_voice_file(const std::string& path, const VoiceFile& v);
// Throws Error naming the file and the problem (not a voice file, unknown version, bad shape).
VoiceFile load_voice_file(const std::string& path);
// Throws Error when the voice was made for a model of another size or type, or does not fit
// its shapes: x_vector length vs. the speaker embedding, codes per frame vs. num_code_groups,
// each code vs. the codec's `codebook_size`.
void check_voice_fits(const VoiceFile& v, const ModelConfig& config, int codebook_size,
                      const std::string& path);

}  // namespace qwen3tts
