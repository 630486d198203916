"""Files under /mnt/data: snapshots and diffs for artifacts, and safe reads and writes for the bot.
Nothing here follows a symbolic link; only regular files ever leave the sandbox."""
import errno
import mimetypes
import os
import stat

ROOT = "/mnt/data"
MAX_ARTIFACTS = 200
#: Packages installed with pip (PYTHONUSERBASE=/mnt/data/.local) come back with the thread's files under a cap of
#: their own: a package has hundreds of files, and one cut short would be broken after a restore.
PACKAGE_DIR = ".local/"
MAX_PACKAGE_FILES = 20000
MAX_WALK = 20000
MAX_SKIPPED_LISTED = 50  # the rest are only counted
#: Where the saved variables are written (state.py): never an artifact, never listed.
PRIVATE_DIR = os.path.join(ROOT, ".threadlab", "state")

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
                        if entry.path != PRIVATE_DIR:
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
    counts = {False: 0, True: 0}  # files brought back: the user's, and installed packages'
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
        elif reason is None and not rel.startswith(PACKAGE_DIR) and counts[False] >= MAX_ARTIFACTS:
            reason = f"more than {MAX_ARTIFACTS} files changed in one run"
        elif reason is None and rel.startswith(PACKAGE_DIR) and counts[True] >= MAX_PACKAGE_FILES:
            reason = f"more than {MAX_PACKAGE_FILES} files of installed packages changed in one run"
        elif reason is None and cost > budget:
            reason = f"{_describe(size, allocated)}; total per run of {_format_bytes(total_bytes)} reached"
        if reason:
            skipped.append({"path": rel, "reason": reason, "bytes": size})
            continue
        seen_inodes[ino] = rel
        counts[rel.startswith(PACKAGE_DIR)] += 1
        budget -= cost
        artifacts.append({"path": rel, "bytes": size, "mime": mime_of(rel), "change": change})
    deleted = sorted(rel for rel in before if rel not in after)
    return artifacts, skipped, deleted


def resolve(rel, for_write=False):
    """Absolute path of `rel` under ROOT; refuses traversal and any symbolic link on the way. For the preview
    child, which runs as the user; the supervisor itself opens files with `open_file`."""
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


def _parts(rel):
    if not isinstance(rel, str) or not rel or rel.startswith("/") or "\x00" in rel:
        raise UnsafePath("path must be relative to /mnt/data")
    parts = [p for p in rel.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts):
        raise UnsafePath("path must stay inside /mnt/data")
    return parts


def _open_parent(parts, create):
    """An fd of the directory holding parts[-1], walked one component at a time from ROOT without following
    any link: the supervisor opens files for the bot while the user's code may still run, so a directory
    swapped for a link (to /proc/self/fd, say) between a check and an open must not be followed."""
    fd = os.open(ROOT, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        for part in parts[:-1]:
            try:
                child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise UnsafePath("no such file")
                try:
                    os.mkdir(part, 0o755, dir_fd=fd)
                except FileExistsError:
                    pass
                child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ENOTDIR, errno.ELOOP):
                    raise UnsafePath("a parent is a link or not a directory")
                raise
            os.close(fd)
            fd = child
        return fd
    except BaseException:
        os.close(fd)
        raise


def open_file(rel, flags, create_dirs=False):
    """Opens a regular file under ROOT without following links anywhere on the way; returns the fd."""
    parts = _parts(rel)
    parent = _open_parent(parts, create_dirs)
    try:
        # O_NONBLOCK: opening a fifo must not hang the supervisor; it is refused just below.
        fd = os.open(parts[-1], flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o644, dir_fd=parent)
    except FileNotFoundError:
        raise UnsafePath("no such file")
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.ENOTDIR):  # a link, a fifo, a parent
            raise UnsafePath("not a regular file (links are not followed)")
        raise
    finally:
        os.close(parent)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UnsafePath("not a regular file")
    os.set_blocking(fd, True)
    return fd


def put_chunk(rel, data, append):
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    fd = open_file(rel, flags, create_dirs=True)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        st = os.fstat(fd)
    finally:
        os.close(fd)
    return {"path": rel, "bytes": st.st_size, "mime": mime_of(rel), "modifiedMs": st.st_mtime_ns // 1_000_000}


def size_of(rel):
    fd = open_file(rel, os.O_RDONLY)
    try:
        return os.fstat(fd).st_size
    finally:
        os.close(fd)


def list_files():
    files = []
    for rel, (kind, size, mtime, _ino, _allocated) in sorted(snapshot().items()):
        if kind == "file" and _unsafe_name(rel) is None:
            files.append({"path": rel, "bytes": size, "mime": mime_of(rel), "modifiedMs": mtime // 1_000_000})
    return files


def delete(rel):
    parts = _parts(rel)
    parent = _open_parent(parts, False)
    try:
        try:
            st = os.stat(parts[-1], dir_fd=parent, follow_symlinks=False)
        except FileNotFoundError:
            raise UnsafePath("no such file")
        if not stat.S_ISREG(st.st_mode):
            raise UnsafePath("not a regular file")
        os.unlink(parts[-1], dir_fd=parent)
    finally:
        os.close(parent)
