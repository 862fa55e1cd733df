#!/usr/bin/env bash
# Trains a zstd dictionary the store compresses an event column with (teu_store::payloads):
#
#   scripts/dictionary.sh raw N       raw carrier payloads, store/dictionaries/raw-events-N.zdict
#                                      (ids 1 to 100)
#   scripts/dictionary.sh bodies N    normalized event bodies, store/dictionaries/event-bodies-N.zdict
#                                      (ids 101 to 200)
#   scripts/dictionary.sh events N    stored events (normalized body, newline, carrier payload;
#                                      one-frame layout), store/dictionaries/stored-events-N.zdict
#                                      (ids 601 to 700)
#   scripts/dictionary.sh containers N   derived container bodies,
#                                      store/dictionaries/container-bodies-N.zdict (ids 201 to 300)
#   scripts/dictionary.sh shipments N    derived shipment bodies,
#                                      store/dictionaries/shipment-bodies-N.zdict (ids 301 to 400)
#   scripts/dictionary.sh checks N       terminal availability checks (raw row and body),
#                                      store/dictionaries/terminal-checks-N.zdict (ids 401 to 500)
#   scripts/dictionary.sh deadlines N    shipping-line deadlines (raw row and body),
#                                      store/dictionaries/line-deadlines-N.zdict (ids 501 to 600)
#
# N is the dictionary id, one more than the newest of its kind. Samples: every DCSA event of the
# bundled real Track & Trace examples (data/dcsa, data/dcsa-cases) and the DCSA and rail events of a
# small `teu simulate` feed (400 containers, seed 20261126: not a seed any benchmark or test uses),
# one per sample: for `raw` each event's JSON object, for `bodies` its normalized body as the store
# wrote it before the one-frame layout (teu_store::payloads::EVENTS), for `events` that body, a
# newline and the payload, as the store writes an event since (feeds/examples/event_bodies.rs). For
# `containers` and `shipments` the samples are the records derived from the DCSA, terminal and rail
# files of a larger feed of the same seed (2,000 containers) and the real DCSA examples, ingested
# into a scratch SQLite database and written as the store writes them
# (store/examples/record_bodies.rs). For `checks` and `deadlines` they are each row's original text
# and its body, from the terminal files of that larger feed (feeds/examples/fact_rows.rs). A
# dictionary never changes once released: each compressed value names its dictionary id in its zstd
# frame header, and every dictionary ever used stays bundled. The binary is TEU_BIN when set, else a
# debug build.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:?raw or bodies}
id=${2:?dictionary id}
case $kind in
  raw) out=store/dictionaries/raw-events-$id.zdict; [ "$id" -ge 1 ] && [ "$id" -le 100 ] ;;
  bodies) out=store/dictionaries/event-bodies-$id.zdict; [ "$id" -ge 101 ] && [ "$id" -le 200 ] ;;
  containers) out=store/dictionaries/container-bodies-$id.zdict; [ "$id" -ge 201 ] && [ "$id" -le 300 ] ;;
  shipments) out=store/dictionaries/shipment-bodies-$id.zdict; [ "$id" -ge 301 ] && [ "$id" -le 400 ] ;;
  checks) out=store/dictionaries/terminal-checks-$id.zdict; [ "$id" -ge 401 ] && [ "$id" -le 500 ] ;;
  deadlines) out=store/dictionaries/line-deadlines-$id.zdict; [ "$id" -ge 501 ] && [ "$id" -le 600 ] ;;
  events) out=store/dictionaries/stored-events-$id.zdict; [ "$id" -ge 601 ] && [ "$id" -le 700 ] ;;
  *) echo "unknown kind $kind: raw, bodies, events, containers, shipments, checks or deadlines" >&2; exit 2 ;;
esac || { echo "dictionary id $id is outside the range of $kind" >&2; exit 2; }
[ ! -e "$out" ] || { echo "$out exists: dictionaries never change, pick a new id" >&2; exit 2; }
if [ -z "${TEU_BIN:-}" ]; then
  cargo build --bin teu --quiet
  TEU_BIN=$PWD/target/debug/teu
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ "$kind" = checks ] || [ "$kind" = deadlines ]; then
  "$TEU_BIN" simulate --containers 2000 --seed 20261126 "$work/feed" >/dev/null
  mkdir "$work/samples"
  # shellcheck disable=SC2046 # one argument per file
  cargo run -p teu-feeds --example fact_rows --quiet -- "$work/samples" $(find "$work/feed/terminal" -type f | sort)
  zstd -q --train "$work/samples/${kind%s}"-*.txt --maxdict=32768 --dictID="$id" -o "$out"
  ls -l "$out"
  exit
fi
if [ "$kind" = containers ] || [ "$kind" = shipments ]; then
  "$TEU_BIN" simulate --containers 2000 --seed 20261126 "$work/feed" >/dev/null
  export DATABASE_URL=sqlite:$work/records.db RUST_LOG=warn
  "$TEU_BIN" accounts create --name samples >/dev/null
  mapfile -t files < <(find data/dcsa -name '*.json' ! -name '*wrong*' | sort
    find "$work/feed/dcsa" "$work/feed/terminal" "$work/feed/rail" -type f | sort)
  "$TEU_BIN" ingest --account samples "${files[@]}" >/dev/null
  mkdir "$work/samples"
  cargo run -p teu-store --example record_bodies --quiet -- "$DATABASE_URL" "$work/samples"
  sample=${kind%s}
  zstd -q --train "$work/samples/$sample"-*.json --maxdict=32768 --dictID="$id" -o "$out"
  ls -l "$out"
  exit
fi
"$TEU_BIN" simulate --containers 400 --seed 20261126 "$work/feed" >/dev/null
if [ "$kind" = bodies ] || [ "$kind" = events ]; then
  files=$(find data/dcsa data/dcsa-cases "$work/feed/dcsa" "$work/feed/rail" -name '*.json' ! -name expected.json | sort)
  # shellcheck disable=SC2086 # one argument per file
  cargo run -p teu-feeds --example event_bodies --quiet -- "$work" $files
  # A stored event is body and payload together: twice the text, twice the dictionary.
  if [ "$kind" = bodies ]; then
    zstd -q --train "$work"/body-*.json --maxdict=32768 --dictID="$id" -o "$out"
  else
    zstd -q --train "$work"/event-*.txt --maxdict=65536 --dictID="$id" -o "$out"
  fi
  ls -l "$out"
  exit
fi
python3 - "$work" <<'PY'
import glob, json, sys
work = sys.argv[1]
files = sorted(glob.glob('data/dcsa/*.json') + glob.glob('data/dcsa-cases/*/*.json'))
files += sorted(glob.glob(work + '/feed/dcsa/*.json') + glob.glob(work + '/feed/rail/*.json'))
n = 0
for f in files:
    if f.endswith('expected.json'):
        continue
    try:
        v = json.load(open(f))
    except ValueError:
        continue
    if isinstance(v, dict):
        v = v.get('events', [])
    for e in v if isinstance(v, list) else []:
        if isinstance(e, dict):
            with open(f'{work}/sample-{n}.json', 'w') as s:
                s.write(json.dumps(e, separators=(',', ':'), ensure_ascii=False))
            n += 1
print(f'{n} samples', file=sys.stderr)
PY
zstd -q --train "$work"/sample-*.json --maxdict=32768 --dictID="$id" -o "$out"
ls -l "$out"
