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
that the design issues what the policy says.  A bug of the policy's choices is
not something the proof can see: it is the spec.  Its contract is: the warp it
chooses is eligible (-1 exactly when none is) and its update keeps every field
within its declared range; the design exports whether it held each cycle
(``models/frontend/design.py``, ``contract_terms``) and the property requires
it in every reachable state, so a breach at any depth is a FAIL naming the
policy, with a witness.  :meth:`UserPolicy.check` tries the contract once from
the initial state before any proof: a mistake it sees there is the user's
(``ConfigError``, exit 2).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from warpcheck.encodings.algebra import SymbolicValue
from warpcheck.encodings.concrete import ConcreteAlgebra
from warpcheck.models.errors import ConfigError, SymbolicBoolError, WarpcheckError
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
        return Policy(self.name, self.summary, lambda A, st, e, k, ctx: _call(self.name, "choose", self.choose, A, st, e),
                      lambda A, st, c, e, ctx: dict(_call(self.name, "update", self.update, A, st, c, e)),
                      lambda ctx: self.fields(ctx.warps), reads_elig=True, contract=True)

    def as_reference(self) -> "UserReference":
        """The policy as the references run it (the specification)."""
        return UserReference(self)

    def check(self, warps: int) -> None:
        """Run choice and update once on solver terms, then concretely from the initial state: one clear error.

        The concrete runs take every eligibility vector up to 6 warps, and at more warps none, all, each
        warp alone and a few fixed random ones.  A mistake of the policy (a Python ``if`` on a value, a
        wrong state record, a choice outside the eligible warps) is the user's: a ``ConfigError``
        naming the policy, the function and the fix, before any proof starts.
        """
        if self._checked.get(warps):
            return
        fs = self.fields(warps)
        self._symbolic_once(fs, warps)
        A, st = ConcreteAlgebra(), {f.name: f.init for f in fs}
        for elig in _eligibility_vectors(warps):
            c = _call(self.name, "choose", self.choose, A, st, elig)
            if not isinstance(c, int) or isinstance(c, bool) or not (-1 <= c < warps) or (c >= 0 and not elig[c]):
                raise ConfigError(f"policy {self.name!r}: choose returned {c!r} for eligible = {elig}; it must "
                                  f"return an eligible warp, or -1 when none is eligible")
            if c == -1 and any(elig):
                raise ConfigError(f"policy {self.name!r}: choose returned -1 although warps are eligible ({elig}); "
                                  "a policy must issue when it can")
            _check_next(self.name, fs, _call(self.name, "update", self.update, A, st, c, elig), elig)
        self._checked[warps] = True

    def _symbolic_once(self, fs: tuple[Field, ...], warps: int) -> None:
        """Choice and update on solver terms, as a proof runs them (a Python ``if`` on a value fails here)."""
        from warpcheck.encodings.z3_algebra import Z3Algebra  # the solver loads only when a policy is checked
        A = Z3Algebra()
        st = {f.name: A.var(f"{self.name}.{f.name}", "int") for f in fs}
        elig = [A.var(f"{self.name}.eligible{w}", "bool") for w in range(warps)]
        c = _call(self.name, "choose", self.choose, A, st, elig)
        if isinstance(c, bool) or not isinstance(c, (int, SymbolicValue)):
            raise ConfigError(f"policy {self.name!r}: choose returned {_short(c)}; it must return a warp number "
                              "(an integer value of the algebra A, -1 when none is eligible)")
        nxt = _call(self.name, "update", self.update, A, st, c, elig)
        names = [f.name for f in fs]
        if not isinstance(nxt, Mapping) or sorted(nxt) != sorted(names):
            raise ConfigError(f"policy {self.name!r}: update must return the fields {names} of its state record, "
                              f"returned {_short(nxt)}")


def _short(value: Any) -> str:
    """A value's repr on one line, clipped (a solver term can be long)."""
    text = " ".join(repr(value).split())
    return text if len(text) <= 120 else text[:117] + "..."


def _eligibility_vectors(warps: int) -> list[list[bool]]:
    """Every vector up to 6 warps; beyond, none, all, each warp alone and 32 fixed random ones."""
    if warps <= 6:
        return [[bool(bits >> w & 1) for w in range(warps)] for bits in range(1 << warps)]
    rng = random.Random(warps)
    singles = [[w == x for w in range(warps)] for x in range(warps)]
    return [[False] * warps, [True] * warps, *singles, *([rng.random() < 0.5 for _ in range(warps)] for _ in range(32))]


def _call(policy: str, name: str, fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)``; an exception in the user's function is a ``ConfigError`` naming the policy, the function, the fix."""
    try:
        return fn(*args)
    except SymbolicBoolError:
        raise ConfigError(f"policy {policy!r}: {name} uses a Python if/and/or/not (or bool()) on a value of the "
                          "algebra, which is symbolic in a proof; write A.ite(cond, a, b), A.and_, A.or_, A.not_ "
                          "instead") from None
    except WarpcheckError:
        raise
    except Exception as e:  # noqa: BLE001 - the user's code failed: their error, said with its own words
        first = str(e).splitlines()[0][:160] if str(e) else ""
        raise ConfigError(f"policy {policy!r}: {name} raised {type(e).__name__}: {first}; {name} must be a pure "
                          "function of " + ("(A, st, chosen, eligible)" if name == "update" else "(A, st, eligible)")
                          + " using only the operations of A (docs/api.md)") from None


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
        return _call(self.name, "choose", self.user.choose, A, st, elig)

    def next(self, A: Any, st: Mapping[str, Any], chosen: Any, n: int, elig: Sequence[Any] = ()) -> dict[str, Any]:
        return dict(_call(self.name, "update", self.user.update, A, st, chosen, elig))


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
