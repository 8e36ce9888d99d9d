// The realm view (`varia serve --realm realm.db`): a map of the world's boards that pans
// (drag, arrow keys) and zooms (wheel, + and −), with global coordinates (negative too);
// each board tinted by its owner (a legend of players), pieces drawn, cities outlined
// and named; the signed-in player's own pieces ringed, their vault, and their orders of
// the open round drawn (arrows for moves, marks for drops, placed kings and passes).
// Orders are given by clicking: pick a piece, see its targets (each judged by the realm
// service's own validation), click one; pass; drop from the vault; place a king. Every
// change sends the whole list with `PUT /realm/orders`; a refused order's reason is
// shown and nothing changes. The round timeline: the deadline counting down on the
// server's time, the rounds resolved, and a round replayed on the map from its events,
// micro-step by micro-step.
//
// Sign-in: the player's secret token is kept in this tab's sessionStorage only (never
// in the address, never logged) and sent as `Authorization: Bearer`. Every rule —
// who may see what, which order is legal — is the realm service's; the page only draws.

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = 'varia-realm-token';
const GLYPHS = { king: '♚', queen: '♛', rook: '♜', bishop: '♝', knight: '♞', pawn: '♟' };
// One square's side in pixels at zoom 1.
const S = 28;

const realm = {
  on: false,
  info: null,
  view: null,
  viewText: '',
  fetchedAt: 0,
  manual: false,
  cities: [],
  // The picked piece and its targets, or a drop or placement waiting for its square.
  picked: null,
  targets: [],
  mode: null,
  pan: { x: 0, y: 0 },
  zoom: 1,
  drag: null,
  // A round being replayed: its steps and the state before each.
  replay: null,
  timers: [],
};

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

const token = () => sessionStorage.getItem(TOKEN_KEY);

// A call to the realm's API (under /realm) or the page's (/api/realm…), with the token.
async function call(method, path, body) {
  const init = { method, headers: {} };
  const t = token();
  if (t) init.headers.Authorization = `Bearer ${t}`;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const r = await fetch(path, init);
  let data;
  try {
    data = await r.json();
  } catch {
    throw Object.assign(new Error(`${method} ${path}: the server sent no JSON (${r.status})`), { status: r.status });
  }
  if (!r.ok) throw Object.assign(new Error(data.error || `${method} ${path}: ${r.status}`), { status: r.status, data });
  return data;
}

export const info = () => call('GET', '/api/realm');
export const active = () => realm.on;

// Words and shapes -----------------------------------------------------------------

const tile = () => realm.info.tile;
const at = (p) => `[${p[0]}, ${p[1]}]`;
const key = (p) => `${p[0]},${p[1]}`;
const boardOf = ([x, y]) => [Math.floor(x / tile()[0]), Math.floor(y / tile()[1])];
const kindOf = (letter) => realm.info.kinds.find((k) => k.letter === letter) || { name: letter, letter };

// A player's colour: evenly spread hues by join order.
function colour(state, player) {
  const i = state.players.indexOf(player);
  if (i < 0) return '#999';
  return `hsl(${Math.round((i * 137.508) % 360)}, 70%, 48%)`;
}

function orderWords(o) {
  switch (o.type) {
    case 'move': {
      const p = pieceAt(realm.view.world, o.from);
      return `${p ? kindOf(p.kind).name : 'piece'} ${at(o.from)} → ${at(o.to)}`;
    }
    case 'drop':
      return `drop a ${kindOf(o.kind).name} on ${at(o.to)}`;
    case 'pass':
      return `pass on board ${at(o.board)}`;
    case 'place_king':
      return `place the king of board ${at(o.board)} on ${at(o.to)}`;
    case 'abandon':
      return 'abandon the empire';
    default:
      return JSON.stringify(o);
  }
}

const CAUSES = {
  captured: 'captured,',
  intercepted: 'intercepted by a sitter,',
  lost_fight: 'lost the arrival fight,',
  tie: 'tied an equal piece,',
  conquest: 'taken with its board,',
  abandoned: 'left with its owner,',
};

// An event in words, as the runtime's `WorldEvent::describe` puts it.
export function eventWords(e) {
  const kind = e.kind ? kindOf(e.kind).name : '';
  let text;
  switch (e.type) {
    case 'placed':
      text = `${e.player}'s ${kind} placed on ${at(e.at)}`;
      break;
    case 'dropped':
      text = `${e.player}'s ${kind} dropped on ${at(e.at)}`;
      break;
    case 'moved':
      text = `${e.player}'s ${kind} ${at(e.from)}-${at(e.to)}`;
      break;
    case 'stopped':
      text = `${e.player}'s ${kind} from ${at(e.from)} stopped on ${at(e.at)} before a friendly piece (target ${at(e.target)})`;
      break;
    case 'cancelled':
      text = `${e.player}'s ${kind} not put on ${at(e.at)}: a friendly piece is there`;
      break;
    case 'removed':
      text = `${e.player}'s ${kind} on ${at(e.at)} ${CAUSES[e.cause] || e.cause} ${e.destroyed ? 'destroyed' : `into ${e.vault}'s vault`}`;
      break;
    case 'conquered':
      text = `board ${at(e.board)} conquered by ${e.to} from ${e.from}`;
      break;
    case 'king_pending':
      text = `${e.player} must place a king on board ${at(e.board)}`;
      break;
    case 'eliminated':
      text = `${e.player} is eliminated`;
      break;
    case 'abandoned':
      text = `${e.player} abandoned their empire`;
      break;
    default:
      text = e.type;
  }
  return e.microstep > 0 ? `${e.phase} ${e.microstep}: ${text}` : `${e.phase}: ${text}`;
}

function pieceAt(state, p) {
  return state.pieces.find((q) => q.x === p[0] && q.y === p[1]);
}

// The map ----------------------------------------------------------------------------

function note(text, refused = false) {
  const n = $('realm-note');
  n.textContent = text || '';
  n.className = refused ? 'refused' : '';
}

function applyTransform() {
  $('realm-plane').style.transform = `translate(${realm.pan.x}px, ${realm.pan.y}px) scale(${realm.zoom})`;
  $('realm-map').dataset.pan = `${Math.round(realm.pan.x)},${Math.round(realm.pan.y)}`;
  $('realm-map').dataset.zoom = realm.zoom.toFixed(3);
}

// Pixel position (at zoom 1) of square (x, y)'s top-left corner: y grows upwards.
const px = (x) => x * S;
const py = (y) => -(y + 1) * S;

// Centres the map on the signed-in player's boards (else on board [0, 0]).
function home() {
  const v = realm.view;
  const mine = v ? v.world.boards.filter((b) => b.owner === v.player) : [];
  const list = mine.length ? mine.map((b) => b.board) : [[0, 0]];
  const [tw, th] = tile();
  const cx = list.reduce((a, b) => a + (b[0] + 0.5) * tw, 0) / list.length;
  const cy = list.reduce((a, b) => a + (b[1] + 0.5) * th, 0) / list.length;
  const map = $('realm-map');
  realm.pan.x = map.clientWidth / 2 - cx * S * realm.zoom;
  realm.pan.y = map.clientHeight / 2 + cy * S * realm.zoom;
  applyTransform();
}

function zoomBy(f, cx, cy) {
  const map = $('realm-map');
  const x = cx ?? map.clientWidth / 2;
  const y = cy ?? map.clientHeight / 2;
  const z = Math.min(3, Math.max(0.2, realm.zoom * f));
  realm.pan.x = x - ((x - realm.pan.x) * z) / realm.zoom;
  realm.pan.y = y - ((y - realm.pan.y) * z) / realm.zoom;
  realm.zoom = z;
  applyTransform();
}

// What the map shows: the live world, or a replayed round's state at its step.
function shown() {
  if (realm.replay) return realm.replay.states[realm.replay.step];
  return realm.view.world;
}

function draw() {
  if (!realm.view) return;
  const state = shown();
  const v = realm.view;
  const [tw, th] = tile();
  const plane = $('realm-plane');
  plane.replaceChildren();
  const boards = new Map();
  for (const b of state.boards) boards.set(key(b.board), b.owner);
  for (const p of state.pieces) {
    const b = key(boardOf([p.x, p.y]));
    if (!boards.has(b)) boards.set(b, null);
  }
  const owners = new Map(state.boards.map((b) => [key(b.board), b.owner]));
  const pieces = new Map(state.pieces.map((p) => [key([p.x, p.y]), p]));
  const targets = new Map(realm.targets.map((t) => [key(t.to), t]));
  const step = realm.replay ? realm.replay.steps[realm.replay.step - 1] : null;
  const hits = new Set();
  const moved = new Set();
  const conquered = new Set();
  for (const e of step?.events || []) {
    if (e.type === 'removed') hits.add(key(e.at));
    if (e.type === 'moved') moved.add(key(e.to));
    if (e.type === 'conquered') conquered.add(key(e.board));
  }
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const grow = (l, t, w, h) => {
    minX = Math.min(minX, l);
    minY = Math.min(minY, t);
    maxX = Math.max(maxX, l + w);
    maxY = Math.max(maxY, t + h);
  };
  for (const [bk, owner] of boards) {
    const [bx, by] = bk.split(',').map(Number);
    const div = el('div', 'rboard');
    div.dataset.board = bk;
    div.dataset.owner = owner || '';
    if (conquered.has(bk)) div.classList.add('conquered');
    const left = px(bx * tw);
    const top = py(by * th + th - 1);
    div.style.left = `${left}px`;
    div.style.top = `${top}px`;
    div.style.width = `${tw * S}px`;
    div.style.height = `${th * S}px`;
    grow(left, top, tw * S, th * S);
    for (let ly = 0; ly < th; ly++) {
      for (let lx = 0; lx < tw; lx++) {
        const x = bx * tw + lx;
        const y = by * th + ly;
        const k = `${x},${y}`;
        const sq = el('div', `rsq ${(((x + y) % 2) + 2) % 2 === 0 ? 'dark' : 'light'}`);
        sq.dataset.x = x;
        sq.dataset.y = y;
        sq.title = `[${x}, ${y}]`;
        sq.style.left = `${lx * S}px`;
        sq.style.top = `${(th - 1 - ly) * S}px`;
        sq.style.width = `${S}px`;
        sq.style.height = `${S}px`;
        const p = pieces.get(k);
        if (p) {
          const kind = kindOf(p.kind);
          const g = el('span', 'rpiece', GLYPHS[kind.name] || p.kind);
          g.style.color = colour(state, p.owner);
          g.dataset.owner = p.owner;
          g.dataset.kind = kind.name;
          if (p.owner === v.player) g.classList.add('mine');
          sq.title = `[${x}, ${y}]: ${p.owner}'s ${kind.name}`;
          sq.append(g);
        }
        if (realm.picked && realm.picked[0] === x && realm.picked[1] === y) sq.classList.add('picked');
        const t = targets.get(k);
        if (t) {
          sq.classList.add(t.accepted ? 'target' : 'refused');
          sq.title = `[${x}, ${y}]: ${t.accepted ? 'a target' : `refused: ${t.reason}`}`;
        }
        if (hits.has(k)) sq.classList.add('hit');
        if (moved.has(k)) sq.classList.add('moved');
        div.append(sq);
      }
    }
    const tint = el('div', 'tint');
    tint.style.background = owner ? colour(state, owner) : 'transparent';
    div.append(tint);
    div.append(el('span', 'blabel', `${at([bx, by])}${owner ? ` ${owner}` : ''}`));
    plane.append(div);
  }
  for (const c of realm.cities) {
    const [[x0, y0], [x1, y1]] = c.boards;
    const d = el('div', 'rcity');
    d.dataset.city = c.name;
    const left = px(x0 * tw);
    const top = py(y1 * th + th - 1);
    d.style.left = `${left}px`;
    d.style.top = `${top}px`;
    d.style.width = `${(x1 - x0 + 1) * tw * S}px`;
    d.style.height = `${(y1 - y0 + 1) * th * S}px`;
    d.append(el('span', 'cname', c.mayor ? `${c.name} (mayor ${c.mayor})` : c.name));
    grow(left, top - 18, (x1 - x0 + 1) * tw * S, (y1 - y0 + 1) * th * S + 18);
    plane.append(d);
  }
  if (minX < Infinity) drawOverlay(plane, step, [minX, minY, maxX - minX, maxY - minY]);
  drawSide(state);
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, val] of Object.entries(attrs)) e.setAttribute(k, val);
  return e;
}

const cx = (x) => px(x) + S / 2;
const cy = (y) => py(y) + S / 2;

function arrow(g, from, to, cls, data) {
  const line = svg('line', { x1: cx(from[0]), y1: cy(from[1]), x2: cx(to[0]), y2: cy(to[1]), class: cls, 'marker-end': `url(#${cls}-head)` });
  line.dataset.from = key(from);
  line.dataset.to = key(to);
  Object.assign(line.dataset, data || {});
  g.append(line);
}

function mark(g, p, text, cls) {
  const c = svg('circle', { cx: cx(p[0]), cy: cy(p[1]), r: S * 0.46, class: 'order-mark' });
  c.dataset.at = key(p);
  c.dataset.order = cls;
  c.classList.add(cls);
  const t = svg('text', { x: cx(p[0]) + S * 0.18, y: cy(p[1]) - S * 0.12, class: 'order-mark-text' });
  t.textContent = text;
  g.append(c, t);
}

// The orders of the open round (live), or the moves of the replayed step, over the map.
function drawOverlay(plane, step, [x, y, w, h]) {
  const root = svg('svg', { id: 'realm-orders-svg', width: w, height: h, viewBox: `${x} ${y} ${w} ${h}` });
  root.style.left = `${x}px`;
  root.style.top = `${y}px`;
  const defs = svg('defs', {});
  for (const [cls, colourOf] of [['order-arrow', '#0d47a1'], ['replay-arrow', '#e65100']]) {
    const m = svg('marker', { id: `${cls}-head`, viewBox: '0 0 10 10', refX: 8, refY: 5, markerWidth: 4, markerHeight: 4, orient: 'auto-start-reverse' });
    m.append(svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: colourOf }));
    defs.append(m);
  }
  root.append(defs);
  const g = svg('g', {});
  if (step) {
    for (const e of step.events) {
      if (e.type === 'moved') arrow(g, e.from, e.to, 'replay-arrow');
      if (e.type === 'stopped') arrow(g, e.from, e.at, 'replay-arrow');
    }
  } else {
    const [tw, th] = tile();
    for (const o of realm.view.orders || []) {
      if (o.type === 'move') arrow(g, o.from, o.to, 'order-arrow');
      if (o.type === 'drop') mark(g, o.to, `+${o.kind}`, 'drop');
      if (o.type === 'place_king') mark(g, o.to, '+K', 'place');
      if (o.type === 'pass') mark(g, [o.board[0] * tw + Math.floor(tw / 2), o.board[1] * th + Math.floor(th / 2)], 'pass', 'pass');
    }
  }
  root.append(g);
  plane.append(root);
}

// The side panel: players, vault, pending kings, orders, rounds -------------------------

function drawSide(state) {
  const v = realm.view;
  const legend = $('realm-legend');
  legend.replaceChildren();
  const held = new Map();
  for (const b of state.boards) if (b.owner) held.set(b.owner, (held.get(b.owner) || 0) + 1);
  for (const p of state.players) {
    const li = el('li');
    li.dataset.player = p;
    const sw = el('span', 'swatch');
    sw.style.background = colour(state, p);
    let text = `${p}${p === v.player ? ' (you)' : ''}: ${held.get(p) || 0} board${held.get(p) === 1 ? '' : 's'}`;
    if ((state.bots || []).includes(p)) text += ', bot-run';
    if ((state.eliminated || []).includes(p)) text += ', eliminated';
    li.append(sw, el('span', '', text));
    legend.append(li);
  }
  const vault = $('realm-vault');
  vault.replaceChildren();
  const kinds = Object.entries(v.vault || {}).filter(([, n]) => n > 0);
  if (kinds.length === 0) vault.append(el('span', 'hint', 'empty'));
  for (const [letter, n] of kinds) {
    const b = el('button', 'vault-kind', `${GLYPHS[kindOf(letter).name] || letter} ${kindOf(letter).name} × ${n}`);
    b.type = 'button';
    b.dataset.kind = letter;
    b.title = `drop a ${kindOf(letter).name}: then click an empty square of a board where you have a piece`;
    b.addEventListener('click', () => setMode({ type: 'drop', kind: letter }));
    vault.append(b);
  }
  const pending = $('realm-pending');
  pending.replaceChildren();
  for (const pk of v.world.pending_kings.filter((k) => k.player === v.player)) {
    const b = el('button', 'place-king', `Place your king on board ${at(pk.board)}`);
    b.type = 'button';
    b.dataset.board = key(pk.board);
    b.addEventListener('click', () => setMode({ type: 'place_king', board: pk.board }));
    pending.append(b);
  }
  $('realm-orders-round').textContent = `(round ${v.round})`;
  const list = $('realm-orders');
  list.replaceChildren();
  const orders = v.orders || [];
  if (orders.length === 0) list.append(el('li', 'hint', v.orders ? 'none: you sent an empty list' : 'none given yet'));
  orders.forEach((o, i) => {
    const li = el('li', `order ${o.type}`);
    li.dataset.index = i;
    li.append(el('span', '', orderWords(o)), ' ');
    const x = el('button', 'remove', '×');
    x.type = 'button';
    x.title = 'withdraw this order';
    x.addEventListener('click', () => send(orders.filter((_, j) => j !== i), 'order withdrawn'));
    li.append(x);
    list.append(li);
  });
  const rounds = $('realm-rounds');
  if (rounds.dataset.round !== String(v.round)) {
    rounds.dataset.round = String(v.round);
    rounds.replaceChildren();
    if (v.round === 0) rounds.append(el('span', 'hint', 'no round resolved yet'));
    for (let r = v.round - 1; r >= Math.max(0, v.round - 30); r--) {
      const b = el('button', 'round', `Round ${r}`);
      b.type = 'button';
      b.dataset.round = r;
      b.title = `replay round ${r} on the map, step by step`;
      b.addEventListener('click', () => replay(r));
      rounds.append(b);
    }
  }
  drawDeadline();
}

function drawDeadline() {
  const v = realm.view;
  if (!v) return;
  const now = v.now + (realm.manual ? 0 : Math.floor((performance.now() - realm.fetchedAt) / 1000));
  const left = v.deadline - now;
  const d = $('realm-deadline');
  d.dataset.left = String(left);
  const when = new Date(v.deadline * 1000).toISOString().replace('T', ' ').replace('.000Z', ' UTC');
  if (left <= 0) {
    d.textContent = `Round ${v.round}: the deadline (${when}) has passed; the round resolves at once`;
    return;
  }
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = left % 60;
  d.textContent = `Round ${v.round} is open: deadline in ${h} h ${m} min ${s} s (${when}, server time)`;
}

// Orders -------------------------------------------------------------------------------

// The board whose action an order uses (none for a placed king or an abandon).
function orderBoard(o) {
  if (o.type === 'move') return boardOf(o.from);
  if (o.type === 'drop') return boardOf(o.to);
  if (o.type === 'pass') return o.board;
  return null;
}

// The stored orders that a new order for `board` (or of the piece on `from`) replaces:
// the piece's own earlier order, then the board's oldest ones past its actions.
function without(board, from) {
  let list = (realm.view.orders || []).filter((o) => !(o.type === 'move' && from && key(o.from) === key(from)));
  if (!board) return list;
  const same = (o) => {
    const b = orderBoard(o);
    return b && key(b) === key(board);
  };
  while (list.filter(same).length >= realm.info.actions_per_board) {
    const i = list.findIndex(same);
    list = list.filter((_, j) => j !== i);
  }
  return list;
}

function clearPick() {
  realm.picked = null;
  realm.targets = [];
  realm.mode = null;
  $('realm-pass').disabled = true;
  $('realm-map').classList.remove('placing');
}

function setMode(mode) {
  if (realm.replay) return;
  clearPick();
  realm.mode = mode;
  note(mode.type === 'drop'
    ? `Drop a ${kindOf(mode.kind).name}: click an empty square of a board where you have a piece (Escape cancels).`
    : `Place your king: click an empty square of board ${at(mode.board)} (Escape cancels).`);
  draw();
}

// Sends the whole list; on a refusal, says why and keeps what was stored.
async function send(orders, done) {
  try {
    const r = await call('PUT', '/realm/orders', { orders, round: realm.view.round });
    clearPick();
    await refresh(true);
    note(`${done}: ${r.verdicts.length} order${r.verdicts.length === 1 ? '' : 's'} stored for round ${r.round}`);
  } catch (e) {
    const refused = (e.data?.verdicts || []).map((v, i) => [v, i]).filter(([v]) => !v.accepted);
    const why = refused.length ? refused.map(([v, i]) => `${orderWords(orders[i])}: ${v.reason}`).join('; ') : e.message;
    note(`Refused — ${why}. Your stored orders are unchanged.`, true);
    clearPick();
    draw();
  }
}

async function pick(x, y) {
  const from = [x, y];
  try {
    const r = await call('POST', '/api/realm/targets', { from, orders: without(boardOf(from), from) });
    realm.picked = from;
    realm.targets = r.targets;
    $('realm-pass').disabled = false;
    const ok = r.targets.filter((t) => t.accepted).length;
    note(`Your ${r.piece.kind} on ${at(from)}: ${ok} target${ok === 1 ? '' : 's'} (green), ${r.targets.length - ok} refused (×, hover for why).`);
  } catch (e) {
    note(e.message, true);
  }
  draw();
}

async function clickSquare(x, y) {
  if (!realm.view || realm.replay) return;
  const p = [x, y];
  if (realm.mode?.type === 'drop') {
    const board = boardOf(p);
    return send([...without(board, null), { type: 'drop', kind: realm.mode.kind, to: p }], 'drop ordered');
  }
  if (realm.mode?.type === 'place_king') {
    const b = realm.mode.board;
    const rest = (realm.view.orders || []).filter((o) => !(o.type === 'place_king' && key(o.board) === key(b)));
    return send([...rest, { type: 'place_king', board: b, to: p }], 'king placed');
  }
  const t = realm.targets.find((q) => key(q.to) === key(p));
  if (t && realm.picked) {
    const from = realm.picked;
    return send([...without(boardOf(from), from), { type: 'move', from, to: p }], 'move ordered');
  }
  const piece = pieceAt(realm.view.world, p);
  if (realm.picked && key(realm.picked) === key(p)) {
    clearPick();
    note('');
    return draw();
  }
  if (piece && piece.owner === realm.view.player) return pick(x, y);
  clearPick();
  note(piece ? `${piece.owner}'s ${kindOf(piece.kind).name} on ${at(p)}` : `${at(p)}: empty`);
  draw();
}

function passBoard() {
  if (!realm.picked) return;
  const board = boardOf(realm.picked);
  send([...without(board, null), { type: 'pass', board }], `board ${at(board)} passes`);
}

// The round replay ----------------------------------------------------------------------

const clone = (s) => ({
  players: s.players,
  bots: s.bots || [],
  eliminated: s.eliminated || [],
  pieces: s.pieces.map((p) => ({ ...p })),
  boards: s.boards.map((b) => ({ ...b })),
});

function take(st, player, kind, p) {
  const i = st.pieces.findIndex((q) => q.owner === player && q.kind === kind && q.x === p[0] && q.y === p[1]);
  return i < 0 ? null : st.pieces.splice(i, 1)[0];
}

function setOwner(st, board, owner) {
  const b = st.boards.find((q) => key(q.board) === key(board));
  if (b) b.owner = owner;
  else st.boards.push({ board, owner });
}

// One event applied forwards (`back` false) or undone.
function apply(st, e, back) {
  const move = (from, to) => {
    const p = take(st, e.player, e.kind, back ? to : from);
    const dest = back ? from : to;
    st.pieces.push({ ...(p || { owner: e.player, kind: e.kind }), x: dest[0], y: dest[1] });
  };
  switch (e.type) {
    case 'moved':
      return move(e.from, e.to);
    case 'stopped':
      return move(e.from, e.at);
    case 'removed':
      if (back) st.pieces.push({ x: e.at[0], y: e.at[1], owner: e.player, kind: e.kind });
      else take(st, e.player, e.kind, e.at);
      return;
    case 'placed':
    case 'dropped':
      if (back) take(st, e.player, e.kind, e.at);
      else st.pieces.push({ x: e.at[0], y: e.at[1], owner: e.player, kind: e.kind });
      return;
    case 'conquered':
      return setOwner(st, e.board, back ? e.from : e.to);
    default:
  }
}

// Undoes a resolved round: the queens that arrived after it, then its events backwards.
function undoRound(st, rec) {
  for (const t of rec.transfers || []) {
    if (t.outcome?.result === 'arrived') take(st, t.player, 'Q', t.outcome.square);
  }
  for (let i = rec.events.length - 1; i >= 0; i--) apply(st, rec.events[i], true);
}

// Replays round `n`: its start is the live map with every later round undone (a player
// who joined since shows from the start: joining is not an event); each step is one
// micro-step of the resolution, its events applied.
async function replay(n) {
  const v = realm.view;
  try {
    const recs = [];
    for (let r = v.round - 1; r >= n; r--) recs.push(await call('GET', `/realm/rounds/${r}`));
    const st = clone(v.world);
    for (const rec of recs) undoRound(st, rec);
    const rec = recs[recs.length - 1];
    const steps = [];
    for (const e of rec.events) {
      const last = steps[steps.length - 1];
      if (last && last.phase === e.phase && last.microstep === e.microstep) last.events.push(e);
      else steps.push({ phase: e.phase, microstep: e.microstep, events: [e] });
    }
    const states = [clone(st)];
    for (const s of steps) {
      for (const e of s.events) apply(st, e, false);
      states.push(clone(st));
    }
    clearPick();
    realm.replay = { round: n, steps, states, step: 0 };
    $('realm-replay').hidden = false;
    drawReplay();
  } catch (e) {
    note(e.message, true);
  }
}

function drawReplay() {
  const r = realm.replay;
  const head = $('realm-replay-head');
  head.dataset.step = String(r.step);
  head.dataset.steps = String(r.steps.length);
  if (r.step === 0) head.textContent = `Replay of round ${r.round}: the start (${r.steps.length} micro-steps with events)`;
  else {
    const s = r.steps[r.step - 1];
    head.textContent = `Replay of round ${r.round}: step ${r.step} of ${r.steps.length} — ${s.phase}${s.microstep ? ` ${s.microstep}` : ''}`;
  }
  const list = $('realm-replay-events');
  list.replaceChildren();
  for (const e of r.step ? r.steps[r.step - 1].events : []) {
    const li = el('li', `event ${e.type}`, eventWords(e));
    list.append(li);
  }
  if (r.steps.length === 0) list.append(el('li', 'hint', 'nothing happened this round'));
  $('realm-replay-prev').disabled = r.step === 0;
  $('realm-replay-next').disabled = r.step === r.steps.length;
  note(r.step === 0 ? `Round ${r.round} as it began.` : '');
  draw();
}

function stepReplay(d) {
  const r = realm.replay;
  if (!r) return;
  r.step = Math.min(r.steps.length, Math.max(0, r.step + d));
  drawReplay();
}

function endReplay() {
  realm.replay = null;
  $('realm-replay').hidden = true;
  note('');
  draw();
}

// Signing in, polling, entering and leaving ------------------------------------------------

function signedIn(yes) {
  $('realm-sign').hidden = yes;
  $('realm-head').hidden = !yes;
  $('realm-side').hidden = !yes;
}

// Fetches the view; redraws when it changed (or when `force`).
async function refresh(force = false) {
  const v = await call('GET', '/realm/world');
  const text = JSON.stringify(v.world) + JSON.stringify(v.orders) + JSON.stringify(v.vault) + v.round;
  const first = !realm.view;
  const newRound = realm.view && realm.view.round !== v.round;
  realm.view = v;
  realm.fetchedAt = performance.now();
  if (force || text !== realm.viewText) {
    realm.viewText = text;
    if (newRound) {
      clearPick();
      note(`Round ${v.round - 1} was resolved: replay it under Rounds.`);
    }
    if (newRound || first) realm.cities = (await call('GET', '/realm/cities')).cities;
    draw();
  } else drawDeadline();
}

async function signIn(t) {
  sessionStorage.setItem(TOKEN_KEY, t);
  try {
    realm.view = null;
    await refresh(true);
    $('realm-title').textContent = `${realm.info.name} (${realm.info.title}, ${realm.info.round_hours} h rounds)`;
    $('realm-who').textContent = realm.view.player;
    signedIn(true);
    // Centred once the side panel takes its room.
    home();
    $('realm-map').focus();
    return true;
  } catch (e) {
    sessionStorage.removeItem(TOKEN_KEY);
    realm.view = null;
    signedIn(false);
    note(e.status === 401 ? 'Sign-in refused: unknown player or wrong token.' : e.message, true);
    return false;
  }
}

function signOut() {
  sessionStorage.removeItem(TOKEN_KEY);
  realm.view = null;
  realm.viewText = '';
  endReplay();
  clearPick();
  $('realm-plane').replaceChildren();
  $('realm-new-token').hidden = true;
  signedIn(false);
  note('Signed out: the token is forgotten by this tab.');
}

async function join(name) {
  try {
    sessionStorage.removeItem(TOKEN_KEY);
    const j = await call('POST', '/realm/join', { player: name });
    $('realm-token-shown').textContent = j.token;
    $('realm-new-token').hidden = false;
    await signIn(j.token);
    note(`Welcome, ${j.player}: your boards are ${j.boards.map(at).join(', ')}.`);
  } catch (e) {
    note(e.message, true);
  }
}

function tick() {
  if (!realm.on) return;
  if (realm.view) drawDeadline();
}

async function poll() {
  if (!realm.on) return;
  if (realm.view && token()) {
    try {
      await refresh();
    } catch (e) {
      if (e.status === 401) signOut();
    }
  }
  realm.timers.push(setTimeout(poll, 1000));
}

// Shows the realm view instead of the board (`ctx.showError` for the page's errors).
export async function enter() {
  realm.on = true;
  $('board-area').hidden = true;
  $('game-side').hidden = true;
  $('realm-area').hidden = false;
  try {
    realm.info = await info();
    realm.manual = (await (await fetch('/api/clock')).json()).manual;
  } catch (e) {
    note(e.message, true);
    return;
  }
  if (!realm.info.open) {
    note('No realm is open on this server: start it with `varia serve --realm realm.db`.', true);
    return;
  }
  applyTransform();
  if (token()) await signIn(token());
  else signedIn(false);
  realm.timers.push(setInterval(tick, 1000));
  poll();
}

export function leave() {
  realm.on = false;
  for (const t of realm.timers) {
    clearTimeout(t);
    clearInterval(t);
  }
  realm.timers = [];
  $('realm-area').hidden = true;
  $('realm-side').hidden = true;
  $('board-area').hidden = false;
  $('game-side').hidden = false;
}

export function setup() {
  const map = $('realm-map');
  $('realm-signin').addEventListener('submit', (e) => {
    e.preventDefault();
    const t = $('realm-token').value.trim();
    $('realm-token').value = '';
    if (t) signIn(t);
  });
  $('realm-join').addEventListener('submit', (e) => {
    e.preventDefault();
    const n = $('realm-name').value.trim();
    if (n) join(n);
  });
  $('realm-signout').addEventListener('click', signOut);
  $('realm-zoom-in').addEventListener('click', () => zoomBy(1.25));
  $('realm-zoom-out').addEventListener('click', () => zoomBy(0.8));
  $('realm-home').addEventListener('click', home);
  $('realm-pass').addEventListener('click', passBoard);
  $('realm-replay-prev').addEventListener('click', () => stepReplay(-1));
  $('realm-replay-next').addEventListener('click', () => stepReplay(1));
  $('realm-replay-end').addEventListener('click', endReplay);
  map.addEventListener('pointerdown', (e) => {
    if (e.button !== 0) return;
    realm.drag = { x: e.clientX, y: e.clientY, panX: realm.pan.x, panY: realm.pan.y, moved: false };
  });
  window.addEventListener('pointermove', (e) => {
    const d = realm.drag;
    if (d) {
      const dx = e.clientX - d.x;
      const dy = e.clientY - d.y;
      if (!d.moved && Math.hypot(dx, dy) > 4) {
        d.moved = true;
        map.classList.add('dragging');
      }
      if (d.moved) {
        realm.pan.x = d.panX + dx;
        realm.pan.y = d.panY + dy;
        applyTransform();
      }
    }
    if (realm.on && realm.view && map.contains(e.target)) {
      const r = map.getBoundingClientRect();
      const x = Math.floor((e.clientX - r.left - realm.pan.x) / (S * realm.zoom));
      const y = -Math.floor((e.clientY - r.top - realm.pan.y) / (S * realm.zoom)) - 1;
      $('realm-cursor').textContent = `square [${x}, ${y}], board ${at(boardOf([x, y]))}`;
    }
  });
  window.addEventListener('pointerup', () => {
    if (realm.drag?.moved) {
      map.classList.remove('dragging');
      // The click that ends a drag is not a click on a square.
      realm.dragged = true;
      setTimeout(() => {
        realm.dragged = false;
      }, 0);
    }
    realm.drag = null;
  });
  map.addEventListener('click', (e) => {
    if (realm.dragged) return;
    const sq = e.target.closest('.rsq');
    if (sq) clickSquare(Number(sq.dataset.x), Number(sq.dataset.y));
  });
  map.addEventListener('wheel', (e) => {
    e.preventDefault();
    const r = map.getBoundingClientRect();
    zoomBy(e.deltaY < 0 ? 1.1 : 1 / 1.1, e.clientX - r.left, e.clientY - r.top);
  }, { passive: false });
  map.addEventListener('keydown', (e) => {
    const step = 48;
    const moves = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
    if (moves[e.key]) {
      e.preventDefault();
      realm.pan.x += moves[e.key][0];
      realm.pan.y += moves[e.key][1];
      applyTransform();
    } else if (e.key === '+' || e.key === '=') zoomBy(1.25);
    else if (e.key === '-') zoomBy(0.8);
    else if (e.key === 'Escape') {
      clearPick();
      note('');
      draw();
    }
  });
}
