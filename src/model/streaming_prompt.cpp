#include "model/streaming_prompt.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace qwen3tts {

namespace {

const char* const kTemplatePrefix = "<|im_start|>assistant\n";
const char* const kTemplateSuffix = "<|im_end|>\n<|im_start|>assistant\n";
// Template ids before the text (<|im_start|>, assistant, \n) and after it (the suffix's).
constexpr int64_t kPrefixIds = 3;
constexpr int64_t kSuffixIds = 5;

}  // namespace

StreamingPrompt::StreamingPrompt(const backend::ExecContext& ctx, const ModelConfig& config,
                                 const Tokenizer& tokenizer, const Talker& talker,
                                 const CodePredictor& predictor, const PromptRequest& request)
    : ctx_(ctx),
      config_(config),
      tokenizer_(tokenizer),
      talker_(talker),
      predictor_(predictor),
      request_(check_prompt_request(config, talker, request)),
      tokens_(tokenizer, "the text to speak", kTemplatePrefix, kTemplateSuffix),
      hidden_(talker.hidden_size()) {
    request_.text.clear();
    if (request_.voice && request_.voice->in_context()) {
        const auto ref = tokenizer.encode(std::string(kTemplatePrefix) + request_.voice->ref_text +
                                          "<|im_end|>\n");
        n_ref_ids_ = int64_t(ref.size()) - 5;  // build_prompt's ref_ids = ids[3:-2]
        n_codec_ = int64_t(request_.voice->ref_codes.size()) / predictor.n_codebooks() + 1;
    }
    push_text(request.text);
}

void StreamingPrompt::push_text(std::string_view chunk) {
    tokens_.push(chunk);
    if (blank_) blank_ = chunk.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

void StreamingPrompt::finish_text() {
    const int64_t released = n_text_committed();
    // build_prompt's first check (a blank text has no cut character to report instead).
    if (blank_) throw Error(ErrorCode::invalid_argument, "the text to speak is empty");
    tokens_.finish();
    // Ids taken for text tokens before the end must have been text tokens (see the header).
    if (released > n_text_committed())
        throw Error(ErrorCode::internal,
                    "streaming prompt: the template suffix merged with the "
                    "text's last " +
                        std::to_string(released - n_text_committed()) + " token(s)");
}

int64_t StreamingPrompt::n_text_committed() const {
    const int64_t n = int64_t(tokens_.ids().size()) - kPrefixIds;
    return std::max<int64_t>(0, tokens_.finished() ? n - kSuffixIds : n);
}

bool StreamingPrompt::ready_for_prefill() const {
    if (prefill_taken_) return false;
    if (tokens_.finished()) return true;
    if (request_.layout == TextLayout::non_streaming) return false;
    // One text token at least, also when the reference alone fills Lc: the text is then known
    // not to be empty, so build_prompt would accept it.
    return n_text_committed() >= std::max<int64_t>(1, n_codec_ - n_ref_ids_);
}

Prompt StreamingPrompt::take_prefill() {
    if (!ready_for_prefill())
        throw Error(ErrorCode::invalid_argument,
                    prefill_taken_ ? "streaming prompt: the prefill was taken already"
                                   : "streaming prompt: the prefill needs more text");
    std::vector<int32_t> ids = tokens_.ids();
    if (!tokens_.finished()) {
        // Stand-in for the suffix's ids: build_prompt_from_ids drops the last 5 ids unread.
        const auto suffix = tokenizer_.encode(kTemplateSuffix);
        ids.insert(ids.end(), suffix.begin(), suffix.end());
    }
    Prompt p = build_prompt_from_ids(ctx_, config_, tokenizer_, talker_, predictor_, request_,
                                     std::move(ids));
    prefill_taken_ = true;
    next_text_ = n_text_committed();
    tts_pad_ = p.tts_pad;
    queue_ = std::move(p.trailing);
    if (tokens_.finished()) {
        eos_queued_ = true;  // build_prompt's trailing rows, complete
    } else {
        // Streaming with Lt > Lc: the rows so far end with EOS_T, which must wait for the end.
        QWEN3TTS_ASSERT(p.n_trailing >= 1);
        eos_t_.assign(queue_.end() - hidden_, queue_.end());
        queue_.resize(queue_.size() - size_t(hidden_));
    }
    p.trailing.clear();
    p.n_trailing = 0;
    p.input_ids = tokens_.ids();
    return p;
}

int64_t StreamingPrompt::trailing_available() const {
    if (!prefill_taken_) return 0;
    const int64_t queued = int64_t(queue_.size() / size_t(hidden_) - queue_head_);
    return queued + (n_text_committed() - next_text_) +
           (tokens_.finished() && !eos_queued_ ? 1 : 0);
}

bool StreamingPrompt::next_trailing(float* out) {
    if (!prefill_taken_)
        throw Error(ErrorCode::invalid_argument, "streaming prompt: take the prefill first");
    const size_t H = size_t(hidden_);
    if (queue_head_ * H == queue_.size()) {
        queue_.clear();
        queue_head_ = 0;
        const int64_t n_new = n_text_committed() - next_text_;
        if (n_new > 0) {
            // t_{next_text_+1} .. : template ids from index 3 + next_text_.
            const int32_t* ids = tokens_.ids().data() + kPrefixIds + next_text_;
            queue_.resize(size_t(n_new) * H);
            talker_.embed_text(ctx_, ids, n_new, queue_.data());
            next_text_ += n_new;
        } else if (tokens_.finished() && !eos_queued_) {
            queue_ = eos_t_;
            eos_queued_ = true;
        } else if (tokens_.finished()) {
            std::copy(tts_pad_.begin(), tts_pad_.end(), out);
            return true;
        } else {
            return false;
        }
    }
    std::copy(queue_.begin() + std::ptrdiff_t(queue_head_ * H),
              queue_.begin() + std::ptrdiff_t((queue_head_ + 1) * H), out);
    ++queue_head_;
    return true;
}

}  // namespace qwen3tts
