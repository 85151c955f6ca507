#include "text/vocab_json.hpp"

#include <limits>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/error.hpp"
#include "core/text_file.hpp"

namespace qwen3tts {

namespace {

// Accepts exactly one flat object whose values are integers; anything else is a format error.
class VocabHandler : public nlohmann::json_sax<nlohmann::json> {
  public:
    VocabHandler(const std::string& path, TokenVocab* vocab) : path_(path), vocab_(vocab) {}

    bool start_object(std::size_t) override {
        if (depth_++ != 0) bad_value("an object");
        return true;
    }
    bool end_object() override {
        --depth_;
        return true;
    }
    bool key(string_t& k) override {
        key_ = k;
        return true;
    }
    bool number_unsigned(number_unsigned_t v) override {
        if (depth_ != 1 ||
            v > static_cast<number_unsigned_t>(std::numeric_limits<int32_t>::max())) {
            bad_value(std::to_string(v));
        }
        if (!vocab_->add(key_, static_cast<int32_t>(v)))
            throw Error(ErrorCode::format,
                        "tokenizer: " + path_ + ": token \"" + key_ + "\" appears twice");
        return true;
    }
    bool number_integer(number_integer_t v) override {
        if (v < 0) bad_value(std::to_string(v));
        return number_unsigned(static_cast<number_unsigned_t>(v));
    }
    bool null() override { return bad_value("null"); }
    bool boolean(bool) override { return bad_value("a boolean"); }
    bool number_float(number_float_t, const string_t& s) override { return bad_value(s); }
    bool string(string_t& s) override { return bad_value("\"" + s + "\""); }
    bool binary(binary_t&) override { return bad_value("binary data"); }
    bool start_array(std::size_t) override { return bad_value("an array"); }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string&,
                     const nlohmann::detail::exception& e) override {
        throw Error(ErrorCode::format,
                    "tokenizer: " + path_ + " is not valid JSON: " + std::string(e.what()));
    }

  private:
    [[noreturn]] bool bad_value(const std::string& what) {
        if (depth_ == 0) {
            throw Error(ErrorCode::format, "tokenizer: " + path_ + " must be a JSON object");
        }
        throw Error(ErrorCode::format, "tokenizer: " + path_ + ": token \"" + key_ + "\" has id " +
                                           what + ", expected a non-negative integer");
    }

    const std::string& path_;
    TokenVocab* vocab_;
    std::string key_;
    int depth_ = 0;
};

}  // namespace

TokenVocab read_vocab_json(const std::string& path) {
    const std::string text = read_text_file(path, "tokenizer file");
    TokenVocab vocab;
    vocab.reserve(text.size() / 16, text.size() / 2);
    VocabHandler handler(path, &vocab);
    nlohmann::json::sax_parse(text, &handler);

    // Ids index tables sized by the largest id: they must be exactly 0..n-1, so a stray huge
    // id cannot make the tokenizer allocate gigabytes, and every id names one token.
    const size_t n = vocab.size();
    std::vector<std::string_view> token_of(n);
    std::vector<char> seen(n, 0);
    vocab.for_each([&](std::string_view token, int32_t id) {
        const auto t = [&] { return std::string(token); };
        if (size_t(id) >= n)
            throw Error(ErrorCode::format,
                        "tokenizer: " + path + ": token \"" + t() + "\" has id " +
                            std::to_string(id) + ", but the " + "file has " + std::to_string(n) +
                            " tokens (ids must be 0.." + std::to_string(n - 1) + ")");
        if (seen[size_t(id)])
            throw Error(ErrorCode::format, "tokenizer: " + path + ": tokens \"" +
                                               std::string(token_of[size_t(id)]) + "\" and \"" +
                                               t() + "\" share id " + std::to_string(id));
        seen[size_t(id)] = 1;
        token_of[size_t(id)] = token;
    });
    vocab.index_ids();
    return vocab;
}

}  // namespace qwen3tts
