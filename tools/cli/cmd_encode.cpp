// qwen3tts encode: reference audio → codec frames, saved as an int64 .npy [frames, 16]
// (the codes an ICL voice-clone prompt uses; `qwen3tts decode --codes` plays them back).
// The audio is read as librosa.load(path, sr=None, mono=True) and resampled to 24 kHz with
// soxr HQ when needed, as the reference's Qwen3TTSTokenizer.encode(path) does.
#include <chrono>
#include <cstdio>
#include <memory>

#include "args.hpp"
#include "audio/audio.hpp"
#include "commands.hpp"
#include "core/npy.hpp"
#include "core/thread_pool.hpp"
#include "model/codec_encoder.hpp"
#include "qwen3tts/error.hpp"
#include "weights/model_dir.hpp"

namespace qwen3tts::cli {

int cmd_encode(int argc, char** argv) {
    const Args args(argc, argv, {"model", "audio", "out", "threads", "max-seconds"}, {});
    if (!args.has("audio"))
        throw Error(ErrorCode::invalid_argument, "encode: --audio FILE is required");
    if (!args.has("out"))
        throw Error(ErrorCode::invalid_argument, "encode: --out FILE.npy is required");
    const int threads = args.get_int("threads", 0);
    if (threads < 0)
        throw Error(
            ErrorCode::invalid_argument,
            "encode: --threads must be >= 0 (0 = all cores), got " + std::to_string(threads));

    // The encoder's memory grows with the length: refuse long files before decoding them.
    const double max_seconds = args.get_float("max-seconds", 600.0f);
    if (!(max_seconds > 0))
        throw Error(ErrorCode::invalid_argument, "encode: --max-seconds must be > 0");
    // Read the audio first: a bad path fails before the model loads.
    const Audio audio = read_audio_file(args.get("audio"), max_seconds);
    const std::string dir = resolve_model_dir(args.get("model", kDefaultModel));
    const auto encoder = CodecEncoder::load(dir);
    const std::vector<float> wav =
        audio.sample_rate == encoder->sample_rate()
            ? audio.samples
            : resample(audio.samples, audio.sample_rate, encoder->sample_rate());

    ThreadPool pool(threads);
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<int64_t> codes = encoder->encode(wav, &pool);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const int64_t n_q = encoder->n_codebook();
    const int64_t frames = int64_t(codes.size()) / n_q;
    write_npy_i64(args.get("out"), codes.data(), {frames, n_q});
    std::fprintf(stderr,
                 "qwen3tts: %.2f s of audio (%d Hz) → %lld frames × %lld codes → %s (%.0f ms)\n",
                 audio.duration_s(), audio.sample_rate, static_cast<long long>(frames),
                 static_cast<long long>(n_q), args.get("out").c_str(), ms);
    return 0;
}

}  // namespace qwen3tts::cli
