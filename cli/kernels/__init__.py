"""cli: kernels: PTX and SASS front ends, the SIMT stack, the warp-level CFG and WCET."""
