#!/usr/bin/env bash
# Differential check: run the same corpus of hcpx command lines on two
# binaries, each against its own fresh store, and diff stdout, stderr and the
# exit code of every command.
#
#   tests/differential/run.sh OLD_BINARY NEW_BINARY [CORPUS] [OUT_DIR]
#
# CORPUS defaults to tests/differential/corpus.txt next to this script. Every
# corpus line is a bash snippet run with `hcpx` on PATH (the binary under
# test, always named hcpx so usage lines agree). `{J}` in a line marks where
# `--json` goes; a line without it gets ` --json` at its end. Each line runs
# twice per binary: once as written (the "plain" store) and once with
# `--json` (the "json" store), so four stores evolve alike. Lines starting
# with `@plain ` run only without --json (commands that refuse the flag);
# lines starting with `@setup ` run on every store but never get --json
# (editing a pack, making a lock file).
#
# Variables a snippet may use: $ROOT (this side's temporary root), $CAT (the
# example catalog, a copy), $SKILLS (the Skill collection, a copy), $GITREPO
# (a git repository made from the Skill collection; use git+file://$GITREPO),
# $BROKEN (a folder of malformed packs for lint), $MYCAT (a writable catalog
# with two packs the corpus may edit, for upgrade).
#
# Output differences are printed as unified diffs; paths under each side's
# root are shown as <ROOT>, timestamps as <TIME>, durations as <DUR>. Exit
# status: 0 when every command agrees, 1 otherwise. OUT_DIR (default: a
# temporary folder, printed) keeps every command's normalised output.
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
old_bin=${1:?usage: run.sh OLD_BINARY NEW_BINARY [CORPUS] [OUT_DIR]}
new_bin=${2:?usage: run.sh OLD_BINARY NEW_BINARY [CORPUS] [OUT_DIR]}
corpus=${3:-$here/corpus.txt}
out=${4:-$(mktemp -d /tmp/hcpx-diff.XXXXXX)}
for b in "$old_bin" "$new_bin"; do
    [ -x "$b" ] || { echo "run.sh: $b is not an executable file" >&2; exit 2; }
done
[ -f "$corpus" ] || { echo "run.sh: corpus $corpus not found" >&2; exit 2; }
mkdir -p "$out"
umask 077
work=$(mktemp -d /tmp/hcpx-diffwork.XXXXXX)
trap 'rm -rf "$work"' EXIT

export GIT_AUTHOR_NAME=diff GIT_AUTHOR_EMAIL=diff@example.invalid
export GIT_COMMITTER_NAME=diff GIT_COMMITTER_EMAIL=diff@example.invalid
export GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'
export GIT_CONFIG_NOSYSTEM=1

# One side: a root holding the binary as bin/hcpx, a home, a store, copies
# of the assets. Every side has the same layout, so outputs differ only by
# the root, which normalise() replaces.
make_side() { # ROOT BINARY
    local root=$1
    mkdir -p "$root/bin" "$root/home/.config" "$root/work" "$root/assets"
    cp "$2" "$root/bin/hcpx"
    cp -r "$repo/assets/packs" "$root/assets/packs"
    cp -r "$repo/assets/skills" "$root/assets/skills"
    # A git repository of the Skill collection, with a fixed date so both
    # sides see the same commit id.
    cp -r "$repo/assets/skills" "$root/assets/skills-git"
    (cd "$root/assets/skills-git" && HOME=$root/home git init -q -b main . &&
        HOME=$root/home git add -A && HOME=$root/home git commit -q -m skills)
    # Malformed packs for lint.
    local b=$root/assets/broken
    mkdir -p "$b/no-manifest" "$b/bad-yaml" "$b/bad-id" "$b/bad-command"
    echo "just a readme" >"$b/no-manifest/README.md"
    printf 'hcp: "1"\nid: demo.bad\n  version: [1\n' >"$b/bad-yaml/pack.yaml"
    printf 'hcp: "1"\nid: Bad_ID!\nname: x\nversion: 1.0.0\ndescription: x\nbinding:\n  kind: public\nsense_only: true\n' >"$b/bad-id/pack.yaml"
    printf -- '---\nname: bad-id\ndescription: x\n---\nbody\n' >"$b/bad-id/SKILL.md"
    printf 'hcp: "1"\nid: demo.badcmd\nname: x\nversion: 1.0.0\ndescription: x\nbinding:\n  kind: public\ncommands:\n  - key: Bad Key\n    effect: maybe\n    adapter:\n      kind: process\n      program: /bin/sh\n      argv: ["-c", "{x}"]\n' >"$b/bad-command/pack.yaml"
    printf -- '---\nname: demo-badcmd\ndescription: x\n---\nbody\n' >"$b/bad-command/SKILL.md"
    # A writable catalog for upgrade.
    mkdir -p "$root/assets/mycat"
    cp -r "$repo/assets/packs/demo.clock" "$repo/assets/packs/demo.text" "$root/assets/mycat/"
}

side_env() { # ROOT: the environment every command of a side runs in
    local root=$1
    printf '%s\0' \
        "PATH=$root/bin:/usr/local/bin:/usr/bin:/bin" \
        "HOME=$root/home" \
        "HCP_HOME=$root/store" \
        "CLAUDE_CONFIG_DIR=$root/home/.claude" \
        "CODEX_HOME=$root/home/.codex" \
        "XDG_CONFIG_HOME=$root/home/.config" \
        "NO_COLOR=1" "LANG=C.UTF-8" "TERM=dumb" "TZ=UTC" \
        "GIT_CONFIG_NOSYSTEM=1" \
        "ROOT=$root" "CAT=$root/assets/packs" "SKILLS=$root/assets/skills" \
        "GITREPO=$root/assets/skills-git" "BROKEN=$root/assets/broken" \
        "MYCAT=$root/assets/mycat"
}

normalise() { # ROOT < raw > normalised
    local root=$1
    sed -e "s#$root#<ROOT>#g" \
        -e 's#[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9:.]*\(Z\|[+-][0-9:]*\)\?#<TIME>#g' \
        -e 's#\b[0-9]\+\(\.[0-9]\+\)\? \?\(ms\|µs\|us\)\b#<DUR>#g' \
        -e 's#"\(duration_ms\|elapsed_ms\)": *[0-9]\+#"\1": <DUR>#g' \
        -e 's#catalogs/git-[0-9a-f]\{16\}#catalogs/git-<HASH>#g' \
        -e 's#[0-9]\+ MiB free#<N> MiB free#g' \
        -e 's#"free_mib": *[0-9]\+#"free_mib": <N>#g'
}

run_one() { # ROOT SNIPPET OUTPREFIX
    local root=$1 snippet=$2 prefix=$3 rc
    mapfile -d '' envs < <(side_env "$root")
    (cd "$root/work" && env -i "${envs[@]}" timeout 30 bash -c "$snippet" \
        </dev/null >"$prefix.out.raw" 2>"$prefix.err.raw")
    rc=$?
    normalise "$root" <"$prefix.out.raw" >"$prefix.out"
    normalise "$root" <"$prefix.err.raw" >"$prefix.err"
    rm -f "$prefix.out.raw" "$prefix.err.raw"
    echo "exit $rc" >"$prefix.rc"
}

for s in old-plain new-plain old-json new-json; do
    case $s in old-*) bin=$old_bin ;; *) bin=$new_bin ;; esac
    make_side "$work/$s" "$bin"
done

n=0 same=0 differ=0
while IFS= read -r line || [ -n "$line" ]; do
    case $line in '' | '#'*) continue ;; esac
    n=$((n + 1))
    modes="plain json" nojson=""
    case $line in
        '@plain '*) line=${line#@plain }; modes=plain ;;
        '@setup '*) line=${line#@setup }; nojson=1 ;;
    esac
    for mode in $modes; do
        if [ "$mode" = json ] && [ -z "$nojson" ]; then
            case $line in
                *'{J}'*) snippet=${line//\{J\}/--json} ;;
                *) snippet="$line --json" ;;
            esac
        else
            snippet=${line//\{J\}/}
        fi
        id=$(printf '%03d-%s' "$n" "$mode")
        printf '%s\n' "$snippet" >"$out/$id.cmd"
        for v in old new; do
            run_one "$work/$v-$mode" "$snippet" "$out/$id.$v"
        done
        d=""
        for part in rc out err; do
            if ! cmp -s "$out/$id.old.$part" "$out/$id.new.$part"; then
                d+=$(diff -u --label "old $part" --label "new $part" \
                    "$out/$id.old.$part" "$out/$id.new.$part")$'\n'
            fi
        done
        if [ -n "$d" ]; then
            differ=$((differ + 1))
            printf '=== #%s [%s] %s\n%s\n' "$n" "$mode" "$snippet" "$d"
        else
            same=$((same + 1))
        fi
    done
done <"$corpus"

echo "--- $n corpus lines, $((same + differ)) runs: $same agree, $differ differ (outputs in $out)"
[ "$differ" -eq 0 ]
