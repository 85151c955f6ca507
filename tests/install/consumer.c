/* A C program using an installed qwen3tts (tests/install/run_consumers.py builds and runs it).
 * usage: consumer_c <model dir> <text> <seed> <max frames>
 * Prints "frames N" and one line of codes per frame, "samples N" of speaking the same text with
 * the same seed, then the error of loading a model that does not exist ("error CODE: MESSAGE"). */
#include <stdio.h>
#include <stdlib.h>

#include "qwen3tts/qwen3tts.h"

int main(int argc, char** argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s <model dir> <text> <seed> <max frames>\n", argv[0]);
        return 2;
    }
    qwen3tts_model* model = NULL;
    qwen3tts_synthesizer* synth = NULL;
    qwen3tts_model_info info;
    info.struct_size = sizeof info;
    if (qwen3tts_model_load(argv[1], NULL, &model) != QWEN3TTS_OK ||
        qwen3tts_model_get_info(model, &info) != QWEN3TTS_OK ||
        qwen3tts_synthesizer_new(model, 2, &synth) != QWEN3TTS_OK) {
        fprintf(stderr, "%s\n", qwen3tts_last_error());
        return 1;
    }
    printf("model %s, %zu speakers, library %s\n", info.type, info.n_speakers, qwen3tts_version());
    qwen3tts_options options;
    qwen3tts_options_init(model, &options, sizeof options);
    options.language = "english";
    options.speaker = "ryan";
    options.has_seed = 1;
    options.seed = strtoull(argv[3], NULL, 10);
    options.max_frames = atoi(argv[4]);
    int32_t* codes = NULL;
    size_t n_frames = 0;
    float* samples = NULL;
    size_t n_samples = 0;
    if (qwen3tts_generate_codes(synth, argv[2], &options, &codes, &n_frames, NULL) != QWEN3TTS_OK ||
        qwen3tts_speak(synth, argv[2], &options, &samples, &n_samples, NULL) != QWEN3TTS_OK) {
        fprintf(stderr, "%s\n", qwen3tts_last_error());
        return 1;
    }
    printf("frames %zu\n", n_frames);
    for (size_t i = 0; i < n_frames * (size_t)info.n_codebook; ++i) {
        printf((i + 1) % (size_t)info.n_codebook ? "%d " : "%d\n", (int)codes[i]);
    }
    printf("samples %zu\n", n_samples);
    qwen3tts_free(codes);
    qwen3tts_free(samples);
    qwen3tts_synthesizer_free(synth);
    qwen3tts_model_free(model);

    qwen3tts_model* missing = NULL;
    int rc = qwen3tts_model_load("/nonexistent/qwen3tts-model", NULL, &missing);
    printf("error %d: %s\n", rc, qwen3tts_last_error());
    return 0;
}
