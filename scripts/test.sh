#!/usr/bin/env bash
# Installs what is missing, then runs every test: unit, corpus, report, agent, store, SSH and
# CLI tests, the wasm builds (shared model and UI), the glibc 2.31 agent build, and the built
# desktop app driven through WebDriver under Xvfb (tests/e2e).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
cargo build -p checkup-model --target wasm32-unknown-unknown
./scripts/build-frontend.sh
cargo test --workspace --exclude checkup-e2e
# The agent binary shipped to GPU hosts must run on glibc 2.31.
./scripts/build-agent.sh
# One app at a time: each test starts its own app, display and WebDriver.
cargo test -p checkup-e2e -- --test-threads=1
