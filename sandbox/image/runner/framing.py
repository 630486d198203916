"""Newline-delimited JSON frames, each written whole (a pipe write may take only part of a long one)."""
import json
import os


def encode(frame):
    return (json.dumps(frame, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8", "replace")


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
