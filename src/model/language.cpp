#include "model/language.hpp"

#include <algorithm>
#include <utility>

#include "core/error.hpp"
#include "core/strings.hpp"

namespace qwen3tts {

namespace {

// The languages of the released checkpoints' codec_language_id (config.json).
const std::pair<const char*, const char*> kCodes[] = {
    {"chinese", "zh"}, {"english", "en"}, {"japanese", "ja"}, {"korean", "ko"},
    {"german", "de"},  {"french", "fr"},  {"russian", "ru"},  {"portuguese", "pt"},
    {"spanish", "es"}, {"italian", "it"},
};

}  // namespace

std::string language_code(const std::string& key) {
    for (const auto& [name, code] : kCodes)
        if (key == name) return code;
    return "";
}

namespace {

// "auto, chinese (zh), english (en), ...": what a caller may give.
std::string supported(const std::vector<std::string>& langs) {
    std::vector<std::string> listed;
    for (const auto& l : langs) {
        const std::string code = language_code(l);
        listed.push_back(code.empty() ? l : l + " (" + code + ")");
    }
    return join(listed);
}

}  // namespace

std::string resolve_language(const ModelConfig& cfg, const std::string& requested) {
    const auto langs = cfg.languages();
    if (requested.find_first_not_of(" \t") == std::string::npos)
        throw Error(ErrorCode::invalid_argument,
                    "the language is empty; give one of: " + supported(langs));
    const std::string key = ascii_lower(requested);
    if (std::find(langs.begin(), langs.end(), key) != langs.end()) return key;
    for (const auto& [name, code] : kCodes)
        if (key == code && std::find(langs.begin(), langs.end(), name) != langs.end()) return name;
    const auto dialects = cfg.dialects();
    if (std::find(dialects.begin(), dialects.end(), key) != dialects.end()) {
        std::vector<std::string> carriers;
        for (const auto& [speaker, dialect] : cfg.talker.spk_dialect)
            if (dialect == key) carriers.push_back(speaker);
        throw Error(ErrorCode::invalid_argument,
                    "'" + requested +
                        "' is a dialect, not a language (as in the official code): speaker " +
                        (carriers.empty() ? std::string("(none)") : join(carriers)) +
                        " speaks it when the language is auto or chinese");
    }
    throw Error(ErrorCode::invalid_argument,
                "unknown language '" + requested + "'; this model supports: " + supported(langs));
}

}  // namespace qwen3tts
