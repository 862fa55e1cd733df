#!/usr/bin/env bash
# The store stage of an ingest by kind of file: the `stored in` of every file of a `teu ingest`
# log (one line per file, as `scripts/scale.sh` keeps in DIR/worker-K.log), summed by the kind
# of `teu simulate` file its path names: DCSA events (`dcsa/`), terminal checks, line
# deadlines, rail events (`rail/`), emails (`.eml`), anything else.
#
#   scripts/stored-by-kind.sh WORKER_LOG...
#
# Prints per kind: files, feed rows read, seconds stored, and microseconds a row (a file, for
# emails: one message each). An email file's time is its share of its run's transaction
# (`teu_pipeline::ingest::store_emails`).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 WORKER_LOG..." >&2; exit 2; }
awk '/: .* rows read, .*stored in [0-9.]+ m?s$/ {
  path = $1
  kind = "other"
  if (path ~ /\/dcsa\//) kind = "dcsa"
  else if (path ~ /terminal-checks/) kind = "checks"
  else if (path ~ /line-deadlines/) kind = "deadlines"
  else if (path ~ /\/rail\//) kind = "rail"
  else if (path ~ /\.eml:$/) kind = "email"
  ms = $(NF - 1)
  if ($NF == "s") ms *= 1000
  rows = 0
  for (i = 2; i < NF; i++) if ($(i + 1) == "rows" && $(i + 2) == "read,") rows = $i
  files[kind]++; read[kind] += rows; total[kind] += ms
}
END {
  printf "%-10s %7s %10s %10s %10s\n", "kind", "files", "rows", "stored s", "us a row"
  for (k in files)
    printf "%-10s %7d %10d %10.1f %10.1f\n", k, files[k], read[k], total[k] / 1000,
      total[k] * 1000 / (read[k] > 0 ? read[k] : 1)
}' "$@"
