// The page: a variant picker, a board to click, a chooser when one click means several
// moves (promotions, landing choices), the event log in the runtime's words, undo and
// new game, and live reload: it polls the server's rules version and refetches the game
// when its variant's rules change, or shows the problems of a broken save.
import * as api from './api.js';
import { render } from './board.js';

const $ = (id) => document.getElementById(id);
const ui = { game: null, picked: null, targets: [], version: null, variantVersion: null, variants: [] };

function showError(message) {
  const e = $('error');
  e.textContent = message || '';
  e.hidden = !message;
}

function draw() {
  const s = ui.game;
  if (!s) return;
  render($('board'), s, { picked: ui.picked, targets: ui.targets.map((t) => t.to), onClick: click });
  let line;
  if (s.outcome) line = `Game over: ${s.outcome.text}`;
  else {
    line = `${s.to_move[0].toUpperCase()}${s.to_move.slice(1)} to move`;
    if (s.in_check) line += s.check_rule ? ' — check!' : ' — royal piece attacked';
  }
  $('status').textContent = line;
  $('status').className = s.in_check ? 'in-check' : '';
  $('moves').textContent = s.san.map((m, i) => (i % 2 === 0 ? `${i / 2 + 1}. ${m}` : m)).join(' ');
  const scores = $('scores');
  if (s.scores) {
    scores.hidden = false;
    scores.textContent = `Score — white ${s.scores.white}, black ${s.scores.black}`;
  } else if (s.score_tables) {
    scores.hidden = false;
    scores.textContent = `Score — white ${s.score_tables.white.total / 10}, black ${s.score_tables.black.total / 10}`;
  } else scores.hidden = true;
  const note = $('reload-note');
  if (s.rules_note) {
    note.hidden = false;
    note.textContent = s.rules_note;
  }
}

function log(title, events) {
  const li = document.createElement('li');
  const head = document.createElement('strong');
  head.textContent = title;
  li.append(head);
  if (events.length) {
    const ul = document.createElement('ul');
    for (const e of events) {
      const item = document.createElement('li');
      item.className = `event ${e.data.event}`;
      item.textContent = e.text;
      ul.append(item);
    }
    li.append(ul);
  }
  $('log').append(li);
  li.scrollIntoView({ block: 'nearest' });
}

function closeChooser() {
  $('chooser').hidden = true;
  $('chooser-options').replaceChildren();
}

async function move(text) {
  closeChooser();
  try {
    const r = await api.play(ui.game.id, text);
    ui.game = r.state;
    ui.picked = null;
    ui.targets = [];
    showError('');
    log(`${r.state.ply}. ${text}`, r.events);
    draw();
  } catch (e) {
    showError(e.message);
  }
}

async function click(square) {
  if (!ui.game || ui.game.outcome) return;
  const target = ui.targets.find((t) => t.to === square);
  if (target) {
    if (target.moves.length === 1) return move(target.moves[0].move);
    // A promotion or a landing choice: one button per move.
    const box = $('chooser-options');
    box.replaceChildren();
    for (const m of target.moves) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'choice';
      b.dataset.move = m.move;
      b.textContent = m.label;
      b.title = m.move;
      b.addEventListener('click', () => move(m.move));
      box.append(b);
    }
    $('chooser').hidden = false;
    return;
  }
  closeChooser();
  if (ui.picked === square || !ui.game.movable.includes(square)) {
    ui.picked = null;
    ui.targets = [];
    return draw();
  }
  try {
    const r = await api.targets(ui.game.id, square);
    ui.picked = square;
    ui.targets = r.targets;
    showError('');
  } catch (e) {
    showError(e.message);
  }
  draw();
}

async function newGame() {
  const name = $('variant').value;
  const fen = $('fen').value.trim();
  try {
    const r = await api.newGame(name, fen || undefined);
    ui.game = r.state;
    ui.picked = null;
    ui.targets = [];
    ui.variantVersion = r.state.rules_version;
    $('log').replaceChildren();
    $('reload-note').hidden = true;
    showError('');
    log(`New game of ${r.state.title}`, []);
    localStorage.setItem('varia-playground-variant', name);
    draw();
  } catch (e) {
    showError(e.message);
  }
}

async function undo() {
  if (!ui.game) return;
  try {
    const r = await api.undo(ui.game.id, 1);
    ui.game = r.state;
    ui.picked = null;
    ui.targets = [];
    closeChooser();
    log(r.undone ? `Undo: ${r.undone} ply taken back` : 'Undo: nothing to take back', []);
    draw();
  } catch (e) {
    showError(e.message);
  }
}

function showProblems(problems) {
  const list = $('problem-list');
  list.replaceChildren();
  for (const p of problems) {
    const li = document.createElement('li');
    li.textContent = p.text;
    li.dataset.file = p.file;
    li.dataset.line = p.line;
    list.append(li);
  }
  $('problems').hidden = problems.length === 0;
}

// Live reload: a small poll of the rules' versions (the server checks files every 250 ms).
async function poll() {
  try {
    const s = await api.status();
    if (ui.game && s.variants[ui.game.variant]) {
      const v = s.variants[ui.game.variant];
      showProblems(v.problems);
      if (v.version !== ui.variantVersion) {
        ui.variantVersion = v.version;
        ui.game = await api.state(ui.game.id);
        ui.picked = null;
        ui.targets = [];
        const note = $('reload-note');
        note.hidden = false;
        note.textContent = v.problems.length
          ? `The rules of ${ui.game.variant} have an error (version ${v.version}); the last good rules keep running.`
          : ui.game.rules_note || `The rules of ${ui.game.variant} were reloaded (version ${v.version}).`;
        note.dataset.version = v.version;
        draw();
      }
    }
    ui.version = s.version;
  } catch {
    // The server is gone or busy: try again on the next tick.
  }
  setTimeout(poll, 300);
}

async function start() {
  $('new-game').addEventListener('click', newGame);
  $('undo').addEventListener('click', undo);
  $('chooser-cancel').addEventListener('click', closeChooser);
  $('variant').addEventListener('change', () => {
    $('fen').value = '';
    newGame();
  });
  try {
    ui.variants = await api.variants();
  } catch (e) {
    return showError(e.message);
  }
  const select = $('variant');
  for (const v of ui.variants) {
    const o = document.createElement('option');
    o.value = v.name;
    o.textContent = v.playable ? `${v.title} (${v.files}×${v.ranks})` : `${v.title} (${v.turns}: not playable here yet)`;
    o.disabled = !v.playable;
    select.append(o);
  }
  const params = new URLSearchParams(location.search);
  const wanted = params.get('variant') || localStorage.getItem('varia-playground-variant');
  const playable = ui.variants.filter((v) => v.playable).map((v) => v.name);
  select.value = playable.includes(wanted) ? wanted : playable.includes('standard') ? 'standard' : playable[0];
  if (params.get('fen')) $('fen').value = params.get('fen');
  await newGame();
  document.body.dataset.ready = 'true';
  poll();
}

start();
