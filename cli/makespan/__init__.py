"""cli: worst-case makespan of warps on one SM."""
