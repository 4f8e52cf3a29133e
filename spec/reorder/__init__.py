"""spec: the reordering unit's references, written from the paper apart from the unit: the static order, the LRU L1."""
