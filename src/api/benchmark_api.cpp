#include <chrono>

#include "api/model_impl.hpp"
#include "backend/machine_probe.hpp"
#include "core/error.hpp"
#include "core/thread_pool.hpp"
#include "model/frame_traffic.hpp"
#include "qwen3tts/benchmark.hpp"

namespace qwen3tts {

MachinePeaks measure_machine(const EngineOptions& options) {
    MachinePeaks m;
    m.threads = resolve_thread_count(options.threads, "threads", options.oversubscribe);
    ThreadPool pool(m.threads);
    const backend::MachinePeaks p = backend::probe_machine(pool);
    m.read_gb_per_s = p.read_gb_per_s;
    m.fp32_gflops = p.fp32_gflops;
    m.bf16_gflops = p.bf16_gflops;
    return m;
}

FrameWeightBytes frame_weight_bytes(const Model& model) {
    if (!model.impl())
        throw Error(ErrorCode::invalid_argument, "frame_weight_bytes: model not loaded");
    const FrameTraffic t = frame_traffic(*model.impl()->model);
    return FrameWeightBytes{t.talker_bytes, t.predictor_bytes};
}

double load_codec_decoder(const Model& model) {
    if (!model.impl())
        throw Error(ErrorCode::invalid_argument, "load_codec_decoder: model not loaded");
    const auto t0 = std::chrono::steady_clock::now();
    model.impl()->codec();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace qwen3tts
