// speak|codes --batch: every good line of a requests file is written to DIR/<id>.<ext> exactly
// as a single `speak`/`codes` run with the same options writes it; each bad line is reported
// with its line number and the others go on; the exit status says that some failed.
#include <gtest/gtest.h>

#include <fstream>

#include "support/test_support.hpp"

namespace qwen3tts {
namespace {

using testing::run_cli;
using testing::shell_quote;

std::string tmp(const std::string& name) {
    return testing::tmp_dir() + "/batch_" + name;
}
std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}
bool exists(const std::string& path) {
    return std::ifstream(path).good();
}
std::string model() {
    return shell_quote(testing::model_dir("tiny-custom_voice"));
}

const char* const kRequests =
    R"({"id": "a", "text": "Hello world, this is a test.", "speaker": "ryan", "seed": 1, "max_frames": 6}
this is not JSON
{"id": "b", "text": "The quick brown fox.", "speaker": "vivian", "seed": 2, "max_frames": 9, "temperature": 0.7, "top_k": 20, "language": "English"}

{"id": "c", "text": "hi", "speaker": "nobody", "seed": 3}
{"id": "a", "text": "the same id again"}
{"id": "d", "text": "Hello \u4f60\u597d", "seed": 4, "greedy": true, "text_layout": "streaming"}
{"id": "../escape", "text": "hi"}
{"id": "e", "text": "hi", "seed": "5"}
{"id": "f", "text": "Long enough to run a while.", "seed": 6, "max_frames": 12, "top_p": 0.9, "repetition_penalty": 1.2}
)";

// The single run each good line stands for (the command line gives --speaker ryan).
struct Single {
    std::string id, args;
};
const Single kSingles[] = {
    {"a", "--speaker ryan --seed 1 --max-frames 6 --text 'Hello world, this is a test.'"},
    {"b",
     "--speaker vivian --seed 2 --max-frames 9 --temperature 0.7 --top-k 20 --language English "
     "--text 'The quick brown fox.'"},
    {"d",
     "--speaker ryan --seed 4 --greedy --max-frames 7 --text-layout streaming --text "
     "'Hello 你好'"},
    {"f",
     "--speaker ryan --seed 6 --max-frames 12 --top-p 0.9 --repetition-penalty 1.2 --text "
     "'Long enough to run a while.'"},
};

void run_batch_and_compare(const std::string& command, const std::string& ext) {
    const std::string file = tmp(command + ".jsonl");
    std::ofstream(file) << kRequests;
    const std::string dir = tmp(command + "_out");
    const auto r =
        run_cli(command + " --model " + model() + " --speaker ryan --max-frames 7 " + "--batch " +
                shell_quote(file) + " --out-dir " + shell_quote(dir) + " --max-batch 3");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    const std::string at = "qwen3tts " + command + ": " + file + ":";
    for (const std::string& want :
         {at + "2: error: JSON, column 1: expected '{' (a request is one JSON object per line)",
          at + "5: error: unknown speaker 'nobody'",
          at + "6: error: \"id\" 'a' is already used by line 1",
          at + "8: error: \"id\" '../escape' may hold only letters, digits, '.', '_' and '-'",
          at + "9: error: \"seed\" must be an integer",
          "qwen3tts: 4 of 9 requests written to " + dir + ", 5 failed"})
        EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;
    for (const Single& s : kSingles) {
        const std::string single = tmp(command + "_single_" + s.id + "." + ext);
        const auto one = run_cli(command + " --model " + model() + " " + s.args + " --out " +
                                 shell_quote(single));
        ASSERT_EQ(one.exit_code, 0) << one.output;
        const std::string batched = dir + "/" + s.id + "." + ext;
        ASSERT_TRUE(exists(batched)) << batched << "\n" << r.output;
        EXPECT_EQ(slurp(batched), slurp(single)) << command << " " << s.id;
    }
    for (const char* missing : {"c", "e", "escape"})
        EXPECT_FALSE(exists(dir + "/" + missing + "." + ext)) << missing;
}

TEST(CliBatch, SpeakWritesWhatSingleRunsWriteAndReportsBadLines) {
    run_batch_and_compare("speak", "wav");
}

TEST(CliBatch, CodesWritesWhatSingleRunsWriteAndReportsBadLines) {
    run_batch_and_compare("codes", "npy");
}

TEST(CliBatch, FormatPerLineAndAllGoodIsExitZero) {
    const std::string file = tmp("format.jsonl");
    std::ofstream(file)
        << R"({"id": "x", "text": "Hello.", "seed": 1, "max_frames": 4, "format": "flac"})"
        << "\n"
        << R"({"id": "y", "text": "Hello.", "seed": 1, "max_frames": 4})"
        << "\n";
    const std::string dir = tmp("format_out");
    const auto r = run_cli("speak --model " + model() + " --speaker ryan --batch " +
                           shell_quote(file) + " --out-dir " + shell_quote(dir));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(slurp(dir + "/x.flac").substr(0, 4), "fLaC");
    EXPECT_EQ(slurp(dir + "/y.wav").substr(0, 4), "RIFF");
    EXPECT_NE(r.output.find("qwen3tts: 2 of 2 requests written to " + dir + "\n"),
              std::string::npos)
        << r.output;
}

// Lines that are not one flat JSON object of the request's fields, each an error of its own
// line; a valid line beside them is still written.
TEST(CliBatch, MalformedLinesAreReportedByLine) {
    const std::string file = tmp("malformed.jsonl");
    std::ofstream(file) << R"({"id": "x", "text": "Hello.", "text": "again"})"
                        << "\n"
                        << R"({"id": "y", "text": ["Hello."]})"
                        << "\n"
                        << R"({"id": "z", "text": "\ud800"})"
                        << "\n"
                        << "{\"id\": \"w\", \"text\": \"bad \xff byte\"}\n"
                        << R"({"id": "v", "text": "Hello.",})"
                        << "\n"
                        << R"({"id": "ok", "text": "Hello.", "seed": 1, "max_frames": 3})"
                        << "\n";
    const std::string dir = tmp("malformed_out");
    const auto r = run_cli("codes --model " + model() + " --speaker ryan --batch " +
                           shell_quote(file) + " --out-dir " + shell_quote(dir));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    const std::string at = "qwen3tts codes: " + file + ":";
    for (const std::string& want :
         {at + "1: error: JSON, \"text\" is given twice",
          at + "2: error: JSON, nested objects and arrays are not request fields",
          at + "3: error: JSON, column 28: syntax error while parsing value - invalid string: "
               "surrogate U+D800..U+DBFF must be followed by U+DC00..U+DFFF",
          at + "4: error: JSON, column 26: syntax error while parsing value - invalid string: "
               "ill-formed UTF-8 byte",
          at + "5: error: JSON, column 30: syntax error while parsing object key - unexpected "
               "'}'; expected string literal",
          "qwen3tts: 1 of 6 requests written to " + dir + ", 5 failed"})
        EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;
    EXPECT_TRUE(exists(dir + "/ok.npy"));
}

TEST(CliBatch, OptionsForOneRequestAreRefused) {
    const std::string file = tmp("refuse.jsonl");
    std::ofstream(file) << R"({"id": "x", "text": "Hello."})"
                        << "\n";
    auto r = run_cli("speak --model " + model() + " --batch " + shell_quote(file) + " --out " +
                     shell_quote(tmp("x.wav")) + " --out-dir " + shell_quote(tmp("o")));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("--out is for one request; with --batch each line gives its own"),
              std::string::npos)
        << r.output;
    r = run_cli("codes --model " + model() + " --batch " + shell_quote(file));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("--batch needs --out-dir DIR"), std::string::npos) << r.output;
    r = run_cli("codes --model " + model() + " --batch /nonexistent/r.jsonl --out-dir " +
                shell_quote(tmp("o")));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("/nonexistent/r.jsonl: cannot open for reading"), std::string::npos)
        << r.output;
}

}  // namespace
}  // namespace qwen3tts
