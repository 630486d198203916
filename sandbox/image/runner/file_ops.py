"""The file ops on /mnt/data, done by the supervisor itself through files.py (never through the user's kernel):
`put_file` in chunks, `stream_file` out in `chunk` frames, `list_files` and `delete_file`.

A file put in several chunks is answered once, at its last chunk (the others carry `more`): a chunk that fails
before it is remembered in the supervisor's put_failures and said then.
"""
import os

import files
from protocol import STREAM_CHUNK_BYTES


def put_part(supervisor, request):
    """A chunk of a file whose last chunk is answered (`more`): nothing is said now; a failure is said then."""
    path = request.get("path")
    if path in supervisor.put_failures:
        return
    if len(supervisor.put_failures) >= 64:
        supervisor.put_failures.clear()
    try:
        files.put_chunk(path, request.get("payload", b""), bool(request.get("append")))
    except files.UnsafePath as exc:
        supervisor.put_failures[path] = ("unsafe_path", str(exc))
    except Exception as exc:  # noqa: BLE001 - said with the file's last chunk
        supervisor.put_failures[path] = ("failed", f"{type(exc).__name__}: {exc}")


def put_file(supervisor, request):
    """A file's last (or only) chunk: answers for the whole file, with the failure of an earlier chunk if any."""
    failure = supervisor.put_failures.pop(request.get("path"), None)
    if failure is not None:
        code, message = failure
        return {"type": "error", "code": code, "message": message}
    info = files.put_chunk(request["path"], request.get("payload", b""), bool(request.get("append")))
    return {"type": "ok", "file": info}


def stream_file(supervisor, request):
    """A whole file in `chunk` frames written back to back (the pipe to the bot paces them), then a `file`
    frame with the bytes sent as its size; only the size when it is over the request's `maxBytes`."""
    rid = request.get("id")
    path = request["path"]
    limit = max(0, int(request.get("maxBytes", 0)))
    fd = files.open_file(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        sent = 0
        if size <= limit:
            while sent < size:
                count = min(STREAM_CHUNK_BYTES, size - sent)
                n = supervisor.channel.send_from_file({"type": "chunk", "id": rid}, fd, sent, count)
                sent += n
                if n < count:
                    break  # the file got shorter while it was sent
    finally:
        os.close(fd)
    if request.get("remove"):
        files.delete(path)
    return {"type": "file", "size": size if size > limit else sent, "eof": True, "_payload": b""}


def list_files():
    return {"type": "files", "files": files.list_files()}


def delete_file(request):
    files.delete(request["path"])
    return {"type": "ok"}
