// Pulling models from a Hugging Face hub into the shared cache, end to end: the real CLI
// against tests/tools/fake_hub.py (the hub's HTTP protocol on 127.0.0.1), checking the cache
// layout huggingface_hub uses file by file, resume, checksums, offline mode, errors, locking
// between two processes and `list`.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/npy.hpp"
#include "hub/hub_pull.hpp"
#include "support/test_support.hpp"
#include "weights/model_dir.hpp"

extern char** environ;

namespace {

namespace qt = qwen3tts::testing;
using nlohmann::json;

const char* kRepo = "Qwen/Tiny-Test";
const char* kGated = "Qwen/Gated-Test";
const char* kToken = "hf_test_token";

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool exists(const std::string& path) {
    struct stat st;
    return ::lstat(path.c_str(), &st) == 0;
}

int64_t size_of(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 ? static_cast<int64_t>(st.st_size) : -1;
}

std::string read_link(const std::string& path) {
    char buf[4096];
    const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
    return n < 0 ? std::string() : std::string(buf, static_cast<size_t>(n));
}

size_t count_lines(const std::string& s) {
    size_t n = 0;
    for (char c : s) n += c == '\n';
    return n + (!s.empty() && s.back() != '\n');
}

// One fake hub per test suite run (ctest runs each test in its own process).
struct Server {
    pid_t pid = -1;
    std::string state;
    int port = 0;
};
Server g_server;

class HubTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        g_server.state = qt::tmp_dir() + "/hub_server_" + std::to_string(::getpid());
        qt::run_shell("rm -rf " + qt::shell_quote(g_server.state));
        ::mkdir(g_server.state.c_str(), 0755);
        const std::string script = qt::data_dir() + "/../tools/fake_hub.py";
        std::vector<std::string> args = {
            "python3",       script,
            "--repo",        std::string(kRepo) + "=" + qt::model_dir("tiny-custom_voice"),
            "--gated",       std::string(kGated) + "=" + qt::model_dir("tiny-base"),
            "--token",       kToken,
            "--state",       g_server.state,
            "--max-seconds", "900"};
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        ASSERT_EQ(::posix_spawnp(&g_server.pid, "python3", nullptr, nullptr, argv.data(), environ),
                  0);
        const std::string port_file = g_server.state + "/port";
        for (int i = 0; i < 300 && !exists(port_file); ++i)  // at most 30 s
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        ASSERT_TRUE(exists(port_file)) << "fake hub did not start";
        g_server.port = std::stoi(slurp(port_file));
    }

    static void TearDownTestSuite() {
        if (g_server.pid > 0) {
            ::kill(g_server.pid, SIGTERM);
            ::waitpid(g_server.pid, nullptr, 0);
            g_server.pid = -1;
            qt::run_shell("rm -rf " + qt::shell_quote(g_server.state));
        }
    }

    void SetUp() override {
        ASSERT_GT(g_server.port, 0);
        home_ = qt::tmp_dir() + "/hub_" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name();
        qt::run_shell("rm -rf " + qt::shell_quote(home_));
        ::mkdir(home_.c_str(), 0755);
        set_mode(json::object());
        clear_log();
        manifest_ = json::parse(slurp(g_server.state + "/manifest.json"));
    }

    void TearDown() override {
        // Keep the cache of a failed test for a look; drop the others (27 MB each).
        if (!HasFailure()) qt::run_shell("rm -rf " + qt::shell_quote(home_));
    }

    std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(g_server.port); }
    std::string cache() const { return home_ + "/hub"; }
    std::string repo_dir() const { return cache() + "/models--Qwen--Tiny-Test"; }
    std::string commit() const { return manifest_[kRepo]["commit"]; }
    std::string snapshot() const { return repo_dir() + "/snapshots/" + commit(); }

    // Mode switches of the fake hub; a serial makes each write a change that re-arms "cut".
    void set_mode(json mode) {
        static int serial = 0;
        mode["serial"] = ++serial;
        std::ofstream(g_server.state + "/mode.json") << mode.dump();
    }
    void clear_log() { std::ofstream(g_server.state + "/requests.log", std::ios::trunc); }
    std::vector<json> requests() const {
        std::vector<json> out;
        std::ifstream in(g_server.state + "/requests.log");
        for (std::string line; std::getline(in, line);)
            if (!line.empty()) out.push_back(json::parse(line));
        return out;
    }
    size_t count_requests(const std::function<bool(const json&)>& pred) const {
        size_t n = 0;
        for (const auto& r : requests()) n += pred(r);
        return n;
    }

    // The CLI in a clean hub environment: only what the test sets.
    std::string env(const std::string& extra = "") const {
        return "env -u HF_TOKEN -u HUGGING_FACE_HUB_TOKEN -u HF_TOKEN_PATH -u HF_HUB_CACHE "
               "-u HUGGINGFACE_HUB_CACHE -u HF_HUB_OFFLINE -u XDG_CACHE_HOME "
               "NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost HF_HOME=" +
               qt::shell_quote(home_) + " HF_ENDPOINT=" + endpoint() + " " + extra;
    }
    std::string cli_command(const std::string& args, const std::string& extra_env = "") const {
        return env(extra_env) + " " + qt::shell_quote(QWEN3TTS_CLI) + " " + args;
    }
    qt::CommandResult cli(const std::string& args, const std::string& extra_env = "") const {
        return qt::run_shell(cli_command(args, extra_env));
    }

    // The cache holds the whole revision exactly as huggingface_hub lays it out.
    void expect_complete_snapshot(const std::string& repo = kRepo,
                                  const std::string& source_model = "tiny-custom_voice") {
        const std::string dir = cache() + "/models--" + repo.substr(0, repo.find('/')) + "--" +
                                repo.substr(repo.find('/') + 1);
        const std::string rev = manifest_[repo]["commit"];
        EXPECT_EQ(slurp(dir + "/refs/main"), rev);
        for (const auto& [file, meta] : manifest_[repo]["files"].items()) {
            SCOPED_TRACE(file);
            const std::string etag = meta["etag"];
            const std::string pointer = dir + "/snapshots/" + rev + "/" + file;
            std::string expected_target = "../../";
            for (char c : file)
                if (c == '/') expected_target += "../";
            EXPECT_EQ(read_link(pointer), expected_target + "blobs/" + etag);
            const std::string blob = dir + "/blobs/" + etag;
            EXPECT_EQ(slurp(blob), slurp(qt::model_dir(source_model) + "/" + file));
            EXPECT_EQ(size_of(pointer), meta["size"].get<int64_t>());
            EXPECT_TRUE(exists(cache() + "/.locks/" + dir.substr(dir.rfind('/') + 1) + "/" + etag +
                               ".lock"));
            if (etag.size() == 64) {  // LFS: the blob name is the sha256 of its content
                const auto sum = qt::run_shell("sha256sum " + qt::shell_quote(blob));
                EXPECT_EQ(sum.output.substr(0, 64), etag);
            }
        }
        EXPECT_EQ(
            qt::run_shell("ls " + qt::shell_quote(dir + "/blobs") + " | grep -c incomplete").output,
            "0\n");
    }

    std::string blob_of(const std::string& file) const {
        return repo_dir() + "/blobs/" + manifest_[kRepo]["files"][file]["etag"].get<std::string>();
    }

    std::string home_;
    json manifest_;
};

bool is_cdn_get(const json& r) {
    return r["method"] == "GET" && r["path"].get<std::string>().rfind("/cdn/", 0) == 0;
}

TEST_F(HubTest, PullBuildsTheHuggingFaceCacheLayout) {
    const auto r = cli(std::string("pull ") + kRepo);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(snapshot()), std::string::npos) << r.output;
    expect_complete_snapshot();
    // LFS files came through the CDN redirect, small ones straight from resolve.
    EXPECT_GE(count_requests(is_cdn_get), 2u);

    // Pulling again fetches nothing.
    clear_log();
    const auto again = cli(std::string("pull ") + kRepo);
    ASSERT_EQ(again.exit_code, 0) << again.output;
    EXPECT_NE(again.output.find("already in the cache"), std::string::npos) << again.output;
    EXPECT_EQ(count_requests([](const json& q) {
                  return q["method"] == "GET" &&
                         q["path"].get<std::string>().find("/api/") == std::string::npos;
              }),
              0u);
    expect_complete_snapshot();
}

TEST_F(HubTest, IncludeSelectsFiles) {
    const auto r = cli(std::string("pull ") + kRepo + " --quiet --include '*.json'");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(exists(snapshot() + "/config.json"));
    EXPECT_TRUE(exists(snapshot() + "/speech_tokenizer/config.json"));
    EXPECT_FALSE(exists(snapshot() + "/model.safetensors"));
    EXPECT_FALSE(exists(snapshot() + "/merges.txt"));
    EXPECT_EQ(count_lines(r.output), 1u) << r.output;  // --quiet: only the snapshot path
}

TEST_F(HubTest, ResumesAnInterruptedPull) {
    // Every CDN download stops halfway: the pull gives up after its retries, keeping the part.
    set_mode({{"cut", 100}});
    const auto failed = cli(std::string("pull ") + kRepo + " --include model.safetensors");
    ASSERT_NE(failed.exit_code, 0) << failed.output;
    EXPECT_NE(failed.output.find("interrupted"), std::string::npos) << failed.output;
    EXPECT_NE(failed.output.find("run the command again to resume"), std::string::npos);
    const std::string incomplete = blob_of("model.safetensors") + ".incomplete";
    const int64_t kept = size_of(incomplete);
    const int64_t full = manifest_[kRepo]["files"]["model.safetensors"]["size"];
    EXPECT_GT(kept, 0);
    EXPECT_LT(kept, full);
    EXPECT_FALSE(exists(snapshot()));  // nothing half-done is visible
    EXPECT_FALSE(exists(repo_dir() + "/refs/main"));

    set_mode(json::object());
    clear_log();
    const auto resumed = cli(std::string("pull ") + kRepo + " --include model.safetensors");
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
    const std::string range = "bytes=" + std::to_string(kept) + "-";
    EXPECT_EQ(count_requests([&](const json& q) { return is_cdn_get(q) && q["range"] == range; }),
              1u);
    EXPECT_EQ(slurp(blob_of("model.safetensors")),
              slurp(qt::model_dir("tiny-custom_voice") + "/model.safetensors"));
    EXPECT_FALSE(exists(incomplete));
}

TEST_F(HubTest, ResumesWithinOnePull) {
    set_mode({{"cut", 1}});  // the first download breaks off; the pull resumes it by itself
    const auto r = cli(std::string("pull ") + kRepo);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("resuming"), std::string::npos) << r.output;
    EXPECT_EQ(count_requests([](const json& q) { return is_cdn_get(q) && q["range"] != ""; }), 1u);
    expect_complete_snapshot();
}

TEST_F(HubTest, CorruptedDownloadIsDetectedAndNotKept) {
    set_mode({{"corrupt", "model.safetensors"}});
    const auto r = cli(std::string("pull ") + kRepo + " --quiet");
    ASSERT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("checksum mismatch"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("model.safetensors"), std::string::npos);
    EXPECT_EQ(count_lines(r.output), 1u) << r.output;
    EXPECT_FALSE(exists(blob_of("model.safetensors")));
    EXPECT_FALSE(exists(blob_of("model.safetensors") + ".incomplete"));
    EXPECT_FALSE(exists(snapshot()));

    set_mode(json::object());
    const auto ok = cli(std::string("pull ") + kRepo + " --quiet");
    ASSERT_EQ(ok.exit_code, 0) << ok.output;
    expect_complete_snapshot();
}

// Everything under blobs/ (complete or not), "" when there is none.
std::string blobs_listing(const std::string& repo_dir) {
    return qwen3tts::testing::run_shell("(ls -A " + qwen3tts::testing::shell_quote(repo_dir) +
                                        "/blobs 2>/dev/null)")
        .output;
}

TEST_F(HubTest, RedirectsOnlyToHttp) {
    // A redirect from the hub (HEAD of an LFS file) or from its CDN to another scheme is
    // refused by name before anything is read from it.
    for (const auto& [key, url] :
         std::vector<std::pair<std::string, std::string>>{{"redirect", "file:///etc/passwd"},
                                                          {"redirect", "gopher://127.0.0.1:1/x"},
                                                          {"cdn_redirect", "file:///etc/passwd"},
                                                          {"cdn_redirect", "ftp://127.0.0.1/x"}}) {
        SCOPED_TRACE(key + " " + url);
        set_mode({{key, url}});
        const auto r = cli(std::string("pull ") + kRepo + " --quiet --include model.safetensors");
        EXPECT_EQ(r.exit_code, 1) << r.output;
        EXPECT_NE(r.output.find("refusing the redirect"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find(url), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("only http and https"), std::string::npos) << r.output;
        EXPECT_EQ(count_lines(r.output), 1u) << r.output;
        EXPECT_EQ(blobs_listing(repo_dir()), "");
        EXPECT_FALSE(exists(snapshot()));
    }
}

TEST_F(HubTest, OpaqueEtagDownloadIsStillChecked) {
    // An LFS file whose etags are no digest: its sha256 comes from the file list.
    set_mode({{"opaque_etag", "model.safetensors"}, {"corrupt", "model.safetensors"}});
    const std::string weights = " --quiet --include model.safetensors";
    auto r = cli(std::string("pull ") + kRepo + weights);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(
        r.output.find("checksum mismatch for Qwen/Tiny-Test/model.safetensors: expected "
                      "sha256 " +
                      manifest_[kRepo]["files"]["model.safetensors"]["etag"].get<std::string>()),
        std::string::npos)
        << r.output;
    EXPECT_EQ(blobs_listing(repo_dir()), "");
    EXPECT_FALSE(exists(snapshot()));

    // A small file stored in git: checked against the listing's git blob id.
    set_mode({{"opaque_etag", "config.json"}, {"corrupt", "config.json"}});
    r = cli(std::string("pull ") + kRepo + " --quiet --include config.json");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("checksum mismatch for Qwen/Tiny-Test/config.json: expected git sha1 " +
                            manifest_[kRepo]["files"]["config.json"]["etag"].get<std::string>()),
              std::string::npos)
        << r.output;
    EXPECT_EQ(blobs_listing(repo_dir()), "");

    // Served cut short with a matching Content-Length: the listing's size gives it away.
    set_mode({{"opaque_etag", "model.safetensors"}, {"truncate", "model.safetensors"}});
    r = cli(std::string("pull ") + kRepo + weights);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    const int64_t full = manifest_[kRepo]["files"]["model.safetensors"]["size"];
    EXPECT_NE(r.output.find("the hub gives two sizes for Qwen/Tiny-Test/model.safetensors: " +
                            std::to_string(full) + " bytes in the file list, " +
                            std::to_string(full * 3 / 4) + " in its headers"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(blobs_listing(repo_dir()), "");
    EXPECT_FALSE(exists(snapshot()));

    // Served intact: accepted, the blob named by the opaque etag as huggingface_hub does.
    set_mode({{"opaque_etag", "model.safetensors"}});
    r = cli(std::string("pull ") + kRepo + weights);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string link = read_link(snapshot() + "/model.safetensors");
    EXPECT_EQ(link.rfind("../../blobs/opaque-", 0), 0u) << link;
    EXPECT_EQ(slurp(snapshot() + "/model.safetensors"),
              slurp(qt::model_dir("tiny-custom_voice") + "/model.safetensors"));
}

TEST_F(HubTest, RevisionAndRepoNamesStayInsideTheCache) {
    const auto rev = cli(std::string("pull ") + kRepo + "@../../../../escape --quiet");
    EXPECT_EQ(rev.exit_code, 1) << rev.output;
    EXPECT_NE(rev.output.find("'../../../../escape' is not a revision name"), std::string::npos)
        << rev.output;
    const auto repo = cli("pull Qwen/A--B --quiet");
    EXPECT_EQ(repo.exit_code, 1) << repo.output;
    EXPECT_NE(repo.output.find("'Qwen/A--B' is not a Hugging Face repo id"), std::string::npos)
        << repo.output;
    EXPECT_TRUE(requests().empty());
    EXPECT_FALSE(exists(cache()));
}

TEST_F(HubTest, OfflineModeServesOnlyTheCache) {
    const auto off_missing = cli(std::string("pull ") + kRepo, "HF_HUB_OFFLINE=1");
    EXPECT_NE(off_missing.exit_code, 0);
    EXPECT_NE(off_missing.output.find("HF_HUB_OFFLINE"), std::string::npos) << off_missing.output;
    EXPECT_TRUE(requests().empty());

    ASSERT_EQ(cli(std::string("pull --quiet ") + kRepo).exit_code, 0);
    clear_log();
    const auto off = cli(std::string("pull ") + kRepo, "HF_HUB_OFFLINE=1");
    ASSERT_EQ(off.exit_code, 0) << off.output;
    EXPECT_NE(off.output.find(snapshot()), std::string::npos) << off.output;
    EXPECT_TRUE(requests().empty());
}

// --model Org/Name resolves through resolve_or_pull_model_dir: from the cache when there,
// downloaded on first use otherwise, never downloaded under HF_HUB_OFFLINE=1.
TEST_F(HubTest, ModelArgumentDownloadsOnFirstUse) {
    const std::string old_home = std::getenv("HF_HOME") ? std::getenv("HF_HOME") : "";
    ::setenv("HF_HOME", home_.c_str(), 1);
    ::setenv("HF_ENDPOINT", endpoint().c_str(), 1);
    ::setenv("NO_PROXY", "127.0.0.1,localhost", 1);
    for (const char* v : {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_TOKEN", "HF_HUB_OFFLINE"})
        ::unsetenv(v);
    std::vector<std::string> logged;
    qwen3tts::set_log_sink([&](qwen3tts::LogLevel, const std::string& m) { logged.push_back(m); });

    // The weights layer only reads the cache: no request, an error saying how to download.
    try {
        qwen3tts::resolve_model_dir(kRepo);
        ADD_FAILURE() << "the weights layer should not download";
    } catch (const qwen3tts::Error& e) {
        EXPECT_NE(std::string(e.what()).find("download it with `qwen3tts pull Qwen/Tiny-Test`"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_TRUE(requests().empty());

    ::setenv("HF_HUB_OFFLINE", "1", 1);
    try {
        qwen3tts::resolve_or_pull_model_dir(kRepo);
        ADD_FAILURE() << "offline resolution of an uncached model should fail";
    } catch (const qwen3tts::Error& e) {
        EXPECT_NE(std::string(e.what()).find("HF_HUB_OFFLINE"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(requests().empty());

    ::unsetenv("HF_HUB_OFFLINE");
    // A partial snapshot (configs only) is completed on use.
    qwen3tts::PullOptions configs_only;
    configs_only.include = {"*.json"};
    EXPECT_EQ(qwen3tts::pull_model(kRepo, configs_only).snapshot_dir, snapshot());
    EXPECT_FALSE(exists(snapshot() + "/model.safetensors"));
    EXPECT_EQ(qwen3tts::resolve_or_pull_model_dir(kRepo), snapshot());
    EXPECT_FALSE(logged.empty());  // progress went through the log sink
    expect_complete_snapshot();

    clear_log();
    ::setenv("HF_HUB_OFFLINE", "1", 1);
    EXPECT_EQ(qwen3tts::resolve_or_pull_model_dir(kRepo), snapshot());
    EXPECT_EQ(qwen3tts::resolve_or_pull_model_dir(std::string(kRepo) + "@" + commit()), snapshot());
    EXPECT_TRUE(requests().empty());

    qwen3tts::set_log_sink(nullptr);
    ::unsetenv("HF_HUB_OFFLINE");
    ::unsetenv("HF_ENDPOINT");
    if (old_home.empty())
        ::unsetenv("HF_HOME");
    else
        ::setenv("HF_HOME", old_home.c_str(), 1);
}

TEST_F(HubTest, NotFoundErrorsNameWhatIsMissing) {
    const auto repo = cli("pull Qwen/Nope --quiet");
    EXPECT_EQ(repo.exit_code, 1);
    EXPECT_NE(repo.output.find("repository 'Qwen/Nope' not found"), std::string::npos)
        << repo.output;
    EXPECT_NE(repo.output.find("404"), std::string::npos);
    EXPECT_EQ(count_lines(repo.output), 1u) << repo.output;

    const auto rev = cli(std::string("pull ") + kRepo + "@v9 --quiet");
    EXPECT_EQ(rev.exit_code, 1);
    EXPECT_NE(rev.output.find("revision 'v9' not found"), std::string::npos) << rev.output;
    EXPECT_EQ(count_lines(rev.output), 1u) << rev.output;
}

TEST_F(HubTest, UnreachableHubSuggestsALocalFolder) {
    // Port 1 on loopback: connection refused.
    const auto r = cli("pull Qwen/Tiny-Test --quiet", "HF_ENDPOINT=http://127.0.0.1:1");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("cannot reach the Hugging Face hub"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("--model"), std::string::npos);
    EXPECT_EQ(count_lines(r.output), 1u) << r.output;
}

TEST_F(HubTest, GatedRepoNeedsAToken) {
    const auto denied = cli(std::string("pull ") + kGated + " --quiet");
    EXPECT_EQ(denied.exit_code, 1);
    EXPECT_NE(denied.output.find("401"), std::string::npos) << denied.output;
    EXPECT_NE(denied.output.find("gated"), std::string::npos) << denied.output;
    EXPECT_NE(denied.output.find("HF_TOKEN"), std::string::npos) << denied.output;
    EXPECT_EQ(count_lines(denied.output), 1u) << denied.output;

    const auto wrong = cli(std::string("pull ") + kGated + " --quiet", "HF_TOKEN=hf_wrong");
    EXPECT_EQ(wrong.exit_code, 1);
    EXPECT_NE(wrong.output.find("rejected"), std::string::npos) << wrong.output;

    // With the token; the CDN is another origin ("localhost") and must not receive it.
    set_mode({{"cdn_host", "localhost"}});
    clear_log();
    const auto ok =
        cli(std::string("pull ") + kGated + " --quiet", std::string("HF_TOKEN=") + kToken);
    ASSERT_EQ(ok.exit_code, 0) << ok.output;
    expect_complete_snapshot(kGated, "tiny-base");
    EXPECT_GE(count_requests(is_cdn_get), 2u);
    EXPECT_EQ(count_requests([](const json& q) { return is_cdn_get(q) && q["auth"] == true; }), 0u);
    EXPECT_EQ(count_requests([](const json& q) {
                  return q["path"].get<std::string>().find("/resolve/") != std::string::npos &&
                         q["auth"] != true;
              }),
              0u);

    // The token file under HF_HOME works as well.
    qt::run_shell("rm -rf " + qt::shell_quote(cache()));
    std::ofstream(home_ + "/token") << kToken << "\n";
    const auto from_file = cli(std::string("pull ") + kGated + " --quiet");
    ASSERT_EQ(from_file.exit_code, 0) << from_file.output;
}

TEST_F(HubTest, TwoConcurrentPullsEndWithOneCorrectCache) {
    set_mode({{"delay_ms", 4}});  // slow CDN, so that the two pulls overlap
    const std::string one = cli_command(std::string("pull ") + kRepo);
    const std::string h = qt::shell_quote(home_);
    const auto r =
        qt::run_shell("(" + one + " > " + h + "/out1 2>&1; echo $? > " + h + "/rc1) & (" + one +
                      " > " + h + "/out2 2>&1; echo $? > " + h + "/rc2) & wait");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(slurp(home_ + "/rc1"), "0\n") << slurp(home_ + "/out1");
    EXPECT_EQ(slurp(home_ + "/rc2"), "0\n") << slurp(home_ + "/out2");
    expect_complete_snapshot();
    // The lock made one process wait for the other: each blob came over the wire once.
    for (const auto& [file, meta] : manifest_[kRepo]["files"].items()) {
        const std::string etag = meta["etag"];
        if (etag.size() != 64) continue;
        EXPECT_EQ(count_requests([&](const json& q) {
                      return is_cdn_get(q) &&
                             q["path"].get<std::string>().find(etag) != std::string::npos;
                  }),
                  1u)
            << file;
    }
}

TEST_F(HubTest, ListShowsCachedModels) {
    const auto empty = cli("list");
    ASSERT_EQ(empty.exit_code, 0) << empty.output;
    EXPECT_NE(empty.output.find("no models"), std::string::npos) << empty.output;

    ASSERT_EQ(cli(std::string("pull --quiet ") + kRepo).exit_code, 0);
    const auto r = cli("list");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find(kRepo), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("main"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(commit().substr(0, 12)), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(" 12 "), std::string::npos) << r.output;  // files
    EXPECT_NE(r.output.find("MB"), std::string::npos) << r.output;
}

TEST_F(HubTest, DiskFullIsAClearError) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to mount a small tmpfs";
    ::mkdir(cache().c_str(), 0755);
    if (::mount("tmpfs", cache().c_str(), "tmpfs", 0, "size=4m") != 0)
        GTEST_SKIP() << "cannot mount a tmpfs here";
    const auto r = cli(std::string("pull ") + kRepo + " --quiet");
    ::umount(cache().c_str());
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("disk full"), std::string::npos) << r.output;
    EXPECT_EQ(count_lines(r.output), 1u) << r.output;
}

// Needs the lead's `info` subcommand: a model given by repo id is found in the cache.
TEST_F(HubTest, InfoRunsOnAPulledModel) {
    ASSERT_EQ(cli(std::string("pull --quiet ") + kRepo).exit_code, 0);
    const auto r = cli(std::string("info --model ") + kRepo, "HF_HUB_OFFLINE=1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("ryan"), std::string::npos) << r.output;
}

TEST_F(HubTest, CodesRunOnAModelDownloadedOnFirstUse) {
    // No pull first: --model Org/Name downloads into the cache, then synthesises.
    const std::string out = qt::tmp_dir() + "/hub_codes.npy";
    const auto r = cli(std::string("codes --model ") + kRepo +
                       " --speaker ryan --language english --greedy --max-frames 10 "
                       "--text 'Hello world, this is a test.' --out " +
                       qt::shell_quote(out));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(qwen3tts::read_npy(out).to_i64(),
              qt::golden("tiny-custom_voice", "cv_en_ryan__codes").to_i64());
}

}  // namespace
