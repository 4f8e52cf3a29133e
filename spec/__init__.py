"""The references and checkers: what each domain's design should do, written again from the papers.

One folder per domain.  A module here imports only the shared vocabulary
(configurations, kernels as input, transition-system records, errors, files)
and other references: never a design, never a solver.  A property in
``verify/`` or a check in ``sim/`` compares the design's exported record with
a reference from here; a certificate is accepted only by a checker from here.
"""
