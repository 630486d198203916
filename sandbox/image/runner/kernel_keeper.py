"""The supervisor's Python kernel over its life: started at start-up, waited for until it says ready, started again
when it died between runs, and replaced in the same container when it dies during a request, with the cause said
(a crash, memory, or an interrupt it ignored past the grace period). The R and Node sessions are
language_session.py's; `kept` names them too, as nothing that stops a run's processes may stop them.
"""
import signal

from kernel_link import KernelLink

#: How long a kernel may take to import the data stack and say ready.
KERNEL_READY_S = 60


class KernelFailed(Exception):
    pass


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


def start_kernel(supervisor):
    supervisor.kernel = KernelLink()


def ready_kernel(supervisor):
    """The kernel, started again if it died; raises KernelFailed if no kernel says ready."""
    if supervisor.kernel is not None and supervisor.kernel.exit_code is not None:
        # It died between runs (a thread of the user's code, memory): the next run's result says so.
        supervisor.restarted = restart(supervisor, supervisor.kernel, supervisor.kernel.exit_code, False, None)
    if supervisor.kernel is None or not supervisor.kernel.ready_seen:
        if supervisor.kernel is None:
            start_kernel(supervisor)
        if not supervisor.kernel.wait_ready(KERNEL_READY_S):
            said = supervisor.kernel.diagnostics.decode("utf-8", "replace").strip()
            supervisor.kernel.kill()
            supervisor.kernel.close()
            supervisor.kernel = None
            raise KernelFailed(f"the Python kernel did not start{': ' + said[-500:] if said else ''}")
    return supervisor.kernel


def kept(supervisor, dead=None):
    """Pids kept when a run's processes are stopped: the Python kernel and the R and Node sessions, but `dead`."""
    links = [supervisor.kernel, *supervisor.languages.links.values()]
    return {link.pid for link in links if link is not None and link is not dead and link.exit_code is None}


def restart(supervisor, kernel, code, unresponsive, ooms_before, over_memory=False):
    """Why the kernel died, and a new one starting (the next request waits for it to say ready)."""
    if supervisor.languages.owns(kernel):  # an R or Node session: a new one starts with the language's next run
        ooms_after = oom_kills()
        grew = ooms_before is not None and ooms_after is not None and ooms_after > ooms_before
        return supervisor.languages.restart(kernel, code, unresponsive, over_memory, grew)
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
    supervisor.count = 0
    supervisor.kernel = None
    try:
        start_kernel(supervisor)
    except OSError:
        supervisor.kernel = None  # started again by the next request, which reports a failure
    return {"cause": cause, "detail": f"{detail}; a new one was started in the same sandbox"}
