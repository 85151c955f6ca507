#include "nn/mimi_seanet.hpp"

#include <algorithm>
#include <cstring>

#include "core/error.hpp"

namespace qwen3tts {

int64_t MimiSeanetShape::hop() const {
    int64_t p = 1;
    for (int s : strides) p *= s;
    return p;
}

void MimiSeanetEncoder::load(const WeightMap& weights, const std::string& prefix,
                             const MimiSeanetShape& shape) {
    s_ = shape;
    int idx = 0;
    auto name = [&](int i) { return prefix + ".layers." + std::to_string(i); };
    first_.load(weights, name(idx++) + ".conv", 1, s_.n_filters, s_.kernel);
    int dim = s_.n_filters;
    stages_.clear();
    for (int stride : s_.strides) {
        Stage st;
        st.dim = dim;
        const int hid = dim / s_.compress;
        int dilation = 1;
        for (int j = 0; j < s_.n_residual_layers; ++j) {
            ResUnit u;
            u.conv_a.load(weights, name(idx) + ".block.1.conv", dim, hid, s_.residual_kernel,
                          dilation);
            u.conv_b.load(weights, name(idx) + ".block.3.conv", hid, dim, 1);
            st.res.push_back(std::move(u));
            ++idx;
            dilation *= s_.dilation_growth;
        }
        ++idx;  // ELU
        st.down.load(weights, name(idx++) + ".conv", dim, 2 * dim, 2 * stride, stride, true);
        stages_.push_back(std::move(st));
        dim *= 2;
    }
    ++idx;  // ELU
    last_.load(weights, name(idx) + ".conv", dim, s_.hidden, s_.last_kernel);
}

int64_t MimiSeanetEncoder::out_frames(int64_t n_samples) const {
    const int64_t hop = s_.hop();
    return (n_samples + hop - 1) / hop;
}

double MimiSeanetEncoder::flops(int64_t n_samples) const {
    double f = first_.flops(n_samples);
    int64_t rows = n_samples;
    for (const Stage& st : stages_) {
        for (const ResUnit& u : st.res) f += u.conv_a.flops(rows) + u.conv_b.flops(rows);
        rows = (rows + st.down.stride() - 1) / st.down.stride();
        f += st.down.flops(rows);
    }
    return f + last_.flops(rows);
}

std::vector<float> MimiSeanetEncoder::forward(const float* audio, int64_t n,
                                              const backend::ExecContext& ctx,
                                              int64_t chunk_samples) const {
    QWEN3TTS_ASSERT(n > 0);
    const int64_t hop = s_.hop();
    const int64_t chunk = std::max<int64_t>(1, (chunk_samples + hop - 1) / hop) * hop;
    const size_t n_stage = stages_.size();

    // Per stage: residual stream h, conv input `act` (history rows in front), block hidden b.
    struct Buffers {
        std::vector<float> h, act, b;
        int64_t act_hist = 0;  // history rows in front of act's current rows
        std::vector<std::vector<float>> state_a;
        std::vector<float> state_down;
    };
    std::vector<Buffers> buf(n_stage);
    int64_t rows_max = chunk;
    for (size_t i = 0; i < n_stage; ++i) {
        const Stage& st = stages_[i];
        Buffers& b = buf[i];
        int64_t hist = st.down.history();
        for (const ResUnit& u : st.res) hist = std::max(hist, u.conv_a.history());
        b.act_hist = hist;
        b.h.assign(size_t(rows_max) * st.dim, 0.0f);
        b.act.assign(size_t(hist + rows_max) * st.dim, 0.0f);
        b.b.assign(size_t(rows_max) * size_t(st.dim / s_.compress), 0.0f);
        for (const ResUnit& u : st.res) b.state_a.emplace_back(u.conv_a.state_floats(), 0.0f);
        b.state_down.assign(st.down.state_floats(), 0.0f);
        rows_max /= st.down.stride();
    }
    const int last_dim = last_.c_in();
    std::vector<float> h_last(size_t(rows_max) * last_dim);
    std::vector<float> act_last(size_t(last_.history() + rows_max) * last_dim);
    std::vector<float> state_last(last_.state_floats(), 0.0f);
    std::vector<float> in(size_t(first_.history() + chunk));
    std::vector<float> state_first(first_.state_floats(), 0.0f);
    float no_state = 0.0f;  // k = 1 convs carry nothing

    std::vector<float> out(size_t(out_frames(n)) * s_.hidden);
    int64_t frame = 0;
    for (int64_t start = 0; start < n; start += chunk) {
        int64_t rows = std::min(chunk, n - start);
        float* x0 = in.data() + first_.history();
        std::memcpy(x0, audio + start, sizeof(float) * size_t(rows));
        float* h = n_stage ? buf[0].h.data() : h_last.data();
        first_.forward(x0, 1, rows, state_first.data(), h, first_.c_out(), false, ctx);
        for (size_t i = 0; i < n_stage; ++i) {
            const Stage& st = stages_[i];
            Buffers& b = buf[i];
            const int d = st.dim, hid = d / s_.compress;
            float* act = b.act.data() + b.act_hist * d;
            for (size_t j = 0; j < st.res.size(); ++j) {
                backend::elu(ctx, h, rows * d, act);
                st.res[j].conv_a.forward(act, d, rows, b.state_a[j].data(), b.b.data(), hid, false,
                                         ctx);
                backend::elu(ctx, b.b.data(), rows * hid, b.b.data());
                // y = h + conv_b(...): the identity skip, accumulated in place.
                st.res[j].conv_b.forward(b.b.data(), hid, rows, &no_state, h, d, true, ctx);
            }
            backend::elu(ctx, h, rows * d, act);
            // Right zero padding to the stride grid (only the stream's last chunk is short).
            const int s = st.down.stride();
            const int64_t rows_p = (rows + s - 1) / s * s;
            std::fill(act + rows * d, act + rows_p * d, 0.0f);
            float* next = i + 1 < n_stage ? buf[i + 1].h.data() : h_last.data();
            st.down.forward(act, rows_p, b.state_down.data(), next, 2 * d, ctx);
            rows = rows_p / s;
            h = next;
        }
        float* act = act_last.data() + last_.history() * last_dim;
        backend::elu(ctx, h, rows * last_dim, act);
        last_.forward(act, last_dim, rows, state_last.data(), out.data() + frame * s_.hidden,
                      s_.hidden, false, ctx);
        frame += rows;
    }
    QWEN3TTS_ASSERT(frame == out_frames(n));
    return out;
}

}  // namespace qwen3tts
