#!/usr/bin/env bash
# Installs what building and testing GPU Checkup needs on a fresh Debian machine, skipping
# what is already there. Safe to run again.
set -euo pipefail

cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
apt_install() {
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$@"
}

# What compiling anything needs (a C linker, pkg-config, curl for rustup) comes first.
need_first=()
command -v cc >/dev/null || need_first+=(build-essential)
command -v pkg-config >/dev/null || need_first+=(pkg-config)
command -v curl >/dev/null || need_first+=(curl ca-certificates)
[ ${#need_first[@]} -eq 0 ] || apt_install "${need_first[@]}"

if ! command -v cargo >/dev/null; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
    export PATH="$HOME/.cargo/bin:$PATH"
  fi
fi

# The test command's gates: formatting and clippy with warnings denied (a minimal rustup
# profile has neither).
if command -v rustup >/dev/null; then
  for c in rustfmt clippy; do
    rustup component list --installed | grep -q "^$c" || rustup component add "$c"
  done
fi

# checkup-model is shared with the WebAssembly UI: CI checks it builds for wasm32.
if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

need_apt=()
# Report tests read PDFs back as text and render their pages to PNG.
command -v pdftotext >/dev/null || need_apt+=(poppler-utils)
command -v objdump >/dev/null || need_apt+=(binutils)
# Packages (scripts/package.sh): npm brings Tauri's bundler, squashfs-tools the AppImage's image.
command -v npm >/dev/null || need_apt+=(npm)
command -v mksquashfs >/dev/null || need_apt+=(squashfs-tools)
# The desktop app: WebKitGTK for Tauri; Xvfb and ImageMagick to run and screenshot it headless.
pkg-config --exists webkit2gtk-4.1 2>/dev/null || need_apt+=(libwebkit2gtk-4.1-dev)
command -v Xvfb >/dev/null || need_apt+=(xvfb xauth)
command -v import >/dev/null || need_apt+=(imagemagick)
# End-to-end tests drive the app through WebDriver: WebKitGTK's driver behind tauri-driver.
command -v WebKitWebDriver >/dev/null || need_apt+=(webkit2gtk-driver)
# SSH hosts: the app uses the system OpenSSH client; tests start a real sshd on loopback.
command -v ssh >/dev/null || need_apt+=(openssh-client)
[ -x /usr/sbin/sshd ] || need_apt+=(openssh-server)
# The pip wheel is installed into a fresh virtual environment by its test.
python3 -m venv --help >/dev/null 2>&1 && python3 -c 'import ensurepip' 2>/dev/null || need_apt+=(python3-venv)
# Prometheus: the tests read DCGM-exporter metrics back from a real server they backfill.
command -v promtool >/dev/null || need_apt+=(prometheus)
# Slurm: `checkup gather --slurm` is tested against a real controller and node on loopback.
command -v slurmctld >/dev/null || need_apt+=(slurmctld slurmd slurm-client munge)
# Installed while the tools below compile: apt waits on the network and the disk, cargo on
# the cores, so the two overlap where they used to follow each other. A failure below waits
# for apt before leaving, so no install is left running half-done.
apt_log=$(mktemp)
if [ ${#need_apt[@]} -gt 0 ]; then
  apt_install "${need_apt[@]}" > "$apt_log" 2>&1 &
  apt_pid=$!
  trap 'wait "$apt_pid" 2>/dev/null || true' EXIT
fi

# The two tools below are compiled, and each run handles a file or a session: built for a
# short compile (opt-level 1, one codegen unit), not for speed. wasm-bindgen-cli: 134 s ->
# 106 s on two cores, the same output, 0.40 -> 0.46 s for the UI's wasm.
install_tool() {
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1 CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
    cargo install --quiet "$@"
}

# wasm-bindgen's CLI must match the wasm-bindgen version in Cargo.lock exactly.
export PATH="$HOME/.cargo/bin:$PATH"
wbg=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p')
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$wbg" ]; then
  install_tool wasm-bindgen-cli --version "$wbg"
fi

# tauri-driver (crates.io): the WebDriver server the app's end-to-end tests talk to.
# The binary itself, not only cargo's record of installing it (a binary removed by hand
# stays in that record, and the end-to-end tests then cannot start it).
if ! command -v tauri-driver >/dev/null || ! cargo install --list | grep -q '^tauri-driver v2\.'; then
  install_tool tauri-driver --version "^2" --locked --force
fi

if [ -n "${apt_pid:-}" ]; then
  trap - EXIT
  if ! wait "$apt_pid"; then
    cat "$apt_log" >&2
    echo "setup.sh: apt-get install ${need_apt[*]} failed" >&2
    exit 1
  fi
fi
rm -f "$apt_log"
