// What every C API entry point shares: the handles behind the opaque C types, the exception
// barrier with its per-thread message, argument checks, malloc'ed result arrays and reading /
// writing the caller's versioned structs (struct_size).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "qwen3tts/qwen3tts.h"
#include "qwen3tts/qwen3tts.hpp"

// ---- The handles ------------------------------------------------------------------------------

// Strings of qwen3tts_model_info, owned here so the pointers handed out stay valid until
// qwen3tts_model_free.
struct CModelInfo {
    qwen3tts::ModelInfo info;
    int sample_rate = 0;
    std::vector<const char*> speakers, speaker_dialects, languages, dialects;
};

struct qwen3tts_model {
    qwen3tts::Model model;
    // Built on the first qwen3tts_model_get_info (it reads the codec's config.json); the only
    // mutable part of the handle, guarded by its once_flag.
    mutable std::once_flag info_once;
    mutable CModelInfo info;
};

struct qwen3tts_voice {
    qwen3tts::Voice voice;
};

struct qwen3tts_synthesizer {
    qwen3tts::Synthesizer synth;
    qwen3tts::Model model;
};

namespace qwen3tts::capi {

// ---- Errors -----------------------------------------------------------------------------------

// The calling thread's last error message (qwen3tts_last_error).
std::string& last_error();

// Runs f, turning every exception into an error code and the thread's message; "" on success.
// Nothing unwinds into C.
template <typename F>
int guarded(F&& f) noexcept {
    try {
        try {
            f();
            last_error().clear();
            return QWEN3TTS_OK;
        } catch (const Error& e) {
            last_error() = e.what();
            return int(e.code());
        } catch (const std::bad_alloc&) {
            last_error() = "out of memory";
        } catch (const std::exception& e) {
            last_error() = std::string("internal error: ") + e.what();
        } catch (...) {
            last_error() = "internal error: unknown exception";
        }
    } catch (...) {  // the message itself could not be stored
    }
    return QWEN3TTS_ERR_INTERNAL;
}

// An Error(invalid_argument) "<function>: <what> is NULL" when p (any pointer, callbacks
// included) is NULL.
template <typename P>
void require(P p, const char* function, const char* what) {
    if (p == nullptr)
        throw Error(ErrorCode::invalid_argument, std::string(function) + ": " + what + " is NULL");
}

// a * b, or an Error(invalid_argument) naming `what` when the product overflows.
inline size_t checked_product(size_t a, size_t b, const char* what) {
    size_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        throw Error(ErrorCode::invalid_argument, std::string(what) + ": " + std::to_string(a) +
                                                     " x " + std::to_string(b) + " overflows");
    return r;
}

// A malloc'ed copy of v (never NULL, even when empty), for the caller to qwen3tts_free.
template <typename T>
T* malloc_copy(const std::vector<T>& v) {
    const size_t bytes = checked_product(v.size(), sizeof(T), "result array");
    void* p = std::malloc(bytes > 0 ? bytes : 1);
    if (!p) throw std::bad_alloc();
    if (bytes > 0) std::memcpy(p, v.data(), bytes);
    return static_cast<T*>(p);
}

// ---- Versioned structs ------------------------------------------------------------------------
//
// A caller's struct may be shorter than ours (built against an older header) or longer (a newer
// one). Only the fields lying wholly within its struct_size are read or written; the others keep
// our defaults. When adding a field: append it, and make sure it does not start inside the
// trailing padding of the previous layout (an older caller's sizeof would then cover it).

template <typename S, typename F>
size_t field_end(F S::*field) {
    static const S probe{};
    const auto* base = reinterpret_cast<const char*>(&probe);
    return size_t(reinterpret_cast<const char*>(&(probe.*field)) - base) + sizeof(F);
}

// Copies each listed field from `from` to `to` (raw struct memory) when it ends within `size`.
template <typename S, typename... F>
void copy_fields(const void* from, void* to, size_t size, F S::*... fields) {
    auto copy_one = [&](size_t end, size_t bytes) {
        if (end <= size)
            std::memcpy(static_cast<char*>(to) + end - bytes,
                        static_cast<const char*>(from) + end - bytes, bytes);
    };
    (copy_one(field_end(fields), sizeof(F)), ...);
}

// The caller's struct_size, refusing 0 (a struct nobody initialised).
inline size_t struct_size_of(const void* s, const char* type, const char* how) {
    size_t size = 0;
    std::memcpy(&size, s, sizeof size);
    if (size == 0)
        throw Error(ErrorCode::invalid_argument,
                    std::string(type) + ": struct_size not set (" + how + ")");
    return size;
}

// *_init: zeroes the caller's struct_size bytes and writes struct_size and `defaults`' fields
// that fit. Sizes too small to hold struct_size are ignored.
template <typename S, typename Transfer>
void init_struct(S* out, size_t struct_size, const S& defaults, Transfer transfer) {
    if (!out || struct_size < sizeof(size_t)) return;
    std::memset(static_cast<void*>(out), 0, struct_size);
    std::memcpy(static_cast<void*>(out), &struct_size, sizeof struct_size);
    transfer(&defaults, out, struct_size);
}

}  // namespace qwen3tts::capi
