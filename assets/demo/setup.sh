#!/usr/bin/env bash
# Builds the throwaway world the hcpx tour (tour.keys) runs in, under WORK:
#
#   bash assets/demo/setup.sh HCPX WORK
#
# - WORK/catalog: a copy of the example catalog (assets/packs) in which
#   demo.clock is 1.1.0 with one more command, `timer`; the user store
#   (WORK/hcp) holds demo.clock 1.0.0, installed and activated before the
#   bump, so the tour's `U` shows a real capability diff;
# - WORK/skills: the example Skill collection, for the tour's `:install`;
# - WORK/home: the home folder, with an empty ~/.claude, so the Harnesses
#   view detects Claude Code and `Space` places Skills there, not in yours;
# - WORK/myapp: a project (`hcpx init`) holding demo.text from its own
#   tools/ folder, where the tour's last part opens the TUI.
#
# record.sh runs it before recording; tests/it/demo_recording.rs runs it
# before replaying the same tour.
set -euo pipefail
hcpx=$(realpath "$1")
work=$(realpath "$2")
repo=$(cd "$(dirname "$0")/../.." && pwd)

mkdir -p "$work/home/.claude" "$work/myapp/tools"
cp -R "$repo/assets/packs" "$work/catalog"
cp -R "$repo/assets/skills" "$work/skills"
cp -R "$repo/assets/packs/demo.text" "$work/myapp/tools/demo.text"
export HOME="$work/home" HCP_HOME="$work/hcp"
unset HCP_PRINCIPAL

cd "$work"
"$hcpx" install demo.clock --catalog "$work/catalog" >/dev/null
"$hcpx" activate demo.clock >/dev/null
# The catalog moves on: demo.clock 1.1.0 adds a timer, which runs a
# program 1.0.0 did not (`sleep`): the upgrade diff marks that ▲.
manifest="$work/catalog/demo.clock/pack.yaml"
sed -i.orig 's/^version: 1.0.0$/version: 1.1.0/' "$manifest"
rm -f "$manifest.orig"
cat >>"$manifest" <<'YAML'

  - key: timer
    summary: Wait a number of seconds, then return (a kitchen timer)
    effect: read
    timeout_ms: 600000
    args:
      - name: seconds
        type: integer
        required: true
        description: Seconds to wait (up to 600), e.g. 90
    adapter:
      kind: process
      program: sleep
      argv: ["{seconds}"]
YAML

cd "$work/myapp"
"$hcpx" init >/dev/null 2>&1
"$hcpx" add tools/demo.text >/dev/null
