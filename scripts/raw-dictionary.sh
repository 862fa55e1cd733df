#!/usr/bin/env bash
# Trains the zstd dictionary the store compresses raw carrier payloads with
# (store/dictionaries/raw-events-N.zdict, read by teu_store::payloads).
#
#   scripts/raw-dictionary.sh N        (N: the dictionary id, one more than the newest)
#
# Samples: every DCSA event of the bundled real Track & Trace examples (data/dcsa,
# data/dcsa-cases) and the DCSA and rail events of a small `teu simulate` feed (400 containers,
# seed 20261126: not a seed any benchmark or test uses), one JSON object per sample, as the
# readers store them. A dictionary never changes once released: each compressed payload names
# its dictionary id in its zstd frame header, and every dictionary ever used stays bundled.
# The binary is TEU_BIN when set, else a debug build.
set -euo pipefail
cd "$(dirname "$0")/.."
id=${1:?dictionary id}
out=store/dictionaries/raw-events-$id.zdict
[ ! -e "$out" ] || { echo "$out exists: dictionaries never change, pick a new id" >&2; exit 2; }
if [ -z "${TEU_BIN:-}" ]; then
  cargo build --bin teu --quiet
  TEU_BIN=$PWD/target/debug/teu
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$TEU_BIN" simulate --containers 400 --seed 20261126 "$work/feed" >/dev/null
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
