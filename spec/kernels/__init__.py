"""The kernels' reference: each thread run alone, by the instruction semantics of one thread (``thread_ops``)."""
