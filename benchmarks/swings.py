#!/usr/bin/env python3
"""Won positions that were not won: a `varia match` PGN read through the players' own
scores (the comments `varia match` writes after every move), no oracle needed.

Usage: benchmarks/swings.py PGN [--player varia] [--ahead 3.0] [--list N]

For each game, the opponent's score after each of its moves, turned to the player's
view, says how the game stood in the opponent's eyes. A game counts as *ahead* where
that view reached `--ahead` pawns (default 3.00) at some move, and as *behind* where it
fell to minus that. Prints, over the games: how many were ahead, and of those how many
the player won, drew and lost; the same for the games behind (lost, saved); then up to
`--list` games ahead and not won (default 10), each with the ply of its best moment, the
first ply after it where the opponent's view fell below 0, and the player's own score at
its next move — how far the player's judgement was from the opponent's when the game
turned. The player is the side whose `White`/`Black` tag starts with `--player`.
"""
import argparse
import re
import sys

COMMENT = re.compile(r"\{([^}]*)\}")
SCORE = re.compile(r"^([+-])(M?)(\d+(?:\.\d+)?)/\d+")


def score(comment: str):
    """The mover's score in pawns from a `+0.55/8 0.06s` comment (mates as ±100), or None."""
    m = SCORE.match(comment.strip())
    if not m:
        return None
    v = 100.0 if m.group(2) else float(m.group(3))
    return v if m.group(1) == "+" else -v


def games(text: str):
    """Each finished game of a PGN, in file order: its tags and its move comments (one per
    ply, as `varia match` writes them). Also read by blunders.py."""
    for block in re.split(r"\n(?=\[Event )", text):
        tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]', block, re.M))
        if "Result" not in tags:
            continue
        body = block[block.rfind("]\n") + 2 :] if "]\n" in block else block
        yield tags, COMMENT.findall(body)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pgn")
    ap.add_argument("--player", default="varia")
    ap.add_argument("--ahead", type=float, default=3.0)
    ap.add_argument("--list", type=int, default=10)
    a = ap.parse_args()
    try:
        text = open(a.pgn, encoding="utf-8").read()
    except OSError as e:
        print(f"swings.py: cannot read {a.pgn}: {e}", file=sys.stderr)
        return 2
    ahead = {"won": 0, "drawn": 0, "lost": 0}
    behind = {"saved": 0, "lost": 0}
    turned = []
    n = 0
    for number, (tags, comments) in enumerate(games(text), 1):
        scores = [score(c) for c in comments]
        white = tags.get("White", "").startswith(a.player)
        if not white and not tags.get("Black", "").startswith(a.player):
            continue
        result = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get(tags["Result"])
        if result is None:
            continue
        n += 1
        mine = result if white else 1 - result
        # The first comment is the first move's; with a FEN, black may move first.
        black_first = tags.get("FEN", "").split(" ")[1:2] == ["b"]
        view = []  # (ply, opponent's score from the player's view, player's own score)
        for ply, s in enumerate(scores):
            mover_white = (ply % 2 == 0) != black_first
            if s is None:
                continue
            if mover_white == white:
                view.append((ply + 1, None, s))
            else:
                view.append((ply + 1, -s, None))
        theirs = [(p, v) for p, v, _ in view if v is not None]
        if any(v >= a.ahead for _, v in theirs):
            ahead["won" if mine == 1 else "drawn" if mine == 0.5 else "lost"] += 1
            if mine < 1:
                best = max(theirs, key=lambda pv: pv[1])
                after = next(((p, v) for p, v in theirs if p > best[0] and v < 0), None)
                own = None
                if after:
                    own = next((s for p, _, s in view if p > after[0] and s is not None), None)
                turned.append((number, mine, best, after, own))
        if any(v <= -a.ahead for _, v in theirs):
            behind["saved" if mine > 0 else "lost"] += 1
    if n == 0:
        print(f"swings.py: no finished game of a player named {a.player}* in {a.pgn}", file=sys.stderr)
        return 1
    total = sum(ahead.values())
    print(f"{n} games of {a.player}; the opponent's score said {a.player} was {a.ahead:+.2f} or better in {total}:")
    print(f"  won {ahead['won']}, drawn {ahead['drawn']}, lost {ahead['lost']}")
    print(f"behind by {a.ahead:.2f} or more in {sum(behind.values())}: lost {behind['lost']}, saved {behind['saved']}")
    for number, mine, best, after, own in turned[: a.list]:
        res = {0.5: "drawn", 0.0: "lost"}[mine]
        line = f"  game {number} ({res}): best {best[1]:+.2f} at ply {best[0]}"
        if after:
            line += f"; below 0 at ply {after[0]} ({after[1]:+.2f})"
            line += f", {a.player}'s own score next: {own:+.2f}" if own is not None else ""
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
