// Animation from the runtime's events, in their order: a move slides its piece, damage
// floats its number up from the square hit, a capture or a kill fades the piece out, a
// solo strike flashes its square and its points float up, a cleared square fades its
// last piece. Everything is short (each effect 180 ms, started at most 120 ms after the
// first: done within 300 ms), skippable (Escape, or any click, finishes it), and off
// under `prefers-reduced-motion: reduce`. It only reads the events the server sent;
// the board already shows the state after them.

const GLYPHS = { king: '♚', queen: '♛', rook: '♜', bishop: '♝', knight: '♞', pawn: '♟' };
const DURATION = 180;
const SPREAD = 120;

export const reducedMotion = () => window.matchMedia('(prefers-reduced-motion: reduce)').matches;

// Finishes every running effect at once.
export function skip() {
  for (const a of document.getAnimations()) a.finish();
}

document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape') skip();
});
document.addEventListener('pointerdown', skip, true);

function cell(board, name) {
  return name ? board.querySelector(`[data-square="${CSS.escape(name)}"]`) : null;
}

function mark(board, name, cls, text, order, delay, keyframes) {
  const c = cell(board, name);
  if (!c) return;
  const e = document.createElement('span');
  e.className = `fx ${cls}`;
  e.textContent = text;
  e.dataset.order = String(order);
  c.append(e);
  e.animate(keyframes, { duration: DURATION, delay, easing: 'ease-out', fill: 'both' });
}

const FLOAT = [
  { transform: 'translateY(0)', opacity: 1 },
  { transform: 'translateY(-60%)', opacity: 0 },
];
const FADE = [{ opacity: 0.9 }, { opacity: 0 }];
const FLASH = [{ opacity: 0.8 }, { opacity: 0 }];

// The effects of `events` (as the API sends them: `{text, data}`) on `board`, just
// drawn in the state after them. Returns how many effects were started.
export function animate(board, events) {
  if (!events || events.length === 0 || reducedMotion()) return 0;
  const step = events.length > 1 ? SPREAD / (events.length - 1) : 0;
  let n = 0;
  let struck = null;
  events.forEach((ev, i) => {
    const d = ev.data || {};
    const delay = Math.round(i * step);
    switch (d.event || d.type) {
      case 'moved':
      case 'landed': {
        const from = cell(board, d.from);
        const piece = cell(board, d.to)?.querySelector('.piece');
        if (!from || !piece) break;
        const a = from.getBoundingClientRect();
        const b = piece.parentElement.getBoundingClientRect();
        piece.dataset.slid = String(i);
        piece.animate([{ transform: `translate(${a.left - b.left}px, ${a.top - b.top}px)` }, { transform: 'none' }], {
          duration: DURATION,
          delay,
          easing: 'ease-out',
          fill: 'backwards',
        });
        n++;
        break;
      }
      case 'damaged':
        mark(board, d.square, 'fx-damage', `−${d.amount}`, i, delay, FLOAT);
        n++;
        break;
      case 'captured':
      case 'killed':
      case 'exploded':
      case 'removed':
        mark(board, d.square, 'fx-fade', GLYPHS[d.kind] || (d.kind || '?')[0].toUpperCase(), i, delay, FADE);
        n++;
        break;
      case 'struck':
        struck = d.square;
        mark(board, d.square, 'fx-strike', '', i, delay, FLASH);
        n++;
        break;
      case 'cleared':
        mark(board, d.square, 'fx-fade', '', i, delay, FADE);
        n++;
        break;
      case 'scored':
        if (struck) {
          mark(board, struck, 'fx-points', `+${(d.points / 10).toFixed(1)}`, i, delay, FLOAT);
          n++;
        }
        break;
      default:
        break;
    }
  });
  return n;
}
