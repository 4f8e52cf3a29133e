#!/usr/bin/env bash
# Compile the corpus kernels (our own CUDA, in the style of real code) to PTX.
# The .ptx files are committed so that the runner and the tests never need nvcc.
# The modules without a .cu (tc_mma_nvvm, triton_style, debug_calls_G, optix_style) are our own PTX,
# written by hand in the styles of NVVM 13, Triton, nvcc -G and OptiX output (each says so in its
# header): this script leaves them as they are and only checks that every module reads.
set -eu
cd "$(dirname "$0")"
ARCH="${ARCH:-sm_75}"
for cu in *.cu; do
    nvcc -ptx -O3 -arch="$ARCH" "$cu" -o "${cu%.cu}.ptx"
    echo "built ${cu%.cu}.ptx"
done
for ptx in *.ptx; do
    # every entry is listed (an entry refused by name is listed with its reason); a module that does not read is not
    warpcheck cfg "$ptx" --all-entries --json 2>/dev/null | grep -q '"entries"' || { echo "cannot read $ptx"; exit 1; }
    echo "read $ptx"
done
