#include "server/body_budget.hpp"

namespace qwen3tts::server {

std::shared_ptr<BodyBudget::Lease> BodyBudget::reserve(size_t bytes) {
    size_t used = in_use_.load();
    do {
        if (bytes > limit_ || used > limit_ - bytes) return nullptr;
    } while (!in_use_.compare_exchange_weak(used, used + bytes));
    return std::make_shared<Lease>(*this, bytes);
}

}  // namespace qwen3tts::server
