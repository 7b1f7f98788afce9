#!/usr/bin/env bash
# The anchor: a reindex written the way the seed's shell scripts work (one pass of coreutils per
# leaf), kept only as the yardstick benchmarks/bench_scale.py times `bonsai-git reindex` against.
# The seed's own bonsai-reindex.sh is not in this repository; this reconstruction does what it
# did: for each domain folder, for each leaf, count bytes (wc), estimate tokens (bytes/4), take
# the first prose line (grep | head | cut) and append an entry to the domain's _index.md; then the
# root index and the block between MEMORY.md's markers (awk).
# usage: bonsai-reindex.sh WORKSPACE
set -euo pipefail
ws="${1:-.}"
cd "$ws"
root_tmp="$(mktemp)"
trap 'rm -f "$root_tmp"' EXIT
printf '# Memory Index\n\n' > "$root_tmp"
for dir in memory/domains/*/; do
  domain="$(basename "$dir")"
  index="$dir/_index.md"
  tmp="$(mktemp)"
  total=0
  count=0
  while IFS= read -r -d '' leaf; do
    name="${leaf#"$dir"}"
    bytes="$(wc -c < "$leaf")"
    tokens=$(( (bytes + 3) / 4 ))
    summary="$(grep -v -e '^#' -e '^[[:space:]]*$' "$leaf" | head -n 1 | cut -c1-120 || true)"
    printf '### %s (~%s tokens)\n%s\n\n' "$name" "$tokens" "$summary" >> "$tmp"
    total=$(( total + tokens ))
    count=$(( count + 1 ))
  done < <(find "$dir" -name '*.md' ! -name '_index.md' -print0 | sort -z)
  { printf '# %s Index\n_~%s tokens in %s leaves_\n\n' "$domain" "$total" "$count"; cat "$tmp"; } > "$index"
  rm -f "$tmp"
  printf -- '- %s: %s leaves, ~%s tokens (memory/domains/%s/_index.md)\n' "$domain" "$count" "$total" "$domain" >> "$root_tmp"
done
cp "$root_tmp" memory/_index.md
awk -v idx="$root_tmp" '
  /^<!-- bonsai:begin/ { print; while ((getline line < idx) > 0) print line; skip = 1; next }
  /^<!-- bonsai:end -->/ { skip = 0 }
  !skip { print }
' MEMORY.md > MEMORY.md.tmp && mv MEMORY.md.tmp MEMORY.md
