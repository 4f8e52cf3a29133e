"""Proof problems for other checkers: SMT-LIB2 scripts (BMC, k-induction), BTOR2 and AIGER models, Verilog, SymbiYosys."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from warpcheck._frontend.options import ExportOptions, ProveOptions
from warpcheck._frontend.proof import run_name
from warpcheck.encodings import aiger, btor2, sby, smt2, verilog
from warpcheck.encodings.unroll import _width
from warpcheck.models.files import check_writable, write_files
from warpcheck.models.frontend.design import FrontEnd
from warpcheck.verify.frontend.properties import get_property
from warpcheck.verify.lemmas import prove_lemmas


@dataclass(eq=False)  # compared as a mapping, e.g. with a dict of texts
class ExportResult(Mapping[str, "str | bytes"]):
    """The exported files: ``{file name: text}`` (bytes for AIGER); ``paths`` once written (``to_dict()`` is
    ``export --json``)."""

    texts: dict[str, str | bytes]
    paths: list[str] = field(default_factory=list)
    code: int = 0

    def __getitem__(self, name: str) -> str | bytes:
        return self.texts[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.texts)

    def __len__(self) -> int:
        return len(self.texts)

    def to_dict(self) -> dict[str, Any]:
        """What ``warpcheck export --json`` prints: the paths written (the names when nothing was written)."""
        return {"status": "OK", "files": self.paths or list(self.texts)}

    def report(self) -> str:
        """What ``warpcheck export`` prints: one path a line."""
        return "\n".join(self.paths or list(self.texts))


def export_texts(o: ExportOptions) -> ExportResult:
    """The proof problem of the options' prove configuration as texts, named as prove names the run."""
    ts = get_property(o.prop).checked(FrontEnd(o.sm))
    name = run_name(ProveOptions(config=o.sm, property=o.prop))
    width = _width(ts)
    if o.format == "btor2":
        return ExportResult({f"{name}.btor2": btor2.to_btor2(ts, ts.agree, width)})
    if o.format in ("sby", "verilog"):
        module = verilog.module_name(name)
        texts = {f"{name}.sv": verilog.to_verilog(ts, ts.agree, width, module)}
        return ExportResult(texts | ({f"{name}.sby": sby.to_sby(name, module, o.horizon)}
                                     if o.format == "sby" else {}))
    proved = [] if o.no_lemmas else [pred for _, pred in prove_lemmas(ts)[0]]
    if o.format == "aiger":
        model, bits = aiger.export(ts, ts.agree, width, name)
        files: dict[str, str | bytes] = {f"{name}.aig": model, f"{name}.aig.map.json": bits}
        if proved:  # pdr alone does not find SWaS's invariant: the same model with the kit's lemmas assumed
            strengthened = aiger.folded(aiger.to_model(ts, ts.agree, width, narrow=True, lemmas=proved))
            files |= {f"{name}.lemmas.aig": aiger.to_aiger(strengthened.aig, f"warpcheck {name}: bad = the property "
                                                            f"violated, in runs where the {len(proved)} lemmas hold"),
                      f"{name}.lemmas-init.smt2": smt2.lemmas_init(ts, proved, width, name),
                      f"{name}.lemmas-step.smt2": smt2.lemmas_step(ts, proved, width, name)}
        return ExportResult(files)
    return ExportResult({f"{name}.bmc{o.horizon}.smt2": smt2.bmc(ts, ts.agree, o.horizon, width, name),
                         f"{name}.lemmas-init.smt2": smt2.lemmas_init(ts, proved, width, name),
                         f"{name}.lemmas-step.smt2": smt2.lemmas_step(ts, proved, width, name),
                         f"{name}.step{o.k}.smt2": smt2.step(ts, ts.agree, o.k, proved, width, name)})


def export_run(o: ExportOptions) -> ExportResult:
    """The files of :func:`export_texts`, written to ``o.out`` all together or none (existing ones replaced)."""
    check_writable(o.out, "out", folder=True)  # before the work, as plot does
    result = export_texts(o)
    paths = {str(Path(o.out) / name): text for name, text in result.texts.items()}
    write_files(paths, "exported file")
    result.paths.extend(paths)
    return result
