#include "core/rng.hpp"

#include <random>

#include "core/error.hpp"

namespace qwen3tts {

namespace {

uint64_t rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

}  // namespace

uint64_t splitmix64_next(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void Rng::reseed(uint64_t seed) {
    for (auto& word : s_) word = splitmix64_next(seed);
    // SplitMix64 is a bijection of a counter, so four consecutive outputs are never all zero.
    QWEN3TTS_ASSERT((s_[0] | s_[1] | s_[2] | s_[3]) != 0);
}

uint64_t random_seed() {
    std::random_device device;
    return (uint64_t(device()) << 32) ^ uint64_t(device());
}

void Rng::set_state(const std::array<uint64_t, 4>& s) {
    if ((s[0] | s[1] | s[2] | s[3]) == 0)
        throw Error(ErrorCode::invalid_argument, "xoshiro256** state must not be all zero");
    s_ = s;
}

uint64_t Rng::next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
}

}  // namespace qwen3tts
