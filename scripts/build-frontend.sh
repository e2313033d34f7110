#!/usr/bin/env bash
# Builds the Leptos UI to WebAssembly and lays it out in frontend/dist for the Tauri shell.
# A file is only replaced when its bytes change: the app's build embeds frontend/dist and
# is compiled again whenever a file there is newer than it (test.sh and package.sh both
# build the UI, and the second must not cost the app's debug build again).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
target="${CARGO_TARGET_DIR:-target}"
cargo build -p checkup-frontend --target wasm32-unknown-unknown --release
staging="$target/frontend-dist"
rm -rf "$staging" && mkdir -p "$staging" frontend/dist
wasm-bindgen --target web --no-typescript --out-dir "$staging" "$target/wasm32-unknown-unknown/release/checkup_frontend.wasm"
cp frontend/index.html frontend/style.css frontend/main.js "$staging/"
for file in "$staging"/*; do
  cmp -s "$file" "frontend/dist/${file##*/}" || cp "$file" frontend/dist/
done
