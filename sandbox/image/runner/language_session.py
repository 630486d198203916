"""R and JavaScript sessions: one long-lived R or Node process per container, started on first use.

Each runs a driver (r_driver.R, js_driver.js) that speaks the kernel's frame protocol (kernel_link.py): it is
started by the supervisor as the sandbox user with no capabilities, exactly like the Python kernel, its output
and frames are checked the same way, and its pid is kept when the processes of a run are stopped. Neither
driver can read the commands pipe while the user's code runs, so a stop is a SIGINT, sent only between the
driver's `started` and `done` frames of the run (a stop asked before `started` waits for it): R raises its
interrupt condition, Node breaks a synchronous script (vm breakOnSigint) or gives up on a pending await. One
that does not yield within the grace period is killed and started again, as the Python kernel is.
"""
import json
import os
import signal
import threading

from kernel_link import RUNNER_DIR, KernelLink

#: How each language is started; absent binaries mean the image does not offer the language.
COMMANDS = {
    "r": ["/usr/bin/R", "--vanilla", "--quiet", "--no-echo", "--no-restore", "-f", os.path.join(RUNNER_DIR, "r_driver.R")],
    "javascript": ["/usr/bin/node", "--expose-internals", "--max-old-space-size=4096", os.path.join(RUNNER_DIR, "js_driver.js")],
}
NAMES = {"r": "R", "javascript": "Node.js"}
#: R packages named in the ready frame (their DESCRIPTION versions), when installed.
R_PACKAGES = ("ggplot2", "dplyr", "tidyr", "readr", "readxl", "data.table", "jsonlite", "tibble", "stringr",
              "purrr", "lubridate", "scales", "MASS", "Matrix", "lattice", "mgcv", "nlme")
R_LIBRARIES = ("/usr/lib/R/site-library", "/usr/lib/R/library")
#: How long R or Node may take to start and say ready.
READY_S = 30


class SessionFailed(Exception):
    """A language session did not start (the language is missing, or its process did not say ready)."""


def _description_version(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("Version:"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _dpkg_version(package):
    """The upstream version of a Debian package, from dpkg's status file (no process is started)."""
    try:
        with open("/var/lib/dpkg/status", encoding="utf-8", errors="replace") as fh:
            found = False
            for line in fh:
                if line.startswith("Package: "):
                    found = line[9:].strip() == package
                elif found and line.startswith("Version: "):
                    version = line[9:].strip()
                    version = version.split(":", 1)[-1]
                    return version.split("+")[0].split("-")[0]
    except OSError:
        pass
    return None


def available():
    """The languages this image has, beyond Python and bash."""
    return [name for name, argv in COMMANDS.items() if os.access(argv[0], os.X_OK)]


def describe():
    """What the ready frame says of R and JavaScript: versions read from files, nothing is started."""
    out = {}
    if "r" in available():
        packages = {}
        for name in R_PACKAGES:
            for library in R_LIBRARIES:
                version = _description_version(os.path.join(library, name, "DESCRIPTION"))
                if version:
                    packages[name] = version
                    break
        version = _description_version("/usr/lib/R/library/base/DESCRIPTION") or "unknown"
        out["r"] = {"version": version, "packages": packages}
    if "javascript" in available():
        out["javascript"] = {"version": _dpkg_version("nodejs") or "unknown", "packages": {}}
    return out


class LanguageLink(KernelLink):
    """A KernelLink whose process is R or Node: interrupts are signals, and runs count on their own."""

    def __init__(self, language):
        self.language = language
        self.count = 0
        self.guard = threading.Lock()
        self.evaluating = None  # the run id between the driver's `started` and `done`
        self.stop_wanted = None  # a stop asked before its run started
        super().__init__(COMMANDS[language])

    def send(self, command):
        if command.get("op") != "interrupt":
            super().send(command)
            return
        with self.guard:
            if self.evaluating is not None and self.evaluating == command.get("id"):
                self._sigint()
            else:
                self.stop_wanted = command.get("id")

    def _sigint(self):
        try:
            os.kill(self.pid, signal.SIGINT)
        except OSError:
            pass  # it is gone; its exit event says so

    def _frame(self, line):
        if b'"started"' in line[:200] or b'"done"' in line[:200]:
            try:
                frame = json.loads(line)
            except ValueError:
                frame = None
            kind = frame.get("type") if isinstance(frame, dict) else None
            if kind == "started":
                with self.guard:
                    if self.run_id is not None and frame.get("id") == self.run_id:
                        self.evaluating = self.run_id
                        if self.stop_wanted == self.run_id:
                            self._sigint()
                    else:
                        self.rejected += 1
                return
            if kind == "done":
                with self.guard:
                    self.evaluating = None  # no SIGINT from now on: it would land in the driver's idle loop
        super()._frame(line)

    def begin(self, output, run_id):
        with self.guard:
            self.stop_wanted = None
        super().begin(output, run_id)


class LanguageSessions:
    """The container's R and Node sessions: each started on first use, and again after it died."""

    def __init__(self):
        self.links = {}
        self.restarted = {}  # language -> why its session was replaced since its last run

    def handles(self, language):
        return language in COMMANDS

    def pids(self):
        """Pids of the live sessions, kept when a run's processes are stopped."""
        return {link.pid for link in self.links.values() if link.exit_code is None}

    def owns(self, link):
        return any(link is mine for mine in self.links.values())

    def ready(self, language):
        """The language's session, started if it is not running; raises SessionFailed if it does not start."""
        if language not in available():
            raise SessionFailed(f"{NAMES[language]} is not installed in this sandbox image")
        link = self.links.get(language)
        if link is not None and link.exit_code is not None:
            # It died between runs (memory, a thread of its own): the next result says its variables are gone.
            self.restarted[language] = self.restart(link, link.exit_code, False, False)
            link = None
        if link is None:
            link = self.links[language] = LanguageLink(language)
            if not link.wait_ready(READY_S):
                said = link.diagnostics.decode("utf-8", "replace").strip()
                link.kill()
                link.close()
                del self.links[language]
                raise SessionFailed(f"the {NAMES[language]} session did not start{': ' + said[-500:] if said else ''}")
        return link

    def next_count(self, link):
        link.count += 1
        return link.count

    def take_restart(self, link):
        """Why the session running now was started again since its previous run, once."""
        return self.restarted.pop(link.language, None)

    def restart(self, link, code, unresponsive, over_memory, ooms_grew=False):
        """Why `link`'s process died; the next run of its language starts a new one (started lazily, as at first)."""
        link.close()
        if self.links.get(link.language) is link:
            del self.links[link.language]
        name = NAMES[link.language]
        if unresponsive:
            cause, detail = "unresponsive", f"the code did not stop when interrupted, so its {name} process was killed"
        elif over_memory or (code == -signal.SIGKILL and ooms_grew):
            cause, detail = "memory", f"the code ran out of memory (THREADLAB_SANDBOX_MEMORY_MB) and its {name} process was killed"
        else:
            how = (f"was killed by {signal.Signals(-code).name}" if code < 0 and -code in signal.valid_signals()
                   else f"exited with status {code}")
            cause, detail = "crash", f"the {name} process {how}"
        return {"cause": cause, "detail": f"{detail}; its variables are gone, and the next run starts a new session"}
