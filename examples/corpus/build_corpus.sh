#!/usr/bin/env bash
# Compile the corpus kernels (our own CUDA, in the style of real code) to PTX.
# The .ptx files are committed so that the runner and the tests never need nvcc.
set -eu
cd "$(dirname "$0")"
ARCH="${ARCH:-sm_75}"
for cu in *.cu; do
    nvcc -ptx -O3 -arch="$ARCH" "$cu" -o "${cu%.cu}.ptx"
    echo "built ${cu%.cu}.ptx"
done
