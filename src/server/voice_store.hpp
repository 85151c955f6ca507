// The voices of a Base model kept by the server: one `<id>.voice` file each (docs/voice_file.md)
// in one directory, written under a private temporary name and then hard-linked to its id, so a
// voice survives a restart or kill -9, a reader never sees half a file, and of two creations of
// one id at once exactly one succeeds (link(2) refuses an existing name; a kill -9 at the wrong
// moment may leave a ".<id>.voice.tmp-*" file, which is never listed). Several replicas may
// share the directory (docs/serving.md). Ids are 1-64 characters of [A-Za-z0-9_-], so an id can
// never name a path outside the directory. Thread-safe (the file system is the only state).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "qwen3tts/qwen3tts.hpp"

namespace qwen3tts::server {

struct StoredVoice {
    std::string id;
    bool in_context = false;
    std::string ref_text;
    int64_t ref_frames = 0;
    int64_t created_at = 0;  // file modification time, Unix seconds
    uint64_t bytes = 0;
};

class VoiceStore {
  public:
    // Creates the directory when missing; throws Error(io) naming it when that fails.
    explicit VoiceStore(std::string dir);

    static bool valid_id(const std::string& id);
    const std::string& dir() const { return dir_; }

    std::vector<StoredVoice> list() const;  // sorted by id; unreadable files are skipped
    std::optional<StoredVoice> find(const std::string& id) const;
    // The voice stored under `id`, loaded; nullopt when there is none (or its file is damaged:
    // such a file is not offered as a voice, as find() does not list it).
    std::optional<Voice> find_voice(const std::string& id) const;
    // Stores a voice under a new id; false when the id is taken, also by a concurrent add.
    bool add(const std::string& id, const Voice& voice);
    // Stores the bytes of a .voice file after checking that they load as one (Voice::load's
    // checks); throws Error(format) saying what is wrong. False when the id is taken.
    bool add_file(const std::string& id, const std::string& bytes);
    bool remove(const std::string& id);

  private:
    std::string path_of(const std::string& id) const;
    // The voice of a valid id whose file is a regular file that loads, and its stat.
    std::optional<Voice> load_regular(const std::string& id, struct stat& st) const;
    std::string dir_;
};

}  // namespace qwen3tts::server
