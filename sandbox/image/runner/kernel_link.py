"""The supervisor's side of one kernel process: starts it as the sandbox user, reads everything it and its
children print, and takes its frames as claims.

The kernel runs the user's code, so every byte from it is untrusted: a frame line is at most
MAX_FRAME_BYTES, only `ready` (once), `display` and `done` are understood, and a display or `done` counts
only for the run in progress (its id is the bot's request id, which the kernel cannot choose). Everything
the bot receives is built here or in capture.RunOutput; nothing the kernel writes reaches it raw.
"""
import errno
import fcntl
import json
import os
import queue
import select
import subprocess
import sys
import threading
import warnings

import framing
import privileges

RUNNER_DIR = os.path.dirname(os.path.abspath(__file__))
#: Longest frame line the kernel may send (a display with a large PNG); a longer one is dropped whole.
MAX_FRAME_BYTES = 32 << 20
#: Output printed while no run is in progress (a kernel that fails to start) kept for diagnostics.
DIAGNOSTIC_BYTES = 2000
TEXT_CHARS = 64 * 1024


def _nonblocking(fd):
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
    os.set_inheritable(fd, False)


def _clean_error(error):
    if not isinstance(error, dict):
        return None
    return {k: (error.get(k) if isinstance(error.get(k), str) else "")[:TEXT_CHARS] for k in ("name", "value", "traceback")}


class KernelLink:
    def __init__(self, argv=None):
        """Starts `argv` (by default Python's kernel.py) as the sandbox user; language_session.py starts R and Node."""
        self.events = queue.Queue()
        self.lock = threading.Lock()  # data leaves the pipes only under it, so drain() is exact
        self.output = None  # the capture.RunOutput of the run in progress
        self.run_id = None
        self.ready_seen = False
        self.exit_code = None  # set once the kernel exited
        self.rejected = 0
        self.diagnostics = b""
        self.unattributed = 0  # bytes printed while no run was in progress, since the last run began
        self.partial = bytearray()
        self.skipping = False  # inside a frame line that was too long
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        frames_r, frames_w = os.pipe()
        commands_r, commands_w = os.pipe()
        env = dict(os.environ, THREADLAB_KERNEL_FDS=f"{commands_r},{frames_w}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # the fork of a threaded process
            self.process = subprocess.Popen(
                argv or [sys.executable, "-u", os.path.join(RUNNER_DIR, "kernel.py")],
                stdin=subprocess.DEVNULL,
                stdout=out_w,
                stderr=err_w,
                cwd="/mnt/data",
                env=env,
                close_fds=True,
                pass_fds=(commands_r, frames_w),
                # Its own session and process group: nothing the user's code does to its group or session
                # (killpg, a group orphaned with stopped members) reaches the supervisor's.
                start_new_session=True,
                preexec_fn=privileges.drop_to_sandbox_user,
            )
        for fd in (out_w, err_w, frames_w, commands_r):
            os.close(fd)
        self.pid = self.process.pid
        self.commands = commands_w
        os.set_inheritable(commands_w, False)
        self.names = {out_r: "stdout", err_r: "stderr", frames_r: "frames"}
        for fd in self.names:
            _nonblocking(fd)
        threading.Thread(target=self._read_loop, name="threadlab-kernel-output", daemon=True).start()
        threading.Thread(target=self._wait, name="threadlab-kernel-wait", daemon=True).start()

    def _wait(self):
        code = self.process.wait()
        self.exit_code = code
        self.events.put(("exit", code))

    def send(self, command):
        try:
            framing.write_all(self.commands, framing.encode(command))
        except OSError:
            pass  # the kernel is gone; its exit event says so

    def begin(self, output, run_id):
        with self.lock:
            self.output, self.run_id = output, run_id
            output.discarded_before, self.unattributed = self.unattributed, 0

    def drain(self):
        """Takes every byte written so far (after the run's processes are stopped), then detaches the run."""
        with self.lock:
            for fd in list(self.names):
                self._read_available(fd)
            self.output, self.run_id = None, None

    def wait_ready(self, timeout_s):
        """True once the kernel said ready; False if it exited or took longer than `timeout_s`."""
        try:
            event = self.events.get(timeout=timeout_s)
        except queue.Empty:
            return False
        return event[0] == "ready"

    def wait_run(self, run_id, tick, tick_s=0.05):
        """Blocks until the kernel says run `run_id` is done (returns ("done", error, state)) or exits (("exit", code)),
        calling `tick` about every `tick_s` seconds meanwhile."""
        while True:
            try:
                event = self.events.get(timeout=tick_s)
            except queue.Empty:
                tick()
                continue
            if event[0] == "exit":
                return event
            if event[0] == "done" and event[1] == run_id:
                return ("done", event[2], event[3])

    def kill(self):
        try:
            self.process.kill()
        except OSError:
            pass

    def close(self):
        try:
            os.close(self.commands)
        except OSError:
            pass

    def _read_loop(self):
        # poll, not select: select(2) is refused under gVisor's seccomp handling (EPERM).
        poller = select.poll()
        for fd in self.names:
            poller.register(fd, select.POLLIN)
        while self.names:
            try:
                events = poller.poll()
            except OSError as exc:
                sys.stderr.write(f"threadlab supervisor: reading the kernel failed: {exc}\n")
                return
            with self.lock:
                for fd, _ in events:
                    if fd in self.names:
                        self._read_available(fd)
                        if fd not in self.names:
                            poller.unregister(fd)

    def _read_available(self, fd):
        name = self.names[fd]
        while True:
            try:
                data = os.read(fd, 1 << 16)
            except OSError as exc:
                if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
                    return
                data = b""
            if not data:
                del self.names[fd]
                os.close(fd)
                return
            if name == "frames":
                self._frames(data)
            elif self.output is not None:
                self.output.feed(name, data)
            else:
                # Printed while no run is in progress (a thread the code left running): never attributed
                # to the next run, which only says how much was discarded.
                self.diagnostics = (self.diagnostics + data)[-DIAGNOSTIC_BYTES:]
                self.unattributed += len(data)

    def _frames(self, data):
        while data:
            newline = data.find(b"\n")
            piece, data = (data, b"") if newline < 0 else (data[:newline], data[newline + 1:])
            if not self.skipping:
                self.partial += piece
            if len(self.partial) > MAX_FRAME_BYTES:
                self.partial.clear()
                self.skipping = True
                self.rejected += 1
            if newline < 0:
                return
            line, self.skipping = bytes(self.partial), False
            self.partial.clear()
            self._frame(line)

    def _frame(self, line):
        try:
            frame = json.loads(line)
        except ValueError:
            frame = None
        kind = frame.get("type") if isinstance(frame, dict) else None
        if kind == "ready" and not self.ready_seen:
            self.ready_seen = True
            self.unattributed = 0  # what it printed while starting is for diagnostics only
            self.events.put(("ready",))
        elif kind == "display" and self.run_id is not None and frame.get("id") == self.run_id:
            self.output.display(frame)
        elif kind == "done" and self.run_id is not None and frame.get("id") == self.run_id:
            state = frame.get("state")
            self.events.put(("done", self.run_id, _clean_error(frame.get("error")), state if isinstance(state, dict) else None))
        else:
            self.rejected += 1
