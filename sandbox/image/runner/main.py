"""Threadlab's in-container runner: one persistent interpreter driven over the attached stdio.

Requests and frames are newline-delimited JSON; see sandbox/runner-protocol.ts for the shapes.
"""
import os
import sys

sys.dont_write_bytecode = True
from protocol import Channel  # noqa: E402  (must dup fds 0/1/2 before anything else runs)

CHANNEL = Channel()

import queue  # noqa: E402
import shutil  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

from capture import OUTPUT_DIR, Capture, RunOutput  # noqa: E402

CAPTURE = Capture(CHANNEL)


def warm_up():
    """Imports the data stack now, so that no run pays for it, and reports what the image offers."""
    cache = "/tmp/threadlab-mpl"
    if not os.access(os.environ.get("MPLCONFIGDIR", "/nonexistent"), os.W_OK):
        # The font cache is built into the read-only image; a writable copy keeps matplotlib quiet.
        try:
            shutil.copytree(os.environ.get("MPLCONFIGDIR", "/opt/threadlab/mpl"), cache, dirs_exist_ok=True)
        except OSError:
            os.makedirs(cache, exist_ok=True)
        os.environ["MPLCONFIGDIR"] = cache
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401
    import numpy  # noqa: F401
    import pandas  # noqa: F401

    from importlib import metadata

    packages = {}
    for name in ("pandas", "numpy", "matplotlib", "scipy", "seaborn", "scikit-learn", "statsmodels", "sympy",
                 "openpyxl", "xlrd", "plotly", "tabulate", "dill", "ipython", "pillow"):
        try:
            packages[name] = metadata.version(name)
        except Exception:
            pass
    for name, module in (("pyarrow", "pyarrow"), ("kaleido", "kaleido")):
        if name not in packages and __import__("importlib.util").util.find_spec(module) is not None:
            packages[name] = "present"
    return {
        "type": "ready",
        "python": sys.version.split()[0],
        "packages": packages,
        "imageVersion": os.environ.get("THREADLAB_SANDBOX_VERSION", "unknown"),
        "pid": os.getpid(),
    }


READY = warm_up()

import execute  # noqa: E402
import files  # noqa: E402
import preview  # noqa: E402


class Runner:
    def __init__(self):
        self.run_id = None
        self.interpreter = execute.Interpreter(self._emit_display)
        self.state_lock = threading.Lock()
        self.interrupted = False
        self.requests = queue.Queue()

    def _emit_display(self, display):
        CHANNEL.send({"type": "display", "id": self.run_id, **display})

    def reader(self):
        for request in CHANNEL.requests():
            if request.get("op") == "interrupt":
                preview.interrupt()
                with self.state_lock:
                    if self.run_id is not None:
                        self.interrupted = True
                        self.interpreter.interrupt(threading.main_thread().ident)
                continue
            self.requests.put(request)
        self.requests.put(None)  # the bot went away: finish what is queued, then exit

    def serve(self):
        threading.Thread(target=self.reader, name="threadlab-stdin", daemon=True).start()
        CHANNEL.send(READY)
        while True:
            request = self.requests.get()
            if request is None:
                os._exit(0)
            rid = request.get("id")
            try:
                frame = self.handle(request)
            except KeyboardInterrupt:
                frame = {"type": "error", "message": "interrupted"}
            except files.UnsafePath as exc:
                frame = {"type": "error", "code": "unsafe_path", "message": str(exc)}
            except Exception as exc:  # noqa: BLE001
                frame = {"type": "error", "code": "failed", "message": f"{type(exc).__name__}: {exc}"}
            frame["id"] = rid
            CHANNEL.send(frame)

    def handle(self, request):
        op = request.get("op")
        if op == "run":
            return self.run(request)
        if op == "put_file":
            info = files.put_chunk(request["path"], request.get("base64", ""), bool(request.get("append")))
            return {"type": "ok", "file": info}
        if op == "read_file":
            chunk = files.read_chunk(request["path"], int(request.get("offset", 0)), int(request.get("length", 4 << 20)))
            return {"type": "file", **chunk}
        if op == "list_files":
            return {"type": "files", "files": files.list_files()}
        if op == "delete_file":
            files.delete(request["path"])
            return {"type": "ok"}
        if op == "preview":
            return {"type": "previews", "previews": preview.preview_files(request.get("paths", []), request.get("timeoutMs"))}
        if op == "ping":
            return {"type": "ok"}
        return {"type": "error", "code": "unknown_op", "message": f"unknown op {op!r}"}

    def _output_name(self):
        try:
            taken = [n for n in os.listdir(OUTPUT_DIR) if n.startswith("output-") and n.endswith(".txt")]
            numbers = [int(n[7:-4]) for n in taken if n[7:-4].isdigit()]
        except OSError:
            numbers = []
        return f"output-{max(numbers, default=0) + 1}.txt"

    def run(self, request):
        cap = int(request.get("outputBytes", 256 * 1024))
        max_file = int(request.get("maxFileBytes", 100 << 20))
        max_run_files = int(request.get("maxRunFilesBytes", 2 * max_file))
        output = RunOutput(CHANNEL, request.get("id"), cap, max_file, self._output_name())
        before = files.snapshot()
        self.interpreter.count += 1
        count = self.interpreter.count
        started = time.monotonic()
        CAPTURE.begin(output)
        with self.state_lock:
            self.run_id = request.get("id")
            self.interrupted = False
            self.interpreter.begin()
        try:
            if request.get("language") == "bash":
                error = self.interpreter.run_bash(request.get("code", ""))
            else:
                error = self.interpreter.run_python(request.get("code", ""), f"<cell-{count}>")
        finally:
            with self.state_lock:
                self.run_id = None
                interrupted = self.interrupted
        duration_ms = (time.monotonic() - started) * 1000
        crowd = execute.reap_if_crowded()
        CAPTURE.drain()
        result = output.finish()
        if crowd:
            result["stderr"] += f"\n[threadlab: {crowd} processes left running near the pids limit were stopped]\n"
        artifacts, skipped, deleted = files.diff(before, files.snapshot(), max_file, max_run_files)
        frame = {
            "type": "result",
            "status": "interrupted" if interrupted else ("error" if error else "ok"),
            "executionCount": count,
            "durationMs": round(duration_ms, 3),
            "artifacts": artifacts,
            "deleted": deleted,
            **result,
        }
        if error:
            frame["error"] = error
        if skipped:
            frame["skippedArtifacts"] = skipped[: files.MAX_SKIPPED_LISTED]
            if len(skipped) > files.MAX_SKIPPED_LISTED:
                frame["skippedMore"] = len(skipped) - files.MAX_SKIPPED_LISTED
        return frame


if __name__ == "__main__":
    try:
        Runner().serve()
    except BaseException as exc:  # noqa: BLE001
        CHANNEL.diag(f"threadlab runner failed: {type(exc).__name__}: {exc}")
        os._exit(70)
