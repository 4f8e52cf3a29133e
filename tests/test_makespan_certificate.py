"""Certificates: the committed ones hold, every tampered one is refused, and the checker agrees with the searches."""
import itertools
import json
from fractions import Fraction
import pathlib

import pytest
from hypothesis import assume, event, given, settings, strategies as st

from warpcheck.cli.main import main
from warpcheck._makespan.certificate import certificate
from warpcheck.models.makespan.kernel import make_kernel
from warpcheck.models.makespan.sm import CountSM
from warpcheck.spec.makespan.certificate_check import CertificateRefused, check, check_bound, read_bound
from warpcheck.sim.makespan.enum import CountMoves, worst_case, worst_case_per_warp
from warpcheck.verify.makespan.abstract import abstract_search

EXAMPLES = pathlib.Path(__file__).parent.parent / "examples" / "makespan"
PAPER = [("llcll-w600.cert.json", 600, 2401, "makespan = 4 W + 1"),
         ("lclcl-w420-sigmaL-half.cert.json", 420, 2522, "makespan = 6 W + 2")]


def _load(name):
    return json.loads((EXAMPLES / name).read_text())


@pytest.mark.parametrize("name,warps,value,formula", PAPER)
def test_paper_certificates_hold(name, warps, value, formula):
    """Each proves its W, and with its pump the closed form for every W >= 16 (the paper computed one W each)."""
    r = check(_load(name))
    assert (r.warps, r.makespan, r.upper) == (warps, value, value) and r.weight == "deficit"
    assert (r.exact_formula, r.exact_from, r.period) == (formula, 16, 1)


def _claim_more(c):
    c["makespan"] += 1


def _lower_init_potential(c):
    row = next(r for r in c["bound"]["states"] if r[0] > 0 and not any(r[1:-1]))
    row[-1] -= 1


def _lower_every_potential(c):
    for row in c["bound"]["states"]:
        row[-1] = max(0, row[-1] - 1)


def _drop_a_state(c):
    c["bound"]["states"] = [r for r in c["bound"]["states"] if not (r[0] > 0 and not any(r[1:-1]))][:-1] + \
        [r for r in c["bound"]["states"] if r[0] > 0 and not any(r[1:-1])]


def _move_an_issue(c):
    c["schedule"][0][-1] += 1


def _shrink_the_cap(c):
    c["bound"]["cap"] = 0


def _other_warps(c):
    c["warps"] += 1


def _other_sigma(c):
    c["sigma"]["L"] = "2"


def _pump_longer(c):
    c["pump"]["repeat"][-1][1] += 1


def _pump_base_changed(c):
    c["pump"]["schedule"][-1][-1] += 1


TAMPERS = [_claim_more, _lower_init_potential, _lower_every_potential, _drop_a_state, _move_an_issue,
           _shrink_the_cap, _other_warps, _other_sigma, _pump_longer, _pump_base_changed]


@pytest.mark.parametrize("tamper", TAMPERS, ids=[t.__name__ for t in TAMPERS])
def test_tampered_paper_certificate_is_refused(tamper):
    c = _load(PAPER[0][0])
    tamper(c)
    with pytest.raises(CertificateRefused):
        check(c)


def _enum_certificate(text, sigma, warps):
    k = make_kernel(text, sigma)
    r = worst_case(k, warps)
    return certificate(text, {u: str(v) for u, v in sigma.items()}, warps, r.schedule, ("enumerate", r)), r


@settings(max_examples=25, deadline=None)
@given(text=st.text(alphabet="LCM", min_size=1, max_size=5), sig=st.sampled_from(["1", "2", "1/2"]),
       warps=st.integers(1, 3), pick=st.integers(0, 10 ** 6))
def test_enumeration_certificate_holds_and_any_lowered_potential_is_refused(text, sig, warps, pick):
    sigma = {u: sig if u == "L" else "1" for u in sorted(set(text))}
    c, r = _enum_certificate(text, sigma, warps)
    assert check(c).makespan == r.makespan == worst_case_per_warp(make_kernel(text, sigma), warps)
    rows = c["bound"]["states"]
    rows[pick % len(rows)][-1] -= 1  # the value function is tight everywhere: no entry can go lower
    with pytest.raises(CertificateRefused):
        check(c)


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(text=st.text(alphabet="LC", min_size=1, max_size=5), sig=st.sampled_from(["1", "2", "1/2"]),
       warps=st.integers(1, 6))
def test_deficit_certificate_holds_whenever_deficit_is_exact(text, sig, warps):
    sigma = {u: sig if u == "L" else "1" for u in sorted(set(text))}
    k = make_kernel(text, sigma)
    r = abstract_search(k, warps, budget=5)
    if r.exact:
        c = certificate(text, sigma, warps, r.schedule, ("deficit", r))
        assert check(c).makespan == worst_case(k, warps).makespan


def test_cli_writes_checks_and_refuses(tmp_path, capsys):
    path = tmp_path / "c.json"
    assert main(["makespan", "CLLC", "-W", "8", "--sigma", "L=1", "--sigma", "C=1", "--method", "enumerate",
                 "--certificate", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["certificate"] == str(path)
    assert main(["makespan", "--check", str(path)]) == 0
    assert "is exactly 18" in capsys.readouterr().out
    c = json.loads(path.read_text())
    c["makespan"] -= 1
    path.write_text(json.dumps(c))
    assert main(["makespan", "--check", str(path), "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["valid"] is False


@pytest.mark.parametrize("argv,msg", [
    (["--check", "/nonexistent/c.json"], "cannot read it"),
    (["LC", "-W", "2", "--sigma", "L=1", "--sigma", "C=1", "--method", "smt", "--certificate", "x.json"],
     "--certificate x.json: a certificate comes from the methods"),
    (["--warps", "2"], "nothing to compute: give a kernel"),
    (["LC", "-W", "2", "--sigma", "L=1/1000", "--sigma", "C=1"], "out of range; use n or 1/n with n from 1 to 16"),
])
def test_certificate_bad_input_is_one_line(capsys, argv, msg):
    assert main(["makespan", *argv]) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1


def test_deficit_table_of_llcll_bounds_every_w():
    c = _load(PAPER[0][0])
    assert check(c).every_w_from == 1
    init = next(row for row in c["bound"]["states"] if row[0] > 0 and not any(row[1:-1]))
    assert init[-1] == 1  # D_L <= 1: the table proves makespan <= 4W + 1 for every W >= 1


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(text=st.text(alphabet="LC", min_size=1, max_size=5), sig=st.sampled_from(["1", "2", "1/2"]),
       other=st.sampled_from(["1", "1/2"]), warps=st.integers(1, 6))
def test_ranking_bound_is_sound_and_its_certificate_holds_when_exact(text, sig, other, warps):
    from warpcheck.verify.makespan.ranking import ranking_search

    sigma = {u: sig if u == "L" else other for u in sorted(set(text))}
    k = make_kernel(text, sigma)
    oracle = worst_case(k, warps).makespan
    r = ranking_search(k, warps, budget=10, max_extra=1)
    assert r.makespan <= oracle and (r.upper is None or r.upper >= oracle)
    if r.exact:
        c = certificate(text, sigma, warps, r.schedule, ("ranking", r))
        assert check(c).makespan == oracle


def _ranking_certificate():
    from warpcheck.verify.makespan.ranking import ranking_search

    k = make_kernel("LLC", {"L": 1, "C": "1/2"})
    r = ranking_search(k, 30)
    assert r.exact and r.makespan == 91 == worst_case(k, 30).makespan  # 3W + 1: above the busiest unit's 2W
    return certificate("LLC", {"L": "1", "C": "1/2"}, 30, r.schedule, ("ranking", r))


def test_ranking_certificate_beyond_the_deficit_method_holds_for_every_w():
    r = check(_ranking_certificate())
    assert r.every_w_from == 1 and r.formula == "makespan <= floor(3 W + 1)"


@pytest.mark.parametrize("tamper", ["lower_slope", "change_the_last_coefficient", "lower_a_potential"])
def test_tampered_ranking_certificate_is_refused(tamper):
    c = _ranking_certificate()
    lin = c["bound"]["linear"]
    if tamper == "lower_slope":
        lin[0] = "5/2"
    elif tamper == "change_the_last_coefficient":
        lin[-1] = "4"
    else:
        row = max(c["bound"]["states"], key=lambda r: sum(r[:-1]))
        row[-1] = str(Fraction(row[-1]) - 1)
    with pytest.raises(CertificateRefused):
        check(c)


# ---- per-phase caps and symbolic moves, against a brute-force representative checker ----

class _LowCap(Exception):
    pass


class _Brute:
    """The oracle: every concrete state of every capped entry, stepped by the search's compiled moves.

    A count at its cap K_p is tried from K_p to K_p + max cap + max sigma: a larger count issues at most sigma
    warps, so its moves are those of a tried one, with its own next count or its successor's at or above every
    cap.  Slower than the checker by the product of those ranges; tiny instances only.
    """

    def __init__(self, kernel, caps, linear=None, unit=None):
        self.sm = CountSM(kernel, 1)
        self.moves = CountMoves(self.sm)
        self.caps, self.unit, self.P = tuple(caps), unit, len(caps)
        self.c = [Fraction(v) for v in (linear or [0] * self.P)] + [Fraction(0)]
        self.sigma = {u: kernel.sigma_of(u) for u in kernel.units}
        self.spread = max(caps) + max(self.sigma.values())
        self.wait = [self.sm.phases[p].is_wait for p in range(self.P)]

    def _free_ready(self, n, u):
        return self.sigma[u] - sum(n[p] for p in self.sm.holders_on(u)), sum(n[p] for p in self.sm.waits_on(u))

    def edges(self, a):
        """(weight, next entry, drop) of every move of every concrete state of entry a."""
        for n in itertools.product(*[range(k, k + self.spread + 1) if v == k else (v,) for v, k in zip(a, self.caps)]):
            if any(self._free_ready(n, u)[0] < 0 for u in self.sigma):
                continue
            low = [p for p, (v, k) in enumerate(zip(a, self.caps)) if v == k < self.sigma[self.sm.unit_of(p)]]
            if any(self.wait[p] for p in low):
                raise _LowCap  # a wait phase capped below sigma: the checker refuses the entry
            free, ready = self._free_ready(n, self.unit) if self.unit else (0, 0)
            for issued, nxt in self.moves.successors(tuple(n) + (0,)):
                left = [dict(issued).get(p, 0) if self.wait[p] else n[p] for p in range(self.P)]
                drop = sum((m * (self.c[p] - self.c[p + 1]) for p, m in enumerate(left)), Fraction(0))
                yield max(0, free - ready) if self.unit else 1, tuple(map(min, nxt[:-1], self.caps)), drop

    def accepts(self, table):
        done = (0,) * self.P
        try:
            return all((b in table or b == done) and pot + drop >= w + table.get(b, table.get(done, 0))
                       for a, pot in table.items() if a != done for w, b, drop in self.edges(a))
        except _LowCap:
            return False

    def graph(self, start):
        """Every entry reachable from ``start``, with its edges."""
        out, todo = {}, [start]
        while todo:
            a = todo.pop()
            if a not in out:
                out[a] = set(self.edges(a)) if any(a) else set()
                todo += [b for _, b, _ in out[a] if b not in out]
        return out

    def potential(self, graph):
        """A tight potential (every entry has a move where it drops by exactly the weight), or None if none exists."""
        g = {a: Fraction(0) for a in graph}
        for _ in range(len(graph) + 1):
            new = {a: max([w - d + g[b] for w, b, d in es], default=Fraction(0)) for a, es in graph.items()}
            if new == g:
                return g
            g = new
        return None


def _phase_kinds(kernel):
    """Per phase of the transformed kernel: its unit, whether it waits, whether it holds a slot."""
    return [(i.unit, s == 0, s > 0 and not i.pipelined) for i in kernel.instrs for s in range(i.latency)]


def _bound_of(caps, g, weight="deficit", unit=None, linear=None):
    out = {"method": "test", "cap": list(caps), "weight": weight, "unit": unit,
           "states": [list(a) + [str(v)] for a, v in g.items()]}
    if linear:
        out["linear"] = [str(v) for v in linear]
    return out


def _symbolic_accepts(kernel, bound):
    try:
        check_bound(kernel, read_bound(kernel, bound))
        return True
    except CertificateRefused:
        return False


@st.composite
def _capped_tables(draw):
    tokens = draw(st.lists(st.sampled_from(["L", "C", "C2", "C2p", "L2"]), min_size=1, max_size=3))
    sigma = {u: draw(st.sampled_from(["1", "2", "1/2"])) for u in sorted(set("".join(tokens)) - set("2p"))}
    k = make_kernel(" ".join(tokens), sigma)
    kinds = _phase_kinds(k)
    assume(len(kinds) <= 4)
    caps = [max(1, k.sigma_of(u) + draw(st.integers(-1, 1))) if w else draw(st.integers(1, 3)) for u, w, _ in kinds]
    if draw(st.booleans()):
        caps = [draw(st.integers(1, 3))] * len(kinds)  # the single-cap form of the older certificates
    unit = draw(st.sampled_from([None, *k.units]))
    linear = [0] * (len(kinds) + 1)  # c_p - c_{p+1} >= 0 on busy phases, as the checker requires
    for p in reversed(range(len(kinds))):
        linear[p] = linear[p + 1] + (draw(st.integers(0 if kinds[p][1] else 1, 3)) if unit is None else 0)
    linear = linear[:-1]
    return k, caps, unit, linear, draw(st.sampled_from(["keep", "lower", "drop", "raise"])), draw(st.randoms())


def _same_verdict(case):
    k, caps, unit, linear, tamper, rnd = case
    brute = _Brute(k, caps, linear, unit)
    try:
        graph = brute.graph((min(3, caps[0]),) + (0,) * (len(caps) - 1))
        g = brute.potential(graph)
    except _LowCap:
        graph, g = {(min(3, caps[0]),) + (0,) * (len(caps) - 1): set()}, None
    if g is None:  # no potential exists (a weight on a cycle): any table must be refused by both
        g = {a: Fraction(rnd.randint(0, 6)) for a in graph}
    a = rnd.choice(sorted(g))
    if tamper == "lower":
        g[a] -= 1
    elif tamper == "raise":
        g[a] += 1
    elif tamper == "drop" and len(g) > 1:
        del g[a]
    bound = _bound_of(caps, g, "cycles" if unit is None else "deficit", unit, linear if any(linear) else None)
    verdict = brute.accepts(g)
    event(f"{'accepted' if verdict else 'refused'} ({tamper})")
    assert _symbolic_accepts(k, bound) == verdict


@settings(max_examples=40, deadline=None)
@given(case=_capped_tables())
def test_symbolic_moves_accept_exactly_what_the_representatives_accept(case):
    _same_verdict(case)


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(case=_capped_tables())
def test_symbolic_moves_accept_exactly_what_the_representatives_accept_more_cases(case):
    _same_verdict(case)


PER_PHASE = [("L C2 L", {"L": "1", "C": "2"}, [1, 2, 3, 1]),  # wait caps sigma, the slot holder sigma + 1
             ("L C3p L", {"L": "1", "C": "1"}, [1, 1, 2, 3, 1]),  # pipelined busy stages with caps of their own
             ("LLCLL", {"L": "1", "C": "1"}, [1, 1, 2, 1, 2])]


def _per_phase_certificate(text, sigma, caps, warps=6):
    k = make_kernel(text, sigma)
    brute = _Brute(k, caps, unit="L")
    g = brute.potential(brute.graph((min(warps, caps[0]),) + (0,) * (len(caps) - 1)))
    r = worst_case(k, warps)
    return certificate(text, sigma, warps, r.schedule, ("enumerate", r)) | {"bound": _bound_of(caps, g, unit="L")}, r


@pytest.mark.parametrize("text,sigma,caps", PER_PHASE)
def test_per_phase_certificate_holds(text, sigma, caps):
    c, r = _per_phase_certificate(text, sigma, caps)
    got = check(c)
    assert (got.makespan, got.upper, got.every_w_from) == (r.makespan, r.makespan, caps[0])


def _lower_the_initial_potential(c):
    row = next(r for r in c["bound"]["states"] if r[0] > 0 and not any(r[1:-1]))
    row[-1] = str(Fraction(row[-1]) - 1)


def _lower_a_potential(c):
    row = max(c["bound"]["states"], key=lambda r: (Fraction(r[-1]), r[:-1]))
    row[-1] = str(Fraction(row[-1]) - 1)


def _drop_an_entry(c):
    c["bound"]["states"] = [r for r in c["bound"]["states"] if not (r[0] == 0 and sum(r[1:-1]) == 1 and r[-2] == 1)]


def _wait_cap_below_sigma(c):  # phase 1 waits on C, sigma 2: cap it at 1
    c["bound"]["cap"][1] = 1
    rows = {tuple(r[:1] + [min(r[1], 1)] + r[2:-1]): r[-1] for r in c["bound"]["states"]}
    c["bound"]["states"] = [list(a) + [v] for a, v in rows.items()]


def _cap_list_too_short(c):
    c["bound"]["cap"] = c["bound"]["cap"][:-1]


def _cap_not_a_number(c):
    c["bound"]["cap"][0] = "1"


@pytest.mark.parametrize("tamper,msg", [
    (_lower_the_initial_potential, "the potential proves makespan <= 13, not 14"),
    (_lower_a_potential, "does not drop enough"),
    (_drop_an_entry, "is not in the table"),
    (_wait_cap_below_sigma, "wait phase 1 at its cap 1, below the sigma of its unit"),
    (_cap_list_too_short, "is not a positive integer nor a list of 4 positive integers"),
    (_cap_not_a_number, "is not a positive integer nor a list of 4 positive integers"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_tampered_per_phase_certificate_is_refused(tamper, msg):
    c, _ = _per_phase_certificate(*PER_PHASE[0])
    tamper(c)
    with pytest.raises(CertificateRefused, match=msg):
        check(c)


def test_a_cap_list_of_one_value_is_the_single_cap():
    c = _load(PAPER[0][0])
    c["bound"]["cap"] = [1] * 5
    assert check(c).upper == 2401


@pytest.mark.parametrize("text,sigma,caps,linear", [
    ("L C2p L", {"L": "1", "C": "1"}, (1, 1, 1, 2), [3, 3, 3, 1]),  # a capped busy phase feeding a wider cap
    ("L C2p L", {"L": "1", "C": "1"}, (1, 1, 1, 2), [5, 5, 3, 1]),
    ("L C2 L", {"L": "1", "C": "2"}, (1, 2, 1, 2), None),  # a slot holder capped below sigma: counts 1 and 2
])
def test_tight_per_phase_potential_holds_and_needs_every_entry(text, sigma, caps, linear):
    """The tight potential (from the brute-force graph) holds; without any one entry, it does not."""
    k = make_kernel(text, sigma)
    brute = _Brute(k, caps, linear, None if linear else "L")
    g = brute.potential(brute.graph((min(3, caps[0]),) + (0,) * (len(caps) - 1)))
    weight = "cycles" if linear else "deficit"
    assert _symbolic_accepts(k, _bound_of(caps, g, weight, None if linear else "L", linear))
    init = (min(3, caps[0]),) + (0,) * (len(caps) - 1)
    for a in g:
        if any(a) and a != init:
            assert not _symbolic_accepts(k, _bound_of(caps, {b: v for b, v in g.items() if b != a}, weight,
                                                       None if linear else "L", linear)), a


@pytest.mark.parametrize("text", ["LLLLLLLL", "LCLCLCLCL", "LC2pLC3L"])
def test_all_subsets_table_with_a_linear_potential_holds(text):
    """Every 0/1 entry (cap 1), g = 0, c_p = P - p: each cycle moves a warp a phase on, so Psi drops by 1 or more."""
    k = make_kernel(text, {"L": "1", "C": "1"})
    P = len(_phase_kinds(k))
    g = {a: Fraction(0) for a in itertools.product((0, 1), repeat=P)}
    assert _symbolic_accepts(k, _bound_of([1] * P, g, "cycles", None, [P - p for p in range(P)]))
    assert not _symbolic_accepts(k, _bound_of([1] * P, g, "cycles", None, [P - p - 1 for p in range(P)]))


def test_caps_far_apart_are_refused_not_enumerated():
    """A capped busy count feeding a phase capped at 50,000 would stand for 50,000 next entries: one line, at once."""
    k = make_kernel("L C2p L", {"L": "1", "C": "1"})
    bound = _bound_of([1, 1, 1, 50_000], {(0, 0, 1, 0): Fraction(5)}, "cycles", None, [4, 3, 2, 1])
    with pytest.raises(CertificateRefused, match=r"state \[0, 0, 1, 0\] has a move to more than 10000 next entries"):
        check_bound(k, read_bound(k, bound))
