#!/usr/bin/env bash
# Builds the checkup-agent binary that is copied to GPU hosts: linked against glibc 2.31 (via
# zig as the linker), so it runs on Ubuntu 20.04 and newer with nothing installed beside it.
# Prints the path of the binary. Installs ziglang (PyPI) and cargo-zigbuild when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
python3 -c "import ziglang" 2>/dev/null || python3 -m pip install -q "ziglang==0.13.0"
command -v cargo-zigbuild >/dev/null || cargo install --locked cargo-zigbuild --version 0.24.1
cargo zigbuild --release --target x86_64-unknown-linux-gnu.2.31 -p checkup-agent >&2
bin="${CARGO_TARGET_DIR:-target}/x86_64-unknown-linux-gnu/release/checkup-agent"
# The newest glibc symbol version it needs must not exceed 2.31.
newest=$(objdump -T "$bin" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
case "$newest" in
  GLIBC_2.[0-9]|GLIBC_2.[12][0-9]|GLIBC_2.30|GLIBC_2.31) ;;
  *) echo "checkup-agent needs $newest: newer than glibc 2.31" >&2; exit 1 ;;
esac
echo "$bin"
