#!/usr/bin/env python3
"""Where a match was lost, move by move: every move of a `varia match` PGN scored by an
oracle engine before and after it was played.

Usage: benchmarks/blunders.py VARIA VARIANT PGN [DEPTH] [--games N] [--json OUT.jsonl]

VARIA is the varia binary (it reads the PGN: `varia replay VARIANT --pgn PGN --game N
--json` gives each game's moves as from-to), VARIANT a varia variant name; the oracle is
Fairy-Stockfish (/usr/games/fairy-stockfish) at DEPTH plies (default 12) with
`UCI_Variant` from the PGN's `Variant` tag (Standard is `chess`). A move's drop is the
oracle's score for the mover before it minus after it (centipawns, mates as ±10,000):
what the move gave away in the oracle's eyes. Prints, for varia's moves and the other
player's, the mean drop (each clipped to ±500, so lost games do not swamp it) and the
share of big drops (≥ 250) from positions still within ±400, then varia's big drops
(game, ply, move, before, after, and varia's own comment: its score/depth). The oracle's
scores at a fixed depth are themselves noisy (more so in capablanca): read a single big
drop as a position to look at, the rates as a comparison between runs at equal depth.
"""
import argparse
import json
import re
import subprocess
import sys

from swings import games as pgn_games

FSF = "/usr/games/fairy-stockfish"
MATE = 10_000


class Oracle:
    def __init__(self, variant: str, depth: int) -> None:
        self.p = subprocess.Popen([FSF], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self.depth = depth
        self.send("uci")
        self.wait("uciok")
        self.send(f"setoption name UCI_Variant value {variant}")
        self.send("isready")
        self.wait("readyok")

    def send(self, line: str) -> None:
        assert self.p.stdin is not None
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def wait(self, prefix: str) -> str:
        assert self.p.stdout is not None
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit("the oracle stopped")
            if line.startswith(prefix):
                return line

    def score(self, moves: list) -> int:
        """The score for the side to move after `moves` from the start."""
        self.send("position startpos moves " + " ".join(moves))
        self.send(f"go depth {self.depth}")
        score = 0
        while True:
            line = self.wait("")
            m = re.search(r" score (cp|mate) (-?\d+)", line)
            if m and line.startswith("info depth"):
                n = int(m.group(2))
                score = n if m.group(1) == "cp" else (MATE if n > 0 else -MATE)
            if line.startswith("bestmove"):
                return score


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("varia")
    ap.add_argument("variant")
    ap.add_argument("pgn")
    ap.add_argument("depth", nargs="?", type=int, default=12)
    ap.add_argument("--games", type=int, default=0, help="the first N games only")
    ap.add_argument("--json", help="write every move's line here (JSON lines)")
    a = ap.parse_args()

    games = list(pgn_games(open(a.pgn, encoding="utf-8").read()))
    if a.games:
        games = games[: a.games]
    tag = games[0][0].get("Variant", "standard").lower() if games else "standard"
    fsf_variant = "chess" if tag == "standard" else tag
    oracle = Oracle(fsf_variant, a.depth)
    out = open(a.json, "w", encoding="utf-8") if a.json else None
    rows = []
    for gi, (tags, comments) in enumerate(games, 1):
        varia_white = tags.get("White", "").startswith("varia")
        replay = subprocess.run(
            [a.varia, "replay", a.variant, "--pgn", a.pgn, "--game", str(gi), "--json"],
            capture_output=True, text=True, check=True,
        )
        moves = [m.replace("-", "").replace("=", "").lower() for m in json.loads(replay.stdout)["history"]["moves"]]
        oracle.send("ucinewgame")
        before = oracle.score([])
        for i, move in enumerate(moves):
            after = oracle.score(moves[: i + 1])
            row = {
                "game": gi,
                "ply": i + 1,
                "varia": (i % 2 == 0) == varia_white,
                "move": move,
                "before": before,
                "after": -after,
                "drop": before + after,
                "comment": comments[i] if i < len(comments) else "",
            }
            rows.append(row)
            if out:
                out.write(json.dumps(row) + "\n")
            before = after
            if abs(after) >= MATE:
                break
        print(f"game {gi}: {len(moves)} plies", file=sys.stderr)

    def summary(mine: bool) -> str:
        own = [r for r in rows if r["varia"] == mine and "book" not in r["comment"]]
        if not own:
            return "no moves"
        mean = sum(max(-500, min(500, r["drop"])) for r in own) / len(own)
        open_ = [r for r in own if abs(r["before"]) < 400]
        big = [r for r in open_ if r["drop"] >= 250]
        share = 100 * len(big) / max(1, len(open_))
        return f"{len(own)} moves, mean drop {mean:.1f} cp, big drops {len(big)}/{len(open_)} ({share:.1f}%)"

    print(f"varia:    {summary(True)}")
    print(f"opponent: {summary(False)}")
    for r in rows:
        if r["varia"] and "book" not in r["comment"] and abs(r["before"]) < 400 and r["drop"] >= 250:
            print(f"  game {r['game']} ply {r['ply']}: {r['move']} {r['before']:+} -> {r['after']:+}  ({r['comment']})")


if __name__ == "__main__":
    main()
