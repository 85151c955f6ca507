// The prompt of a request whose text to speak arrives in pieces (streaming text input, issue 11
// point 4), handed out in pieces itself: the prefill as soon as the text committed so far
// decides it, then the trailing text addend of each decode step as the text's tokens are
// committed (text/incremental_tokenizer.hpp). For ANY cutting of the text, bit for bit:
//   take_prefill().embeds                   == build_prompt(whole text).embeds
//   next_trailing() rows until the pad row  == build_prompt(whole text).trailing
//   every row after them                    == tts_pad
// with build_prompt's errors (the request's at construction, the text's at push/finish).
//
// When the prefill is ready (spec talker.md §4.3-4.5; docs/streaming_text.md):
//   non_streaming layout        at finish_text(): the whole text sits in the prefill.
//   streaming, no reference     once the first text token t_1 (template id 3) is committed:
//                               the prefill's only text position is T(t_1) + C(codec_bos);
//                               trailing = T(t_2), ..., T(t_N), EOS_T.
//   streaming, in-context       once M + n + 1 > Lc is certain, with M reference-text tokens,
//   (Base ICL)                  n >= 1 text tokens committed and Lc = reference frames + 1:
//                               the prefill lays Etxt[0, Lc) = (r_1..r_M, t_1..)[0, Lc) under
//                               the reference frames and Etxt[Lc:] trails. Before that, the
//                               text may still end with Lt <= Lc (then Etxt is padded with
//                               tts_pad into the prefill and nothing trails): wait, or finish.
// Before finish_text() every committed template id from index 3 is a text token (the template
// suffix "<|im_end|>..." starts with an added token, so it adds its own 5 ids at the end);
// finish_text() checks it.
//
// Not thread-safe: one instance per request, used by one thread at a time. The model objects
// given to the constructor and the request's voice must outlive it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "model/prompt.hpp"
#include "text/incremental_tokenizer.hpp"

namespace qwen3tts {

class StreamingPrompt {
  public:
    // Checks `request` as build_prompt does (everything but the text, same errors) and starts
    // the text with request.text, which may be empty or cut anywhere.
    StreamingPrompt(const backend::ExecContext& ctx, const ModelConfig& config,
                    const Tokenizer& tokenizer, const Talker& talker,
                    const CodePredictor& predictor, const PromptRequest& request);

    // Appends text. Throws build_prompt's UTF-8 error (offset in the whole text) as soon as a
    // sequence is invalid whatever follows.
    void push_text(std::string_view utf8_chunk);
    // Commits all text so far, the last piece included (IncrementalTokenizer::flush: the text
    // after it is tokenised on its own).
    void flush_text() { tokens_.flush(); }
    // Ends the text. Throws "the text to speak is empty" (blank text) and the UTF-8 error of a
    // character cut at the end, as build_prompt would for the whole text.
    void finish_text();
    bool text_finished() const { return tokens_.finished(); }

    bool ready_for_prefill() const;
    // The prefill (embeds, length, tts_pad, instruct_ids, non_streaming), once, when
    // ready_for_prefill(). Its `trailing` is empty: trailing rows come from next_trailing().
    // Its input_ids are the template ids committed so far (all of them after finish_text()).
    Prompt take_prefill();

    // Trailing rows known and not yet taken: committed text tokens, and EOS_T after
    // finish_text(). 0 before the prefill is taken.
    int64_t trailing_available() const;
    // Writes the addend of the next decode step into out[H] (spec §4.6): the next trailing row,
    // or tts_pad once the trailing text is exhausted, and returns true; returns false, writing
    // nothing, when that row depends on text not committed yet (the stream must wait, not pad).
    bool next_trailing(float* out);

    // encode("<|im_start|>assistant\n" + text + "<|im_end|>\n<|im_start|>assistant\n"),
    // committed so far.
    const std::vector<int32_t>& template_ids() const { return tokens_.ids(); }

  private:
    int64_t n_text_committed() const;

    backend::ExecContext ctx_;
    const ModelConfig& config_;
    const Tokenizer& tokenizer_;
    const Talker& talker_;
    const CodePredictor& predictor_;
    PromptRequest request_;  // checked; text unused
    IncrementalTokenizer tokens_;
    bool blank_ = true;      // the text so far is only " \t\r\n" (build_prompt's "empty")
    int64_t n_ref_ids_ = 0;  // M: reference transcript tokens (in-context only)
    int64_t n_codec_ = 0;    // Lc: reference frames + 1 (in-context only)
    int64_t hidden_ = 0;

    bool prefill_taken_ = false;
    std::vector<float> queue_;    // [rows, H] trailing rows ready
    size_t queue_head_ = 0;       // rows of queue_ already taken
    int64_t next_text_ = 0;       // text tokens t_1.. already in the prefill or queue_
    bool eos_queued_ = false;     // EOS_T is in queue_ (or was taken)
    std::vector<float> eos_t_;    // [H]
    std::vector<float> tts_pad_;  // [H]
};

}  // namespace qwen3tts
