#include "hub/hub_pull.hpp"

#include <fnmatch.h>

#include "core/error.hpp"
#include "hub/hub_cache.hpp"
#include "weights/hf_cache.hpp"

namespace qwen3tts {

bool matches_include(const std::string& file, const std::vector<std::string>& patterns) {
    if (patterns.empty()) return true;
    for (std::string p : patterns) {
        if (!p.empty() && p.back() == '/') p += "*";
        if (::fnmatch(p.c_str(), file.c_str(), 0) == 0) return true;
    }
    return false;
}

PullResult pull_model(const std::string& spec, const PullOptions& options) {
    if (!looks_like_repo_id(spec))
        throw Error(ErrorCode::invalid_argument,
                    "'" + spec + "' is not a Hugging Face repo id (Org/Name or Org/Name@revision)");
    HubConfig cfg = HubConfig::from_env();
    cfg.quiet = options.quiet;
    return pull_model(parse_model_ref(spec), cfg, options);
}

PullResult pull_model(const ModelRef& ref, const HubConfig& cfg, const PullOptions& options) {
    check_repo_ref(ref.repo_id, ref.revision);
    PullResult result;
    if (cfg.offline) {
        result.snapshot_dir = find_cached_snapshot(cfg.cache_dir, ref);
        if (result.snapshot_dir.empty())
            throw Error(ErrorCode::io,
                        "model '" + ref.repo_id + "@" + ref.revision +
                            "' is not in the Hugging "
                            "Face cache at " +
                            cfg.cache_dir +
                            " and HF_HUB_OFFLINE=1 forbids "
                            "downloading it; unset HF_HUB_OFFLINE to download it, or pass --model "
                            "with a local model folder");
        result.commit = result.snapshot_dir.substr(result.snapshot_dir.rfind('/') + 1);
        result.offline = true;
        return result;
    }

    const RepoInfo info = fetch_repo_info(cfg, ref.repo_id, ref.revision);
    std::vector<FileMeta> metas;
    uint64_t all_total = 0;
    for (const auto& f : info.files) {
        if (!matches_include(f.name, options.include)) continue;
        metas.push_back(fetch_file_meta(cfg, ref.repo_id, info.commit, f));
        all_total += metas.back().size;
    }
    if (metas.empty()) {
        std::string pats;
        for (const auto& p : options.include) pats += (pats.empty() ? "" : " ") + p;
        throw Error(ErrorCode::invalid_argument,
                    info.files.empty() ? ref.repo_id + "@" + ref.revision + " has no files"
                                       : "no file of " + ref.repo_id + "@" + ref.revision +
                                             " matches --include " + pats);
    }

    PullProgress p;
    p.repo_id = ref.repo_id;
    p.n_files = metas.size();
    p.all_total = all_total;
    auto report = [&](PullProgress::Event e, uint64_t bytes) {
        if (!options.on_progress) return;
        p.event = e;
        p.bytes = bytes;
        options.on_progress(p);
    };
    for (size_t i = 0; i < metas.size(); ++i) {
        const FileMeta& m = metas[i];
        p.file = m.file;
        p.index = i + 1;
        p.total = m.size;
        if (file_size_or_neg(blob_path(cfg.cache_dir, ref.repo_id, m.etag)) >= 0) {
            report(PullProgress::Event::file_cached, m.size);
            continue;
        }
        report(PullProgress::Event::file_start, 0);
        const bool fetched = fetch_blob(cfg, ref.repo_id, m, [&](uint64_t done, uint64_t) {
            report(PullProgress::Event::file_bytes, done);
        });
        if (fetched) {
            ++result.n_downloaded;
            report(PullProgress::Event::file_done, m.size);
        } else {
            report(PullProgress::Event::file_cached, m.size);
        }
    }
    // Every blob is in place: only now make the snapshot visible.
    for (const auto& m : metas)
        link_snapshot_file(cfg.cache_dir, ref.repo_id, info.commit, m.file, m.etag);
    write_ref(cfg.cache_dir, ref.repo_id, ref.revision, info.commit);
    report(PullProgress::Event::finished, all_total);

    result.snapshot_dir = snapshot_dir(cfg.cache_dir, ref.repo_id, info.commit);
    result.commit = info.commit;
    result.n_files = metas.size();
    return result;
}

std::string resolve_or_pull_model_dir(const std::string& spec) {
    PullOptions options;
    options.on_progress = log_progress();
    return resolve_or_pull_model_dir(spec, options);
}

std::string resolve_or_pull_model_dir(const std::string& spec, const PullOptions& options) {
    const HubConfig cfg = HubConfig::from_env();
    const std::string dir = find_local_model_dir(spec, cfg.offline);
    if (!dir.empty()) return dir;
    const ModelRef ref = parse_model_ref(spec);
    if (cfg.offline)
        throw Error(ErrorCode::io, "model '" + spec +
                                       "' is neither a local directory nor in the "
                                       "Hugging Face cache at " +
                                       cfg.cache_dir + " (revision '" + ref.revision +
                                       "'), and HF_HUB_OFFLINE=1 forbids "
                                       "downloading it; unset HF_HUB_OFFLINE, or pass --model "
                                       "with a local model folder");
    try {
        return pull_model(ref, cfg, options).snapshot_dir;
    } catch (const Error& e) {
        // Both readings of the argument were tried: say so, not only the hub's half.
        throw Error(e.code(), "model '" + spec + "' is not a local folder (there is no ./" + spec +
                                  "), so it was looked up on the Hugging Face hub: " + e.what());
    }
}

}  // namespace qwen3tts
