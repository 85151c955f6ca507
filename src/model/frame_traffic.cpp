#include "model/frame_traffic.hpp"

#include <string>

#include "core/checked_size.hpp"

namespace qwen3tts {

namespace {

// The projections of a decoder stack under `prefix`, at the size the model holds them.
size_t stack_bytes(const WeightMap& w, const std::string& prefix, int64_t n_layer,
                   std::optional<backend::QuantFormat> quant) {
    size_t bytes = 0;
    for (int64_t il = 0; il < n_layer; ++il) {
        const std::string p = prefix + "layers." + std::to_string(il) + ".";
        for (const char* m :
             {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
              "mlp.gate_proj", "mlp.up_proj", "mlp.down_proj"}) {
            const TensorView& t = w.get(p + m + ".weight");
            if (!quant) {
                bytes += t.nbytes();
                continue;
            }
            backend::QuantizedWeights q;  // the layout only: no buffers
            q.format = *quant;
            q.rows = t.dim(0);
            q.cols = t.dim(1);
            bytes += checked_nbytes({q.groups(), q.group_code_bytes()}, 1, t.name) +
                     checked_nbytes({q.groups(), q.blocks_per_row() * backend::kQuantLanes},
                                    sizeof(uint16_t), t.name);
        }
    }
    return bytes;
}

}  // namespace

// ref: spec talker.md §5.4: per frame the talker runs one step and its codec_head; the code
// predictor runs n_codebook - 1 forward passes (the first over two positions, one weight read)
// and the lm_head of each codebook 1..n_codebook-1.
FrameTraffic frame_traffic(const TtsModel& model) {
    const WeightMap& w = model.weights();
    const TalkerConfig& tc = model.config().talker;
    const std::string p = "talker.code_predictor.";
    FrameTraffic t;
    t.talker_bytes = stack_bytes(w, "talker.model.", tc.num_hidden_layers, model.quant().talker) +
                     w.get("talker.codec_head.weight").nbytes();
    const size_t steps = size_t(model.predictor().n_codebooks() - 1);
    size_t per_step =
        stack_bytes(w, p + "model.", tc.code_predictor.num_hidden_layers, model.quant().predictor);
    if (w.has(p + "small_to_mtp_projection.weight"))
        per_step += w.get(p + "small_to_mtp_projection.weight").nbytes();
    t.predictor_bytes = checked_nbytes({int64_t(steps)}, per_step, "code predictor steps");
    for (size_t g = 0; g < steps; ++g)
        t.predictor_bytes += w.get(p + "lm_head." + std::to_string(g) + ".weight").nbytes();
    return t;
}

}  // namespace qwen3tts
