/* qwen3tts C API: an exception-free layer over the C++ API, for programs in C and for bindings
 * (the Python package uses it through ctypes).
 *
 * Errors: every function that can fail returns 0 (QWEN3TTS_OK) or an error code; the message of
 * the last error on the calling thread is qwen3tts_last_error() (valid until that thread's next
 * call into the library). On failure, output pointers are set to NULL / 0.
 *
 * Ownership: objects made by *_new / *_load / *_clone are freed with their *_free function
 * (NULL is accepted and ignored). Arrays returned through pointer arguments (codes, samples,
 * token ids) are malloc'ed and freed with qwen3tts_free. Strings inside a qwen3tts_model_info
 * belong to the model and stay valid until qwen3tts_model_free.
 *
 * Threads: a model and a voice are immutable and may be used from any number of threads at
 * once. A synthesizer serves one request at a time: a call on a synthesizer that another thread
 * is inside fails with QWEN3TTS_ERR_INVALID_ARGUMENT ("Synthesizer is already in use by another
 * thread; ..."); use one synthesizer per concurrent request. Callbacks run on the calling thread.
 * threads arguments: 0 = all online CPUs, negative is an error, more than the online CPUs is
 * capped (with a warning on stderr).
 *
 * ABI evolution: every options/info/report struct starts with struct_size, the size of the
 * caller's struct. Options structs are filled by their *_init function, which is given
 * sizeof(struct) by the caller (so a newer library never writes past an older program's
 * struct); info and report structs get struct_size = sizeof(struct) from the caller. The
 * library reads and writes only the fields that lie wholly within struct_size (a field added
 * later takes its default when the caller's struct ends before it), so a program built
 * against an older header keeps working with a newer library. struct_size 0 is an error
 * ("struct_size not set"). */
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
    QWEN3TTS_ERR_INVALID_ARGUMENT = 1, /* a bad argument, option value or text */
    QWEN3TTS_ERR_IO = 2,               /* a file could not be read or written */
    QWEN3TTS_ERR_FORMAT = 3,           /* a file is malformed */
    QWEN3TTS_ERR_MODEL = 4,            /* the checkpoint is inconsistent or incomplete */
    QWEN3TTS_ERR_UNSUPPORTED = 5,      /* valid, but not supported by this build or model */
    QWEN3TTS_ERR_INTERNAL = 6,         /* out of memory or a bug: please report */
    QWEN3TTS_ERR_BUSY = 7              /* too many requests are waiting: try again later */
};

typedef struct qwen3tts_model qwen3tts_model;
typedef struct qwen3tts_synthesizer qwen3tts_synthesizer;
typedef struct qwen3tts_voice qwen3tts_voice;

/* "0.2.0 (git 1a2b3c4d5e6f, avx512, Release)": version, commit, SIMD level in use, build type.
 * Static string owned by the library (never freed); thread-safe. */
QWEN3TTS_API const char* qwen3tts_version(void);

/* Message of the last failed call on this thread ("" after a successful one). The string
 * belongs to the library and stays valid until this thread's next call into it. Thread-safe
 * (each thread has its own). */
QWEN3TTS_API const char* qwen3tts_last_error(void);

/* Frees an array returned by the library (codes, samples, token ids). NULL is ignored.
 * Thread-safe. */
QWEN3TTS_API void qwen3tts_free(void* p);

/* ---- Models ------------------------------------------------------------------------------ */

typedef struct qwen3tts_load_options {
    size_t struct_size;
    const char* pretokenizer; /* NULL = the library default ("qwen2"), or "mistral_fixed" */
    int mmap; /* 1 (default): map the file, per-frame weights copied at load; 0: read it all */
    /* Talker and code-predictor weights: NULL = "bf16" (as stored, exact), "q8", "q4" (quantized
     * at load), or "talker=q4,predictor=q8" (docs/quantization.md). */
    const char* quant;
    /* 1 (default): with mmap, copy the talker's and code predictor's weights into memory at
     * load; 0: read them through the mapping (fast start, little memory: for cloning voices;
     * synthesis 2-2.5x slower per frame on VMs). */
    int copy_frame_weights;
    /* The codec decoder's 7-tap convolutions: NULL = "direct" (the sums as written), or
     * "winograd" (Winograd F(4,7): decoder ~1.3x faster, waveform within 5e-5 of the official
     * one; docs/codec.md). */
    const char* codec_conv;
} qwen3tts_load_options;

/* Writes struct_size and the defaults into the first struct_size bytes of *options (pass
 * sizeof *options). NULL or struct_size < sizeof(size_t) does nothing. Thread-safe. */
QWEN3TTS_API void qwen3tts_load_options_init(qwen3tts_load_options* options, size_t struct_size);

/* model: a checkpoint directory or a Hugging Face repo id ("Qwen/Qwen3-TTS-12Hz-0.6B-Base"),
 * downloaded into the hub cache on first use. options may be NULL (defaults). *out is freed
 * with qwen3tts_model_free. Thread-safe (models are independent). */
QWEN3TTS_API int qwen3tts_model_load(const char* model, const qwen3tts_load_options* options,
                                     qwen3tts_model** out);
/* Frees the handle; synthesizers made from it keep the weights alive until they are freed.
 * No other thread may use this handle during or after the call. NULL is ignored. */
QWEN3TTS_API void qwen3tts_model_free(qwen3tts_model* model);

typedef struct qwen3tts_model_info {
    size_t struct_size;
    const char* dir;  /* resolved checkpoint directory */
    const char* type; /* "custom_voice", "voice_design" or "base" */
    const char* size; /* "0.6B", "1.7B" */
    int64_t hidden_size;
    int64_t talker_layers;
    size_t n_speakers;
    const char* const* speakers;         /* CustomVoice speaker names (lower case) */
    const char* const* speaker_dialects; /* parallel to speakers: dialect name or "" */
    size_t n_languages;
    const char* const* languages; /* "auto" + language names */
    size_t n_dialects;
    const char* const* dialects;
    int takes_instruction; /* whether the instruct option has an effect */
    uint64_t weight_bytes;
    int n_codebook;                    /* codes per frame (16) */
    int codebook_size;                 /* codes are in [0, codebook_size) (2048) */
    int sample_rate;                   /* of the audio produced (24000) */
    const char* const* language_codes; /* parallel to languages: "en", "zh", ... ("" for auto) */
    const char* quant;                 /* the load option in effect ("bf16", "q8", ...) */
    const char* codec_conv;            /* the load option in effect ("direct", "winograd") */
} qwen3tts_model_info;

/* Fills *info (set info->struct_size = sizeof *info first). The strings and string arrays
 * belong to the model and stay valid until qwen3tts_model_free. Thread-safe. */
QWEN3TTS_API int qwen3tts_model_get_info(const qwen3tts_model* model, qwen3tts_model_info* info);

/* Token ids of text (UTF-8) as the official tokenizer produces them: *ids (free with
 * qwen3tts_free). Thread-safe. */
QWEN3TTS_API int qwen3tts_model_tokenize(const qwen3tts_model* model, const char* text,
                                         int32_t** ids, size_t* n_ids);

/* Codes [n_frames × n_codebook] row-major → 24 kHz mono audio in [-1, 1] (*samples, free with
 * qwen3tts_free). codec_decode: NULL = "streaming", or "official-chunked". threads as for
 * qwen3tts_synthesizer_new. The codec decoder is loaded on first use. Thread-safe. */
QWEN3TTS_API int qwen3tts_model_decode(const qwen3tts_model* model, const int32_t* codes,
                                       size_t n_frames, const char* codec_decode, int threads,
                                       float** samples, size_t* n_samples);

/* Audio file (WAV/FLAC/Ogg/MP3, any rate) → codes [*n_frames × n_codebook] (free with
 * qwen3tts_free). Files longer than max_seconds (<= 0: 600) are refused. The codec encoder is
 * loaded on first use. Thread-safe. */
QWEN3TTS_API int qwen3tts_model_encode_audio(const qwen3tts_model* model, const char* audio_path,
                                             int threads, double max_seconds, int32_t** codes,
                                             size_t* n_frames);

/* ---- Voices (Base models) ------------------------------------------------------------------ */

typedef struct qwen3tts_clone_options {
    size_t struct_size;
    const char* ref_text; /* transcript of the reference: required unless x_vector_only */
    int x_vector_only;    /* 1: speaker embedding only (no in-context reference) */
    double max_seconds;   /* longer references are refused (default 60) */
} qwen3tts_clone_options;

/* As qwen3tts_load_options_init. */
QWEN3TTS_API void qwen3tts_clone_options_init(qwen3tts_clone_options* options, size_t struct_size);

/* A voice from a reference audio file (WAV/FLAC/Ogg/MP3, any rate). options NULL = defaults:
 * in-context mode, which needs ref_text, so NULL only fails with a message saying so. *out is
 * independent of the model (freed with qwen3tts_voice_free, in any order). Thread-safe. */
QWEN3TTS_API int qwen3tts_voice_clone(const qwen3tts_model* model, const char* ref_audio_path,
                                      const qwen3tts_clone_options* options, qwen3tts_voice** out);
/* The same from mono samples in [-1, 1] at sample_rate (resampled to 24 kHz as the official
 * code does); samples are copied, the caller keeps them. */
QWEN3TTS_API int qwen3tts_voice_clone_samples(const qwen3tts_model* model, const float* samples,
                                              size_t n_samples, int sample_rate,
                                              const qwen3tts_clone_options* options,
                                              qwen3tts_voice** out);
/* A .voice file (docs/voice_file.md); checked against the model when used. Thread-safe. */
QWEN3TTS_API int qwen3tts_voice_load(const char* path, qwen3tts_voice** out);
/* Writes atomically (temporary name, then rename). Thread-safe. */
QWEN3TTS_API int qwen3tts_voice_save(const qwen3tts_voice* voice, const char* path);
/* No other thread may use the voice during or after the call. NULL is ignored. */
QWEN3TTS_API void qwen3tts_voice_free(qwen3tts_voice* voice);
/* 1 for an in-context voice (reference codes + transcript), 0 for x-vector only (or NULL). */
QWEN3TTS_API int qwen3tts_voice_in_context(const qwen3tts_voice* voice);
/* The transcript of an in-context voice's reference ("" for x-vector only, or NULL voice); the
 * string belongs to the voice and lives as long as it. */
QWEN3TTS_API const char* qwen3tts_voice_ref_text(const qwen3tts_voice* voice);

/* ---- Synthesis ------------------------------------------------------------------------------ */

typedef struct qwen3tts_sampling {
    int do_sample; /* 0 = greedy */
    float temperature;
    int top_k;                /* 0 = no top-k */
    float top_p;              /* 1 = no top-p */
    float repetition_penalty; /* talker only (1 = none) */
} qwen3tts_sampling;

typedef struct qwen3tts_options {
    size_t struct_size;
    const char* language;        /* NULL = "auto"; names or codes ("English", "en") */
    const char* speaker;         /* CustomVoice: NULL = none */
    const char* instruct;        /* VoiceDesign, CustomVoice 1.7B: NULL = none */
    const qwen3tts_voice* voice; /* Base: the voice to clone; borrowed for the call */
    const char* text_layout;     /* NULL = "auto", "streaming" or "non-streaming" */
    qwen3tts_sampling talker;    /* codebook 0 */
    qwen3tts_sampling predictor; /* codebooks 1-15 (the code predictor, "subtalker") */
    int max_frames;              /* 0 = model default */
    int has_seed;                /* 0: a random seed, reported in qwen3tts_report.seed */
    uint64_t seed;
    const char* codec_decode;  /* NULL = "streaming", or "official-chunked" */
    int segment_chars;         /* > 0: long text spoken in segments of at most this many characters,
                                * cut at sentence ends (SynthesisOptions::segment_chars); 0 = one
                                * generation. Incremental text is cut as it arrives. */
    const char* codec_overlap; /* NULL = "auto", "on" or "off" (SynthesisOptions::codec_overlap) */
} qwen3tts_options;

/* Writes struct_size and the defaults of the model's generation_config.json into the first
 * struct_size bytes of *options (pass sizeof *options); strings NULL, voice NULL, has_seed 0.
 * model may be NULL: the released checkpoints' defaults (sampling on, temperature 0.9, top_k
 * 50, top_p 1, repetition penalty 1.05 for the talker and 1 for the predictor). max_frames is
 * 0 (the model's max_new_tokens).
 * NULL options or struct_size < sizeof(size_t) does nothing. Thread-safe. */
QWEN3TTS_API void qwen3tts_options_init(const qwen3tts_model* model, qwen3tts_options* options,
                                        size_t struct_size);

typedef struct qwen3tts_report {
    size_t struct_size;
    int64_t prompt_positions;
    int64_t frames;
    int stopped_at_eos; /* 1: the model ended the speech; 0: frame limit or cancelled */
    int cancelled;      /* 1: a callback returned non-zero */
    uint64_t seed;      /* the sampling seed used */
    double prefill_ms, talker_ms, predictor_ms;
    double codec_ms;          /* codec decoding (speak only) */
    double first_audio_ms;    /* time to first audio (speak only) */
    double total_ms;          /* the whole call */
    int64_t samples;          /* audio samples produced (speak only) */
    int64_t reused_positions; /* of prompt_positions, those whose keys and values an earlier
                               * request of the same synthesizer or scheduler had left (its
                               * prompt began the same way: the same voice, speaker or
                               * instruction); not run again, the output is the same */
} qwen3tts_report;

/* Callbacks: return 0 to go on, non-zero to stop (the call then returns QWEN3TTS_OK with what
 * was made so far and report->cancelled = 1). They run on the calling thread, must not unwind
 * (C++ exceptions, longjmp) through the library, and must not call into the same synthesizer.
 * The pointers they get are valid during the callback only. */
typedef int (*qwen3tts_audio_callback)(const float* samples, size_t n_samples, void* user_data);
typedef int (*qwen3tts_frame_callback)(const int32_t* codes, size_t n_codebook, void* user_data);

/* The mutable state of one request at a time (KV caches, RNG), using threads worker threads.
 * It keeps the model's weights alive (the model handle may be freed first). *out is freed with
 * qwen3tts_synthesizer_free. Thread-safe. */
QWEN3TTS_API int qwen3tts_synthesizer_new(const qwen3tts_model* model, int threads,
                                          qwen3tts_synthesizer** out);
/* No call may be running on synth. NULL is ignored. */
QWEN3TTS_API void qwen3tts_synthesizer_free(qwen3tts_synthesizer* synth);

/* In all four: text is UTF-8; options NULL = model defaults; report may be NULL (else set its
 * struct_size). One call per synthesizer at a time (a concurrent one fails, see above). */

/* Text → codes [*n_frames × n_codebook] (free with qwen3tts_free). */
QWEN3TTS_API int qwen3tts_generate_codes(qwen3tts_synthesizer* synth, const char* text,
                                         const qwen3tts_options* options, int32_t** codes,
                                         size_t* n_frames, qwen3tts_report* report);
/* Text → codes, each frame to on_frame as soon as it exists. */
QWEN3TTS_API int qwen3tts_generate_codes_stream(qwen3tts_synthesizer* synth, const char* text,
                                                const qwen3tts_options* options,
                                                qwen3tts_frame_callback on_frame, void* user_data,
                                                qwen3tts_report* report);
/* Text → 24 kHz mono audio in [-1, 1] (*samples, free with qwen3tts_free). */
QWEN3TTS_API int qwen3tts_speak(qwen3tts_synthesizer* synth, const char* text,
                                const qwen3tts_options* options, float** samples, size_t* n_samples,
                                qwen3tts_report* report);
/* Text → audio, each piece to on_audio as soon as it is decoded. */
QWEN3TTS_API int qwen3tts_speak_stream(qwen3tts_synthesizer* synth, const char* text,
                                       const qwen3tts_options* options,
                                       qwen3tts_audio_callback on_audio, void* user_data,
                                       qwen3tts_report* report);

/* ---- Many requests at once ----------------------------------------------------------------
 * A scheduler runs every request submitted to it together on one model: each frame step makes
 * the next frame of all running requests as one batch (the weights are read once for all),
 * requests join and leave at any frame, and a request's codes and audio are exactly those that
 * a synthesizer gives for it alone (same seed and options), whatever runs beside it.
 * Thread-safe: submit, cancel, push text and wait from any thread. The callbacks run on the
 * scheduler's own thread between frame steps: keep them quick, and do not wait in them for
 * another request of the same scheduler. */

typedef struct qwen3tts_scheduler qwen3tts_scheduler;
typedef struct qwen3tts_request qwen3tts_request;

typedef struct qwen3tts_scheduler_options {
    size_t struct_size;
    int max_batch; /* requests generating at once, each with its own KV cache (default 8) */
    int max_queue; /* requests waiting beyond those (default 64); one more is QWEN3TTS_ERR_BUSY */
    int threads;   /* worker threads, as for qwen3tts_synthesizer_new (default 0) */
} qwen3tts_scheduler_options;

/* As qwen3tts_load_options_init. */
QWEN3TTS_API void qwen3tts_scheduler_options_init(qwen3tts_scheduler_options* options,
                                                  size_t struct_size);

/* Starts a scheduler on model (its thread waits for requests). options NULL = defaults. It keeps
 * the model's weights alive. *out is freed with qwen3tts_scheduler_free. Thread-safe. */
QWEN3TTS_API int qwen3tts_scheduler_new(const qwen3tts_model* model,
                                        const qwen3tts_scheduler_options* options,
                                        qwen3tts_scheduler** out);
/* Cancels every request that has not ended (each on_done runs, with
 * QWEN3TTS_REQUEST_CANCELLED) and stops the scheduler's thread. Request handles stay valid
 * (wait returns at once). No other thread may use the scheduler during or after the call; it
 * must not be called from a callback. NULL is ignored. */
QWEN3TTS_API void qwen3tts_scheduler_free(qwen3tts_scheduler* scheduler);

typedef struct qwen3tts_scheduler_load {
    size_t struct_size;
    int64_t active; /* requests generating */
    int64_t queued; /* waiting for a place */
    int64_t frames; /* frames generated since the scheduler started */
} qwen3tts_scheduler_load;

/* What the scheduler is doing now (set load->struct_size first). Thread-safe. */
QWEN3TTS_API int qwen3tts_scheduler_get_load(const qwen3tts_scheduler* scheduler,
                                             qwen3tts_scheduler_load* load);

enum {
    QWEN3TTS_REQUEST_COMPLETED = 0, /* ended: end of speech, frame limit, or a callback said stop */
    QWEN3TTS_REQUEST_CANCELLED = 1, /* qwen3tts_request_cancel or qwen3tts_scheduler_free */
    QWEN3TTS_REQUEST_FAILED = 2     /* an error ended it: error_code and error say which */
};

/* Exactly once per request, when it has ended. error: "" unless failed; valid during the call. */
typedef void (*qwen3tts_done_callback)(int status, int error_code, const char* error,
                                       void* user_data);

typedef struct qwen3tts_request_callbacks {
    size_t struct_size;
    qwen3tts_frame_callback on_frame; /* each frame as it exists; NULL = none */
    /* Set: the frames are decoded to 24 kHz audio as they come (codec_decode "streaming"). */
    qwen3tts_audio_callback on_audio;
    qwen3tts_done_callback on_done;
    void* user_data; /* passed to all three; must stay valid until on_done has returned */
} qwen3tts_request_callbacks;

/* As qwen3tts_load_options_init (all NULL). */
QWEN3TTS_API void qwen3tts_request_callbacks_init(qwen3tts_request_callbacks* callbacks,
                                                  size_t struct_size);

/* Queues a request: text (UTF-8) with options (NULL = model defaults; the voice is kept as long
 * as the request needs it). callbacks may be NULL (then the codes are only counted in the
 * report); on_frame / on_audio return non-zero to stop that request. Bad options fail here,
 * before anything runs; a full queue is QWEN3TTS_ERR_BUSY; errors while it runs end this
 * request only (qwen3tts_request_wait). *out is freed with qwen3tts_request_free.
 * Thread-safe. */
QWEN3TTS_API int qwen3tts_scheduler_submit(qwen3tts_scheduler* scheduler, const char* text,
                                           const qwen3tts_options* options,
                                           const qwen3tts_request_callbacks* callbacks,
                                           qwen3tts_request** out);
/* Streaming text input: text is the beginning (may be ""), more comes with
 * qwen3tts_request_push_text until qwen3tts_request_finish_text. Laid out as the official
 * streaming layout (text_layout "auto" means "streaming" here): the codes equal those of
 * qwen3tts_scheduler_submit with the whole text and text_layout "streaming", however the text
 * was cut into pieces (a piece may end inside a UTF-8 character). */
QWEN3TTS_API int qwen3tts_scheduler_submit_incremental(qwen3tts_scheduler* scheduler,
                                                       const char* text,
                                                       const qwen3tts_options* options,
                                                       const qwen3tts_request_callbacks* callbacks,
                                                       qwen3tts_request** out);

/* Ends the request within one frame (status QWEN3TTS_REQUEST_CANCELLED unless it had already
 * ended); its memory is freed. Thread-safe, also from its own callbacks. */
QWEN3TTS_API int qwen3tts_request_cancel(qwen3tts_request* request);
/* Incremental requests: more text, and the end of the text (another push is then an error). */
QWEN3TTS_API int qwen3tts_request_push_text(qwen3tts_request* request, const char* text);
QWEN3TTS_API int qwen3tts_request_finish_text(qwen3tts_request* request);
/* Incremental requests: speaks all text pushed so far now, the last word included, which
 * otherwise waits until the next characters show where it ends (a writer that pauses). The
 * text after it is tokenised on its own: the codes equal those of the whole text when the cut
 * is where a piece of the tokenizer ends anyway (after "." before the space that follows).
 * An error after qwen3tts_request_finish_text or on a request submitted whole. */
QWEN3TTS_API int qwen3tts_request_flush_text(qwen3tts_request* request);

typedef struct qwen3tts_request_result {
    size_t struct_size;
    int status;        /* QWEN3TTS_REQUEST_* */
    int error_code;    /* when failed: QWEN3TTS_ERR_*; else 0 */
    const char* error; /* when failed: the message; else "". Belongs to the request handle */
} qwen3tts_request_result;

/* Blocks until the request has ended and its on_done has returned, then fills *result and
 * *report (either may be NULL; set their struct_size first). report->first_audio_ms counts
 * from the submit (waiting in the queue included); report->cancelled is 1 when the request was
 * cancelled or a callback stopped it. Must not be called from the scheduler's callbacks.
 * Thread-safe. */
QWEN3TTS_API int qwen3tts_request_wait(qwen3tts_request* request, qwen3tts_request_result* result,
                                       qwen3tts_report* report);
/* 1 once the request has ended (wait would not block), 0 before (or for NULL). Thread-safe. */
QWEN3TTS_API int qwen3tts_request_done(const qwen3tts_request* request);
/* Frees the handle only: a request still running goes on (cancel it first to stop it), and its
 * callbacks still run until on_done. No other thread may use the handle during or after the
 * call. NULL is ignored. */
QWEN3TTS_API void qwen3tts_request_free(qwen3tts_request* request);

/* ---- Files ---------------------------------------------------------------------------------- */

/* Writes mono samples to path: format NULL/"" from the extension (.wav .flac .ogg/.opus .mp3
 * .pcm .npy), else "wav", "wav-f32", "flac", "opus", "mp3", "pcm", "npy". Atomic: written under
 * a temporary name, then renamed. Thread-safe (for different paths). */
QWEN3TTS_API int qwen3tts_write_audio(const char* path, const float* samples, size_t n_samples,
                                      int sample_rate, const char* format);

#ifdef __cplusplus
}
#endif

#endif /* QWEN3TTS_H */
