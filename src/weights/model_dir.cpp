#include "weights/model_dir.hpp"

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>

#include "core/error.hpp"

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

bool is_commit_hash(const std::string& s) {
    if (s.size() != 40) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
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
    if (!env("HF_HOME").empty()) return env("HF_HOME") + "/hub";
    if (!env("XDG_CACHE_HOME").empty()) return env("XDG_CACHE_HOME") + "/huggingface/hub";
    return env("HOME") + "/.cache/huggingface/hub";
}

std::string find_cached_snapshot(const std::string& cache_dir, const ModelRef& ref) {
    // huggingface_hub's folder name: models--Org--Name
    const std::string folder = "models--" + ref.repo_id.substr(0, ref.repo_id.find('/')) + "--" +
             ref.repo_id.substr(ref.repo_id.find('/') + 1);
    const std::string repo_dir = cache_dir + "/" + folder;
    std::string commit = ref.revision;
    if (!is_commit_hash(commit)) {
        std::ifstream in(repo_dir + "/refs/" + ref.revision);
        if (!(in >> commit)) return "";
    }
    const std::string snapshot = repo_dir + "/snapshots/" + commit;
    return is_dir(snapshot) ? snapshot : "";
}

std::string resolve_model_dir(const std::string& spec) {
    if (spec.empty()) throw Error(ErrorCode::invalid_argument, "no model given (--model)");
    if (is_dir(spec)) return spec;
    if (!looks_like_repo_id(spec))
        throw Error(ErrorCode::io, "model directory '" + spec + "' does not exist");
    const ModelRef ref = parse_model_ref(spec);
    const std::string cache = hf_hub_cache_dir();
    const std::string snapshot = find_cached_snapshot(cache, ref);
    if (snapshot.empty())
        throw Error(ErrorCode::io, "model '" + spec + "' is neither a local directory nor in the "
                                   "Hugging Face cache at " + cache + " (revision '" +
                                   ref.revision + "')");
    return snapshot;
}

}  // namespace qwen3tts
