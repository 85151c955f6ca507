// Turns the user's model argument into a local checkpoint directory: either a directory path,
// or a Hugging Face repo id ("Org/Name" or "Org/Name@revision") looked up in the Hugging Face
// cache (same layout and environment variables as huggingface_hub, so that models downloaded
// with Python are used as they are) and pulled from the hub on first use when missing.
#pragma once

#include <string>

namespace qwen3tts {

struct ModelRef {
    std::string repo_id;   // "Org/Name"
    std::string revision;  // branch, tag or commit; "main" when not given
};

// True when `spec` looks like "Org/Name[@rev]" rather than a filesystem path.
bool looks_like_repo_id(const std::string& spec);
ModelRef parse_model_ref(const std::string& spec);

// The hub cache directory: $HF_HUB_CACHE (or the older $HUGGINGFACE_HUB_CACHE), else
// $HF_HOME/hub, else
// $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
std::string hf_hub_cache_dir();

// The snapshot directory of `ref` in `cache_dir`, or "" when it is not cached.
std::string find_cached_snapshot(const std::string& cache_dir, const ModelRef& ref);

struct PullOptions;  // weights/hub_pull.hpp

// Local directory for a model argument: a directory as is; a repo id from the cache when
// present (no network), else pulled from the hub (HF_ENDPOINT, HF_TOKEN) unless
// HF_HUB_OFFLINE=1. Throws Error naming what was tried. The first form reports download
// progress through the log sink (log_info); the second takes the caller's options.
std::string resolve_model_dir(const std::string& spec);
std::string resolve_model_dir(const std::string& spec, const PullOptions& options);

}  // namespace qwen3tts
