"""cli: QoS-aware warp scheduling: two kernels on one SM, response times."""
