"""Threadlab's in-container supervisor: owns the protocol with the bot (newline-delimited JSON on the attached
stdio; see sandbox/runner-protocol.ts) and runs the user's code in a separate kernel process (kernel.py).

The supervisor keeps real and saved uid 0 with CAP_SETUID, CAP_SETGID and CAP_SETPCAP only, non-dumpable, and
works as effective uid 1000; the kernel and preview children are uid 1000 with no capabilities (privileges.py). After
each run every other process of uid 1000 is stopped (processes.py) and counted in the result; a kernel that
dies is replaced in the same container, files kept, and the result says so.

This file is the image's entry point: it drops to those privileges and takes the protocol channel before anything
else is imported, and holds the `Supervisor`, the state its parts share. The parts: request_loop.py (the stdin
reader and the dispatch of each op), run_op.py (`run`), state_ops.py (`save_state`, `restore_state`, `warm`),
file_ops.py (`put_file`, `stream_file`, `list_files`, `delete_file`), kernel_recycle.py (`recycle_kernel`),
run_guard.py (interrupts, grace period, memory guard), kernel_keeper.py (the Python kernel's start and
replacement) and image_info.py (the `ready` frame). None of them imports this file: run as __main__, it would
be loaded a second time.
"""
import os
import sys

sys.dont_write_bytecode = True
import devices  # noqa: E402
import privileges  # noqa: E402

DEVICES_LEFT = devices.remove_unneeded()  # while still uid 0, the owner of gVisor's /dev
privileges.supervisor_setup()  # before any thread starts: threads inherit ids and capabilities

from protocol import Channel  # noqa: E402

CHANNEL = Channel()

import queue  # noqa: E402
import threading  # noqa: E402

import language_session  # noqa: E402
import request_loop  # noqa: E402


class Supervisor:
    """What the request loop and the ops share. The request in progress (run_id to kill_at, and grace_s, which
    each request sets) is read and written under state_lock, as the stdin thread's interrupt reaches it too
    (run_guard.py)."""

    def __init__(self, channel):
        self.channel = channel
        self.kernel = None
        self.count = 0
        self.run_id = None
        self.run_kernel = None  # the kernel running run_id, once it was sent
        self.interrupted = False
        self.unresponsive = False
        self.over_memory = False  # the memory guard killed this run's kernel
        self.kill_at = None  # when a kernel that ignores an interrupt is killed (monotonic seconds)
        self.early_interrupt = None  # the id of a queued request the bot interrupted before it began
        self.restarted = None  # why the kernel was replaced since the last run
        self.state_lock = threading.Lock()
        self.requests = queue.Queue()
        self.relay = None  # the egress relay, when the bot allows network destinations
        self.put_failures = {}  # path -> (code, message) of a chunk that failed before the file's last one
        self.languages = language_session.LanguageSessions()  # R and Node, started on first use


if __name__ == "__main__":
    try:
        request_loop.serve(Supervisor(CHANNEL), DEVICES_LEFT)
    except BaseException as exc:  # noqa: BLE001
        CHANNEL.diag(f"threadlab supervisor failed: {type(exc).__name__}: {exc}")
        os._exit(70)
