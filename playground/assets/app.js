// The page: a variant picker, a board to click, a chooser when one click means several
// moves (promotions, landing choices), the event log in the runtime's words, undo and
// new game, the control panel of `varia play` (who plays which side, the AI's level,
// moves typed in, undo of up to 4 plies, copy and paste of the move list through the
// clipboard, save and load in the browser's storage, reset), a Pass button where the
// variant's sides may pass, and live reload: it polls
// the server's rules version and refetches the game when its variant's rules change, or
// shows the problems of a broken save. A solo variant (Chessic) gets the forge board
// of solo.js instead of the two-sided board and panel. Actions are animated from their
// events (fx.js). A server started with `--realm` adds its realm to the picker (and
// `?realm` opens it): the map of realm.js instead of the board.
import * as api from './api.js';
import { render } from './board.js';
import { animate } from './fx.js';
import * as solo from './solo.js';
import * as realm from './realm.js';

// The picker's value for the server's realm.
const REALM = '@realm';

const $ = (id) => document.getElementById(id);
const ui = {
  game: null,
  picked: null,
  targets: [],
  version: null,
  variantVersion: null,
  variants: [],
  // The side(s) a person plays; the computer plays the others (`varia play --as`).
  playAs: 'both',
  thinking: false,
  // While a landing choice is open: the squares the attack may land on, and their moves.
  landings: [],
};

const human = (side) => ui.playAs === 'both' || ui.playAs === side;
const saveKey = (variant) => `varia-playground-save:${variant}`;

function panelNote(text) {
  $('panel-note').textContent = text;
}

function showError(message) {
  const e = $('error');
  e.textContent = message || '';
  e.hidden = !message;
}

function draw() {
  const s = ui.game;
  if (!s) return;
  const landings = ui.landings.map((l) => l.square);
  const shots = ui.targets.filter((t) => t.moves.some((m) => m.shot)).map((t) => t.to);
  render($('board'), s, { picked: ui.picked, targets: ui.targets.map((t) => t.to), shots, landings, onClick: click });
  let line;
  if (s.outcome) line = `Game over: ${s.outcome.text}`;
  else {
    line = `${s.to_move[0].toUpperCase()}${s.to_move.slice(1)} to move`;
    if (s.in_check) line += s.check_rule ? ' — check!' : ' — royal piece attacked';
  }
  $('status').textContent = line;
  $('status').className = s.in_check ? 'in-check' : '';
  // Variants whose sides may pass (`[rules] pass`: janggi): the button, usable while the
  // pass is legal (not in check) and the side to move is a person's.
  const pass = $('pass');
  pass.hidden = !s.pass_rule;
  pass.disabled = !s.pass || !human(s.to_move);
  pass.title = s.pass ? `pass the turn (${s.pass})` : 'no pass now (a side in check may not pass)';
  $('moves').textContent = s.san.map((m, i) => (i % 2 === 0 ? `${i / 2 + 1}. ${m}` : m)).join(' ');
  const scores = $('scores');
  if (s.scores) {
    scores.hidden = false;
    scores.textContent = `Score — white ${s.scores.white}, black ${s.scores.black}`;
  } else if (s.score_tables) {
    scores.hidden = false;
    scores.textContent = `Score — white ${s.score_tables.white.total / 10}, black ${s.score_tables.black.total / 10}`;
  } else scores.hidden = true;
  // Graveyards, where the variant promotes from them (Decachess).
  const yards = $('graveyards');
  yards.hidden = !s.graveyards;
  if (s.graveyards) {
    const side = (list) => (list.length ? list.map((g) => `${g.kind} ×${g.count}`).join(', ') : 'empty');
    yards.textContent = `Graveyards — white: ${side(s.graveyards.white)}; black: ${side(s.graveyards.black)}`;
  }
  const note = $('reload-note');
  if (s.rules_note) {
    note.hidden = false;
    note.textContent = s.rules_note;
  }
}

const variantOf = (name) => ui.variants.find((x) => x.name === name);
const isSolo = (name) => variantOf(name)?.turns === 'solo';

function log(title, events) {
  const li = document.createElement('li');
  const head = document.createElement('strong');
  head.textContent = title;
  li.append(head);
  if (events.length) {
    const ul = document.createElement('ul');
    for (const e of events) {
      const item = document.createElement('li');
      item.className = `event ${e.data.event || e.data.type}`;
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
  ui.landings = [];
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
    animate($('board'), r.events);
  } catch (e) {
    showError(e.message);
    return;
  }
  aiTurns();
}

async function click(square) {
  if (!ui.game || ui.game.outcome || ui.thinking || !human(ui.game.to_move)) return;
  // A green dot of an open landing choice: land there.
  const landing = ui.landings.find((l) => l.square === square);
  if (landing) return move(landing.move);
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
    // An attack that kills on several squares: green dots where it may land.
    ui.landings = target.moves.filter((m) => m.landing).map((m) => ({ square: m.landing, move: m.move }));
    if (ui.landings.length) draw();
    return;
  }
  const wasLanding = ui.landings.length > 0;
  closeChooser();
  if (wasLanding) draw();
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

// The two-sided panel or the forge panel, for the variant picked.
function panels(soloBoard) {
  $('panel').hidden = soloBoard;
  $('fen').disabled = soloBoard;
  $('solo-panel').hidden = !soloBoard;
  if (!soloBoard) solo.stop();
}

// The setup number typed for a variant that deals its setups (none: the usual start).
function dealWanted(name) {
  const v = variantOf(name);
  const text = $('deal').value.trim();
  return v && v.deals && !$('fen').value.trim() && /^[0-9]+$/.test(text) ? Number(text) : undefined;
}

// The setup box, shown for a variant with numbered setups ([setup.deal]).
function dealBox(name) {
  const v = variantOf(name);
  $('deal-box').hidden = !(v && v.deals);
  if (v && v.deals) $('deal').max = String(v.deals - 1);
}

async function newGame(moves) {
  const name = $('variant').value;
  const fen = $('fen').value.trim();
  dealBox(name);
  const inRealm = name === REALM;
  for (const id of ['fen', 'new-game', 'undo']) $(id).disabled = inRealm;
  if (inRealm) {
    solo.stop();
    ui.game = null;
    showError('');
    await realm.enter();
    return true;
  }
  if (realm.active()) realm.leave();
  if (isSolo(name)) {
    panels(true);
    ui.game = null;
    closeChooser();
    $('reload-note').hidden = true;
    $('scores').hidden = true;
    $('graveyards').hidden = true;
    solo.levels(variantOf(name));
    const st = await solo.newBoard(variantOf(name), { log, showError });
    if (!st) return false;
    ui.variantVersion = st.rules_version;
    localStorage.setItem('varia-playground-variant', name);
    showError('');
    return true;
  }
  panels(false);
  try {
    const r = await api.newGame(name, fen || undefined, moves, dealWanted(name));
    ui.game = r.state;
    ui.picked = null;
    ui.targets = [];
    ui.variantVersion = r.state.rules_version;
    $('log').replaceChildren();
    $('reload-note').hidden = true;
    showError('');
    const deal = dealWanted(name);
    const from = deal !== undefined ? ` from setup ${deal}` : '';
    log(moves ? `${r.state.title}${from}: ${r.state.ply} moves replayed` : `New game of ${r.state.title}${from}`, []);
    localStorage.setItem('varia-playground-variant', name);
    levels(name);
    draw();
  } catch (e) {
    showError(e.message);
    return false;
  }
  aiTurns();
  return true;
}

// The AI's levels of the variant, keeping the one picked where it has it.
function levels(name) {
  const v = ui.variants.find((x) => x.name === name);
  const select = $('level');
  const was = select.value || 'veteran';
  select.replaceChildren();
  for (const l of v?.levels || []) {
    const o = document.createElement('option');
    o.value = l;
    o.textContent = l;
    select.append(o);
  }
  const list = v?.levels || [];
  select.value = list.includes(was) ? was : list.includes('veteran') ? 'veteran' : list[0] || '';
}

// The computer plays while it is its turn (one move at a time, so the page stays live).
async function aiTurns() {
  if (ui.thinking) return;
  ui.thinking = true;
  try {
    let plies = 0;
    while (ui.game && !ui.game.outcome && !human(ui.game.to_move) && plies < 400) {
      const id = ui.game.id;
      const r = await api.ai(id, $('level').value || undefined);
      // A new game began meanwhile: that reply is stale; go on with the new game.
      if (!ui.game || ui.game.id !== id) continue;
      ui.game = r.state;
      ui.picked = null;
      ui.targets = [];
      log(`${r.state.ply}. ${r.move} (${$('level').value})`, r.events);
      draw();
      animate($('board'), r.events);
      plies++;
    }
  } catch (e) {
    showError(e.message);
  } finally {
    ui.thinking = false;
  }
}

async function playTyped(e) {
  e.preventDefault();
  const text = $('move-text').value.trim();
  if (!text || !ui.game) return;
  if (!human(ui.game.to_move) && !ui.game.outcome) return showError("it is the AI's turn");
  $('move-text').value = '';
  await move(text);
}

async function takeBack() {
  if (!ui.game || ui.thinking) return;
  try {
    const r = await api.undo(ui.game.id, 4);
    ui.game = r.state;
    ui.picked = null;
    ui.targets = [];
    closeChooser();
    log(`Undo: ${r.undone} pl${r.undone === 1 ? 'y' : 'ies'} taken back`, []);
    draw();
  } catch (e) {
    showError(e.message);
  }
}

async function copyMoves() {
  if (!ui.game) return;
  const text = ui.game.moves.join(' ');
  try {
    await navigator.clipboard.writeText(text);
    panelNote(`copied ${ui.game.moves.length} moves to the clipboard`);
  } catch (e) {
    showError(`the clipboard refused: ${e.message}`);
  }
}

async function pasteMoves() {
  let text;
  try {
    text = await navigator.clipboard.readText();
  } catch (e) {
    return showError(`the clipboard refused: ${e.message}`);
  }
  if (!text.trim()) return panelNote('paste refused: the clipboard holds no moves; the current game is kept');
  const n = text.trim().split(/[\s,]+/).length;
  if (await newGame(text)) panelNote(`pasted ${n} moves: the game was replaced`);
  else panelNote('paste refused; the current game is kept');
}

function save() {
  if (!ui.game) return;
  const slot = {
    fen: $('fen').value.trim(),
    deal: $('deal').value.trim(),
    moves: ui.game.moves.join(' '),
    playAs: ui.playAs,
    level: $('level').value,
  };
  localStorage.setItem(saveKey(ui.game.variant), JSON.stringify(slot));
  panelNote(`saved ${ui.game.moves.length} moves of ${ui.game.variant} in this browser`);
}

async function load() {
  const name = $('variant').value;
  let slot;
  try {
    slot = JSON.parse(localStorage.getItem(saveKey(name)) || 'null');
  } catch {
    slot = null;
  }
  if (!slot || typeof slot.moves !== 'string') return panelNote(`nothing saved for ${name} in this browser`);
  const keep = { fen: $('fen').value, deal: $('deal').value, playAs: ui.playAs };
  $('fen').value = slot.fen || '';
  $('deal').value = typeof slot.deal === 'string' ? slot.deal : '';
  ui.playAs = ['white', 'black', 'both', 'none'].includes(slot.playAs) ? slot.playAs : 'both';
  $('play-as').value = ui.playAs;
  if (slot.level) $('level').value = slot.level;
  if (await newGame(slot.moves || undefined)) panelNote(`loaded the saved game (you play ${ui.playAs})`);
  else {
    $('fen').value = keep.fen;
    $('deal').value = keep.deal;
    ui.playAs = keep.playAs;
    $('play-as').value = ui.playAs;
    panelNote('load refused; the current game is kept');
  }
}

async function undo() {
  if (solo.active()) return solo.undo();
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
    const name = $('variant').value;
    if (solo.active() && s.variants[name]) {
      const v = s.variants[name];
      showProblems(v.problems);
      if (v.version !== ui.variantVersion) {
        ui.variantVersion = v.version;
        await solo.refresh();
        const note = $('reload-note');
        note.hidden = false;
        note.dataset.version = v.version;
        if (v.problems.length) note.textContent = `The rules of ${name} have an error (version ${v.version}); the last good rules keep running.`;
        else if (!note.textContent.startsWith('the rules')) note.textContent = `The rules of ${name} were reloaded (version ${v.version}).`;
      }
    }
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
  $('new-game').addEventListener('click', () => newGame());
  $('reset').addEventListener('click', () => newGame());
  $('panel').addEventListener('submit', playTyped);
  $('take-back').addEventListener('click', takeBack);
  $('copy').addEventListener('click', copyMoves);
  $('paste').addEventListener('click', pasteMoves);
  $('save').addEventListener('click', save);
  $('load').addEventListener('click', load);
  $('play-as').addEventListener('change', () => {
    ui.playAs = $('play-as').value;
    panelNote(`you play ${ui.playAs === 'none' ? 'neither side' : ui.playAs}`);
    aiTurns();
  });
  $('undo').addEventListener('click', undo);
  $('pass').addEventListener('click', () => {
    if (ui.game?.pass && !ui.thinking && human(ui.game.to_move)) move(ui.game.pass);
  });
  $('solo-new').addEventListener('click', () => newGame());
  solo.setup();
  realm.setup();
  $('chooser-cancel').addEventListener('click', () => {
    closeChooser();
    draw();
  });
  $('variant').addEventListener('change', () => {
    $('fen').value = '';
    $('deal').value = '';
    newGame();
  });
  // A setup drawn at random; its number stays in the box, so the game can be dealt again.
  $('deal-random').addEventListener('click', () => {
    const v = variantOf($('variant').value);
    if (!v || !v.deals) return;
    $('fen').value = '';
    $('deal').value = String(Math.floor(Math.random() * v.deals));
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
    o.textContent = v.playable
      ? `${v.title} (${v.turns === 'solo' ? 'solo, ' : ''}${v.files}×${v.ranks})`
      : v.turns === 'simultaneous'
        ? `${v.title} (a world: play it as a realm, varia serve --realm)`
        : `${v.title} (${v.turns}: not playable here yet)`;
    o.disabled = !v.playable;
    select.append(o);
  }
  const params = new URLSearchParams(location.search);
  let realmOpen = false;
  try {
    const r = await realm.info();
    if (r.open) {
      realmOpen = true;
      const o = document.createElement('option');
      o.value = REALM;
      o.textContent = `Realm ${r.name} (${r.title}: the map)`;
      select.prepend(o);
    }
  } catch (e) {
    showError(e.message);
  }
  const wanted = params.has('realm') ? REALM : params.get('variant') || localStorage.getItem('varia-playground-variant');
  const playable = ui.variants.filter((v) => v.playable).map((v) => v.name);
  if (realmOpen) playable.push(REALM);
  select.value = playable.includes(wanted) ? wanted : playable.includes('standard') ? 'standard' : playable[0];
  if (params.get('fen')) $('fen').value = params.get('fen');
  if (/^[0-9]+$/.test(params.get('deal') || '')) $('deal').value = params.get('deal');
  if (isSolo(select.value)) {
    solo.levels(variantOf(select.value));
    if (params.get('level')) $('solo-level').value = params.get('level');
    if (/^[0-9]+$/.test(params.get('seed') || '')) $('solo-seed').value = params.get('seed');
  }
  if (['white', 'black', 'both', 'none'].includes(params.get('as'))) ui.playAs = params.get('as');
  $('play-as').value = ui.playAs;
  levels(select.value);
  if (params.get('level')) $('level').value = params.get('level');
  await newGame();
  document.body.dataset.ready = 'true';
  poll();
}

start();
