"""ctypes view of the C API (include/qwen3tts/qwen3tts.h): finding the library, the structs
(field for field, in header order) and the function signatures. Every call that returns an error
code goes through `check`, which turns a non-zero code into a Qwen3TTSError."""

import ctypes
import ctypes.util
import os
import sys
import threading
from pathlib import Path

from .errors import error_for_code, invalid_argument

# ---- structs ------------------------------------------------------------------------------------


class LoadOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("pretokenizer", ctypes.c_char_p),
        ("mmap", ctypes.c_int),
        ("quant", ctypes.c_char_p),
        ("copy_frame_weights", ctypes.c_int),
        ("codec_conv", ctypes.c_char_p),
    ]


class ModelInfo(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("dir", ctypes.c_char_p),
        ("type", ctypes.c_char_p),
        ("size", ctypes.c_char_p),
        ("hidden_size", ctypes.c_int64),
        ("talker_layers", ctypes.c_int64),
        ("n_speakers", ctypes.c_size_t),
        ("speakers", ctypes.POINTER(ctypes.c_char_p)),
        ("speaker_dialects", ctypes.POINTER(ctypes.c_char_p)),
        ("n_languages", ctypes.c_size_t),
        ("languages", ctypes.POINTER(ctypes.c_char_p)),
        ("n_dialects", ctypes.c_size_t),
        ("dialects", ctypes.POINTER(ctypes.c_char_p)),
        ("takes_instruction", ctypes.c_int),
        ("weight_bytes", ctypes.c_uint64),
        ("n_codebook", ctypes.c_int),
        ("codebook_size", ctypes.c_int),
        ("sample_rate", ctypes.c_int),
        ("language_codes", ctypes.POINTER(ctypes.c_char_p)),
        ("quant", ctypes.c_char_p),
        ("codec_conv", ctypes.c_char_p),
    ]


class CloneOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("ref_text", ctypes.c_char_p),
        ("x_vector_only", ctypes.c_int),
        ("max_seconds", ctypes.c_double),
    ]


class Sampling(ctypes.Structure):
    _fields_ = [
        ("do_sample", ctypes.c_int),
        ("temperature", ctypes.c_float),
        ("top_k", ctypes.c_int),
        ("top_p", ctypes.c_float),
        ("repetition_penalty", ctypes.c_float),
    ]


class Options(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("language", ctypes.c_char_p),
        ("speaker", ctypes.c_char_p),
        ("instruct", ctypes.c_char_p),
        ("voice", ctypes.c_void_p),
        ("text_layout", ctypes.c_char_p),
        ("talker", Sampling),
        ("predictor", Sampling),
        ("max_frames", ctypes.c_int),
        ("has_seed", ctypes.c_int),
        ("seed", ctypes.c_uint64),
        ("codec_decode", ctypes.c_char_p),
        ("segment_chars", ctypes.c_int),
        ("codec_overlap", ctypes.c_char_p),
    ]


class Report(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("prompt_positions", ctypes.c_int64),
        ("frames", ctypes.c_int64),
        ("stopped_at_eos", ctypes.c_int),
        ("cancelled", ctypes.c_int),
        ("seed", ctypes.c_uint64),
        ("prefill_ms", ctypes.c_double),
        ("talker_ms", ctypes.c_double),
        ("predictor_ms", ctypes.c_double),
        ("codec_ms", ctypes.c_double),
        ("first_audio_ms", ctypes.c_double),
        ("total_ms", ctypes.c_double),
        ("samples", ctypes.c_int64),
        ("reused_positions", ctypes.c_int64),
    ]


class SchedulerOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("max_batch", ctypes.c_int),
        ("max_queue", ctypes.c_int),
        ("threads", ctypes.c_int),
    ]


class SchedulerLoad(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("active", ctypes.c_int64),
        ("queued", ctypes.c_int64),
        ("frames", ctypes.c_int64),
    ]


class RequestResult(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("status", ctypes.c_int),
        ("error_code", ctypes.c_int),
        ("error", ctypes.c_char_p),
    ]


AUDIO_CALLBACK = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ctypes.c_float), ctypes.c_size_t, ctypes.c_void_p
)
FRAME_CALLBACK = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ctypes.c_int32), ctypes.c_size_t, ctypes.c_void_p
)
DONE_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)


class RequestCallbacks(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_size_t),
        ("on_frame", FRAME_CALLBACK),
        ("on_audio", AUDIO_CALLBACK),
        ("on_done", DONE_CALLBACK),
        ("user_data", ctypes.c_void_p),
    ]

# ---- signatures ---------------------------------------------------------------------------------

_p = ctypes.POINTER
_vp = ctypes.c_void_p
_int, _size, _str, _dbl = ctypes.c_int, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_double

# name: (restype, argtypes). Handles (model, synthesizer, voice) are opaque void pointers.
_SIGNATURES = {
    "qwen3tts_version": (_str, []),
    "qwen3tts_last_error": (_str, []),
    "qwen3tts_free": (None, [_vp]),
    "qwen3tts_load_options_init": (None, [_p(LoadOptions), _size]),
    "qwen3tts_model_load": (_int, [_str, _p(LoadOptions), _p(_vp)]),
    "qwen3tts_model_free": (None, [_vp]),
    "qwen3tts_model_get_info": (_int, [_vp, _p(ModelInfo)]),
    "qwen3tts_model_tokenize": (_int, [_vp, _str, _p(_p(ctypes.c_int32)), _p(_size)]),
    "qwen3tts_model_decode": (
        _int,
        [_vp, _p(ctypes.c_int32), _size, _str, _int, _p(_p(ctypes.c_float)), _p(_size)],
    ),
    "qwen3tts_model_encode_audio": (
        _int,
        [_vp, _str, _int, _dbl, _p(_p(ctypes.c_int32)), _p(_size)],
    ),
    "qwen3tts_clone_options_init": (None, [_p(CloneOptions), _size]),
    "qwen3tts_voice_clone": (_int, [_vp, _str, _p(CloneOptions), _p(_vp)]),
    "qwen3tts_voice_clone_samples": (
        _int,
        [_vp, _p(ctypes.c_float), _size, _int, _p(CloneOptions), _p(_vp)],
    ),
    "qwen3tts_voice_load": (_int, [_str, _p(_vp)]),
    "qwen3tts_voice_save": (_int, [_vp, _str]),
    "qwen3tts_voice_free": (None, [_vp]),
    "qwen3tts_voice_in_context": (_int, [_vp]),
    "qwen3tts_voice_ref_text": (ctypes.c_char_p, [_vp]),
    "qwen3tts_options_init": (None, [_vp, _p(Options), _size]),
    "qwen3tts_synthesizer_new": (_int, [_vp, _int, _p(_vp)]),
    "qwen3tts_synthesizer_free": (None, [_vp]),
    "qwen3tts_generate_codes": (
        _int,
        [_vp, _str, _p(Options), _p(_p(ctypes.c_int32)), _p(_size), _p(Report)],
    ),
    "qwen3tts_generate_codes_stream": (
        _int,
        [_vp, _str, _p(Options), FRAME_CALLBACK, _vp, _p(Report)],
    ),
    "qwen3tts_speak": (
        _int,
        [_vp, _str, _p(Options), _p(_p(ctypes.c_float)), _p(_size), _p(Report)],
    ),
    "qwen3tts_speak_stream": (
        _int,
        [_vp, _str, _p(Options), AUDIO_CALLBACK, _vp, _p(Report)],
    ),
    "qwen3tts_scheduler_options_init": (None, [_p(SchedulerOptions), _size]),
    "qwen3tts_scheduler_new": (_int, [_vp, _p(SchedulerOptions), _p(_vp)]),
    "qwen3tts_scheduler_free": (None, [_vp]),
    "qwen3tts_scheduler_get_load": (_int, [_vp, _p(SchedulerLoad)]),
    "qwen3tts_request_callbacks_init": (None, [_p(RequestCallbacks), _size]),
    "qwen3tts_scheduler_submit": (
        _int,
        [_vp, _str, _p(Options), _p(RequestCallbacks), _p(_vp)],
    ),
    "qwen3tts_scheduler_submit_incremental": (
        _int,
        [_vp, _str, _p(Options), _p(RequestCallbacks), _p(_vp)],
    ),
    "qwen3tts_request_cancel": (_int, [_vp]),
    "qwen3tts_request_push_text": (_int, [_vp, _str]),
    "qwen3tts_request_finish_text": (_int, [_vp]),
    "qwen3tts_request_flush_text": (_int, [_vp]),
    "qwen3tts_request_wait": (_int, [_vp, _p(RequestResult), _p(Report)]),
    "qwen3tts_request_done": (_int, [_vp]),
    "qwen3tts_request_free": (None, [_vp]),
    "qwen3tts_write_audio": (_int, [_str, _p(ctypes.c_float), _size, _int, _str]),
}

# ---- finding the library ------------------------------------------------------------------------

# The library's SONAME: while the version is 0.x, each minor release has its own ABI.
_SONAME = "libqwen3tts.so.0.2"


def _build_dirs():
    """Build trees of the checkout this package comes from: the one it runs from (a source tree
    or an editable install: <checkout>/python/qwen3tts) and the one recorded by setup.py when
    it was installed."""
    dirs = []
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "python" / "qwen3tts").is_dir() and (checkout / "CMakeLists.txt").is_file():
        dirs.append(checkout / "build")
    try:
        from ._checkout import CHECKOUT
    except ImportError:
        CHECKOUT = None
    if CHECKOUT and Path(CHECKOUT) / "build" not in dirs:
        dirs.append(Path(CHECKOUT) / "build")
    return dirs


def _candidates():
    """(description, path or name) in lookup order."""
    env = os.environ.get("QWEN3TTS_LIBRARY")
    if env:
        return [("QWEN3TTS_LIBRARY", env)]
    out = []
    here = Path(__file__).resolve().parent
    out.append(("the package directory", str(here / _SONAME)))
    for build in _build_dirs():
        out.append(("the checkout's build tree", str(build / _SONAME)))
    out.append(("the system loader (installed prefix, LD_LIBRARY_PATH)", _SONAME))
    found = ctypes.util.find_library("qwen3tts")
    if found:
        out.append(("ctypes.util.find_library", found))
    # `cmake --install` into a prefix the loader's cache does not know yet (no ldconfig run).
    for prefix in dict.fromkeys((sys.prefix, "/usr/local")):
        out.append(("the install prefix %s" % prefix, os.path.join(prefix, "lib", _SONAME)))
    return out


def _open():
    tried = []
    for where, path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append("%s: %s (no such file)" % (where, path))
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s: %s (%s)" % (where, path, e))
    raise OSError(
        "qwen3tts: cannot load the qwen3tts shared library; build it (scripts/build.sh) or "
        "install it, or set QWEN3TTS_LIBRARY to its path. Tried:\n  " + "\n  ".join(tried)
    )


def _declare(cdll):
    for name, (restype, argtypes) in _SIGNATURES.items():
        try:
            f = getattr(cdll, name)
        except AttributeError:
            raise OSError(
                "qwen3tts: the library %s lacks %s; it is older than this Python package"
                % (cdll._name, name)
            ) from None
        f.restype = restype
        f.argtypes = argtypes


_lock = threading.Lock()
_cdll = None


def lib():
    """The loaded library with every function declared (loaded on first use)."""
    global _cdll
    with _lock:
        if _cdll is None:
            cdll = _open()
            _declare(cdll)
            _cdll = cdll
        return _cdll


def check(code):
    """Raises the Qwen3TTSError of a non-zero return code with the thread's last message."""
    if code != 0:
        message = lib().qwen3tts_last_error()
        raise error_for_code(code, message.decode("utf-8", "replace") if message else "")


def encode(s):
    """A Python str as the UTF-8 char* the C API takes (None stays NULL)."""
    if s is None:
        return None
    s = str(s)
    if "\0" in s:
        raise invalid_argument("%.60r contains a NUL character, which a C string cannot carry" % s)
    return s.encode("utf-8")


def decode(b):
    return "" if b is None else b.decode("utf-8", "replace")
