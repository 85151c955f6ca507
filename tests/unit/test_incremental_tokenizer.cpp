// IncrementalTokenizer: for random cuttings of every text of the tokenizer corpus (and texts
// aimed at each commit rule), under both pre-tokeniser regexes, alone and inside the assistant
// chat template of build_prompt, the committed ids are a prefix of the one-shot ids after every
// push and equal them after finish(); invalid UTF-8 gives the one-shot error.
#include <gtest/gtest.h>
#include <utf8proc.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "support/test_support.hpp"
#include "text/incremental_tokenizer.hpp"
#include "text/unicode.hpp"

namespace qwen3tts {
namespace {

const char* const kPrefix = "<|im_start|>assistant\n";
const char* const kSuffix = "<|im_end|>\n<|im_start|>assistant\n";

const Tokenizer& tokenizer(PretokenizerRegex regex) {
    static const Tokenizer qwen2 =
        Tokenizer::load(testing::model_dir("tiny-custom_voice"), PretokenizerRegex::qwen2);
    static const Tokenizer mistral =
        Tokenizer::load(testing::model_dir("tiny-custom_voice"), PretokenizerRegex::mistral_fixed);
    return regex == PretokenizerRegex::qwen2 ? qwen2 : mistral;
}

// The corpus of tests/data/tokenizer (long_10k included) and texts aimed at each rule.
const std::vector<std::string>& texts() {
    static const std::vector<std::string> all = [] {
        std::ifstream in(testing::data_dir() + "/tokenizer/reference.json", std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        std::vector<std::string> out;
        const nlohmann::json reference = nlohmann::json::parse(ss.str());
        for (const auto& c : reference.at("cases")) out.push_back(c.at("text").get<std::string>());
        for (const char* t : {
                 "Hello world, this is a test.",
                 "你好，欢迎使用语音合成。",
                 "\nHello",
                 "\n\nHello",
                 "\n",
                 " \n x",
                 "  two spaces first",
                 "\tTab",
                 "\u3000ideographic space",
                 "\r\nCRLF first",
                 "don't",
                 "DON'T won't 'S 'sa ''ll'",
                 "trailing apostrophe'",
                 "12345 3.14 1,000 ٣٤٥",
                 "e\u0301 a\u0300\u0301 \u1100\u1161\u11a8 \u0b47\u0b3e",
                 "\u0f73 \u0344 x\u0338 =\u0338 <\u0338",
                 "A\u030a\u0301",
                 "\u212b\u2126",
                 "<|im_end|>",
                 "a<|im_end|>b",
                 "<|im_start|>assistant\nnested",
                 "<|im_",
                 "ends with <|im_end|",
                 "ends with <",
                 "<<|im_end|>>",
                 "<tts_pad><tts_pad>",
                 "<|endoftext|>\n\n",
                 "x <think></think> y",
                 "<|audio_pad|>>",
                 "😀👍🏽👩\u200d💻🇯🇵",
                 "emoji at end 🎉",
                 "ภาษาไทย สวัสดีครับ",
                 "مَرْحَبًا",
                 "iPhone XMLHttpRequest",
                 "path/to//file !!/ ?/x",
                 "a  b   c    \n\n  d",
                 "   ",
                 "",
                 "x",
                 "end with spaces   ",
                 "end with newlines\n\n",
             })
            out.emplace_back(t);
        return out;
    }();
    return all;
}

// Cut points of `text`: 1-byte pieces (variant 0), else random lengths 0..8 (0 = an empty push)
// with cuts anywhere, UTF-8 characters included.
std::vector<std::string> random_chunks(const std::string& text, std::mt19937& rng, int variant) {
    std::vector<std::string> out;
    std::uniform_int_distribution<size_t> len(0, 8);
    for (size_t i = 0; i < text.size();) {
        const size_t n = variant == 0 ? 1 : std::min(len(rng), text.size() - i);
        out.push_back(text.substr(i, n));
        i += n;
    }
    if (variant % 3 == 1) out.insert(out.begin(), "");
    if (variant % 3 == 2) out.emplace_back();
    return out;
}

bool is_prefix(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
    return a.size() <= b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// Feeds `chunks`; checks the prefix property after every push and equality after finish().
void expect_same_ids(const Tokenizer& tok, const std::vector<std::string>& chunks,
                     const std::string& text, bool in_template) {
    const std::vector<int32_t> expected =
        in_template ? tok.encode(kPrefix + text + kSuffix) : tok.encode(text);
    IncrementalTokenizer inc =
        in_template ? IncrementalTokenizer(tok, "the text to speak", kPrefix, kSuffix)
                    : IncrementalTokenizer(tok);
    for (const std::string& chunk : chunks) {
        inc.push(chunk);
        ASSERT_TRUE(is_prefix(inc.ids(), expected))
            << "committed an id that the whole text does not have, after " << inc.text_bytes()
            << " bytes of \"" << text << "\"";
        // In the template, ids committed before the end are never the suffix's 5.
        if (in_template) {
            ASSERT_LE(inc.ids().size() + 5, expected.size()) << text;
        }
    }
    inc.finish();
    ASSERT_EQ(inc.ids(), expected) << "\"" << text << "\"";
}

class IncrementalTokenizerChunkings
    : public ::testing::TestWithParam<std::tuple<PretokenizerRegex, bool>> {};

TEST_P(IncrementalTokenizerChunkings, EqualOneShotForRandomCuttings) {
    const auto [regex, in_template] = GetParam();
    const Tokenizer& tok = tokenizer(regex);
    std::mt19937 rng(20261203);
    int runs = 0;
    for (const std::string& text : texts()) {
        // The 10 kB text: one byte at a time and a few random cuttings.
        const int n_variants = text.size() > 4096 ? 3 : 40;
        for (int v = 0; v < n_variants; ++v) {
            expect_same_ids(tok, random_chunks(text, rng, v), text, in_template);
            if (::testing::Test::HasFatalFailure()) return;
            ++runs;
        }
    }
    EXPECT_GT(runs, 3500);
}

INSTANTIATE_TEST_SUITE_P(incremental_tokenizer, IncrementalTokenizerChunkings,
                         ::testing::Combine(::testing::Values(PretokenizerRegex::qwen2,
                                                              PretokenizerRegex::mistral_fixed),
                                            ::testing::Bool()));

// flush() cuts the text hard: the ids are those of each part encoded on its own (the template's
// prefix with the first part, its suffix with the last), for random cuts in every text, and
// everything pushed is committed at once.
TEST(incremental_tokenizer, FlushEncodesEachPartOnItsOwn) {
    const Tokenizer& tok = tokenizer(PretokenizerRegex::qwen2);
    std::mt19937 rng(1203);
    int runs = 0;
    for (const std::string& text : texts()) {
        if (text.size() > 4096) continue;
        for (int v = 0; v < 8; ++v) {
            // Parts cut at characters (a cut inside one leaves it pending: tested below).
            std::vector<std::string> parts(1);
            std::uniform_int_distribution<int> cut(0, 5);
            for (size_t i = 0; i < text.size();) {
                size_t n = 1;
                while (i + n < text.size() &&
                       (static_cast<unsigned char>(text[i + n]) & 0xC0) == 0x80)
                    ++n;
                parts.back() += text.substr(i, n);
                i += n;
                if (cut(rng) == 0) parts.emplace_back();
            }
            std::vector<int32_t> expected;
            IncrementalTokenizer inc(tok, "the text to speak", kPrefix, kSuffix);
            for (size_t k = 0; k < parts.size(); ++k) {
                const std::string whole = (k == 0 ? std::string(kPrefix) : "") + parts[k] +
                                          (k + 1 == parts.size() ? std::string(kSuffix) : "");
                const std::vector<int32_t> ids = tok.encode(whole);
                expected.insert(expected.end(), ids.begin(), ids.end());
                inc.push(parts[k]);
                if (k + 1 == parts.size()) {
                    inc.finish();
                } else {
                    inc.flush();
                    ASSERT_EQ(inc.ids(), expected) << "\"" << text << "\" after part " << k;
                }
            }
            ASSERT_EQ(inc.ids(), expected) << "\"" << text << "\"";
            ++runs;
        }
    }
    EXPECT_GT(runs, 500);

    // Where a piece ends anyway, a flush changes nothing; inside a word it splits the word.
    IncrementalTokenizer a(tok);
    a.push("Hello world.");
    a.flush();
    a.push(" Next");
    a.finish();
    EXPECT_EQ(a.ids(), tok.encode("Hello world. Next"));
    IncrementalTokenizer b(tok);
    b.push("Hel");
    EXPECT_TRUE(b.ids().empty());
    b.flush();
    EXPECT_EQ(b.ids(), tok.encode("Hel"));
    // A character cut by a push stays pending through a flush.
    IncrementalTokenizer c(tok);
    c.push("caf\xC3");
    c.flush();
    EXPECT_EQ(c.ids(), tok.encode("caf"));
    c.push("\xA9!");
    c.finish();
    std::vector<int32_t> want = tok.encode("caf");
    for (int32_t id : tok.encode("\xC3\xA9!")) want.push_back(id);
    EXPECT_EQ(c.ids(), want);
}

// Commits as early as the rules allow: a piece as soon as the character that ends it arrives.
TEST(incremental_tokenizer, CommitsEachPieceWhenTheNextCharacterEndsIt) {
    const Tokenizer& tok = tokenizer(PretokenizerRegex::qwen2);
    IncrementalTokenizer inc(tok);
    const auto ids_of = [&](const std::string& s) { return tok.encode(s); };
    std::vector<int32_t> expected;
    const auto expect_now = [&](const std::vector<std::string>& pieces) {
        expected.clear();
        for (const auto& p : pieces) {
            const auto ids = ids_of(p);
            expected.insert(expected.end(), ids.begin(), ids.end());
        }
        EXPECT_EQ(inc.ids(), expected);
    };
    inc.push("Hello");  // the letter run may go on
    expect_now({});
    inc.push(" ");  // ends it; the space may start " world" or a whitespace run
    expect_now({"Hello"});
    inc.push("wor");
    expect_now({"Hello"});
    inc.push("ld,");  // ',' ends " world"; a punctuation run may go on
    expect_now({"Hello", " world"});
    inc.push(" 1");  // "," ended by ' '; a digit is a piece of its own at once
    expect_now({"Hello", " world", ",", " ", "1"});
    inc.push("2 don'");  // the apostrophe waits for what follows
    expect_now({"Hello", " world", ",", " ", "1", "2", " don"});
    inc.push("t.");
    expect_now({"Hello", " world", ",", " ", "1", "2", " don", "'t"});
    inc.push("\n\n");  // a newline run and the punctuation before it may go on
    expect_now({"Hello", " world", ",", " ", "1", "2", " don", "'t"});
    inc.push("X<|im_");  // "X" (a mark may follow) ends nothing yet; "<|im_" may be a token
    expect_now({"Hello", " world", ",", " ", "1", "2", " don", "'t"});
    inc.push("end|>");  // the run ends at the token
    expect_now({"Hello", " world", ",", " ", "1", "2", " don", "'t", ".\n\n", "X", "<|im_end|>"});
    inc.push("你好，");  // "，" (nothing composes with it) ends the CJK run at once
    expect_now(
        {"Hello", " world", ",", " ", "1", "2", " don", "'t", ".\n\n", "X", "<|im_end|>", "你好"});
    inc.finish();
    EXPECT_EQ(inc.ids(), ids_of("Hello world, 12 don't.\n\nX<|im_end|>你好，"));
}

// NFC across pushes: a combining mark pushed after its base letter composes with it.
TEST(incremental_tokenizer, ComposesAcrossPushes) {
    const Tokenizer& tok = tokenizer(PretokenizerRegex::qwen2);
    IncrementalTokenizer inc(tok);
    inc.push("caf");
    inc.push("e");
    inc.push("\xcc");  // U+0301 cut in the middle
    inc.push("\x81 ");
    inc.finish();
    EXPECT_EQ(inc.ids(), tok.encode("caf\u00e9 "));
    EXPECT_EQ(inc.ids(), tok.encode("cafe\u0301 "));
}

// Invalid UTF-8 anywhere, cut anyhow: the error of the one-shot check on the whole text.
TEST(incremental_tokenizer, InvalidUtf8GivesTheOneShotError) {
    const std::vector<std::string> bad = {
        "abc\xff",          "ab\xc3(",          "\xe4\xbd",          "ok \xe4\xbd\xa0\xe5",
        "\xed\xa0\x80 sur", "\xf4\x90\x80\x80", "\xc0\xaf overlong", "x\x80",
        "\xf0\x9f\x98",     "fine\xe0\x80\x80",
    };
    const Tokenizer& tok = tokenizer(PretokenizerRegex::qwen2);
    std::mt19937 rng(7);
    for (const std::string& text : bad) {
        const std::string expected =
            testing::error_of([&] { check_utf8(text, "the text to speak"); });
        ASSERT_NE(expected, "(no error)") << text;
        EXPECT_EQ(testing::error_of([&] { tok.encode(text); }),
                  testing::error_of([&] { check_utf8(text, "tokenizer input"); }));
        for (int v = 0; v < 20; ++v) {
            const auto chunks = random_chunks(text, rng, v);
            EXPECT_EQ(testing::error_of([&] {
                          IncrementalTokenizer inc(tok, "the text to speak", kPrefix, kSuffix);
                          for (const auto& c : chunks) inc.push(c);
                          inc.finish();
                      }),
                      expected)
                << "text of " << text.size() << " bytes, variant " << v;
        }
    }
    EXPECT_EQ(testing::error_of([&] {
                  IncrementalTokenizer inc(tok);
                  inc.push("ab\xe4\xbd");
                  inc.finish();
              }),
              "tokenizer input: invalid UTF-8 at byte offset 2 (byte 0xe4)");
}

std::string utf8_of(int32_t c) {
    utf8proc_uint8_t buf[4];
    const auto n = utf8proc_encode_char(c, buf);
    return std::string(reinterpret_cast<const char*>(buf), size_t(n));
}

// The characters that nfc_final_at_end lets through take part in no canonical decomposition,
// reordering or composition, by utf8proc's own tables: every primary composite (a character
// whose canonical decomposition D has 2+ characters and composes back to it, Hangul included)
// makes each composed prefix nfc(D[0, k)) a possible first and each D[k], k >= 1, a second.
TEST(incremental_tokenizer, NfcFinalCharactersTakePartInNoComposition) {
    std::set<int32_t> involved;
    for (int32_t x = 0; x <= 0x10FFFF; ++x) {
        if (x >= 0xD800 && x <= 0xDFFF) continue;
        utf8proc_int32_t d[8];
        int boundclass = 0;
        const auto n = utf8proc_decompose_char(x, d, 8, UTF8PROC_DECOMPOSE, &boundclass);
        ASSERT_GE(n, 1);
        ASSERT_LE(n, 8);
        if (n < 2) continue;
        std::string decomposed;
        for (int k = 0; k < n; ++k) decomposed += utf8_of(d[k]);
        if (nfc(decomposed) != utf8_of(x)) continue;
        std::string prefix;
        for (int k = 0; k + 1 < n; ++k) {
            prefix += utf8_of(d[k]);
            const std::string composed = nfc(prefix);
            utf8proc_int32_t first = 0;
            const auto len =
                utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(composed.data()),
                                 utf8proc_ssize_t(composed.size()), &first);
            if (size_t(len) == composed.size()) involved.insert(first);
            involved.insert(d[k + 1]);
        }
    }
    ASSERT_GT(involved.size(), 500u);
    int n_final = 0;
    for (int32_t c = 1; c <= 0xFFFF; ++c) {
        if (c >= 0xD800 && c <= 0xDFFF) continue;
        if (!nfc_final_at_end(utf8_of(c))) continue;
        ++n_final;
        utf8proc_int32_t d[8];
        int boundclass = 0;
        EXPECT_EQ(utf8proc_decompose_char(c, d, 8, UTF8PROC_DECOMPOSE, &boundclass), 1) << c;
        EXPECT_EQ(d[0], c) << c;
        EXPECT_EQ(utf8proc_get_property(c)->combining_class, 0) << c;
        EXPECT_EQ(involved.count(c), 0u) << "U+" << std::hex << c << " takes part in a composition";
    }
    EXPECT_GT(n_final, 20000);
    EXPECT_FALSE(nfc_final_at_end("e"));
    EXPECT_FALSE(nfc_final_at_end(">"));
    EXPECT_FALSE(nfc_final_at_end("\u3099"));
}

TEST(incremental_tokenizer, RefusesTextAfterTheEndAndUseAfterAnError) {
    const Tokenizer& tok = tokenizer(PretokenizerRegex::qwen2);
    IncrementalTokenizer done(tok);
    done.push("a");
    done.finish();
    EXPECT_EQ(testing::error_of([&] { done.push("b"); }),
              "incremental tokenizer: tokenizer input: text added after its end");
    EXPECT_EQ(testing::error_of([&] { done.finish(); }),
              "incremental tokenizer: tokenizer input: text added after its end");
    IncrementalTokenizer broken(tok);
    EXPECT_NE(testing::error_of([&] { broken.push("\xff"); }), "(no error)");
    EXPECT_EQ(testing::error_of([&] { broken.push("a"); }),
              "incremental tokenizer: tokenizer input: used after an earlier error");
}

}  // namespace
}  // namespace qwen3tts
