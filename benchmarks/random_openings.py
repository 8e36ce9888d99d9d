#!/usr/bin/env python3
"""Balanced random openings for standard chess, for A/B matches (`varia match --openings`).

Usage: benchmarks/random_openings.py COUNT OUT [SEED]

Each line is 6 to 8 uniformly random plies from the start, kept when Fairy-Stockfish at
depth 10 scores the position within 70 centipawns (and no two lines reach the same
board). Needs python-chess and Fairy-Stockfish (/usr/games/fairy-stockfish).
benchmarks/openings/standard-random.txt is `random_openings.py 300 ... 7`.
"""
import random
import sys

import chess
import chess.engine


def main() -> None:
    count, out = int(sys.argv[1]), sys.argv[2]
    random.seed(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    engine = chess.engine.SimpleEngine.popen_uci("/usr/games/fairy-stockfish")
    lines, seen = [], set()
    while len(lines) < count:
        board = chess.Board()
        for _ in range(random.choice([6, 7, 8])):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(random.choice(moves))
        if board.is_game_over() or board.board_fen() in seen:
            continue
        score = engine.analyse(board, chess.engine.Limit(depth=10))["score"].white().score(mate_score=100000)
        if abs(score) > 70:
            continue
        seen.add(board.board_fen())
        lines.append(" ".join(m.uci() for m in board.move_stack))
    engine.quit()
    with open(out, "w") as f:
        f.write("# random 6-8 plies, Fairy-Stockfish depth 10 within 70 cp (benchmarks/random_openings.py)\n")
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
