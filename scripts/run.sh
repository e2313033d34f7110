#!/usr/bin/env bash
# Installs what is missing, builds the release app and the agent it starts for "This
# computer", and opens GPU Checkup (the demo checkups from real H200 recordings are there on
# first start). When the .deb is installed, `gpu-checkup` opens the same app without a build.
# For the command line instead: cargo run --release -p checkup-cli -- analyze RUN_FOLDER
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
./scripts/build-frontend.sh
cargo build --release -p checkup-agent -p checkup-app
exec "${CARGO_TARGET_DIR:-target}/release/gpu-checkup" "$@"
