"""Opening files under the allowed roots with no window for symlink or hard-link tricks.

`paths.resolve` checks where a path leads, but a check is only as good as the moment
it was made: a directory swapped for a symlink between the check and the open would
send the open outside the project. So file tools open what `resolve` returned one
component at a time, each relative to the directory opened before it and with
O_NOFOLLOW, starting from the allowed root itself. The realpath holds no symlink,
so a symlink met on the way means the tree changed under us: the call is refused.
The opened file is then checked with fstat (a regular file; its other hard links
inside the allowed roots).

A hard link is a second name for the same file, and it can be made to a file
outside the project (`ln ~/.ssh/id_rsa notes.txt`). The rule: a file with more than
one link is read only when all its links are found under the allowed roots. That
also refuses files hard-linked from a package cache (uv, pnpm); add the cache with
--allow-path, or read them with execute_bash, which the user approves.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from slop.tools.base import ErrorCode, ToolContext, ToolFailure
from slop.tools.paths import allowed_roots

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK  # a FIFO must not block the open
_LINK_SCAN_LIMIT = 200_000  # directory entries looked at to find a file's other hard links
_SWAPPED = (errno.ELOOP, errno.EMLINK)  # O_NOFOLLOW met a symlink (EMLINK on BSD)


def _anchor(ctx: ToolContext, real: Path) -> tuple[Path, tuple[str, ...]]:
    """The allowed root `real` lies under (the deepest one) and the parts below it."""
    for base in sorted(allowed_roots(ctx), key=lambda p: len(p.parts), reverse=True):
        if real == base or base in real.parents:
            return base, real.relative_to(base).parts
    raise ToolFailure(ErrorCode.PERMISSION_DENIED, f"{real} is outside the project")


def _changed(real: Path) -> ToolFailure:
    return ToolFailure(
        ErrorCode.PERMISSION_DENIED,
        f"{real} changed while it was being opened (a symlink appeared on the way); not followed",
    )


def _open_dirs(base: Path, parts: tuple[str, ...], real: Path, create: bool = False) -> int:
    """An fd on base/parts[0]/…, each step opened below the previous one without following
    symlinks; missing directories are made when `create`."""
    fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts:
            child = _open_child_dir(fd, part, real, create)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_child_dir(fd: int, part: str, real: Path, create: bool) -> int:
    try:
        return os.open(part, _DIR_FLAGS, dir_fd=fd)
    except FileNotFoundError:
        if not create:
            raise
    except NotADirectoryError:
        if _is_link(fd, part):
            raise _changed(real) from None
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"{part} in {real} is a file, not a directory") from None
    except OSError as exc:
        if exc.errno in _SWAPPED:
            raise _changed(real) from None
        raise
    try:
        os.mkdir(part, 0o777, dir_fd=fd)
    except FileExistsError:
        pass
    return _open_child_dir(fd, part, real, create=False)


def _is_link(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


@contextmanager
def open_dir(ctx: ToolContext, real: Path, *, create: bool = False) -> Iterator[int]:
    """A directory fd for the resolved path `real`, opened safely (see the module doc)."""
    base, parts = _anchor(ctx, real)
    fd = _open_dirs(base, parts, real, create)
    try:
        yield fd
    finally:
        os.close(fd)


@contextmanager
def parent_dir(ctx: ToolContext, real: Path, *, create: bool = False) -> Iterator[tuple[int, str]]:
    """(fd of the parent directory, final name) for the resolved path `real`."""
    base, parts = _anchor(ctx, real)
    if not parts:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"{real} is a directory")
    fd = _open_dirs(base, parts[:-1], real, create)
    try:
        yield fd, parts[-1]
    finally:
        os.close(fd)


def fd_cwd(fd: int, fallback: Path) -> Path:
    """A working directory for a child process that is the directory `fd` holds, not
    whatever its path leads to when the child starts: /proc/<our pid>/fd/N names the
    open directory itself. Without /proc (not Linux), the checked path."""
    magic = Path(f"/proc/{os.getpid()}/fd/{fd}")
    return magic if magic.is_dir() else fallback


def open_read(ctx: ToolContext, real: Path) -> int:
    """An fd open for reading on the regular file `real`, checked after opening.

    Raises ToolFailure when a symlink appeared on the way, when it is not a regular
    file, or when it has hard links outside the allowed roots."""
    with parent_dir(ctx, real) as (dir_fd, name):
        try:
            fd = os.open(name, _READ_FLAGS, dir_fd=dir_fd)
        except OSError as exc:
            if exc.errno in _SWAPPED:
                raise _changed(real) from None
            raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):  # a FIFO or device would block or never end
            raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"{real} is not a regular file")
        if info.st_nlink > 1:
            check_hard_links(ctx, real, info)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bytes(ctx: ToolContext, real: Path) -> bytes:
    fd = open_read(ctx, real)
    with os.fdopen(fd, "rb") as handle:
        return handle.read()


def check_hard_links(ctx: ToolContext, real: Path, info: os.stat_result) -> None:
    """Refuse a file whose hard links are not all under the allowed roots."""
    found = 0
    budget = _LINK_SCAN_LIMIT
    for base in allowed_roots(ctx):
        for entry_info in _walk_same_device(base, info.st_dev):
            budget -= 1
            if entry_info.st_ino == info.st_ino and entry_info.st_dev == info.st_dev:
                found += 1
                if found >= info.st_nlink:
                    return
            if budget <= 0:
                break
    raise ToolFailure(
        ErrorCode.PERMISSION_DENIED,
        f"{real} has {info.st_nlink} hard links and only {found} of them are inside the project, so it may "
        "be a file from elsewhere under another name; not read. If it is a package-cache link, start slop "
        "with --allow-path for the cache, or read it with execute_bash (which asks first)",
    )


def _walk_same_device(base: Path, device: int) -> Iterator[os.stat_result]:
    """lstat of every regular file under `base` on `device`. os.fwalk opens each
    directory relative to its parent without following symlinks, so swapping a
    directory for a symlink cannot make a file elsewhere count as inside."""
    for _dirpath, dirnames, filenames, dir_fd in os.fwalk(base, follow_symlinks=False):
        kept = []
        for name in dirnames:
            info = _lstat_at(dir_fd, name)
            if info is not None and info.st_dev == device:
                kept.append(name)
        dirnames[:] = kept
        for name in filenames:
            info = _lstat_at(dir_fd, name)
            if info is not None and stat.S_ISREG(info.st_mode) and info.st_dev == device:
                yield info


def _lstat_at(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return None


def atomic_write_at(ctx: ToolContext, real: Path, data: bytes) -> None:
    """Write `real` via a temp file in its (safely opened) directory and an atomic rename.

    Readers see the old or the new content, never a mix. Renaming onto the name
    replaces the name, not the inode, so a hard link elsewhere keeps its content.
    An existing file's permission bits are kept; a new file gets 0o666 minus umask."""
    with parent_dir(ctx, real, create=True) as (dir_fd, name):
        mode = _existing_mode(dir_fd, name)
        tmp = f".{name}.{os.urandom(4).hex()}.slop-tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                if mode is not None:
                    os.fchmod(handle.fileno(), mode)
                os.fsync(handle.fileno())
            os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=dir_fd)
            except OSError:
                pass
            raise


def _existing_mode(dir_fd: int, name: str) -> int | None:
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    return stat.S_IMODE(info.st_mode) if stat.S_ISREG(info.st_mode) else None
