// attention(): one causal / sliding-window grouped-query attention for every model (talker
// and code predictor over their KV caches, the codec decoder's windowed transformer, Mimi's
// encoder transformer).
//
// Two schedules, the same arithmetic definition:
//  * row by row (reference, and the fast set for short query blocks such as a decode step):
//    dot products, max-subtracted exp, weights normalised by 1/sum; the fast set computes the
//    head_dim-long dot products and the weighted sum of values in SIMD registers (AVX-512 or
//    AVX2 + FMA), each query row on its own, so a row's result does not depend on the others;
//  * blocked GEMMs (fast set, long query blocks such as a 60 s reference clip): per head and
//    block of queries S = Q·Kᵀ and O = P·V through the conv GEMM kernel.
// They differ only in summation order (about 1e-7 relative).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "backend/cpu/cpu_features.hpp"
#include "backend/cpu/simd_targets.hpp"
#include "backend/ops.hpp"
#include "core/error.hpp"

namespace qwen3tts::backend {

namespace {

constexpr int64_t kGemmMinRows = 64;  // query rows from which the blocked schedule pays off
constexpr int64_t kQueryBlock = 128;  // queries per GEMM block

struct Args {
    const float* q;
    int64_t ldq;
    const float* k;
    const float* v;
    int64_t ld_kv;
    int64_t n, q_pos0;
    AttentionShape s;
    float* out;
    int64_t ldo;

    int64_t first_key(int64_t pos) const {
        return s.window > 0 ? std::max<int64_t>(0, pos - s.window + 1) : 0;
    }
};

// Softmax of scores[lo..hi] in place (max-subtracted, f32), scaled by 1/sum.
void softmax(float* scores, int64_t count) {
    float mx = -INFINITY;
    for (int64_t j = 0; j < count; ++j) mx = std::max(mx, scores[j]);
    float sum = 0.0f;
    for (int64_t j = 0; j < count; ++j) {
        scores[j] = std::exp(scores[j] - mx);
        sum += scores[j];
    }
    const float inv = 1.0f / sum;
    for (int64_t j = 0; j < count; ++j) scores[j] *= inv;
}

// Query rows × heads [task_begin, task_end) one at a time; `scores` holds q_pos0 + n values.
void rows_range(const Args& a, int64_t task_begin, int64_t task_end, float* scores) {
    const int64_t hd = a.s.head_dim, group = a.s.n_head / a.s.n_head_kv;
    const float scale = 1.0f / std::sqrt(float(hd));
    for (int64_t task = task_begin; task < task_end; ++task) {
        const int64_t i = task / a.s.n_head, h = task % a.s.n_head, kvh = h / group;
        const float* qi = a.q + i * a.ldq + h * hd;
        const int64_t hi = a.q_pos0 + i, lo = a.first_key(hi);
        for (int64_t t = lo; t <= hi; ++t) {
            const float* kt = a.k + t * a.ld_kv + kvh * hd;
            float dot = 0.0f;
            for (int64_t j = 0; j < hd; ++j) dot += qi[j] * kt[j];
            scores[t - lo] = dot * scale;
        }
        softmax(scores, hi - lo + 1);
        float* o = a.out + i * a.ldo + h * hd;
        std::fill(o, o + hd, 0.0f);
        for (int64_t t = lo; t <= hi; ++t) {
            const float p = scores[t - lo];
            const float* vt = a.v + t * a.ld_kv + kvh * hd;
            for (int64_t j = 0; j < hd; ++j) o[j] += p * vt[j];
        }
    }
}

// rows_range with the dot products and the value sums in AVX-512 registers; head_dim % 16 == 0.
QWEN3TTS_AVX512 void rows_range_avx512(const Args& a, int64_t task_begin, int64_t task_end,
                                       float* scores) {
    const int64_t hd = a.s.head_dim, group = a.s.n_head / a.s.n_head_kv;
    const float scale = 1.0f / std::sqrt(float(hd));
    for (int64_t task = task_begin; task < task_end; ++task) {
        const int64_t i = task / a.s.n_head, h = task % a.s.n_head, kvh = h / group;
        const float* qi = a.q + i * a.ldq + h * hd;
        const int64_t hi = a.q_pos0 + i, lo = a.first_key(hi);
        for (int64_t t = lo; t <= hi; ++t) {
            const float* kt = a.k + t * a.ld_kv + kvh * hd;
            // Two chains so that the FMA latency does not serialise the dot product.
            __m512 s0 = _mm512_mul_ps(_mm512_loadu_ps(qi), _mm512_loadu_ps(kt));
            __m512 s1 = _mm512_setzero_ps();
            for (int64_t j = 16; j < hd; j += 32) {
                s1 = _mm512_fmadd_ps(_mm512_loadu_ps(qi + j), _mm512_loadu_ps(kt + j), s1);
                if (j + 16 < hd)
                    s0 = _mm512_fmadd_ps(_mm512_loadu_ps(qi + j + 16), _mm512_loadu_ps(kt + j + 16),
                                         s0);
            }
            scores[t - lo] = _mm512_reduce_add_ps(_mm512_add_ps(s0, s1)) * scale;
        }
        softmax(scores, hi - lo + 1);
        float* o = a.out + i * a.ldo + h * hd;
        const float* v = a.v + kvh * hd;
        int64_t j = 0;
        for (; j + 64 <= hd; j += 64) {  // 64 outputs in four registers across all keys
            __m512 o0 = _mm512_setzero_ps(), o1 = _mm512_setzero_ps();
            __m512 o2 = _mm512_setzero_ps(), o3 = _mm512_setzero_ps();
            for (int64_t t = lo; t <= hi; ++t) {
                const __m512 p = _mm512_set1_ps(scores[t - lo]);
                const float* vt = v + t * a.ld_kv + j;
                o0 = _mm512_fmadd_ps(p, _mm512_loadu_ps(vt), o0);
                o1 = _mm512_fmadd_ps(p, _mm512_loadu_ps(vt + 16), o1);
                o2 = _mm512_fmadd_ps(p, _mm512_loadu_ps(vt + 32), o2);
                o3 = _mm512_fmadd_ps(p, _mm512_loadu_ps(vt + 48), o3);
            }
            _mm512_storeu_ps(o + j, o0);
            _mm512_storeu_ps(o + j + 16, o1);
            _mm512_storeu_ps(o + j + 32, o2);
            _mm512_storeu_ps(o + j + 48, o3);
        }
        for (; j < hd; j += 16) {
            __m512 o0 = _mm512_setzero_ps();
            for (int64_t t = lo; t <= hi; ++t)
                o0 = _mm512_fmadd_ps(_mm512_set1_ps(scores[t - lo]),
                                     _mm512_loadu_ps(v + t * a.ld_kv + j), o0);
            _mm512_storeu_ps(o + j, o0);
        }
    }
}

// The same with AVX2 + FMA; head_dim % 8 == 0.
QWEN3TTS_AVX2 void rows_range_avx2(const Args& a, int64_t task_begin, int64_t task_end,
                                   float* scores) {
    const int64_t hd = a.s.head_dim, group = a.s.n_head / a.s.n_head_kv;
    const float scale = 1.0f / std::sqrt(float(hd));
    for (int64_t task = task_begin; task < task_end; ++task) {
        const int64_t i = task / a.s.n_head, h = task % a.s.n_head, kvh = h / group;
        const float* qi = a.q + i * a.ldq + h * hd;
        const int64_t hi = a.q_pos0 + i, lo = a.first_key(hi);
        for (int64_t t = lo; t <= hi; ++t) {
            const float* kt = a.k + t * a.ld_kv + kvh * hd;
            __m256 s0 = _mm256_mul_ps(_mm256_loadu_ps(qi), _mm256_loadu_ps(kt));
            __m256 s1 = _mm256_setzero_ps();
            for (int64_t j = 8; j < hd; j += 16) {
                s1 = _mm256_fmadd_ps(_mm256_loadu_ps(qi + j), _mm256_loadu_ps(kt + j), s1);
                if (j + 8 < hd)
                    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(qi + j + 8), _mm256_loadu_ps(kt + j + 8),
                                         s0);
            }
            scores[t - lo] = hsum256(_mm256_add_ps(s0, s1)) * scale;
        }
        softmax(scores, hi - lo + 1);
        float* o = a.out + i * a.ldo + h * hd;
        const float* v = a.v + kvh * hd;
        int64_t j = 0;
        for (; j + 32 <= hd; j += 32) {
            __m256 o0 = _mm256_setzero_ps(), o1 = _mm256_setzero_ps();
            __m256 o2 = _mm256_setzero_ps(), o3 = _mm256_setzero_ps();
            for (int64_t t = lo; t <= hi; ++t) {
                const __m256 p = _mm256_set1_ps(scores[t - lo]);
                const float* vt = v + t * a.ld_kv + j;
                o0 = _mm256_fmadd_ps(p, _mm256_loadu_ps(vt), o0);
                o1 = _mm256_fmadd_ps(p, _mm256_loadu_ps(vt + 8), o1);
                o2 = _mm256_fmadd_ps(p, _mm256_loadu_ps(vt + 16), o2);
                o3 = _mm256_fmadd_ps(p, _mm256_loadu_ps(vt + 24), o3);
            }
            _mm256_storeu_ps(o + j, o0);
            _mm256_storeu_ps(o + j + 8, o1);
            _mm256_storeu_ps(o + j + 16, o2);
            _mm256_storeu_ps(o + j + 24, o3);
        }
        for (; j < hd; j += 8) {
            __m256 o0 = _mm256_setzero_ps();
            for (int64_t t = lo; t <= hi; ++t)
                o0 = _mm256_fmadd_ps(_mm256_set1_ps(scores[t - lo]),
                                     _mm256_loadu_ps(v + t * a.ld_kv + j), o0);
            _mm256_storeu_ps(o + j, o0);
        }
    }
}

// Below this many multiply-adds (q·k and p·v together) a parallel region's hand-off costs more
// than the work: a code-predictor step's attention over at most 17 keys runs on the caller.
constexpr int64_t kParallelMacs = int64_t(1) << 18;

// The row schedule over `count` independent attentions (streams) as one range of tasks, a
// task being one query row × head: one parallel region for all of them.
void attention_rows(const ExecContext& ctx, const Args* streams, int64_t count) {
    const AttentionShape& s = streams[0].s;
    const cpu::Isa isa =
        ctx.kernels == KernelSet::fast ? cpu::active_isa() : cpu::Isa::generic;  // may throw
    const bool avx512 = isa == cpu::Isa::avx512 && s.head_dim % 16 == 0;
    const bool avx2 = !avx512 && isa != cpu::Isa::generic && s.head_dim % 8 == 0;
    int64_t tasks = 0, macs = 0, longest = 0;
    for (int64_t j = 0; j < count; ++j) {
        const Args& a = streams[j];
        tasks += a.n * s.n_head;
        macs += a.n * s.n_head * (a.q_pos0 + a.n) * s.head_dim * 2;
        longest = std::max(longest, a.q_pos0 + a.n);
    }
    auto run = [&](int64_t begin, int64_t end) {
        // Grows to the longest context seen, then stays: no allocation in the steady state.
        thread_local std::vector<float> scores;
        if (scores.size() < size_t(longest)) scores.resize(size_t(longest) * 2);
        int64_t first = 0;  // the first task of stream j
        for (int64_t j = 0; j < count && first < end; ++j) {
            const Args& a = streams[j];
            const int64_t n_tasks = a.n * s.n_head;
            const int64_t b = std::max(begin, first) - first;
            const int64_t e = std::min(end, first + n_tasks) - first;
            first += n_tasks;
            if (b >= e) continue;
            if (avx512)
                rows_range_avx512(a, b, e, scores.data());
            else if (avx2)
                rows_range_avx2(a, b, e, scores.data());
            else
                rows_range(a, b, e, scores.data());
        }
    };
    if (ctx.pool && ctx.kernels == KernelSet::fast && macs >= kParallelMacs)
        ctx.pool->parallel_for(tasks, 1, run);
    else
        run(0, tasks);
}

// Heads [h_begin, h_end) as GEMMs over blocks of kQueryBlock queries.
void gemm_heads(const Args& a, int64_t h_begin, int64_t h_end) {
    const int64_t hd = a.s.head_dim, group = a.s.n_head / a.s.n_head_kv;
    const float scale = 1.0f / std::sqrt(float(hd));
    const int64_t n_keys = a.q_pos0 + a.n;
    std::vector<float> kh(size_t(n_keys * hd)), vt, scores;
    for (int64_t h = h_begin; h < h_end; ++h) {
        const int64_t kvh = h / group;
        for (int64_t t = 0; t < n_keys; ++t)
            std::memcpy(kh.data() + t * hd, a.k + t * a.ld_kv + kvh * hd,
                        sizeof(float) * size_t(hd));
        for (int64_t q0 = 0; q0 < a.n; q0 += kQueryBlock) {
            const int64_t q1 = std::min(a.n, q0 + kQueryBlock), nq = q1 - q0;
            const int64_t k_lo = a.first_key(a.q_pos0 + q0), k_hi = a.q_pos0 + q1;  // [k_lo, k_hi)
            const int64_t nk = k_hi - k_lo;
            // S [nq, nk] = Q_block · K[k_lo:k_hi]ᵀ
            const ConvWeights pk =
                cpu::pack_linear(kh.data() + k_lo * hd, int(nk), int(hd), nullptr);
            scores.resize(size_t(nq * nk));
            cpu::conv1d_gemm(pk, a.q + q0 * a.ldq + h * hd, a.ldq, nq, scores.data(), nk, false,
                             nullptr);
            for (int64_t i = 0; i < nq; ++i) {
                const int64_t pos = a.q_pos0 + q0 + i;
                const int64_t lo = a.first_key(pos) - k_lo, hi = pos - k_lo;  // inclusive
                float* s = scores.data() + i * nk;
                for (int64_t j = lo; j <= hi; ++j) s[j] *= scale;
                softmax(s + lo, hi - lo + 1);
                std::fill(s, s + lo, 0.0f);
                std::fill(s + hi + 1, s + nk, 0.0f);
            }
            // O [nq, hd] = P · V[k_lo:k_hi]; the prepared weight is Vᵀ [hd, nk].
            vt.resize(size_t(hd * nk));
            for (int64_t j = 0; j < nk; ++j)
                for (int64_t c = 0; c < hd; ++c)
                    vt[size_t(c * nk + j)] = a.v[(k_lo + j) * a.ld_kv + kvh * hd + c];
            const ConvWeights pv = cpu::pack_linear(vt.data(), int(hd), int(nk), nullptr);
            cpu::conv1d_gemm(pv, scores.data(), nk, nq, a.out + q0 * a.ldo + h * hd, a.ldo, false,
                             nullptr);
        }
    }
}

}  // namespace

void attention(const ExecContext& ctx, const float* q, int64_t ldq, const float* k, const float* v,
               int64_t ld_kv, int64_t n, int64_t q_pos0, const AttentionShape& s, float* out,
               int64_t ldo) {
    QWEN3TTS_ASSERT(s.n_head > 0 && s.n_head_kv > 0 && s.n_head % s.n_head_kv == 0);
    QWEN3TTS_ASSERT(s.head_dim > 0 && s.window >= 0 && q_pos0 >= 0);
    if (n <= 0) return;
    const Args a{q, ldq, k, v, ld_kv, n, q_pos0, s, out, ldo};
    if (ctx.kernels == KernelSet::reference || n < kGemmMinRows) {
        attention_rows(ctx, &a, 1);
        return;
    }
    auto run = [&](int64_t h_begin, int64_t h_end) { gemm_heads(a, h_begin, h_end); };
    if (ctx.pool)
        ctx.pool->parallel_for(s.n_head, 1, run);
    else
        run(0, s.n_head);
}

void attention_streams(const ExecContext& ctx, const float* q, int64_t ldq, const float* const* k,
                       const float* const* v, int64_t ld_kv, const int64_t* pos, int64_t n,
                       const AttentionShape& s, float* out, int64_t ldo) {
    QWEN3TTS_ASSERT(s.n_head > 0 && s.n_head_kv > 0 && s.n_head % s.n_head_kv == 0);
    QWEN3TTS_ASSERT(s.head_dim > 0 && s.window >= 0);
    if (n <= 0) return;
    // A step of 16 streams at most in practice: the per-stream arguments stay on the stack
    // up to that, beyond it in a buffer reused per thread.
    Args local[16];
    thread_local std::vector<Args> grown;
    Args* streams = local;
    if (n > 16) {
        grown.resize(size_t(n));
        streams = grown.data();
    }
    for (int64_t i = 0; i < n; ++i) {
        QWEN3TTS_ASSERT(pos[i] >= 0);
        streams[i] = Args{q + i * ldq, ldq, k[i], v[i], ld_kv, 1, pos[i], s, out + i * ldo, ldo};
    }
    attention_rows(ctx, streams, n);
}

}  // namespace qwen3tts::backend
