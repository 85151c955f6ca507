// Turns the user's model argument into a local checkpoint directory: either a directory path,
// or a Hugging Face repo id ("Org/Name" or "Org/Name@revision") looked up in the Hugging Face
// cache (same layout and environment variables as huggingface_hub, so that models downloaded
// with Python are used as they are). No network here: downloading on first use is the hub
// layer's (src/hub/hub_pull.hpp, resolve_or_pull_model_dir), which the API layer calls.
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

// A model argument's directory without network access: a directory as is; a repo id's cached
// snapshot when complete (config.json and the weights), or when partial too if
// `accept_partial`; "" when the repo id is not (completely) cached. Throws Error for a path
// that is no directory.
std::string find_local_model_dir(const std::string& spec, bool accept_partial);

// find_local_model_dir accepting a partial snapshot, else an Error naming the cache and
// saying how to download the model.
std::string resolve_model_dir(const std::string& spec);

}  // namespace qwen3tts
