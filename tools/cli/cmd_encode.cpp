// qwen3tts encode: reference audio → codec frames, saved as an int64 .npy [frames, 16]
// (the codes an ICL voice-clone prompt uses; `qwen3tts decode --codes` plays them back).
// The audio is read as librosa.load(path, sr=None, mono=True) and resampled to 24 kHz with
// soxr HQ when needed, as the reference's Qwen3TTSTokenizer.encode(path) does.
#include <chrono>
#include <cstdio>

#include "commands.hpp"
#include "progress.hpp"
#include "synthesis_args.hpp"

namespace qwen3tts::cli {

int cmd_encode(const Args& args) {
    const int threads = args.get_int("threads", 0, 0);
    // The encoder's memory grows with the length: refuse long files before decoding them.
    const double max_seconds =
        args.get_float("max-seconds", float(kEncodeMaxSeconds), Args::Range::positive);
    const Model model = load_model_light(args);
    const auto t0 = std::chrono::steady_clock::now();
    // No progress callback for encoding: an elapsed-time line on a terminal.
    Progress progress("encoding", args.flag("quiet"), model.sample_rate());
    progress.start_elapsed_ticker();
    const Model::EncodedAudio encoded = model.encode_audio(args.get("audio"), threads, max_seconds);
    progress.finish();
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
