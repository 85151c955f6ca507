#include "audio/resample.hpp"

#include <soxr.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace qwen3tts {

std::vector<float> resample(const std::vector<float>& in, int from_rate, int to_rate) {
    if (from_rate <= 0 || to_rate <= 0)
        throw Error(ErrorCode::invalid_argument,
                    "resample: sample rates must be positive (from " + std::to_string(from_rate) +
                        " Hz to " + std::to_string(to_rate) + " Hz)");
    if (from_rate == to_rate) return in;  // librosa returns y unchanged
    // librosa: ratio = float(target_sr) / orig_sr; n_samples = int(np.ceil(len(y) * ratio))
    const double ratio = double(to_rate) / double(from_rate);
    const size_t n_out = size_t(std::ceil(double(in.size()) * ratio));
    if (in.empty()) return {};

    const soxr_io_spec_t io_spec = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
    const soxr_quality_spec_t q_spec = soxr_quality_spec(SOXR_HQ, 0);
    soxr_error_t err = nullptr;
    soxr_t soxr = soxr_create(double(from_rate), double(to_rate), 1, &err, &io_spec, &q_spec,
                              nullptr);
    if (err || !soxr)
        throw Error(ErrorCode::internal, std::string("resample: soxr_create failed: ") +
                                             (err ? err : "unknown error"));

    // python-soxr csoxr_divide_proc: output capacity ilen·out/in + 1 (truncated), input
    // chunks of 48000·in/out samples, then one flush call.
    const size_t capacity = size_t(double(in.size()) * double(to_rate) / double(from_rate) + 1.0);
    const size_t chunk = std::max<size_t>(1, size_t(48000.0 * double(from_rate) / double(to_rate)));
    std::vector<float> out(capacity, 0.0f);
    size_t out_pos = 0;
    size_t done = 0;
    for (size_t at = 0; at < in.size() && !err; at += chunk) {
        err = soxr_process(soxr, in.data() + at, std::min(chunk, in.size() - at), nullptr,
                           out.data() + out_pos, capacity - out_pos, &done);
        out_pos += done;
    }
    if (!err) {
        err = soxr_process(soxr, nullptr, 0, nullptr, out.data() + out_pos, capacity - out_pos,
                           &done);
        out_pos += done;
    }
    soxr_delete(soxr);
    if (err) throw Error(ErrorCode::internal, std::string("resample: soxr failed: ") + err);

    out.resize(out_pos);
    out.resize(n_out, 0.0f);  // librosa.util.fix_length: trim or zero-pad at the end
    return out;
}

}  // namespace qwen3tts
