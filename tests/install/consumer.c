/* A C program using an installed qwen3tts (tests/install/run_consumers.py builds and runs it).
 * usage: consumer_c <model dir> <text> <seed> <max frames>
 * Prints "frames N", then one line of codes per frame, then the error of loading a model that
 * does not exist ("error CODE: MESSAGE"). */
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
    if (qwen3tts_model_load(argv[1], &model) != QWEN3TTS_OK ||
        qwen3tts_synthesizer_new(model, 2, &synth) != QWEN3TTS_OK) {
        fprintf(stderr, "%s\n", qwen3tts_last_error());
        return 1;
    }
    qwen3tts_options options = {0};
    options.language = "english";
    options.speaker = "ryan";
    options.seed = strtoull(argv[3], NULL, 10);
    options.max_frames = atoi(argv[4]);
    int32_t* codes = NULL;
    size_t n_frames = 0;
    if (qwen3tts_generate_codes(synth, argv[2], &options, &codes, &n_frames) != QWEN3TTS_OK) {
        fprintf(stderr, "%s\n", qwen3tts_last_error());
        return 1;
    }
    printf("frames %zu\n", n_frames);
    for (size_t f = 0; f < n_frames; ++f) {
        for (size_t k = 0; k < 16; ++k) printf(k ? " %d" : "%d", (int)codes[f * 16 + k]);
        printf("\n");
    }
    qwen3tts_free(codes);
    qwen3tts_synthesizer_free(synth);
    qwen3tts_model_free(model);

    qwen3tts_model* missing = NULL;
    int rc = qwen3tts_model_load("/nonexistent/qwen3tts-model", &missing);
    printf("error %d: %s\n", rc, qwen3tts_last_error());
    return 0;
}
