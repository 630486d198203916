"""Structured previews of data files, computed here so the bot never parses an untrusted file.

Each file is read in a forked child with what is left of the request's time budget: a workbook that
declares tens of millions of cells, or a parser stuck in C code, is killed at the deadline (or when the
user presses Stop) instead of holding the session. Reads are bounded in rows and columns, and every
string in the answer is bounded in characters, so a preview is small whatever the file claims (how each
kind of file is read: preview_formats.py).
"""
import json
import os
import select
import signal
import threading
import time
import warnings

import files
import memory_guard
import privileges
from preview_formats import preview

#: Largest answer a child may send back; more is a broken child, not a preview.
ANSWER_MAX_BYTES = 1 << 20
#: Files previewed in one request.
MAX_PATHS = 50
#: Budget when the request names none (the bot always sends THREADLAB_PREVIEW_TIMEOUT_MS).
DEFAULT_BUDGET_MS = 10_000

_lock = threading.Lock()
_active = False  # a preview request is being served
_child = None  # pid of the preview child in flight
_stopped = False


def interrupt():
    """Stop: kills the preview child in flight and skips the files after it. Called from the supervisor's stdin thread."""
    global _stopped
    with _lock:
        if not _active:
            return
        _stopped = True
        if _child is not None:
            try:
                os.kill(_child, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _seconds(ms):
    return f"{ms / 1000:g} s"


def _skipped(rel, why):
    out = {"path": rel, "bytes": 0, "kind": "binary"}
    try:
        out["bytes"] = files.size_of(rel)
    except (OSError, files.UnsafePath):
        pass
    out["error"] = f"preview skipped: {why}; the file is in /mnt/data"
    return out


def _fork():
    # The supervisor has a stdin thread, which the child does not need: the fork warning is noise here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return os.fork()


def _child_main(rel, write_fd):
    try:
        # The child parses an untrusted file: it keeps none of the supervisor's descriptors (the bot's
        # protocol, the kernel's pipes) and becomes the sandbox user, without capabilities, before it reads.
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.closerange(3, write_fd)
        os.closerange(write_fd + 1, 1 << 16)
        privileges.drop_to_sandbox_user()
        data = json.dumps(preview(rel), ensure_ascii=False).encode("utf-8", "replace")
        view = memoryview(data[:ANSWER_MAX_BYTES + 1])
        while view:
            view = view[os.write(write_fd, view):]
    finally:
        os._exit(0)


def _in_child(rel, deadline, budget_ms):
    """Previews one file in a forked child until `deadline` (monotonic seconds)."""
    global _child
    name = os.path.basename(rel) or rel
    read_fd, write_fd = os.pipe()
    try:
        pid = _fork()
    except OSError as exc:
        os.close(read_fd)
        os.close(write_fd)
        return _skipped(rel, f"no process could be started to read {name} ({exc.strerror})")
    if pid == 0:
        os.close(read_fd)
        _child_main(rel, write_fd)
    os.close(write_fd)
    with _lock:
        _child = pid
    chunks, size, timed_out, over_memory = [], 0, False, False
    # Under gVisor no OOM killer picks the child: the guard does, as it does for runs (memory_guard.py).
    # Without it a spreadsheet that expands past the limit would take the whole container and the thread's variables.
    tick_ms = int(memory_guard.INTERVAL_S * 1000) if memory_guard.LIMIT_BYTES else None
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            if memory_guard.over_limit():
                over_memory = True
                break
            # poll, not select: select(2) is refused under gVisor's seccomp handling.
            poller = select.poll()
            poller.register(read_fd, select.POLLIN)
            wait_ms = max(1, int(left * 1000))
            ready = poller.poll(min(wait_ms, tick_ms) if tick_ms else wait_ms)
            if not ready:
                continue
            chunk = os.read(read_fd, 1 << 16)
            if not chunk:
                break
            size += len(chunk)
            if size > ANSWER_MAX_BYTES:
                break
            chunks.append(chunk)
    finally:
        os.close(read_fd)
        with _lock:
            _child = None
            stopped = _stopped
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _, status = os.waitpid(pid, 0)
    if stopped:
        return _skipped(rel, f"reading {name} was stopped at your request")
    if over_memory:
        return _skipped(rel, f"reading {name} ran out of memory")
    if timed_out:
        return _skipped(rel, f"reading {name} took longer than {_seconds(budget_ms)}")
    if size > ANSWER_MAX_BYTES:
        return _skipped(rel, f"the preview of {name} was larger than {ANSWER_MAX_BYTES} bytes")
    try:
        return json.loads(b"".join(chunks))
    except ValueError:
        killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        why = "ran out of memory" if killed else "stopped unexpectedly"
        return _skipped(rel, f"reading {name} {why}")


def preview_files(paths, budget_ms=None):
    """Previews of `paths` within `budget_ms` in all; files past the budget (or a Stop) are skipped with why."""
    global _active, _stopped
    budget_ms = int(budget_ms) if budget_ms else DEFAULT_BUDGET_MS
    deadline = time.monotonic() + budget_ms / 1000
    with _lock:
        _active, _stopped = True, False
    out = []
    try:
        for index, rel in enumerate(paths):
            rel = str(rel)
            with _lock:
                stopped = _stopped
            if index >= MAX_PATHS:
                out.append(_skipped(rel, f"at most {MAX_PATHS} files are previewed at once"))
            elif stopped:
                out.append(_skipped(rel, "previews were stopped at your request"))
            elif time.monotonic() >= deadline:
                out.append(_skipped(rel, f"the {_seconds(budget_ms)} preview time limit was used up by earlier files"))
            else:
                out.append(_in_child(rel, deadline, budget_ms))
    finally:
        with _lock:
            _active = False
    return out
