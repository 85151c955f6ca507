#include "weights/model_dir.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "core/error.hpp"
#include "core/text_file.hpp"
#include "weights/hf_cache.hpp"

namespace qwen3tts {

namespace {

bool is_dir(const std::string& p) {
    struct stat st;
    return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
}

}  // namespace

bool looks_like_repo_id(const std::string& spec) {
    if (spec.empty() || spec[0] == '/' || spec[0] == '.' || spec[0] == '~') return false;
    if (is_dir(spec)) return false;
    const std::string id = spec.substr(0, spec.find('@'));
    const auto slash = id.find('/');
    return slash != std::string::npos && slash > 0 && slash + 1 < id.size() &&
           id.find('/', slash + 1) == std::string::npos;
}

ModelRef parse_model_ref(const std::string& spec) {
    ModelRef ref;
    const auto at = spec.find('@');
    ref.repo_id = spec.substr(0, at);
    ref.revision = at == std::string::npos ? "main" : spec.substr(at + 1);
    if (ref.revision.empty()) ref.revision = "main";
    return ref;
}

std::string hf_hub_cache_dir() {
    if (!env("HF_HUB_CACHE").empty()) return env("HF_HUB_CACHE");
    if (!env("HUGGINGFACE_HUB_CACHE").empty()) return env("HUGGINGFACE_HUB_CACHE");  // old name
    if (!env("HF_HOME").empty()) return env("HF_HOME") + "/hub";
    if (!env("XDG_CACHE_HOME").empty()) return env("XDG_CACHE_HOME") + "/huggingface/hub";
    return env("HOME") + "/.cache/huggingface/hub";
}

std::string find_cached_snapshot(const std::string& cache_dir, const ModelRef& ref) {
    const std::string repo_dir = repo_cache_dir(cache_dir, ref.repo_id);
    std::string commit = ref.revision;
    if (!is_commit_hash(commit)) {
        commit = read_first_word(repo_dir + "/refs/" + ref.revision);
        if (!is_commit_hash(commit)) return "";  // a ref names a commit
    }
    const std::string snapshot = repo_dir + "/snapshots/" + commit;
    return is_dir(snapshot) ? snapshot : "";
}

std::string find_local_model_dir(const std::string& spec, bool accept_partial) {
    if (spec.empty()) throw Error(ErrorCode::invalid_argument, "no model given (--model)");
    if (is_dir(spec)) return spec;
    struct stat st;
    if (::stat(spec.c_str(), &st) == 0)
        throw Error(ErrorCode::invalid_argument,
                    "model '" + spec +
                        "' is a file; give the model folder (the one holding config.json and "
                        "model.safetensors) or a Hugging Face repo id Org/Name");
    if (!looks_like_repo_id(spec))
        throw Error(ErrorCode::io, "model directory '" + spec + "' does not exist");
    const std::string snapshot = find_cached_snapshot(hf_hub_cache_dir(), parse_model_ref(spec));
    // A snapshot from `pull --include` may lack the weights: not usable unless told so.
    const bool complete = file_size_or_neg(snapshot + "/config.json") >= 0 &&
                          (file_size_or_neg(snapshot + "/model.safetensors") >= 0 ||
                           file_size_or_neg(snapshot + "/model.safetensors.index.json") >= 0);
    return !snapshot.empty() && (complete || accept_partial) ? snapshot : "";
}

std::string resolve_model_dir(const std::string& spec) {
    const std::string dir = find_local_model_dir(spec, true);
    if (!dir.empty()) return dir;
    const ModelRef ref = parse_model_ref(spec);
    throw Error(ErrorCode::io, "model '" + spec +
                                   "' is neither a local directory nor in the "
                                   "Hugging Face cache at " +
                                   hf_hub_cache_dir() + " (revision '" + ref.revision +
                                   "'); download it with `qwen3tts pull " + spec + "`");
}

}  // namespace qwen3tts
