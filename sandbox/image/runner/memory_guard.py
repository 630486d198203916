"""The memory limit of the user's code where the host's OOM killer cannot apply it per process.

Under runc the container's memory cgroup kills the largest process (the kernel, whose oom_score_adj is raised)
and the supervisor starts a new one. Under gVisor the host sees one sandbox, so the same OOM would take the whole
container. There the bot gives the container headroom above THREADLAB_SANDBOX_MEMORY_MB and sets
THREADLAB_MEMORY_GUARD_MB to that limit; while a run is going, the supervisor reads the sandbox's memory
(anonymous pages and tmpfs, as gVisor's /proc/meminfo counts them: each page once) and kills the user's processes
when it is over, so the kernel is replaced in the same container as under runc.
"""
import os

#: How often the guard looks during a run. The code can allocate about 1.2 GB/s under gVisor (measured), so this
#: overshoots by about 25 MB at worst: well inside the headroom the bot adds (sandbox/container-spec.ts).
INTERVAL_S = 0.02

_FIELDS = ("AnonPages:", "Shmem:")


def _limit_bytes():
    try:
        value = int(os.environ.get("THREADLAB_MEMORY_GUARD_MB", "0"))
    except ValueError:
        return None
    return value * 1024 * 1024 if value > 0 else None


LIMIT_BYTES = _limit_bytes()


def used_bytes():
    """Anonymous memory plus tmpfs/shared memory of the sandbox, or None where /proc/meminfo cannot be read."""
    total = 0
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith(_FIELDS):
                    total += int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return total


def over_limit():
    """True when a limit is set and the sandbox uses more than it."""
    if LIMIT_BYTES is None:
        return False
    used = used_bytes()
    return used is not None and used > LIMIT_BYTES
