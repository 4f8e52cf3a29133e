"""The SM front end's references, written from the paper apart from the design.

- ``priority_lists``: each scheduling policy as a rank per warp (``ref_policy``);
- ``ghost``: the predictable windows and the launch clock, computed from the issue record;
- ``issue_reference``: the oracle views and the analysis machine a static analysis of SWaS would use.
"""
