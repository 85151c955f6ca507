// KV cache reservation: a cache that does not fit is an Error at the request's start naming the
// bytes and the cache, never a crash or a kill in the middle of the stream.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <fstream>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "nn/kv_cache.hpp"
#include "qwen3tts/qwen3tts.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

// Current address-space size of this process, from /proc/self/statm (pages).
rlim_t address_space_bytes() {
    std::ifstream in("/proc/self/statm");
    unsigned long long pages = 0;
    in >> pages;
    return rlim_t(pages) * rlim_t(::sysconf(_SC_PAGESIZE));
}

// Lowers the soft RLIMIT_AS to the current size + headroom for its lifetime.
class AddressSpaceLimit {
  public:
    explicit AddressSpaceLimit(rlim_t headroom) {
        ::getrlimit(RLIMIT_AS, &saved_);
        rlimit lim = saved_;
        lim.rlim_cur = address_space_bytes() + headroom;
        ok_ = ::setrlimit(RLIMIT_AS, &lim) == 0;
    }
    ~AddressSpaceLimit() { ::setrlimit(RLIMIT_AS, &saved_); }
    bool ok() const { return ok_; }

  private:
    rlimit saved_{};
    bool ok_ = false;
};

TEST(KvCache, ReservesAndWritesAllPositions) {
    KvCache c(3, 10, 8);
    for (int64_t l = 0; l < 3; ++l)
        for (int64_t i = 0; i < 80; ++i) c.keys(l)[i] = c.values(l)[i] = float(l * 100 + i);
    EXPECT_EQ(c.keys(2)[79], 279.0f);
    EXPECT_EQ(c.values(1)[0], 100.0f);
    EXPECT_EQ(c.capacity(), 10);
}

// A moved-from cache is an empty one: a memory pool given it keeps nothing (a pool that kept
// its size would hand out a cache without memory).
TEST(KvCache, AMovedFromCacheIsEmpty) {
    KvCache a(3, 10, 8);
    a.set_length(4);
    KvCache b(std::move(a));
    EXPECT_EQ(b.capacity(), 10);
    EXPECT_EQ(b.length(), 4);
    EXPECT_EQ(a.capacity(), 0);  // NOLINT(bugprone-use-after-move): what is tested
    EXPECT_EQ(a.n_layer(), 0);
    EXPECT_EQ(a.kv_dim(), 0);
    EXPECT_EQ(a.length(), 0);
}

// Positions are made resident ahead of their writes, 16 beyond what is asked, in every
// layer's keys and values, and again after the pages were given back.
TEST(KvCache, MakesThePagesOfComingPositionsResident) {
    const int64_t layers = 3, capacity = 100, kv_dim = 1024;  // a position is one 4 KiB page
    KvCache c(layers, capacity, kv_dim);
    auto resident = [&](float* at) {
        unsigned char r = 0;
        EXPECT_EQ(mincore(at, 4096, &r), 0);
        return (r & 1) != 0;
    };
    auto check = [&](int64_t up_to) {  // positions < up_to resident, the rest not
        for (int64_t l = 0; l < layers; ++l)
            for (int64_t p = 0; p < capacity; ++p) {
                ASSERT_EQ(resident(c.keys(l) + p * kv_dim), p < up_to) << l << " " << p;
                ASSERT_EQ(resident(c.values(l) + p * kv_dim), p < up_to) << l << " " << p;
            }
    };
    void* probe = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(probe, MAP_FAILED);
    const bool populates = madvise(probe, 4096, MADV_POPULATE_WRITE) == 0;
    munmap(probe, 4096);
    if (!populates) GTEST_SKIP() << "this kernel has no MADV_POPULATE_WRITE";
    check(0);
    c.make_resident(3);
    check(3 + 16);
    c.make_resident(19);  // already resident: nothing more
    check(19);
    c.make_resident(20);
    check(36);
    c.make_resident(95);
    check(capacity);
    c.release_pages_from(10);
    check(10);
    c.make_resident(12);
    check(28);
}

TEST(KvCache, CacheThatCannotBeReservedIsAnErrorNamingItsSize) {
    AddressSpaceLimit limit(64u << 20);
    ASSERT_TRUE(limit.ok());
    try {
        KvCache c(4, 65536, 1024);  // 2 GiB of keys and values
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "cannot reserve 2147483648 bytes (2048 MiB) for a KV cache of 4 layers x 65536 "
                  "positions x 1024 floats, keys and values: Cannot allocate memory");
    }
}

TEST(KvCache, OverflowingSizeIsAnError) {
    const int64_t big = std::numeric_limits<int64_t>::max() / 2;
    EXPECT_THROW(KvCache(big, big, 1024), Error);
}

TEST(KvCache, RequestWhoseCacheDoesNotFitFailsAtItsStart) {
    const Model model = Model::load(testing::model_dir("tiny-custom_voice"));
    Synthesizer synth(model, EngineOptions{1});
    SynthesisOptions o = model.default_options();
    o.speaker = "Ryan";
    o.max_frames = 30000;  // 2 layers x 30k positions x 64 floats x 2 = 31 MB of cache
    std::string message;
    {
        AddressSpaceLimit limit(12u << 20);
        ASSERT_TRUE(limit.ok());
        try {
            synth.generate_codes("Hello.", o);
        } catch (const Error& e) {
            message = e.what();
        }
    }
    EXPECT_NE(message.find("talker: cannot reserve "), std::string::npos) << message;
    EXPECT_NE(message.find("for a KV cache of 2 layers x "), std::string::npos) << message;
    EXPECT_NE(message.find("+ at most 30001 generated)"), std::string::npos) << message;
    // The Synthesizer is still usable for a request that fits.
    o.max_frames = 5;
    const auto codes = synth.generate_codes("Hello.", o);
    EXPECT_GT(codes.size(), 0u);
    EXPECT_LE(codes.size(), 5u * 16u);
}

TEST(KvCache, MaxFramesAtIntMaxIsBoundedByTheContext) {
    const Model model = Model::load(testing::model_dir("tiny-custom_voice"));
    Synthesizer synth(model, EngineOptions{1});
    SynthesisOptions o = model.default_options();
    o.speaker = "Ryan";
    o.max_frames = std::numeric_limits<int>::max();
    int frames = 0;
    const auto codes =
        synth.generate_codes("Hello.", o, [&](const int32_t*) { return ++frames < 3; });
    EXPECT_EQ(codes.size(), 3u * 16u);
}

}  // namespace
}  // namespace qwen3tts
