#include "api/model_impl.hpp"
#include "api/option_parsing.hpp"
#include "core/error.hpp"
#include "core/thread_pool.hpp"
#include "hub/hub_pull.hpp"
#include "model/language.hpp"
#include "runtime/speech.hpp"

namespace qwen3tts {

Model Model::load(const std::string& model, const LoadOptions& options) {
    PretokenizerRegex regex;
    if (options.pretokenizer == "mistral_fixed")
        regex = PretokenizerRegex::mistral_fixed;
    else if (options.pretokenizer == "qwen2")
        regex = PretokenizerRegex::qwen2;
    else
        throw Error(ErrorCode::invalid_argument,
                    "unknown pretokenizer '" + options.pretokenizer + "' (mistral_fixed or qwen2)");
    QuantPlan quant = parse_quant_plan(options.quant);  // before any download
    quant.copy_mapped = options.copy_frame_weights;
    if (options.codec_conv != "direct" && options.codec_conv != "winograd")
        throw Error(ErrorCode::invalid_argument,
                    "unknown codec_conv '" + options.codec_conv + "' (direct or winograd)");
    auto impl = std::make_shared<Impl>();
    impl->codec_options.winograd = options.codec_conv == "winograd";
    // A repo id missing from the cache is downloaded here (the model layer reads the cache only).
    impl->model = TtsModel::load(resolve_or_pull_model_dir(model), regex,
                                 options.mmap ? LoadMode::mmap : LoadMode::copy, quant);
    Model m;
    m.impl_ = std::move(impl);
    return m;
}

ModelInfo Model::info() const {
    const ModelConfig& c = impl_->model->config();
    ModelInfo i;
    i.dir = c.dir;
    i.type = model_type_name(c.type);
    i.size = c.size_label();
    i.hidden_size = c.talker.hidden_size;
    i.talker_layers = c.talker.num_hidden_layers;
    i.speakers = c.speakers();
    for (const std::string& speaker : i.speakers) {
        const auto it = c.talker.spk_dialect.find(speaker);
        i.speaker_dialects.push_back(it == c.talker.spk_dialect.end() ? "" : it->second);
    }
    i.languages = c.languages();
    for (const std::string& l : i.languages) i.language_codes.push_back(language_code(l));
    i.dialects = c.dialects();
    i.takes_instruction = c.type == ModelType::voice_design ||
                          (c.type == ModelType::custom_voice && !c.ignores_instruction());
    i.weight_bytes = impl_->model->weights().total_bytes();
    i.quant = quant_plan_name(impl_->model->quant());
    i.codec_conv = impl_->codec_options.winograd ? "winograd" : "direct";
    i.n_codebook = c.talker.num_code_groups;
    i.codebook_size = c.talker.code_predictor.vocab_size;
    return i;
}

SynthesisOptions Model::default_options() const {
    const GenerationDefaults& d = impl_->model->config().generation;
    SynthesisOptions o;
    o.talker = {d.do_sample, d.temperature, d.top_k, d.top_p, d.repetition_penalty};
    o.predictor = {d.subtalker_do_sample, d.subtalker_temperature, d.subtalker_top_k,
                   d.subtalker_top_p, 1.0f};
    o.max_frames = d.max_new_tokens - 1;
    return o;
}

int Model::sample_rate() const {
    // From the codec's config: `codes`, `encode` and cloning must not load the decoder's weights.
    return impl_->codec_config().output_sample_rate;
}

std::vector<float> Model::decode(const std::vector<int32_t>& codes, const std::string& codec_decode,
                                 int threads) const {
    ThreadPool pool(resolve_thread_count(threads, "threads"));
    const CodecDecoder& codec = impl_->codec();
    const std::vector<int64_t> wide(codes.begin(), codes.end());
    if (wide.size() % size_t(codec.n_codebook()) != 0)
        throw Error(ErrorCode::invalid_argument, "codes are not a whole number of " +
                                                     std::to_string(codec.n_codebook()) +
                                                     "-code frames");
    codec.validate_codes(wide.data(), int64_t(wide.size()) / codec.n_codebook());
    return decode_codes(codec, {backend::KernelSet::fast, &pool}, wide,
                        parse_codec_decode(codec_decode));
}

std::vector<int32_t> Model::tokenize(const std::string& text) const {
    return impl_->model->tokenizer().encode(text);
}

}  // namespace qwen3tts
