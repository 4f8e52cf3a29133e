"""Scheduling policies of your own: a state record, a choice and an update, written over the model's value algebra.

A policy is three pure functions of an algebra ``A`` (the same code runs on
Python ints in the simulator and on solver terms in a proof; see
``docs/api.md`` for the operations ``A`` offers):

- ``state(W)``: its state record, ``{field: (lowest, highest, initial)}``;
- ``choose(A, st, eligible)``: the warp it issues (fetches) among the
  eligible ones (a list of W booleans), or ``-1`` when none is eligible;
- ``update(A, st, chosen, eligible)``: its next state record.

Registered under its name, it is a policy like the kit's own in ``prove``,
``simulate`` and ``replay``.  It is also the *specification*: a proof runs it
in the design (fetch, ibuffers, the SWaS coupling of fetch and issue) and, as
the reference, in the machine a static analysis would use; what is checked is
that the design issues what the policy says.  A bug of the policy itself is
not something the proof can see: it is the spec.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from warpcheck.encodings.concrete import ConcreteAlgebra
from warpcheck.models.errors import ConfigError
from warpcheck.models.frontend.config import POLICY_ALIASES
from warpcheck.models.frontend.policies import POLICIES, Field, Policy
from warpcheck.spec.frontend.priority_lists import USER_REFERENCES

StateSpec = Mapping[str, tuple[int, int, int]]
Choose = Callable[[Any, Mapping[str, Any], Sequence[Any]], Any]
Update = Callable[[Any, Mapping[str, Any], Any, Sequence[Any]], Mapping[str, Any]]

__all__ = ["UserPolicy", "register_policy", "unregister_policy"]


@dataclass(frozen=True)
class UserPolicy:
    """A warp-scheduling policy written by the user: its state record, its choice and its update.

    ``state`` is ``{field: (lowest, highest, initial)}`` or a function of the
    number of warps W returning it; ``choose(A, st, eligible)`` returns the
    chosen warp (``-1``: none); ``update(A, st, chosen, eligible)`` returns the
    next state record (the same fields).  Use only the algebra ``A`` on values
    (``A.ite``, never a Python ``if`` on a value: a symbolic value refuses it).
    """

    name: str
    state: StateSpec | Callable[[int], StateSpec]
    choose: Choose
    update: Update
    summary: str = "a policy defined by the user"
    _checked: dict[int, bool] = field(default_factory=dict, compare=False, repr=False)

    def fields(self, warps: int) -> tuple[Field, ...]:
        """The state record at ``warps`` warps, as the kit's fields (checked: lowest <= initial <= highest)."""
        spec = self.state(warps) if callable(self.state) else self.state
        if not isinstance(spec, Mapping) or not spec:
            raise ConfigError(f"policy {self.name!r}: state must be a non-empty {{field: (lowest, highest, initial)}} "
                              f"mapping, not {spec!r}")
        return tuple(_field(self.name, n, v) for n, v in spec.items())

    def as_policy(self) -> Policy:
        """The policy as the design runs it."""
        return Policy(self.name, self.summary, lambda A, st, e, k, ctx: self.choose(A, st, e),
                      lambda A, st, c, e, ctx: dict(self.update(A, st, c, e)),
                      lambda ctx: self.fields(ctx.warps), reads_elig=True)

    def as_reference(self) -> "UserReference":
        """The policy as the references run it (the specification)."""
        return UserReference(self)

    def check(self, warps: int) -> None:
        """Run choice and update once on every eligibility vector from the initial state (W <= 6): one clear error."""
        if self._checked.get(warps) or warps > 6:
            return
        A, fs = ConcreteAlgebra(), self.fields(warps)
        st = {f.name: f.init for f in fs}
        for bits in range(1 << warps):
            elig = [bool(bits >> w & 1) for w in range(warps)]
            c = self.choose(A, st, elig)
            if not isinstance(c, int) or isinstance(c, bool) or not (-1 <= c < warps) or (c >= 0 and not elig[c]):
                raise ConfigError(f"policy {self.name!r}: choose returned {c!r} for eligible = {elig}; it must "
                                  f"return an eligible warp, or -1 when none is eligible")
            if c == -1 and any(elig):
                raise ConfigError(f"policy {self.name!r}: choose returned -1 although warps are eligible ({elig}); "
                                  "a policy must issue when it can")
            _check_next(self.name, fs, self.update(A, st, c, elig), elig)
        self._checked[warps] = True


def _field(policy: str, name: Any, value: Any) -> Field:
    ok = isinstance(name, str) and name.isidentifier() and isinstance(value, tuple) and len(value) == 3 \
        and all(isinstance(x, int) and not isinstance(x, bool) for x in value)
    if not ok or not value[0] <= value[2] <= value[1]:
        raise ConfigError(f"policy {policy!r}: state field {name!r} = {value!r} must be (lowest, highest, initial) "
                          "integers with lowest <= initial <= highest, under an identifier")
    return Field(name, value[0], value[1], value[2])


def _check_next(policy: str, fs: tuple[Field, ...], nxt: Any, elig: list[bool]) -> None:
    names = [f.name for f in fs]
    if not isinstance(nxt, Mapping) or sorted(nxt) != sorted(names):
        raise ConfigError(f"policy {policy!r}: update must return the fields {names}, returned {nxt!r}")
    for f in fs:
        v = nxt[f.name]
        if isinstance(v, bool) or not isinstance(v, int) or not f.lo <= v <= f.hi:
            raise ConfigError(f"policy {policy!r}: update set {f.name} = {v!r} (eligible = {elig}), outside its "
                              f"range {f.lo} .. {f.hi}")


class UserReference:
    """A user's policy seen from the references: the interface of ``reference_policies.RefPolicy``."""

    strict, uses_keys = False, False

    def __init__(self, user: UserPolicy) -> None:
        self.user, self.name = user, user.name

    def fields(self, n: int) -> list[tuple[str, int, int]]:
        return [(f.name, f.lo, f.hi) for f in self.user.fields(n)]

    def init(self, A: Any, n: int) -> dict[str, Any]:
        return {f.name: A.const(f.init) for f in self.user.fields(n)}

    def choose(self, A: Any, st: Mapping[str, Any], elig: Sequence[Any], keys: Sequence[Any]) -> Any:
        return self.user.choose(A, st, elig)

    def next(self, A: Any, st: Mapping[str, Any], chosen: Any, n: int, elig: Sequence[Any] = ()) -> dict[str, Any]:
        return dict(self.user.update(A, st, chosen, elig))


_MINE: dict[str, UserPolicy] = {}  # the policies registered here, so the kit's own are never replaced


def register_policy(policy: UserPolicy, warps: int | None = None) -> str:
    """Make ``policy`` known by its name to every design, reference and verb; return the name.

    Registering a policy of the same name again replaces it (a re-run
    notebook cell); a name of the kit's own policies is refused.
    """
    if not isinstance(policy, UserPolicy):
        raise ConfigError(f"policy {policy!r} is neither a policy name nor a warpcheck.UserPolicy")
    name = policy.name
    taken = (name in POLICIES and name not in _MINE) or name in POLICY_ALIASES
    if not isinstance(name, str) or not name or taken:
        raise ConfigError(f"policy name {name!r} is taken by the kit (or empty); its policies are: "
                          f"{', '.join(p for p in POLICIES if p not in _MINE)}; choose another name")
    if warps is not None:
        policy.check(warps)
    _MINE[name] = policy
    POLICIES[name] = policy.as_policy()
    USER_REFERENCES[name] = policy.as_reference()
    return name


def unregister_policy(name: str) -> None:
    """Forget a policy registered with :func:`register_policy` (the kit's own stay)."""
    if _MINE.pop(name, None) is not None:
        POLICIES.pop(name, None)
        USER_REFERENCES.pop(name, None)


def policy_name(policy: str | UserPolicy | None, warps: int, default: str | None) -> str | None:
    """The name to put in a configuration: a user's policy is checked at ``warps`` and registered first."""
    if isinstance(policy, UserPolicy):
        return register_policy(policy, warps)
    return default if policy is None else policy
