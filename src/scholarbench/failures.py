"""One line for any failure that reaches the command line (`cli.main`), and its exit status.

The project's own errors name their file and line where they are raised. What is left are the
operating system's errors (a path that cannot be read or written, a full disk), Python's limits
met by hostile input (a number of more than 4,300 digits, nesting deeper than the recursion
limit, bytes that are not UTF-8) and bugs. The first three are a problem of the user's input or
environment (status 2, as bad input), a bug is an internal error (status 1); the traceback is
printed only with `--debug` or SCHOLARBENCH_DEBUG=1.
"""
from __future__ import annotations

import errno
import os
import sys

from scholarbench.errors import exceeds_int_digits

BAD_INPUT, INTERNAL = 2, 1
DEBUG_FLAG, DEBUG_ENV = "--debug", "SCHOLARBENCH_DEBUG"

# errno -> (what happened, what to do)
_OS_HINTS: dict[int, tuple[str, str]] = {
    errno.ENOSPC: ("disk full", "free space on that disk or write somewhere else"),
    errno.EDQUOT: ("disk quota exceeded", "free space or write somewhere else"),
    errno.EROFS: ("not writable", "choose a path on a writable disk"),
    errno.EACCES: ("not writable or not readable",
                   "choose another path or fix its permissions"),
    errno.EPERM: ("", "choose another path or fix its permissions"),
    errno.EISDIR: ("is a folder where a file is expected", "give a file path"),
    errno.ENOTDIR: ("a part of the path is a file, not a folder",
                    "give a path whose parents are folders"),
    errno.EEXIST: ("a file or folder of that name is in the way",
                   "choose another path or remove it"),
    errno.ENOTEMPTY: ("", "choose an empty or new folder"),
    errno.ENOENT: ("", "check the path"),
    errno.ELOOP: ("symlink loop", "remove the link that points back into its own folder"),
    errno.ENAMETOOLONG: ("", "choose a shorter path"),
    errno.EMFILE: ("", "raise the limit (ulimit -n) or lower --concurrency"),
    errno.ENFILE: ("", "close other programs and try again"),
    errno.ENXIO: ("", "give a regular file"),
    errno.EIO: ("", "check the disk"),
}


def debug_requested(argv: list[str]) -> tuple[bool, list[str]]:
    """(--debug given anywhere before `--`, or SCHOLARBENCH_DEBUG=1; argv without the flag)."""
    end = argv.index("--") if "--" in argv else len(argv)
    flag = DEBUG_FLAG in argv[:end]
    rest = [a for a in argv[:end] if a != DEBUG_FLAG] + argv[end:]
    env = os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no")
    return flag or env, rest


def _os_line(exc: OSError) -> str:
    what, todo = _OS_HINTS.get(exc.errno or -1, ("", "check the path and try again"))
    reason = exc.strerror or str(exc) or type(exc).__name__
    said = f"{reason} ({what})" if what else reason
    names = [str(n) for n in (exc.filename, exc.filename2) if n is not None]
    where = f"{' -> '.join(names)}: " if names else ""
    return f"error: {where}{said} — {todo}"


def describe(exc: BaseException) -> tuple[str, int]:
    """(one line for stderr, exit status) for an exception that reached `main`."""
    if isinstance(exc, OSError):
        return _os_line(exc), BAD_INPUT
    if isinstance(exc, UnicodeDecodeError):
        return (f"error: input is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at byte "
                f"{exc.start + 1}) — save the file as UTF-8"), BAD_INPUT
    if exceeds_int_digits(exc):
        return (f"error: the input holds a number of more than {sys.get_int_max_str_digits()} "
                "digits (Python's limit) — remove or shorten it"), BAD_INPUT
    if isinstance(exc, RecursionError):
        return ("error: the input is nested deeper than Python's recursion limit "
                f"({sys.getrecursionlimit()}) — flatten it"), BAD_INPUT
    return (f"internal error: {type(exc).__name__}: {exc} (run with --debug for the "
            "traceback)"), INTERNAL
