#!/usr/bin/env bash
# Builds release binaries linked against glibc 2.31 (zig as the linker), so the server
# binaries run on Ubuntu 20.04 and newer with nothing installed beside them: checkup-agent by
# default (the one copied to GPU hosts), or the packages named (checkup-cli for the tarball,
# checkup-app for the desktop app). Prints the path of each binary. Installs ziglang and
# cargo-zigbuild when missing, both prebuilt from PyPI (compiling cargo-zigbuild took
# minutes).
#
# The packages phase builds the three in one call, so typst, tokio and the rest compile once
# for all of them (two release builds of typst, the server binaries' and the app's, were most
# of a cold CI run's packages phase). The app links the system's WebKitGTK 4.1 through zig
# too: it needs a system new enough for that library, whatever glibc it was linked against.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
packages=("$@")
[ ${#packages[@]} -gt 0 ] || packages=(checkup-agent)
python3 -c "import ziglang" 2>/dev/null || python3 -m pip install -q "ziglang==0.13.0"
command -v cargo-zigbuild >/dev/null || python3 -m pip install -q "cargo-zigbuild==0.24.1"
args=()
for p in "${packages[@]}"; do args+=(-p "$p"); done
# The same for every call, whatever it builds, so build scripts that watch it do not run
# again: pkg-config keeps -L for the system's library folder (zig searches no default
# folder). The app is built with its own config alone: given the packaging config, its build
# would copy the sidecars (the previous build's agent and CLI) over the ones this build makes,
# which have the same names in the same folder.
export PKG_CONFIG_ALLOW_SYSTEM_LIBS=1
case " ${packages[*]} " in
  # What `tauri build` turns on: the UI served from the binary, not a dev server.
  *" checkup-app "*) args+=(--features tauri/custom-protocol) ;;
esac
cargo zigbuild --release --target x86_64-unknown-linux-gnu.2.31 "${args[@]}" >&2
# Absolute paths: the callers run elsewhere (the end-to-end tests in their crate's folder),
# and the default target folder is relative.
dir="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)/x86_64-unknown-linux-gnu/release"
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
