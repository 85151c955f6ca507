# cmake --install: the CLI, the public headers, libqwen3tts.so (+ its symlinks) and
# libqwen3tts.a, a CMake package (find_package(qwen3tts) → qwen3tts::qwen3tts, the shared
# library, and qwen3tts::qwen3tts_static) and qwen3tts.pc. docs/install.md says how to use them.
include(CMakePackageConfigHelpers)

set(QWEN3TTS_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/qwen3tts)

if(QWEN3TTS_BUILD_CLI)
  install(TARGETS qwen3tts RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(TARGETS qwen3tts_shared qwen3tts_static EXPORT qwen3ttsTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/qwen3tts DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")

install(EXPORT qwen3ttsTargets NAMESPACE qwen3tts:: DESTINATION ${QWEN3TTS_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/qwen3ttsConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/qwen3ttsConfig.cmake
                              INSTALL_DESTINATION ${QWEN3TTS_CMAKE_DIR})
# A 0.x minor release may break compatibility (see the SONAME in cmake/libraries.cmake), so
# find_package(qwen3tts 0.2) accepts 0.2.* only; from 1.0 on, the same major version.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(compatibility SameMinorVersion)
else()
  set(compatibility SameMajorVersion)
endif()
write_basic_package_version_file(${PROJECT_BINARY_DIR}/qwen3ttsConfigVersion.cmake
                                 COMPATIBILITY ${compatibility})
install(FILES ${PROJECT_BINARY_DIR}/qwen3ttsConfig.cmake
              ${PROJECT_BINARY_DIR}/qwen3ttsConfigVersion.cmake
        DESTINATION ${QWEN3TTS_CMAKE_DIR})

# qwen3tts.pc finds its prefix relative to itself (${pcfiledir}), so the tree may be installed
# with --prefix anywhere or moved. The system libraries are in Libs.private by name, not in
# Requires.private: libqwen3tts.a links their shared libraries, and Requires.private would add
# their own private dependencies (sndfile's -lmp3lame -lFLAC ..., whose -dev packages Debian
# does not install with libsndfile1-dev) and their Cflags to every user's command line.
file(RELATIVE_PATH QWEN3TTS_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" QWEN3TTS_PC_TO_PREFIX "${QWEN3TTS_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/qwen3tts.pc.in ${PROJECT_BINARY_DIR}/qwen3tts.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/qwen3tts.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
