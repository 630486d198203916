"""A thread's Python variables saved to a file and loaded again in a later container (durable threads).

Runs in the kernel (uid 1000, the user's own process), because that is where the objects live. The file is
dill, written and read only inside a sandbox of the same thread: the bot copies its bytes to the host and back
and never unpickles them (a state file is whatever the user's code made of it). Everything here is bounded: the
file by the limit the bot sends (THREADLAB_STATE_MAX_MB), counted while it is written, not after; the lists of
names by MAX_LISTED.
"""
import hashlib
import importlib
import os
import time
import types

import dill

STATE_DIR = "/mnt/data/.threadlab/state"
STATE_FILE = os.path.join(STATE_DIR, "state.dill")
FORMAT = 1
MAX_LISTED = 50
_PIECE_BYTES = 4 << 20
_WHY_CHARS = 200


class TooLarge(Exception):
    def __init__(self, written):
        super().__init__(f"more than {written} bytes")
        self.written = written


class _Sink:
    """A file-like writer that counts and hashes, and refuses to go past `limit` bytes."""

    def __init__(self, limit, fh=None):
        self.limit, self.fh, self.written = limit, fh, 0
        self.digest = hashlib.sha256()

    def write(self, data):
        self.written += len(data)
        if self.written > self.limit:
            raise TooLarge(self.written)
        self.digest.update(data)
        if self.fh is not None:
            # In pieces, each flushed: the supervisor streams the file to the bot as it grows (state_stream.py),
            # and one write of a 100 MB array would show it nothing until the end.
            view = memoryview(data).cast("B")
            for start in range(0, len(view), _PIECE_BYTES):
                self.fh.write(view[start:start + _PIECE_BYTES])
                self.fh.flush()
        return len(data)


def type_name(value):
    kind = type(value)
    module = getattr(kind, "__module__", "") or ""
    name = getattr(kind, "__qualname__", kind.__name__)
    return name if module in ("builtins", "__main__") else f"{module}.{name}"


def _why(exc):
    return f"{type(exc).__name__}: {exc}"[:_WHY_CHARS]


def user_names(namespace):
    """The names the user defined: not dunders, not the last-value alias `_`."""
    return [n for n in list(namespace) if not (n.startswith("__") and n.endswith("__")) and n != "_"]


def save(namespace, limit, previous_digest=None):
    """Writes the namespace's variables to STATE_FILE. Returns a dict for the bot: how many variables, which were
    not saved and why, the file's size and digest; `unchanged` when the digest equals `previous_digest` (the file is
    then not left behind); `tooLarge` when the state passed `limit` bytes (nothing is left behind)."""
    started = time.monotonic()
    names = user_names(namespace)
    modules = {n: namespace[n].__name__ for n in names if isinstance(namespace[n], types.ModuleType)}
    values = {n: namespace[n] for n in names if n not in modules}
    not_saved = []
    os.makedirs(STATE_DIR, exist_ok=True)
    temp = STATE_FILE + ".tmp"
    try:
        try:
            sink = _write(temp, modules, values, not_saved, limit)
        except (TooLarge, OSError):
            raise  # over the limit, or /mnt/data is full: trying value by value would not help
        except Exception:
            # One or more values refuse pickling: find them, one at a time, into a sink that keeps nothing,
            # and save the rest (in one pickle, so objects shared between variables stay shared). The file is
            # written anew under a new inode, which tells the supervisor that what it streamed is not the start.
            _remove(temp)
            kept = {}
            for name, value in values.items():
                try:
                    dill.dump(value, _Sink(limit))
                    kept[name] = value
                except TooLarge:
                    raise
                except Exception as exc:  # noqa: BLE001 - whatever the object's __reduce__ raises
                    not_saved.append({"name": name, "type": type_name(value), "why": _why(exc)})
            sink = _write(temp, modules, kept, not_saved, limit)
    except TooLarge as exc:
        _remove(temp)
        return {"tooLarge": True, "bytes": exc.written, "limit": limit,
                "seconds": round(time.monotonic() - started, 3)}
    except OSError as exc:
        _remove(temp)
        return {"failed": f"it could not be written in /mnt/data ({_why(exc)})"}
    digest = sink.digest.hexdigest()
    report = {
        "variables": len(modules) + len(values) - len(not_saved),
        "notSaved": not_saved[:MAX_LISTED],
        "notSavedMore": max(0, len(not_saved) - MAX_LISTED),
        "bytes": sink.written,
        "digest": digest,
        "seconds": round(time.monotonic() - started, 3),
    }
    if digest == previous_digest:
        _remove(temp)
        report["unchanged"] = True
    else:
        os.replace(temp, STATE_FILE)
    return report


def _write(path, modules, values, not_saved, limit):
    with open(path, "wb") as fh:
        sink = _Sink(limit, fh)
        dill.dump({"format": FORMAT, "modules": modules, "values": values, "notSaved": not_saved}, sink)
    return sink


def _remove(path):
    try:
        os.unlink(path)
    except OSError:
        pass


def restore(namespace):
    """Loads STATE_FILE into the namespace (and deletes the file). Returns what was restored and what was not:
    values that could not be saved (named at save time), modules that no longer import, or why the file as a
    whole could not be loaded."""
    started = time.monotonic()
    try:
        with open(STATE_FILE, "rb") as fh:
            state = dill.load(fh)
        if not isinstance(state, dict) or state.get("format") != FORMAT:
            raise ValueError("not a state file of this version")
        modules, values = state.get("modules"), state.get("values")
        if not isinstance(modules, dict) or not isinstance(values, dict):
            raise ValueError("the state file is malformed")
    except BaseException as exc:  # noqa: BLE001 - a corrupted or hostile file (SystemExit too) only fails to restore
        return {"failed": _why(exc), "seconds": round(time.monotonic() - started, 3)}
    finally:
        _remove(STATE_FILE)
    not_restored = [entry for entry in state.get("notSaved") or [] if isinstance(entry, dict)]
    restored = []
    for name, module in modules.items():
        if not isinstance(name, str) or not isinstance(module, str):
            continue
        try:
            namespace[name] = importlib.import_module(module)
            restored.append(name)
        except Exception as exc:  # noqa: BLE001
            not_restored.append({"name": name, "type": "module", "why": _why(exc)})
    for name, value in values.items():
        if isinstance(name, str) and name.isidentifier():
            namespace[name] = value
            restored.append(name)
    return {
        "restored": len(restored),
        "names": sorted(restored)[:MAX_LISTED],
        "notRestored": [
            {"name": str(e.get("name", ""))[:100], "type": str(e.get("type", ""))[:100], "why": str(e.get("why", ""))[:_WHY_CHARS]}
            for e in not_restored[:MAX_LISTED]
        ],
        "notRestoredMore": max(0, len(not_restored) - MAX_LISTED),
        "seconds": round(time.monotonic() - started, 3),
    }
