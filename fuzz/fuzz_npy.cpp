// .npy reader (codes files, reference data): any bytes must end in an array or an Error.
#include "core/error.hpp"
#include "core/npy.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string path = qwen3tts::fuzz::write_file("input.npy", data, size);
    try {
        const qwen3tts::NpyArray a = qwen3tts::read_npy(path);
        try {
            (void)a.to_f32();
        } catch (const qwen3tts::Error&) {
        }
        try {
            (void)a.to_i64();
        } catch (const qwen3tts::Error&) {
        }
    } catch (const qwen3tts::Error&) {
    }
    return 0;
}
