#include "backend/reference/linear_quant_ref.hpp"

#include "core/error.hpp"

namespace qwen3tts::backend {

void linear_quant_reference(const QuantizedActivations& x, const QuantizedWeights& w,
                            const float* bias, float* y) {
    QWEN3TTS_ASSERT(x.cols == w.cols);
    const int64_t blocks = w.blocks_per_row();
    for (int64_t i = 0; i < x.rows; ++i) {
        for (int64_t r = 0; r < w.rows; ++r) {
            double acc = 0;
            for (int64_t b = 0; b < blocks; ++b) {
                int32_t dot = 0;
                for (int64_t j = 0; j < kQuantBlock; ++j) {
                    const int64_t c = b * kQuantBlock + j;
                    dot += (w.code(r, c) - w.code_offset()) * x.q[size_t(i * x.cols + c)];
                }
                acc += double(f16_to_f32(w.scale_f16(r, b))) *
                       double(x.scales[size_t(i * blocks + b)]) * double(dot);
            }
            y[i * w.rows + r] = float(acc) + (bias ? bias[r] : 0.0f);
        }
    }
}

}  // namespace qwen3tts::backend
