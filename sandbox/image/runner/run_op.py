"""The `run` op: one piece of the user's code (or the bot's own) run in the kernel of its language, under the
run's interrupt, grace period and memory guard (run_guard.py), answered with a `result` frame: the output
(capture.py), the files it made, changed or deleted (files.py), the processes stopped after it, and the kernel's
restart when it died.

Python runs in the supervisor's kernel (kernel_keeper.py), R and JavaScript in their sessions
(language_session.py), and the bot's internal bash in a fresh process of its own (isolated.py).
"""
import os
import time

import files
import kernel_keeper
import processes
import run_guard
from capture import OUTPUT_DIR, RunOutput
from isolated import IsolatedRun


def run(supervisor, request):
    rid = run_guard.begin(supervisor, request)
    try:
        language = request.get("language")
        if request.get("internal") and language == "bash":
            # The bot's own command (an export's package lookup): never in the kernel, whose process and
            # environment are the user's. Internal Python runs (threadlab eval's chart probes) look at the
            # kernel's own state, so they run there.
            kernel = IsolatedRun()
        elif supervisor.languages.handles(language):
            kernel = supervisor.languages.ready(language)
        else:
            kernel = kernel_keeper.ready_kernel(supervisor)
        return _run(supervisor, request, rid, kernel)
    finally:
        run_guard.end(supervisor)


def _output_name():
    try:
        taken = [n for n in os.listdir(OUTPUT_DIR) if n.startswith("output-") and n.endswith(".txt")]
        numbers = [int(n[7:-4]) for n in taken if n[7:-4].isdigit()]
    except OSError:
        numbers = []
    return f"output-{max(numbers, default=0) + 1}.txt"


def _run(supervisor, request, rid, kernel):
    cap = int(request.get("outputBytes", 256 * 1024))
    max_file = int(request.get("maxFileBytes", 100 << 20))
    max_run_files = int(request.get("maxRunFilesBytes", 2 * max_file))
    output = RunOutput(supervisor.channel, rid, cap, max_file, _output_name())
    before = files.snapshot()
    ooms_before = kernel_keeper.oom_kills()
    if supervisor.languages.owns(kernel):
        count = supervisor.languages.next_count(kernel)
    elif request.get("internal"):
        count = supervisor.count  # the bot's own run (an export's package versions) is not one of the user's
    else:
        supervisor.count += 1
        count = supervisor.count
    started = time.monotonic()
    kernel.begin(output, rid)
    kernel.send({"op": "run", "id": rid, "language": request.get("language"), "code": request.get("code", ""),
                 "count": count, "maxFileBytes": max_file})
    run_guard.attach(supervisor, kernel)
    outcome = kernel.wait_run(rid, lambda: run_guard.tick(supervisor, kernel), run_guard.TICK_S)
    with supervisor.state_lock:
        supervisor.run_kernel = None  # a stop from now on has nothing to interrupt
        interrupted, unresponsive, over_memory = supervisor.interrupted, supervisor.unresponsive, supervisor.over_memory
    duration_ms = (time.monotonic() - started) * 1000
    died = outcome[0] == "exit"
    # Nothing the run started outlives it: every process of the sandbox user but the kernel is stopped,
    # and only then is the output drained, so all that was written is in and nothing comes after.
    stopped, left = processes.stop_all(keep=kernel_keeper.kept(supervisor, kernel if died else None))
    kernel.drain()
    result = output.finish()
    if left:
        result["stderr"] += f"\n[threadlab: {left} processes could not be stopped]\n"
    artifacts, skipped, deleted = files.diff(before, files.snapshot(), max_file, max_run_files)
    frame = {
        "type": "result",
        "status": "interrupted" if interrupted else ("error" if not died and outcome[1] else "ok"),
        "executionCount": count,
        "durationMs": round(duration_ms, 3),
        "artifacts": artifacts,
        "deleted": deleted,
        **result,
    }
    if stopped:
        frame["stoppedProcesses"] = stopped
    if not died and outcome[1]:
        frame["error"] = outcome[1]
    if supervisor.languages.owns(kernel):
        notice = supervisor.languages.take_restart(kernel)
    elif request.get("internal"):
        notice = None  # kept for the user's next run
    else:
        notice, supervisor.restarted = supervisor.restarted, None
    if notice:
        frame["kernelRestart"] = notice
    if died:
        frame["status"] = "killed"
        frame["kernelRestart"] = kernel_keeper.restart(
            supervisor, kernel, outcome[1], unresponsive, ooms_before, over_memory
        )
    if skipped:
        frame["skippedArtifacts"] = skipped[: files.MAX_SKIPPED_LISTED]
        if len(skipped) > files.MAX_SKIPPED_LISTED:
            frame["skippedMore"] = len(skipped) - files.MAX_SKIPPED_LISTED
    return frame
