#!/usr/bin/env python3
"""Random playouts of standard chess with python-chess, for `varia bench selfplay`.

A playout: from the start, a uniformly random legal move until the game is over,
checking the end after every ply: with `claim`, the same end rules as varia's standard
chess (checkmate, stalemate, insufficient material, and the draws a player may claim:
the 50-move rule and threefold repetition, which varia applies at once); with
`noclaim`, python-chess's default `is_game_over()` (its automatic 75-move and fivefold
rules: longer games, and much cheaper checks).

Usage: python_chess_playouts.py PLAYOUTS SEED claim|noclaim
Prints one JSON line: {"playouts", "plies", "seconds"}.
"""
import json
import random
import sys
import time

import chess


def main():
    playouts = int(sys.argv[1])
    rng = random.Random(int(sys.argv[2]))
    claim = sys.argv[3] == "claim"
    plies = 0
    start = time.perf_counter()
    for _ in range(playouts):
        board = chess.Board()
        while not board.is_game_over(claim_draw=claim):
            board.push(rng.choice(list(board.legal_moves)))
            plies += 1
    seconds = time.perf_counter() - start
    print(json.dumps({"playouts": playouts, "plies": plies, "seconds": seconds}))


if __name__ == "__main__":
    main()
