"""The bot's own runs (an export's package lookup), each in a fresh process the supervisor starts, never in the kernel.

The kernel runs the user's code, so whatever it starts is the user's to change: its environment (BASH_ENV,
PYTHONPATH, PATH), a patched subprocess, a forged answer. An internal run is therefore a new process of the
sandbox user (privileges.py: uid 1000, no capabilities) with an environment of its own and `/` as its directory.
It has the part of KernelLink's interface the supervisor's run uses, so the run's time limit, stop, output caps,
memory guard and the stop of every process it leaves apply to it as to any run.
"""
import os
import signal
import subprocess
import threading
import warnings

import privileges

#: The whole environment of an internal run: nothing of the thread's.
ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent"}


class IsolatedRun:
    def __init__(self):
        self.process = None
        self.pid = None
        self.exit_code = None
        self.output = None
        self.error = None
        self.lock = threading.Lock()
        self.readers = []

    def begin(self, output, _run_id):
        self.output = output

    def send(self, command):
        if command.get("op") == "run":
            self._start(command.get("language"), command.get("code", ""))
        elif command.get("op") == "interrupt":
            self.kill()

    def _start(self, language, code):
        if language != "bash":
            self.error = {"name": "InternalRun", "value": f"an internal run is bash, not {language!r}", "traceback": ""}
            return
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)  # the fork of a threaded process
                self.process = subprocess.Popen(
                    ["/bin/bash", "--noprofile", "--norc", "-c", code],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    cwd="/",
                    env=ENV,
                    close_fds=True,
                    start_new_session=True,
                    preexec_fn=privileges.drop_to_sandbox_user,
                )
        except OSError as exc:
            self.error = {"name": type(exc).__name__, "value": f"the internal run could not start: {exc}", "traceback": ""}
            return
        self.pid = self.process.pid
        for name, pipe in (("stdout", self.process.stdout), ("stderr", self.process.stderr)):
            reader = threading.Thread(target=self._read, args=(name, pipe), name=f"threadlab-internal-{name}", daemon=True)
            reader.start()
            self.readers.append(reader)

    def _read(self, name, pipe):
        for data in iter(lambda: pipe.read1(1 << 16), b""):
            with self.lock:
                if self.output is not None:
                    self.output.feed(name, data)
        pipe.close()

    def wait_run(self, _run_id, tick, tick_s=0.05):
        """("done", error, None) once the process exited, calling `tick` about every `tick_s` seconds meanwhile."""
        if self.process is None:
            return ("done", self.error, None)
        while True:
            try:
                code = self.process.wait(timeout=tick_s)
                break
            except subprocess.TimeoutExpired:
                tick()
        self.exit_code = code
        if code == 0:
            return ("done", None, None)
        how = f"was killed by {signal.Signals(-code).name}" if code < 0 and -code in signal.valid_signals() else f"exited with status {code}"
        return ("done", {"name": "ExitCode", "value": f"the internal run {how}", "traceback": ""}, None)

    def drain(self):
        """Takes what is left on the pipes (the run's processes are stopped by now), then detaches the run."""
        for reader in self.readers:
            reader.join(timeout=2)
        with self.lock:
            self.output = None

    def kill(self):
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except OSError:
            pass
