"""End-to-end check of `varia uci` with python-chess's engine module (run by
cli/tests/uci_python.rs): handshake, options, analysis, a mate, a promotion, clocks,
stop, and a short game whose every move python-chess checks for legality."""
import sys

import chess
import chess.engine

varia = sys.argv[1]
engine = chess.engine.SimpleEngine.popen_uci([varia, "uci"], timeout=60)
assert engine.id["name"].startswith("varia"), engine.id
for option in ("UCI_Variant", "Level", "Hash", "Seed"):
    assert option in engine.options, (option, list(engine.options))
assert "chess" in engine.options["UCI_Variant"].var, engine.options["UCI_Variant"].var
engine.configure({"Level": "veteran", "Hash": 8})

# Analysis to a depth: the score and the line are reported, the line is legal.
board = chess.Board()
info = engine.analyse(board, chess.engine.Limit(depth=3))
assert info["depth"] == 3, info
assert info["score"].relative.score() is not None, info
line = board.copy()
for move in info["pv"]:
    assert move in line.legal_moves, (move, line.fen())
    line.push(move)

# Mate in one is found and reported as a mate.
mate = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
info = engine.analyse(mate, chess.engine.Limit(depth=2))
assert info["score"].relative == chess.engine.Mate(1), info
assert engine.play(mate, chess.engine.Limit(depth=2)).move == chess.Move.from_uci("a1a8")

# A promotion is written with its letter: the pawn queens (or mates on the way).
promo = chess.Board("8/P6k/8/8/8/8/8/K7 w - - 0 1")
assert engine.play(promo, chess.engine.Limit(depth=3)).move == chess.Move.from_uci("a7a8q")

# Clocks and an infinite analysis that python-chess stops.
result = engine.play(board, chess.engine.Limit(white_clock=2, black_clock=2, white_inc=0.05, black_inc=0.05))
assert result.move in board.legal_moves, result
with engine.analysis(board) as analysis:
    for info in analysis:
        if info.get("depth", 0) >= 2:
            break

# A short game at 30 ms a move: python-chess refuses any illegal move.
engine.configure({"Level": "master"})
game = chess.Board()
for _ in range(16):
    if game.is_game_over():
        break
    result = engine.play(game, chess.engine.Limit(time=0.03))
    assert result.move in game.legal_moves, (result.move, game.fen())
    game.push(result.move)
assert len(game.move_stack) >= 10, game.move_stack
engine.quit()
print("ok", len(game.move_stack), "plies")
