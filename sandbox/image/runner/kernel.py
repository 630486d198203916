"""The kernel: the process that runs the user's code, as uid 1000 with no capabilities.

It is started by the supervisor (supervisor.py) with fd 0 on /dev/null, fd 1/2 on pipes the supervisor
reads (everything printed, by the kernel or any process it starts), and two more pipes named by
THREADLAB_KERNEL_FDS: commands in, frames out. The user's code runs in this process, so it can reach them: the supervisor treats
every frame from here as a claim (see kernel_link.py). Nothing here can reach the bot.
"""
import os
import sys

sys.dont_write_bytecode = True

COMMANDS_FD, FRAMES_FD = (int(fd) for fd in os.environ.pop("THREADLAB_KERNEL_FDS").split(","))
for _fd in (COMMANDS_FD, FRAMES_FD):
    os.set_inheritable(_fd, False)  # bash and subprocesses do not get them

import importlib  # noqa: E402
import json  # noqa: E402
import queue  # noqa: E402
import shutil  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402

import framing  # noqa: E402

MAIN_PID = os.getpid()


class KernelChannel:
    def __init__(self):
        self._lock = threading.Lock()
        self._reader = os.fdopen(COMMANDS_FD, "rb", buffering=1 << 16)

    def send(self, frame):
        # A forked child of the user's code must never speak for the kernel.
        if os.getpid() != MAIN_PID:
            return
        data = framing.encode(frame)
        with self._lock:
            framing.write_all(FRAMES_FD, data)

    def commands(self):
        for line in self._reader:
            try:
                command = json.loads(line)
            except ValueError:
                continue
            if isinstance(command, dict):
                yield command


USER_SITE = None


def _user_site_on_path():
    """Packages installed with pip go to PYTHONUSERBASE (/mnt/data/.local). The directory goes on sys.path ahead of
    the system's packages as site.py would have put it, and is made now when egress is on, so a package installed
    during a run is importable in the same run and the next without restarting the kernel."""
    import site

    if not os.environ.get("PYTHONUSERBASE"):
        return
    user_site = site.getusersitepackages()
    if os.environ.get("THREADLAB_EGRESS") == "1":
        try:
            os.makedirs(user_site, exist_ok=True)
        except OSError:
            pass
    global USER_SITE
    USER_SITE = user_site
    if user_site not in sys.path:
        system = [i for i, p in enumerate(sys.path) if p.endswith(("site-packages", "dist-packages"))]
        sys.path.insert(system[0] if system else len(sys.path), user_site)


def warm_up():
    """Readies the kernel before it says ready, without the data stack: an idle kernel (a pooled container, a
    restarted kernel) stays small, and `load_data_stack` brings numpy, pandas and pyplot in when a thread is
    about to need them (the `warm` op, sent while the model writes code)."""
    config = os.environ.get("MPLCONFIGDIR", "/opt/threadlab/mpl")
    if not os.access(config, os.W_OK):
        # The font cache is built into the read-only image; a writable copy keeps matplotlib quiet.
        cache = "/tmp/threadlab-mpl"
        try:
            shutil.copytree(config, cache, dirs_exist_ok=True)
        except OSError:
            os.makedirs(cache, exist_ok=True)
        os.environ["MPLCONFIGDIR"] = cache
    # Whoever imports matplotlib first (the user's code or load_data_stack) gets the non-interactive backend.
    os.environ["MPLBACKEND"] = "Agg"
    _user_site_on_path()


DATA_STACK = ("numpy", "pandas", "matplotlib.pyplot")


def load_data_stack():
    """Imports what most runs use (the `warm` op); modules already imported cost nothing."""
    started = time.monotonic()
    for name in DATA_STACK:
        importlib.import_module(name)
    return {"loaded": list(DATA_STACK), "seconds": round(time.monotonic() - started, 3)}


for _stream, _errors in ((sys.stdout, "replace"), (sys.stderr, "backslashreplace")):
    _stream.reconfigure(encoding="utf-8", errors=_errors, line_buffering=True)
CHANNEL = KernelChannel()
warm_up()

import execute  # noqa: E402


def _notice_user_site():
    """Packages restored with the thread's files after this kernel started: a directory that did not exist when the
    import system first looked is cached as nothing there; forget that once it exists."""
    if USER_SITE and sys.path_importer_cache.get(USER_SITE, False) is None and os.path.isdir(USER_SITE):
        del sys.path_importer_cache[USER_SITE]


def _reap():
    """Collects children of the kernel that the supervisor stopped at the end of earlier runs: nothing the
    kernel started outlives a run, so each is a zombie holding a pid against the pids limit."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


class Kernel:
    def __init__(self):
        self.run_id = None
        self.pending_stop = None  # a stop that arrived before its run started
        self.lock = threading.Lock()
        self.runs = queue.Queue()
        self.interpreter = execute.Interpreter(self._emit_display, MAIN_PID)

    def _emit_display(self, display):
        CHANNEL.send({"type": "display", "id": self.run_id, **display})

    def reader(self):
        for command in CHANNEL.commands():
            if command.get("op") == "interrupt":
                with self.lock:
                    if self.run_id is not None and command.get("id") == self.run_id:
                        self.interpreter.interrupt(threading.main_thread().ident)
                    else:
                        self.pending_stop = command.get("id")
            elif command.get("op") in ("run", "save_state", "restore_state", "warm"):
                self.runs.put(command)
        self.runs.put(None)  # the supervisor went away

    def serve(self):
        threading.Thread(target=self.reader, name="threadlab-commands", daemon=True).start()
        CHANNEL.send({"type": "ready", "pid": os.getpid()})
        while True:
            command = self.runs.get()
            if command is None:
                os._exit(0)
            _reap()
            _notice_user_site()
            with self.lock:
                self.run_id = command.get("id")
                self.interpreter.begin()
                if self.pending_stop is not None and self.pending_stop == self.run_id:
                    self.interpreter.stop_requested = True
                self.pending_stop = None
            state = None
            if command.get("op") in ("save_state", "restore_state", "warm"):
                error, state = None, self._state(command)
            elif command.get("language") == "bash":
                error = self.interpreter.run_bash(command.get("code", ""))
            else:
                self.interpreter.max_file_bytes = int(command.get("maxFileBytes", 100 << 20))
                error = self.interpreter.run_python(command.get("code", ""), f"<cell-{int(command.get('count', 0))}>")
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except Exception:
                    pass
            with self.lock:
                run_id, self.run_id = self.run_id, None
            frame = {"type": "done", "id": run_id}
            if error:
                frame["error"] = error
            if state is not None:
                frame["state"] = state
            CHANNEL.send(frame)

    def _state(self, command):
        """Saves or restores the user's variables (state.py), or loads the data stack (`warm`); an interrupt (the
        supervisor's time limit, a Stop) ends it."""
        try:
            self.interpreter.armed = True
            if self.interpreter.stop_requested:
                raise KeyboardInterrupt
            if command["op"] == "warm":
                return load_data_stack()
            import state as durable

            if command["op"] == "save_state":
                return durable.save(self.interpreter.namespace, int(command.get("maxBytes", 0)),
                                    command.get("previousDigest"))
            return durable.restore(self.interpreter.namespace)
        except KeyboardInterrupt:
            return {"failed": "it took longer than its time limit and was interrupted"}
        except Exception as exc:  # noqa: BLE001
            return {"failed": f"{type(exc).__name__}: {exc}"[:300]}
        finally:
            self.interpreter.armed = False


if __name__ == "__main__":
    try:
        Kernel().serve()
    except BaseException as exc:  # noqa: BLE001
        os.write(2, f"threadlab kernel failed: {type(exc).__name__}: {exc}\n".encode())
        os._exit(70)
