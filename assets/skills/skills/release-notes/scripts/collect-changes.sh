#!/bin/sh
# The commits since the newest tag of a repository, oldest first.
set -eu
repo=${1:-.}
since=$(git -C "$repo" describe --tags --abbrev=0 2>/dev/null || true)
if [ -n "$since" ]; then
  git -C "$repo" log --reverse --format='%h %s' "$since..HEAD"
else
  git -C "$repo" log --reverse --format='%h %s'
fi
