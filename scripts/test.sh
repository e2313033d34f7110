#!/usr/bin/env bash
# Installs what is missing, then runs every test: formatting, clippy and rustdoc (warnings denied),
# unit, corpus, report, agent, store, SSH and CLI tests, a short fuzz run of the readers,
# the wasm builds (shared model, catalogue and UI), the glibc 2.31 agent build, and the
# built desktop app driven through WebDriver under Xvfb (tests/e2e).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
cargo fmt --all --check
cargo build -p checkup-model -p checkup-text --target wasm32-unknown-unknown
./scripts/build-frontend.sh
# After the UI's build: the shell's build reads frontend/dist.
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy -p checkup-frontend --target wasm32-unknown-unknown -- -D warnings
# The API docs build without a warning (broken or private links).
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --quiet
cargo test --workspace --exclude checkup-e2e
# A short fuzz run of every reader (3 s each, about a minute, the same inputs each time);
# the long runs and what they found: docs/fuzzing.md.
cargo run -q -p checkup-fuzz -- --seconds 3 --seed 1
# The agent binary shipped to GPU hosts must run on glibc 2.31.
./scripts/build-agent.sh
# One app at a time: each test starts its own app, display and WebDriver.
cargo test -p checkup-e2e -- --test-threads=1
