#!/usr/bin/env bash
# Builds the binaries that go to servers, checkup-agent by default (the one copied to GPU
# hosts) or the packages named (checkup-cli for the tarball): release builds linked against
# glibc 2.31 (zig as the linker), so they run on Ubuntu 20.04 and newer with nothing installed
# beside them. Prints the path of each binary. Installs ziglang and cargo-zigbuild when
# missing, both prebuilt from PyPI (compiling cargo-zigbuild took minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
packages=("$@")
[ ${#packages[@]} -gt 0 ] || packages=(checkup-agent)
python3 -c "import ziglang" 2>/dev/null || python3 -m pip install -q "ziglang==0.13.0"
command -v cargo-zigbuild >/dev/null || python3 -m pip install -q "cargo-zigbuild==0.24.1"
args=()
for p in "${packages[@]}"; do args+=(-p "$p"); done
cargo zigbuild --release --target x86_64-unknown-linux-gnu.2.31 "${args[@]}" >&2
dir="${CARGO_TARGET_DIR:-target}/x86_64-unknown-linux-gnu/release"
for p in "${packages[@]}"; do
  # The binary's name: the package's [[bin]] name where it has one (checkup-cli's is checkup).
  bin="$dir/$(cargo metadata --no-deps --format-version 1 |
    python3 -c 'import json,sys; p=[p for p in json.load(sys.stdin)["packages"] if p["name"]==sys.argv[1]][0]; print([t["name"] for t in p["targets"] if "bin" in t["kind"]][0])' "$p")"
  # The newest glibc symbol version it needs must not exceed 2.31.
  newest=$(objdump -T "$bin" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
  case "$newest" in
    GLIBC_2.[0-9]|GLIBC_2.[12][0-9]|GLIBC_2.30|GLIBC_2.31) ;;
    *) echo "$bin needs $newest: newer than glibc 2.31" >&2; exit 1 ;;
  esac
  echo "$bin"
done
