"""sim: the load/store reordering unit, the L1 data cache and the segment WCET."""
