"""Which stored facts a new fact makes outdated.

AriGraph asks an LLM which incident triplets are outdated; STMA replaces edges of the same shape. We do
the cheap, deterministic part here — facts that cannot both hold — and let callers add an explicit
list of outdated facts (from an LLM) on top. Rules are data so presets and tests can change them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..vocabulary import DIRECTIONS, DOOR_STATES
from .facts import Fact

# A thing is in one place at a time: a new placement closes the old one.
LOCATION_RELATIONS = frozenset({"in", "on", "at", "inside", "held by", "carried by", "located in", "part of"})
# Mutually exclusive states, stored as (thing, "is", state), in any game; a game family adds its own (cooking states:
# envs/families), which the episode's memory is opened with.
STATE_GROUPS = (
    frozenset(DOOR_STATES),
    frozenset({"on", "off", "switched on", "switched off"}),
    frozenset({"edible", "inedible"}),
    frozenset({"consumed", "not consumed"}),
)
# "A north of B": going north from B leads to one room only.
DIRECTION_RELATIONS = frozenset(f"{d} of" for d in DIRECTIONS)


@dataclass(frozen=True)
class ConflictRules:
    """Deterministic rules deciding when an open fact is contradicted by a new one.

    Contradictions are only ever between facts with the same subject, or with the same object and
    relation for ``object_exclusive`` relations; the KG looks for candidates only there.
    """

    subject_exclusive: frozenset[str] = LOCATION_RELATIONS  # one open object per (subject, group)
    object_exclusive: frozenset[str] = DIRECTION_RELATIONS  # one open subject per (object, relation)
    state_relation: str = "is"
    state_groups: tuple[frozenset[str], ...] = field(default=STATE_GROUPS)

    def state_group(self, value: str) -> frozenset[str] | None:
        for group in self.state_groups:
            if value in group:
                return group
        return None

    def contradicts(self, new: Fact, old: Fact) -> bool:
        """True when ``new`` and ``old`` cannot both be true now."""
        if new.key == old.key:
            return False
        if (
            new.relation in self.subject_exclusive
            and old.relation in self.subject_exclusive
            and new.subject_key == old.subject_key
        ):
            return True
        if new.relation in self.object_exclusive and new.relation == old.relation and new.object_key == old.object_key:
            return True
        if new.relation == self.state_relation == old.relation and new.subject_key == old.subject_key:
            group = self.state_group(new.object_key)
            return group is not None and old.object_key in group
        return False


NO_RULES = ConflictRules(subject_exclusive=frozenset(), object_exclusive=frozenset(), state_groups=())
