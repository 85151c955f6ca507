#include "backend/cpu/cpu_features.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>

#include "core/error.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace qwen3tts::cpu {

namespace {

#if defined(__x86_64__) || defined(__i386__)

struct Regs {
    unsigned a = 0, b = 0, c = 0, d = 0;
};

Regs cpuid(unsigned leaf, unsigned sub) {
    Regs r;
    if (!__get_cpuid_count(leaf, sub, &r.a, &r.b, &r.c, &r.d)) return Regs{};
    return r;
}

// XCR0: which register states the OS saves on a context switch. xgetbv as raw asm, since the
// intrinsic needs the xsave target and this file is compiled for baseline x86-64.
uint64_t xcr0() {
    unsigned lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t(hi) << 32) | lo;
}

bool bit(unsigned reg, int i) {
    return (reg >> i) & 1u;
}

Isa detect() {
    const Regs l1 = cpuid(1, 0);
    const bool osxsave = bit(l1.c, 27);
    const bool avx = bit(l1.c, 28), fma = bit(l1.c, 12), f16c = bit(l1.c, 29);
    if (!osxsave || !avx) return Isa::generic;
    const uint64_t xcr = xcr0();
    if ((xcr & 0x6) != 0x6) return Isa::generic;  // XMM and YMM state
    const Regs l7 = cpuid(7, 0);
    const bool avx2 = bit(l7.b, 5);
    if (!(avx2 && fma && f16c)) return Isa::generic;
    const bool avx512 = bit(l7.b, 16) /* F */ && bit(l7.b, 17) /* DQ */ && bit(l7.b, 30) /* BW */ &&
                        bit(l7.b, 31) /* VL */;
    if (avx512 && (xcr & 0xe0) == 0xe0) return Isa::avx512;  // opmask and ZMM state
    return Isa::avx2;
}

bool detect_avx512_vnni() {
    return detect() == Isa::avx512 && bit(cpuid(7, 0).c, 11);
}

bool detect_avx_vnni() {
    return detect() >= Isa::avx2 && bit(cpuid(7, 1).a, 4);
}

#else

Isa detect() {
    return Isa::generic;
}

bool detect_avx512_vnni() {
    return false;
}

bool detect_avx_vnni() {
    return false;
}

#endif

// QWEN3TTS_ISA resolved once: the level, or why it cannot be used.
struct EnvLimit {
    Isa isa = Isa::generic;
    std::string error;
};

EnvLimit read_env() {
    EnvLimit l;
    resolve_isa_request(std::getenv("QWEN3TTS_ISA"), detected_isa(), &l.isa, &l.error);
    return l;
}

const EnvLimit& env_limit() {
    static const EnvLimit l = read_env();
    return l;
}

// -1: no set_max_isa() in force.
std::atomic<int> g_forced{-1};
std::atomic<bool> g_avx_vnni_allowed{true};

}  // namespace

const char* isa_name(Isa isa) {
    switch (isa) {
        case Isa::avx512:
            return "avx512";
        case Isa::avx2:
            return "avx2";
        case Isa::generic:
            break;
    }
    return "generic";
}

bool parse_isa(const std::string& name, Isa* isa) {
    for (Isa i : {Isa::generic, Isa::avx2, Isa::avx512})
        if (name == isa_name(i)) {
            *isa = i;
            return true;
        }
    return false;
}

bool resolve_isa_request(const char* value, Isa cpu_max, Isa* isa, std::string* error) {
    *isa = cpu_max;
    if (!value || !*value) return true;
    Isa want;
    if (!parse_isa(value, &want)) {
        *error = std::string("QWEN3TTS_ISA=") + value +
                 " is not a known level (use generic, avx2 or avx512)";
        return false;
    }
    if (int(want) > int(cpu_max)) {
        *error = std::string("QWEN3TTS_ISA=") + value + " but this CPU supports at most " +
                 isa_name(cpu_max);
        return false;
    }
    *isa = want;
    return true;
}

Isa detected_isa() {
    static const Isa isa = detect();
    return isa;
}

bool has_avx512_vnni() {
    static const bool vnni = detect_avx512_vnni();
    return vnni;
}

bool has_avx_vnni() {
    static const bool vnni = detect_avx_vnni();
    return vnni && g_avx_vnni_allowed.load(std::memory_order_relaxed);
}

void allow_avx_vnni(bool allowed) {
    g_avx_vnni_allowed.store(allowed, std::memory_order_relaxed);
}

long l1d_bytes() {
    static const long bytes = [] {
        const long b = sysconf(_SC_LEVEL1_DCACHE_SIZE);
        return b > 0 ? b : 32768L;
    }();
    return bytes;
}

Isa active_isa() {
    const int forced = g_forced.load(std::memory_order_relaxed);
    if (forced >= 0) return Isa(forced);
    const EnvLimit& l = env_limit();
    if (!l.error.empty()) throw Error(ErrorCode::invalid_argument, l.error);
    return l.isa;
}

bool set_max_isa(Isa isa) {
    if (int(isa) > int(detected_isa())) return false;
    g_forced.store(int(isa), std::memory_order_relaxed);
    return true;
}

void reset_max_isa() {
    g_forced.store(-1, std::memory_order_relaxed);
}

}  // namespace qwen3tts::cpu
