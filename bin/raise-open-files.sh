#!/bin/sh
# Raises the soft open-file limit to the hard one, then runs the given command in this process's place
# (exec: same pid, signals reach it). Node cannot raise its own limit, and the common soft limit of 1,024
# leaves the web chat few connections: `threadlab start` derives its caps from the limit it is given.
# Usage: sh bin/raise-open-files.sh node bin/threadlab.js start
hard=$(ulimit -Hn)
ulimit -Sn "$hard" 2>/dev/null || echo "[threadlab] could not raise the open-file limit to $hard; keeping $(ulimit -Sn)" >&2
exec "$@"
