#include "text/pretokenizer.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "core/error.hpp"
#include "text/tokenizer.hpp"

namespace qwen3tts {

namespace {

// ref: transformers/models/qwen2/tokenization_qwen2.py PRETOKENIZE_REGEX
const char* const kQwen2Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// ref: transformers 4.57.3 tokenization_utils_base.py, _patch_mistral_regex (the Split that
// replaces the first pre-tokenizer when fix_mistral_regex=True takes effect).
const char* const kMistralFixedPattern =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

std::string pcre2_message(int code) {
    PCRE2_UCHAR buf[256];
    pcre2_get_error_message(code, buf, sizeof(buf));
    return std::string(reinterpret_cast<const char*>(buf));
}

// Per-call match state: match data for one pair of offsets, and a JIT stack large enough for
// long runs of one class (the default 32 kB machine stack is not guaranteed to be).
struct MatchState {
    pcre2_match_data* data = nullptr;
    pcre2_match_context* context = nullptr;
    pcre2_jit_stack* jit_stack = nullptr;

    // `code` null: match data for one pair of offsets, usable with either pattern (neither has
    // a capture group).
    explicit MatchState(const pcre2_code* code, bool jit) {
        data = code ? pcre2_match_data_create_from_pattern(code, nullptr)
                    : pcre2_match_data_create(1, nullptr);
        context = pcre2_match_context_create(nullptr);
        if (jit) {
            jit_stack = pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr);
            if (jit_stack) pcre2_jit_stack_assign(context, nullptr, jit_stack);
        }
        if (!data || !context) {
            release();
            throw Error(ErrorCode::internal, "pre-tokenizer: PCRE2 out of memory");
        }
    }
    ~MatchState() { release(); }
    MatchState(const MatchState&) = delete;
    MatchState& operator=(const MatchState&) = delete;

    void release() {
        if (jit_stack) pcre2_jit_stack_free(jit_stack);
        if (context) pcre2_match_context_free(context);
        if (data) pcre2_match_data_free(data);
        jit_stack = nullptr;
        context = nullptr;
        data = nullptr;
    }
};

}  // namespace

const char* pretokenizer_pattern(PretokenizerRegex regex) {
    return regex == PretokenizerRegex::qwen2 ? kQwen2Pattern : kMistralFixedPattern;
}

struct Pretokenizer::Compiled {
    pcre2_code* code = nullptr;
    bool jit = false;
    ~Compiled() {
        if (code) pcre2_code_free(code);
    }
};

Pretokenizer::Pretokenizer(PretokenizerRegex regex) : compiled_(std::make_unique<Compiled>()) {
    const char* pattern = pretokenizer_pattern(regex);
    int error_code = 0;
    PCRE2_SIZE error_offset = 0;
    compiled_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern), PCRE2_ZERO_TERMINATED,
                                    PCRE2_UTF | PCRE2_UCP, &error_code, &error_offset, nullptr);
    if (!compiled_->code) {
        throw Error(ErrorCode::internal, "pre-tokenizer: PCRE2 cannot compile the pattern at " +
                                             std::to_string(error_offset) + ": " +
                                             pcre2_message(error_code));
    }
    // JIT is an optimisation only: without it (unsupported CPU or build) the interpreter runs,
    // for either mode on its own (pcre2_match picks the JIT code only if compiled for the mode).
    compiled_->jit =
        pcre2_jit_compile(compiled_->code, PCRE2_JIT_COMPLETE | PCRE2_JIT_PARTIAL_HARD) == 0;
}

Pretokenizer::~Pretokenizer() = default;

void Pretokenizer::split(std::string_view text, std::vector<std::string_view>* pieces) const {
    if (text.empty()) return;
    MatchState state(compiled_->code, compiled_->jit);
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    const PCRE2_SIZE length = text.size();
    PCRE2_SIZE offset = 0;   // where the next search starts
    PCRE2_SIZE emitted = 0;  // end of the last piece appended
    while (offset < length) {
        // The caller validated the UTF-8 once; checking it again per match would be O(n^2).
        const int rc = pcre2_match(compiled_->code, subject, length, offset, PCRE2_NO_UTF_CHECK,
                                   state.data, state.context);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) {
            throw Error(ErrorCode::internal, "pre-tokenizer: PCRE2 match failed at byte " +
                                                 std::to_string(offset) + ": " + pcre2_message(rc));
        }
        const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(state.data);
        const PCRE2_SIZE start = ov[0];
        const PCRE2_SIZE end = ov[1];
        if (start > emitted) pieces->push_back(text.substr(emitted, start - emitted));
        if (end > start) {
            pieces->push_back(text.substr(start, end - start));
            emitted = end;
            offset = end;
        } else {
            // An empty match (none of the patterns has one, but stay safe): step over one
            // whole UTF-8 character and let the gap logic keep it.
            emitted = start;
            offset = start + 1;
            while (offset < length && (static_cast<unsigned char>(text[offset]) & 0xC0) == 0x80) {
                ++offset;
            }
        }
    }
    if (emitted < length) pieces->push_back(text.substr(emitted));
}

size_t Pretokenizer::split_complete(std::string_view text,
                                    std::vector<std::string_view>* pieces) const {
    if (text.empty()) return 0;
    // Called once per push of streaming text: reuse the state (creating the JIT stack maps and
    // unmaps memory, which costs more than matching a few pieces).
    thread_local MatchState state(nullptr, /*jit=*/true);
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    const PCRE2_SIZE length = text.size();
    PCRE2_SIZE emitted = 0;
    while (emitted < length) {
        const int rc =
            pcre2_match(compiled_->code, subject, length, emitted,
                        PCRE2_NO_UTF_CHECK | PCRE2_PARTIAL_HARD, state.data, state.context);
        // No match from here: where the gap after `emitted` ends depends on later text.
        if (rc == PCRE2_ERROR_NOMATCH || rc == PCRE2_ERROR_PARTIAL) break;
        if (rc < 0) {
            throw Error(ErrorCode::internal, "pre-tokenizer: PCRE2 match failed at byte " +
                                                 std::to_string(emitted) + ": " +
                                                 pcre2_message(rc));
        }
        const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(state.data);
        // An empty match: split() steps over a character there; leave that to it.
        if (ov[1] == ov[0]) break;
        if (ov[0] > emitted) pieces->push_back(text.substr(emitted, ov[0] - emitted));
        pieces->push_back(text.substr(ov[0], ov[1] - ov[0]));
        emitted = ov[1];
    }
    return emitted;
}

}  // namespace qwen3tts
