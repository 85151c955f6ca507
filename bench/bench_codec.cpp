// Codec decoder throughput: ms of compute per second of audio (median of N runs), GFLOP/s
// achieved vs the machine's fp32 FMA peak (measured at start with a short register-only loop
// on 1 and `threads` threads; --peak overrides), one-shot and streaming, and the time from
// a new stream to the first packet's audio. On a shared machine wall-clock rates depend on
// what the scheduler grants, so each rate is also given per CPU-second (flops over the CPU
// time actually used), which moves much less with load.
// usage: bench_codec <model or speech_tokenizer dir> [--frames N] [--threads T] [--runs R]
//                    [--packet P] [--stream 0|1] [--chunk F] [--isa avx512|avx2|generic]
//                    [--peak GFLOPS] [--codec-conv direct|winograd]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "backend/cpu/conv_gemm.hpp"
#include "backend/cpu/cpu_features.hpp"
#include "backend/machine_probe.hpp"
#include "core/error.hpp"
#include "core/thread_pool.hpp"
#include "model/codec_decoder.hpp"

using namespace qwen3tts;

namespace {

double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

double clock_s(clockid_t id) {
    timespec ts;
    clock_gettime(id, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// CPU seconds used by the whole process (all threads; includes the pool's brief spinning).
double cpu_s() {
    return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// Peak loops: the FMA (or vdpbf16ps) chains of the machine probe at the active level, no memory
// traffic, timed here per thread and per CPU-second. Return the flops done.
constexpr int64_t kPeakIters = 20'000'000;

double fp32_loop() {
    return backend::fp32_chains(kPeakIters);
}

double bf16_loop() {
    return backend::bf16_chains(kPeakIters);
}

struct Peak {
    double wall = 0;  // GFLOP/s of all threads by wall clock (what the scheduler granted)
    double cpu = 0;   // GFLOP per CPU-second of one thread (the core's own peak)
};

// `loop` run on n_thread threads at once.
Peak peak_gflops(double (*loop)(), int n_thread) {
    std::vector<std::thread> th;
    std::vector<double> flops(static_cast<size_t>(n_thread), 0.0);
    std::vector<double> cpu(static_cast<size_t>(n_thread), 0.0);
    const double t0 = now_s();
    for (int i = 0; i < n_thread; ++i)
        th.emplace_back([&, i] {
            const double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
            flops[size_t(i)] = loop();
            cpu[size_t(i)] = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
        });
    for (auto& t : th) t.join();
    const double dt = now_s() - t0;
    Peak p;
    for (size_t i = 0; i < flops.size(); ++i) {
        p.wall += flops[i] / dt * 1e-9;
        p.cpu = std::max(p.cpu, flops[i] / cpu[i] * 1e-9);
    }
    return p;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: %s <model dir> [--frames N] [--threads T] [--runs R] [--packet P] "
                     "[--stream 0|1] [--chunk F] [--conv-chunk F] [--isa avx512|avx2|generic] "
                     "[--peak GFLOPS] [--batch B] [--codec-conv direct|winograd]\n",
                     argv[0]);
        return 2;
    }
    std::string dir = argv[1];
    int frames = 125, threads = 2, runs = 5, packet = 4, chunk = 32, conv_chunk = 4, streaming = 1;
    int batch = 0;
    double peak = 0, peak_cpu = 0;
    std::string isa;
    CodecDecoderOptions options;
    for (int i = 2; i + 1 < argc; i += 2) {
        const std::string k = argv[i];
        const char* v = argv[i + 1];
        if (k == "--frames")
            frames = std::atoi(v);
        else if (k == "--threads")
            threads = std::atoi(v);
        else if (k == "--runs")
            runs = std::atoi(v);
        else if (k == "--packet")
            packet = std::atoi(v);
        else if (k == "--chunk")
            chunk = std::atoi(v);
        else if (k == "--conv-chunk")
            conv_chunk = std::atoi(v);
        else if (k == "--isa")
            isa = v;
        else if (k == "--stream")
            streaming = std::atoi(v);
        else if (k == "--peak")
            peak = std::atof(v);
        else if (k == "--batch")
            batch = std::atoi(v);
        else if (k == "--codec-conv") {
            if (std::string(v) != "direct" && std::string(v) != "winograd") {
                std::fprintf(stderr, "--codec-conv: direct or winograd, got '%s'\n", v);
                return 2;
            }
            options.winograd = std::string(v) == "winograd";
        } else {
            std::fprintf(stderr, "unknown option %s\n", k.c_str());
            return 2;
        }
    }
    try {
        cpu::Isa level;
        if (!isa.empty() && !(cpu::parse_isa(isa, &level) && cpu::set_max_isa(level))) {
            std::fprintf(stderr, "ISA %s not available\n", isa.c_str());
            return 2;
        }
        // The peak of the level the kernels run at (--isa avx2: 8 lanes).
        const Peak p1 = peak_gflops(fp32_loop, 1);
        const Peak pn = peak_gflops(fp32_loop, threads);
        std::printf(
            "machine fp32 FMA peak: %.0f GFLOP/s on 1 thread, %.0f on %d (wall); "
            "%.0f per CPU-second of one thread\n",
            p1.wall, pn.wall, threads, std::max(p1.cpu, pn.cpu));
        if (cpu::active_isa() == cpu::Isa::avx512 && backend::has_avx512_bf16()) {
            const Peak b1 = peak_gflops(bf16_loop, 1);
            std::printf(
                "machine bf16 vdpbf16ps peak: %.0f GFLOP/s on 1 thread (wall), %.0f "
                "per CPU-second\n",
                b1.wall, b1.cpu);
        }
        if (peak <= 0) peak = pn.wall;
        peak_cpu = std::max(p1.cpu, pn.cpu);
        double t0 = now_s();
        auto dec = CodecDecoder::load(dir, options);
        const double t_load = now_s() - t0;
        ThreadPool pool(threads);
        const backend::ExecContext ctx{backend::KernelSet::fast, &pool};
        const int ncb = dec->n_codebook();
        std::mt19937 rng(1234);
        std::uniform_int_distribution<int> dist(0, dec->config().codebook_size - 1);
        std::vector<int64_t> codes(size_t(frames) * ncb);
        for (auto& c : codes) c = dist(rng);
        const double audio_s = double(frames) * dec->samples_per_frame() / dec->sample_rate();
        const double gflop = dec->flops(frames) * 1e-9;
        std::printf(
            "codec bench: %s\n  load %.2f s, isa %s, threads %d, convs %s, frames %d (%.2f s "
            "audio), %.2f GFLOP (%.1f GFLOP per s of audio; the direct sums' count)\n",
            dir.c_str(), t_load, cpu::conv_gemm_isa(), threads,
            options.winograd ? "winograd" : "direct", frames, audio_s, gflop, gflop / audio_s);

        {
            auto s = dec->new_stream(ctx, chunk, conv_chunk);
            std::printf("  stream memory (chunk %d/%d): state %.2f MB, scratch %.1f MB\n", chunk,
                        conv_chunk, s->state_bytes() / 1e6, s->scratch_bytes() / 1e6);
        }
        std::vector<float> wav(size_t(frames) * dec->samples_per_frame());
        auto bench = [&](const char* label, int chunk_frames, int packet_frames) {
            auto stream = dec->new_stream(ctx, chunk_frames, conv_chunk);
            std::vector<double> times, cpu_times;
            for (int r = 0; r < runs + 1; ++r) {  // first run warms caches and pages
                stream->reset();
                const double s = now_s(), c0 = cpu_s();
                for (int f = 0, n = 0; f < frames; f += n) {
                    // packet_frames 0: next_packet_frames() (1, 1, 2, 4, ... up to chunk_frames)
                    n = std::min(packet_frames > 0 ? packet_frames
                                                   : stream->next_packet_frames(chunk_frames),
                                 frames - f);
                    stream->decode_frames(codes.data() + size_t(f) * ncb, n,
                                          wav.data() + size_t(f) * dec->samples_per_frame());
                }
                if (r > 0) {
                    times.push_back(now_s() - s);
                    cpu_times.push_back(cpu_s() - c0);
                }
            }
            const double t = median(times);
            std::printf(
                "  %-28s median %8.1f ms per s of audio  (%.3f RTF, %6.1f GFLOP/s = %4.1f%% "
                "of %.0f), min %.1f, max %.1f ms/s, N=%d\n",
                label, 1e3 * t / audio_s, t / audio_s, gflop / t, 100.0 * gflop / t / peak, peak,
                1e3 * *std::min_element(times.begin(), times.end()) / audio_s,
                1e3 * *std::max_element(times.begin(), times.end()) / audio_s, runs);
            const double c = median(cpu_times);
            std::printf(
                "  %-28s CPU time: median %8.1f ms per s of audio (all threads), %.1f "
                "GFLOP per CPU-second = %.1f%% of %.0f\n",
                "", 1e3 * c / audio_s, gflop / c, 100.0 * gflop / c / peak_cpu, peak_cpu);
        };
        {  // per-stage breakdown of one one-shot run, from the tap hook's timestamps
            auto stream = dec->new_stream(ctx, chunk, conv_chunk);
            std::vector<std::pair<std::string, double>> stages;
            double last = 0;
            stream->set_tap([&](const char* name, const float*, int64_t, int) {
                const double t = now_s();
                auto it = std::find_if(stages.begin(), stages.end(),
                                       [&](const auto& p) { return p.first == name; });
                if (it == stages.end()) stages.emplace_back(name, 0.0), it = stages.end() - 1;
                if (std::string(name) != "quantizer") it->second += t - last;
                last = t;
            });
            for (int f = 0; f < frames; f += chunk) {
                const int n = std::min(chunk, frames - f);
                last = now_s();
                stream->decode_frames(codes.data() + size_t(f) * ncb, n,
                                      wav.data() + size_t(f) * dec->samples_per_frame());
            }
            std::printf("  stage breakdown (ms per s of audio):");
            for (const auto& [name, t] : stages)
                std::printf(" %s %.1f", name.c_str(), 1e3 * t / audio_s);
            std::printf("\n");
        }
        {  // time to first audio: a new stream, then its first packet (1 frame, then `packet`)
            for (const int first : {1, packet}) {
                std::vector<double> ms;
                for (int r = 0; r < runs + 1; ++r) {
                    const double s = now_s();
                    auto stream = dec->new_stream(ctx, std::max(packet, 1), conv_chunk);
                    stream->decode_frames(codes.data(), std::min(first, frames), wav.data());
                    if (r > 0) ms.push_back(1e3 * (now_s() - s));
                }
                std::printf(
                    "  first audio, %d-frame first packet: median %.1f ms (new stream + "
                    "decode), min %.1f, N=%d\n",
                    first, median(ms), *std::min_element(ms.begin(), ms.end()), runs);
            }
        }
        char label[64];
        std::snprintf(label, sizeof label, "one-shot (chunk %d/%d)", chunk, conv_chunk);
        bench(label, chunk, frames);
        if (streaming) {
            std::snprintf(label, sizeof label, "stream %d-frame packets", packet);
            bench(label, std::max(packet, 1), packet);
            bench("stream 1-frame packets", 1, 1);
            bench("stream growing packets", std::max(packet, 1), 0);
        }
        if (batch > 0) {
            // `batch` streams in packets of `packet` frames, as a server decodes its requests:
            // one stream after the other, or all of them at once (CodecStream::decode_batch),
            // alternating runs. Reported per second of audio of one stream.
            std::vector<std::unique_ptr<CodecStream>> streams;
            std::vector<CodecStream*> ptr;
            for (int b = 0; b < batch; ++b) {
                streams.push_back(dec->new_stream(ctx, std::max(packet, 1), conv_chunk));
                ptr.push_back(streams.back().get());
            }
            std::vector<std::vector<float>> out(size_t(batch), wav);
            std::vector<double> t_one, t_all;
            for (int r = 0; r < runs + 1; ++r)
                for (const bool together : {false, true}) {
                    for (auto& st : streams) st->reset();
                    const double s = now_s();
                    for (int f = 0; f < frames; f += packet) {
                        const int64_t n = std::min(packet, frames - f);
                        const int64_t* c = codes.data() + size_t(f) * ncb;
                        std::vector<const int64_t*> in(size_t(batch), c);
                        std::vector<int64_t> nf(size_t(batch), n);
                        std::vector<float*> o;
                        for (auto& w : out)
                            o.push_back(w.data() + size_t(f) * dec->samples_per_frame());
                        if (together)
                            CodecStream::decode_batch(ptr.data(), in.data(), nf.data(), o.data(),
                                                      batch);
                        else
                            for (int b = 0; b < batch; ++b)
                                ptr[size_t(b)]->decode_frames(c, n, o[size_t(b)]);
                    }
                    if (r > 0) (together ? t_all : t_one).push_back(now_s() - s);
                }
            const double one = median(t_one) / batch, all = median(t_all) / batch;
            std::printf(
                "  %d streams, %d-frame packets: one by one %.1f ms per s of audio per stream, "
                "batched %.1f (%.2fx), N=%d\n",
                batch, packet, 1e3 * one / audio_s, 1e3 * all / audio_s, one / all, runs);
        }
    } catch (const Error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
    return 0;
}
