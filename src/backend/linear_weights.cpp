#include "backend/linear_weights.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "core/mapped_files.hpp"

namespace qwen3tts::backend {

LinearWeights::LinearWeights(const TensorView& w, std::optional<QuantFormat> format,
                             ThreadPool* pool)
    : view_(w) {
    if (format)
        quantized_ = std::make_shared<const QuantizedWeights>(quantize_weights(w, *format, pool));
}

LinearWeights LinearWeights::copied(const TensorView& w, ThreadPool* pool) {
    const size_t bytes = w.nbytes();
    auto copy = std::make_shared<HugeBuffer<uint8_t>>(bytes);
    const auto* src = static_cast<const uint8_t*>(w.data);
    uint8_t* dst = copy->data();
    // Pieces of one huge page, handed out as threads ask (a thread that lost its core delays
    // the copy by one piece); each piece is faulted in with one call, then read into place
    // with pread, which maps none of the file's pages into the process.
    constexpr size_t kPiece = size_t(2) << 20;
    std::atomic<size_t> next{0};
    auto body = [&](int64_t, int64_t) {
        for (size_t at; (at = next.fetch_add(kPiece)) < bytes;) {
            const size_t n = std::min(kPiece, bytes - at);
            detail::populate_for_write(dst + at, n);
            if (!mapped_files::read(src + at, n, dst + at)) std::memcpy(dst + at, src + at, n);
        }
    };
    if (pool)
        pool->parallel_for(pool->size(), 1, body);
    else
        body(0, 1);
    LinearWeights out(TensorView{w.name, w.dtype, w.shape, copy->data()});
    out.copy_ = std::move(copy);
    return out;
}

}  // namespace qwen3tts::backend
