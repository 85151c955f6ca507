"""AudioStream: audio chunks of one request as they are decoded.

The C call (qwen3tts_speak_stream) runs on a worker thread and hands each chunk to a callback
there; the callback copies it into a bounded queue that the iterating thread reads. A full
queue holds the generation back (memory stays bounded when the consumer is slow). Closing the
stream early makes the next callback return non-zero, which ends the C call; the worker is then
joined. ctypes releases the GIL during the C call and takes it back for each callback."""

import queue
import threading

import numpy as np

_MAX_QUEUED_CHUNKS = 32  # a chunk is 1 to 4 frames (80-320 ms) for the released models
_POLL_S = 0.05  # how often a blocked worker looks whether the stream was closed


class _Done:
    def __init__(self, report=None, error=None):
        self.report = report
        self.error = error


class _State:
    """What the worker shares with the stream (not the stream itself, so that a stream nobody
    holds any more is collected, and its __del__ stops the worker)."""

    def __init__(self):
        self.queue = queue.Queue(maxsize=_MAX_QUEUED_CHUNKS)
        self.cancel = threading.Event()
        self.report = None  # set by the worker when the C call has returned

    def put(self, item):
        """Queues item unless the stream is closed first; returns whether it was queued."""
        while not self.cancel.is_set():
            try:
                self.queue.put(item, timeout=_POLL_S)
                return True
            except queue.Full:
                pass
        return False


def _work(state, run):
    """Worker thread body: run(on_chunk) performs the C call and returns its report."""
    callback_error = []

    def on_chunk(samples):
        try:
            return 0 if state.put(np.array(samples, dtype=np.float32, copy=True)) else 1
        except BaseException as e:  # an exception must not cross the C frames
            callback_error.append(e)
            return 1

    try:
        report = state.report = run(on_chunk)
        done = _Done(report, callback_error[0] if callback_error else None)
    except BaseException as e:
        done = _Done(error=e)
    state.put(done)


class AudioStream:
    """Iterator of float32 numpy chunks (mono, `sample_rate` Hz) of one text, in order; their
    concatenation equals the generate_* output for the same arguments and seed.

    After the last chunk, `report` holds the generation report (frames, seed, timings, as a
    dict). close() (or leaving a `with` block, or dropping the stream) stops the generation
    early. Errors of the generation are raised from the iteration."""

    def __init__(self, run, sample_rate):
        self.sample_rate = sample_rate
        self.report = None
        self._state = _State()
        self._finished = False
        self._thread = threading.Thread(
            target=_work, args=(self._state, run), name="qwen3tts-stream", daemon=True
        )
        self._thread.start()

    def __iter__(self):
        return self

    def __next__(self):
        if self._finished:
            raise StopIteration
        item = self._state.queue.get()
        if not isinstance(item, _Done):
            return item
        self._finished = True
        self._thread.join()
        if item.error is not None:
            raise item.error
        self.report = item.report
        raise StopIteration

    def close(self):
        """Stops the generation (if still running) and waits for the worker to end; `report`
        then says how far it got (its "cancelled" is 1 when it was stopped)."""
        self._state.cancel.set()
        self._thread.join()
        self._finished = True
        if self.report is None:
            self.report = self._state.report

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self._state.cancel.set()
        except AttributeError:  # __init__ did not get that far
            pass

