"""scripts/train.py that kills itself with SIGKILL in the middle of a checkpoint write, for the
fault-injection test: ``KILL_AT=write:3`` dies while writing the 3rd checkpoint file (half written),
``KILL_AT=rename:2`` just before the 2nd rename of a checkpoint folder. Without ``KILL_AT`` it is
scripts/train.py."""

import os
import signal
import sys

from boardenvs_agents.learning import checkpoint
from boardenvs_agents.scripts.train import main


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def arm(spec: str) -> None:
    where, _, count = spec.partition(":")
    left = [int(count)]

    def due() -> bool:
        left[0] -= 1
        return left[0] == 0

    if where == "write":
        write_file = checkpoint.write_file

        def faulty_write(path, write):
            if due():
                write(path)
                with open(path, "r+b") as f:
                    f.truncate(os.path.getsize(path) // 2)
                die()
            return write_file(path, write)

        checkpoint.write_file = faulty_write
    elif where == "rename":
        rename = os.rename

        def faulty_rename(src, dst):
            if "checkpoint" in str(dst) and due():
                die()
            return rename(src, dst)

        checkpoint.os.rename = faulty_rename
    else:
        raise SystemExit(f"bad KILL_AT {spec!r}")


if __name__ == "__main__":
    if os.environ.get("KILL_AT"):
        arm(os.environ["KILL_AT"])
    main(sys.argv[1:])
