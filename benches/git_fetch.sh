#!/bin/sh
# What a git install of a SUBDIR costs (README "Performance"): how many bytes
# the fetch writes, found as the smallest HCPX_FETCH_MAX_BYTES under which
# the install still succeeds, for a repository holding a 1 KB pack beside a
# large unrelated file — with a server that serves partial clones
# (uploadpack.allowFilter) and with one that does not (the full fetch).
#
#   benches/git_fetch.sh [HCPX_BINARY] [BIG_MIB]
#
# Time one install with any timer, e.g.
#   /usr/bin/time -v sh -c 'HCP_HOME=$(mktemp -d) hcpx install git+file://REPO//p'
set -eu
hcpx=${1:-target/release/hcpx}
big_mib=${2:-64}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$work/repo
mkdir -p "$repo/p" "$repo/data"
cat >"$repo/p/pack.yaml" <<'YAML'
hcp: "1"
id: bench.fetch
name: Fetch bench
version: 1.0.0
description: A small pack beside a large file.
binding: {kind: public}
commands:
  - key: hello
    summary: Say hello
    effect: read
    adapter: {kind: process, program: echo, argv: ["hello"]}
YAML
printf -- '---\nname: bench-fetch\ndescription: Bench.\n---\nRun `hello`.\n' >"$repo/p/SKILL.md"
head -c $((big_mib * 1024 * 1024)) /dev/urandom >"$repo/data/big.bin"
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" -c user.name=b -c user.email=b@example.com commit -qm bench
pack_bytes=$(cat "$repo/p/"* | wc -c)

# The smallest power of two (bytes) the install fits in.
fits() {
    bound=1024
    while [ "$bound" -le $((4 * big_mib * 1024 * 1024)) ]; do
        home=$work/home-$bound
        if HCP_HOME=$home HCPX_FETCH_MAX_BYTES=$bound "$hcpx" install \
            "git+file://$repo//p" >/dev/null 2>&1; then
            echo "$bound"
            return
        fi
        rm -rf "$home"
        bound=$((bound * 2))
    done
    echo "more than $((4 * big_mib)) MiB"
}

echo "pack: $pack_bytes bytes; unrelated file: $big_mib MiB"
git -C "$repo" config uploadpack.allowFilter true
echo "partial fetch (server filters): fits in $(fits) bytes"
git -C "$repo" config uploadpack.allowFilter false
echo "full fetch (server does not):   fits in $(fits) bytes"
