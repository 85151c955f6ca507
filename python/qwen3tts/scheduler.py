"""Many requests at once: a Scheduler runs every request submitted to it together on one model
(continuous batching), and each request's audio is exactly what it would be alone (same seed and
options). Requests can take their text piece by piece (incremental=True, push_text,
finish_text, flush_text), be cancelled from any thread, and are waited for with wait()."""

import ctypes
import threading

import numpy as np

from . import _lib
from ._handle import Closable, Handle
from .errors import error_for_code
from .model import _Request, _voice_of

_STATUS = {0: "completed", 1: "cancelled", 2: "failed"}


class RequestResult:
    """What a request made: `audio` (float32, 24 kHz), `codes` (int32 [frames, n_codebook]),
    `status` ("completed" or "cancelled") and `report` (the C report's fields)."""

    def __init__(self, audio, codes, status, report):
        self.audio, self.codes, self.status, self.report = audio, codes, status, report


class Request:
    """A submitted request. Thread-safe."""

    def __init__(self, scheduler):
        self._scheduler = scheduler  # kept alive while the request may run
        self._chunks, self._frames = [], []
        self._ptr = None
        self._lock = threading.Lock()

        def on_frame(codes, n, _user):
            self._frames.append(np.ctypeslib.as_array(codes, shape=(n,)).copy())
            return 0

        def on_audio(samples, n, _user):
            self._chunks.append(np.ctypeslib.as_array(samples, shape=(n,)).copy())
            return 0

        # The C callbacks must outlive the request: they are kept with it.
        self._on_frame = _lib.FRAME_CALLBACK(on_frame)
        self._on_audio = _lib.AUDIO_CALLBACK(on_audio)

    def _call(self, name, *args):
        with self._lock:
            if self._ptr is None:
                raise ValueError("this request is freed")
            _lib.check(getattr(_lib.lib(), name)(self._ptr, *args))

    def cancel(self):
        """Ends the request within one frame (status "cancelled"); its memory is freed."""
        self._call("qwen3tts_request_cancel")

    def push_text(self, text):
        """More text for a request submitted with incremental=True."""
        self._call("qwen3tts_request_push_text", _lib.encode(text))

    def finish_text(self):
        """The end of an incremental request's text."""
        self._call("qwen3tts_request_finish_text")

    def flush_text(self):
        """Speaks the text pushed so far now, the last word included (a writer that pauses).
        The text after it is tokenised on its own: the audio equals the whole text's when the
        cut is where a tokenizer piece ends anyway (after "." before the following space)."""
        self._call("qwen3tts_request_flush_text")

    def done(self):
        return bool(self._ptr) and _lib.lib().qwen3tts_request_done(self._ptr) == 1

    def wait(self):
        """Blocks until the request has ended; its RequestResult, or the error that ended it."""
        result = _lib.RequestResult(struct_size=ctypes.sizeof(_lib.RequestResult))
        report = _lib.Report(struct_size=ctypes.sizeof(_lib.Report))
        _lib.check(
            _lib.lib().qwen3tts_request_wait(self._ptr, ctypes.byref(result), ctypes.byref(report))
        )
        if result.status == 2:
            raise error_for_code(result.error_code, _lib.decode(result.error))
        audio = np.concatenate(self._chunks) if self._chunks else np.zeros(0, np.float32)
        codes = np.stack(self._frames) if self._frames else np.zeros((0, 16), np.int32)
        fields = {name: getattr(report, name) for name, _ in _lib.Report._fields_[1:]}
        return RequestResult(audio, codes, _STATUS[result.status], fields)

    def _free(self):
        with self._lock:
            ptr, self._ptr = self._ptr, None
        if ptr:
            _lib.lib().qwen3tts_request_free(ptr)

    def __del__(self):
        try:
            self._free()
        except Exception:  # interpreter shutdown
            pass


class Scheduler(Closable):
    """Runs the requests submitted to it together on `model` (a Qwen3TTSModel). close() (or a
    `with` block) cancels what is still running."""

    def __init__(self, model, max_batch=8, max_queue=64, threads=None):
        o = _lib.SchedulerOptions()
        _lib.lib().qwen3tts_scheduler_options_init(
            ctypes.byref(o), ctypes.sizeof(_lib.SchedulerOptions)
        )
        o.max_batch, o.max_queue = max_batch, max_queue
        o.threads = model.threads if threads is None else threads
        self._model = model
        out = ctypes.c_void_p()
        with model._handle as m:
            _lib.check(_lib.lib().qwen3tts_scheduler_new(m, ctypes.byref(o), ctypes.byref(out)))
        self._handle = Handle(out.value, _lib.lib().qwen3tts_scheduler_free, "scheduler")
        self._requests = []  # their C callbacks live until the scheduler is closed

    def submit(self, text, speaker=None, language=None, instruct=None, voice=None,
               incremental=False, non_streaming_mode=None, **kwargs):
        """Queues a request with the keywords of Qwen3TTSModel.generate_* (seed, do_sample,
        max_new_tokens, ...). incremental=True: `text` is the beginning, more comes with
        push_text until finish_text (the streaming text layout). A full queue raises
        Qwen3TTSError with code ERR_BUSY."""
        req = _Request(text, language, speaker, instruct, voice)
        o = self._model._options(req, non_streaming_mode, kwargs)
        r = Request(self)
        cb = _lib.RequestCallbacks()
        _lib.lib().qwen3tts_request_callbacks_init(
            ctypes.byref(cb), ctypes.sizeof(_lib.RequestCallbacks)
        )
        cb.on_frame, cb.on_audio = r._on_frame, r._on_audio
        out = ctypes.c_void_p()
        submit = (
            _lib.lib().qwen3tts_scheduler_submit_incremental
            if incremental
            else _lib.lib().qwen3tts_scheduler_submit
        )
        with self._handle as s, _voice_of(req) as v:
            o.voice = v
            _lib.check(
                submit(s, _lib.encode(text), ctypes.byref(o), ctypes.byref(cb), ctypes.byref(out))
            )
        r._ptr = out.value
        self._requests = [x for x in self._requests if not x.done()] + [r]
        return r

    def load(self):
        """{"active": generating, "queued": waiting, "frames": made since the start}."""
        load = _lib.SchedulerLoad(struct_size=ctypes.sizeof(_lib.SchedulerLoad))
        with self._handle as s:
            _lib.check(_lib.lib().qwen3tts_scheduler_get_load(s, ctypes.byref(load)))
        return {"active": load.active, "queued": load.queued, "frames": load.frames}

    def close(self):
        self._handle.close()
