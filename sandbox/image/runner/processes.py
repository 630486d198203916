"""Stops every process of the sandbox user but the kernel: detached, double-forked and setsid ones too.

The user's processes are found by their uid in /proc (a process cannot leave uid 1000), not by parentage
or session, which the user's code controls. Each round stops all of them first (SIGSTOP), so none can fork
while the round kills them (SIGKILL), and rounds repeat until none is left, for a bounded time.
"""
import contextlib
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


def _zombies_reaped_elsewhere(keep):
    """Whether a zombie of the sandbox user waits for a parent other than `keep` and this process (init reaps those
    soon; a kept process's children wait for it, the kernel's until its next run, and ours until we wait)."""
    parents = {*keep, os.getpid()}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status") as fh:
                fields = dict(line.split(":", 1) for line in fh.read().splitlines() if ":" in line)
        except OSError:
            continue
        state = fields.get("State", "").split()[:1]
        uid = fields.get("Uid", "").split()[:1]
        ppid = fields.get("PPid", "").strip()
        if state == ["Z"] and uid == [str(SANDBOX_UID)] and ppid.isdigit() and int(ppid) not in parents:
            return True
    return False


def stop_all(keep=(), beside=None):
    """Kills the sandbox user's processes but `keep`; returns (how many were stopped, how many remain).

    Then waits, within the same budget, until the killed ones are reaped too: a zombie still counts against the
    pids limit, and the next run (or a new kernel) must be able to start its processes.

    `beside` is for a sweep that runs beside the request it stops (the interrupt's, from the stdin thread): a
    (lock, still) pair. Each round is taken under the lock and only while still() holds. The request's own end
    stops its processes and may start a new kernel, which this sweep's `keep` does not name: a round that
    overlapped it would kill the new kernel, and the next run would find it dead."""
    lock, still = beside if beside is not None else (contextlib.nullcontext(), lambda: True)
    stopped = set()
    pids = []
    deadline = time.monotonic() + SWEEP_BUDGET_S
    while True:
        with lock:
            if not still():
                return len(stopped), 0  # the request ended: its own sweep stops what is left
            pids = user_processes(keep)
            if not pids or time.monotonic() > deadline:
                break
            for sig in (signal.SIGSTOP, signal.SIGKILL):
                for pid in pids:
                    try:
                        os.kill(pid, sig)
                    except OSError:
                        pass
        stopped.update(pids)
        time.sleep(0.005)
    if stopped and not pids:
        while _zombies_reaped_elsewhere(keep) and time.monotonic() <= deadline:
            time.sleep(0.005)
    return len(stopped), len(pids)
