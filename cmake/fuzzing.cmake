# libFuzzer build (fuzz/, scripts/fuzz.sh): clang only. Every library is instrumented too, so
# the fuzzers get coverage feedback from inside the parsers and the sanitizers catch memory
# errors and undefined behaviour there, not only in the harnesses.
option(QWEN3TTS_FUZZ "Build the libFuzzer targets in fuzz/ (needs clang)" OFF)
if(QWEN3TTS_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "QWEN3TTS_FUZZ needs clang: CC=clang-15 CXX=clang++-15 cmake ...")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined
                      -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
