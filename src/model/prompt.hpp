// Builds the talker's prefill embeddings and the trailing text embeddings for every mode of
// spec talker.md §4: CustomVoice (speaker, language/Auto, dialect override, instruction),
// VoiceDesign (instruction), Base voice clone (x-vector only or in-context), each with the
// non-streaming or streaming text layout.
#pragma once

#include <string>
#include <vector>

#include "backend/ops.hpp"
#include "model/code_predictor.hpp"
#include "model/config.hpp"
#include "model/talker.hpp"
#include "text/tokenizer.hpp"

namespace qwen3tts {

// What a Base-model voice clone conditions on (spec talker.md §7.5).
struct VoiceClonePrompt {
    std::vector<float> x_vector;     // [H] speaker-encoder output
    std::vector<int64_t> ref_codes;  // [ref_frames, 16], empty in x-vector-only mode
    std::string ref_text;            // transcript of the reference, in-context mode only
    bool in_context() const { return !ref_codes.empty(); }
};

enum class TextLayout { automatic, streaming, non_streaming };

struct PromptRequest {
    std::string text;
    std::string language = "auto";
    std::string speaker;   // CustomVoice only
    std::string instruct;  // VoiceDesign; CustomVoice except 0.6B
    TextLayout layout = TextLayout::automatic;
    const VoiceClonePrompt* voice = nullptr;  // Base only
};

struct Prompt {
    int64_t hidden = 0;
    int64_t length = 0;  // prefill positions
    // The first positions, which do not depend on the text (spec talker.md §4.2-4.4): the
    // instruction, role tokens, codec control ids, speaker slot and codec pad; in-context
    // cloning adds the reference transcript's tokens. A request in the same voice has them too.
    int64_t voice_positions = 0;
    std::vector<float> embeds;    // [length, H]
    std::vector<float> trailing;  // [n_trailing, H]: added one per decode step
    int64_t n_trailing = 0;
    std::vector<float> tts_pad;      // [H]: added once trailing text is exhausted
    std::vector<int32_t> input_ids;  // the tokenised assistant text
    std::vector<int32_t> instruct_ids;
    bool non_streaming = true;
};

// The official default text layout: non-streaming for CustomVoice and VoiceDesign, streaming
// for voice clone (Qwen3TTSModel.generate_* wrappers).
bool default_non_streaming(ModelType type);

// Validates the request against the model (unknown speaker/language list the valid ones;
// options the model cannot take are errors, options the official code ignores are warned
// about) and builds the prompt.
Prompt build_prompt(const backend::ExecContext& ctx, const ModelConfig& config,
                    const Tokenizer& tokenizer, const Talker& talker,
                    const CodePredictor& predictor, const PromptRequest& request);

// build_prompt in two steps, for a text to speak that arrives later (model/streaming_prompt.hpp):
//   build_prompt(req) == build_prompt_from_ids(check_prompt_request(req),
//       encode("<|im_start|>assistant\n" + req.text + "<|im_end|>\n<|im_start|>assistant\n"))
// once req.text passed build_prompt's own checks (not blank, valid UTF-8).
//
// check_prompt_request makes every other check of build_prompt, with the same messages and
// warnings, and returns the request as build_prompt uses it: language resolved, speaker in lower
// case, an instruction the model ignores dropped, layout streaming or non_streaming. Checking
// that result again passes silently and changes nothing.
PromptRequest check_prompt_request(const ModelConfig& config, const Talker& talker,
                                   const PromptRequest& request);
// The prompt of the template ids `input_ids` (request.text is not read): the text tokens are
// input_ids[3:-5], as in build_prompt. Checks `request` again (see above).
Prompt build_prompt_from_ids(const backend::ExecContext& ctx, const ModelConfig& config,
                             const Tokenizer& tokenizer, const Talker& talker,
                             const CodePredictor& predictor, const PromptRequest& request,
                             std::vector<int32_t> input_ids);

// F(frame) = C(c0) + Σ_g E_g(c_g): the embedding of one 16-code frame, added into out[H].
void add_frame_embedding(const Talker& talker, const CodePredictor& predictor, const int32_t* frame,
                         float* out);

}  // namespace qwen3tts
