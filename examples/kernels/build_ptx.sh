#!/usr/bin/env bash
# Compile every fixture kernel to PTX with nvcc; the .ptx files are committed so
# that tests never need nvcc.  sm_75 is the oldest target CUDA 13 accepts.
set -eu
cd "$(dirname "$0")"
ARCH="${ARCH:-sm_75}"
for cu in *.cu; do
    nvcc -ptx -O3 -arch="$ARCH" "$cu" -o "${cu%.cu}.ptx"
    echo "built ${cu%.cu}.ptx"
done
