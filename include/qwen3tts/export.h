/* QWEN3TTS_API marks the public C and C++ API: the only symbols libqwen3tts.so exports (the
 * library is built with hidden visibility, so internals stay private and can change freely). */
#ifndef QWEN3TTS_EXPORT_H
#define QWEN3TTS_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define QWEN3TTS_API __attribute__((visibility("default")))
/* An implementation type declared inside an exported class: hidden, or it would inherit the
 * class's default visibility and export the library's internals. */
#define QWEN3TTS_LOCAL __attribute__((visibility("hidden")))
#else
#define QWEN3TTS_API
#define QWEN3TTS_LOCAL
#endif

#endif /* QWEN3TTS_EXPORT_H */
