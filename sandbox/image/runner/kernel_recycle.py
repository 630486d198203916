"""The `recycle_kernel` op: an idle thread's Python kernel is replaced by a fresh, lean one in the same container,
so the memory its imports (the data stack) and variables held goes back to the host. The bot asks for it only
once the thread's variables are saved on the host, and loads them into the new kernel before the thread's next
run (sandbox/lean-kernels.ts); files in /mnt/data are untouched.

The old kernel is killed and waited for (its memory is the point), anything of the sandbox user it left is
stopped, and the new kernel is started and waited for, so the answer means the container is lean and ready.
The run counter goes on from where it was: the thread's numbering does not restart.
"""
import time

import kernel_keeper
import processes

#: How long the killed kernel may take to be gone (gVisor reaps a large process in well under a second).
EXIT_WAIT_S = 10


class RecycleFailed(Exception):
    pass


def recycle(supervisor):
    """Replaces `supervisor.kernel`; returns the answer frame. Raises RecycleFailed when the old kernel will not
    exit; kernel_keeper's KernelFailed propagates when the new one does not say ready within KERNEL_READY_S (the
    next run tries again)."""
    started = time.monotonic()
    old = supervisor.kernel
    if old is not None:
        if old.exit_code is None:
            old.kill()
        deadline = time.monotonic() + EXIT_WAIT_S
        while old.exit_code is None and time.monotonic() < deadline:
            time.sleep(0.005)
        if old.exit_code is None:
            raise RecycleFailed(f"the Python process did not exit within {EXIT_WAIT_S} s of SIGKILL")
        old.close()
        supervisor.kernel = None
        processes.stop_all(keep=kernel_keeper.kept(supervisor, old))
    kernel_keeper.start_kernel(supervisor)
    kernel_keeper.ready_kernel(supervisor)
    return {"type": "ok", "seconds": round(time.monotonic() - started, 3)}
