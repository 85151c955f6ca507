// The audio layer in one include: output formats and writers, reading reference audio,
// resampling.
#pragma once

#include "audio/audio_format.hpp"
#include "audio/audio_reader.hpp"
#include "audio/audio_writer.hpp"
#include "audio/resample.hpp"
