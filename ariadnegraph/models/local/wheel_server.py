"""llama.cpp's server from the ``xllamacpp`` wheel, run as its own process with ``llama-server``'s flags.

``python -m ariadnegraph.models.local.wheel_server --model W.gguf --port P ...`` takes the flags
:func:`ariadnegraph.models.local.server.server_command` gives the built binary, so both engines start, are
found healthy, reused and stopped the same way (a process on a loopback port). The wheel runs the same server
code in-process (``xllamacpp.Server``): the OpenAI chat API with ``json_schema`` grammars, ``id_slot`` pinning,
``/health``, ``/tokenize`` and cached-token counts. SIGTERM or SIGINT stops it (about 2 s).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence


def parse_flags(argv: Sequence[str]) -> argparse.Namespace:
    """The llama-server flags server_command uses (any other is refused: a flag the wheel would ignore)."""
    parser = argparse.ArgumentParser(prog="wheel_server")
    parser.add_argument("--model", required=True)
    parser.add_argument("--alias", default="")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--parallel", type=int, default=1)
    parser.add_argument("--ctx-size", type=int, default=0)
    parser.add_argument("--threads", type=int, default=-1)
    parser.add_argument("--kv-unified", action="store_true")
    parser.add_argument("--no-cache-idle-slots", action="store_true")
    parser.add_argument("--no-webui", action="store_true")
    return parser.parse_args(list(argv))


def server_params(flags: argparse.Namespace):  # -> xllamacpp.CommonParams (no stubs)
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = flags.model
    params.model_alias = flags.alias
    params.hostnames = [flags.host]
    params.port = flags.port
    params.n_parallel = flags.parallel
    params.n_ctx = flags.ctx_size
    params.cpuparams.n_threads = flags.threads
    params.kv_unified = flags.kv_unified
    params.cache_idle_slots = not flags.no_cache_idle_slots
    params.ui = not flags.no_webui
    return params


def main(argv: Sequence[str] | None = None) -> int:
    flags = parse_flags(sys.argv[1:] if argv is None else argv)
    import xllamacpp

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    server = xllamacpp.Server(server_params(flags))  # listening once the model is loaded
    while not stop.wait(1.0):
        pass
    del server  # its destructor ends the HTTP loop and frees the model
    return 0


if __name__ == "__main__":
    sys.exit(main())
