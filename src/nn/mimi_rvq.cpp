#include "nn/mimi_rvq.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/error.hpp"
#include "core/thread_pool.hpp"
#include "nn/codec_weights.hpp"
#include "weights/safetensors.hpp"

namespace qwen3tts {

void MimiSplitRvqEncoder::load_rvq(const WeightMap& weights, const std::string& prefix,
                                   int n_levels, Rvq& rvq) {
    const int h = s_.hidden, d = s_.dim, size = s_.codebook_size;
    // MimiResidualVectorQuantizer has projections only when the widths differ.
    rvq.has_proj = d != h;
    if (rvq.has_proj) {
        const auto w = load_f32(weights, prefix + ".input_proj.weight", {d, h, 1});
        rvq.in_proj = backend::prepare_linear(w.data(), d, h, nullptr);
    }
    rvq.levels.resize(size_t(n_levels));
    for (int l = 0; l < n_levels; ++l) {
        const std::string p = prefix + ".layers." + std::to_string(l) + ".codebook.";
        const auto sum = load_f32(weights, p + "embed_sum", {size, d});
        const auto usage = load_f32(weights, p + "cluster_usage", {size});
        Codebook& cb = rvq.levels[size_t(l)];
        cb.embed.resize(size_t(size) * d);
        std::vector<float> aug(size_t(size) * (d + 2));
        for (int k = 0; k < size; ++k) {
            const float u = std::max(usage[size_t(k)], kMimiCodebookEps);
            double norm = 0;
            for (int i = 0; i < d; ++i) {
                const float e = sum[size_t(k) * d + i] / u;
                cb.embed[size_t(k) * d + i] = e;
                aug[size_t(k) * (d + 2) + i] = e;
                norm += double(e) * e;
            }
            aug[size_t(k) * (d + 2) + d] = 1.0f;
            aug[size_t(k) * (d + 2) + d + 1] = float(norm);
        }
        cb.dist = backend::prepare_linear(aug.data(), size, d + 2, nullptr);
    }
}

void MimiSplitRvqEncoder::load(const WeightMap& weights, const std::string& prefix,
                               const MimiRvqShape& s) {
    s_ = s;
    load_rvq(weights, prefix + ".semantic_residual_vector_quantizer", s.n_semantic, semantic_);
    load_rvq(weights, prefix + ".acoustic_residual_vector_quantizer", s.n_acoustic, acoustic_);
}

double MimiSplitRvqEncoder::flops(int64_t n) const {
    double f = 0;
    for (const Rvq* r : {&semantic_, &acoustic_}) {
        if (r->levels.empty()) continue;
        if (r->has_proj) f += r->in_proj.flops(n);
        for (const Codebook& cb : r->levels) f += cb.dist.flops(n);
    }
    return f;
}

void MimiSplitRvqEncoder::encode_rvq(const Rvq& rvq, const float* z, int64_t n, int64_t* codes,
                                     int code0, const backend::ExecContext& ctx) const {
    if (rvq.levels.empty()) return;
    const int d = s_.dim, size = s_.codebook_size, n_code = n_codebook();
    std::vector<float> r(size_t(n) * d);  // residual [n, dim]
    if (rvq.has_proj)
        backend::conv1d(ctx, rvq.in_proj, z, s_.hidden, n, r.data(), d, false);
    else
        std::memcpy(r.data(), z, sizeof(float) * r.size());
    std::vector<float> aug(size_t(n) * (d + 2));  // [-2r, ‖r‖², 1]
    std::vector<float> dist(size_t(n) * size);
    for (size_t l = 0; l < rvq.levels.size(); ++l) {
        const Codebook& cb = rvq.levels[l];
        for (int64_t t = 0; t < n; ++t) {
            const float* rt = r.data() + t * d;
            float* at = aug.data() + t * (d + 2);
            double norm = 0;
            for (int i = 0; i < d; ++i) {
                at[i] = -2.0f * rt[i];
                norm += double(rt[i]) * rt[i];
            }
            at[d] = float(norm);
            at[d + 1] = 1.0f;
        }
        backend::conv1d(ctx, cb.dist, aug.data(), d + 2, n, dist.data(), size, false);
        for (int64_t t = 0; t < n; ++t) {
            const float* dt = dist.data() + t * size;
            int best = 0;
            float best_d = std::sqrt(std::max(dt[0], 0.0f));
            for (int k = 1; k < size; ++k) {
                const float dk = std::sqrt(std::max(dt[k], 0.0f));
                if (dk < best_d) {  // strict: the first index wins ties, like torch.argmin
                    best_d = dk;
                    best = k;
                }
            }
            codes[t * n_code + code0 + int(l)] = best;
            float* rt = r.data() + t * d;
            const float* e = cb.embed.data() + size_t(best) * d;
            for (int i = 0; i < d; ++i) rt[i] -= e[i];
        }
    }
}

void MimiSplitRvqEncoder::encode(const float* z, int64_t n, int64_t* codes,
                                 const backend::ExecContext& ctx) const {
    encode_rvq(semantic_, z, n, codes, 0, ctx);
    encode_rvq(acoustic_, z, n, codes, s_.n_semantic, ctx);
}

}  // namespace qwen3tts
