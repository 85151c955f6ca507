"""qwen3tts: Qwen3-TTS text to speech on the CPU, through the qwen3tts C library.

The interface is the official `qwen_tts` package's (Qwen3TTSModel.from_pretrained,
generate_custom_voice, generate_voice_design, generate_voice_clone,
create_voice_clone_prompt), so switching is one import line:

    from qwen3tts import Qwen3TTSModel

plus streaming (stream_custom_voice, stream_voice_design, stream_voice_clone) and Voice
objects saved to and loaded from `.voice` files. See python/README.md."""

from . import _lib
from .audio import write_audio
from .errors import (
    BusyError,
    InvalidArgumentError,
    Qwen3TTSError,
    Qwen3TTSIOError,
    UnsupportedError,
)
from .model import Model, ModelInfo, Qwen3TTSModel
from .scheduler import Request, RequestResult, Scheduler
from .stream import AudioStream
from .voice import Voice, VoiceClonePromptItem

__version__ = "0.2.0"


def library_version():
    """The loaded library's version: "0.2.0 (git 1a2b3c4d5e6f, avx512, Release)"."""
    return _lib.decode(_lib.lib().qwen3tts_version())


def library_path():
    """The file of the loaded qwen3tts library."""
    return _lib.lib()._name


__all__ = [
    "AudioStream",
    "BusyError",
    "InvalidArgumentError",
    "Model",
    "ModelInfo",
    "Qwen3TTSError",
    "Qwen3TTSIOError",
    "Qwen3TTSModel",
    "Request",
    "RequestResult",
    "Scheduler",
    "UnsupportedError",
    "Voice",
    "VoiceClonePromptItem",
    "library_path",
    "library_version",
    "write_audio",
]
