// The public hub API (include/qwen3tts/qwen3tts.hpp, namespace qwen3tts::hub) over the hub
// layer (src/hub).
#include "hub/hub_cache.hpp"
#include "hub/hub_pull.hpp"
#include "qwen3tts/qwen3tts.hpp"
#include "weights/model_dir.hpp"

namespace qwen3tts::hub {

PullResult pull(const std::string& repo, const PullOptions& options) {
    qwen3tts::PullOptions o;
    o.include = options.include;
    o.quiet = options.quiet;
    o.on_progress = options.on_progress;
    const qwen3tts::PullResult r = pull_model(repo, o);
    return PullResult{r.snapshot_dir, r.commit, r.n_files, r.n_downloaded, r.offline};
}

std::string model_dir(const std::string& model) {
    return resolve_or_pull_model_dir(model);
}

std::string cache_dir() {
    return hf_hub_cache_dir();
}

std::vector<CachedModel> list_cache() {
    std::vector<CachedModel> out;
    for (const CachedRepo& repo : scan_hub_cache(hf_hub_cache_dir())) {
        CachedModel m{repo.repo_id, repo.path, repo.size_bytes, repo.n_incomplete, {}};
        for (const qwen3tts::CachedRevision& rev : repo.revisions)
            m.revisions.push_back({rev.commit, rev.refs, rev.n_files, rev.size_bytes});
        out.push_back(std::move(m));
    }
    return out;
}

}  // namespace qwen3tts::hub
