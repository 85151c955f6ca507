#include "args.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <stdexcept>

#include "qwen3tts/error.hpp"

namespace qwen3tts::cli {

namespace {

Error usage_error(const CommandSpec& cmd, const std::string& what) {
    return Error(ErrorCode::invalid_argument, what + " (see `qwen3tts " + cmd.name + " --help`)");
}

size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
            diag = up;
        }
    }
    return row[b.size()];
}

std::string suggestion(const CommandSpec& cmd, const std::string& name) {
    std::string best;
    size_t best_d = 3;  // only close misspellings
    for (const OptionSpec* o : cmd.options) {
        const size_t d = edit_distance(name, o->name);
        if (d < best_d) best_d = d, best = o->name;
    }
    return best.empty() ? "" : "; did you mean --" + best + "?";
}

bool parse_switch_value(const std::string& name, const std::string& v) {
    if (v == "true" || v == "yes" || v == "1" || v == "on") return true;
    if (v == "false" || v == "no" || v == "0" || v == "off") return false;
    throw Error(ErrorCode::invalid_argument, "--" + name + " is a switch: give it alone, or as --" +
                                                 name + "=true or --" + name + "=false, not '" + v +
                                                 "'");
}

bool is_text_option(const std::string& name) {
    return name == "text" || name == "ref-text" || name == "instruct";
}

}  // namespace

Args::Args(const CommandSpec& command, int argc, char** argv) : command_(&command) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const OptionSpec* o = nullptr;
        std::string value;
        bool inline_value = false;
        if (a.size() > 2 && a.compare(0, 2, "--") == 0) {
            std::string name = a.substr(2);
            const auto eq = name.find('=');
            if (eq != std::string::npos) {
                value = name.substr(eq + 1);
                name = name.substr(0, eq);
                inline_value = true;
            }
            if (name == kHelp.name) {
                help_ = true;
                return;
            }
            for (const OptionSpec* c : command.options)
                if (c->name == name) o = c;
            if (!o)
                throw usage_error(command,
                                  "unknown option '--" + name + "'" + suggestion(command, name));
        } else if (a.size() == 2 && a[0] == '-' && a[1] != '-') {
            if (a[1] == kHelp.short_name) {
                help_ = true;
                return;
            }
            for (const OptionSpec* c : command.options)
                if (c->short_name == a[1]) o = c;
            if (!o) throw usage_error(command, "unknown option '" + a + "'");
        } else if (!command.positional.empty() && positional_.empty() && a[0] != '-') {
            positional_ = a;
            continue;
        } else {
            throw usage_error(command, "unexpected argument '" + a + "'; options start with --");
        }

        if (o->is_switch()) {
            if (!inline_value || parse_switch_value(o->name, value))
                flags_.insert(o->name);
            else
                flags_.erase(o->name);
            continue;
        }
        if (!inline_value) {
            if (i + 1 >= argc)
                throw usage_error(command, "--" + o->name + " needs a value (" + o->value + ")");
            value = argv[++i];
        }
        auto& slot = values_[o->name];
        if (!slot.empty() && !o->repeatable)
            throw Error(ErrorCode::invalid_argument, "--" + o->name + " is given twice ('" +
                                                         slot.front() + "' and '" + value +
                                                         "'); give it once");
        slot.push_back(value);
    }
    if (command.positional_required && positional_.empty())
        throw usage_error(command, "missing " + command.positional);
    for (const OptionSpec* o : command.options)
        if (o->required() && !has(o->name) &&
            !(o->required_unless && declares(o->required_unless) && has(o->required_unless)))
            throw usage_error(command, "--" + o->name + " " + o->value + " is required");
}

const OptionSpec& Args::spec(const std::string& name) const {
    for (const OptionSpec* o : command_->options)
        if (o->name == name) return *o;
    // A programming error in a cmd_*.cpp: the option is missing from its table.
    throw std::logic_error("option --" + name + " is not declared for " + command_->name);
}

bool Args::declares(const std::string& name) const {
    for (const OptionSpec* o : command_->options)
        if (o->name == name) return true;
    return false;
}

bool Args::has(const std::string& name) const {
    spec(name);
    return values_.count(name) || flags_.count(name);
}

bool Args::flag(const std::string& name) const {
    spec(name);
    return flags_.count(name) != 0;
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
    spec(name);
    const auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second.front();
}

std::vector<std::string> Args::get_all(const std::string& name) const {
    spec(name);
    const auto it = values_.find(name);
    return it == values_.end() ? std::vector<std::string>{} : it->second;
}

int Args::get_int(const std::string& name, int fallback, int min) const {
    if (!has(name)) return fallback;
    const std::string s = get(name);
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno == ERANGE || v < INT32_MIN || v > INT32_MAX)
        throw Error(ErrorCode::invalid_argument,
                    "--" + name + " expects an integer, got '" + s + "'");
    if (v < min)
        throw Error(ErrorCode::invalid_argument,
                    "--" + name + " must be >= " + std::to_string(min) + ", got '" + s + "'");
    return int(v);
}

float Args::get_float(const std::string& name, float fallback, Range range) const {
    if (!has(name)) return fallback;
    const std::string s = get(name);
    char* end = nullptr;
    const float v = std::strtof(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !std::isfinite(v))
        throw Error(ErrorCode::invalid_argument,
                    "--" + name + " expects a number, got '" + s + "'");
    if (range == Range::positive && !(v > 0))
        throw Error(ErrorCode::invalid_argument, "--" + name + " must be > 0, got '" + s + "'");
    if (range == Range::probability && !(v > 0 && v <= 1))
        throw Error(ErrorCode::invalid_argument,
                    "--" + name + " must be in (0, 1], got '" + s + "'");
    return v;
}

uint64_t Args::get_u64(const std::string& name) const {
    const std::string s = get(name);
    const bool digits =
        !s.empty() && s.find_first_not_of("0123456789") == std::string::npos && s.size() <= 20;
    errno = 0;
    const unsigned long long v = digits ? std::strtoull(s.c_str(), nullptr, 10) : 0;
    if (!digits || errno == ERANGE)
        throw Error(
            ErrorCode::invalid_argument,
            "--" + name + " expects an integer in 0 ... 18446744073709551615, got '" + s + "'");
    return uint64_t(v);
}

size_t invalid_utf8_offset(const std::string& s) {
    const size_t n = s.size();
    for (size_t i = 0; i < n;) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        size_t len;
        uint32_t cp, min;
        if ((c & 0xE0) == 0xC0)
            len = 2, cp = c & 0x1F, min = 0x80;
        else if ((c & 0xF0) == 0xE0)
            len = 3, cp = c & 0x0F, min = 0x800;
        else if ((c & 0xF8) == 0xF0)
            len = 4, cp = c & 0x07, min = 0x10000;
        else
            return i;
        if (len > n - i) return i;
        for (size_t k = 1; k < len; ++k) {
            const auto b = static_cast<unsigned char>(s[i + k]);
            if ((b & 0xC0) != 0x80) return i;
            cp = (cp << 6) | (b & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
        i += len;
    }
    return std::string::npos;
}

std::string read_text_option(const Args& args, const std::string& name) {
    std::string text = args.get(name);
    const bool from_stdin = text == "-";
    if (from_stdin) {
        // Standard input can be read once: two options asking for it is a mistake to report.
        for (const OptionSpec* o : args.command().options)
            if (o->name != name && is_text_option(o->name) && args.get(o->name) == "-")
                throw Error(ErrorCode::invalid_argument,
                            "--" + name + " - and --" + o->name +
                                " - both ask for standard input; give one of them as text");
        text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
        while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    }
    const size_t bad = invalid_utf8_offset(text);
    if (bad != std::string::npos) {
        static const char* hex = "0123456789abcdef";
        const auto b = static_cast<unsigned char>(text[bad]);
        throw Error(ErrorCode::invalid_argument,
                    "--" + name + (from_stdin ? " (standard input)" : "") +
                        ": invalid UTF-8 at byte offset " + std::to_string(bad) + " (byte 0x" +
                        hex[b >> 4] + hex[b & 15] + ")");
    }
    return text;
}

}  // namespace qwen3tts::cli
