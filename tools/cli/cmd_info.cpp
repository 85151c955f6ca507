// qwen3tts info: what a checkpoint is and what it accepts.
#include <cstdio>

#include "commands.hpp"
#include "synthesis_args.hpp"

namespace qwen3tts::cli {

namespace {
std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s.empty() ? "-" : s;
}
}  // namespace

int cmd_info(const Args& args) {
    const Model model = load_model_light(args);
    const ModelInfo i = model.info();
    std::printf("model:       %s\n", i.dir.c_str());
    std::printf("variant:     %s\n", i.type.c_str());
    std::printf("size:        %s (hidden %lld, %lld talker layers, %.2f GB of weights)\n",
                i.size.c_str(), static_cast<long long>(i.hidden_size),
                static_cast<long long>(i.talker_layers), double(i.weight_bytes) / 1e9);
    std::printf("codes:       %d per frame, each in [0, %d)\n", i.n_codebook, i.codebook_size);
    // A dialect is the speaker's, not a --language value (as in the official code): the
    // speaker speaks it when --language is auto or chinese.
    std::vector<std::string> speakers;
    for (size_t k = 0; k < i.speakers.size(); ++k) {
        const std::string& d = k < i.speaker_dialects.size() ? i.speaker_dialects[k] : "";
        speakers.push_back(i.speakers[k] + (d.empty() ? "" : " (" + d + ")"));
    }
    std::printf("speakers:    %s\n", join(speakers).c_str());
    if (!i.dialects.empty())
        std::printf("             a speaker's dialect is used with --language auto or chinese\n");
    std::vector<std::string> languages;
    for (size_t k = 0; k < i.languages.size(); ++k) {
        const std::string& code = k < i.language_codes.size() ? i.language_codes[k] : "";
        languages.push_back(i.languages[k] + (code.empty() ? "" : " (" + code + ")"));
    }
    std::printf("languages:   %s\n", join(languages).c_str());
    std::printf("instruction: %s\n", i.takes_instruction ? "yes" : "no (ignored)");
    return 0;
}

}  // namespace qwen3tts::cli
