#include "text/tokenizer.hpp"

#include "core/error.hpp"
#include "core/json_fields.hpp"
#include "text/tokenizer_impl.hpp"
#include "text/unicode.hpp"
#include "text/vocab_json.hpp"

namespace qwen3tts {

namespace {

std::string join_path(const std::string& dir, const char* name) {
    if (dir.empty() || dir.back() == '/') return dir + name;
    return dir + "/" + name;
}

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

}  // namespace

void Tokenizer::Impl::load_vocab(const std::string& path) {
    Impl& t = *this;
    t.vocab = read_vocab_json(path);
    for (int b = 0; b < 256; ++b) {
        const int32_t id = t.vocab.find(t.alphabet.encode_byte(static_cast<uint8_t>(b)));
        if (id < 0) {
            throw Error(
                ErrorCode::format,
                "tokenizer: " + path + " lacks the byte-level token of byte " + std::to_string(b));
        }
        t.byte_id[static_cast<size_t>(b)] = id;
    }
}

// ref: transformers Qwen2Tokenizer.__init__ (skip a first "#version" line and blank lines;
// a pair's rank is its first position) and tokenizers BPE::from_file (two parts per line,
// every part and every merged string must be in the vocabulary).
void Tokenizer::Impl::load_merges(const std::string& path) {
    Impl& t = *this;
    const std::string text = read_text_file(path, "tokenizer file");
    // About 12 bytes a line in Qwen's merges.txt; a hint, so the ranks are not rehashed.
    t.merges.reserve(text.size() / 10);
    std::string merged;  // left + right, reused
    size_t line_start = 0;
    for (size_t line_no = 1; line_start < text.size(); ++line_no) {
        size_t line_end = text.find('\n', line_start);
        if (line_end == std::string::npos) line_end = text.size();
        size_t b = line_start, e = line_end;
        line_start = line_end + 1;
        while (b < e && is_space(text[b])) ++b;
        while (e > b && is_space(text[e - 1])) --e;
        if (b == e) continue;
        const std::string_view line(text.data() + b, e - b);
        if (line_no == 1 && line.substr(0, 9) == "#version:") continue;
        const auto where = [&] {
            return "tokenizer: " + path + " line " + std::to_string(line_no);
        };
        // Two tokens separated by whitespace (Python's str.split(), as Qwen2Tokenizer reads it).
        std::string_view parts[2];
        size_t n_parts = 0;
        for (size_t i = 0; i < line.size();) {
            while (i < line.size() && is_space(line[i])) ++i;
            size_t j = i;
            while (j < line.size() && !is_space(line[j])) ++j;
            if (j > i) {
                if (n_parts < 2) parts[n_parts] = line.substr(i, j - i);
                ++n_parts;
            }
            i = j;
        }
        if (n_parts != 2) {
            throw Error(ErrorCode::format, where() + ": expected two tokens, got " +
                                               std::to_string(n_parts) + " in \"" +
                                               std::string(line) + "\"");
        }
        const auto id_of = [&](std::string_view tok) {
            const int32_t id = t.vocab.find(tok);
            if (id < 0) {
                throw Error(ErrorCode::format,
                            where() + ": token \"" + std::string(tok) + "\" is not in vocab.json");
            }
            return id;
        };
        const int32_t l = id_of(parts[0]);
        const int32_t r = id_of(parts[1]);
        merged.assign(parts[0]).append(parts[1]);
        t.merges.add(l, r, id_of(merged));
    }
}

void Tokenizer::Impl::load_added_tokens(const std::string& path) {
    Impl& t = *this;
    const nlohmann::json j = read_json_file(path, "tokenizer file");
    const JsonFields top(j, path);
    if (!top.has("added_tokens_decoder")) return;  // no added tokens
    const JsonFields decoder = top.object("added_tokens_decoder");
    // Added ids extend vocab.json: bounded by its size plus the number of added tokens, so a
    // stray huge id is an error rather than a huge vocab_size().
    const int64_t max_id = int64_t(t.vocab.size()) + int64_t(decoder.raw().size()) - 1;
    for (const auto& [key, entry] : decoder.raw().items()) {
        const auto where = "tokenizer: " + path + ": added_tokens_decoder[\"" + key + "\"]";
        size_t used = 0;
        long long id = -1;
        try {
            id = std::stoll(key, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != key.size() || id < 0) {
            throw Error(ErrorCode::format, where + ": the key must be a non-negative integer id");
        }
        if (id > max_id) {
            throw Error(ErrorCode::format,
                        where + ": id " + key + " is beyond the vocabulary (vocab.json has " +
                            std::to_string(t.vocab.size()) + " tokens and there are " +
                            std::to_string(decoder.raw().size()) + " added tokens, so ids end at " +
                            std::to_string(max_id) + ")");
        }
        if (!entry.is_object() || !entry.contains("content") || !entry["content"].is_string()) {
            throw Error(ErrorCode::format, where + ": needs a string \"content\"");
        }
        // lstrip/rstrip/single_word change what surrounds a match; no Qwen checkpoint uses
        // them, so refuse rather than tokenise differently from HF.
        for (const char* flag : {"lstrip", "rstrip", "single_word"}) {
            auto f = entry.find(flag);
            if (f != entry.end() && f->is_boolean() && f->get<bool>()) {
                throw Error(ErrorCode::unsupported,
                            where + ": \"" + flag + "\": true is not supported");
            }
        }
        t.added.add(entry["content"].get<std::string>(), static_cast<int32_t>(id));
    }
    t.added.finish();
}

void Tokenizer::Impl::encode_piece(std::string_view piece, std::vector<int32_t>* out,
                                   Scratch* scratch) const {
    std::vector<int32_t>& ids = scratch->ids;
    ids.clear();
    for (char c : piece) ids.push_back(byte_id[static_cast<unsigned char>(c)]);
    merges.apply(&ids, &scratch->bpe);
    out->insert(out->end(), ids.begin(), ids.end());
}

void Tokenizer::Impl::encode_text(std::string_view raw, std::vector<int32_t>* out) const {
    const std::string text = nfc(std::string(raw));
    std::vector<std::string_view> pieces;
    pretokenizer.split(text, &pieces);
    Scratch scratch;
    for (std::string_view piece : pieces) encode_piece(piece, out, &scratch);
}

Tokenizer Tokenizer::load(const std::string& model_dir, PretokenizerRegex regex) {
    auto impl = std::make_shared<Impl>(regex);
    impl->load_vocab(join_path(model_dir, "vocab.json"));
    impl->load_merges(join_path(model_dir, "merges.txt"));
    impl->load_added_tokens(join_path(model_dir, "tokenizer_config.json"));
    impl->n_vocab = std::max(impl->vocab.size(), static_cast<size_t>(impl->added.max_id() + 1));
    return Tokenizer(std::move(impl));
}

std::vector<int32_t> Tokenizer::encode(const std::string& utf8_text) const {
    // The BPE works on int positions within a piece; no text to speak comes near this.
    constexpr size_t kMaxInputBytes = size_t(1) << 30;
    if (utf8_text.size() > kMaxInputBytes)
        throw Error(ErrorCode::invalid_argument,
                    "tokenizer input of " + std::to_string(utf8_text.size()) +
                        " bytes exceeds the limit of " + std::to_string(kMaxInputBytes));
    check_utf8(utf8_text, "tokenizer input");
    std::vector<int32_t> out;
    out.reserve(utf8_text.size() / 3 + 4);
    for (const AddedTokens::Segment& seg : impl_->added.split(utf8_text)) {
        if (seg.id >= 0) {
            out.push_back(seg.id);
        } else {
            impl_->encode_text(seg.text, &out);
        }
    }
    return out;
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids) const {
    std::string bytes;
    for (int32_t id : ids) {
        if (const std::string* content = impl_->added.content(id)) {
            bytes += *content;
            continue;
        }
        const std::string_view token = impl_->vocab.token(id);
        if (token.empty() || !impl_->alphabet.decode(token, &bytes)) {
            throw Error(ErrorCode::invalid_argument,
                        "tokenizer decode: unknown token id " + std::to_string(id));
        }
    }
    return utf8_lossy(bytes);
}

int32_t Tokenizer::token_to_id(const std::string& token) const {
    const int32_t added = impl_->added.find(token);
    if (added >= 0) return added;
    return impl_->vocab.find(token);
}

size_t Tokenizer::vocab_size() const {
    return impl_->n_vocab;
}

PretokenizerRegex Tokenizer::regex() const {
    return impl_->regex;
}

}  // namespace qwen3tts
