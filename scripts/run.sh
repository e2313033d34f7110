#!/usr/bin/env bash
# Installs what is missing, builds the `checkup` CLI and diagnoses a bundled real-GPU
# recording (pass your own run folder or trace to analyse that instead).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release -p checkup-cli
if [ $# -eq 0 ]; then
  set -- tests/corpus/dataloader_starved
fi
exec "${CARGO_TARGET_DIR:-target}/release/checkup" analyze "$@"
