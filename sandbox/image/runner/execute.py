"""Runs a cell of Python (notebook semantics, one persistent namespace) or a bash script."""
import ast
import builtins
import importlib.abc
import importlib.machinery
import linecache
import os
import signal
import subprocess
import sys
import traceback
import types

import display as rich

RUNNER_DIR = os.path.dirname(os.path.abspath(__file__))


def _user_main_module():
    """A fresh module installed as `sys.modules["__main__"]`, as Jupyter does: classes and functions the
    user defines are then found by name (pickle, multiprocessing, joblib, dill), while the runner's own
    module stays reachable only through its own globals (kept alive in RUNNER_MAIN)."""
    global RUNNER_MAIN
    RUNNER_MAIN = sys.modules.get("__main__")
    module = types.ModuleType("__main__", None)
    module.__builtins__ = builtins
    module.__spec__ = None
    module.__package__ = None
    sys.modules["__main__"] = module
    return module


RUNNER_MAIN = None


class Interpreter:
    def __init__(self, emit_display, main_pid):
        self.main_pid = main_pid
        self.module = _user_main_module()
        self.namespace = self.module.__dict__
        self.count = 0
        self.emit_display = emit_display
        self.bash = None  # the running bash process, for interrupts
        self.max_file_bytes = 100 << 20  # the run's file limit (maxFileBytes), for a table's CSV
        # SIGINT raises only while the user's code runs: one that lands in the runner's own bookkeeping
        # (just after the code returned) would otherwise turn the run's answer into an error.
        self.armed = False
        self.stop_requested = False
        signal.signal(signal.SIGINT, self._on_sigint)
        builtins.display = self.display
        # IPython's display() is the runner's, and pyplot's show() emits the figures: applied as each module is
        # imported (pyplot is not loaded until a run or the `warm` op needs it), or now if it already is.
        patches = {
            "IPython.core.display_functions": lambda module: setattr(module, "display", self.display),
            "matplotlib.pyplot": self._patch_show,
        }
        sys.meta_path.insert(0, _AfterImport(patches))
        for name, patch in patches.items():
            if name in sys.modules:
                patch(sys.modules[name])

    def _on_sigint(self, _signum, _frame):
        if self.armed:
            raise KeyboardInterrupt

    def begin(self):
        """Called before each run: a stop request belongs to one run only."""
        self.stop_requested = False

    def display(self, *objs, **_kwargs):
        """Shows each object as a rich display, like IPython's display()."""
        for obj in objs:
            self.emit_display({"data": rich.mime_bundle(obj, self.max_file_bytes)})

    def _patch_show(self, plt):
        def show(*_args, **_kwargs):
            rich.flush_figures(self.emit_display)

        plt.show = show

    def run_python(self, code, cell_name):
        """Returns an error dict or None. KeyboardInterrupt surfaces as an error named KeyboardInterrupt."""
        try:
            tree = ast.parse(code, filename=cell_name, mode="exec")
        except SyntaxError as exc:
            return self._error(exc)
        linecache.cache[cell_name] = (len(code), None, code.splitlines(True), cell_name)
        last = None
        figures_before = rich.FIGURES_EMITTED
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        try:
            try:
                self.armed = True
                if self.stop_requested:
                    raise KeyboardInterrupt  # the stop came before the code started
                exec(compile(tree, cell_name, "exec"), self.namespace)
                if last is not None:
                    value = eval(compile(last, cell_name, "eval"), self.namespace)
                    if value is not None:
                        self.namespace["_"] = value
                        # `Text(0.5, 1.0, 't')` under a chart is noise: the chart is the answer (as in ChatGPT).
                        figure = rich.open_figures() > 0 or rich.FIGURES_EMITTED > figures_before
                        if not (figure and rich.is_plot_noise(value)):
                            self.display(value)
            finally:
                self.armed = False
                if os.getpid() != self.main_pid:
                    os._exit(0)  # a fork of the user's code ends here, it must not answer
            rich.flush_figures(self.emit_display)
            return None
        except BaseException as exc:  # noqa: BLE001 - every failure of user code is data
            self.armed = False
            try:
                rich.flush_figures(self.emit_display)
            except BaseException:
                pass
            return self._error(exc)

    def _error(self, exc):
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename.startswith(RUNNER_DIR):
            tb = tb.tb_next
        lines = traceback.format_exception(type(exc), exc, tb)
        if isinstance(exc, SyntaxError):
            lines = traceback.format_exception_only(type(exc), exc)
        return {"name": type(exc).__name__, "value": str(exc), "traceback": "".join(lines)}

    def run_bash(self, code):
        try:
            proc = subprocess.Popen(
                ["/bin/bash", "-c", code],
                cwd="/mnt/data",
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as exc:  # e.g. the pids limit is exhausted
            return {"name": type(exc).__name__, "value": f"bash could not start: {exc}", "traceback": ""}
        self.bash = proc
        if self.stop_requested:  # the stop came while bash was starting
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            while True:
                try:
                    code_ = proc.wait()
                    break
                except KeyboardInterrupt:
                    continue
        finally:
            self.bash = None
        if code_ == 0:
            return None
        if code_ < 0:
            name = signal.Signals(-code_).name if -code_ in signal.valid_signals() else str(-code_)
            return {"name": "Signal", "value": f"bash was killed by {name}", "traceback": ""}
        return {"name": "ExitCode", "value": f"bash exited with status {code_}", "traceback": ""}

    def interrupt(self, main_ident):
        """Stops the current run: kills bash or interrupts Python (the supervisor stops every other process)."""
        self.stop_requested = True
        proc = self.bash
        if proc is not None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
        else:
            signal.pthread_kill(main_ident, signal.SIGINT)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Calls `patches[name](module)` once the module `name` has been executed by its own loader."""

    def __init__(self, patches):
        self.patches = patches

    def find_spec(self, name, path, target=None):
        patch = self.patches.get(name)
        if patch is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        inner = spec.loader

        class Loader(importlib.abc.Loader):
            def create_module(self, spec):
                return inner.create_module(spec)

            def exec_module(self, module):
                inner.exec_module(module)
                patch(module)

        spec.loader = Loader()
        return spec
