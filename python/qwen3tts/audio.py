"""write_audio: samples to an audio file through the library's writers (no audio package
needed): WAV, FLAC, Ogg/Opus, MP3, raw PCM or .npy."""

import ctypes
import os

import numpy as np

from . import _lib
from .errors import invalid_argument


def write_audio(path, samples, sample_rate=24000, format=None):
    """Writes mono float samples in [-1, 1] to path. format None takes it from the extension
    (.wav .flac .ogg/.opus .mp3 .pcm .npy), else "wav" (16-bit), "wav-f32", "flac", "opus",
    "mp3", "pcm" or "npy". Atomic: written under a temporary name, then renamed."""
    samples = np.ascontiguousarray(samples, dtype=np.float32)
    if samples.ndim != 1:
        raise invalid_argument(
            "write_audio takes mono samples (one dimension), got shape %s" % (samples.shape,)
        )
    _lib.check(
        _lib.lib().qwen3tts_write_audio(
            _lib.encode(os.fspath(path)),
            samples.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
            samples.size,
            int(sample_rate),
            _lib.encode(format),
        )
    )
