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

int cmd_info(int argc, char** argv) {
    const Args args(argc, argv, {"model", "pretokenizer"}, {});
    const Model model = Model::load(args.get("model", kDefaultModel), parse_load_options(args));
    const ModelInfo i = model.info();
    std::printf("model:       %s\n", i.dir.c_str());
    std::printf("variant:     %s\n", i.type.c_str());
    std::printf("size:        %s (hidden %lld, %lld talker layers, %.2f GB of weights)\n",
                i.size.c_str(), static_cast<long long>(i.hidden_size),
                static_cast<long long>(i.talker_layers), double(i.weight_bytes) / 1e9);
    std::printf("codes:       %d per frame, each in [0, %d)\n", i.n_codebook, i.codebook_size);
    std::printf("speakers:    %s\n", join(i.speakers).c_str());
    std::printf("languages:   %s\n", join(i.languages).c_str());
    std::printf("dialects:    %s\n", join(i.dialects).c_str());
    std::printf("instruction: %s\n", i.takes_instruction ? "yes" : "no (ignored)");
    return 0;
}

}  // namespace qwen3tts::cli
