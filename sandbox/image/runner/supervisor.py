"""Threadlab's in-container supervisor: owns the protocol with the bot (newline-delimited JSON on the attached
stdio; see sandbox/runner-protocol.ts) and runs the user's code in a separate kernel process (kernel.py).

The supervisor keeps real and saved uid 0 with CAP_SETUID, CAP_SETGID and CAP_SETPCAP only, non-dumpable, and
works as effective uid 1000; the kernel and preview children are uid 1000 with no capabilities (privileges.py). After
each run every other process of uid 1000 is stopped (processes.py) and counted in the result; a kernel that
dies is replaced in the same container, files kept, and the result says so.
"""
import os
import sys

sys.dont_write_bytecode = True
import devices  # noqa: E402
import privileges  # noqa: E402

DEVICES_LEFT = devices.remove_unneeded()  # while still uid 0, the owner of gVisor's /dev
privileges.supervisor_setup()  # before any thread starts: threads inherit ids and capabilities

from protocol import STREAM_CHUNK_BYTES, Channel, ChannelBroken  # noqa: E402

CHANNEL = Channel()

import queue  # noqa: E402
import signal  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

import egress_relay  # noqa: E402
import files  # noqa: E402
import kernel_recycle  # noqa: E402
import memory_guard  # noqa: E402
import preview  # noqa: E402
import processes  # noqa: E402
from capture import OUTPUT_DIR, RunOutput  # noqa: E402
from isolated import IsolatedRun  # noqa: E402
from kernel_link import KernelLink  # noqa: E402
from state_stream import StateStream  # noqa: E402
import language_session  # noqa: E402

#: How long a kernel may take to import the data stack and say ready.
KERNEL_READY_S = 60
PACKAGES = ("pandas", "numpy", "matplotlib", "scipy", "seaborn", "scikit-learn", "statsmodels", "sympy",
            "openpyxl", "xlrd", "plotly", "tabulate", "dill", "ipython", "pillow")


def describe_image():
    """The ready frame: what the image offers, read from package metadata (nothing is imported)."""
    from importlib import metadata, util

    packages = {}
    for name in PACKAGES:
        try:
            packages[name] = metadata.version(name)
        except Exception:
            pass
    for name in ("pyarrow", "kaleido"):
        if name not in packages and util.find_spec(name) is not None:
            packages[name] = "present"
    return {
        "type": "ready",
        "python": sys.version.split()[0],
        "packages": packages,
        "languages": language_session.describe(),
        "imageVersion": os.environ.get("THREADLAB_SANDBOX_VERSION", "unknown"),
        "pid": os.getpid(),
    }


def oom_kills():
    """The memory cgroup's count of OOM kills (cgroup v1 or v2), or None where it cannot be read."""
    for path in ("/sys/fs/cgroup/memory/memory.oom_control", "/sys/fs/cgroup/memory.events"):
        try:
            with open(path) as fh:
                for line in fh:
                    if line.startswith("oom_kill "):
                        return int(line.split()[1])
        except (OSError, ValueError):
            continue
    return None


class KernelFailed(Exception):
    pass


class _Discard:
    """The output sink of a state save or restore: what the user's __reduce__ or __setstate__ prints is not shown."""

    discarded_before = 0

    def feed(self, _name, _data):
        pass

    def display(self, _frame):
        pass


class Supervisor:
    def __init__(self):
        self.kernel = None
        self.count = 0
        self.run_id = None
        self.run_kernel = None  # the kernel running run_id, once it was sent
        self.interrupted = False
        self.unresponsive = False
        self.over_memory = False  # the memory guard killed this run's kernel
        self.kill_at = None  # when a kernel that ignores an interrupt is killed (monotonic seconds)
        self.restarted = None  # why the kernel was replaced since the last run
        self.state_lock = threading.Lock()
        self.requests = queue.Queue()
        self.relay = None  # the egress relay, when the bot allows network destinations
        self.put_failures = {}  # path -> (code, message) of a chunk that failed before the file's last one
        self.languages = language_session.LanguageSessions()  # R and Node, started on first use

    def start_kernel(self):
        self.kernel = KernelLink()

    def ready_kernel(self):
        """The kernel, started again if it died; raises KernelFailed if no kernel says ready."""
        if self.kernel is not None and self.kernel.exit_code is not None:
            # It died between runs (a thread of the user's code, memory): the next run's result says so.
            self.restarted = self._restart(self.kernel, self.kernel.exit_code, False, None)
        if self.kernel is None or not self.kernel.ready_seen:
            if self.kernel is None:
                self.start_kernel()
            if not self.kernel.wait_ready(KERNEL_READY_S):
                said = self.kernel.diagnostics.decode("utf-8", "replace").strip()
                self.kernel.kill()
                self.kernel.close()
                self.kernel = None
                raise KernelFailed(f"the Python kernel did not start{': ' + said[-500:] if said else ''}")
        return self.kernel

    def reader(self):
        try:
            for request in CHANNEL.requests():
                if request.get("op") == "interrupt":
                    self.interrupt()
                    continue
                if request.get("op") == "egress":
                    if self.relay is not None:
                        self.relay.from_bot(request)
                    continue
                self.requests.put(request)
        except ChannelBroken as exc:
            CHANNEL.diag(f"threadlab supervisor: protocol stream broken: {exc}")
        self.requests.put(None)  # the bot went away (or its stream broke): finish what is queued, then exit

    def interrupt(self):
        try:
            self._interrupt()
        except Exception as exc:  # noqa: BLE001 - the stdin thread must keep reading
            CHANNEL.diag(f"threadlab supervisor: interrupt failed: {type(exc).__name__}: {exc}")

    def _interrupt(self):
        preview.interrupt()
        with self.state_lock:
            if self.run_id is None or self.interrupted:
                return
            self.interrupted = True
            kernel = self.run_kernel
            if kernel is None:
                return  # the run waits for its kernel to start; it passes the stop on once sent
            self._stop_kernel_run(kernel)
        processes.stop_all(keep=self._kept())  # bash, its children and anything else the run started

    def _stop_kernel_run(self, kernel):
        """Asks the kernel to interrupt the run; one that does not yield in the grace period is killed (and
        replaced) by the run's own wait: no thread is started here, as the pids limit may be full by now.
        Called with state_lock held."""
        kernel.send({"op": "interrupt", "id": self.run_id})
        self.kill_at = time.monotonic() + self.grace_s

    def _kill_if_unresponsive(self, kernel):
        with self.state_lock:
            if self.kill_at is None or time.monotonic() < self.kill_at or self.run_kernel is not kernel:
                return
            self.kill_at = None
            self.unresponsive = True
        kernel.kill()

    def _tick(self, kernel):
        """Called during a run: applies the memory guard (gVisor) and the interrupt's grace period."""
        if memory_guard.over_limit():
            self._kill_largest(kernel)
        self._kill_if_unresponsive(kernel)

    def _kill_largest(self, kernel):
        """As the OOM killer would under runc: kills the user's process with the most memory and waits (briefly)
        for it to be gone, so one excess costs one process. When that is the kernel, the run ends and the kernel
        is replaced; when it is a child, the code sees its child killed."""
        victim = processes.largest()
        if victim is None:
            return
        if victim == kernel.pid:
            with self.state_lock:
                self.over_memory = True
        try:
            os.kill(victim, signal.SIGKILL)
        except OSError:
            return
        deadline = time.monotonic() + 1.0
        while processes.alive(victim) and time.monotonic() < deadline:
            time.sleep(0.005)

    def serve(self):
        # A hangup (a process group of the user's orphaned while stopped) is never the supervisor's to die of.
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        self.start_kernel()
        ready = describe_image()
        self.ready_kernel()
        if egress_relay.enabled():
            self.relay = egress_relay.Relay(CHANNEL)
        threading.Thread(target=self.reader, name="threadlab-stdin", daemon=True).start()
        if DEVICES_LEFT:
            CHANNEL.diag(f"threadlab supervisor: device nodes left in place: {'; '.join(DEVICES_LEFT)}")
        CHANNEL.send(ready)
        while True:
            request = self.requests.get()
            if request is None:
                os._exit(0)
            if request.get("op") == "put_file" and request.get("more"):
                self.put_part(request)
                continue
            try:
                frame = self.handle(request)
            except (KernelFailed, language_session.SessionFailed) as exc:
                frame = {"type": "error", "code": "kernel_failed", "message": str(exc)}
            except files.UnsafePath as exc:
                frame = {"type": "error", "code": "unsafe_path", "message": str(exc)}
            except kernel_recycle.RecycleFailed as exc:
                frame = {"type": "error", "code": "recycle_failed", "message": str(exc)}
            except Exception as exc:  # noqa: BLE001
                frame = {"type": "error", "code": "failed", "message": f"{type(exc).__name__}: {exc}"}
            frame["id"] = request.get("id")
            payload = frame.pop("_payload", None)
            CHANNEL.send(frame, payload)

    def put_part(self, request):
        """A chunk of a file whose last chunk is answered (`more`): nothing is said now; a failure is said then."""
        path = request.get("path")
        if path in self.put_failures:
            return
        if len(self.put_failures) >= 64:
            self.put_failures.clear()
        try:
            files.put_chunk(path, request.get("payload", b""), bool(request.get("append")))
        except files.UnsafePath as exc:
            self.put_failures[path] = ("unsafe_path", str(exc))
        except Exception as exc:  # noqa: BLE001 - said with the file's last chunk
            self.put_failures[path] = ("failed", f"{type(exc).__name__}: {exc}")

    def handle(self, request):
        op = request.get("op")
        if op == "run":
            return self.run(request)
        if op in ("save_state", "restore_state", "warm"):
            return self.state(request)
        if op == "put_file":
            failure = self.put_failures.pop(request.get("path"), None)
            if failure is not None:
                code, message = failure
                return {"type": "error", "code": code, "message": message}
            info = files.put_chunk(request["path"], request.get("payload", b""), bool(request.get("append")))
            return {"type": "ok", "file": info}
        if op == "stream_file":
            return self.stream_file(request)
        if op == "list_files":
            return {"type": "files", "files": files.list_files()}
        if op == "delete_file":
            files.delete(request["path"])
            return {"type": "ok"}
        if op == "preview":
            return {"type": "previews", "previews": preview.preview_files(request.get("paths", []), request.get("timeoutMs"))}
        if op == "ping":
            return {"type": "ok"}
        if op == "recycle_kernel":
            return kernel_recycle.recycle(self)
        return {"type": "error", "code": "unknown_op", "message": f"unknown op {op!r}"}

    def stream_file(self, request):
        """A whole file in `chunk` frames written back to back (the pipe to the bot paces them), then a `file`
        frame with the bytes sent as its size; only the size when it is over the request's `maxBytes`."""
        rid = request.get("id")
        path = request["path"]
        limit = max(0, int(request.get("maxBytes", 0)))
        fd = files.open_file(path, os.O_RDONLY)
        try:
            size = os.fstat(fd).st_size
            sent = 0
            if size <= limit:
                while sent < size:
                    count = min(STREAM_CHUNK_BYTES, size - sent)
                    n = CHANNEL.send_from_file({"type": "chunk", "id": rid}, fd, sent, count)
                    sent += n
                    if n < count:
                        break  # the file got shorter while it was sent
        finally:
            os.close(fd)
        if request.get("remove"):
            files.delete(path)
        return {"type": "file", "size": size if size > limit else sent, "eof": True, "_payload": b""}

    def _output_name(self):
        try:
            taken = [n for n in os.listdir(OUTPUT_DIR) if n.startswith("output-") and n.endswith(".txt")]
            numbers = [int(n[7:-4]) for n in taken if n[7:-4].isdigit()]
        except OSError:
            numbers = []
        return f"output-{max(numbers, default=0) + 1}.txt"

    def run(self, request):
        rid = request.get("id")
        with self.state_lock:
            self.run_id, self.run_kernel, self.interrupted, self.unresponsive = rid, None, False, False
            self.over_memory = False
            self.grace_s = max(0.1, int(request.get("graceMs", 2000)) / 1000)
        try:
            language = request.get("language")
            if request.get("internal") and language == "bash":
                # The bot's own command (an export's package lookup): never in the kernel, whose process and
                # environment are the user's. Internal Python runs (threadlab eval's chart probes) look at the
                # kernel's own state, so they run there.
                kernel = IsolatedRun()
            elif self.languages.handles(language):
                kernel = self.languages.ready(language)
            else:
                kernel = self.ready_kernel()
            return self._run(request, rid, kernel)
        finally:
            with self.state_lock:
                self.run_id, self.run_kernel, self.kill_at = None, None, None

    def _run(self, request, rid, kernel):
        cap = int(request.get("outputBytes", 256 * 1024))
        max_file = int(request.get("maxFileBytes", 100 << 20))
        max_run_files = int(request.get("maxRunFilesBytes", 2 * max_file))
        output = RunOutput(CHANNEL, rid, cap, max_file, self._output_name())
        before = files.snapshot()
        ooms_before = oom_kills()
        if self.languages.owns(kernel):
            count = self.languages.next_count(kernel)
        elif request.get("internal"):
            count = self.count  # the bot's own run (an export's package versions) is not one of the user's
        else:
            self.count += 1
            count = self.count
        started = time.monotonic()
        kernel.begin(output, rid)
        kernel.send({"op": "run", "id": rid, "language": request.get("language"), "code": request.get("code", ""),
                     "count": count, "maxFileBytes": max_file})
        with self.state_lock:
            self.run_kernel = kernel
            if self.interrupted:  # the stop came while the kernel was starting
                self._stop_kernel_run(kernel)
        tick_s = memory_guard.INTERVAL_S if memory_guard.LIMIT_BYTES else 0.05
        outcome = kernel.wait_run(rid, lambda: self._tick(kernel), tick_s)
        with self.state_lock:
            self.run_kernel = None  # a stop from now on has nothing to interrupt
            interrupted, unresponsive, over_memory = self.interrupted, self.unresponsive, self.over_memory
        duration_ms = (time.monotonic() - started) * 1000
        died = outcome[0] == "exit"
        # Nothing the run started outlives it: every process of the sandbox user but the kernel is stopped,
        # and only then is the output drained, so all that was written is in and nothing comes after.
        stopped, left = processes.stop_all(keep=self._kept(kernel if died else None))
        kernel.drain()
        result = output.finish()
        if left:
            result["stderr"] += f"\n[threadlab: {left} processes could not be stopped]\n"
        artifacts, skipped, deleted = files.diff(before, files.snapshot(), max_file, max_run_files)
        frame = {
            "type": "result",
            "status": "interrupted" if interrupted else ("error" if not died and outcome[1] else "ok"),
            "executionCount": count,
            "durationMs": round(duration_ms, 3),
            "artifacts": artifacts,
            "deleted": deleted,
            **result,
        }
        if stopped:
            frame["stoppedProcesses"] = stopped
        if not died and outcome[1]:
            frame["error"] = outcome[1]
        if self.languages.owns(kernel):
            notice = self.languages.take_restart(kernel)
        elif request.get("internal"):
            notice = None  # kept for the user's next run
        else:
            notice, self.restarted = self.restarted, None
        if notice:
            frame["kernelRestart"] = notice
        if died:
            frame["status"] = "killed"
            frame["kernelRestart"] = self._restart(kernel, outcome[1], unresponsive, ooms_before, over_memory)
        if skipped:
            frame["skippedArtifacts"] = skipped[: files.MAX_SKIPPED_LISTED]
            if len(skipped) > files.MAX_SKIPPED_LISTED:
                frame["skippedMore"] = len(skipped) - files.MAX_SKIPPED_LISTED
        return frame

    def state(self, request):
        """Has the kernel save or load the user's variables (state.py), or load the data stack (`warm`), within the
        request's time limit: past it the kernel is interrupted, and killed and replaced if it does not yield. The
        answer is a `state` frame; a save asked with `stream` sends the file before it, in `chunk` frames, while the
        kernel writes it."""
        rid = request.get("id")
        op = request.get("op")
        stream = None  # a save's file streamed to the bot while the kernel writes it (`stream`)
        with self.state_lock:
            self.run_id, self.run_kernel, self.interrupted, self.unresponsive = rid, None, False, False
            self.over_memory = False
            self.grace_s = max(0.1, int(request.get("graceMs", 2000)) / 1000)
        try:
            kernel = self.ready_kernel()
            deadline = time.monotonic() + max(1, int(request.get("timeoutMs", 60000))) / 1000
            command = {"op": op, "id": rid}
            if op == "save_state":
                command["maxBytes"] = int(request.get("maxBytes", 0))
                command["previousDigest"] = request.get("previousDigest")
                if request.get("stream"):
                    stream = StateStream(CHANNEL, rid, command["maxBytes"])
                    stream.start()
            kernel.begin(_Discard(), rid)
            kernel.send(command)
            with self.state_lock:
                self.run_kernel = kernel

            def tick():
                if time.monotonic() > deadline and not self.interrupted:
                    self.interrupt()
                self._tick(kernel)

            tick_s = memory_guard.INTERVAL_S if memory_guard.LIMIT_BYTES else 0.05
            outcome = kernel.wait_run(rid, tick, tick_s)
            with self.state_lock:
                self.run_kernel = None
                unresponsive, over_memory = self.unresponsive, self.over_memory
            died = outcome[0] == "exit"
            processes.stop_all(keep=self._kept(kernel if died else None))
            kernel.drain()
            if died:
                restart = self._restart(kernel, outcome[1], unresponsive, None, over_memory)
                self.restarted = restart  # the next run says the variables are gone
                return {"type": "state", "failed": restart["detail"], "kernelRestart": restart}
            report = outcome[2] if isinstance(outcome[2], dict) else {"failed": "the kernel gave no answer"}
            if stream is not None:
                report = stream.finish(report)
                stream = None
            return {"type": "state", **report}
        finally:
            if stream is not None:
                stream.stop()
                stream.finish({"failed": "stopped"})
            with self.state_lock:
                self.run_id, self.run_kernel, self.kill_at = None, None, None

    def _kept(self, dead=None):
        """Pids kept when a run's processes are stopped: the Python kernel and the R and Node sessions, but `dead`."""
        links = [self.kernel, *self.languages.links.values()]
        return {link.pid for link in links if link is not None and link is not dead and link.exit_code is None}

    def _restart(self, kernel, code, unresponsive, ooms_before, over_memory=False):
        """Why the kernel died, and a new one starting (the next request waits for it to say ready)."""
        if self.languages.owns(kernel):  # an R or Node session: a new one starts with the language's next run
            ooms_after = oom_kills()
            grew = ooms_before is not None and ooms_after is not None and ooms_after > ooms_before
            return self.languages.restart(kernel, code, unresponsive, over_memory, grew)
        kernel.close()
        ooms_after = oom_kills()
        if unresponsive:
            cause, detail = "unresponsive", "the code did not stop when interrupted, so its Python process was killed"
        elif over_memory or (code == -signal.SIGKILL and ooms_before is not None and ooms_after is not None
                             and ooms_after > ooms_before):
            cause, detail = "memory", "the code ran out of memory (THREADLAB_SANDBOX_MEMORY_MB) and its Python process was killed"
        else:
            how = f"was killed by {signal.Signals(-code).name}" if code < 0 and -code in signal.valid_signals() else f"exited with status {code}"
            cause, detail = "crash", f"the Python process {how}"
        self.count = 0
        self.kernel = None
        try:
            self.start_kernel()
        except OSError:
            self.kernel = None  # started again by the next request, which reports a failure
        return {"cause": cause, "detail": f"{detail}; a new one was started in the same sandbox"}


if __name__ == "__main__":
    try:
        Supervisor().serve()
    except BaseException as exc:  # noqa: BLE001
        CHANNEL.diag(f"threadlab supervisor failed: {type(exc).__name__}: {exc}")
        os._exit(70)
