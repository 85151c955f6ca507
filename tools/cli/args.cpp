#include "args.hpp"

#include <cmath>
#include <iostream>
#include <iterator>

#include "qwen3tts/error.hpp"

namespace qwen3tts::cli {

Args::Args(int argc, char** argv, const std::set<std::string>& options,
           const std::set<std::string>& flags) {
    const std::string cmd = argv[0];
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a.rfind("--", 0) != 0)
            throw Error(ErrorCode::invalid_argument, cmd + ": unexpected argument '" + a + "'");
        std::string name = a.substr(2), value;
        const auto eq = name.find('=');
        const bool inline_value = eq != std::string::npos;
        if (inline_value) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        if (flags.count(name) && !inline_value) {
            flags_.insert(name);
        } else if (options.count(name)) {
            if (!inline_value) {
                if (i + 1 >= argc)
                    throw Error(ErrorCode::invalid_argument,
                                cmd + ": --" + name + " needs a value");
                value = argv[++i];
            }
            values_[name] = value;
        } else {
            std::string known;
            for (const auto& o : options) known += " --" + o;
            for (const auto& f : flags) known += " --" + f;
            throw Error(ErrorCode::invalid_argument,
                        cmd + ": unknown option '--" + name + "' (known:" + known + ")");
        }
    }
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
    const auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
}

int Args::get_int(const std::string& name, int fallback) const {
    const auto it = values_.find(name);
    if (it == values_.end()) return fallback;
    try {
        size_t used = 0;
        const long v = std::stol(it->second, &used);
        if (used == it->second.size() && v >= INT32_MIN && v <= INT32_MAX) return int(v);
    } catch (const std::exception&) {
    }
    throw Error(ErrorCode::invalid_argument,
                "--" + name + " expects an integer, got '" + it->second + "'");
}

float Args::get_float(const std::string& name, float fallback) const {
    const auto it = values_.find(name);
    if (it == values_.end()) return fallback;
    try {
        size_t used = 0;
        const float v = std::stof(it->second, &used);
        if (used == it->second.size() && std::isfinite(v)) return v;
    } catch (const std::exception&) {
    }
    throw Error(ErrorCode::invalid_argument,
                "--" + name + " expects a number, got '" + it->second + "'");
}

std::string read_text_argument(const std::string& value) {
    if (value != "-") return value;
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return text;
}

}  // namespace qwen3tts::cli
