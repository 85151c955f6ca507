// The one CPU feature detector of the backend: which SIMD level the kernels may use. Every
// kernel selector (linear, conv GEMM, SnakeBeta, ELU) asks active_isa() on each call, so one
// switch moves all of them together.
//
// Levels, each including the ones below it:
//   generic  plain C++ loops (any x86-64)
//   avx2     AVX2 + FMA + F16C (Haswell and later)
//   avx512   AVX-512 F/BW/VL/DQ on top of avx2 (Skylake-X and later)
// Detection reads cpuid and checks with xgetbv that the OS saves the wider registers.
//
// The level can be lowered, never raised above the CPU's: the environment variable
// QWEN3TTS_ISA=generic|avx2|avx512 (read once, at first use), or set_max_isa() for tests and
// benchmarks. Thread-safety: active_isa() may be called from any thread; set_max_isa() and
// reset_max_isa() must not race with running kernels.
#pragma once

#include <string>

namespace qwen3tts::cpu {

enum class Isa { generic = 0, avx2 = 1, avx512 = 2 };

// "generic", "avx2", "avx512".
const char* isa_name(Isa isa);
// Parses a level name; false when the name is unknown.
bool parse_isa(const std::string& name, Isa* isa);

// The level a QWEN3TTS_ISA value asks for on a CPU whose best level is cpu_max (null or empty:
// cpu_max). False, with the reason in *error, for an unknown name or a level above cpu_max.
bool resolve_isa_request(const char* value, Isa cpu_max, Isa* isa, std::string* error);

// The highest level this CPU (and OS) can run.
Isa detected_isa();

// Whether the CPU has AVX-512 VNNI (int8 dot products, vpdpbusd) on top of the avx512 level:
// the quantized linear kernels use it when the active level is avx512.
bool has_avx512_vnni();

// Whether the CPU has AVX-VNNI (vpdpbusd on 256-bit vectors, VEX-encoded: Alder Lake, Zen 5
// and later) and allow_avx_vnni() has not turned it off: the quantized linear kernels use it
// at the avx2 level, and at the avx512 level without AVX-512 VNNI. allow_avx_vnni(false) is
// for tests and benchmarks (the kernel without it gives the same bits); it must not race with
// running kernels.
bool has_avx_vnni();
void allow_avx_vnni(bool allowed);

// The size of one core's L1 data cache in bytes (sysconf; 32 KiB where the system does not
// say): kernels whose register tiles reuse inputs from L1 size them by it.
long l1d_bytes();

// The level the kernels use: set_max_isa()'s, else QWEN3TTS_ISA's, else detected_isa().
// Throws Error(invalid_argument) when QWEN3TTS_ISA names an unknown level or one above the
// CPU's (on every call, so no kernel silently runs at another level than asked).
Isa active_isa();

// Caps the kernels at `isa` (overriding QWEN3TTS_ISA). Returns false, changing nothing, when
// this CPU cannot run that level.
bool set_max_isa(Isa isa);
// Back to QWEN3TTS_ISA or the detected level.
void reset_max_isa();

}  // namespace qwen3tts::cpu
