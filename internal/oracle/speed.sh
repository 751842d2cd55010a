#!/usr/bin/env bash
# The side-by-side figures of docs/speed.md and docs/compare.md in one
# run: enforce beside gojsonschema, santhosh-tekuri v6, google/jsonschema-go,
# kaptinlin, json.Valid and json.Unmarshal. COUNT runs of the answer and
# order-contract benchmarks (default 6), one pass over each corpus
# (skipped when absent). Prints the machine's load, the raw output to
# stderr, and the tables.
set -euo pipefail
cd "$(dirname "$0")"
echo "load before: $(uptime)"
{
	go test -run '^$' -bench 'JudgeSideBySide|CompileSideBySide' -count "${COUNT:-6}" .
	go test -run '^$' -bench 'CompileCorpus' -benchtime 1x -count 1 .
} | tee /dev/stderr | go run ./speedtables
echo "load after: $(uptime)"
