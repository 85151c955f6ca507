// Pulling a whole model revision from the Hugging Face hub into the shared cache, as
// huggingface_hub's snapshot_download does: list the revision's files, fetch each missing
// blob (locked, resumable, checked), then link snapshots/<commit>/<file> and write
// refs/<revision>. The links and the ref are written only after every blob is in place, so
// an interrupted pull never leaves a snapshot that find_local_model_dir would take as complete.
// Thread-safety: concurrent pulls (threads or processes) of the same model are safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hub/hub_client.hpp"
#include "qwen3tts/qwen3tts.hpp"
#include "weights/model_dir.hpp"

namespace qwen3tts {

// Progress events are the public API's (qwen3tts::hub::PullProgress), passed through as they are.
using PullProgress = hub::PullProgress;
using PullProgressFn = std::function<void(const PullProgress&)>;

struct PullOptions {
    // Glob patterns (fnmatch, '*' also matches '/'; "dir/" means "dir/*") selecting files;
    // empty = all files of the revision.
    std::vector<std::string> include;
    PullProgressFn on_progress;  // may be empty
    bool quiet = false;          // no informational messages through the log (warnings stay)
};

struct PullResult {
    std::string snapshot_dir;  // <cache>/models--Org--Name/snapshots/<commit>
    std::string commit;
    size_t n_files = 0;       // files linked in the snapshot by this pull
    size_t n_downloaded = 0;  // of which were fetched from the network
    bool offline = false;     // HF_HUB_OFFLINE: served from the cache without any request
};

// `spec` is "Org/Name[@revision]". Configuration from the environment (HubConfig::from_env).
PullResult pull_model(const std::string& spec, const PullOptions& options = {});
PullResult pull_model(const ModelRef& ref, const HubConfig& cfg, const PullOptions& options);

// Local directory for a model argument: a directory as is; a repo id from the cache when its
// snapshot is complete (no network), else pulled from the hub (HF_ENDPOINT, HF_TOKEN) unless
// HF_HUB_OFFLINE=1 (then a partial snapshot is taken as it is). Throws Error naming what was
// tried. The first form reports download progress through the log sink (log_info).
std::string resolve_or_pull_model_dir(const std::string& spec);
std::string resolve_or_pull_model_dir(const std::string& spec, const PullOptions& options);

bool matches_include(const std::string& file, const std::vector<std::string>& patterns);

// One line per downloaded file through the library log sink (log_info).
PullProgressFn log_progress();

}  // namespace qwen3tts
