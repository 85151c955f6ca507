#include "audio/time_stretch.hpp"

#include <SoundTouch.h>
#include <pmmintrin.h>

#include <algorithm>
#include <string>
#include <type_traits>

#include "core/error.hpp"

static_assert(std::is_same<soundtouch::SAMPLETYPE, float>::value,
              "SoundTouch must be built with float samples (Debian's libsoundtouch is)");

namespace qwen3tts {

namespace {

// SoundTouch counts samples in uint: larger inputs go in pieces.
constexpr size_t kMaxPiece = size_t(1) << 16;

// Debian's libSoundTouch is linked with -ffast-math, so loading it runs GCC's crtfastmath
// constructor, which sets flush-to-zero and denormals-are-zero (MXCSR FTZ, DAZ) on the loading
// thread, and every thread started later inherits them: the whole process (the CLI, the
// server) computed subnormals as zero, unlike the library alone and the official code. A
// binary that links this file gets the IEEE default back here, before main (an executable's
// initialisers run after its shared libraries' constructors).
[[maybe_unused]] const bool kIeeeSubnormalsRestored = [] {
    _MM_SET_FLUSH_ZERO_MODE(_MM_FLUSH_ZERO_OFF);
    _MM_SET_DENORMALS_ZERO_MODE(_MM_DENORMALS_ZERO_OFF);
    return true;
}();

}  // namespace

TimeStretch::TimeStretch(int sample_rate, double speed) {
    if (!(speed >= kMinSpeed && speed <= kMaxSpeed))
        throw Error(ErrorCode::invalid_argument,
                    "speed must be in [0.25, 4], got " + std::to_string(speed));
    if (sample_rate <= 0)
        throw Error(
            ErrorCode::invalid_argument,
            "time stretch: sample rate must be positive, got " + std::to_string(sample_rate));
    st_ = std::make_unique<soundtouch::SoundTouch>();
    st_->setSampleRate(unsigned(sample_rate));
    st_->setChannels(1);
    st_->setTempo(speed);
    // SoundTouch's tuning for speech (soundstretch -speech; its automatic default is tuned
    // for music): WSOLA sequences of 40 ms, aligned within 15 ms, cross-faded over 8 ms.
    st_->setSetting(SETTING_SEQUENCE_MS, 40);
    st_->setSetting(SETTING_SEEKWINDOW_MS, 15);
    st_->setSetting(SETTING_OVERLAP_MS, 8);
}

TimeStretch::~TimeStretch() = default;

void TimeStretch::process(const float* in, size_t n, std::vector<float>& out) {
    QWEN3TTS_ASSERT(!finished_);
    for (size_t done = 0; done < n;) {
        const size_t piece = std::min(n - done, kMaxPiece);
        st_->putSamples(in + done, unsigned(piece));
        done += piece;
        receive(out);
    }
}

void TimeStretch::finish(std::vector<float>& out) {
    QWEN3TTS_ASSERT(!finished_);
    finished_ = true;
    st_->flush();
    receive(out);
}

void TimeStretch::receive(std::vector<float>& out) {
    for (;;) {
        const unsigned ready = st_->numSamples();
        if (ready == 0) return;
        const size_t at = out.size();
        out.resize(at + ready);
        const unsigned got = st_->receiveSamples(out.data() + at, ready);
        out.resize(at + got);
        if (got == 0) return;
    }
}

}  // namespace qwen3tts
