"""The supervisor's request loop: starts the kernel and says `ready`, then answers the bot's requests one at a
time, in order, each with one frame carrying the request's id (an op's failure is an `error` frame with a code,
never the end of the loop).

A thread reads the protocol stream (protocol.py) and queues the requests, but acts on two at once: `interrupt`
(run_guard.py), which must reach a run in progress, and `egress` (egress_relay.py), a connection's bytes. When the
bot goes away, what is queued is finished and the supervisor exits.
"""
import os
import signal
import threading

import egress_relay
import file_ops
import files
import kernel_keeper
import kernel_recycle
import language_session
import preview
import run_guard
import run_op
import state_ops
from image_info import describe_image
from protocol import ChannelBroken


def reader(supervisor):
    try:
        for request in supervisor.channel.requests():
            if request.get("op") == "interrupt":
                run_guard.interrupt(supervisor, request.get("id"))
                continue
            if request.get("op") == "egress":
                if supervisor.relay is not None:
                    supervisor.relay.from_bot(request)
                continue
            supervisor.requests.put(request)
    except ChannelBroken as exc:
        supervisor.channel.diag(f"threadlab supervisor: protocol stream broken: {exc}")
    supervisor.requests.put(None)  # the bot went away (or its stream broke): finish what is queued, then exit


def serve(supervisor, devices_left):
    """Runs until the bot goes away; `devices_left` are the device nodes the supervisor could not remove."""
    # A hangup (a process group of the user's orphaned while stopped) is never the supervisor's to die of.
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    kernel_keeper.start_kernel(supervisor)
    ready = describe_image()
    kernel_keeper.ready_kernel(supervisor)
    if egress_relay.enabled():
        supervisor.relay = egress_relay.Relay(supervisor.channel)
    threading.Thread(target=reader, args=(supervisor,), name="threadlab-stdin", daemon=True).start()
    if devices_left:
        supervisor.channel.diag(f"threadlab supervisor: device nodes left in place: {'; '.join(devices_left)}")
    supervisor.channel.send(ready)
    while True:
        request = supervisor.requests.get()
        if request is None:
            os._exit(0)
        if request.get("op") == "put_file" and request.get("more"):
            file_ops.put_part(supervisor, request)
            continue
        try:
            frame = handle(supervisor, request)
        except (kernel_keeper.KernelFailed, language_session.SessionFailed) as exc:
            frame = {"type": "error", "code": "kernel_failed", "message": str(exc)}
        except files.UnsafePath as exc:
            frame = {"type": "error", "code": "unsafe_path", "message": str(exc)}
        except kernel_recycle.RecycleFailed as exc:
            frame = {"type": "error", "code": "recycle_failed", "message": str(exc)}
        except Exception as exc:  # noqa: BLE001
            frame = {"type": "error", "code": "failed", "message": f"{type(exc).__name__}: {exc}"}
        frame["id"] = request.get("id")
        payload = frame.pop("_payload", None)
        supervisor.channel.send(frame, payload)


def handle(supervisor, request):
    op = request.get("op")
    if op == "run":
        return run_op.run(supervisor, request)
    if op in ("save_state", "restore_state", "warm"):
        return state_ops.state(supervisor, request)
    if op == "put_file":
        return file_ops.put_file(supervisor, request)
    if op == "stream_file":
        return file_ops.stream_file(supervisor, request)
    if op == "list_files":
        return file_ops.list_files()
    if op == "delete_file":
        return file_ops.delete_file(request)
    if op == "preview":
        return {"type": "previews", "previews": preview.preview_files(request.get("paths", []), request.get("timeoutMs"))}
    if op == "ping":
        return {"type": "ok"}
    if op == "recycle_kernel":
        return kernel_recycle.recycle(supervisor)
    return {"type": "error", "code": "unknown_op", "message": f"unknown op {op!r}"}
