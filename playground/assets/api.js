// The JSON API of `varia serve`, one function per route. Each resolves to the reply's
// body, or throws an Error carrying the server's `error` text and status.

async function call(method, path, body) {
  const init = { method, headers: {} };
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
  if (!r.ok) {
    throw Object.assign(new Error(data.error || `${method} ${path}: ${r.status}`), { status: r.status });
  }
  return data;
}

const game = (id) => `/api/games/${encodeURIComponent(id)}`;

export const variants = () => call('GET', '/api/variants');
export const status = () => call('GET', '/api/status');
// `deal`: a numbered setup of the variant's [setup.deal] (Chess960's 0 to 959), not with `fen`.
export const newGame = (variant, fen, moves, deal) =>
  call('POST', '/api/games', {
    variant,
    ...(fen ? { fen } : {}),
    ...(moves ? { moves } : {}),
    ...(deal !== undefined ? { deal } : {}),
  });
export const state = (id) => call('GET', game(id));
export const targets = (id, from) => call('GET', `${game(id)}/targets?from=${encodeURIComponent(from)}`);
export const play = (id, move) => call('POST', `${game(id)}/moves`, { move });
export const undo = (id, plies = 1) => call('POST', `${game(id)}/undo`, { plies });
export const ai = (id, level, seed = 0) => call('POST', `${game(id)}/ai`, { level, seed });

// Solo boards.
const board = (id) => `/api/solo/${encodeURIComponent(id)}`;
export const newSolo = (variant, level, seed) =>
  call('POST', '/api/solo', { variant, ...(level ? { level } : {}), seed });
export const soloState = (id) => call('GET', board(id));
export const strike = (id, square) => call('POST', `${board(id)}/strikes`, { square });
export const soloUndo = (id, strikes = 1) => call('POST', `${board(id)}/undo`, { strikes });
export const soloPause = (id) => call('POST', `${board(id)}/pause`);
export const soloResume = (id) => call('POST', `${board(id)}/resume`);
