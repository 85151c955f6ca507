// Ops whose cost is small next to the weight reads and convolutions: one implementation serves
// both kernel sets (the reference is the implementation); those a batched step calls on many
// values, RMSNorm, SiLU and RoPE, are vectorised in backend/cpu with the same bits at every ISA
// level.
#include <algorithm>
#include <cmath>

#include "backend/cpu/cpu_features.hpp"
#include "backend/cpu/rms_norm_cpu.hpp"
#include "backend/cpu/rope_cpu.hpp"
#include "backend/cpu/silu_cpu.hpp"
#include "backend/ops.hpp"
#include "core/error.hpp"
#include "core/thread_pool.hpp"

namespace qwen3tts::backend {

const char* fast_kernel_level() {
    return cpu::isa_name(cpu::active_isa());
}

void embedding_rows(const TensorView& table, const int32_t* ids, int64_t n, float* out) {
    const int64_t rows = table.dim(0), d = table.dim(1);
    for (int64_t i = 0; i < n; ++i) {
        if (ids[i] < 0 || ids[i] >= rows)
            throw Error(ErrorCode::invalid_argument, "id " + std::to_string(ids[i]) +
                                                         " is outside embedding " + table.name +
                                                         " (" + std::to_string(rows) + " rows)");
        table.to_f32(int64_t(ids[i]) * d, d, out + i * d);
    }
}

void embedding_add_row(const TensorView& table, int64_t id, float* out) {
    const int64_t rows = table.dim(0), d = table.dim(1);
    if (id < 0 || id >= rows)
        throw Error(ErrorCode::invalid_argument,
                    "id " + std::to_string(id) + " is outside embedding " + table.name);
    float row[256];  // widened a piece at a time, then added
    for (int64_t j = 0; j < d; j += 256) {
        const int64_t count = std::min<int64_t>(256, d - j);
        table.to_f32(id * d + j, count, row);
        for (int64_t k = 0; k < count; ++k) out[j + k] += row[k];
    }
}

void rms_norm(const float* x, const float* w, int64_t n, int64_t d, float eps, float* y) {
    cpu::rms_norm_rows(x, w, n, d, eps, y);
}

namespace {
// Below this many values an element-wise op or a norm is done before a fork/join would be.
constexpr int64_t kParallelValues = 16384;
}  // namespace

void rms_norm(const ExecContext& ctx, const float* x, const float* w, int64_t n, int64_t d,
              float eps, float* y) {
    if (!ctx.pool || n < 2 || n * d < kParallelValues) {
        rms_norm(x, w, n, d, eps, y);
        return;
    }
    ctx.pool->parallel_for(
        n, 1, [&](int64_t b, int64_t e) { rms_norm(x + b * d, w, e - b, d, eps, y + b * d); });
}

void layer_norm(const float* x, const float* w, const float* b, int64_t n, int64_t d, float eps,
                float* y) {
    for (int64_t i = 0; i < n; ++i) {
        const float* xi = x + i * d;
        float* yi = y + i * d;
        double sum = 0;
        for (int64_t j = 0; j < d; ++j) sum += xi[j];
        const double mean = sum / double(d);
        double ss = 0;
        for (int64_t j = 0; j < d; ++j) ss += (xi[j] - mean) * (xi[j] - mean);
        const float rstd = float(1.0 / std::sqrt(ss / double(d) + double(eps)));
        const float m = float(mean);
        for (int64_t j = 0; j < d; ++j) yi[j] = (xi[j] - m) * rstd * w[j] + b[j];
    }
}

void silu_mul(const float* gate, const float* up, int64_t n, float* out) {
    cpu::silu_mul(gate, up, n, out);
}

void silu_mul(const ExecContext& ctx, const float* gate, const float* up, int64_t n, float* out) {
    if (!ctx.pool || n < kParallelValues) {
        silu_mul(gate, up, n, out);
        return;
    }
    ctx.pool->parallel_for(
        n, 1024, [&](int64_t b, int64_t e) { silu_mul(gate + b, up + b, e - b, out + b); });
}

void silu_inplace(float* x, int64_t n) {
    cpu::silu_inplace(x, n);
}

void gelu_erf_inplace(float* x, int64_t n) {
    const float inv_sqrt2 = 0.70710678118654752440f;
    for (int64_t i = 0; i < n; ++i) x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * inv_sqrt2));
}

void add_inplace(float* y, const float* x, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

void add_scaled_rows(float* y, const float* x, const float* scale, int64_t n, int64_t d) {
    for (int64_t i = 0; i < n; ++i)
        for (int64_t j = 0; j < d; ++j) y[i * d + j] += scale[j] * x[i * d + j];
}

void rope(float* x, int64_t n, int64_t ldx, int64_t n_head, int64_t head_dim, const float* cos,
          const float* sin) {
    cpu::rope_rows(x, n, ldx, n_head, head_dim, cos, sin);
}

}  // namespace qwen3tts::backend
