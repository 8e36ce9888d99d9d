-- Chessception: the rules written in Lua. (The hook catalogue and the `game` object are
-- described in scripts/README.md.)
--
-- King-repeat (CC-19, A-CC23): when a king arrives on the same square for the third time
-- by plain king moves, with its side moving nothing else, no castling, and no damage by
-- either side in between, the game is drawn. The limit is `params.king_repeat` in
-- variant.toml. (The same rule exists in TOML as `draws.royal_repeat`; it is written here
-- to show how a rule lives in Lua.)
--
-- The counts live in the game (game:set), never in Lua globals, so that undo and the
-- rollback of a failed action restore them.

-- The variables' names per side, made once (not a new string per call).
local key = { white = "king_repeat_white", black = "king_repeat_black" }

-- Counts are kept as ";e1=2;f1=1;": one entry per square.
local function count(game, side, square)
  local s = game:get(key[side]) or ""
  return tonumber(s:match(";" .. square .. "=(%d+);")) or 0
end

local function set_count(game, side, square, n)
  local s = (game:get(key[side]) or ""):gsub(";" .. square .. "=%d+;", ";")
  if s == "" then s = ";" end
  game:set(key[side], s .. square .. "=" .. n .. ";")
end

function on_turn_end(game)
  -- After the action it is the other side's turn: the mover is the side not to move.
  local mover = game:to_move() == "white" and "black" or "white"
  local damage, castled, king_to = false, false, nil
  local events = game:events()
  for i = 1, #events do
    local e = events[i]
    local event = e.event
    if event == "moved" then
      if e.kind == "king" and e.side == mover then king_to = e.to end
    elseif event == "damaged" then
      if e.amount > 0 then damage = true end
    elseif event == "castled" then
      castled = true
    end
  end
  if damage then
    -- Any damage, by either side, starts both counts again.
    game:set(key.white, nil)
    game:set(key.black, nil)
  elseif castled or king_to == nil then
    -- Any other move of that side (or castling) starts its count again.
    game:set(key[mover], nil)
  else
    local n = count(game, mover, king_to) + 1
    set_count(game, mover, king_to, n)
    if n >= game:param("king_repeat") then
      game:end_game("draw", "king-repeat")
    end
  end
end
