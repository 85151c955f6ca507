// A random generator whose every output is defined by this file, so the same seed gives the
// same tokens with any compiler and standard library (std::uniform_real_distribution and
// std::discrete_distribution are implementation-defined; only the raw engines are not).
// xoshiro256** 1.0 (Blackman & Vigna, https://prng.di.unimi.it/xoshiro256starstar.c), its
// state filled from the seed by SplitMix64 (https://prng.di.unimi.it/splitmix64.c), as the
// authors recommend. Not thread-safe; one per Session.
#pragma once

#include <array>
#include <cstdint>

namespace qwen3tts {

// One SplitMix64 step: advances `state` by the golden-ratio increment and returns its mix.
uint64_t splitmix64_next(uint64_t& state);

// A seed from the OS entropy source (std::random_device), for runs that do not set one.
uint64_t random_seed();

class Rng {
  public:
    explicit Rng(uint64_t seed = 0) { reseed(seed); }

    // State = the first four SplitMix64 outputs for `seed` (never all zero).
    void reseed(uint64_t seed);
    // Sets the raw xoshiro256** state (test vectors); must not be all zero.
    void set_state(const std::array<uint64_t, 4>& s);

    uint64_t next();
    // Uniform in [0, 1): the top 53 bits of next() times 2^-53, so every value is exact.
    double uniform() { return double(next() >> 11) * 0x1.0p-53; }

  private:
    std::array<uint64_t, 4> s_{};
};

}  // namespace qwen3tts
