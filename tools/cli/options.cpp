#include "options.hpp"

#include <algorithm>
#include <cstdio>

#include "commands.hpp"
#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts::cli {

namespace {

std::string shortest(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

const std::string kFromModel = "the model's, generation_config.json";

// ---- model ----
const OptionSpec kModel{"model", "model", "MODEL",
                        "checkpoint folder, or Hugging Face repo id Org/Name[@revision]",
                        kDefaultModel};
const OptionSpec kPretokenizer{"pretokenizer", "model", "NAME",
                               "pre-tokeniser: qwen2 or mistral_fixed (docs/tokenizer.md)",
                               LoadOptions().pretokenizer};
const OptionSpec kQuant{"quant", "model", "SPEC",
                        "bf16 (as stored, exact), q8, q4, or talker=F,predictor=F",
                        LoadOptions().quant};
const OptionSpec kCodecConv{"codec-conv", "model", "direct|winograd",
                            "codec's 7-tap convs: direct, or Winograd F(4,7) (docs/codec.md)",
                            LoadOptions().codec_conv};
const OptionSpec kNoMmap{"no-mmap", "model", "", "read the whole checkpoint into memory", "mapped"};

// ---- text ----
const OptionSpec kText{"text",     "text", "TEXT", "text to speak; - reads standard input",
                       "required", false,  0,      "batch"};
const OptionSpec kIncremental{"incremental", "text", "",
                              "with --text -: feed stdin to the request as it arrives",
                              "read all of it first"};
const OptionSpec kBenchText{"text", "text", "TEXT", "text to speak; - reads standard input",
                            "a fixed English sentence"};
const OptionSpec kLanguage{"language", "text", "LANG",
                           "auto, or a name or code (en, zh, ...) that `qwen3tts info` lists",
                           "auto"};
const OptionSpec kSpeaker{"speaker", "text", "NAME",
                          "CustomVoice speaker, required there (`qwen3tts info` lists them)", ""};
const OptionSpec kBenchSpeaker{"speaker", "text", "NAME", "CustomVoice speaker",
                               "the model's first speaker"};
const OptionSpec kInstruct{"instruct", "text", "TEXT",
                           "style instruction (VoiceDesign, 1.7B CustomVoice); - reads stdin", ""};
const OptionSpec kTextLayout{"text-layout", "text", "auto|streaming|non-streaming",
                             "how the text is fed to the talker",
                             "auto: non-streaming, streaming for Base models"};
const OptionSpec kSegmentChars{"segment-chars", "text", "N",
                               "long text: segments of <= N characters, one generation each",
                               "0: the whole text in one generation"};

// ---- voice cloning ----
const OptionSpec kVoice{"voice", "voice cloning (Base models)", "FILE.voice",
                        "a voice made by `qwen3tts voice`", ""};
const OptionSpec kRefAudio{"ref-audio", "voice cloning (Base models)", "FILE",
                           "reference audio to clone (WAV, FLAC, Ogg, MP3; any rate)", ""};
const OptionSpec kVoiceRefAudio{"ref-audio", "voice cloning (Base models)", "FILE",
                                "reference audio to clone (WAV, FLAC, Ogg, MP3; any rate)",
                                "required"};
const OptionSpec kRefText{"ref-text", "voice cloning (Base models)", "TEXT",
                          "reference transcript (unless --x-vector-only); - reads stdin", ""};
const OptionSpec kXVectorOnly{"x-vector-only", "voice cloning (Base models)", "",
                              "clone from the speaker embedding alone (no transcript)",
                              "in-context"};
const OptionSpec kMaxSecondsVoice{"max-seconds", "voice cloning (Base models)", "SECONDS",
                                  "longest reference audio accepted",
                                  shortest(VoiceCloneOptions().max_seconds)};

// ---- sampling ----
const OptionSpec kSeed{"seed", "sampling", "N", "sampling seed, 0 ... 18446744073709551615",
                       "random, printed in the closing line"};
const OptionSpec kGreedy{"greedy", "sampling", "",
                         "argmax decoding (official do_sample=False): no sampling", "sampling"};
const OptionSpec kTemperature{"temperature", "sampling", "T", "talker temperature, > 0",
                              kFromModel};
const OptionSpec kTopK{"top-k", "sampling", "K", "talker top-k, >= 0 (0 = off)", kFromModel};
const OptionSpec kTopP{"top-p", "sampling", "P", "talker top-p, in (0, 1]", kFromModel};
const OptionSpec kRepetitionPenalty{"repetition-penalty", "sampling", "R",
                                    "talker repetition penalty, > 0", kFromModel};
const OptionSpec kSubTemperature{"subtalker-temperature", "sampling", "T",
                                 "code predictor temperature, > 0", kFromModel};
const OptionSpec kSubTopK{"subtalker-top-k", "sampling", "K",
                          "code predictor top-k, >= 0 (0 = off)", kFromModel};
const OptionSpec kSubTopP{"subtalker-top-p", "sampling", "P", "code predictor top-p, in (0, 1]",
                          kFromModel};
const OptionSpec kMaxFrames{"max-frames", "sampling", "N",
                            "stop after N frames (12.5 frames per second of audio)",
                            "the model's, generation_config.json max_new_tokens - 1"};
const OptionSpec kMinFrames{"min-frames", "sampling", "N",
                            "no end of speech before N frames (at most --max-frames)",
                            "0: the model decides"};

// ---- engine ----
const OptionSpec kThreads{"threads", "engine", "N",
                          "worker threads; 0 = all online CPUs (more are capped to them)",
                          std::to_string(EngineOptions().threads)};
const OptionSpec kKernels{"kernels", "engine", "fast|reference",
                          "reference = plain fp32 loops (slow; for verification)", "fast"};
const OptionSpec kOversubscribe{"oversubscribe", "engine", "",
                                "allow more --threads than online CPUs", "capped"};

// ---- output ----
const OptionSpec kOutAudio{
    "out",      "output",
    "FILE",     "audio file (.wav .flac .ogg .opus .mp3 .pcm .raw .npy); - = stdout",
    "required", false,
    0,          "batch"};
const OptionSpec kOutCodes{"out",      "output", "FILE.npy", "codec frames, int64 [frames, 16]",
                           "required", false,    0,          "batch"};
const OptionSpec kOutVoice{"out", "output", "FILE.voice", "the voice file to write", "required"};
const OptionSpec kFormat{"format", "output", "NAME",
                         "wav, wav-f32, flac, opus, mp3, pcm or npy (agreeing with --out)",
                         "from the extension of --out (stdout: wav)"};
const OptionSpec kCodecDecode{"codec-decode", "output", "streaming|official-chunked",
                              "streaming: exact, audio per frame; official-chunked: Python parity",
                              "streaming"};
const OptionSpec kCodecOverlap{"codec-overlap", "output", "auto|on|off",
                               "codec beside the generation, one thread each (auto: where faster)",
                               "auto"};
const OptionSpec kStream{"stream", "output", "",
                         "flush audio as each frame is decoded (play while generating)", "off"};
const OptionSpec kQuiet{
    "quiet", "output", "", "no progress line on the terminal", "progress on a TTY", false, 'q'};

// ---- batch ----
const OptionSpec kBatch{"batch", "batch", "FILE.jsonl",
                        "one request per line, all run at once (fields: docs/cli.md)", ""};
const OptionSpec kOutDir{"out-dir", "batch", "DIR", "where --batch writes <id>.<ext>",
                         "required with --batch"};
const OptionSpec kMaxBatch{"max-batch", "batch", "N", "requests generating at once",
                           std::to_string(SchedulerOptions().max_batch)};

// ---- per command ----
const OptionSpec kCodesIn{"codes", "input", "FILE.npy", "codec frames, int64 [frames, 16]",
                          "required"};
const OptionSpec kAudioIn{"audio", "input", "FILE", "audio to encode (WAV, FLAC, Ogg, MP3)",
                          "required"};
const OptionSpec kMaxSecondsEncode{"max-seconds", "input", "SECONDS", "longest audio accepted",
                                   shortest(kEncodeMaxSeconds)};
const OptionSpec kFrames{"frames", "benchmark", "N",
                         "frames per run, exactly (end of speech suppressed)", "32"};
const OptionSpec kRuns{"runs", "benchmark", "N", "runs (medians are printed)", "3"};
const OptionSpec kStreams{"streams", "benchmark", "N",
                          "N requests at once through the scheduler (docs/benchmarks.md)",
                          "one request, no scheduler"};
const OptionSpec kJson{"json", "benchmark", "",
                       "print one JSON object (docs/benchmarks.md lists its fields)", "text"};
const OptionSpec kNoCodec{"no-codec", "benchmark", "", "skip the speech (codec) measurements",
                          "measured"};
const OptionSpec kInclude{"include",   "download",
                          "GLOB",      "only files matching GLOB ('*' matches '/'); repeatable",
                          "all files", true};
const OptionSpec kPullQuiet{"quiet", "download", "", "no progress output", "progress on stderr",
                            false,   'q'};

// ---- serve ----
const OptionSpec kHost{"host", "server", "ADDRESS", "IP address to listen on (0.0.0.0: all)",
                       "127.0.0.1"};
const OptionSpec kPort{"port", "server", "N", "TCP port (0: any free port)", "8000"};
const OptionSpec kApiKey{"api-key", "server", "KEY",
                         "require Authorization: Bearer KEY (/health and / stay public)",
                         "$QWEN3TTS_API_KEY, else none"};
const OptionSpec kServeMaxBatch{"max-batch", "server", "N",
                                "requests generated together in one batch",
                                std::to_string(SchedulerOptions().max_batch)};
const OptionSpec kMaxQueue{"max-queue", "server", "N",
                           "requests waiting beyond those; more are answered 429", "16"};
const OptionSpec kVoicesDir{"voices-dir", "server", "DIR",
                            "where /v1/audio/voices keeps .voice files (created if missing)",
                            "no voices endpoints"};
const OptionSpec kMaxInputChars{"max-input-chars", "server", "N",
                                "longest input and instructions, in characters", "4096"};
const OptionSpec kServeSegmentChars{"segment-chars", "server", "N",
                                    "long inputs: segments of <= N characters (request default)",
                                    "0: one generation"};
const OptionSpec kMaxBodyMb{"max-body-mb", "server", "N",
                            "largest request body in MiB (413 beyond)", "32"};
const OptionSpec kMaxBodyMemoryMb{"max-body-memory-mb", "server", "N",
                                  "request bodies in memory at once, in MiB (503 beyond)", "256"};
const OptionSpec kStreamIdleTimeout{"stream-idle-timeout", "server", "SECONDS",
                                    "WebSocket streams: longest client silence before input.done",
                                    "30"};
const OptionSpec kShutdownGrace{"shutdown-grace", "server", "SECONDS",
                                "on SIGTERM, time the running requests get to finish", "10"};

const std::string kSynthesisNotes =
    "languages: --language takes auto, a language name that `qwen3tts info` lists, or its code\n"
    "  (en, zh, ja, ko, de, fr, ru, pt, es, it). Dialects (beijing_dialect, sichuan_dialect) are\n"
    "  not --language values, as in the official code: the speaker that carries one speaks it\n"
    "  when --language is auto or chinese (`qwen3tts info` shows which speaker).\n"
    "seeds: without --seed every run draws a random seed and prints it in the closing line;\n"
    "  --seed N with the same text and options reproduces that run exactly.\n"
    "progress: on a terminal, runs longer than 2 s show frames, seconds of audio and the\n"
    "  real-time factor so far on stderr (--quiet: none); elsewhere only the closing line.";

const std::string kBatchNotes =
    "\nbatch: --batch FILE.jsonl --out-dir DIR runs every line's request at once, each line a\n"
    "  JSON object with \"id\" (the output file's stem) and \"text\", and any of speaker,\n"
    "  language, instruct, voice, ref_audio, ref_text, x_vector_only, text_layout, seed, greedy,\n"
    "  temperature, top_k, top_p, repetition_penalty, max_frames (and format for speak); the\n"
    "  command line's options are the defaults. A bad line is reported with its number and the\n"
    "  others go on; the exit status is 1 when any failed.";

std::vector<const OptionSpec*> synthesis(std::vector<const OptionSpec*> extra, bool bench) {
    std::vector<const OptionSpec*> o = {&kModel,
                                        &kPretokenizer,
                                        &kQuant,
                                        &kNoMmap,
                                        bench ? &kBenchText : &kText,
                                        &kLanguage,
                                        bench ? &kBenchSpeaker : &kSpeaker,
                                        &kInstruct,
                                        &kTextLayout,
                                        &kVoice,
                                        &kRefAudio,
                                        &kRefText,
                                        &kXVectorOnly,
                                        &kSeed,
                                        &kGreedy,
                                        &kTemperature,
                                        &kTopK,
                                        &kTopP,
                                        &kRepetitionPenalty,
                                        &kSubTemperature,
                                        &kSubTopK,
                                        &kSubTopP,
                                        &kMaxFrames};
    if (!bench) {  // bench times single generations of --frames frames
        o.push_back(&kMinFrames);
        o.insert(std::find(o.begin(), o.end(), &kTextLayout) + 1, &kSegmentChars);
    }
    o.insert(o.end(), {&kThreads, &kKernels, &kOversubscribe});
    o.insert(o.end(), extra.begin(), extra.end());
    return o;
}

}  // namespace

const OptionSpec kHelp{"help", "general", "", "show this help and exit", "", false, 'h'};

const std::vector<CommandSpec>& commands() {
    static const std::vector<CommandSpec> all = {
        {"speak", "text -> speech (wav, flac, ogg/opus, mp3, pcm, npy)", "", false,
         synthesis({&kCodecConv, &kIncremental, &kOutAudio, &kFormat, &kCodecDecode, &kCodecOverlap,
                    &kStream, &kQuiet, &kBatch, &kOutDir, &kMaxBatch},
                   false),
         cmd_speak, kSynthesisNotes + kBatchNotes},
        {"codes", "text -> codec frames (.npy, int64 [frames, 16])", "", false,
         synthesis({&kIncremental, &kOutCodes, &kQuiet, &kBatch, &kOutDir, &kMaxBatch}, false),
         cmd_codes, kSynthesisNotes + kBatchNotes},
        {"decode",
         "codec frames (.npy) -> speech",
         "",
         false,
         {&kModel, &kCodecConv, &kCodesIn, &kOutAudio, &kFormat, &kCodecDecode, &kThreads},
         cmd_decode},
        {"voice",
         "reference audio -> a reusable .voice file (Base models)",
         "",
         false,
         {&kModel, &kPretokenizer, &kVoiceRefAudio, &kRefText, &kXVectorOnly, &kMaxSecondsVoice,
          &kOutVoice, &kQuiet},
         cmd_voice},
        {"encode",
         "audio -> codec frames (.npy)",
         "",
         false,
         {&kModel, &kAudioIn, &kMaxSecondsEncode, &kThreads, &kOutCodes, &kQuiet},
         cmd_encode},
        {"info",
         "a model's variant, size, speakers (with dialects) and languages",
         "",
         false,
         {&kModel, &kPretokenizer},
         cmd_info},
        {"bench", "measure load, prefill and per-frame time", "", false,
         synthesis({&kCodecConv, &kCodecOverlap, &kFrames, &kRuns, &kNoCodec, &kStreams, &kJson},
                   true),
         cmd_bench},
        {"pull",
         "download a model from the Hugging Face hub into the cache",
         "Org/Name[@revision]",
         true,
         {&kInclude, &kPullQuiet},
         cmd_pull,
         "Downloads the revision (default: main) into the Hugging Face cache and prints the\n"
         "snapshot directory on stdout.\n"
         "environment: HF_ENDPOINT, HF_TOKEN, HF_HOME, HF_HUB_CACHE, HF_HUB_OFFLINE"},
        {"list",
         "list the models in the Hugging Face cache",
         "",
         false,
         {},
         cmd_list,
         "The cache is $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub."},
        {"serve",
         "OpenAI-compatible speech server: /v1/audio/speech, voices, web page",
         "",
         false,
         {&kModel, &kPretokenizer, &kQuant, &kCodecConv, &kNoMmap, &kHost, &kPort, &kApiKey,
          &kServeMaxBatch, &kMaxQueue, &kVoicesDir, &kMaxInputChars, &kServeSegmentChars,
          &kMaxBodyMb, &kMaxBodyMemoryMb, &kStreamIdleTimeout, &kShutdownGrace, &kThreads},
         cmd_serve,
         "Endpoints, request fields and deployment: docs/serving.md. Logs (one line per\n"
         "request) go to stderr. SIGINT/SIGTERM: running requests finish, then exit 0."},
        {"help", "show the commands, or one command's options", "COMMAND", false, {}, cmd_help},
    };
    return all;
}

const CommandSpec* find_command(const std::string& name) {
    for (const auto& c : commands())
        if (c.name == name) return &c;
    return nullptr;
}

}  // namespace qwen3tts::cli
