"""What stops a request that runs in a kernel (a run, a state save or restore, `warm`): the bot's interrupt, the
grace period after which a kernel that ignores it is killed, and the memory guard (memory_guard.py), applied on
the ticks of the request's wait.

The request in progress is the supervisor's run_id, run_kernel, interrupted, unresponsive, over_memory, kill_at
and grace_s, read and written under its state_lock: the interrupt comes from the stdin thread, the ticks from the
request's own.
"""
import os
import signal
import time

import kernel_keeper
import memory_guard
import preview
import processes


def begin(supervisor, request):
    """Makes `request` the one in progress (a run, a state op). One the bot interrupted while it was still queued
    begins interrupted: its kernel is asked to stop as soon as it was sent the request."""
    rid = request.get("id")
    with supervisor.state_lock:
        early = rid is not None and supervisor.early_interrupt == rid
        supervisor.early_interrupt = None
        supervisor.run_id, supervisor.run_kernel = rid, None
        supervisor.interrupted, supervisor.unresponsive, supervisor.over_memory = early, False, False
        supervisor.grace_s = max(0.1, int(request.get("graceMs", 2000)) / 1000)
    return rid


def attach(supervisor, kernel):
    """The request's kernel was sent the request: a stop from now on reaches it, and one that came before (while
    the request was queued or its kernel starting) is passed on now."""
    with supervisor.state_lock:
        supervisor.run_kernel = kernel
        if supervisor.interrupted:
            stop_kernel_run(supervisor, kernel)


def end(supervisor):
    """No request is in progress any more: an interrupt from now on finds nothing to stop."""
    with supervisor.state_lock:
        supervisor.run_id, supervisor.run_kernel, supervisor.kill_at = None, None, None


#: How often a request's wait ticks: the memory guard's interval where it applies (gVisor), else for the grace period.
TICK_S = memory_guard.INTERVAL_S if memory_guard.LIMIT_BYTES else 0.05


def interrupt(supervisor, rid=None):
    """Interrupts the request in progress; `rid`, when the bot names it, is the request it means, which may still
    be queued behind the one in progress (the bot sends the interrupt right after the request)."""
    try:
        _interrupt(supervisor, rid)
    except Exception as exc:  # noqa: BLE001 - the stdin thread must keep reading
        supervisor.channel.diag(f"threadlab supervisor: interrupt failed: {type(exc).__name__}: {exc}")


def _interrupt(supervisor, rid):
    preview.interrupt()
    with supervisor.state_lock:
        if rid is not None and rid != supervisor.run_id:
            supervisor.early_interrupt = rid  # not begun yet: it begins interrupted (begin above)
            return
        if supervisor.run_id is None or supervisor.interrupted:
            return
        supervisor.interrupted = True
        kernel = supervisor.run_kernel
        if kernel is None:
            return  # the run waits for its kernel to start; it passes the stop on once sent
        stop_kernel_run(supervisor, kernel)
        keep = kernel_keeper.kept(supervisor)
    # Bash, its children and anything else the run started, for as long as that run goes on: once its kernel
    # answered (or was killed), the run stops the rest itself and may start a new kernel this `keep` lacks.
    processes.stop_all(keep=keep, beside=(supervisor.state_lock, lambda: supervisor.run_kernel is kernel))


def stop_kernel_run(supervisor, kernel):
    """Asks the kernel to interrupt the run; one that does not yield in the grace period is killed (and
    replaced) by the run's own wait: no thread is started here, as the pids limit may be full by now.
    Called with state_lock held."""
    kernel.send({"op": "interrupt", "id": supervisor.run_id})
    supervisor.kill_at = time.monotonic() + supervisor.grace_s


def _kill_if_unresponsive(supervisor, kernel):
    with supervisor.state_lock:
        if supervisor.kill_at is None or time.monotonic() < supervisor.kill_at or supervisor.run_kernel is not kernel:
            return
        supervisor.kill_at = None
        supervisor.unresponsive = True
    kernel.kill()


def tick(supervisor, kernel):
    """Called during a run: applies the memory guard (gVisor) and the interrupt's grace period."""
    if memory_guard.over_limit():
        _kill_largest(supervisor, kernel)
    _kill_if_unresponsive(supervisor, kernel)


def _kill_largest(supervisor, kernel):
    """As the OOM killer would under runc: kills the user's process with the most memory and waits (briefly)
    for it to be gone, so one excess costs one process. When that is the kernel, the run ends and the kernel
    is replaced; when it is a child, the code sees its child killed."""
    victim = processes.largest()
    if victim is None:
        return
    if victim == kernel.pid:
        with supervisor.state_lock:
            supervisor.over_memory = True
    try:
        os.kill(victim, signal.SIGKILL)
    except OSError:
        return
    deadline = time.monotonic() + 1.0
    while processes.alive(victim) and time.monotonic() < deadline:
        time.sleep(0.005)
