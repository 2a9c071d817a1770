"""Exceptions: one class per library status, each deriving from gpgpu.Error and the built-in
exception that fits its kind, so that `except ValueError` catches bad input whether numpy or
the library found it."""
from . import _lib


class Error(Exception):
    """A failure reported by libgpgpu.

    Attributes: ``status`` (the library's gpgpu_status code, an int), ``status_name`` (its
    English name, gpgpu_status_string) and ``message`` (the library's message: the context's
    last error, or the reader's one-line message naming the file and line)."""

    status = None

    def __init__(self, message, status=None):
        super().__init__(message)
        if status is not None:
            self.status = status
        self.message = message

    @property
    def status_name(self):
        if self.status is None:
            return None
        return _lib.gpgpu_status_string(self.status).decode()


def _status_class(name, status, base, doc):
    cls = type(name, (Error, base), {"status": status, "__doc__": doc, "__module__": "gpgpu"})
    return cls


InvalidArgumentError = _status_class(
    "InvalidArgumentError", _lib.GPGPU_ERROR_INVALID_ARGUMENT, ValueError,
    "GPGPU_ERROR_INVALID_ARGUMENT: a value makes no sense (a malformed matrix, a bad size).")
NullPointerError = _status_class(
    "NullPointerError", _lib.GPGPU_ERROR_NULL_POINTER, ValueError,
    "GPGPU_ERROR_NULL_POINTER: a required pointer was NULL.")
OutOfRangeError = _status_class(
    "OutOfRangeError", _lib.GPGPU_ERROR_OUT_OF_RANGE, IndexError,
    "GPGPU_ERROR_OUT_OF_RANGE: offset + count runs past the end of a buffer.")
UnsupportedCombinationError = _status_class(
    "UnsupportedCombinationError", _lib.GPGPU_ERROR_UNSUPPORTED_COMBINATION, ValueError,
    "GPGPU_ERROR_UNSUPPORTED_COMBINATION: type, operator, format and algorithm do not fit.")
OverlapError = _status_class(
    "OverlapError", _lib.GPGPU_ERROR_OVERLAP, ValueError,
    "GPGPU_ERROR_OVERLAP: input and output ranges overlap without being equal.")
MisalignedError = _status_class(
    "MisalignedError", _lib.GPGPU_ERROR_MISALIGNED, ValueError,
    "GPGPU_ERROR_MISALIGNED: a byte offset is not a multiple of the element size.")
TooLargeError = _status_class(
    "TooLargeError", _lib.GPGPU_ERROR_TOO_LARGE, ValueError,
    "GPGPU_ERROR_TOO_LARGE: a count beyond what the shaders index (2^31 - 1).")
NoContextError = _status_class(
    "NoContextError", _lib.GPGPU_ERROR_NO_CONTEXT, RuntimeError,
    "GPGPU_ERROR_NO_CONTEXT: no GL context could be made, or none is current.")
GLVersionError = _status_class(
    "GLVersionError", _lib.GPGPU_ERROR_GL_VERSION, RuntimeError,
    "GPGPU_ERROR_GL_VERSION: GL older than 4.5, which the library needs.")
UnsupportedFeatureError = _status_class(
    "UnsupportedFeatureError", _lib.GPGPU_ERROR_UNSUPPORTED_FEATURE, NotImplementedError,
    "GPGPU_ERROR_UNSUPPORTED_FEATURE: the device lacks it (float64 without shader doubles).")
BackendUnavailableError = _status_class(
    "BackendUnavailableError", _lib.GPGPU_ERROR_BACKEND_UNAVAILABLE, RuntimeError,
    "GPGPU_ERROR_BACKEND_UNAVAILABLE: the backend was not built or cannot start.")
WrongContextError = _status_class(
    "WrongContextError", _lib.GPGPU_ERROR_WRONG_CONTEXT, RuntimeError,
    "GPGPU_ERROR_WRONG_CONTEXT: a call reached a context that is not the current one.")
ShaderCompileError = _status_class(
    "ShaderCompileError", _lib.GPGPU_ERROR_SHADER_COMPILE, RuntimeError,
    "GPGPU_ERROR_SHADER_COMPILE: a shader failed to build; the message holds the log.")
OutOfMemoryError = _status_class(
    "OutOfMemoryError", _lib.GPGPU_ERROR_OUT_OF_MEMORY, MemoryError,
    "GPGPU_ERROR_OUT_OF_MEMORY: a buffer could not be allocated (or a memory_limit was hit).")
BackendError = _status_class(
    "BackendError", _lib.GPGPU_ERROR_BACKEND, RuntimeError,
    "GPGPU_ERROR_BACKEND: the GL or Vulkan implementation reported an error.")
FileError = _status_class(
    "FileError", _lib.GPGPU_ERROR_IO, OSError,
    "GPGPU_ERROR_IO: a file could not be opened, read or written.")
ParseError = _status_class(
    "ParseError", _lib.GPGPU_ERROR_PARSE, ValueError,
    "GPGPU_ERROR_PARSE: a file is malformed; the message names the line.")

BY_STATUS = {cls.status: cls for cls in (
    InvalidArgumentError, NullPointerError, OutOfRangeError, UnsupportedCombinationError,
    OverlapError, MisalignedError, TooLargeError, NoContextError, GLVersionError,
    UnsupportedFeatureError, BackendUnavailableError, WrongContextError, ShaderCompileError,
    OutOfMemoryError, BackendError, FileError, ParseError)}

CLASS_NAMES = [cls.__name__ for cls in BY_STATUS.values()]


class UnknownStatusError(Error, RuntimeError):
    """A status code this package does not know (a newer library): see .status."""
    __module__ = "gpgpu"


def error(status, message):
    """The exception for a library status and message."""
    cls = BY_STATUS.get(status)
    if cls is None:
        return UnknownStatusError(message, status)
    return cls(message)


def raise_status(status, ctx_handle=None, what=None):
    """Raises the exception of a failed call, with the context's last message (or, without
    a context, that of the thread's last failed gpgpu_context_create)."""
    msg = _lib.gpgpu_last_error(ctx_handle)
    msg = msg.decode(errors="replace") if msg else ""
    if not msg:
        msg = _lib.gpgpu_status_string(status).decode()
    if what:
        msg = f"{what}: {msg}"
    raise error(status, msg)


def raise_message(status, buf, what=None):
    """Raises the exception of a failed context-free call (readers, conversions), whose
    message is in the char buffer the call wrote."""
    msg = buf.value.decode(errors="replace") if buf is not None else ""
    if not msg:
        msg = _lib.gpgpu_status_string(status).decode()
    if what:
        msg = f"{what}: {msg}"
    raise error(status, msg)
