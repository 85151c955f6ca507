// qwen3tts encode: reference audio → codec frames, saved as an int64 .npy [frames, 16]
// (the codes an ICL voice-clone prompt uses; `qwen3tts decode --codes` plays them back).
// The audio is read as librosa.load(path, sr=None, mono=True) and resampled to 24 kHz with
// soxr HQ when needed, as the reference's Qwen3TTSTokenizer.encode(path) does.
#include <chrono>
#include <cstdio>

#include "args.hpp"
#include "commands.hpp"
#include "qwen3tts/error.hpp"
#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts::cli {

int cmd_encode(int argc, char** argv) {
    const Args args(argc, argv, {"model", "audio", "out", "threads", "max-seconds"}, {});
    if (!args.has("audio"))
        throw Error(ErrorCode::invalid_argument, "encode: --audio FILE is required");
    if (!args.has("out"))
        throw Error(ErrorCode::invalid_argument, "encode: --out FILE.npy is required");
    const int threads = args.get_int("threads", 0);

    // The encoder's memory grows with the length: refuse long files before decoding them.
    const double max_seconds = args.get_float("max-seconds", 600.0f);
    if (!(max_seconds > 0))
        throw Error(ErrorCode::invalid_argument, "encode: --max-seconds must be > 0");
    const Model model = Model::load(args.get("model", kDefaultModel));
    const auto t0 = std::chrono::steady_clock::now();
    const Model::EncodedAudio encoded = model.encode_audio(args.get("audio"), threads, max_seconds);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    save_codes_npy(args.get("out"), encoded.codes, model);
    std::fprintf(
        stderr, "qwen3tts: %.2f s of audio (%d Hz) → %lld frames × %d codes → %s (%.0f ms)\n",
        encoded.input_seconds, encoded.input_sample_rate, static_cast<long long>(encoded.frames),
        encoded.n_codebook, args.get("out").c_str(), ms);
    return 0;
}

}  // namespace qwen3tts::cli
