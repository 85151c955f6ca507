"""An owned C object (model, voice) that may be closed while other threads still use it: the
C object is freed when the last user is done, and new uses after close() are refused."""

import threading

from .errors import invalid_argument


class Handle:
    def __init__(self, ptr, free, what):
        self._ptr = ptr
        self._free = free
        self._what = what
        self._users = 0
        self._closed = False
        self._lock = threading.Lock()

    def acquire(self):
        """The pointer, held until release(); raises once the owner is closed."""
        with self._lock:
            if self._closed:
                raise invalid_argument("this %s is closed" % self._what)
            self._users += 1
            return self._ptr

    def release(self):
        with self._lock:
            self._users -= 1
            free_now = self._closed and self._users == 0
        if free_now:
            self._free_ptr()

    def close(self):
        with self._lock:
            if self._closed:
                return
            self._closed = True
            free_now = self._users == 0
        if free_now:
            self._free_ptr()

    @property
    def closed(self):
        return self._closed

    def _free_ptr(self):
        ptr, self._ptr = self._ptr, None
        if ptr:
            self._free(ptr)

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()


class Closable:
    """For the objects that own a Handle (model, voice): `with` closes them, and so does the
    garbage collector."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone already
            pass
