#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets into fuzz/corpus/<target>/ from the
repository's fixtures and scripts (a few dozen files per target; nothing here is
committed but this script). Run from anywhere: `python3 fuzz/seed.py [path/to/varia]`.
The JSON snapshots come from `varia replay --json` (default: target/release/varia, else
target/debug/varia)."""

import hashlib
import random
import subprocess
import sys
import tomllib
from pathlib import Path

FUZZ = Path(__file__).resolve().parent
ROOT = FUZZ.parent
CORPUS = FUZZ / "corpus"
TWO_SIDED = ["standard", "decachess", "chessception"]
PER_TARGET = 40


def put(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def fixtures(variant):
    out = []
    for f in sorted((ROOT / "fixtures" / variant).glob("*.toml")):
        try:
            out.append((f, tomllib.loads(f.read_text())))
        except tomllib.TOMLDecodeError:
            pass
    return out


def main():
    rng = random.Random(10)  # the same corpus on every run
    varia = Path(sys.argv[1]) if len(sys.argv) > 1 else next(
        (p for p in [ROOT / "target/release/varia", ROOT / "target/debug/varia"] if p.exists()), None)
    fens, moves = [], []
    for i, v in enumerate(TWO_SIDED):
        setup = tomllib.loads((ROOT / "scripts" / v / "variant.toml").read_text()).get("setup")
        if setup:
            fens.append((i, setup))
        for f, doc in fixtures(v):
            if isinstance(doc.get("fen"), str):
                fens.append((i, doc["fen"]))
            if isinstance(doc.get("moves"), list) and doc["moves"]:
                moves.append((i, " ".join(map(str, doc["moves"])), doc.get("fen")))
    rng.shuffle(fens)
    for i, fen in fens[:PER_TARGET]:
        put("fen", bytes([i]) + fen.encode() + bytes([0, 1, 2, 3]))
    rng.shuffle(moves)
    for i, text, _ in moves[:PER_TARGET]:
        put("move_text", bytes([i]) + text.encode())

    # Snapshots: the replayed fixtures without a FEN (mode byte even: the variant).
    n = 0
    for i, text, fen in moves:
        if varia is None or n >= PER_TARGET // 2:
            break
        args = [str(varia), "replay", TWO_SIDED[i], *text.split(), "--json"]
        if fen:
            args[3:3] = ["--fen", fen]
        r = subprocess.run(args, capture_output=True, cwd=ROOT)
        if r.returncode == 0:
            put("snapshot_json", bytes([2 * i]) + r.stdout)
            n += 1
    for _ in range(PER_TARGET // 2):
        put("snapshot_json", bytes([1]) + rng.randbytes(rng.randrange(8, 200)))

    # Fixtures as they are, from every variant's folder.
    every = [f for d in sorted((ROOT / "fixtures").iterdir()) if d.is_dir() for f in sorted(d.glob("*.toml"))]
    rng.shuffle(every)
    for f in every[:PER_TARGET]:
        put("fixture_toml", f.read_bytes())

    # Structured inputs: random bytes, which `arbitrary` reads as edits and programs.
    for t in ["variant_toml", "lua_hooks"]:
        for _ in range(PER_TARGET // 2):
            put(t, rng.randbytes(rng.randrange(16, 400)))
    for t in sorted(p.name for p in CORPUS.iterdir()):
        print(t, len(list((CORPUS / t).iterdir())))


if __name__ == "__main__":
    main()
