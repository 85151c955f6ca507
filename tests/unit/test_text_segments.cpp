// Long texts cut into segments (text/text_segments.hpp): where the cuts fall, and what every
// cut keeps (each piece within the limit, nothing but whitespace lost, valid UTF-8); the same
// segments for text that arrives in pieces (TextSegmenter), whatever the cutting, and how early
// their text goes out.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "text/text_segments.hpp"

namespace qwen3tts {
namespace {

using Pieces = std::vector<std::string>;

size_t code_points(const std::string& s) {
    size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

std::string without_spaces(const std::string& s) {
    std::string out;
    for (char c : s)
        if (c != ' ' && c != '\n') out += c;
    return out;
}

TEST(TextSegments, ATextThatFitsIsOnePieceTrimmed) {
    EXPECT_EQ(split_text_segments("  Hello there.  ", 100), Pieces{"Hello there."});
    EXPECT_EQ(split_text_segments(" \n\t ", 10), Pieces{});
    EXPECT_EQ(split_text_segments("", 10), Pieces{});
}

TEST(TextSegments, WholeSentencesStayTogetherWhileTheyFit) {
    EXPECT_EQ(split_text_segments("One two three. Four five six. Seven eight nine.", 32),
              (Pieces{"One two three. Four five six.", "Seven eight nine."}));
    // Each sentence alone is over a third of the limit: one per piece.
    EXPECT_EQ(split_text_segments("Is it? Yes! It is... Fine.", 12),
              (Pieces{"Is it? Yes!", "It is...", "Fine."}));
}

TEST(TextSegments, ClosingQuotesStayWithTheirSentence) {
    EXPECT_EQ(split_text_segments("He said \"Stop.\" Then he left.", 20),
              (Pieces{"He said \"Stop.\"", "Then he left."}));
}

TEST(TextSegments, APointInsideANumberIsNoSentenceEnd) {
    // No sentence end and no clause mark within the limit: the last space.
    EXPECT_EQ(split_text_segments("Pi is 3.14 and e is 2.71, roughly.", 20),
              (Pieces{"Pi is 3.14 and e is", "2.71, roughly."}));
}

TEST(TextSegments, ASentenceEndWinsOverALaterClauseMark) {
    EXPECT_EQ(split_text_segments("One two three. Four five, six seven", 26),
              (Pieces{"One two three.", "Four five, six seven"}));
}

TEST(TextSegments, ClauseMarksBeforeSpaces) {
    EXPECT_EQ(split_text_segments("First part, second part and more words here", 30),
              (Pieces{"First part,", "second part and more words", "here"}));
}

TEST(TextSegments, FullWidthMarksEndSentencesWithoutASpace) {
    EXPECT_EQ(split_text_segments("今天天气很好。我们去公园吧！好的。", 8),
              (Pieces{"今天天气很好。", "我们去公园吧！", "好的。"}));
    EXPECT_EQ(split_text_segments("一二三四，五六七八，九十", 6),
              (Pieces{"一二三四，", "五六七八，", "九十"}));
}

TEST(TextSegments, ALineBreakEndsASentence) {
    EXPECT_EQ(split_text_segments("Title\nBody text here.", 12),
              (Pieces{"Title", "Body text", "here."}));
}

TEST(TextSegments, NoPlaceToCutCutsAtTheLimit) {
    EXPECT_EQ(split_text_segments("abcdefghij", 4), (Pieces{"abcd", "efgh", "ij"}));
    EXPECT_EQ(split_text_segments("日本語のテキスト", 3), (Pieces{"日本語", "のテキ", "スト"}));
}

TEST(TextSegments, ANoBreakSpaceHoldsItsNeighboursTogether) {
    EXPECT_EQ(split_text_segments("aaaa bbbb\u00A0cccc", 12), (Pieces{"aaaa", "bbbb\u00A0cccc"}));
}

TEST(TextSegments, ALongRunOfClosersIsCutAtTheLimit) {
    // Each place tried looks back over closing quotes within its piece only; looking back over
    // all of them made this text take 1.6 s instead of 0.04 (quadratic in the text).
    const std::string quotes(100000, '"');
    const Pieces pieces = split_text_segments(quotes + ". End.", 1000);
    ASSERT_EQ(pieces.size(), 101u);
    EXPECT_EQ(pieces.front(), std::string(1000, '"'));
    EXPECT_EQ(pieces.back(), ". End.");
}

TEST(TextSegments, AStrayShortSentenceIsNoPiece) {
    // "Dr." ends at a third of the limit or less: the cut goes to the last space instead.
    EXPECT_EQ(split_text_segments("Dr. Smith went to the market early", 24),
              (Pieces{"Dr. Smith went to the", "market early"}));
}

TEST(TextSegments, EveryCutKeepsTheTextAndTheLimit) {
    const std::vector<std::string> words = {"alpha", "beta,", "gamma.", "delta!",      "长城",
                                            "。",    "é",     "🙂",   "\"quoted.\"", "x"};
    std::mt19937 rng(7);
    for (int trial = 0; trial < 300; ++trial) {
        std::string text;
        const int n = 1 + int(rng() % 40);
        for (int i = 0; i < n; ++i) {
            text += words[rng() % words.size()];
            text += rng() % 5 == 0 ? "\n" : rng() % 3 == 0 ? "" : " ";
        }
        const size_t limit = 1 + rng() % 30;
        const Pieces pieces = split_text_segments(text, limit);
        std::string joined;
        for (const std::string& p : pieces) {
            EXPECT_FALSE(p.empty());
            EXPECT_LE(code_points(p), limit) << p;
            EXPECT_NE(p.front(), ' ');
            EXPECT_NE(p.back(), ' ');
            EXPECT_NO_THROW(split_text_segments(p, limit)) << "not valid UTF-8: " << p;
            joined += p;
        }
        EXPECT_EQ(without_spaces(joined), without_spaces(text)) << text << " / " << limit;
    }
}

TEST(TextSegments, InvalidInputIsAnError) {
    try {
        split_text_segments("bad \xff byte", 10);
        ADD_FAILURE() << "invalid UTF-8 accepted";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "text: invalid UTF-8 at byte offset 4 (byte 0xff)");
    }
    EXPECT_THROW(split_text_segments("text", 0), Error);
}

// Texts of every kind of cut: sentence ends with closers, clause marks, full-width marks, line
// breaks, no-break spaces, runs of spaces, 2-4 byte characters.
std::string random_text(std::mt19937& rng) {
    const std::vector<std::string> atoms = {
        "alpha",       "beta,", "gamma.", "delta!", "长城", "。", "，", "é",   "🙂",
        "\"quoted.\"", "x",     "Dr.",    "1.5",    "…",    ")",  "”",  ";",   "\u00A0",
        "\t",          "  ",    "\n",     "\n\n",   "？",   "»",  ":",  "word"};
    std::string text;
    const int n = int(rng() % 50);
    for (int i = 0; i < n; ++i) {
        text += atoms[rng() % atoms.size()];
        if (rng() % 3 != 0) text += ' ';
    }
    return text;
}

// Feeds `text` to a segmenter in random pushes (cutting characters too), taking the segments'
// text at random moments; the segments at the end.
Pieces pushed(const std::string& text, size_t limit, std::mt19937& rng) {
    TextSegmenter segmenter(limit);
    Pieces got;
    auto take = [&] {
        got.resize(segmenter.segments());
        for (size_t i = 0; i < got.size(); ++i) got[i] += segmenter.take(i);
    };
    for (size_t at = 0; at < text.size();) {
        const size_t n = std::min(text.size() - at, size_t(rng() % 7));
        segmenter.push(text.substr(at, n));
        at += n;
        if (rng() % 2 == 0) take();
    }
    segmenter.finish();
    take();
    for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(segmenter.closed(i)) << i;
    return got;
}

TEST(TextSegmenter, AnyCuttingGivesTheSegmentsOfTheWholeText) {
    std::mt19937 rng(11);
    for (int trial = 0; trial < 3000; ++trial) {
        const std::string text = random_text(rng);
        const size_t limit = 1 + rng() % 40;
        ASSERT_EQ(pushed(text, limit, rng), split_text_segments(text, limit))
            << "[" << text << "] limit " << limit;
    }
}

TEST(TextSegmenter, AFlushEndsAPart) {
    std::mt19937 rng(12);
    for (int trial = 0; trial < 1000; ++trial) {
        const size_t limit = 1 + rng() % 40;
        TextSegmenter segmenter(limit);
        Pieces expected;
        for (int part = 0; part < 3; ++part) {
            const std::string text = random_text(rng);
            for (const std::string& p : split_text_segments(text, limit)) expected.push_back(p);
            segmenter.push(text);
            segmenter.flush();
        }
        segmenter.finish();
        Pieces got;
        for (size_t i = 0; i < segmenter.segments(); ++i) got.push_back(segmenter.take(i));
        ASSERT_EQ(got, expected);
    }
}

// Text goes out as soon as no later text can move it: up to the last sentence end past a
// third of the limit, else up to that third; a segment closes once limit + 1 characters are
// there.
TEST(TextSegmenter, TextGoesOutAsSoonAsItsSegmentIsCertain) {
    TextSegmenter s(30);  // a third: 10
    s.push("Hi. Hello there");
    EXPECT_EQ(s.take(0), "Hi. Hello");  // "Hi." ends before the third: not a cut
    s.push(". And");
    EXPECT_EQ(s.take(0), " there.");  // a cut cannot come before this sentence end
    EXPECT_FALSE(s.closed(0));
    s.push(" more words here, still");  // 31 characters past "Hi.": the cut is certain
    EXPECT_TRUE(s.closed(0));
    EXPECT_EQ(s.take(0), "");
    ASSERT_EQ(s.segments(), 2u);
    EXPECT_EQ(s.take(1), "And more w");
    s.push(" \n");
    EXPECT_EQ(s.take(1), "ords here, still");  // a line break ends a sentence
    s.finish();
    EXPECT_TRUE(s.closed(1));
    EXPECT_EQ(s.take(1), "");  // the spaces at the end are dropped
}

TEST(TextSegmenter, InvalidUtf8IsAnErrorAtItsOffsetInTheWholeText) {
    TextSegmenter s(10);
    s.push("abc \xE6\x97");  // a character cut by the push waits
    s.push("\xA5 d");
    try {
        s.push("e\xff");
        ADD_FAILURE() << "invalid UTF-8 accepted";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "text: invalid UTF-8 at byte offset 10 (byte 0xff)");
    }
    TextSegmenter cut(10);
    cut.push("ab\xE6\x97");
    EXPECT_THROW(cut.finish(), Error);  // a character cut at the end
    EXPECT_THROW(TextSegmenter(0), Error);
}

}  // namespace
}  // namespace qwen3tts
