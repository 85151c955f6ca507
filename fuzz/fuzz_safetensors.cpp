// safetensors reader: header and tensor table of any bytes, then every byte of every tensor
// (so a table that points outside the file shows up as an ASan report, not as silence).
#include "core/error.hpp"
#include "fuzz_support.hpp"
#include "weights/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = qwen3tts::fuzz::write_file("input.safetensors", data, size);
    for (auto mode : {qwen3tts::LoadMode::mmap, qwen3tts::LoadMode::copy}) {
        try {
            qwen3tts::SafetensorsFile f(path, mode);
            uint8_t sum = 0;
            for (const auto& kv : f.tensors()) {
                const auto& t = kv.second;
                const auto* p = static_cast<const uint8_t*>(t.data);
                for (size_t i = 0; i < t.nbytes(); ++i) sum = uint8_t(sum + p[i]);
                if (t.dtype == qwen3tts::DType::f32 || t.dtype == qwen3tts::DType::bf16 ||
                    t.dtype == qwen3tts::DType::f16)
                    (void)t.to_f32();
            }
            volatile uint8_t sink = sum;
            (void)sink;
        } catch (const qwen3tts::Error&) {
        }
    }
    return 0;
}
