#include "model/codec_quantizer.hpp"

#include <algorithm>
#include <cstring>

#include "nn/codec_weights.hpp"

namespace qwen3tts {

void CodecQuantizerDecoder::load(const WeightMap& weights, const CodecDecoderConfig& cfg) {
    n_codebook_ = cfg.n_codebook;
    codebook_size_ = cfg.codebook_size;
    vq_dim_ = cfg.vq_dim();
    out_dim_ = cfg.codebook_dim;
    tables_.assign(size_t(n_codebook_) * codebook_size_ * vq_dim_, 0.0f);
    for (int q = 0; q < n_codebook_; ++q) {
        const std::string prefix = q == 0 ? "decoder.quantizer.rvq_first.vq.layers.0._codebook."
                                          : "decoder.quantizer.rvq_rest.vq.layers." +
                                                std::to_string(q - 1) + "._codebook.";
        const auto sum = load_f32(weights, prefix + "embedding_sum", {codebook_size_, vq_dim_});
        const auto usage = load_f32(weights, prefix + "cluster_usage", {codebook_size_});
        float* table = tables_.data() + size_t(q) * codebook_size_ * vq_dim_;
        for (int k = 0; k < codebook_size_; ++k) {
            const float u = std::max(usage[size_t(k)], 1e-5f);
            for (int i = 0; i < vq_dim_; ++i)
                table[size_t(k) * vq_dim_ + i] = sum[size_t(k) * vq_dim_ + i] / u;
        }
    }
    const auto wf =
        load_f32(weights, "decoder.quantizer.rvq_first.output_proj.weight", {out_dim_, vq_dim_, 1});
    const auto wr =
        load_f32(weights, "decoder.quantizer.rvq_rest.output_proj.weight", {out_dim_, vq_dim_, 1});
    proj_first_ = backend::prepare_linear(wf.data(), out_dim_, vq_dim_, nullptr);
    proj_rest_ = backend::prepare_linear(wr.data(), out_dim_, vq_dim_, nullptr);
}

void CodecQuantizerDecoder::dequantize(const int64_t* codes, int64_t n_frames, float* out,
                                       int64_t ldo, float* scratch,
                                       const backend::ExecContext& ctx) const {
    float* z0 = scratch;                               // [n, vq_dim]
    float* zr = scratch + size_t(n_frames) * vq_dim_;  // [n, vq_dim]
    const size_t table_size = size_t(codebook_size_) * vq_dim_;
    for (int64_t t = 0; t < n_frames; ++t) {
        const int64_t* c = codes + t * n_codebook_;
        std::memcpy(z0 + t * vq_dim_, tables_.data() + size_t(c[0]) * vq_dim_,
                    sizeof(float) * size_t(vq_dim_));
        float* r = zr + t * vq_dim_;
        std::fill(r, r + vq_dim_, 0.0f);
        for (int q = 1; q < n_codebook_; ++q) {
            const float* e = tables_.data() + size_t(q) * table_size + size_t(c[q]) * vq_dim_;
            for (int i = 0; i < vq_dim_; ++i) r[i] += e[i];
        }
    }
    backend::conv1d(ctx, proj_first_, z0, vq_dim_, n_frames, out, ldo, false);
    backend::conv1d(ctx, proj_rest_, zr, vq_dim_, n_frames, out, ldo, true);
}

}  // namespace qwen3tts
