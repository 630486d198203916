"""The two sides of the container's privilege split.

The supervisor starts as uid 0 holding only CAP_SETUID, CAP_SETGID and CAP_SETPCAP (the container's whole
capability set) under no-new-privs. It keeps its real and saved uid 0 and takes effective uid 1000: files it
creates are the user's, no path reaches what uid 1000 could not, and it may stop uid 1000's processes. Every
process that runs the user's code or parses the user's files is created by `drop_to_sandbox_user`: all uids
and gids 1000, no supplementary groups, an empty bounding set and no capabilities, no-new-privs.

uid 1000 then cannot signal the supervisor or init (the kernel allows a signal only when the sender's real
or effective uid is the target's real or saved uid, which are 0, or with CAP_KILL), nor ptrace them or open
their /proc/<pid>/mem (that needs the caller's uid to equal the target's real, effective and saved uids, a
dumpable target, or CAP_SYS_PTRACE; the supervisor is also non-dumpable). Neither capability can come back:
the bounding set is empty and no-new-privs makes exec grant nothing.
"""
import ctypes
import os

SANDBOX_UID = 1000
SANDBOX_GID = 1000

PR_SET_DUMPABLE = 4
PR_CAPBSET_READ = 23
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
_LINUX_CAPABILITY_VERSION_3 = 0x20080522

_libc = ctypes.CDLL(None, use_errno=True)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _check(result, what):
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _capabilities():
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(_libc.capget(ctypes.byref(header), ctypes.byref(data)), "capget")
    return header, data


def supervisor_setup():
    """Run first in the supervisor, before any thread starts (threads inherit ids and capabilities)."""
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "PR_SET_NO_NEW_PRIVS")
    if os.getuid() == 0:
        os.setgroups([])
        os.setresgid(0, SANDBOX_GID, 0)
        os.setresuid(0, SANDBOX_UID, 0)
        # Leaving effective uid 0 emptied the effective set; the permitted set stays (real and saved uid 0).
        header, data = _capabilities()
        for half in data:
            half.effective = half.permitted
        _check(_libc.capset(ctypes.byref(header), ctypes.byref(data)), "capset")
    # After the uid change, which resets it: nothing of uid 1000 may trace or read this process.
    _check(_libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "PR_SET_DUMPABLE")


def drop_to_sandbox_user():
    """Makes the calling process (a fresh child) uid/gid 1000 with no capabilities of any kind.
    Only async-signal-safe work happens here: it runs between fork and exec."""
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "PR_SET_NO_NEW_PRIVS")
    if os.getuid() == 0:
        # Every capability the kernel knows: PR_CAPBSET_READ fails past the last (gVisor has no cap_last_cap).
        for cap in range(64):
            if _libc.prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0:
                break
            _check(_libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0), f"PR_CAPBSET_DROP {cap}")
        os.setgroups([])
        os.setresgid(SANDBOX_GID, SANDBOX_GID, SANDBOX_GID)
        os.setresuid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID)
    # Leaving uid 0 clears the permitted, effective and ambient sets; inheritable is cleared here.
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(header), ctypes.byref(data)), "capset")
    if os.getuid() != SANDBOX_UID or os.geteuid() != SANDBOX_UID or os.getresgid() != (SANDBOX_GID,) * 3:
        raise OSError("the privilege drop did not take")
    # The OOM killer takes the user's processes before the supervisor (raising needs no privilege).
    try:
        with open("/proc/self/oom_score_adj", "w") as fh:
            fh.write("1000")
    except OSError:
        pass
