"""Download the AriGraph paper's TextWorld games from the authors' public repository.

Pinned to one commit so everybody plays the same files. Offline, this fails with one clear line.
"""

from __future__ import annotations

import io
import shutil
import tarfile
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

ARIGRAPH_REPO = "AIRI-Institute/AriGraph"
ARIGRAPH_COMMIT = "d27d7d1d72cae8d283aa85e6af0c7d597983a1e7"
ARIGRAPH_URL = f"https://codeload.github.com/{ARIGRAPH_REPO}/tar.gz/{ARIGRAPH_COMMIT}"
COLLECTIONS = {"arigraph": ARIGRAPH_URL}


class FetchError(RuntimeError):
    """The download or unpacking failed; nothing was changed on disk."""


def fetch_games(collection: str, games_root: Path, url: str | None = None, timeout: float = 30.0) -> Path:
    """Download ``collection`` into ``games_root/collection`` (game folders of the repo's ``envs/``)."""
    if collection not in COLLECTIONS:
        raise FetchError(f"unknown game collection '{collection}' (known: {', '.join(COLLECTIONS)})")
    source = url or COLLECTIONS[collection]
    try:
        with urllib.request.urlopen(source, timeout=timeout) as response:
            payload = response.read()
    except (urllib.error.URLError, OSError, TimeoutError) as exc:
        reason = getattr(exc, "reason", exc)
        raise FetchError(f"cannot download {collection} games from {source}: {reason}") from exc
    target = games_root / collection
    with tempfile.TemporaryDirectory(dir=games_root if games_root.exists() else None) as tmp:
        staging = Path(tmp) / collection
        try:
            with tarfile.open(fileobj=io.BytesIO(payload), mode="r:gz") as archive:
                members = [m for m in archive.getmembers() if "/envs/" in m.name and (m.isfile() or m.isdir())]
                for member in members:
                    member.name = member.name.split("/envs/", 1)[1]
                archive.extractall(staging, members=members, filter="data")
        except (tarfile.TarError, OSError) as exc:
            raise FetchError(f"downloaded {collection} archive is unreadable: {exc}") from exc
        games_root.mkdir(parents=True, exist_ok=True)
        for item in staging.iterdir():  # merge: keep a manifest or other files already there
            destination = target / item.name
            if destination.exists():
                shutil.rmtree(destination) if destination.is_dir() else destination.unlink()
            target.mkdir(parents=True, exist_ok=True)
            shutil.move(str(item), destination)
    return target
