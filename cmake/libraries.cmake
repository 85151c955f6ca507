# The libraries users link: libqwen3tts.so and libqwen3tts.a, both made of the objects the layer
# libraries already compiled (position-independent, hidden visibility), so nothing is compiled
# twice. Both are target qwen3tts::qwen3tts / qwen3tts::qwen3tts_static, here (add_subdirectory)
# and in an installed tree (find_package).

include(GNUInstallDirs)

# System libraries under the layers, linked privately: the public headers need none of them.
set(QWEN3TTS_SYSTEM_LIBS Threads::Threads PkgConfig::PCRE2 ${UTF8PROC_LIBRARY} PkgConfig::SNDFILE
    PkgConfig::SOXR PkgConfig::CURL OpenSSL::Crypto)

add_library(qwen3tts_shared SHARED ${QWEN3TTS_LAYER_OBJECTS})
add_library(qwen3tts::qwen3tts ALIAS qwen3tts_shared)
# SONAME libqwen3tts.so.0.2: while the major version is 0, a minor release may change the API
# and ABI (0.x semantics; the C API of 0.3 is not that of 0.2), so the minor version is part of
# the ABI version. From 1.0 on it will be the major version alone.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(QWEN3TTS_SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
else()
  set(QWEN3TTS_SOVERSION ${PROJECT_VERSION_MAJOR})
endif()
set(QWEN3TTS_VERSION_SCRIPT ${PROJECT_SOURCE_DIR}/cmake/libqwen3tts.map)
set_target_properties(qwen3tts_shared PROPERTIES
  OUTPUT_NAME qwen3tts EXPORT_NAME qwen3tts LINKER_LANGUAGE CXX
  VERSION ${PROJECT_VERSION} SOVERSION ${QWEN3TTS_SOVERSION}
  LINK_DEPENDS ${QWEN3TTS_VERSION_SCRIPT})
target_link_libraries(qwen3tts_shared PRIVATE ${QWEN3TTS_SYSTEM_LIBS})
target_link_options(qwen3tts_shared PRIVATE -Wl,--version-script=${QWEN3TTS_VERSION_SCRIPT})
# A symbol missing from the link fails here, not in the user's program. (Sanitizer runtimes are
# resolved by the executable, so those builds leave it out.)
if(NOT QWEN3TTS_SANITIZE AND NOT QWEN3TTS_FUZZ)
  target_link_options(qwen3tts_shared PRIVATE -Wl,--no-undefined)
endif()
target_include_directories(qwen3tts_shared PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(qwen3tts_shared INTERFACE cxx_std_17)  # qwen3tts.hpp: std::optional

# One archive with every layer, so a static user links one library plus the system ones.
add_library(qwen3tts_static STATIC ${QWEN3TTS_LAYER_OBJECTS})
add_library(qwen3tts::qwen3tts_static ALIAS qwen3tts_static)
set_target_properties(qwen3tts_static PROPERTIES
  OUTPUT_NAME qwen3tts EXPORT_NAME qwen3tts_static LINKER_LANGUAGE CXX)
# Plain library names (not the imported targets of this build), so that the installed target
# resolves them from the user's linker path without our find modules.
target_link_libraries(qwen3tts_static INTERFACE "$<BUILD_INTERFACE:${QWEN3TTS_SYSTEM_LIBS}>"
  "$<INSTALL_INTERFACE:Threads::Threads;pcre2-8;utf8proc;sndfile;soxr;curl;crypto>")
target_include_directories(qwen3tts_static PUBLIC
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(qwen3tts_static INTERFACE cxx_std_17)
