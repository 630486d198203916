"""Stops every process of the sandbox user but the kernel: detached, double-forked and setsid ones too.

The user's processes are found by their uid in /proc (a process cannot leave uid 1000), not by parentage
or session, which the user's code controls. Each round stops all of them first (SIGSTOP), so none can fork
while the round kills them (SIGKILL), and rounds repeat until none is left, for a bounded time.
"""
import os
import signal
import time

from privileges import SANDBOX_UID

#: How long one sweep may take; a fork bomb within the pids limit is gone well before.
SWEEP_BUDGET_S = 3.0


def _status(pid):
    """(uid, state, resident bytes) of a process from /proc/PID/status; Nones where it is gone."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            text = fh.read()
    except OSError:
        return None, None, None
    uid = state = None
    rss = 0
    for line in text.splitlines():
        if line.startswith("Uid:"):
            uid = int(line.split()[1])
        elif line.startswith("State:"):
            state = line.split()[1]
        elif line.startswith("VmRSS:"):
            rss = int(line.split()[1]) * 1024
    return uid, state, rss


def _owner_and_state(pid):
    uid, state, _ = _status(pid)
    return uid, state


def alive(pid):
    """True while `pid` exists and is not a zombie."""
    return _owner_and_state(pid)[1] not in ("Z", "X", None)


def largest():
    """The sandbox user's live process with the most resident memory (the OOM killer's choice), or None."""
    best, best_rss = None, -1
    for pid in user_processes():
        uid, state, rss = _status(pid)
        if uid == SANDBOX_UID and state not in ("Z", "X", None) and rss > best_rss:
            best, best_rss = pid, rss
    return best


def user_processes(keep=()):
    """Pids of live (not zombie) processes of the sandbox user, but those in `keep`."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        if pid in keep:
            continue
        uid, state = _owner_and_state(pid)
        if uid == SANDBOX_UID and state not in ("Z", "X", None):
            found.append(pid)
    return found


def stop_all(keep=()):
    """Kills the sandbox user's processes but `keep`; returns (how many were stopped, how many remain)."""
    stopped = set()
    deadline = time.monotonic() + SWEEP_BUDGET_S
    while True:
        pids = user_processes(keep)
        if not pids or time.monotonic() > deadline:
            return len(stopped), len(pids)
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            for pid in pids:
                try:
                    os.kill(pid, sig)
                except OSError:
                    pass
        stopped.update(pids)
        time.sleep(0.005)
