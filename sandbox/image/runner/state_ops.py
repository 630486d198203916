"""The state ops: `save_state` and `restore_state` (the kernel pickles or loads the user's variables, state.py)
and `warm` (the kernel loads the data stack), each within the request's time limit and under the same interrupt,
grace period and memory guard as a run (run_guard.py). A save asked with `stream` sends its file while the kernel
writes it (state_stream.py).
"""
import time

import kernel_keeper
import processes
import run_guard
from state_stream import StateStream


class _Discard:
    """The output sink of a state save or restore: what the user's __reduce__ or __setstate__ prints is not shown."""

    discarded_before = 0

    def feed(self, _name, _data):
        pass

    def display(self, _frame):
        pass


def state(supervisor, request):
    """Has the kernel save or load the user's variables (state.py), or load the data stack (`warm`), within the
    request's time limit: past it the kernel is interrupted, and killed and replaced if it does not yield. The
    answer is a `state` frame; a save asked with `stream` sends the file before it, in `chunk` frames, while the
    kernel writes it."""
    op = request.get("op")
    stream = None  # a save's file streamed to the bot while the kernel writes it (`stream`)
    rid = run_guard.begin(supervisor, request)
    try:
        kernel = kernel_keeper.ready_kernel(supervisor)
        deadline = time.monotonic() + max(1, int(request.get("timeoutMs", 60000))) / 1000
        command = {"op": op, "id": rid}
        if op == "save_state":
            command["maxBytes"] = int(request.get("maxBytes", 0))
            command["previousDigest"] = request.get("previousDigest")
            if request.get("stream"):
                stream = StateStream(supervisor.channel, rid, command["maxBytes"])
                stream.start()
        kernel.begin(_Discard(), rid)
        kernel.send(command)
        run_guard.attach(supervisor, kernel)

        def tick():
            if time.monotonic() > deadline and not supervisor.interrupted:
                run_guard.interrupt(supervisor)
            run_guard.tick(supervisor, kernel)

        outcome = kernel.wait_run(rid, tick, run_guard.TICK_S)
        with supervisor.state_lock:
            supervisor.run_kernel = None
            unresponsive, over_memory = supervisor.unresponsive, supervisor.over_memory
        died = outcome[0] == "exit"
        processes.stop_all(keep=kernel_keeper.kept(supervisor, kernel if died else None))
        kernel.drain()
        if died:
            restart = kernel_keeper.restart(supervisor, kernel, outcome[1], unresponsive, None, over_memory)
            supervisor.restarted = restart  # the next run says the variables are gone
            return {"type": "state", "failed": restart["detail"], "kernelRestart": restart}
        report = outcome[2] if isinstance(outcome[2], dict) else {"failed": "the kernel gave no answer"}
        if stream is not None:
            report = stream.finish(report)
            stream = None
        return {"type": "state", **report}
    finally:
        if stream is not None:
            stream.stop()
            stream.finish({"failed": "stopped"})
        run_guard.end(supervisor)
