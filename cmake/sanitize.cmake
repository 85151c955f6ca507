# QWEN3TTS_SANITIZE: build everything (libraries, CLI, tests, benchmarks) with sanitizers,
# e.g. -DQWEN3TTS_SANITIZE=address,undefined or -DQWEN3TTS_SANITIZE=thread (scripts/sanitize.sh).
# A UBSan finding aborts instead of printing and going on, so a test cannot pass over one.
set(QWEN3TTS_SANITIZE "" CACHE STRING
    "Sanitizers to build with: address,undefined or thread (empty: none)")
if(QWEN3TTS_SANITIZE)
  if(NOT QWEN3TTS_SANITIZE MATCHES "^(address|undefined|address,undefined|undefined,address|thread)$")
    message(FATAL_ERROR "QWEN3TTS_SANITIZE=${QWEN3TTS_SANITIZE}: use address,undefined or thread "
                        "(ASan and TSan cannot be combined)")
  endif()
  # -g1: line tables, so the reports name file:line without the cost of full debug info.
  add_compile_options(-fsanitize=${QWEN3TTS_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined -g1)
  add_link_options(-fsanitize=${QWEN3TTS_SANITIZE} -fno-sanitize-recover=undefined)
endif()
