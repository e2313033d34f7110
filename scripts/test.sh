#!/usr/bin/env bash
# Installs what is missing, then runs every test: formatting, clippy and rustdoc (warnings denied),
# unit, corpus, report, agent, store, SSH and CLI tests, a short fuzz run of the readers,
# the wasm builds (shared model, catalogue and UI), the packages (built, installed, started),
# and the built desktop app driven through WebDriver under Xvfb (tests/e2e).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's wall time goes to $CARGO_TARGET_DIR/test-timings.txt (where a slow run's time
# went; docs/contributing.md has the figures), and to stderr when a phase fails.
target="${CARGO_TARGET_DIR:-target}"
# Everything is built once per run: incremental caches (cargo's default for debug builds)
# only cost time and disk here. A value the caller set is kept.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
timings="$target/test-timings.txt"
mkdir -p "$(dirname "$timings")"
: > "$timings"
phase() {
  local name="$1" t0=$SECONDS
  shift
  "$@"
  printf '%6d s  %s\n' $((SECONDS - t0)) "$name" >> "$timings"
}
# A failure stops the packages' build running beside the phases (below) too.
trap 'status=$?; [ -z "${release_build:-}" ] || kill -- -"$release_build" 2>/dev/null
      [ $status -eq 0 ] || { echo "test.sh failed; time per phase until then:"; cat "$timings"; } >&2' EXIT

phase "setup (installs what is missing)" ./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
phase "format" cargo fmt --all --check
# The UI (release wasm); its build compiles the shared model and catalogue for wasm32 too.
phase "UI (wasm, release)" ./scripts/build-frontend.sh
# The packages' release build (the glibc 2.31 agent and CLI and the app: typst, Tauri and
# WebKit's bindings compiled with optimisations, the longest build of the run) starts now,
# beside the phases up to the packages, at the lowest CPU priority: it takes the cycles
# they leave idle (one core while clippy or the debug build compiles one large crate,
# both while the test binaries wait on agents, sshd and WebDriver) and yields the rest.
# Cargo locks each profile's folder, not the target folder, so the debug builds beside it
# do not wait. The packages phase waits for it; its own call then finds nothing to do. It
# reads frontend/dist, which the UI's build above has just laid out.
# Its own process group (to stop it whole), in this session: Linux shares the CPU fairly
# between sessions before it weighs nice values (autogroups), so a build started with
# `setsid` took half the cores from clippy whatever its nice value.
release_log="$target/release-build.log"
python3 -c 'import os, sys; os.setpgid(0, 0); os.nice(19); os.execvp(sys.argv[1], sys.argv[1:])' \
  ./scripts/build-portable.sh checkup-agent checkup-cli checkup-app > "$release_log" 2>&1 &
release_build=$!
# The shell's build reads frontend/dist too. The UI runs as WebAssembly
# only and has no native tests, so it is linted, documented and built for wasm32 alone (its
# native build was Leptos and web-sys compiled for nothing).
phase "clippy" cargo clippy --workspace --exclude checkup-frontend --all-targets -- -D warnings
phase "clippy (UI, wasm)" cargo clippy -p checkup-frontend --target wasm32-unknown-unknown -- -D warnings
# The API docs build without a warning (broken or private links); the UI's from the wasm
# checks its clippy made.
export RUSTDOCFLAGS="-D warnings"
phase "rustdoc" cargo doc --no-deps --workspace --exclude checkup-frontend --quiet
phase "rustdoc (UI, wasm)" cargo doc --no-deps -p checkup-frontend --target wasm32-unknown-unknown --quiet
unset RUSTDOCFLAGS
# The workspace's binaries and tests are built once, with one set of features (the desktop
# app is left out: its end-to-end tests drive the packages' release build of it, so its
# WebKit stack is compiled once; the UI too, above), and the test binaries run two at a time
# (scripts/run-tests.py: most of them wait on real agents, sshd and WebDriver). Beside them,
# a short fuzz run of every reader (3 s each, about a minute, the same inputs each time; the
# long runs and what they found: docs/fuzzing.md), with the binary this build made (`cargo
# run -p checkup-fuzz` resolved features for that package alone and rebuilt tokio and
# everything on it first).
phase "tests and fuzz (build, then 2 at a time)" ./scripts/run-tests.py --jobs 2 \
  --except checkup-e2e --also "fuzz=$target/debug/checkup-fuzz --seconds 3 --seed 1" \
  --workspace --exclude checkup-app --exclude checkup-frontend
# The packages (.deb, AppImage, server tarball, wheel): tests/e2e/tests/package.rs installs
# and starts them. Their server binaries are built for glibc 2.31, which the agent shipped
# to GPU hosts needs.
wait_release_build() {
  local status=0
  wait "$release_build" || status=$?
  release_build=""
  [ $status -eq 0 ] || { cat "$release_log" >&2; echo "the packages' release build failed" >&2; }
  return $status
}
phase "packages: the rest of their release build" wait_release_build
phase "packages (release builds)" ./scripts/package.sh dist
# The app end to end, the packages' build of it (checkup_testkit::shipped_app), the tests
# from the debug build above: two test binaries at a time, each test one app
# at a time, so no more than two apps (each with its own display, WebDriver and ports) share
# the two cores, as before, while one binary's waits overlap the other's work.
phase "app end to end" ./scripts/run-tests.py --jobs 2 --only checkup-e2e \
  --workspace --exclude checkup-app --exclude checkup-frontend \
  -- --test-threads=1
