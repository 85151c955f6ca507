"""Reference audio in the forms the official generate_voice_clone takes: a file path, base64
audio (a data URI or a bare base64 string), or (samples, sample_rate). URLs are refused: the
library does not download audio."""

import base64
import binascii
import contextlib
import os
import re
import tempfile
from urllib.parse import urlparse

import numpy as np

from .errors import invalid_argument


def samples_of(audio):
    """Mono float32 samples (C order) of a (samples, sample_rate) tuple, else None (a file)."""
    if isinstance(audio, tuple) and len(audio) == 2 and isinstance(audio[0], np.ndarray):
        samples = np.asarray(audio[0], dtype=np.float32)
        if samples.ndim > 1:  # [samples, channels] → mono, as the official code mixes
            samples = samples.mean(axis=-1, dtype=np.float32)
        return np.ascontiguousarray(samples)
    if isinstance(audio, np.ndarray):
        raise invalid_argument("For numpy waveform input, pass a tuple (audio, sr).")
    if not isinstance(audio, (str, os.PathLike)):
        raise TypeError("Unsupported audio input type: %s" % type(audio))
    return None


def _is_url(s):
    u = urlparse(s)
    return u.scheme in ("http", "https", "ftp") and bool(u.netloc)


_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]+")


def _is_base64(s):
    # A data URI, or a long string of base64 characters that names no file. (The official test,
    # no "/" in the string, misses most base64 audio: "/" is one of its characters.)
    if s.startswith("data:audio"):
        return True
    return len(s) > 256 and _BASE64.fullmatch(s) is not None and not os.path.exists(s)


@contextlib.contextmanager
def file_of(audio):
    """A path to the audio a str or path names: the path itself, or a temporary file of base64
    audio (removed afterwards)."""
    s = os.fspath(audio)
    if _is_url(s):
        raise invalid_argument(
            "ref_audio %r is a URL; qwen3tts does not download audio: fetch it and pass the "
            "file's path" % s
        )
    if not _is_base64(s):
        yield s
        return
    payload = s.split(",", 1)[1] if s.startswith("data:") and "," in s else s
    payload = "".join(payload.split())  # line breaks of wrapped base64
    try:
        data = base64.b64decode(payload, validate=True)
    except (binascii.Error, ValueError) as e:
        raise invalid_argument("ref_audio looks like base64 audio but does not decode: %s" % e)
    fd, path = tempfile.mkstemp(prefix="qwen3tts-ref-", suffix=".audio")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        yield path
    finally:
        os.unlink(path)
