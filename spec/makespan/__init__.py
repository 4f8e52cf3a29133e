"""spec: the makespan references and certificate checkers, reading only the shared vocabulary.

The checker's own reading of an instance and the paper's transform (``reference.py``), the replay of a
schedule (``replay.py``), the checks of exact and interval certificates (``certificate_check.py``,
``interval_check.py``) and of the bounds they carry, the reference enumeration of the mutants
(``reference_enum.py``) and the reference's reading of PTX roles (``ptx_roles.py``).
"""
