#include "support/request_mix.hpp"

#include <cctype>
#include <random>
#include <stdexcept>

#include "support/test_support.hpp"

namespace qwen3tts::testing {
namespace {

const std::vector<std::string> kSentences = {
    "Hello world, this is a test.", "The quick brown fox jumps over the lazy dog.",
    "你好，欢迎使用语音合成。",     "Good morning! How are you today? 😀",
    "こんにちは、元気ですか。",     "Ceci n'est pas une pipe.",
};

template <typename T>
const T& pick(std::mt19937& rng, const std::vector<T>& v) {
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

// The voice part of a case, drawn for the checkpoint's kind.
class VoiceDraw {
  public:
    explicit VoiceDraw(const Model& model) : type_(model.info().type) {
        if (type_ != "base") return;
        const std::vector<float> ref = golden("tiny-base", "audio_ref_24k").to_f32();
        VoiceCloneOptions in_context;
        in_context.ref_text = kSentences[1];
        VoiceCloneOptions x_vector;
        x_vector.x_vector_only = true;
        voices_.push_back(model.clone_voice(ref.data(), ref.size(), 24000, in_context));
        voices_.push_back(model.clone_voice(ref.data(), ref.size(), 24000, x_vector));
        // Another transcript of the same clip: the same x-vector, another reference text.
        in_context.ref_text = kSentences[0];
        voices_.push_back(model.clone_voice(ref.data(), ref.size(), 24000, in_context));
    }

    void draw(std::mt19937& rng, SynthesisOptions& o) const {
        static const std::vector<std::string> speakers = {"ryan", "vivian", "aiden", "sohee"};
        static const std::vector<std::string> instructions = {
            "A warm, low-pitched male voice.", "用温柔的女声朗读。", "Speak fast and bright."};
        static const std::vector<std::string> languages = {"auto", "English", "Chinese",
                                                           "Japanese"};
        o.language = pick(rng, languages);
        if (type_ == "custom_voice") o.speaker = pick(rng, speakers);
        if (type_ == "voice_design") o.instruct = pick(rng, instructions);
        if (type_ == "base") o.voice = pick(rng, voices_);
    }

  private:
    std::string type_;
    std::vector<Voice> voices_;
};

}  // namespace

void PrintTo(const MixParam& m, std::ostream* os) {
    *os << m.model << ", seed " << m.seed << (m.quant.empty() ? "" : ", quant " + m.quant);
}

std::string mix_name(const MixParam& m) {
    const std::string prefix = "tiny-";
    const bool tiny = m.model.compare(0, prefix.size(), prefix) == 0;
    std::string name = (tiny ? m.model.substr(prefix.size()) : m.model) + "_" +
                       std::to_string(m.seed) + (m.quant.empty() ? "" : "_" + m.quant);
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return name;
}

Model load_mix_model(const MixParam& m) {
    LoadOptions options;
    if (!m.quant.empty()) options.quant = m.quant;
    Model model = Model::load(model_dir(m.model), options);
    if (!m.quant.empty() && model.info().quant == "bf16")
        throw std::runtime_error(m.model + " loaded with quant " + m.quant + " is not quantized");
    return model;
}

std::vector<MixCase> draw_mix(const Model& model, uint32_t seed, int count) {
    std::mt19937 rng(seed);
    auto below = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
    const VoiceDraw voice(model);
    static const std::vector<std::string> layouts = {"auto", "streaming", "non-streaming"};
    std::vector<MixCase> cases;
    int64_t join = 0;
    for (int i = 0; i < count; ++i) {
        MixCase c;
        for (int s = 0, n = 1 + below(3); s < n; ++s)
            c.text += (s ? " " : "") + pick(rng, kSentences);
        c.options = model.default_options();
        voice.draw(rng, c.options);
        c.options.text_layout = pick(rng, layouts);
        c.options.seed = 1000 + uint64_t(below(1000));
        if (below(3) == 0) c.options.talker.do_sample = c.options.predictor.do_sample = false;
        c.options.max_frames = 2 + below(9);
        if (below(4) == 0) c.options.segment_chars = 30 + below(20);
        if (below(5) == 0) c.stop_at = 1 + below(c.options.max_frames - 1);
        if (below(4) == 0) {
            c.pieces = 1 + below(6);
            c.options.text_layout = "streaming";
        }
        join += below(4);
        c.join_after = join;
        cases.push_back(std::move(c));
    }
    return cases;
}

SoloRun solo_run(const Model& model, const MixCase& c) {
    EngineOptions engine;
    engine.threads = 2;
    engine.reuse_prompts = false;
    Synthesizer synth(model, engine);
    SoloRun o;
    o.codes = synth.generate_codes(c.text, c.options);
    o.audio = synth.speak(c.text, c.options);
    return o;
}

}  // namespace qwen3tts::testing
