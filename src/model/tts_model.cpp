#include "model/tts_model.hpp"

#include <sys/stat.h>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/thread_pool.hpp"
#include "model/codec_config.hpp"
#include "model/codec_encoder_config.hpp"
#include "weights/model_dir.hpp"

namespace qwen3tts {

namespace {

// The session suppresses the top 1024 talker ids (control tokens) except EOS, as the official
// generate does, so codebook-0 codes lie in [0, vocab_size - 1024).
constexpr int kTalkerControlIds = 1024;

bool file_exists(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0;
}

[[noreturn]] void mismatch(const std::string& what) {
    throw Error(ErrorCode::model, what);
}

// Sizes that span components, checked once here so that the frame loop can index without
// checks: the tokenizer's ids against the text embedding, the talker's code groups and code
// ranges against the codec (when speech_tokenizer/ is there; `codes` runs without it).
void check_components(const ModelConfig& c, const Tokenizer& tok) {
    const TalkerConfig& t = c.talker;
    const std::string cfg = c.dir + "/config.json";
    if (tok.vocab_size() > size_t(t.text_vocab_size))
        mismatch(c.dir + ": the tokenizer (vocab.json, tokenizer_config.json) has " +
                 std::to_string(tok.vocab_size()) + " ids, more than " + cfg +
                 ": talker_config.text_vocab_size " + std::to_string(t.text_vocab_size));

    const std::string codec_path = c.dir + "/speech_tokenizer/config.json";
    if (!file_exists(codec_path)) return;
    const CodecDecoderConfig dec = load_codec_decoder_config(codec_path);
    if (dec.n_codebook != t.num_code_groups)
        mismatch(codec_path + ": decoder_config.num_quantizers " + std::to_string(dec.n_codebook) +
                 " differs from " + cfg + ": talker_config.num_code_groups " +
                 std::to_string(t.num_code_groups));
    if (t.code_predictor.vocab_size > dec.codebook_size)
        mismatch(cfg + ": talker_config.code_predictor_config.vocab_size " +
                 std::to_string(t.code_predictor.vocab_size) + " exceeds " + codec_path +
                 ": decoder_config.codebook_size " + std::to_string(dec.codebook_size));
    if (t.vocab_size - kTalkerControlIds > dec.codebook_size)
        mismatch(cfg + ": talker_config.vocab_size " + std::to_string(t.vocab_size) + " minus " +
                 std::to_string(kTalkerControlIds) + " control ids exceeds " + codec_path +
                 ": decoder_config.codebook_size " + std::to_string(dec.codebook_size));
    if (c.type != ModelType::base) return;
    // Voice cloning feeds the encoder's codes back in as reference frames.
    const CodecEncoderConfig enc = load_codec_encoder_config(codec_path);
    if (enc.n_valid_quantizers != t.num_code_groups)
        mismatch(codec_path + ": encoder_valid_num_quantizers " +
                 std::to_string(enc.n_valid_quantizers) + " differs from " + cfg +
                 ": talker_config.num_code_groups " + std::to_string(t.num_code_groups));
    if (enc.codebook_size > t.code_predictor.vocab_size)
        mismatch(codec_path + ": encoder_config.codebook_size " +
                 std::to_string(enc.codebook_size) + " exceeds " + cfg +
                 ": talker_config.code_predictor_config.vocab_size " +
                 std::to_string(t.code_predictor.vocab_size));
}

}  // namespace

TtsModel::TtsModel(ModelConfig config, WeightMap weights, std::future<Tokenizer> tokenizer,
                   const QuantPlan& quant)
    : config_(std::move(config)), quant_(quant), weights_(std::move(weights)) {
    // Quantizing, or copying from the mapping, reads every projection weight once: on all
    // cores, while the tokenizer loads on a thread of its own.
    ThreadPool pool(resolve_thread_count(0, "threads"));
    try {
        talker_ = std::make_unique<Talker>(weights_, config_.talker, quant.talker, &pool,
                                           quant.talker_head, quant.copy_mapped);
        predictor_ =
            std::make_unique<CodePredictor>(weights_, config_.talker, quant.predictor, &pool,
                                            quant.predictor_heads, quant.copy_mapped);
    } catch (...) {
        // A broken tokenizer or a component mismatch is reported first, as when the tokenizer
        // loaded before the weights.
        settle_tokenizer(tokenizer);
        throw;
    }
    settle_tokenizer(tokenizer);

    // Everything else in the file is unexpected, except the speaker encoder of Base models
    // (used by voice cloning).
    std::vector<std::string> unexpected;
    for (const auto& name : weights_.unused()) {
        if (config_.type == ModelType::base && name.rfind("speaker_encoder.", 0) == 0) continue;
        unexpected.push_back(name);
    }
    if (!unexpected.empty()) {
        std::string list;
        for (size_t i = 0; i < unexpected.size() && i < 8; ++i)
            list += (i ? ", " : "") + unexpected[i] + " " +
                    weights_.all().at(unexpected[i]).shape_str();
        if (unexpected.size() > 8)
            list += ", ... (" + std::to_string(unexpected.size()) + " in all)";
        log_warning(weights_.source() + ": unexpected tensors ignored: " + list);
    }
}

void TtsModel::settle_tokenizer(std::future<Tokenizer>& tokenizer) {
    tokenizer_.emplace(tokenizer.get());
    check_components(config_, *tokenizer_);
}

std::shared_ptr<const TtsModel> TtsModel::load(const std::string& model, PretokenizerRegex regex,
                                               LoadMode mode, const QuantPlan& quant) {
    const std::string dir = resolve_model_dir(model);
    ModelConfig config = load_model_config(dir);
    WeightMap weights = WeightMap::open(dir, "model", mode);
    // Its tables take about a tenth of a quantized load's CPU (most of a bf16 load's), so they
    // are built beside the quantization rather than before it.
    std::future<Tokenizer> tokenizer =
        std::async(std::launch::async, [dir, regex] { return Tokenizer::load(dir, regex); });
    return std::shared_ptr<const TtsModel>(
        new TtsModel(std::move(config), std::move(weights), std::move(tokenizer), quant));
}

}  // namespace qwen3tts
