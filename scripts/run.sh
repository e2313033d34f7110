#!/usr/bin/env bash
# Installs what is missing, builds the UI and opens the GPU Checkup desktop app (the demo
# checkups from real H200 recordings are there on first start). For the command line
# instead: cargo run --release -p checkup-cli -- analyze RUN_FOLDER
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
./scripts/build-frontend.sh
# "This computer" starts the agent built beside the app.
cargo build -p checkup-agent
exec cargo run -p checkup-app
