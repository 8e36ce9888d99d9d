// Draws a game's state as a grid of squares of any rectangular size: pieces (a glyph
// for the chess names, else the variant's letter), frozen and waiting pieces marked
// (❄, ⏳), hit points as a bar and a number,
// the last move, check, the legal targets of the picked piece, and the damage of the
// last action on the squares it hit. It only reads the state the server sends.

const GLYPHS = { king: '♚', queen: '♛', rook: '♜', bishop: '♝', knight: '♞', pawn: '♟' };

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function details(sq, p) {
  let t = `${p.side} ${p.kind} on ${sq}`;
  if (p.hp !== undefined) {
    t += `: ${p.hp}/${p.max_hp} HP`;
    if (p.multiplier > 1) t += `, attacks ×${p.multiplier} (${p.stacks} knight stacks)`;
    if (p.guarded) t += ', guarded by its king (damage halved)';
  }
  if (p.frozen) t += ', frozen';
  if (p.waiting) t += ', waiting';
  return t;
}

// The damage each square took in the last action (several hits add up).
function damageBySquare(events) {
  const out = new Map();
  for (const e of events || []) {
    if (e.data && e.data.event === 'damaged') {
      out.set(e.data.square, (out.get(e.data.square) || 0) + e.data.amount);
    }
  }
  return out;
}

// Renders `state` into `root`; `picked` is the picked square and `targets` its target
// squares (`shots` those it shoots at: a ranged capture, the shooter staying), `landings`
// the squares an attack may land on (green dots); `onClick(square)`
// hears every click on a square.
export function render(root, state, { picked = null, targets = [], shots = [], landings = [], onClick }) {
  root.replaceChildren();
  root.style.gridTemplateColumns = `repeat(${state.files}, var(--sq))`;
  root.dataset.files = state.files;
  root.dataset.ranks = state.ranks;
  const last = state.last_move;
  const checks = new Set(state.check_squares);
  const movable = new Set(state.movable);
  const damage = damageBySquare(state.events);
  const targetSet = new Set(targets);
  const landingSet = new Set(landings);
  const shotSet = new Set(shots);
  for (const s of state.squares) {
    const cell = el('div', `square ${s.light ? 'light' : 'dark'}`);
    cell.dataset.square = s.name;
    cell.setAttribute('role', 'gridcell');
    if (last && (last.from === s.name || last.to === s.name)) cell.classList.add('last');
    if (checks.has(s.name)) cell.classList.add('check');
    if (picked === s.name) cell.classList.add('picked');
    if (targetSet.has(s.name)) cell.classList.add('target');
    if (landingSet.has(s.name)) cell.classList.add('landing');
    if (shotSet.has(s.name)) cell.classList.add('shot');
    if (movable.has(s.name)) cell.classList.add('movable');
    if (s.file === 0) cell.append(el('span', 'coord rank', String(s.rank + 1)));
    if (s.rank === 0) cell.append(el('span', 'coord file', s.name.replace(/[0-9]+$/, '')));
    const p = s.piece;
    if (p) {
      const piece = el('div', `piece ${p.side}`, GLYPHS[p.kind] || p.letter.toUpperCase());
      piece.dataset.kind = p.kind;
      piece.title = details(s.name, p);
      cell.append(piece);
      // A frozen pawn (promoted with an empty graveyard) and a returned piece that waits.
      if (p.frozen) cell.append(el('span', 'badge frozen', '❄'));
      if (p.waiting) cell.append(el('span', 'badge waiting', '⏳'));
      if (p.hp !== undefined) {
        const bar = el('div', 'hpbar');
        const fill = el('div', 'hpfill');
        fill.style.width = `${Math.round((100 * p.hp) / Math.max(1, p.max_hp))}%`;
        bar.append(fill);
        cell.append(bar, el('span', 'hp', `${p.hp}/${p.max_hp}`));
        if (p.multiplier > 1) cell.append(el('span', 'stacks', '•'.repeat(Math.min(p.stacks, 3))));
        if (p.guarded) cell.classList.add('guarded');
      }
    }
    if (damage.has(s.name)) cell.append(el('span', 'damage', `−${damage.get(s.name)}`));
    cell.addEventListener('click', () => onClick(s.name));
    root.append(cell);
  }
}
