#include "audio/resample.hpp"

#include <soxr.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.hpp"

namespace qwen3tts {
namespace {

void check_rates(const char* what, int from_rate, int to_rate) {
    if (from_rate <= 0 || to_rate <= 0)
        throw Error(ErrorCode::invalid_argument,
                    std::string(what) + ": sample rates must be positive (from " +
                        std::to_string(from_rate) + " Hz to " + std::to_string(to_rate) + " Hz)");
}

// librosa → python-soxr settings: HQ quality without flags, float32 in and out, default
// runtime (one thread).
soxr_t create_soxr(int from_rate, int to_rate) {
    const soxr_io_spec_t io_spec = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
    const soxr_quality_spec_t q_spec = soxr_quality_spec(SOXR_HQ, 0);
    soxr_error_t err = nullptr;
    soxr_t soxr =
        soxr_create(double(from_rate), double(to_rate), 1, &err, &io_spec, &q_spec, nullptr);
    if (err || !soxr) {
        if (soxr) soxr_delete(soxr);
        throw Error(ErrorCode::internal,
                    std::string("resample: soxr_create failed: ") + (err ? err : "unknown error"));
    }
    return soxr;
}

}  // namespace

std::vector<float> resample(const std::vector<float>& in, int from_rate, int to_rate) {
    check_rates("resample", from_rate, to_rate);
    if (from_rate == to_rate) return in;  // librosa returns y unchanged
    // librosa: ratio = float(target_sr) / orig_sr; n_samples = int(np.ceil(len(y) * ratio))
    const double ratio = double(to_rate) / double(from_rate);
    const size_t n_out = size_t(std::ceil(double(in.size()) * ratio));
    if (in.empty()) return {};

    soxr_t soxr = create_soxr(from_rate, to_rate);
    soxr_error_t err = nullptr;

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

StreamResampler::StreamResampler(int from_rate, int to_rate)
    : from_rate_(from_rate), to_rate_(to_rate) {
    check_rates("resampler", from_rate, to_rate);
    if (from_rate != to_rate) soxr_ = create_soxr(from_rate, to_rate);
}

StreamResampler::~StreamResampler() {
    if (soxr_) soxr_delete(soxr_);
}

void StreamResampler::process(const float* in, size_t n, std::vector<float>& out) {
    if (flushed_) throw Error(ErrorCode::invalid_argument, "resampler: input after flush()");
    if (n == 0) return;
    if (!soxr_) {
        out.insert(out.end(), in, in + n);
        return;
    }
    run(in, n, out);
}

void StreamResampler::flush(std::vector<float>& out) {
    if (flushed_) return;
    flushed_ = true;
    if (soxr_) run(nullptr, 0, out);
}

// Feeds `in` (null = end of input) and collects every output sample soxr has ready.
void StreamResampler::run(const float* in, size_t n, std::vector<float>& out) {
    const double ratio = double(to_rate_) / double(from_rate_);
    size_t in_done = 0;
    for (;;) {
        const size_t room = size_t(double(n - in_done) * ratio) + 1024;
        const size_t at = out.size();
        out.resize(at + room);
        size_t used = 0, produced = 0;
        const soxr_error_t err =
            soxr_process(soxr_, in ? in + in_done : nullptr, n - in_done, in ? &used : nullptr,
                         out.data() + at, room, &produced);
        out.resize(at + produced);
        if (err) throw Error(ErrorCode::internal, std::string("resampler: soxr failed: ") + err);
        in_done += used;
        // Done when the input is consumed and soxr had more room than it filled.
        if (in_done >= n && produced < room) return;
    }
}

}  // namespace qwen3tts
