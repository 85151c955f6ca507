// Sample-rate conversion with libsoxr, following the reference's recipe exactly: librosa ≥ 0.10
// `librosa.resample(y, orig_sr, target_sr)` (res_type "soxr_hq") → python-soxr
// `soxr.resample(y, orig_sr, target_sr, quality="HQ")` on float32 input.
// ref: librosa/core/audio.py resample; python-soxr src/soxr_ext.cpp csoxr_divide_proc.
// Thread-safe: no shared state.
#pragma once

#include <vector>

namespace qwen3tts {

// Mono float32 from from_rate to to_rate (both > 0, else Error(invalid_argument)):
// soxr_quality_spec(SOXR_HQ, 0), float32 in/out, default runtime spec, input fed in chunks of
// 48000·from/to samples then flushed, and the result cut or zero-padded to
// ceil(n · to/from) samples (librosa's fix_length). Equal rates return the input unchanged.
std::vector<float> resample(const std::vector<float>& in, int from_rate, int to_rate);

}  // namespace qwen3tts
