// Output format selection: --format names and file extensions, and the errors for unknown ones.
#include <gtest/gtest.h>

#include "audio/audio_format.hpp"
#include "core/error.hpp"

namespace qwen3tts {
namespace {

ErrorCode code_of(void (*f)()) {
    try {
        f();
    } catch (const Error& e) {
        return e.code();
    }
    return ErrorCode::internal;
}

TEST(audio_format, FromName) {
    EXPECT_EQ(audio_format_from_name("wav"), AudioFormat::wav_pcm16);
    EXPECT_EQ(audio_format_from_name("WAV"), AudioFormat::wav_pcm16);
    EXPECT_EQ(audio_format_from_name("wav-f32"), AudioFormat::wav_f32);
    EXPECT_EQ(audio_format_from_name("pcm"), AudioFormat::raw_pcm16);
    EXPECT_EQ(audio_format_from_name("raw"), AudioFormat::raw_pcm16);
    EXPECT_EQ(audio_format_from_name("flac"), AudioFormat::flac);
    EXPECT_EQ(audio_format_from_name("opus"), AudioFormat::ogg_opus);
    EXPECT_EQ(audio_format_from_name("ogg"), AudioFormat::ogg_opus);
    EXPECT_EQ(audio_format_from_name("mp3"), AudioFormat::mp3);
    EXPECT_EQ(audio_format_from_name("npy"), AudioFormat::npy_f32);
}

TEST(audio_format, FromPath) {
    EXPECT_EQ(audio_format_from_path("out.wav"), AudioFormat::wav_pcm16);
    EXPECT_EQ(audio_format_from_path("/a.b/OUT.WAV"), AudioFormat::wav_pcm16);
    EXPECT_EQ(audio_format_from_path("x.pcm"), AudioFormat::raw_pcm16);
    EXPECT_EQ(audio_format_from_path("x.raw"), AudioFormat::raw_pcm16);
    EXPECT_EQ(audio_format_from_path("x.flac"), AudioFormat::flac);
    EXPECT_EQ(audio_format_from_path("x.ogg"), AudioFormat::ogg_opus);
    EXPECT_EQ(audio_format_from_path("x.opus"), AudioFormat::ogg_opus);
    EXPECT_EQ(audio_format_from_path("x.mp3"), AudioFormat::mp3);
    EXPECT_EQ(audio_format_from_path("x.npy"), AudioFormat::npy_f32);
}

TEST(audio_format, NamesRoundTrip) {
    for (AudioFormat f :
         {AudioFormat::wav_pcm16, AudioFormat::wav_f32, AudioFormat::raw_pcm16, AudioFormat::flac,
          AudioFormat::ogg_opus, AudioFormat::mp3, AudioFormat::npy_f32}) {
        EXPECT_EQ(audio_format_from_name(audio_format_name(f)), f);
        EXPECT_NE(std::string(audio_format_mime_type(f)), "");
        if (f != AudioFormat::wav_f32) {
            EXPECT_EQ(audio_format_from_path(std::string("a") + audio_format_extension(f)), f);
        }
    }
    EXPECT_TRUE(audio_format_is_lossless(AudioFormat::flac));
    EXPECT_FALSE(audio_format_is_lossless(AudioFormat::mp3));
}

TEST(audio_format, UnknownNameNamesTheValue) {
    try {
        audio_format_from_name("aiff");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("'aiff'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("wav-f32"), std::string::npos) << e.what();
    }
}

TEST(audio_format, UnknownExtensionNamesThePath) {
    try {
        audio_format_from_path("dir.v2/speech.aiff");
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("dir.v2/speech.aiff"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("'.aiff'"), std::string::npos) << e.what();
    }
    EXPECT_EQ(code_of([] { audio_format_from_path("dir.v2/speech"); }),
              ErrorCode::invalid_argument);
    EXPECT_EQ(code_of([] { audio_format_from_path("-"); }), ErrorCode::invalid_argument);
    EXPECT_EQ(code_of([] { audio_format_from_path("speech."); }), ErrorCode::invalid_argument);
}

}  // namespace
}  // namespace qwen3tts
