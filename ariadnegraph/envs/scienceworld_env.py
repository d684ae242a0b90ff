"""ScienceWorld (Wang et al., 2022) behind the :class:`~ariadnegraph.envs.base.TextEnv` protocol.

DAVIS ran ScienceWorld with the ``easy`` simplification (teleport, self-watering pots, open
containers and doors, no electrical actions except on electrical tasks), on all 30 tasks, on
variations drawn from the *test* split, for at most 80 steps (the paper's text says 80; its
hyper-parameter table says 100). Those are the defaults here.

* ``task`` is any of: the task name ScienceWorld uses (``find-living-thing``), its id from the
  paper (``4-1``), its index ``0..29`` in paper order (``1-1`` is 0, ``10-2`` is 29), or the
  paper's long name (``Classification Find a living thing``). See :func:`scienceworld_tasks`.
* ``variation`` is an index into the chosen split's variation list (``0`` is the first test
  variation, e.g. ScienceWorld variation 225 of ``find-living-thing``), or ``"random"``.

The Python ``scienceworld`` package starts one JVM (py4j) per ``ScienceWorldEnv``. We drive the
Scala ``PythonInterface`` directly instead: an episode leases a JVM from the process-wide pool
(:mod:`ariadnegraph.envs.jvm_pool`) at ``reset`` and hands it back when the episode ends or the env
is closed, so episodes played one after the other reuse one JVM (a ``load`` per episode, ~0.1-1 s,
instead of a ~1.3 s JVM start). Past ``step_timeout`` the JVM is killed and :class:`EnvTimeout`
raised; a JVM that died mid-call raises :class:`EnvCrashed`. Either way the episode is over and the
next ``reset`` starts a fresh JVM.

Observations: ``text`` is ScienceWorld's answer (on ``reset``: the task description, a blank
line, then the look-around text); ``admissible_actions`` is ScienceWorld's list of *valid*
action-object combinations for the current state (typically 100-1000 strings, alphabetical;
``max_admissible`` caps it); ``score`` is 0..100 (a failed task reports -100 in ScienceWorld; we
report 0 with ``lost=True`` and keep the raw value in ``oracle.extra['raw_score']``);
``inventory`` lists the inventory lines without articles. ``oracle.walkthrough`` is the gold
action sequence ScienceWorld generated for this very load of the variation (parts of a
variation, e.g. which animal is outside, depend on the JVM's random state, so a gold path only
holds for the episode it came with). ``oracle.facts`` is the true world state in TextWorld's fact
form (:func:`scienceworld_truth.tree_facts`: where each thing is, what holds it, which containers are open), read from
ScienceWorld's object tree after every command, for evaluation only (``ariadne fidelity``).
"""

from __future__ import annotations

import json
import logging
import random
import re
import weakref
from dataclasses import dataclass
from typing import Any

from ariadnegraph.envs.base import (
    EnvCrashed,
    EnvError,
    EnvSpecError,
    EnvTimeout,
    Observation,
    Oracle,
    one_line,
    sanitize_command,
)
from ariadnegraph.envs.jvm_pool import JvmPool, _Jvm, jvm_pool
from ariadnegraph.envs.scienceworld_truth import IN_OR_ON, ScienceWorldTruth

logger = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_MAX_STEPS",
    "ScienceWorldTextEnv",
    "make_scienceworld",
    "resolve_scienceworld_task",
    "scienceworld_tasks",
]

DEFAULT_MAX_STEPS = 80
SPLITS = ("train", "dev", "test")
SIMPLIFICATIONS = (
    "easy",
    "teleportAction",
    "selfWateringFlowerPots",
    "openContainers",
    "openDoors",
    "noElectricalAction",
)
MAX_SCORE = 100.0


# --------------------------------------------------------------------------------------------
# Tasks (static: read from the tasks.json the scienceworld package ships, no JVM needed)


def _task_table() -> list[dict[str, str]]:
    from scienceworld.constants import TASKS  # plain JSON read; does not start Java

    return list(TASKS)


def scienceworld_tasks() -> list[tuple[str, str]]:
    """``(id, name)`` of the 30 ScienceWorld tasks in paper order, e.g. ``("4-1", "find-living-thing")``.

    Read from the ``tasks.json`` shipped in the ``scienceworld`` package: no JVM is started.
    """
    return [(t["task_id"], t["task_name"]) for t in _task_table()]


def resolve_scienceworld_task(task: str | int) -> tuple[str, str]:
    """Map a task name, ``N-M`` id, ``0..29`` index or paper name to ``(id, name)``.

    Raises :class:`EnvSpecError` for anything else.
    """
    table = _task_table()
    err = EnvSpecError(f"unknown ScienceWorld task {one_line(task, 80)!r} (see `ariadne games list`)")
    if isinstance(task, bool) or not isinstance(task, (str, int)):
        raise err
    if isinstance(task, int):
        if 0 <= task < len(table):
            return table[task]["task_id"], table[task]["task_name"]
        raise err
    key = " ".join(task.split()).strip().lower()
    if key.startswith("scienceworld:"):
        key = key.split(":", 1)[1].strip()
    if key.isdigit():
        return resolve_scienceworld_task(int(key))
    key = key.replace("mendellian", "mendelian")  # typo in older ScienceWorld names
    key = re.sub(r"^task-(?:\d|a|b)+-", "", key)
    for t in table:
        long_name = f"{t['topic']} {t['task']}".lower()
        if key in (t["task_id"], t["task_name"].lower(), long_name):
            return t["task_id"], t["task_name"]
    raise err


def _parse_simplification(simplification: str | None, task_name: str) -> str:
    if simplification is None:
        return ""
    if not isinstance(simplification, str):
        raise EnvSpecError(f"ScienceWorld simplification must be a string, got {type(simplification).__name__}")
    raw = simplification.replace(" ", "")
    if raw.lower() in ("", "none"):
        return ""
    parts = [p for p in raw.split(",") if p]
    lookup = {s.lower(): s for s in SIMPLIFICATIONS}
    out = []
    for part in parts:
        if part.lower() not in lookup:
            raise EnvSpecError(
                f"unknown ScienceWorld simplification {part!r} (choose from {', '.join(SIMPLIFICATIONS)}, "
                f"comma-separated)"
            )
        out.append(lookup[part.lower()])
    electrical = "power-component" in task_name or "conductivity" in task_name
    if electrical and "noElectricalAction" in out:
        raise EnvSpecError(f"ScienceWorld task {task_name!r} needs electrical actions; drop noElectricalAction")
    return ",".join(out)


# --------------------------------------------------------------------------------------------
# Variations (need a JVM; cached per process)

_SPLIT_CACHE: dict[str, dict[str, list[int]]] = {}


def _split_variations(server: Any, task_name: str) -> dict[str, list[int]]:
    server.load(task_name, 0, "", False)
    return {
        "train": [int(v) for v in server.getVariationsTrain()],
        "dev": [int(v) for v in server.getVariationsDev()],
        "test": [int(v) for v in server.getVariationsTest()],
    }


# --------------------------------------------------------------------------------------------
# Observation parsing

_LOCATION_RE = re.compile(r"^\s*This (?:[\w ]+?) is called the (.+?)\.(?:\s|$)")
_ARTICLE_RE = re.compile(r"^(?:a|an|the)\s+", re.IGNORECASE)


_AMBIGUOUS = "Ambiguous request"
_WHERE_HELD = re.compile(r"\s*\([^()]*\)\s*$")  # a reading's "(in inventory, in agent, in art studio)"
_READING_RE = re.compile(r"^\s*(\d+):\s*(.+?)\s*$", re.MULTILINE)


def resolve_ambiguity(command: str, text: str, step: Any) -> str:
    """ScienceWorld's answer to ``command``, its question settled. A command naming one of several things alike
    ("look at door" in a room of two doors, "look at wood cup" with three cups) is answered by a numbered list of
    readings and a wait for a number: whatever comes next is read as that number ("look at air" then: "Unknown
    action"). The first reading is taken (``step("0")``, the same command, no step of ours spent), and the answer
    says which; but a focus, which cannot be taken back, is not guessed between different things ("focus on door":
    the door to the outside or the one to the hallway): it is cancelled (``step("")``) and the answer lists them."""
    if not text.lstrip().startswith(_AMBIGUOUS):
        return text
    readings = [reading for _, reading in _READING_RE.findall(text)]
    things = {_WHERE_HELD.sub("", reading) for reading in readings}  # "wood cup (in inventory, in agent)": a wood cup
    if command.lower().startswith("focus on") and len(things) > 1:
        step("")
        listed = "; ".join(readings)
        return f"('{command}' could mean {len(readings)} things: {listed}. Nothing was focused on: name the one meant.)"
    answer = step("0")
    if not readings:
        return answer
    return f"('{command}' could mean {len(readings)} things; taken as '{readings[0]}')\n{answer}"


def with_room_entered(text: str, look: str, before: str | None) -> str:
    """The answer to a command that took the player to another room, with that room. ScienceWorld answers 'go to
    hallway' with "You move to the hallway." only ('teleport to kitchen', 'go to door' alike), so what the room held
    and where its doors led stayed unknown until a 'look around' (a room walked through was never seen, its doors
    never on the map); TextWorld describes a room on entering it, and so does this, with the look that takes no game
    time."""
    entered = parse_location(look)
    if entered is None or entered == before or not look.strip():
        return text
    return f"{text.strip()}\n\n{look.strip()}"


def parse_location(look: str) -> str | None:
    """``"This room is called the kitchen. ..."`` -> ``"kitchen"``."""
    match = _LOCATION_RE.match(look or "")
    return match.group(1).strip() if match else None


def parse_inventory(inv: str) -> tuple[str, ...]:
    """``"In your inventory, you see:\\n\\tan orange\\n"`` -> ``("orange",)``."""
    items = []
    for line in (inv or "").splitlines()[1:]:
        item = line.strip()
        if not item or item.lower() == "nothing":
            continue
        items.append(_ARTICLE_RE.sub("", item))
    return tuple(items)


def _goal_from_description(desc: str) -> str:
    return re.sub(r"^\s*task description:\s*", "", desc or "", flags=re.IGNORECASE).strip()


@dataclass
class _Lease:
    """The JVM an env holds; a separate object so a finalizer can return it without the env."""

    pool: JvmPool
    jvm: _Jvm | None = None

    def release(self) -> None:
        jvm, self.jvm = self.jvm, None
        self.pool.release(jvm)

    def discard(self) -> None:
        jvm, self.jvm = self.jvm, None
        self.pool.discard(jvm)


# --------------------------------------------------------------------------------------------
# The env


class ScienceWorldTextEnv:
    """One ScienceWorld task variation as a :class:`~ariadnegraph.envs.base.TextEnv`.

    Build it with :func:`make_scienceworld`. ``reset()`` (re)loads the variation; ``step()`` sends
    one sanitised command; ``close()`` returns the JVM to the pool. After the episode ends (task
    done, failed, or ``max_steps`` commands sent) the JVM goes back to the pool and ``step`` returns
    the final observation again without touching the game. ``goal`` (the task description without
    its "Task Description:" header) is filled in by ``reset()``; ``pid`` is the JVM in use.
    ``max_steps`` counts commands sent, including ones the game did not understand (ScienceWorld's
    own move counter skips free actions such as ``look around``).
    """

    def __init__(
        self,
        *,
        task_id: str,
        task_name: str,
        split: str,
        variation_index: int,
        variation: int,
        simplification: str,
        step_timeout: float,
        reset_timeout: float,
        max_steps: int,
        max_admissible: int | None,
        gold_path: bool,
        pool: JvmPool,
        goal: str = "",
    ):
        self.task_id = task_id
        self.task = task_name
        self.split = split
        self.variation_index = variation_index
        self.variation = variation
        self.simplification = simplification
        self.step_timeout = float(step_timeout)
        self.reset_timeout = float(reset_timeout)
        self.max_steps = int(max_steps)
        self.max_admissible = max_admissible
        self.gold_path = gold_path
        self.spec = f"scienceworld:{task_name}"
        self.goal = goal
        self.max_score = MAX_SCORE
        self._pool = pool
        self._lease = _Lease(pool)
        self._finalizer = weakref.finalize(self, _Lease.release, self._lease)
        self._walkthrough: tuple[str, ...] = ()
        self._steps = 0
        self._active = False
        self._last: Observation | None = None
        self._truth = ScienceWorldTruth()

    def __repr__(self) -> str:
        return (
            f"ScienceWorldTextEnv({self.task!r} [{self.task_id}], {self.split} variation #{self.variation_index}"
            f" = {self.variation}, simplification={self.simplification!r})"
        )

    @property
    def pid(self) -> int | None:
        """pid of the JVM this env holds right now (None between episodes)."""
        return self._lease.jvm.pid if self._lease.jvm is not None else None

    # protocol ---------------------------------------------------------------------------------
    def reset(self) -> Observation:
        task, variation, simpl, gold = self.task, self.variation, self.simplification, self.gold_path
        truth = self._truth = ScienceWorldTruth()

        def load(server: Any) -> dict[str, Any]:
            message = server.load(task, variation, simpl, gold)
            if message and str(message).strip():
                return {"error": str(message)}
            # Like ScienceWorldEnv.reset: score/completion are fields the Scala side refreshes only
            # on a step (after a gold-path load they still hold the gold run's final 100), and
            # "look around" takes no game time.
            snap = {"text": server.step("look around")}
            snap.update(_snapshot(server, truth))
            snap["desc"] = server.freeActionTaskDesc()
            snap["moves"] = int(server.getNumMoves())
            snap["gold"] = list(server.getGoldActionSequence()) if gold else []
            return snap

        self._active = False
        for attempt in (1, 2):  # a JVM that died between episodes is replaced transparently
            self._lease.jvm = self._pool.renew(self._lease.jvm)
            try:
                snap = self._pool.call(self._lease.jvm, load, timeout=self.reset_timeout, what=f"loading {self.spec}")
                break
            except EnvCrashed:
                self._lease.jvm = None  # already discarded by the pool
                if attempt == 2:
                    raise
            except EnvTimeout:
                self._lease.jvm = None
                raise
        if "error" in snap:
            self._lease.release()
            raise EnvSpecError(
                f"ScienceWorld refused {self.spec} variation {variation}: {one_line(snap['error'], 200)}"
            )
        self.goal = _goal_from_description(snap["desc"])
        self._walkthrough = tuple(snap["gold"])
        self._steps = 0
        self._active = True
        text = f"{snap['desc'].strip()}\n\n{snap['text'].strip()}"
        obs = self._observation(text, snap, last_action=None)
        self._last = obs
        if obs.done:  # cannot happen in practice; keep the lease bookkeeping consistent anyway
            self._end_episode()
        return obs

    def step(self, command: str) -> Observation:
        cmd = sanitize_command(command)  # ScienceWorld itself ignores case
        if self._last is None:
            raise EnvError(f"{self.spec}: call reset() before step()")
        if not self._active:
            return _replace_text(self._last, "The episode is over; call reset() to play again.", cmd)
        jvm = self._lease.jvm
        if jvm is None or not jvm.alive():
            self._active = False
            self._lease.discard()
            raise EnvCrashed(
                f"the ScienceWorld JVM{'' if jvm is None else f' (pid {jvm.pid})'} died; call reset() to start again"
            )

        truth = self._truth

        def act(server: Any) -> dict[str, Any]:
            snap = {"text": resolve_ambiguity(cmd, server.step(cmd), server.step)}
            snap.update(_snapshot(server, truth))
            return snap

        try:
            snap = self._pool.call(jvm, act, timeout=self.step_timeout, what=f"command {cmd!r}")
        except EnvError:
            self._active = False
            self._lease.jvm = None  # the pool has killed it
            raise
        self._steps += 1
        text = with_room_entered(snap["text"].strip(), snap["look"], self._last.location)
        obs = self._observation(text, snap, last_action=cmd)
        self._last = obs
        if obs.done:
            self._end_episode()
        return obs

    def close(self) -> None:
        self._active = False
        self._finalizer.detach()
        self._lease.release()

    def __enter__(self) -> "ScienceWorldTextEnv":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # helpers ----------------------------------------------------------------------------------
    def _end_episode(self) -> None:
        self._active = False
        self._lease.release()

    def _observation(self, text: str, snap: dict[str, Any], *, last_action: str | None) -> Observation:
        raw = int(round(100 * float(snap["score"])))
        won = raw >= 100
        lost = raw < 0
        done = bool(snap["completed"]) or won or lost or self._steps >= self.max_steps
        actions = snap["valid"]
        if self.max_admissible is not None:
            actions = actions[: self.max_admissible]
        return Observation(
            text=text,
            admissible_actions=tuple(actions),
            score=float(max(raw, 0)),
            max_score=MAX_SCORE,
            done=done,
            won=won,
            lost=lost,
            location=parse_location(snap["look"]),
            inventory=parse_inventory(snap["inv"]),
            moves=self._steps,
            last_action=last_action,
            oracle=Oracle(
                facts=snap["facts"],
                walkthrough=self._walkthrough,
                extra={
                    IN_OR_ON: True,
                    "task": self.task,
                    "task_id": self.task_id,
                    "split": self.split,
                    "variation": self.variation,
                    "variation_index": self.variation_index,
                    "simplification": self.simplification,
                    "raw_score": raw,
                    "look": snap["look"],
                },
            ),
        )


def _snapshot(server: Any, truth: ScienceWorldTruth) -> dict[str, Any]:
    """Score, completion, look, inventory, valid actions and the true state: all "free" (no game time passes)."""
    valid = json.loads(server.getValidActionObjectCombinationsJSON()).get("validActions", [])
    actions = list(dict.fromkeys(v["action"] for v in valid if v.get("action")))
    return {
        "score": server.getScore(),
        "completed": server.getCompleted(),
        "look": server.freeActionLook(),
        "inv": server.freeActionInventory(),
        "valid": actions,
        "facts": truth.read(server),
    }


def _replace_text(obs: Observation, text: str, cmd: str) -> Observation:
    from dataclasses import replace

    return replace(obs, text=text, last_action=cmd, admissible_actions=())


# --------------------------------------------------------------------------------------------
# Factory


def _variation_index(variation: int | str | None) -> int | None:
    """The variation as an index into the split's list (None: 'random', drawn once the list is known)."""
    if variation is None:
        return 0
    if isinstance(variation, bool):
        raise EnvSpecError(f"ScienceWorld variation must be an index, got {variation!r}")
    if isinstance(variation, int):
        return variation
    if isinstance(variation, str) and variation.strip().lstrip("-").isdigit():
        return int(variation.strip())
    if isinstance(variation, str) and variation.strip().lower() == "random":
        return None
    raise EnvSpecError(f"ScienceWorld variation must be an index or 'random', got {one_line(variation, 40)!r}")


def _split_list(pool: JvmPool, task_name: str, timeout: float) -> dict[str, list[int]]:
    """The task's variations per split, asked of a JVM once per task and process."""
    splits = _SPLIT_CACHE.get(task_name)
    if splits is None:
        jvm = pool.acquire()  # on failure pool.call has already killed it
        splits = pool.call(
            jvm,
            lambda s: _split_variations(s, task_name),
            timeout=timeout,
            what=f"listing the variations of {task_name}",
        )
        pool.release(jvm)
        _SPLIT_CACHE[task_name] = splits
    return splits


def make_scienceworld(
    task: str | int,
    *,
    variation: int | str | None = None,
    split: str = "test",
    simplification: str | None = "easy",
    step_timeout: float = 30.0,
    max_steps: int | None = None,
    reset_timeout: float = 120.0,
    max_admissible: int | None = None,
    gold_path: bool = True,
    pool: JvmPool | None = None,
    seed: int | None = None,
    **_: Any,
) -> ScienceWorldTextEnv:
    """Build a ScienceWorld env (does not reset it).

    ``task``: name (``find-living-thing``), id (``4-1``), index ``0..29`` or paper name.
    ``variation``: index into ``split``'s variation list (``None`` = 0), a numeric string, or
    ``"random"`` (drawn with ``seed``). ``split``: ``train``, ``dev`` or ``test``.
    ``simplification``: ``easy`` (default), ``""``/``none``, or a comma list of ScienceWorld
    simplifications. ``max_steps``: commands per episode (default 80). ``gold_path``: ask
    ScienceWorld for the gold action sequence on each reset (costs ~0.1-1 s per reset).

    Checking the variation needs the JVM once per task (the split lists are cached per process),
    so the first call starts the shared JVM (~1.3 s). Raises :class:`EnvSpecError` (one line) for
    an unknown task, split, simplification or variation.
    """
    task_id, task_name = resolve_scienceworld_task(task)
    if not isinstance(split, str) or split.strip().lower() not in SPLITS:
        raise EnvSpecError(f"unknown ScienceWorld split {one_line(split, 40)!r} (choose train, dev or test)")
    split = split.strip().lower()
    simpl = _parse_simplification(simplification, task_name)
    if max_steps is None:
        max_steps = DEFAULT_MAX_STEPS
    if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1:
        raise EnvSpecError(f"max_steps must be a positive integer, got {max_steps!r}")
    if not step_timeout or step_timeout <= 0:
        raise EnvSpecError(f"step_timeout must be positive, got {step_timeout!r}")

    index = _variation_index(variation)
    pool = pool or jvm_pool()
    choices = _split_list(pool, task_name, reset_timeout)[split]
    if not choices:
        raise EnvSpecError(f"ScienceWorld task {task_name!r} has no {split} variations")
    if index is None:
        index = random.Random(seed).randrange(len(choices))
    if not 0 <= index < len(choices):
        raise EnvSpecError(
            f"ScienceWorld variation {index} out of range for {task_name} {split} split (0..{len(choices) - 1})"
        )
    return ScienceWorldTextEnv(
        task_id=task_id,
        task_name=task_name,
        split=split,
        variation_index=index,
        variation=choices[index],
        simplification=simpl,
        step_timeout=step_timeout,
        reset_timeout=reset_timeout,
        max_steps=max_steps,
        max_admissible=max_admissible,
        gold_path=gold_path,
        pool=pool,
    )
