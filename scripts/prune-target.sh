#!/usr/bin/env bash
# Keeps a reused cargo target folder from filling the disk: stale artifacts pile up across
# dependency and profile changes, and a full disk fails the build halfway (it happened on CI).
# Usage: prune-target.sh TARGET_DIR [MAX_GB] [MIN_FREE_GB]
set -euo pipefail
target="$1"
max_gb="${2:-28}"
min_free_gb="${3:-12}"
[ -d "$target" ] || exit 0

size_gb=$(( $(du -sk "$target" | cut -f1) / 1024 / 1024 ))
free_gb=$(( $(df -Pk "$(dirname "$target")" | awk 'NR==2 {print $4}') / 1024 / 1024 ))
if [ "$size_gb" -ge "$max_gb" ] || [ "$free_gb" -lt "$min_free_gb" ]; then
  echo "prune-target: $target holds ${size_gb} GB with ${free_gb} GB free on its disk; removing it (the build starts cold)"
  rm -rf "$target"
else
  # Incremental caches are never reused by a CI build; drop any a local build left.
  rm -rf "$target"/debug/incremental "$target"/*/debug/incremental
fi
