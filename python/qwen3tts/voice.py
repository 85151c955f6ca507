"""Voice: a cloned voice for the Base models (the reference speaker's x-vector and, in the
in-context mode, the reference's codec frames and transcript), saved to and loaded from a
`.voice` file. It plays the part of the official VoiceClonePromptItem."""

import ctypes
import os

from . import _lib
from ._handle import Closable, Handle


class Voice(Closable):
    """Made by Qwen3TTSModel.create_voice_clone_prompt (one per reference) or Voice.load.
    Immutable; may be used by any number of threads and calls at once.

    Attributes mirroring VoiceClonePromptItem: x_vector_only_mode, icl_mode, ref_text (the
    reference's transcript; None for an x-vector-only voice). The reference codes and the
    x-vector themselves stay inside the library."""

    def __init__(self, ptr):
        # Not for direct use: see create_voice_clone_prompt and load.
        self._handle = Handle(ptr, _lib.lib().qwen3tts_voice_free, "voice")
        with self._handle as p:
            self.icl_mode = bool(_lib.lib().qwen3tts_voice_in_context(p))
            stored = _lib.lib().qwen3tts_voice_ref_text(p).decode("utf-8")
        self.x_vector_only_mode = not self.icl_mode
        self.ref_text = stored if self.icl_mode else None

    @classmethod
    def load(cls, path):
        """Reads a `.voice` file (written by save() or `qwen3tts voice`)."""
        out = ctypes.c_void_p()
        _lib.check(_lib.lib().qwen3tts_voice_load(_lib.encode(os.fspath(path)), ctypes.byref(out)))
        return cls(out.value)

    def save(self, path):
        """Writes the voice to a `.voice` file (atomically: temporary name, then rename)."""
        with self._handle as p:
            _lib.check(_lib.lib().qwen3tts_voice_save(p, _lib.encode(os.fspath(path))))

    def close(self):
        """Frees the voice now (after calls using it have finished); later use is an error."""
        self._handle.close()

    def __repr__(self):
        mode = "in-context" if self.icl_mode else "x-vector only"
        return "<qwen3tts.Voice %s%s>" % (mode, ", closed" if self._handle.closed else "")


# The official name of a voice-clone prompt item.
VoiceClonePromptItem = Voice
