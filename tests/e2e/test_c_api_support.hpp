// Helpers of the C API tests: handles freed by RAII, arrays taken over from the library, and
// the C options a test sets side by side with the C++ options they stand for.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "qwen3tts/qwen3tts.h"
#include "qwen3tts/qwen3tts.hpp"
#include "support/test_support.hpp"

namespace qwen3tts::ctest {

struct ModelFree {
    void operator()(qwen3tts_model* p) const { qwen3tts_model_free(p); }
};
struct SynthFree {
    void operator()(qwen3tts_synthesizer* p) const { qwen3tts_synthesizer_free(p); }
};
struct VoiceFree {
    void operator()(qwen3tts_voice* p) const { qwen3tts_voice_free(p); }
};
using CModel = std::unique_ptr<qwen3tts_model, ModelFree>;
using CSynth = std::unique_ptr<qwen3tts_synthesizer, SynthFree>;
using CVoice = std::unique_ptr<qwen3tts_voice, VoiceFree>;

// tests/data/models/<name> through the C API (NULL on failure, with a test failure).
inline CModel load_model(const std::string& name) {
    qwen3tts_model* m = nullptr;
    const int rc = qwen3tts_model_load(testing::model_dir(name).c_str(), nullptr, &m);
    EXPECT_EQ(rc, QWEN3TTS_OK) << qwen3tts_last_error();
    return CModel(m);
}

inline CSynth new_synth(const qwen3tts_model* model, int threads = 2) {
    qwen3tts_synthesizer* s = nullptr;
    const int rc = qwen3tts_synthesizer_new(model, threads, &s);
    EXPECT_EQ(rc, QWEN3TTS_OK) << qwen3tts_last_error();
    return CSynth(s);
}

// A library array as a vector; the array is freed.
template <typename T>
std::vector<T> take(T* p, size_t n) {
    std::vector<T> v(p, p + (p ? n : 0));
    qwen3tts_free(p);
    return v;
}

inline qwen3tts_report new_report() {
    qwen3tts_report r{};
    r.struct_size = sizeof r;
    return r;
}

// "rc: message" of a failed call, for assertions that read the message.
inline std::string failure(int rc) {
    return std::to_string(rc) + ": " + qwen3tts_last_error();
}

}  // namespace qwen3tts::ctest
