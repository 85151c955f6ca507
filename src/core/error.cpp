#include "core/error.hpp"

namespace qwen3tts {

void fail_invariant(const char* expr, const char* file, int line) {
    throw Error(ErrorCode::internal, std::string("internal error: assertion '") + expr +
                                         "' failed at " + file + ":" + std::to_string(line));
}

}  // namespace qwen3tts
