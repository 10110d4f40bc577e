#!/bin/bash
# Instructions per Lambda event, the Lambda section's contenders invoked in-process: each runs
# under valgrind (cachegrind, no cache simulation) once for 5,000 and once for 25,000 calls
# with the same event; the difference, divided by 20,000, leaves out start-up and the first
# warm-up (WINDOW=30000,60000 counts between other numbers of calls, as instructions.sh does).
# Usage: bash bench/instructions/lambda.sh [event ...]   (events: rest-get rest-post http-get http-post)
set -euo pipefail
IFS=, read -r few many <<<"${WINDOW:-5000,25000}"
cd "$(dirname "$0")"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
node lambda-bundle.mjs "$dir"
count() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    node --predictable lambda-drive.mjs "$dir" "$1" "$2" "$3" 2>&1 |
    awk '/I *refs/ { gsub(",", "", $4); print $4 }'
}
events=${*:-rest-get rest-post http-get http-post}
for event in $events; do
  for contender in floor restmachine hono; do
    small=$(count "$contender" "$event" "$few")
    large=$(count "$contender" "$event" "$many")
    echo "$contender $event: $(((large - small) / (many - few))) instructions/event"
  done
done
