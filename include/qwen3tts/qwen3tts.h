/* qwen3tts C API: a thin, exception-free layer over the C++ API for bindings.
 * Every function returns 0 (QWEN3TTS_OK) on success or an error code; the message of the last
 * error on this thread is available from qwen3tts_last_error(). Handles are opaque; a model
 * may be shared by several synthesizers; one synthesizer serves one request at a time: a call
 * on a synthesizer that another thread is using fails with QWEN3TTS_ERR_INVALID_ARGUMENT and
 * "Synthesizer is already in use by another thread; ..." (use one per concurrent request).
 * threads: 0 = all online CPUs, negative is an error, more than the online CPUs is capped. */
#ifndef QWEN3TTS_H
#define QWEN3TTS_H

#include <stddef.h>
#include <stdint.h>

#include "qwen3tts/export.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    QWEN3TTS_OK = 0,
    QWEN3TTS_ERR_INVALID_ARGUMENT = 1,
    QWEN3TTS_ERR_IO = 2,
    QWEN3TTS_ERR_FORMAT = 3,
    QWEN3TTS_ERR_MODEL = 4,
    QWEN3TTS_ERR_UNSUPPORTED = 5,
    QWEN3TTS_ERR_INTERNAL = 6
};

typedef struct qwen3tts_model qwen3tts_model;
typedef struct qwen3tts_synthesizer qwen3tts_synthesizer;

typedef struct qwen3tts_options {
    const char* language; /* NULL = "auto" */
    const char* speaker;  /* NULL = none */
    const char* instruct; /* NULL = none */
    int greedy;           /* non-zero: do_sample = false for talker and code predictor */
    int max_frames;       /* 0 = model default */
    uint64_t seed;
} qwen3tts_options;

QWEN3TTS_API const char* qwen3tts_last_error(void);

QWEN3TTS_API int qwen3tts_model_load(const char* model, qwen3tts_model** out);
QWEN3TTS_API void qwen3tts_model_free(qwen3tts_model* model);

QWEN3TTS_API int qwen3tts_synthesizer_new(qwen3tts_model* model, int threads,
                                          qwen3tts_synthesizer** out);
QWEN3TTS_API void qwen3tts_synthesizer_free(qwen3tts_synthesizer* synth);

/* Text → codes. On success *codes (malloc'ed, [*n_frames × 16] int32, free with
 * qwen3tts_free) holds the frames. */
QWEN3TTS_API int qwen3tts_generate_codes(qwen3tts_synthesizer* synth, const char* text,
                                         const qwen3tts_options* options, int32_t** codes,
                                         size_t* n_frames);
/* Text → 24 kHz mono float audio in [-1, 1]. On success *samples (malloc'ed, free with
 * qwen3tts_free) holds *n_samples samples. */
QWEN3TTS_API int qwen3tts_speak(qwen3tts_synthesizer* synth, const char* text,
                                const qwen3tts_options* options, float** samples,
                                size_t* n_samples);
QWEN3TTS_API void qwen3tts_free(void* p);

#ifdef __cplusplus
}
#endif

#endif /* QWEN3TTS_H */
