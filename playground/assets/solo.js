// The forge board of a solo variant (`[turns] model = "solo"`, Chessic): a level and a
// seed to deal from (the same board `varia play --level L --seed S` deals), squares to
// click (the first strike anywhere, then a gold target), each square's hits as pips and
// its wear state, the score part by part and what is in progress (chain, runs,
// sequences), the clock with pause (the board is hidden while paused), undo, and the
// end (forged or cooled) with the final score. Every number comes from the server: the
// page only counts the clock on between replies when the server's clock is the
// system's.
import * as api from './api.js';
import { animate } from './fx.js';

const $ = (id) => document.getElementById(id);

const solo = {
  state: null,
  // When the state was fetched (performance.now()), to count the clock on.
  fetched: 0,
  busy: false,
  ctx: null,
};

const tenths = (t) => (t / 10).toFixed(1);

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

export const active = () => solo.state !== null;

function clockMs() {
  const s = solo.state;
  const c = s.clock;
  let ms = c.elapsed_ms;
  if (s.status === 'playing' && !c.paused && !c.manual) ms += Math.max(0, performance.now() - solo.fetched);
  return ms;
}

function drawClock() {
  const s = solo.state;
  if (!s) return;
  const c = s.clock;
  const secs = Math.floor(clockMs() / 1000);
  let text;
  if (c.rule === 'countdown') text = `countdown: ${Math.max(0, Math.floor((c.countdown_ms - clockMs()) / 1000))} s left`;
  else text = `time: ${secs} s`;
  if (c.paused) text += ' (paused)';
  $('solo-clock').textContent = text;
  $('solo-clock').dataset.ms = String(c.elapsed_ms);
}

function drawBoard(root) {
  const s = solo.state;
  root.replaceChildren();
  root.style.gridTemplateColumns = `repeat(${s.files}, var(--sq))`;
  root.dataset.files = s.files;
  root.dataset.ranks = s.ranks;
  root.classList.add('forge');
  if (s.clock.paused) {
    root.style.gridTemplateColumns = '';
    root.append(el('div', 'paused-note', 'The forge is paused: the board is hidden and the clock stopped.'));
    return;
  }
  const last = s.last?.square;
  for (const q of s.squares) {
    const c = el('div', `square ${q.light ? 'light' : 'dark'} hits-${q.hits}`);
    c.dataset.square = q.name;
    c.dataset.hits = String(q.hits);
    c.setAttribute('role', 'gridcell');
    c.title = `${q.name}: ${q.state}${q.piece ? `, shows a ${q.piece.kind}` : ''}${q.target ? ' (gold target)' : ''}`;
    if (q.target) c.classList.add('gold', 'movable');
    if (!q.piece) c.classList.add('cleared');
    if (q.name === last) c.classList.add('last');
    if (q.file === 0) c.append(el('span', 'coord rank', String(q.rank + 1)));
    if (q.rank === 0) c.append(el('span', 'coord file', q.name.replace(/[0-9]+$/, '')));
    if (q.piece) {
      const p = el('div', 'piece forge-piece', q.piece.letter);
      p.dataset.kind = q.piece.kind;
      c.append(p);
      // One pip per strike taken, out of the strikes that clear the square.
      const pips = el('span', 'pips');
      for (let i = 0; i < s.layers; i++) pips.append(el('span', i < q.hits ? 'pip hit' : 'pip'));
      c.append(pips);
    }
    c.addEventListener('click', () => strike(q.name));
    root.append(c);
  }
}

function drawScore() {
  const s = solo.state;
  const table = $('solo-breakdown');
  table.replaceChildren();
  for (const part of s.breakdown) {
    const tr = el('tr');
    tr.dataset.key = part.key;
    tr.append(el('td', null, part.label), el('td', 'num', tenths(part.tenths)));
    table.append(tr);
  }
  const total = el('tr', 'total');
  total.dataset.key = 'total';
  total.append(el('td', null, 'total'), el('td', 'num', tenths(s.score.total)));
  table.append(total);
  const p = s.progress;
  const bits = [p.chain ? `chain: ${p.chain.kind} ×${p.chain.length} (${tenths(p.chain.points)} a strike)` : 'chain: none'];
  for (const r of p.runs) bits.push(`${r.name} run: ${r.count} of ${r.every}`);
  for (const q of p.sequences) bits.push(`${q.name}: ${q.count} of ${q.of}`);
  bits.push(`layers completed: ${s.layers_completed} of ${s.layers}`);
  $('solo-progress').textContent = bits.join(' · ');
}

function draw() {
  const s = solo.state;
  drawBoard($('board'));
  drawScore();
  drawClock();
  let line;
  if (s.outcome) line = `${s.outcome.text} Final score: ${tenths(s.score.total)}`;
  else if (s.clock.paused) line = 'Paused';
  else if (!s.last) line = 'First strike: any unfinished square';
  else line = `Last strike: the ${s.last.kind} on ${s.last.square}; ${s.targets.length} gold targets`;
  $('status').textContent = line;
  $('status').className = s.outcome ? `over ${s.status}` : '';
  $('status').dataset.status = s.status;
  $('moves').textContent = s.strikes.join(' ');
  $('solo-pause').textContent = s.clock.paused ? 'Resume' : 'Pause';
  $('solo-pause').disabled = !s.clock.can_pause || s.status !== 'playing';
  const note = $('reload-note');
  if (s.rules_note) {
    note.hidden = false;
    note.textContent = s.rules_note;
  }
}

function take(state) {
  solo.state = state;
  solo.fetched = performance.now();
  $('solo-panel').dataset.id = state.id;
  draw();
}

async function strike(square) {
  const s = solo.state;
  if (!s || s.outcome || s.clock.paused || solo.busy) return;
  const q = s.squares.find((x) => x.name === square);
  if (!q || !q.target) return;
  solo.busy = true;
  try {
    const r = await api.strike(s.id, square);
    take(r.state);
    solo.ctx.showError('');
    solo.ctx.log(`${r.state.ply}. ${square}`, r.events);
    animate($('board'), r.events);
    if (r.state.outcome) solo.ctx.log(`${r.state.outcome.text} Final score: ${tenths(r.state.score.total)}`, []);
  } catch (e) {
    solo.ctx.showError(e.message);
  } finally {
    solo.busy = false;
  }
}

// A new board of `variant` (its entry in /api/variants) at the level and seed picked.
export async function newBoard(variant, ctx) {
  solo.ctx = ctx;
  const level = $('solo-level').value || undefined;
  const seed = Number.parseInt($('solo-seed').value, 10);
  ctx.log(`Dealing a board of ${variant.title}…`, []);
  try {
    const r = await api.newSolo(variant.name, level, Number.isFinite(seed) && seed >= 0 ? seed : 0);
    solo.state = null;
    take(r.state);
    $('log').replaceChildren();
    ctx.log(`New board of ${r.state.title}: ${r.state.level}, seed ${r.state.seed}`, []);
    return r.state;
  } catch (e) {
    ctx.showError(e.message);
    return null;
  }
}

export function levels(variant) {
  const select = $('solo-level');
  const was = select.value;
  select.replaceChildren();
  for (const l of variant.levels) select.append(new Option(l, l));
  if (variant.levels.includes(was)) select.value = was;
}

export function stop() {
  solo.state = null;
  $('board').classList.remove('forge');
}

export async function undo() {
  if (!solo.state) return;
  try {
    const r = await api.soloUndo(solo.state.id, 1);
    take(r.state);
    solo.ctx.log(r.undone ? 'Undo: 1 strike taken back' : 'Undo: nothing to take back', []);
  } catch (e) {
    solo.ctx.showError(e.message);
  }
}

async function pause() {
  const s = solo.state;
  if (!s) return;
  try {
    const r = s.clock.paused ? await api.soloResume(s.id) : await api.soloPause(s.id);
    take(r.state);
    solo.ctx.log(r.state.clock.paused ? `Paused after ${Math.floor(r.played_ms / 1000)} s` : 'Resumed', []);
  } catch (e) {
    solo.ctx.showError(e.message);
  }
}

// The state again (live reload, and the time score while the clock runs).
export async function refresh() {
  if (!solo.state) return;
  try {
    take(await api.soloState(solo.state.id));
  } catch (e) {
    solo.ctx.showError(e.message);
  }
}

export function setup() {
  $('solo-pause').addEventListener('click', pause);
  $('solo-undo').addEventListener('click', undo);
  // The clock counts on between replies; the time score is asked for once a second.
  let n = 0;
  setInterval(() => {
    const s = solo.state;
    if (!s || s.status !== 'playing' || s.clock.paused || s.clock.manual) return;
    drawClock();
    if (++n % 4 === 0 && !solo.busy) refresh();
  }, 250);
}
