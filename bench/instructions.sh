#!/bin/bash
# Instructions per request, deterministic where wall-clock figures are not: each server runs
# under valgrind (cachegrind, no cache simulation) once for 5,000 and once for 25,000 requests
# over in-memory connections; the difference, divided by 20,000, leaves out start-up and the
# first warm-up (the optimising compiler still compiles a few dozen functions between 5,000 and
# 15,000 requests). System calls are not counted: this compares the JavaScript each request runs.
# Usage: bash bench/instructions.sh [path]   (needs valgrind and `npm run build`)
#        bash bench/instructions.sh POST     (POST /echo with the 1 KB JSON document)
#        bash bench/instructions.sh notes-post | notes-get   (the realistic application,
#          restmachine, Fastify and Hono, each beside raw node:http sending what it sent)
# The Lambda handlers: bash bench/instructions/lambda.sh
# WINDOW=30000,60000 counts between other request counts: past the optimising compiler's
# warm-up, which the standard window still holds (bench/RESULTS.md, "Warm-up inside the window").
set -euo pipefail
cd "$(dirname "$0")/instructions"
path=${1:-/}
IFS=, read -r few many <<<"${WINDOW:-5000,25000}"
count() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    node --predictable drive.mjs "$1" "$path" "$2" $module 2>&1 |
    awk '/I *refs/ { gsub(",", "", $4); print $4 }'
}
# Each framework beside the raw node:http server sending exactly its headers: raw (Fastify's two),
# raw-restmachine, raw-restmachine-json (test/bench/baselines.test.ts checks the lists).
servers="raw fastify raw-restmachine restmachine raw-restmachine-json restmachine-json"
module=
case "$path" in
notes-*)
  servers="raw-restmachine-notes restmachine-notes raw-fastify-notes fastify-notes raw-hono-notes hono-notes"
  module=./notes-servers.mjs
  ;;
esac
for server in $servers; do
  small=$(count "$server" "$few")
  large=$(count "$server" "$many")
  case "$path" in
  POST) what="POST /echo" ;;
  notes-post) what="POST /notes" ;;
  notes-get) what="GET /notes/1" ;;
  *) what="GET $path" ;;
  esac
  echo "$server $what: $(((large - small) / (many - few))) instructions/request"
done
