#include "text/incremental_tokenizer.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "text/tokenizer_impl.hpp"
#include "text/unicode.hpp"

namespace qwen3tts {

namespace {

// Tokenizer::encode's input limit (the BPE works on int positions within a piece).
constexpr size_t kMaxTextBytes = size_t(1) << 30;

// A regex retry over pending text longer than this waits until it grew by a quarter.
constexpr size_t kEagerSplitBytes = 1024;

bool is_continuation(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

IncrementalTokenizer::IncrementalTokenizer(const Tokenizer& tokenizer, std::string what,
                                           std::string_view prefix, std::string suffix)
    : impl_(tokenizer.impl_), what_(std::move(what)), suffix_(std::move(suffix)) {
    check_utf8(std::string(prefix), "tokenizer prefix");
    check_utf8(suffix_, "tokenizer suffix");
    feed(prefix);
}

void IncrementalTokenizer::require_usable() const {
    if (broken_)
        throw Error(ErrorCode::invalid_argument,
                    "incremental tokenizer: " + what_ + ": used after an earlier error");
    if (finished_)
        throw Error(ErrorCode::invalid_argument,
                    "incremental tokenizer: " + what_ + ": text added after its end");
}

void IncrementalTokenizer::push(std::string_view chunk) {
    require_usable();
    if (chunk.size() > kMaxTextBytes - text_bytes_)
        throw Error(ErrorCode::invalid_argument,
                    what_ + ": more than " + std::to_string(kMaxTextBytes) + " bytes");
    broken_ = true;  // until this push completes
    std::string text = cut_char_;
    text.append(chunk);
    const size_t valid = check_utf8_prefix(text, text_bytes_ - cut_char_.size(), what_.c_str());
    text_bytes_ += chunk.size();
    cut_char_.assign(text, valid, std::string::npos);
    text.resize(valid);
    feed(text);
    broken_ = false;
}

void IncrementalTokenizer::flush() {
    require_usable();
    broken_ = true;
    scan_added_tokens(/*at_end=*/true);
    end_run();
    broken_ = false;
}

void IncrementalTokenizer::finish() {
    require_usable();
    broken_ = true;
    if (!cut_char_.empty())
        throw_invalid_utf8(what_.c_str(), text_bytes_ - cut_char_.size(),
                           static_cast<unsigned char>(cut_char_[0]));
    undecided_ += suffix_;
    scan_added_tokens(/*at_end=*/true);
    end_run();
    finished_ = true;
    broken_ = false;
}

void IncrementalTokenizer::feed(std::string_view text) {
    undecided_.append(text);
    scan_added_tokens(/*at_end=*/false);
    advance_nfc();
    commit_final_pieces();
}

// Stage 2: moves the decided part of undecided_ into the current run (raw_tail_), ending the
// run at each added token, exactly as AddedTokens::split scans.
void IncrementalTokenizer::scan_added_tokens(bool at_end) {
    const AddedTokens& added = impl_->added;
    const std::string_view text = undecided_;
    size_t plain_start = 0;
    size_t i = 0;
    while (i < text.size()) {
        // Only a tail shorter than the longest token can be the start of one still growing.
        if (!at_end && text.size() - i < added.max_length() &&
            added.proper_prefix_of_token(text.substr(i)))
            break;
        size_t length = 0;
        const int32_t id = added.match_at(text, i, &length);
        if (id < 0) {
            ++i;
            continue;
        }
        raw_tail_.append(text.substr(plain_start, i - plain_start));
        end_run();
        ids_.push_back(id);
        i += length;
        plain_start = i;
    }
    raw_tail_.append(text.substr(plain_start, i - plain_start));
    undecided_.erase(0, i);
}

// Stage 3: normalises raw_tail_ up to its last NFC boundary (all of it when its last character
// is one that nothing after it can change).
void IncrementalTokenizer::advance_nfc() {
    if (raw_tail_.empty()) return;
    size_t cut = nfc_final_at_end(raw_tail_) ? raw_tail_.size() : 0;
    // Characters already looked at were not boundaries (else the tail would start there), and
    // a character's status depends only on the text before it: look at the new ones, last first.
    const size_t first_new = std::max<size_t>(nfc_checked_, 1);
    for (size_t pos = raw_tail_.size() - 1; cut == 0 && pos >= first_new; --pos) {
        if (is_continuation(raw_tail_[pos])) continue;
        if (nfc_boundary_before(raw_tail_, pos)) cut = pos;
    }
    if (cut > 0) {
        normalized_ += nfc(raw_tail_.substr(0, cut));
        raw_tail_.erase(0, cut);
    }
    nfc_checked_ = raw_tail_.size();
}

// Stage 4: commits the pieces of normalized_ that no continuation can change.
void IncrementalTokenizer::commit_final_pieces() {
    if (normalized_.size() == split_tried_) return;  // nothing new since the last attempt
    if (normalized_.size() > kEagerSplitBytes && normalized_.size() < split_tried_ / 4 * 5) return;
    std::vector<std::string_view> pieces;
    const size_t done = impl_->pretokenizer.split_complete(normalized_, &pieces);
    Tokenizer::Impl::Scratch scratch;
    for (std::string_view piece : pieces) impl_->encode_piece(piece, &ids_, &scratch);
    normalized_.erase(0, done);
    split_tried_ = normalized_.size();
}

// The run ends (an added token follows, or the text ends): the rest is split like encode.
void IncrementalTokenizer::end_run() {
    normalized_ += nfc(raw_tail_);
    raw_tail_.clear();
    nfc_checked_ = 0;
    std::vector<std::string_view> pieces;
    impl_->pretokenizer.split(normalized_, &pieces);
    Tokenizer::Impl::Scratch scratch;
    for (std::string_view piece : pieces) impl_->encode_piece(piece, &ids_, &scratch);
    normalized_.clear();
    split_tried_ = 0;
}

}  // namespace qwen3tts
