#!/usr/bin/env bash
# Installs what is missing, then runs every test: unit, corpus, report, agent, store and CLI
# tests, the wasm builds (shared model and UI), the glibc 2.31 agent build, and the desktop
# app started under Xvfb.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
cargo build -p checkup-model --target wasm32-unknown-unknown
./scripts/build-frontend.sh
cargo test --workspace
# The agent binary shipped to GPU hosts must run on glibc 2.31.
./scripts/build-agent.sh
cargo build -p checkup-app -p checkup-agent
./tests/e2e/app_smoke.sh
