"""The exceptions of the package: one per error code of the C API, all Qwen3TTSError.

Invalid arguments (an unknown speaker, a bad option value) are also ValueError and unreadable
files also OSError, so code written for the official `qwen_tts` package, which raises
ValueError, keeps catching them."""

OK = 0
ERR_INVALID_ARGUMENT = 1
ERR_IO = 2
ERR_FORMAT = 3
ERR_MODEL = 4
ERR_UNSUPPORTED = 5
ERR_INTERNAL = 6
ERR_BUSY = 7

_CODE_NAMES = {
    ERR_INVALID_ARGUMENT: "invalid argument",
    ERR_IO: "I/O error",
    ERR_FORMAT: "malformed file",
    ERR_MODEL: "model error",
    ERR_UNSUPPORTED: "unsupported",
    ERR_INTERNAL: "internal error",
    ERR_BUSY: "busy",
}


class Qwen3TTSError(Exception):
    """An error reported by the qwen3tts library: `code` (one of the ERR_* constants) and
    `message` (names the file, field or value at fault)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message

    @property
    def code_name(self):
        return _CODE_NAMES.get(self.code, "error %d" % self.code)


class InvalidArgumentError(Qwen3TTSError, ValueError):
    """A bad argument, option value or text (QWEN3TTS_ERR_INVALID_ARGUMENT)."""


class UnsupportedError(Qwen3TTSError, ValueError):
    """Valid, but not supported by this build or model (QWEN3TTS_ERR_UNSUPPORTED)."""


class Qwen3TTSIOError(Qwen3TTSError, OSError):
    """A file could not be read or written (QWEN3TTS_ERR_IO)."""


class BusyError(Qwen3TTSError):
    """Too many requests are waiting: try again later (QWEN3TTS_ERR_BUSY)."""


_CLASSES = {
    ERR_BUSY: BusyError,
    ERR_INVALID_ARGUMENT: InvalidArgumentError,
    ERR_UNSUPPORTED: UnsupportedError,
    ERR_IO: Qwen3TTSIOError,
}


def error_for_code(code, message):
    """The exception for a C API return code."""
    return _CLASSES.get(code, Qwen3TTSError)(code, message)


def invalid_argument(message):
    return InvalidArgumentError(ERR_INVALID_ARGUMENT, message)


def unsupported(message):
    return UnsupportedError(ERR_UNSUPPORTED, message)
