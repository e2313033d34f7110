#!/usr/bin/env bash
# Installs what is missing, then runs every test: formatting, clippy and rustdoc (warnings denied),
# unit, corpus, report, agent, store, SSH and CLI tests, a short fuzz run of the readers,
# the wasm builds (shared model, catalogue and UI), the packages (built, installed, started),
# and the built desktop app driven through WebDriver under Xvfb (tests/e2e).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's wall time goes to $CARGO_TARGET_DIR/test-timings.txt (where a slow run's time
# went; docs/contributing.md has the figures), and to stderr when a phase fails.
timings="${CARGO_TARGET_DIR:-target}/test-timings.txt"
mkdir -p "$(dirname "$timings")"
: > "$timings"
phase() {
  local name="$1" t0=$SECONDS
  shift
  "$@"
  printf '%6d s  %s\n' $((SECONDS - t0)) "$name" >> "$timings"
}
trap 'status=$?; [ $status -eq 0 ] || { echo "test.sh failed; time per phase until then:"; cat "$timings"; } >&2' EXIT

phase "setup (installs what is missing)" ./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
phase "format" cargo fmt --all --check
phase "wasm builds of the shared crates" cargo build -p checkup-model -p checkup-text --target wasm32-unknown-unknown
phase "UI (wasm, release)" ./scripts/build-frontend.sh
# After the UI's build: the shell's build reads frontend/dist.
phase "clippy" cargo clippy --workspace --all-targets -- -D warnings
phase "clippy (UI, wasm)" cargo clippy -p checkup-frontend --target wasm32-unknown-unknown -- -D warnings
# The API docs build without a warning (broken or private links).
RUSTDOCFLAGS="-D warnings" phase "rustdoc" cargo doc --no-deps --workspace --quiet
phase "tests" cargo test --workspace --exclude checkup-e2e
# A short fuzz run of every reader (3 s each, about a minute, the same inputs each time);
# the long runs and what they found: docs/fuzzing.md. The binary the tests above built (its
# regression test needs it): `cargo run -p checkup-fuzz` resolves features for that package
# alone and rebuilt tokio and everything on it first, three minutes of a cold run.
phase "fuzz" "${CARGO_TARGET_DIR:-target}/debug/checkup-fuzz" --seconds 3 --seed 1
# The packages (.deb, AppImage, server tarball): tests/e2e/tests/package.rs installs and starts
# them. Their server binaries are built for glibc 2.31, which the agent shipped to GPU hosts needs.
phase "packages (release builds)" ./scripts/package.sh dist
# Two apps at a time: each test starts its own app, display, WebDriver and ports, and most
# of a test is waiting on real hosts and agents (the hosts tests: 113 s one at a time, 60-66 s
# two at a time on the 2-core machine).
phase "app end to end" cargo test -p checkup-e2e -- --test-threads=2
