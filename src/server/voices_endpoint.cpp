// The voices of a Base model: POST /v1/audio/voices (multipart: a reference clip with its
// transcript, or x_vector_only; or an existing .voice file), GET /v1/audio/voices,
// GET/DELETE /v1/audio/voices/{id}.
#include "server/api_error.hpp"
#include "server/multipart.hpp"
#include "server/server_app.hpp"

namespace qwen3tts::server {

namespace {

constexpr size_t kMaxVoiceFileBytes = size_t(8) << 20;

std::string voice_json(const StoredVoice& v) {
    return "{\"id\":" + json_quote(v.id) + ",\"object\":\"voice\",\"name\":" + json_quote(v.id) +
           ",\"created_at\":" + std::to_string(v.created_at) + ",\"mode\":\"" +
           (v.in_context ? "in_context" : "x_vector") +
           "\",\"ref_text\":" + json_quote(v.ref_text) +
           ",\"ref_frames\":" + std::to_string(v.ref_frames) +
           ",\"bytes\":" + std::to_string(v.bytes) + "}";
}

const FormPart* part(const std::vector<FormPart>& parts, std::initializer_list<const char*> names) {
    for (const auto& p : parts)
        for (const char* n : names)
            if (p.name == n) return &p;
    return nullptr;
}

bool truthy(const FormPart* p) {
    return p && (p->data == "true" || p->data == "1" || p->data == "on");
}

}  // namespace

void ServerApp::voices(const HttpRequest& req, const std::shared_ptr<HttpResponder>& res) {
    const Loaded& l = require_loaded();
    if (!l.voices)
        throw ApiError(404, "this server keeps no voices (start it with --voices-dir DIR)", "",
                       "not_found");
    const std::string prefix = "/v1/audio/voices";
    if (req.path == prefix) {
        if (req.method == "POST") return create_voice(req, res, l);
        if (req.method != "GET")
            throw ApiError(405, req.method + " is not allowed on " + prefix + " (GET or POST)");
        std::string data;
        for (const auto& v : l.voices->list()) data += (data.empty() ? "" : ",") + voice_json(v);
        return send_json(*res, 200, "{\"object\":\"list\",\"data\":[" + data + "]}");
    }
    const std::string id = req.path.substr(prefix.size() + 1);
    if (!VoiceStore::valid_id(id))
        throw ApiError(400, "voice_id: '" + id + "' is not 1-64 characters of A-Z a-z 0-9 _ -",
                       "voice_id");
    const auto found = l.voices->find(id);
    if (!found)
        throw ApiError(404, "no stored voice has the id '" + id + "'", "voice_id",
                       "voice_not_found");
    if (req.method == "GET") return send_json(*res, 200, voice_json(*found));
    if (req.method != "DELETE")
        throw ApiError(405, req.method + " is not allowed on " + req.path + " (GET or DELETE)");
    if (!l.voices->remove(id))
        throw ApiError(404, "no stored voice has the id '" + id + "'", "voice_id",
                       "voice_not_found");
    send_json(*res, 200,
              "{\"id\":" + json_quote(id) + ",\"object\":\"voice.deleted\",\"deleted\":true}");
}

void ServerApp::create_voice(const HttpRequest& req, const std::shared_ptr<HttpResponder>& res,
                             const Loaded& l) {
    const std::string* type = req.header("content-type");
    const std::string boundary = type ? multipart_boundary(*type) : "";
    if (boundary.empty())
        throw ApiError(400, "POST /v1/audio/voices takes multipart/form-data", "", "invalid_body");
    const auto parts = parse_multipart(req.body, boundary);
    const FormPart* name = part(parts, {"name", "id"});
    if (!name || name->data.empty()) throw ApiError(400, "name: is required", "name");
    if (!VoiceStore::valid_id(name->data))
        throw ApiError(400, "name: '" + name->data + "' is not 1-64 characters of A-Z a-z 0-9 _ -",
                       "name");
    if (l.voices->find(name->data))
        throw ApiError(409, "name: a voice with the id '" + name->data + "' exists already", "name",
                       "voice_exists");

    if (const FormPart* file = part(parts, {"voice_file"})) {
        if (file->data.size() > kMaxVoiceFileBytes)
            throw ApiError(
                413, "voice_file: larger than " + std::to_string(kMaxVoiceFileBytes) + " bytes",
                "voice_file");
        try {
            if (!l.voices->add_file(name->data, file->data))
                throw ApiError(409, "name: the id '" + name->data + "' was taken meanwhile", "name",
                               "voice_exists");
        } catch (const Error& e) {
            throw ApiError(400, std::string("voice_file: ") + e.what(), "voice_file");
        }
    } else {
        if (l.info.type != "base")
            throw ApiError(400,
                           "voice cloning needs a Base model; this server runs " + l.info.type +
                               " (upload a .voice file as voice_file instead)",
                           "audio");
        const FormPart* audio = part(parts, {"audio", "audio_sample", "file", "ref_audio"});
        if (!audio || audio->data.empty())
            throw ApiError(400, "audio: a reference clip is required (or a voice_file)", "audio");
        VoiceCloneOptions o;
        o.x_vector_only = truthy(part(parts, {"x_vector_only", "x_vector_only_mode"}));
        if (const FormPart* t = part(parts, {"ref_text", "transcript", "text"}))
            o.ref_text = t->data;
        if (!o.x_vector_only && o.ref_text.empty())
            throw ApiError(400,
                           "ref_text: the transcript of the clip is required (or set "
                           "x_vector_only)",
                           "ref_text");
        const Voice v = cloning_.clone(l.model, audio->data, o, "audio");
        if (!l.voices->add(name->data, v))
            throw ApiError(409, "name: the id '" + name->data + "' was taken meanwhile", "name",
                           "voice_exists");
    }
    const auto stored = l.voices->find(name->data);
    if (!stored) throw ApiError(500, "the voice was written but cannot be read back");
    send_json(*res, 201, voice_json(*stored));
}

}  // namespace qwen3tts::server
