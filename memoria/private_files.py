"""Local state stays the owner's: var/ holds the users and their tokens (SQLite), the secrets, the graph store,
backups and logs, none of which another account on the machine may read.

Every process that loads the settings creates files with umask 077 (0600 files, 0700 folders): the secrets file,
the SQLite database `migrate` makes, the embedded graph server (a child process inherits the umask), backups.
What an older version or another tool left readable is made private when the app starts, with one log line.
"""

from __future__ import annotations

import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path

PRIVATE_UMASK = 0o077  # no bit for the group or others
logger = logging.getLogger(__name__)


def private_umask() -> None:
    """From now on this process (and the processes it starts) creates files 0600 and folders 0700."""
    os.umask(PRIVATE_UMASK)


@dataclass(frozen=True)
class PrivacyFix:
    """What private_tree changed, and what it could not (another user's file)."""

    files: int = 0
    folders: int = 0
    refused: int = 0


def _privatise(path: Path) -> int:
    """1 when `path` lost its group and others bits, 0 when it had none; a symlink is left alone (its target is
    walked where it lives, and chmod would follow the link out of the tree)."""
    mode = stat.S_IMODE(path.lstat().st_mode)
    if not mode & PRIVATE_UMASK or path.is_symlink():
        return 0
    path.chmod(mode & ~PRIVATE_UMASK)
    return 1


def private_tree(root: Path) -> PrivacyFix:
    """Take the group and others bits off `root` and everything below it, and log once what changed."""
    if not root.exists():
        return PrivacyFix()
    files = folders = refused = 0
    for folder, subfolders, names in os.walk(root):
        here = Path(folder)
        for path, is_folder in [(here, True), *((here / name, False) for name in names)]:
            try:
                changed = _privatise(path)
            except OSError:  # not ours (or gone meanwhile): said below, never fatal
                refused += 1
                continue
            folders += changed if is_folder else 0
            files += 0 if is_folder else changed
        subfolders[:] = [name for name in subfolders if not (here / name).is_symlink()]
    fix = PrivacyFix(files, folders, refused)
    if files or folders:
        logger.warning(
            "made %d file(s) and %d folder(s) under %s private (0600/0700): they were readable by other accounts",
            files,
            folders,
            root,
            extra={"files_fixed": files, "folders_fixed": folders, "root": str(root)},
        )
    if refused:
        logger.error("could not make %d path(s) under %s private (not owned by this account)", refused, root)
    return fix
