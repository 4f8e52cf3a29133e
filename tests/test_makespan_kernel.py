"""Kernel strings, sigmas, the transformation, and the paper's bounds on its own instances."""
from fractions import Fraction

import pytest

from warpcheck.models.errors import ConfigError
from warpcheck.models.makespan.kernel import (MkInstr, approximation, make_kernel, parse_kernel, parse_sigma,
                                              pessimistic)
from warpcheck.sim.makespan.enum import worst_case


def test_fractional_sigma_becomes_n_instructions_with_sigma_one():
    k = make_kernel("LC", {"L": "1/2", "C": 1})
    assert k.text() == "LLC" and k.sigma_of("L") == 1


def test_paper_fig7_kernel_is_transformed_as_in_the_paper():
    assert make_kernel("LCLCL", {"L": "1/2", "C": "1"}).text() == "LLCLLCLL"


def test_latency_suffixes_parse():
    assert parse_kernel("L C4 C3p") == (MkInstr("L"), MkInstr("C", 4), MkInstr("C", 3, True))


def test_pipelined_instruction_with_fractional_sigma_issues_n_times_then_waits():
    k = make_kernel("C3p", {"C": "1/2"})
    assert k.instrs == (MkInstr("C"), MkInstr("C", 3, True))


@pytest.mark.parametrize("text,msg", [("0", "positive"), ("-1", "not of the form"), ("2/3", "not of the form"),
                                      ("x", "not of the form"), ("1/0", "positive")])
def test_bad_sigma_is_refused(text, msg):
    with pytest.raises(ConfigError, match=msg):
        parse_sigma(text)


def test_sigma_forms():
    assert parse_sigma("1/4") == Fraction(1, 4) and parse_sigma("3") == 3


def test_empty_kernel_and_missing_sigma_are_refused():
    with pytest.raises(ConfigError, match="empty"):
        make_kernel("  ", {"L": 1})
    with pytest.raises(ConfigError, match="'C' of the kernel has no sigma"):
        make_kernel("LC", {"L": 1})


def test_pessimistic_bound_of_fig6_instance():
    assert pessimistic(make_kernel("LLCLL", {"L": 1, "C": 1}), 600) == 3000


def test_pessimistic_bound_of_fig7_instance():
    assert pessimistic(make_kernel("LCLCL", {"L": "1/2", "C": 1}), 420) == 420 * 8


def test_pessimistic_bound_with_sigma_above_one_rounds_up():
    assert pessimistic(make_kernel("LLC", {"L": 2, "C": 4}), 5) == 3 * 2 + 2 * 1


def _exact(kernel):
    return lambda y: worst_case(kernel, y).makespan


def test_approximation_of_fig6_instance():
    k = make_kernel("LLCLL", {"L": 1, "C": 1})
    assert approximation(600, 1, _exact(k)) == (3000, 1)  # x = 1 is the pessimistic bound
    # T(y) = 4y + 1 here, so ceil(600 / y) * T(y) is smallest at y = 8 among y <= 8.
    assert approximation(600, 8, _exact(k)) == (75 * 33, 8)


def test_approximation_of_fig7_instance_improves_on_the_pessimistic_bound():
    k = make_kernel("LCLCL", {"L": "1/2", "C": 1})
    values = [approximation(420, x, _exact(k))[0] for x in range(1, 5)]
    assert values[0] == 3360 and values == sorted(values, reverse=True) and values[-1] < 3360


@pytest.mark.parametrize("text,msg", [("LxC", "'x' at position 2"), ("C0", "must be from 1 to 64"), ("Cp", "pipelined without")])
def test_bad_kernel_text_is_refused(text, msg):
    with pytest.raises(ConfigError, match=msg):
        parse_kernel(text)
