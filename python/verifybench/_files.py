"""Reading and writing files the way the C++ harness does (harness/io/files.h): a file read is
a regular file under a size cap, opened without blocking (a FIFO cannot hang the reader); a
result file is written whole to a new temporary (O_CREAT|O_EXCL|O_NOFOLLOW, never through a
link) and renamed over a destination that is a regular file or absent."""
import os
import secrets
import stat

# case.json of an export is a few KB; a safetensors file holds one case's tensors, which the
# C++ export caps per case (harness/export/export_safetensors.h).
CASE_JSON_MAX_BYTES = 16 << 20
SAFETENSORS_MAX_BYTES = 16 << 30


def read_regular_file(path, max_bytes):
    """The bytes of `path`; ValueError naming the path when it is not a regular file, is
    larger than `max_bytes`, or cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as e:
        raise ValueError(f"{path}: {e.strerror}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
        os.close(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{path}: {_kind(info.st_mode)}, not a regular file; allowed: a regular file")
        raise ValueError(f"{path}: {info.st_size} bytes; allowed: at most {max_bytes}")
    with os.fdopen(fd, "rb") as f:
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise ValueError(f"{path}: grew past {max_bytes} bytes while it was read")
    return data


def destination_error(path):
    """Why `path` cannot be a result file (None when it can): it must be a regular file or
    absent, never a link, device, FIFO, socket or folder."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        return f"{path}: {e.strerror}"
    if stat.S_ISREG(info.st_mode):
        return None
    return f"{path}: {_kind(info.st_mode)}; allowed: a regular file or a path that does not exist yet"


def write_file_whole(path, text):
    """Writes `text` to a new temporary beside `path` and renames it over `path`; OSError on
    failure, with the temporary removed and `path` as it was."""
    folder = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(folder, f"{os.path.basename(path)}.{secrets.token_hex(8)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        why = destination_error(path)
        if why is not None:
            raise OSError(0, why)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _kind(mode):
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"
