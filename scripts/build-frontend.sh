#!/usr/bin/env bash
# Builds the Leptos UI to WebAssembly and lays it out in frontend/dist for the Tauri shell.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
target="${CARGO_TARGET_DIR:-target}"
cargo build -p checkup-frontend --target wasm32-unknown-unknown --release
mkdir -p frontend/dist
wasm-bindgen --target web --no-typescript --out-dir frontend/dist "$target/wasm32-unknown-unknown/release/checkup_frontend.wasm"
cp frontend/index.html frontend/style.css frontend/main.js frontend/dist/
