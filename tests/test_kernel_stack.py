"""The activation stack on the slides' example, step by step, as in the slides' tables."""
from __future__ import annotations

from warpcheck.models.kernels import simt_stack as st
from warpcheck.models.kernels.abstract_stack import from_concrete
from warpcheck.models.kernels.warp_cfg import END
from warpcheck.sim.kernels.simt import run_warp
from warpcheck.spec.kernels.thread_ops import WarpInputs

from kernel_fixtures import ROOT, kernel, warp_cfg

SLIDES = ROOT / "examples" / "sass" / "slides.sass"
ALL8 = 0b11111111
P0 = 0b00000111  # threads 0..2 take the branch: "1110 0000" with thread 0 leftmost


def table(stack):
    return st.render(stack, 8)


def test_ssy_then_divergent_bra_matches_the_slides_table():
    stack = st.ssy(st.initial(ALL8, 0x40), 0xA8, 0x48)
    assert table(stack) == ["0x48 11111111 NIL", "0xa8 11111111 SSY"]
    stack = st.branch(stack, P0, 0x88, 0x50, "sass")
    assert table(stack) == ["0x88 11100000 NIL", "0x50 00011111 NIL", "0xa8 11111111 SSY"]


def test_sync_empties_the_running_entry_then_pops_to_b_then_to_d():
    stack = st.branch(st.ssy(st.initial(ALL8, 0x40), 0xA8, 0x48), P0, 0x88, 0x50, "sass")
    at_sync = st.goto(stack, 0xA0, "sass")
    assert table(st.deactivate(at_sync, P0)) == ["0xa0 00000000 NIL", "0x50 00011111 NIL", "0xa8 11111111 SSY"]
    in_b = st.sync(at_sync, P0, 0xA8)
    assert table(in_b) == ["0x50 00011111 NIL", "0xa8 11111111 SSY"]
    in_d = st.sync(st.goto(in_b, 0x80, "sass"), ~P0 & ALL8, 0x88)
    assert table(in_d) == ["0xa8 11111111 SSY"]


def test_uniform_branch_does_not_push():
    stack = st.ssy(st.initial(ALL8, 0x40), 0xA8, 0x48)
    assert table(st.branch(stack, ALL8, 0x88, 0x50, "sass")) == ["0x88 11111111 NIL", "0xa8 11111111 SSY"]
    assert table(st.branch(stack, 0, 0x88, 0x50, "sass")) == ["0x50 11111111 NIL", "0xa8 11111111 SSY"]


def test_exit_removes_threads_everywhere_and_pops_empty_entries():
    stack = st.branch(st.ssy(st.initial(ALL8, 0x40), 0xA8, 0x48), P0, 0x88, 0x50, "sass")
    after = st.exit_threads(stack, P0, 0x90, "sass")
    assert table(after) == ["0x50 00011111 NIL", "0xa8 00011111 SSY"]
    assert st.exit_threads(after, ALL8, 0x58, "sass") == ()


def test_ptx_divergence_reconverges_at_the_immediate_post_dominator():
    stack = st.initial(ALL8, 0)
    div = st.branch(stack, P0, 10, 5, "ptx", ipdom=20)
    assert [(e.pc, e.mask, e.kind, e.rpc) for e in div] == [(20, ALL8, "REC", None), (5, ~P0 & ALL8, "NIL", 20),
                                                            (10, P0, "NIL", 20)]
    assert st.goto(div, 20, "ptx") == div[:2]
    assert st.goto(st.goto(div, 20, "ptx"), 20, "ptx") == (st.Entry(20, ALL8, "REC", None),)


def test_the_warp_level_cfg_has_the_slides_abstract_states():
    w = warp_cfg(SLIDES)
    k = kernel(SLIDES)
    target1, b, target2 = k.labels["TARGET1"], k.labels["TARGET1"] - 3, k.labels["TARGET2"]
    stacks = [w.graph.nodes[n]["stack"] for n in w.graph.nodes if n != END]
    shapes = {tuple((e.pc, e.kind) for e in reversed(s)) for s in stacks}
    assert ((target1, "NIL"), (b, "NIL"), (target2, "SSY")) in shapes  # divergent: C runs, B waits, D after
    assert ((b, "NIL"), (target2, "SSY")) in shapes                      # after C's SYNC
    assert ((target2, "SSY"),) in shapes                                  # reconverged at D


def test_a_concrete_run_of_the_slides_example_follows_a_c_b_d():
    k = kernel(SLIDES)
    run = run_warp(k, WarpInputs(params={"n": 3}), threads=8)
    labels = [w for w in (warp_cfg(SLIDES).cfg.blocks[b].label for b, _ in run.steps)]
    masks = [m for _, m in run.steps]
    assert labels == ["pc0", "TARGET1", "pc4", "TARGET2"]
    assert masks == [ALL8, P0, ~P0 & ALL8, ALL8]
    assert all(warp_cfg(SLIDES).node_of(from_concrete(s)) is not None for s in run.stacks[:-1])


def test_the_run_records_per_lane_addresses_of_memory_instructions():
    from kernel_fixtures import PTX

    path = next(p for p in PTX if p.stem == "backprop")
    k = kernel(path)
    params = dict(zip(k.params, [1 << 24, 2 << 24, 3 << 24, 2, 64]))
    run = run_warp(k, WarpInputs(params=params, ntid=(64, 1, 1)), threads=32, warp=1)
    stores = [a for a in run.accesses if a.kind == "store"]
    assert len(stores) == 1 and stores[0].space == "global"
    # hidden[j] with j = 32 + lane (warp 1): consecutive 4-byte words
    assert [addr for _, addr in stores[0].addresses] == [(3 << 24) + 4 * (32 + lane) for lane in range(32)]


def test_a_one_thread_warp_never_diverges():
    from warpcheck.models.kernels.warp_cfg import build_warp_cfg

    w = build_warp_cfg(kernel(SLIDES), True, width=1)
    assert all(len(w.graph.nodes[n]["stack"]) <= 2 for n in w.graph.nodes if n != END)
    assert not any("bra-diverge" in d["kinds"] for _, _, d in w.graph.edges(data=True))
