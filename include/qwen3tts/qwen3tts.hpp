// qwen3tts C++ API: load an official Qwen3-TTS 12Hz checkpoint (a local directory or a
// Hugging Face repo id) and turn text into codec frames (and, with the codec, into audio).
//
// Ownership and threads: a Model is an immutable, reference-counted handle; copies share the
// same memory-mapped weights and may be used from any thread. A Synthesizer holds the mutable
// state of one request at a time (KV caches, RNG): use one per concurrent request. Calling a
// Synthesizer while another thread is inside one of its calls throws an Error ("Synthesizer is
// already in use by another thread; ..."); the running call is not disturbed. The worker
// threads are one process-wide pool shared by all Synthesizers: when two requests run at once,
// the second one's parallel regions run on its own thread while the first one holds the
// workers (same results, only slower). All errors are thrown as qwen3tts::Error (see error
// code and message).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "qwen3tts/error.hpp"
#include "qwen3tts/export.h"

namespace qwen3tts {

struct ModelInfo {
    std::string dir;   // resolved checkpoint directory
    std::string type;  // "custom_voice", "voice_design" or "base"
    std::string size;  // "0.6B", "1.7B" (or the raw tts_model_size tag)
    int64_t hidden_size = 0;
    int64_t talker_layers = 0;
    std::vector<std::string> speakers;          // CustomVoice speaker names (lower case)
    std::vector<std::string> speaker_dialects;  // parallel to speakers: dialect or ""
    // SynthesisOptions::language takes "auto", these names or their codes, any case.
    std::vector<std::string> languages;       // "auto" + language names
    std::vector<std::string> language_codes;  // parallel to languages: "en", ... or ""
    // Dialects are no language values (as in the official code): the speaker carrying one
    // (speaker_dialects) speaks it when the language is "auto" or "chinese".
    std::vector<std::string> dialects;
    bool takes_instruction = false;  // whether --instruct has an effect
    size_t weight_bytes = 0;
    std::string quant;  // the LoadOptions::quant in effect, normalised ("talker=q4,predictor=q8")
    std::string codec_conv;  // the LoadOptions::codec_conv in effect ("direct", "winograd")
    int n_codebook = 0;      // codes per frame (16)
    int codebook_size = 0;   // codes of codebooks 1.. are in [0, codebook_size) (2048)
};

struct LoadOptions {
    // Pre-tokeniser: "qwen2" (the regex the Qwen3 text models were trained with; the official
    // loader's choice for a hub id) for every way of naming a model, or "mistral_fixed" (what
    // transformers 4.57.3 swaps in for a local directory; for parity with such a run only).
    // See docs/tokenizer.md.
    std::string pretokenizer = "qwen2";
    // true: memory-map the checkpoint; the weights that every frame reads (the talker's and
    // code predictor's layers and heads, ~1 GB for the 0.6B in bf16) are copied into private
    // huge-page memory at load, which streams 2-2.5x faster than a mapping's 4 KiB pages on
    // VMs (docs/benchmarks.md); the rest (embeddings: only the rows used are read) stays mapped.
    // false: read the whole checkpoint into private memory (slower start, more memory).
    bool mmap = true;
    // With mmap: false leaves the talker's and code predictor's weights in the mapping instead
    // of copying them, for work that does not synthesize (cloning a voice: `qwen3tts voice`
    // uses it), or to keep one copy in the page cache shared by processes. Synthesis still
    // works, reading those weights through the mapping (2-2.5x slower per frame on VMs).
    bool copy_frame_weights = true;
    // Weights of the talker and code-predictor decoder layers: "bf16" (as stored in the
    // checkpoint, exact: the default), "q8" or "q4" (quantized at load, blocks of 32 with f16
    // scales), or per component: "talker=q4,predictor=q8". docs/quantization.md has the
    // accuracy and speed of each.
    std::string quant = "bf16";
    // The codec decoder's 7-tap convolutions (most of its arithmetic): "direct" (the sums as
    // written: the default) or "winograd" (Winograd F(4,7): 2.8x fewer multiply-adds there,
    // the decoder ~1.3x faster, the waveform within 5e-5 of the official one where direct is
    // within 1e-5). docs/codec.md has the measurements.
    std::string codec_conv = "direct";
};

enum class Kernels { fast, reference };

struct EngineOptions {
    // 0 = all online CPUs; negative is an Error; more than the online CPUs is capped to them
    // (with a warning through the log sink) unless oversubscribe is set.
    int threads = 0;
    Kernels kernels = Kernels::fast;  // reference = plain fp32 loops (for verification)
    bool oversubscribe = false;
    // A request whose prompt begins like an earlier one's (the same voice, speaker or
    // instruction: those come before the text) starts from the keys and values that request
    // left, and runs only the rest of its prompt: an earlier first audio, the same output bit
    // for bit. false runs every prompt whole (to measure a cold start).
    bool reuse_prompts = true;
};

// A cloned voice for the Base models: the reference speaker's x-vector and, in in-context
// mode, the reference audio's codec frames and transcript. Made by Model::clone_voice, saved
// to / loaded from a `.voice` file (docs/voice_file.md). Cheap to copy (shared, immutable).
class QWEN3TTS_API Voice {
  public:
    Voice() = default;
    static Voice load(const std::string& path);
    void save(const std::string& path) const;

    bool empty() const { return !impl_; }
    bool in_context() const;
    std::string ref_text() const;
    int64_t ref_frames() const;

    struct QWEN3TTS_LOCAL Impl;
    const std::shared_ptr<const Impl>& impl() const { return impl_; }
    explicit Voice(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

  private:
    std::shared_ptr<const Impl> impl_;
};

struct VoiceCloneOptions {
    // Transcript of the reference audio: required for in-context cloning (the default mode),
    // ignored with x_vector_only.
    std::string ref_text;
    bool x_vector_only = false;
    double max_seconds = 60.0;  // longer references are an error
};

struct SamplingOptions {
    bool do_sample = true;
    float temperature = 0.9f;
    int top_k = 50;
    float top_p = 1.0f;
    float repetition_penalty = 1.05f;  // talker only
};

struct SynthesisOptions {
    std::string language = "auto";     // ModelInfo::languages or codes ("en"); "" is an error
    std::string speaker;               // CustomVoice
    std::string instruct;              // VoiceDesign, 1.7B CustomVoice
    Voice voice;                       // Base: the voice to clone
    std::string text_layout = "auto";  // "auto", "streaming" or "non-streaming"
    // Start from Model::default_options() to get the checkpoint's generation_config.json.
    SamplingOptions talker;
    SamplingOptions predictor;
    int max_frames = 0;  // 0 = model default (max_new_tokens - 1)
    // End of speech is suppressed until this many frames exist (benchmarks: runs that compare
    // need the same number of frames); at most max_frames. 0 = the model decides.
    int min_frames = 0;
    // Sampling seed: the same seed, text and options give the same codes on every machine.
    // Unset: a fresh random seed per call, reported in GenerationReport::seed.
    std::optional<uint64_t> seed;
    // Long texts: > 0 speaks the text as consecutive segments of at most this many characters
    // (code points), cut at sentence ends where it can (then clause ends, then spaces), each
    // a generation of its own (max_frames each; segment i samples with seed + i, so it gives
    // what it gives when spoken alone with that seed), their audio joined in one codec stream:
    // memory and the cost of a frame stay bounded for a text of any length. 0 (default): the
    // whole text in one generation, as the official code does (up to max_frames, ~11 minutes).
    // A Scheduler gives the same codes and audio (a request's next segment is prefilled while
    // the others go on). Incremental text (submit_incremental) is cut as it arrives into the
    // segments of the whole text; a segment's text is spoken once its cut is certain (a
    // sentence end past a third of the limit, or limit + 1 characters).
    int segment_chars = 0;
    // "streaming" (default): exact incremental codec decode, audio per frame as it is made;
    // "official-chunked": the official chunked_decode(300, 25) after generation (parity with
    // the Python output on texts longer than 24 s; no streaming).
    std::string codec_decode = "streaming";
    // Streaming decode of one request (speak, not a Scheduler, which decodes its requests'
    // packets together): "auto" (default) decodes the packets after the first audio beside the
    // generation (the generation on one thread, the codec on another) when that measures faster
    // here, which it does where the generation waits on memory (quantized weights,
    // larger models; docs/benchmarks.md); "on" always, "off" never. The audio is the same.
    std::string codec_overlap = "auto";
};

// Timings of one generation, in milliseconds.
struct GenerationReport {
    int64_t prompt_positions = 0;
    int64_t reused_positions = 0;  // of those, taken from an earlier request (EngineOptions)
    int64_t frames = 0;
    bool stopped_at_eos = false;
    uint64_t seed = 0;  // the sampling seed used (to reproduce a run with a random seed)
    double prefill_ms = 0, talker_ms = 0, predictor_ms = 0;
};

// Timings of one text-to-speech call, in milliseconds.
struct SpeechReport {
    GenerationReport generation;
    double codec_ms = 0;
    double first_audio_ms = 0;  // time to first audio, prompt building excluded
    double total_ms = 0;
    int64_t samples = 0;
};

class QWEN3TTS_API Model {
  public:
    static Model load(const std::string& model, const LoadOptions& options = {});
    ModelInfo info() const;
    // Default sampling options of the checkpoint (generation_config.json).
    SynthesisOptions default_options() const;
    // Token ids of text as the official tokenizer produces them.
    std::vector<int32_t> tokenize(const std::string& text) const;

    // Base models: a voice from reference audio (WAV/FLAC/Ogg/MP3, any rate; mixed to mono
    // and resampled to 24 kHz as the official code does).
    Voice clone_voice(const std::string& ref_audio_path, const VoiceCloneOptions& options) const;
    // The same from mono samples in [-1, 1] at sample_rate (1000 to 768000 Hz), resampled to
    // 24 kHz as the official code does; at most options.max_seconds long, all finite.
    Voice clone_voice(const float* samples, size_t n_samples, int sample_rate,
                      const VoiceCloneOptions& options) const;

    // Audio file (WAV/FLAC/Ogg/MP3, any rate; mixed to mono and resampled to the codec's
    // 24 kHz as the official Qwen3TTSTokenizer.encode does) → codec frames. The codec encoder
    // is loaded on first use; threads as EngineOptions::threads. Files longer than max_seconds
    // are refused from their header, before decoding.
    struct EncodedAudio {
        std::vector<int32_t> codes;  // [frames × n_codebook] row-major
        int64_t frames = 0;
        int n_codebook = 0;
        double input_seconds = 0;   // duration of the file
        int input_sample_rate = 0;  // its sample rate before resampling
    };
    EncodedAudio encode_audio(const std::string& audio_path, int threads = 0,
                              double max_seconds = 600.0) const;

    // Output sample rate of the codec decoder (24000).
    int sample_rate() const;
    // Codes [frames × 16] → 24 kHz audio (the codec decoder is loaded on first use).
    // threads as EngineOptions::threads.
    std::vector<float> decode(const std::vector<int32_t>& codes,
                              const std::string& codec_decode = "streaming", int threads = 0) const;

    struct QWEN3TTS_LOCAL Impl;
    const std::shared_ptr<const Impl>& impl() const { return impl_; }

  private:
    std::shared_ptr<const Impl> impl_;
};

class QWEN3TTS_API Synthesizer {
  public:
    explicit Synthesizer(const Model& model, const EngineOptions& options = {});
    ~Synthesizer();
    Synthesizer(Synthesizer&&) noexcept;
    Synthesizer& operator=(Synthesizer&&) noexcept;

    // Text → codec frames, [frames × n_codebook] row-major (ModelInfo; 16 codes in [0, 2048)
    // for the released checkpoints).
    // on_frame (optional) receives each frame as soon as it exists; return false to stop.
    std::vector<int32_t> generate_codes(
        const std::string& text, const SynthesisOptions& options,
        const std::function<bool(const int32_t* frame)>& on_frame = {},
        GenerationReport* report = nullptr);

    // Text → 24 kHz mono audio in [-1, 1]. on_audio (optional) receives each piece as soon
    // as it is decoded (one frame = 1920 samples); return false to stop. Returns all audio
    // when on_audio is empty, otherwise an empty vector.
    std::vector<float> speak(
        const std::string& text, const SynthesisOptions& options,
        const std::function<bool(const float* samples, size_t n)>& on_audio = {},
        SpeechReport* report = nullptr);

  private:
    struct QWEN3TTS_LOCAL Impl;
    std::unique_ptr<Impl> impl_;
};

// ---- Many requests at once ----------------------------------------------------------------
// A Scheduler runs every request submitted to it together on one model: each frame step
// computes the next frame of all running requests as one batch (the weights are read once for
// all), requests join and leave at any frame, and a request's codes and audio are exactly the
// ones a Synthesizer gives for it alone (same seed, same options), whatever runs beside it.
// Thread-safe: submit, cancel and push text from any thread. The callbacks run on the
// scheduler's own thread between steps: keep them quick.

struct SchedulerOptions {
    int max_batch = 8;   // requests generating at once (each holds its own KV cache)
    int max_queue = 64;  // requests waiting beyond those; one more is Error(ErrorCode::busy)
    EngineOptions engine;
};

struct RequestResult {
    enum class Status { completed, cancelled, failed };
    Status status = Status::completed;
    ErrorCode error_code = ErrorCode::internal;  // when failed
    std::string error;                           // when failed: what went wrong
    // generation (frames, seed, ...) and, when audio was asked for, codec time, samples and
    // the time to first audio counted from submit (waiting in the queue included).
    SpeechReport report;
};

struct RequestCallbacks {
    // Each frame [n_codebook] as soon as it exists; return false to stop the request.
    std::function<bool(const int32_t* frame)> on_frame;
    // Set: the frames are decoded to 24 kHz audio as they come; return false to stop.
    std::function<bool(const float* samples, size_t n)> on_audio;
    // Exactly once, when the request has ended (also when cancelled or failed).
    std::function<void(const RequestResult& result)> on_done;
};

// A handle of a submitted request; copies share it.
class QWEN3TTS_API SpeechRequest {
  public:
    SpeechRequest() = default;
    uint64_t id() const;
    // Ends the request within one frame (on_done gets Status::cancelled); its memory is freed.
    void cancel();
    // Requests submitted with submit_incremental: more text, and the end of the text.
    void push_text(const std::string& text);
    void finish_text();
    // Speaks all text pushed so far now, the last word included, which otherwise waits until
    // the next characters show where it ends. The text after it is tokenised on its own, so
    // the codes equal those of the whole text only when the cut is where a piece of the
    // tokenizer ends anyway (after a space following punctuation, say); docs/streaming_text.md.
    // With segment_chars, a flush ends the segment there: the segments are those of the text
    // before it, then those of the text after it.
    void flush_text();
    // Blocks until on_done has returned.
    RequestResult wait();
    bool done() const;

    struct QWEN3TTS_LOCAL Impl;

  private:
    friend class Scheduler;
    std::shared_ptr<Impl> impl_;
};

class QWEN3TTS_API Scheduler {
  public:
    explicit Scheduler(const Model& model, const SchedulerOptions& options = {});
    // Cancels what has not ended (each on_done runs) and stops the scheduler's thread.
    ~Scheduler();
    Scheduler(const Scheduler&) = delete;
    Scheduler& operator=(const Scheduler&) = delete;

    // Queues a request. Bad options are an Error here, before anything runs; errors while it
    // runs end that request only (RequestResult::error).
    SpeechRequest submit(const std::string& text, const SynthesisOptions& options,
                         RequestCallbacks callbacks = {});
    // Streaming text input: `text` is the beginning (may be empty), more comes with
    // SpeechRequest::push_text until finish_text. The text is laid out as the official
    // streaming layout ("auto" means "streaming" here), and the codes equal those of submit()
    // with the whole text and text_layout "streaming", however the text was cut into pieces
    // (with segment_chars too: each segment is a streaming-layout generation of its own).
    SpeechRequest submit_incremental(const std::string& text, const SynthesisOptions& options,
                                     RequestCallbacks callbacks = {});

    struct Load {
        int64_t active = 0;  // generating
        int64_t queued = 0;  // waiting for a place
        int64_t frames = 0;  // frames generated since the scheduler started
    };
    Load load() const;

  private:
    struct QWEN3TTS_LOCAL Impl;
    std::unique_ptr<Impl> impl_;
};

// Writes audio as it is produced to a file, or to stdout for path "-". format "" takes it from
// the extension (.wav .flac .ogg/.opus .mp3 .pcm/.raw .npy; stdout: WAV), otherwise a name:
// "wav", "wav-f32", "flac", "opus", "mp3", "pcm", "npy". A file is written under a temporary
// name in its directory and renamed into place by finish(); a writer destroyed before finish()
// removes it, so a partial file never appears. Samples are mono floats in [-1, 1].
// Use from one thread at a time.
class QWEN3TTS_API AudioFileWriter {
  public:
    AudioFileWriter(const std::string& path, int sample_rate, const std::string& format = "");
    ~AudioFileWriter();
    AudioFileWriter(const AudioFileWriter&) = delete;
    AudioFileWriter& operator=(const AudioFileWriter&) = delete;

    void write(const float* samples, size_t n);
    void flush();   // hand what is encoded to the OS now (streaming to a player)
    void finish();  // complete the file; further writes throw

  private:
    struct QWEN3TTS_LOCAL Impl;
    std::unique_ptr<Impl> impl_;
};

// Codes files: int64 .npy of shape [frames, n_codebook] (16 for the released checkpoints), as
// the official code's tensors are saved. save writes atomically (temporary name, then rename);
// load checks shape and range against `model`'s codec (num_quantizers, codebook_size).
QWEN3TTS_API void save_codes_npy(const std::string& path, const std::vector<int32_t>& codes,
                                 const Model& model);
QWEN3TTS_API std::vector<int32_t> load_codes_npy(const std::string& path, const Model& model);

// Hugging Face hub: models downloaded into the cache huggingface_hub shares (same layout and
// environment: HF_ENDPOINT, HF_TOKEN, HF_HOME, HF_HUB_CACHE, HF_HUB_OFFLINE; docs/hub.md).
// Model::load takes a repo id too and downloads it on first use. Errors are thrown as Error
// with a message saying what to do. Safe to call from several threads and processes at once.
namespace hub {

struct PullProgress {
    enum class Event {
        file_start,   // a download begins (bytes = where it resumes)
        file_bytes,   // bytes of the current file arrived
        file_done,    // the current file is complete and checked
        file_cached,  // the file was already in the cache
        finished,     // all files are in place
    };
    Event event = Event::file_start;
    std::string repo_id;
    std::string file;
    size_t index = 0;  // 1-based position of `file`
    size_t n_files = 0;
    uint64_t bytes = 0;      // of `file`
    uint64_t total = 0;      // size of `file`
    uint64_t all_total = 0;  // size of all files of the pull
};

struct PullOptions {
    // Glob patterns (fnmatch, '*' also matches '/'; "dir/" means "dir/*") selecting files;
    // empty = all files of the revision.
    std::vector<std::string> include;
    std::function<void(const PullProgress&)> on_progress;  // may be empty
    bool quiet = false;  // no informational messages (resuming, waiting) through the log
};

struct PullResult {
    std::string snapshot_dir;  // <cache>/models--Org--Name/snapshots/<commit>
    std::string commit;
    size_t n_files = 0;       // files linked in the snapshot by this pull
    size_t n_downloaded = 0;  // of which were fetched from the network
    bool offline = false;     // HF_HUB_OFFLINE=1: served from the cache without any request
};

// Downloads the files of "Org/Name[@revision]" (default revision: main) that are not in the
// cache yet, each checked against its size and digest.
QWEN3TTS_API PullResult pull(const std::string& repo, const PullOptions& options = {});

// The checkpoint directory of a model argument: a local folder as is, a repo id from the
// cache, downloaded on first use (progress through the log sink) unless HF_HUB_OFFLINE=1.
QWEN3TTS_API std::string model_dir(const std::string& model);

struct CachedRevision {
    std::string commit;
    std::vector<std::string> refs;  // branches/tags pointing at it ("main", "refs/pr/1")
    size_t n_files = 0;
    uint64_t size_bytes = 0;  // of the files it links
};

struct CachedModel {
    std::string repo_id;      // "Org/Name"
    std::string path;         // <cache>/models--Org--Name
    uint64_t size_bytes = 0;  // complete blobs on disk (shared between revisions)
    size_t n_incomplete = 0;  // interrupted downloads
    std::vector<CachedRevision> revisions;
};

QWEN3TTS_API std::string cache_dir();  // $HF_HUB_CACHE, else $HF_HOME/hub, ...
QWEN3TTS_API std::vector<CachedModel>
list_cache();  // sorted by repo id; empty when there is no cache

}  // namespace hub

// What this library is: version, the commit it was built from, the SIMD level its kernels use
// on this CPU (after QWEN3TTS_ISA), and the CMake build type.
struct BuildInfo {
    std::string version;     // "0.2.0"
    std::string git_commit;  // "1a2b3c4d5e6f", or "unknown" outside a git checkout
    std::string simd;        // "generic", "avx2" or "avx512"
    std::string build_type;  // "Release", "Debug", ...
};
QWEN3TTS_API BuildInfo build_info();
// "0.2.0 (git 1a2b3c4d5e6f, avx512, Release)"
QWEN3TTS_API std::string version_string();

// Output files (audio, codes, voices) are written under a temporary name next to the target and
// renamed when complete. This deletes the temporaries of outputs still being written, so that an
// interrupted program leaves none behind. Async-signal-safe: meant for the program's own
// SIGINT/SIGTERM/SIGHUP handler, which then re-raises the signal; the library itself installs
// no signal handlers. (Defined in src/core/atomic_file.cpp.)
QWEN3TTS_API void remove_temporary_files() noexcept;

}  // namespace qwen3tts
