#!/usr/bin/env bash
# Installs what is missing, then runs every test: unit, corpus and CLI tests, and the wasm
# build of the shared model crate.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
cargo build -p checkup-model --target wasm32-unknown-unknown
cargo test --workspace
# The agent binary shipped to GPU hosts must run on glibc 2.31.
./scripts/build-agent.sh
