"""Files under /mnt/data: snapshots and diffs for artifacts, and safe reads and writes for the bot.
Nothing here follows a symbolic link; only regular files ever leave the sandbox."""
import base64
import mimetypes
import os
import stat

ROOT = "/mnt/data"
MAX_ARTIFACTS = 200
MAX_WALK = 20000
MAX_SKIPPED_LISTED = 50  # the rest are only counted

mimetypes.add_type("text/csv", ".csv")
mimetypes.add_type("text/markdown", ".md")
mimetypes.add_type("application/vnd.apache.parquet", ".parquet")
mimetypes.add_type("text/tab-separated-values", ".tsv")


class UnsafePath(Exception):
    pass


def mime_of(path):
    return mimetypes.guess_type(path)[0] or ("text/plain" if path.endswith((".txt", ".log")) else "application/octet-stream")


def snapshot():
    """Maps each path under ROOT (relative) to (kind, size, mtime_ns, ino, allocated_bytes), without
    following links."""
    entries = {}
    stack = [ROOT]
    while stack and len(entries) < MAX_WALK:
        directory = stack.pop()
        try:
            with os.scandir(directory) as it:
                for entry in it:
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    rel = os.path.relpath(entry.path, ROOT)
                    if stat.S_ISDIR(st.st_mode):
                        stack.append(entry.path)
                        continue
                    kind = "file" if stat.S_ISREG(st.st_mode) else "link" if stat.S_ISLNK(st.st_mode) else "special"
                    entries[rel] = (kind, st.st_size, st.st_mtime_ns, st.st_ino, st.st_blocks * 512)
        except OSError:
            continue
    return entries


def _unsafe_name(rel):
    if any(ord(c) < 32 or c in "\\\x7f" for c in rel):
        return "unsafe characters in the name"
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return "name is not valid UTF-8"
    return None


def _format_bytes(n):
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.0f} {unit}" if n >= 10 * scale else f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def _describe(size, allocated):
    """What a file costs to bring back, in words: a sparse file is mostly holes that read as zeros."""
    cost = max(size, allocated)
    return f"{_format_bytes(cost)} {'sparse file' if allocated * 2 < size else 'file'}"


def diff(before, after, max_bytes, total_bytes):
    """Files the run created or changed, split into those to bring back and those not brought back (with
    why). A file costs the larger of its size and its allocated blocks: a sparse file is cheap in /mnt/data
    but full-size once copied out. The whole run may bring back at most `total_bytes`, and a file with
    several names (hard links) is brought back once."""
    artifacts, skipped = [], []
    budget = total_bytes
    seen_inodes = {}
    for rel in sorted(after):
        kind, size, mtime, ino, allocated = after[rel]
        old = before.get(rel)
        if old is not None and old[:4] == (kind, size, mtime, ino):
            continue
        change = "created" if old is None else "modified"
        cost = max(size, allocated)
        reason = _unsafe_name(rel)
        if kind == "link":
            reason = "symbolic links are not returned"
        elif kind == "special":
            reason = "not a regular file (device, fifo or socket)"
        elif reason is None and ino in seen_inodes:
            reason = f"a hard link to {seen_inodes[ino]}, which is brought back once"
        elif reason is None and cost > max_bytes:
            reason = f"{_describe(size, allocated)}; larger than the {_format_bytes(max_bytes)} file limit"
        elif reason is None and len(artifacts) >= MAX_ARTIFACTS:
            reason = f"more than {MAX_ARTIFACTS} files changed in one run"
        elif reason is None and cost > budget:
            reason = f"{_describe(size, allocated)}; total per run of {_format_bytes(total_bytes)} reached"
        if reason:
            skipped.append({"path": rel, "reason": reason, "bytes": size})
            continue
        seen_inodes[ino] = rel
        budget -= cost
        artifacts.append({"path": rel, "bytes": size, "mime": mime_of(rel), "change": change})
    deleted = sorted(rel for rel in before if rel not in after)
    return artifacts, skipped, deleted


def resolve(rel, for_write=False):
    """Absolute path of `rel` under ROOT; refuses traversal and any symbolic link on the way."""
    if not isinstance(rel, str) or not rel or rel.startswith("/") or "\x00" in rel:
        raise UnsafePath("path must be relative to /mnt/data")
    parts = [p for p in rel.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        raise UnsafePath("path must stay inside /mnt/data")
    current = ROOT
    for index, part in enumerate(parts):
        current = os.path.join(current, part)
        last = index == len(parts) - 1
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            if for_write:
                if not last:
                    os.mkdir(current, 0o755)
                continue
            raise UnsafePath("no such file")
        if stat.S_ISLNK(st.st_mode):
            raise UnsafePath("symbolic links are not followed")
        if not last and not stat.S_ISDIR(st.st_mode):
            raise UnsafePath("a parent is not a directory")
        if last and not stat.S_ISREG(st.st_mode):
            raise UnsafePath("not a regular file")
    return current


def put_chunk(rel, b64, append):
    path = resolve(rel, for_write=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | (os.O_APPEND if append else os.O_TRUNC)
    fd = os.open(path, flags, 0o644)
    try:
        data = base64.b64decode(b64)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        size = os.fstat(fd).st_size
    finally:
        os.close(fd)
    return file_info(rel, path)


def read_chunk(rel, offset, length):
    path = resolve(rel)
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        size = os.fstat(fd).st_size
        data = os.pread(fd, max(0, min(length, size - offset)), offset)
    finally:
        os.close(fd)
    return {"base64": base64.b64encode(data).decode("ascii"), "size": size, "eof": offset + len(data) >= size}


def file_info(rel, path):
    st = os.lstat(path)
    return {"path": rel, "bytes": st.st_size, "mime": mime_of(rel), "modifiedMs": st.st_mtime_ns // 1_000_000}


def list_files():
    files = []
    for rel, (kind, size, mtime, _ino, _allocated) in sorted(snapshot().items()):
        if kind == "file" and _unsafe_name(rel) is None:
            files.append({"path": rel, "bytes": size, "mime": mime_of(rel), "modifiedMs": mtime // 1_000_000})
    return files


def delete(rel):
    path = resolve(rel)
    os.unlink(path)
