// core/atomic_file.hpp on its own: the signal-cleanup registry, inherited descriptors written
// from their offset, the temporary's name at NAME_MAX.
#include <fcntl.h>
#include <glob.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <fstream>
#include <sstream>

#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

std::string fresh_dir(const std::string& name) {
    const std::string dir = testing::tmp_dir() + "/atomic_" + name;
    testing::run_shell("rm -rf " + testing::shell_quote(dir) + " && mkdir -p " +
                       testing::shell_quote(dir));
    return dir;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

size_t count_entries(const std::string& dir) {
    glob_t g{};
    size_t n = 0;
    if (::glob((dir + "/*").c_str(), GLOB_PERIOD, nullptr, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc; ++i) {
            const std::string p = g.gl_pathv[i];
            n += p != dir + "/." && p != dir + "/..";
        }
    ::globfree(&g);
    return n;
}

TEST(AtomicFile, RemoveTemporaryFilesDeletesLiveTemporariesOnly) {
    const std::string dir = fresh_dir("registry");
    AtomicFile a(dir + "/a.bin");
    AtomicFile b(dir + "/b.bin");
    a.write("x", 1);
    a.flush();
    ASSERT_FALSE(a.temp_path().empty());
    ASSERT_EQ(a.temp_path().rfind(dir + "/a.bin.qwen3tts-", 0), 0u) << a.temp_path();
    b.write("y", 1);
    b.commit();  // complete: no longer a temporary
    EXPECT_EQ(count_entries(dir), 2u);

    remove_temporary_files();
    EXPECT_EQ(::access(a.temp_path().c_str(), F_OK), -1);
    EXPECT_EQ(slurp(dir + "/b.bin"), "y");
    EXPECT_EQ(count_entries(dir), 1u);
    // The writer whose temporary went away fails by name instead of creating a file.
    try {
        a.commit();
        ADD_FAILURE() << "commit after the temporary was removed should fail";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(dir + "/a.bin: cannot write"), std::string::npos)
            << e.what();
    }
    EXPECT_EQ(count_entries(dir), 1u);
}

TEST(AtomicFile, InheritedDescriptorIsWrittenFromItsOffset) {
    const std::string dir = fresh_dir("inherited");
    const std::string path = dir + "/log.bin";
    std::ofstream(path) << "head:";
    const int fd = ::open(path.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::lseek(fd, 0, SEEK_END), 5);
    {
        AtomicFile f("/dev/fd/" + std::to_string(fd));
        EXPECT_TRUE(f.seekable());
        EXPECT_TRUE(f.temp_path().empty());
        f.write("0000BODY", 8);
        f.seek(0);  // patch a header, as the WAV writer does
        f.write("SIZE", 4);
        f.commit();
    }
    ASSERT_EQ(::write(fd, ":tail", 5), 5);  // continues after our output
    ::close(fd);
    EXPECT_EQ(slurp(path), "head:SIZEBODY:tail");
    EXPECT_EQ(count_entries(dir), 1u);
}

TEST(AtomicFile, AppendOnlyDescriptorIsNotSeekable) {
    // `>> file`: every write lands at the end, so a header patch would be appended instead.
    const std::string dir = fresh_dir("append");
    const std::string path = dir + "/log.bin";
    std::ofstream(path) << "head:";
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND);
    ASSERT_GE(fd, 0);
    {
        AtomicFile f("/proc/self/fd/" + std::to_string(fd));
        EXPECT_FALSE(f.seekable());
        f.write("BODY", 4);
        f.commit();
    }
    ::close(fd);
    EXPECT_EQ(slurp(path), "head:BODY");
}

TEST(AtomicFile, TemporaryNameFitsAMaximalFileName) {
    const std::string dir = fresh_dir("name_max");
    const std::string path = dir + "/" + std::string(NAME_MAX - 4, 'n') + ".bin";
    AtomicFile f(path);
    EXPECT_LE(f.temp_path().size() - dir.size() - 1, size_t(NAME_MAX));
    f.write("abc", 3);
    f.commit();
    EXPECT_EQ(slurp(path), "abc");
    EXPECT_EQ(count_entries(dir), 1u);
}

TEST(AtomicFile, ReplacedFileKeepsItsOwnerAndMode) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another user";
    const std::string dir = fresh_dir("owner");
    const std::string path = dir + "/theirs.bin";
    std::ofstream(path) << "old";
    ASSERT_EQ(::chown(path.c_str(), 4321, 4322), 0);
    ASSERT_EQ(::chmod(path.c_str(), 0604), 0);
    AtomicFile f(path);
    f.write("new", 3);
    f.commit();
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, uid_t(4321));
    EXPECT_EQ(st.st_gid, gid_t(4322));
    EXPECT_EQ(st.st_mode & 07777, mode_t(0604));
    EXPECT_EQ(slurp(path), "new");
}

TEST(AtomicFile, SymlinkLoopIsAnError) {
    const std::string dir = fresh_dir("loop");
    ASSERT_EQ(::symlink("b", (dir + "/a").c_str()), 0);
    ASSERT_EQ(::symlink("a", (dir + "/b").c_str()), 0);
    try {
        AtomicFile f(dir + "/a");
        ADD_FAILURE() << "a symlink loop should not open";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("too many levels of symbolic links"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace qwen3tts
