#!/usr/bin/env bash
# Builds what GPU Checkup ships into dist/ (or the folder given):
#   gpu-checkup_VERSION_amd64.deb          the desktop app, by Tauri's bundler, with the
#                                          checkup CLI, checkup-agent and the demo recordings
#   GPU_Checkup-VERSION-x86_64.AppImage    the same files as one executable (it uses the
#                                          system's WebKitGTK 4.1, as the .deb does)
#   checkup-VERSION-x86_64-linux.tar.gz    checkup and checkup-agent for servers (glibc 2.31)
#   gpu_checkup-VERSION-py3-none-manylinux_2_31_x86_64.whl
#                                          the same two for `pip install` on a GPU host
#   SHA256SUMS                             the checksums of the four
# Installs what is missing first (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
target="${CARGO_TARGET_DIR:-$PWD/target}"
out="$(mkdir -p "${1:-dist}" && cd "${1:-dist}" && pwd)"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
lock_version() { grep -A1 "^name = \"$1\"$" Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p'; }
tools="$target/package-tools"
mkdir -p "$tools"

# Tauri's bundler: the npm package's prebuilt binary, the version of the tauri crate in
# Cargo.lock (compiling tauri-cli takes longer than the app).
tauri_version=$(lock_version tauri)
tauri="$tools/node_modules/.bin/tauri"
if [ "$("$tauri" --version 2>/dev/null)" != "tauri-cli $tauri_version" ]; then
  npm install --prefix "$tools" --no-save --no-audit --no-fund --loglevel=error "@tauri-apps/cli@$tauri_version"
fi

# The server binaries and the app, in one release build (scripts/build-portable.sh): glibc
# 2.31, nothing needed beside the server binaries.
./scripts/build-frontend.sh
mapfile -t built < <(./scripts/build-portable.sh checkup-agent checkup-cli checkup-app)
agent="${built[0]}" cli="${built[1]}"
# The bundler takes the server binaries as sidecars, NAME-<target triple> beside the config,
# with the mode they have here.
mkdir -p src-tauri/binaries
install -m 755 "$agent" src-tauri/binaries/checkup-agent-x86_64-unknown-linux-gnu
install -m 755 "$cli" src-tauri/binaries/checkup-x86_64-unknown-linux-gnu
# The bundler takes the app that build made (`tauri bundle`, where `tauri build` would build
# it again for the host alone).
"$tauri" bundle --ci --bundles deb --config src-tauri/tauri.package.json \
  --target x86_64-unknown-linux-gnu --features tauri/custom-protocol
deb_built=$(ls -t "$target"/x86_64-unknown-linux-gnu/release/bundle/deb/*_"$version"_amd64.deb | head -1)
deb="$out/gpu-checkup_${version}_amd64.deb"
cp "$deb_built" "$deb"

# The AppImage: the .deb's files under an AppRun, after AppImageKit's runtime (shipped in the
# appimage crate on crates.io; Tauri's own AppImage bundler downloads its tools from GitHub).
# An empty [workspace] makes the helper its own workspace: with the default target/ it sits
# inside this one, and cargo would refuse it as a member the workspace does not list.
runtime_crate="$tools/appimage-runtime"
mkdir -p "$runtime_crate/src"
printf '[package]\nname = "appimage-runtime"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\nappimage = "=0.4.0"\n\n[workspace]\n' > "$runtime_crate/Cargo.toml"
touch "$runtime_crate/src/lib.rs"
runtime=$(cargo metadata --manifest-path "$runtime_crate/Cargo.toml" --format-version 1 |
  python3 -c 'import json,sys,os; m=json.load(sys.stdin); p=[p for p in m["packages"] if p["name"]=="appimage"][0]; print(os.path.join(os.path.dirname(p["manifest_path"]), "assets/runtime-x86_64"))')
appdir="$tools/AppDir"
rm -rf "$appdir" && mkdir -p "$appdir"
dpkg-deb -x "$deb" "$appdir"
cp "$appdir/usr/share/applications/"*.desktop "$appdir/gpu-checkup.desktop"
cp icons/icon.png "$appdir/gpu-checkup.png"
ln -s gpu-checkup.png "$appdir/.DirIcon"
cat > "$appdir/AppRun" <<'APPRUN'
#!/bin/sh
# The AppImage's entry point: the app, its agent and its demos all under usr/.
here="$(dirname "$(readlink -f "$0")")"
export GPU_CHECKUP_DEMOS="${GPU_CHECKUP_DEMOS:-$here/usr/lib/GPU Checkup/demos}"
export PATH="$here/usr/bin:$PATH"
exec "$here/usr/bin/gpu-checkup" "$@"
APPRUN
chmod 755 "$appdir/AppRun"
appimage="$out/GPU_Checkup-$version-x86_64.AppImage"
rm -f "$tools/app.squashfs"
# gzip, appimagetool's default: 8 s where xz took 20 s, 9 % larger, and quicker to read
# back when the app starts.
mksquashfs "$appdir" "$tools/app.squashfs" -root-owned -noappend -comp gzip -quiet
cat "$runtime" "$tools/app.squashfs" > "$appimage"
chmod 755 "$appimage"

# The server tarball.
name="checkup-$version-x86_64-linux"
rm -rf "$tools/$name" && mkdir -p "$tools/$name"
cp "$cli" "$agent" README.md LICENSE "$tools/$name/"
tar -C "$tools" -czf "$out/$name.tar.gz" --owner=0 --group=0 "$name"

# The same two binaries as a pip wheel, for GPU hosts with Python and no root.
wheel=$(python3 scripts/wheel.py "$out" "$version" "$cli" "$agent")

(cd "$out" && sha256sum "$(basename "$deb")" "$(basename "$appimage")" "$name.tar.gz" "$(basename "$wheel")" > SHA256SUMS)
ls -l "$out"
