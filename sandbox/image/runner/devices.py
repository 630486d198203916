"""Device nodes a sandbox must not have. runc's /dev holds none of them; gVisor's (runsc, Debian's 20221219) offers
/dev/fuse and /dev/net/tun to every container, and the engine has no option to leave them out (masked paths do not
reach them there). /dev is a tmpfs owned by root in gVisor, so the supervisor, still uid 0 when it starts, removes
them: no capability is needed to unlink in a directory one owns. New device nodes cannot be made: the seccomp
profile refuses mknod of block and character devices (sandbox/seccomp.ts).
"""
import os

#: In order: each device, then its directory once empty.
REMOVED = ((os.unlink, "/dev/fuse"), (os.unlink, "/dev/net/tun"), (os.rmdir, "/dev/net"))


def remove_unneeded():
    """Removes REMOVED; returns what could not be removed, with why."""
    failed = []
    for remove, path in REMOVED:
        try:
            remove(path)
        except FileNotFoundError:
            pass
        except OSError as exc:
            failed.append(f"{path}: {exc.strerror}")
    return failed
