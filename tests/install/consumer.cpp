// A C++ program using an installed qwen3tts (tests/install/run_consumers.py builds and runs it).
// usage: consumer_cpp <model dir> <text> <seed> <max frames>
// Prints "frames N" and one line of codes per frame, "samples N" of speaking the same text with
// the same seed, then the qwen3tts::Error that loading a missing model throws inside the library
// ("caught qwen3tts::Error CODE: MESSAGE").
#include <cstdio>
#include <string>

#include "qwen3tts/qwen3tts.hpp"

int main(int argc, char** argv) {
    if (argc != 5) {
        std::fprintf(stderr, "usage: %s <model dir> <text> <seed> <max frames>\n", argv[0]);
        return 2;
    }
    const qwen3tts::Model model = qwen3tts::Model::load(argv[1]);
    std::printf("model %s, %zu speakers, library %s\n", model.info().type.c_str(),
                model.info().speakers.size(), qwen3tts::version_string().c_str());
    qwen3tts::SynthesisOptions options = model.default_options();
    options.language = "english";
    options.speaker = "ryan";
    options.seed = std::stoull(argv[3]);
    options.max_frames = std::stoi(argv[4]);
    qwen3tts::EngineOptions engine;
    engine.threads = 2;
    qwen3tts::Synthesizer synth(model, engine);
    const std::vector<int32_t> codes = synth.generate_codes(argv[2], options);
    const int n_codebook = model.info().n_codebook;
    std::printf("frames %zu\n", codes.size() / n_codebook);
    for (size_t i = 0; i < codes.size(); ++i) {
        std::printf((i + 1) % n_codebook ? "%d " : "%d\n", codes[i]);
    }
    std::printf("samples %zu\n", synth.speak(argv[2], options).size());

    try {
        qwen3tts::Model::load("/nonexistent/qwen3tts-model");
    } catch (const qwen3tts::Error& e) {
        std::printf("caught qwen3tts::Error %d: %s\n", static_cast<int>(e.code()), e.what());
    }
    return 0;
}
