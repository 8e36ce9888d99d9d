// The playground in a real browser: Debian's Chromium driven by playwright-core, run
// with `node --test`. The server is started by playground/tests/browser.rs, which
// passes its URL (PLAYGROUND_URL) and the copied Chessception folder it serves
// (PLAYGROUND_DIR), so these tests may edit that folder's files.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const base = process.env.PLAYGROUND_URL;
const dir = process.env.PLAYGROUND_DIR;
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const WAIT = { timeout: 10000 };

let browser;
let page;

before(async () => {
  assert.ok(base, 'PLAYGROUND_URL names the server (run these through `cargo test -p varia-playground --test browser`)');
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  page = await browser.newPage();
  page.on('pageerror', (e) => console.error('page error:', e.message));
});

after(async () => {
  await browser?.close();
});

async function open(query = '') {
  await page.goto(`${base}/${query}`);
  await page.waitForSelector('body[data-ready="true"]', WAIT);
}

const square = (name) => page.locator(`#board [data-square="${name}"]`);

async function click(from, to) {
  const plies = await page.locator('#log > li').count();
  await square(from).click();
  await page.waitForSelector(`#board [data-square="${to}"].target`, WAIT);
  await square(to).click();
  // One more entry in the log: the move's.
  await page.waitForFunction((n) => document.querySelectorAll('#log > li').length > n, plies, WAIT);
}

const logText = () => page.locator('#log').innerText();

test('the page plays standard chess by clicking', async () => {
  await open('?variant=standard');
  assert.equal(await page.locator('#board .square').count(), 64);
  assert.equal(await page.locator('#status').innerText(), 'White to move');
  await square('e2').click();
  await page.waitForSelector('#board .target', WAIT);
  const targets = await page.locator('#board .target').evaluateAll((els) => els.map((e) => e.dataset.square).sort());
  assert.deepEqual(targets, ['e3', 'e4']);
  await square('e4').click();
  await page.waitForSelector('#board [data-square="e4"] .piece.white', WAIT);
  assert.equal(await square('e2').locator('.piece').count(), 0);
  assert.ok(await square('e2').evaluate((e) => e.classList.contains('last')));
  assert.ok(await square('e4').evaluate((e) => e.classList.contains('last')));
  assert.match(await logText(), /white pawn e2-e4/);
  // 1... f5 2. Qh5+: check shown on the black king's square.
  await click('f7', 'f5');
  await click('d1', 'h5');
  assert.match(await page.locator('#status').innerText(), /Black to move — check!/);
  assert.ok(await square('e8').evaluate((e) => e.classList.contains('check')));
  assert.equal(await page.locator('#moves').innerText(), '1. e4 f5 2. Qh5+');
  // Undo takes the check back.
  await page.click('#undo');
  await page.waitForSelector('#board [data-square="d1"] .piece.white', WAIT);
  assert.equal(await page.locator('#board .check').count(), 0);
  assert.equal(await page.locator('#moves').innerText(), '1. e4 f5');
});

test('a promotion asks which piece', async () => {
  await open(`?variant=standard&fen=${encodeURIComponent('8/4P3/8/8/8/8/k7/4K3 w - - 0 1')}`);
  assert.equal(await page.locator('#chooser').isVisible(), false, 'no chooser before a choice');
  await square('e7').click();
  await page.waitForSelector('#board [data-square="e8"].target', WAIT);
  await square('e8').click();
  await page.waitForSelector('#chooser:not([hidden]) .choice', WAIT);
  const labels = await page.locator('#chooser .choice').allInnerTexts();
  assert.deepEqual(labels, ['queen', 'rook', 'bishop', 'knight']);
  await page.click('#chooser .choice[data-move="e7-e8=N"]');
  await page.waitForSelector('#board [data-square="e8"] .piece[data-kind="knight"]', WAIT);
  assert.equal(await page.locator('#chooser').isVisible(), false, 'the chooser closes');
});

// The first rank of white's pieces, a1 to h1, as letters (empty: '.').
const firstRank = () =>
  page.evaluate(() =>
    ['a1', 'b1', 'c1', 'd1', 'e1', 'f1', 'g1', 'h1']
      .map((sq) => document.querySelector(`#board [data-square="${sq}"] .piece`)?.dataset.kind ?? '.')
      .map((k) => (k === 'knight' ? 'N' : k[0].toUpperCase()))
      .join(''),
  );

test('Chess960 starts from the setup asked for, and Deal draws one', async () => {
  // Setup 0 is BBQNNRKR (Scharnagl): bishops a1 b1, queen c1, knights d1 e1, R K R.
  await open('?variant=chess960&deal=0');
  assert.ok(await page.locator('#deal-box').isVisible(), 'the setup box is shown for a variant that deals');
  assert.equal(await firstRank(), 'BBQNNRKR');
  assert.match(await logText(), /New game of Chess960 from setup 0/);
  // Setup 518 is chess's own; a number out of range says why and keeps the game.
  await page.fill('#deal', '518');
  await page.click('#new-game');
  await page.waitForFunction(() => /from setup 518/.test(document.querySelector('#log').innerText), null, WAIT);
  assert.equal(await firstRank(), 'RNBQKBNR');
  await page.fill('#deal', '960');
  await page.click('#new-game');
  await page.waitForSelector('#error:not([hidden])', WAIT);
  assert.match(await page.locator('#error').innerText(), /setup 960 does not exist: chess960 has setups 0 to 959/);
  assert.equal(await firstRank(), 'RNBQKBNR');
  // Deal: a number drawn into the box, and the board is that setup (as the API deals it).
  await page.click('#deal-random');
  await page.waitForFunction(() => /from setup [0-9]+/.test(document.querySelector('#log').innerText), null, WAIT);
  const n = Number(await page.inputValue('#deal'));
  assert.ok(Number.isInteger(n) && n >= 0 && n < 960, `a setup number: ${n}`);
  const api = await (
    await fetch(`${base}/api/games`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ variant: 'chess960', deal: n }),
    })
  ).json();
  const want = api.state.fen.split(' ')[0].split('/')[7];
  assert.equal(await firstRank(), want, `setup ${n}`);
  // A variant without deals hides the box.
  await open('?variant=standard');
  assert.ok(await page.locator('#deal-box').isHidden(), 'standard chess deals no setups');
});

test('janggi: the Pass button passes the turn, is off in check, and two passes end the game', async () => {
  await open('?variant=janggi');
  assert.equal(await page.locator('#board .square').count(), 90);
  const pass = page.locator('#pass');
  assert.ok(await pass.isVisible(), 'a variant whose sides may pass shows the button');
  assert.ok(await pass.isEnabled());
  // The pass is the button's: the general on e2 lists its moves, not its own square.
  await square('e2').click();
  await page.waitForSelector('#board .target', WAIT);
  const targets = await page.locator('#board .target').evaluateAll((els) => els.map((e) => e.dataset.square).sort());
  assert.ok(!targets.includes('e2') && targets.includes('e1'), `the general's targets: ${targets}`);
  await square('e2').click();
  // White passes: nothing moves, black is to move, the log says so.
  let plies = await page.locator('#log > li').count();
  await pass.click();
  await page.waitForFunction((n) => document.querySelectorAll('#log > li').length > n, plies, WAIT);
  assert.equal(await page.locator('#status').innerText(), 'Black to move');
  assert.match(await logText(), /1\. e2-e2\s+white passes/);
  assert.equal(await square('e2').locator('.piece.white').count(), 1);
  // Black passes too: two passes in a row end the game, counted (Han's 1.5 wins it).
  plies = await page.locator('#log > li').count();
  await pass.click();
  await page.waitForFunction((n) => document.querySelectorAll('#log > li').length > n, plies, WAIT);
  assert.match(await page.locator('#status').innerText(), /^Game over: black wins/);
  assert.ok(await pass.isDisabled(), 'no pass once the game is over');
  // In check there is no pass: the button is off (the black chariot on e1 checks e2).
  await open(`?variant=janggi&fen=${encodeURIComponent('3k5/9/9/9/9/9/9/9/4K4/4r4 w - - 0 1')}`);
  assert.match(await page.locator('#status').innerText(), /White to move — check!/);
  assert.ok(await pass.isVisible());
  assert.ok(await pass.isDisabled());
  // Chess has no pass: no button.
  await open('?variant=standard');
  assert.ok(await pass.isHidden());
});

test('a Decachess board is 10 by 10', async () => {
  await open('?variant=decachess');
  assert.equal(await page.locator('#board .square').count(), 100);
  assert.equal(await page.locator('#board').getAttribute('data-files'), '10');
  assert.equal(await page.locator('#board .square').first().getAttribute('data-square'), 'a10');
  // The graveyards it promotes from: empty, then black's pawn taken on d6 is in black's.
  assert.equal(await page.locator('#graveyards').innerText(), 'Graveyards — white: empty; black: empty');
  await click('e2', 'e5');
  await click('d9', 'd6');
  await click('e5', 'd6');
  assert.equal(await page.locator('#graveyards').innerText(), 'Graveyards — white: empty; black: pawn ×1');
  await open('?variant=standard');
  assert.ok(await page.locator('#graveyards').isHidden(), 'standard chess has no graveyard');
});

test("the Archer's shot is marked among its targets, and shooting leaves it in place", async () => {
  await open(`?variant=decachess&fen=${encodeURIComponent('5k4/10/10/10/3p6/10/3A6/10/10/5K4 w - - 0 1')}`);
  await square('d4').click();
  await page.waitForSelector('#board .target', WAIT);
  assert.equal(await page.locator('#board .target').count(), 9);
  assert.deepEqual(await page.locator('#board .target.shot').evaluateAll((els) => els.map((e) => e.dataset.square)), ['d6']);
  await square('d6').click();
  await page.waitForSelector('#board [data-square="d6"]:not(:has(.piece))', WAIT);
  assert.equal(await square('d4').locator('.piece').getAttribute('data-kind'), 'archer');
});

test('a frozen pawn and the piece it returns as are marked on the board', async () => {
  // a9-a10 with an empty graveyard freezes the pawn; black takes the knight on c1, and
  // the pawn returns as a knight that waits through white's next turn.
  await open(`?variant=decachess&fen=${encodeURIComponent('5k4/P9/10/10/10/2r7/10/10/10/2N2K4 w - - 0 1')}`);
  await click('a9', 'a10');
  assert.equal(await square('a10').locator('.badge.frozen').count(), 1);
  assert.match(await square('a10').locator('.piece').getAttribute('title'), /white pawn on a10, frozen/);
  await click('c5', 'c1');
  assert.equal(await square('a10').locator('.badge.frozen').count(), 0);
  assert.equal(await square('a10').locator('.badge.waiting').count(), 1);
  assert.equal(await square('a10').locator('.piece').getAttribute('data-kind'), 'knight');
  assert.match(await square('a10').locator('.piece').getAttribute('title'), /white knight on a10, waiting/);
});

test('a Chessception attack changes hit points and the log explains it', async () => {
  await open('?variant=chessception');
  assert.equal(await square('g8').locator('.hp').innerText(), '4/4');
  // Knight stacks as red dots (b1's knight: one stack), the king's guard as a blue frame.
  assert.equal(await square('b1').locator('.stacks').innerText(), '•');
  assert.equal(await square('d4').locator('.stacks').count(), 0);
  assert.ok(await square('d2').evaluate((e) => e.classList.contains('guarded')));
  assert.ok(!(await square('b2').evaluate((e) => e.classList.contains('guarded'))));
  assert.match(await square('b1').locator('.piece').getAttribute('title'), /attacks ×2 \(1 knight stacks\)/);
  for (const [f, t] of [['e2', 'e4'], ['g8', 'f6'], ['e4', 'e5'], ['f6', 'd5'], ['c2', 'c4'], ['d7', 'd6']]) {
    await click(f, t);
  }
  // The c4 pawn deals 2 to the 4-HP knight, which survives: the pawn stays on c4.
  await click('c4', 'd5');
  assert.equal(await square('d5').locator('.hp').innerText(), '2/4');
  assert.equal(await square('d5').locator('.damage').innerText(), '−2');
  assert.equal(await square('d5').locator('.hpfill').evaluate((e) => e.style.width), '50%');
  assert.equal(await square('c4').locator('.piece.white').count(), 1);
  const log = await logText();
  assert.match(log, /black knight on d5 takes 2 \(primary\): 2 HP left/);
  assert.match(log, /white attacker stays on c4/);
  assert.match(await square('d5').locator('.piece').getAttribute('title'), /black knight on d5: 2\/4 HP/);
  // Animated from the events: one floating number per damage event, on its square.
  const fx = await page.locator('#board .fx-damage').evaluateAll((els) =>
    els.map((e) => [e.closest('[data-square]').dataset.square, e.textContent]),
  );
  assert.deepEqual(fx, [['d5', '−2']]);
});

test('an attack that kills on two squares shows green dots where it may land', async () => {
  // The queen on a4 kills the knight on d7 and, by its area damage, the pawn on e7.
  await open(`?variant=chessception&fen=${encodeURIComponent('8/3np3/8/8/Q6k/8/8/K7 w - - 0 1')}`);
  await square('a4').click();
  await page.waitForSelector('#board [data-square="d7"].target', WAIT);
  assert.equal(await page.locator('#board .landing').count(), 0, 'no dots before the attack is chosen');
  await square('d7').click();
  await page.waitForSelector('#chooser:not([hidden])', WAIT);
  const dots = await page.locator('#board .landing').evaluateAll((els) => els.map((e) => e.dataset.square).sort());
  assert.deepEqual(dots, ['d7', 'e7']);
  // Cancel takes the dots away (the queen stays picked); the attack again, and a click
  // on the e7 dot lands there.
  await page.click('#chooser-cancel');
  assert.equal(await page.locator('#board .landing').count(), 0);
  assert.equal(await page.locator('#board [data-square="d7"].target').count(), 1);
  await square('d7').click();
  await page.waitForSelector('#board [data-square="e7"].landing', WAIT);
  await square('e7').click();
  await page.waitForSelector('#board [data-square="e7"] .piece.white', WAIT);
  assert.equal(await square('d7').locator('.piece').count(), 0);
  assert.equal(await square('a4').locator('.piece').count(), 0);
  assert.match(await logText(), /1\. a4-d7@e7/);
  assert.ok(await page.locator('#chooser').isHidden());
});

test('moves slide and damage floats, in the order of the events; none of it under reduced motion', async () => {
  await open('?variant=chessception');
  await click('e2', 'e4');
  // The move's piece slid from e2 (the first event of the action).
  assert.equal(await square('e4').locator('.piece').getAttribute('data-slid'), '0');
  for (const [f, t] of [['g8', 'f6'], ['e4', 'e5'], ['f6', 'd5'], ['c2', 'c4'], ['d7', 'd6'], ['c4', 'd5']]) {
    await click(f, t);
  }
  // The attack's effects, in event order, each over within 300 ms of the reply.
  const fx = await page.locator('#board .fx').evaluateAll((els) =>
    els.map((e) => {
      const t = e.getAnimations()[0]?.effect.getComputedTiming();
      return { order: Number(e.dataset.order), delay: t?.delay, end: t?.endTime };
    }),
  );
  assert.ok(fx.length >= 1, 'the attack is animated');
  for (const f of fx) assert.ok(f.end > 0 && f.end <= 300, `an effect ends within 300 ms (${f.end})`);
  // A later event starts no earlier than an earlier one.
  fx.sort((a, b) => a.order - b.order);
  for (let i = 1; i < fx.length; i++) assert.ok(fx[i].delay >= fx[i - 1].delay, JSON.stringify(fx));
  await page.emulateMedia({ reducedMotion: 'reduce' });
  try {
    await open('?variant=chessception');
    for (const [f, t] of [['e2', 'e4'], ['g8', 'f6'], ['e4', 'e5'], ['f6', 'd5'], ['c2', 'c4'], ['d7', 'd6'], ['c4', 'd5']]) {
      await click(f, t);
    }
    assert.equal(await square('d5').locator('.damage').innerText(), '−2', 'the damage is still shown, unanimated');
    assert.equal(await page.locator('#board .fx').count(), 0);
    assert.equal(await page.locator('#board [data-slid]').count(), 0);
  } finally {
    await page.emulateMedia({ reducedMotion: 'no-preference' });
  }
});

// A solo board (Chessic): strikes by clicking gold targets until the board ends.
test('a Chessic board is played to the end by clicking, and shows the API\'s score', async () => {
  await open('?variant=chessic&level=apprentice&seed=2');
  await page.waitForSelector('#board.forge .square', WAIT);
  assert.equal(await page.locator('#board .square').count(), 36);
  assert.equal(await page.locator('#panel').isVisible(), false, 'no two-sided panel');
  assert.equal(await page.locator('#status').innerText(), 'First strike: any unfinished square');
  assert.equal(await page.locator('#board .square.gold').count(), 36);
  assert.equal(await page.locator('#board .pip.hit').count(), 0);
  const id = await page.locator('#solo-panel').getAttribute('data-id');
  const api = async () => (await fetch(`${base}/api/solo/${id}`)).json();
  // The board is the one the API dealt for that seed and level.
  const dealt = await api();
  assert.deepEqual([dealt.seed, dealt.level], [2, 'apprentice']);
  for (const q of dealt.squares) {
    assert.equal(await square(q.name).locator('.piece').innerText(), q.piece.letter, q.name);
  }
  // Pause hides the board and stops the clock (a manual clock: 3 s pass while paused).
  await page.click('#solo-pause');
  await page.waitForSelector('#board .paused-note', WAIT);
  assert.match(await page.locator('#solo-clock').innerText(), /\(paused\)/);
  await fetch(`${base}/api/clock/wait`, { method: 'POST', body: JSON.stringify({ ms: 3000 }), headers: { 'Content-Type': 'application/json' } });
  await page.click('#solo-pause');
  await page.waitForSelector('#board .square', WAIT);
  assert.equal((await api()).clock.elapsed_ms, 0, 'no time passed while paused');
  let strikes = 0;
  while ((await page.locator('#status').getAttribute('data-status')) === 'playing') {
    const n = await page.locator('#log > li').count();
    const target = await page.locator('#board .square.gold').first().getAttribute('data-square');
    await square(target).click();
    await page.waitForFunction((k) => document.querySelectorAll('#log > li').length > k, n, WAIT);
    strikes++;
    if (strikes === 1) {
      // The first strike: a pip on its square, its words in the log, its points floating.
      assert.equal(await square(target).locator('.pip.hit').count(), 1);
      const first = (await api()).events.map((e) => e.text);
      assert.deepEqual(await page.locator('#log > li').last().locator('li').allInnerTexts(), first);
      assert.ok((await square(target).locator('.fx-points').count()) >= 1);
    }
    assert.ok(strikes <= 108, 'a 6×6 board of 3 layers ends within 108 strikes');
  }
  const end = await api();
  assert.notEqual(end.status, 'playing');
  assert.equal(end.ply, strikes);
  const total = (end.score.total / 10).toFixed(1);
  assert.equal(await page.locator('#solo-breakdown tr.total td.num').innerText(), total);
  for (const part of end.breakdown) {
    assert.equal(await page.locator(`#solo-breakdown tr[data-key="${part.key}"] td.num`).innerText(), (part.tenths / 10).toFixed(1));
  }
  assert.ok((await page.locator('#status').innerText()).endsWith(`Final score: ${total}`));
  assert.match(await logText(), new RegExp(`Final score: ${total.replace('.', '\\.')}`));
  // Each square shows as many struck pips as the API's hits.
  const hits = await page.locator('#board .square').evaluateAll((els) => els.map((e) => [e.dataset.square, Number(e.dataset.hits)]));
  assert.deepEqual(hits, end.squares.map((q) => [q.name, q.hits]));
});

// Waits until the d8 queen's hit points read `text`.
const queenHp = (text) =>
  page.waitForFunction((t) => document.querySelector('#board [data-square="d8"] .hp')?.textContent === t, text, WAIT);

test('a saved change reloads the page, a broken save shows its error', async () => {
  const file = join(dir, 'variant.toml');
  const good = readFileSync(file, 'utf8');
  const queen = '[pieces.queen]\nletter = "Q"\nvalue = 900\nhp = 4\n';
  assert.ok(good.includes(queen));
  try {
    await open('?variant=chessception');
    await click('e2', 'e4');
    assert.equal(await square('d8').locator('.hp').innerText(), '4/4');
    writeFileSync(file, good.replace(queen, queen.replace('hp = 4', 'hp = 12')));
    await queenHp('12/12');
    assert.match(await page.locator('#reload-note').innerText(), /rules of chessception were reloaded/);
    // The move survives the reload.
    assert.equal(await square('e4').locator('.piece.white').count(), 1);

    const broken = good.replace(queen, queen.replace('hp = 4', 'hp = "twelve"'));
    const line = broken.split('\n').indexOf('hp = "twelve"') + 1;
    writeFileSync(file, broken);
    await page.waitForSelector('#problems:not([hidden]) li', WAIT);
    const problem = await page.locator('#problem-list li').first().innerText();
    assert.match(problem, new RegExp(`variant\\.toml:${line}:\\d+: .*invalid type`));
    assert.match(await page.locator('#reload-note').innerText(), /last good rules keep running/);
    assert.equal(await square('d8').locator('.hp').innerText(), '12/12', 'the last good rules run on');
    // And the game still plays.
    await click('e7', 'e5');
  } finally {
    writeFileSync(file, good);
  }
  await queenHp('4/4');
  await page.waitForSelector('#problems[hidden]', { state: 'attached', ...WAIT });
});


test('the control panel: the computer answers at its level, moves can be typed', async () => {
  await open('?variant=decachess&as=white&level=novice');
  assert.equal(await page.locator('#play-as').inputValue(), 'white');
  const levels = await page.locator('#level option').allInnerTexts();
  assert.deepEqual(levels, ['novice', 'veteran', 'master']);
  assert.equal(await page.locator('#level').inputValue(), 'novice');
  // A typed move (SAN or from-to), then the computer's reply for black, in the log.
  await page.fill('#move-text', 'e2-e5');
  await page.click('#play-move');
  await page.waitForFunction(() => document.querySelectorAll('#log > li').length >= 3, null, WAIT);
  const log = await page.locator('#log > li').allInnerTexts();
  assert.match(log[1], /^1\. e2-e5/);
  assert.match(log[2], /^2\. \S+ \(novice\)/);
  assert.equal(await page.locator('#status').innerText(), 'White to move');
  // Clicking a black piece on white's turn does nothing: the computer plays black.
  assert.equal(await page.locator('#board .picked').count(), 0);
  // Watching: the computer plays both sides until it is switched back.
  await page.selectOption('#play-as', 'none');
  await page.waitForFunction(() => document.querySelectorAll('#log > li').length >= 5, null, WAIT);
  await page.selectOption('#play-as', 'both');
});

test('the control panel: undo of up to 4 plies, copy, paste, save, load and reset', async () => {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  await open('?variant=standard');
  for (const m of ['e4', 'e5', 'Nf3']) {
    await page.fill('#move-text', m);
    await page.click('#play-move');
  }
  await page.waitForFunction(() => document.querySelector('#moves').textContent === '1. e4 e5 2. Nf3', null, WAIT);
  await page.click('#take-back');
  await page.waitForFunction(() => document.querySelector('#moves').textContent === '', null, WAIT);
  assert.match(await logText(), /Undo: 3 plies taken back/);
  for (const m of ['d4', 'd5']) {
    await page.fill('#move-text', m);
    await page.click('#play-move');
  }
  await page.waitForFunction(() => document.querySelector('#moves').textContent === '1. d4 d5', null, WAIT);
  // Copy writes the move list to the browser's clipboard.
  await page.click('#copy');
  await page.waitForFunction(() => /copied 2 moves/.test(document.querySelector('#panel-note').textContent), null, WAIT);
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'd2-d4 d7-d5');
  // Save keeps the game in this browser; reset starts again; load brings it back.
  await page.click('#save');
  await page.click('#reset');
  await page.waitForFunction(() => document.querySelector('#moves').textContent === '', null, WAIT);
  await page.click('#load');
  await page.waitForFunction(() => document.querySelector('#moves').textContent === '1. d4 d5', null, WAIT);
  // Paste replaces the game with the clipboard's moves; a bad list keeps the game.
  await page.evaluate(() => navigator.clipboard.writeText('c2-c4 e7-e6 b1-c3'));
  await page.click('#paste');
  await page.waitForFunction(() => document.querySelector('#moves').textContent === '1. c4 e6 2. Nc3', null, WAIT);
  assert.match(await page.locator('#panel-note').innerText(), /pasted 3 moves/);
  await page.evaluate(() => navigator.clipboard.writeText('e2-e4 e2-e4'));
  await page.click('#paste');
  await page.waitForSelector('#error:not([hidden])', WAIT);
  assert.match(await page.locator('#error').innerText(), /the moves do not replay: move 2 \(`e2-e4`\)/);
  assert.equal(await page.locator('#moves').innerText(), '1. c4 e6 2. Nc3', 'the current game is kept');
  // Nothing saved for a variant: said so, nothing changes.
  await open('?variant=decachess');
  await page.evaluate(() => localStorage.removeItem('varia-playground-save:decachess'));
  await page.click('#load');
  await page.waitForFunction(() => /nothing saved for decachess/.test(document.querySelector('#panel-note').textContent), null, WAIT);
});

// The realm (Caissan) served with the page: alice and bob joined at T0 = 1,000,000 s
// (browser.rs passes their tokens); the first deadline is 1,015,200. alice holds boards
// [0, 0] [-1, -1] [0, -1], bob [1, -1] [-1, 0] [1, 0]; each board has, from its
// lower-left corner, N (+2, +1), R (+1, +2), K (+2, +2), B (+3, +2), Q (+2, +3).
const T0 = 1000000;
const DEADLINE = 1015200;
const rsq = (x, y) => page.locator(`#realm-map .rsq[data-x="${x}"][data-y="${y}"]`);
const realmNote = () => page.locator('#realm-note').innerText();
// The order marks are SVG shapes (a straight arrow has no width): present is enough.
const DRAWN = { ...WAIT, state: 'attached' };

async function realmCall(method, path, tokenOf, body) {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${tokenOf}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

const boardOwner = (b) => page.locator(`#realm-map .rboard[data-board="${b}"]`).getAttribute('data-owner');

test('the realm view: sign in, pan, owners and own pieces, orders by clicking, the round advanced and replayed', async () => {
  const alice = process.env.REALM_ALICE;
  const bob = process.env.REALM_BOB;
  assert.ok(alice && bob, 'browser.rs passes the realm tokens');
  await page.setViewportSize({ width: 1280, height: 860 });
  await open('?realm');
  assert.equal(await page.locator('#variant').inputValue(), '@realm');
  await page.waitForSelector('#realm-signin', WAIT);
  // A wrong token is refused and not kept.
  await page.fill('#realm-token', `${alice}0`);
  await page.click('#realm-signin button');
  await page.waitForFunction(() => /Sign-in refused: unknown player or wrong token/.test(document.querySelector('#realm-note').textContent), null, WAIT);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('varia-realm-token')), null);
  // alice signs in: the token is in this tab's sessionStorage, not in the address.
  await page.fill('#realm-token', alice);
  await page.click('#realm-signin button');
  await page.waitForSelector('#realm-map .rboard', WAIT);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('varia-realm-token')), alice);
  assert.ok(!page.url().includes(alice.split(':')[1]), page.url());
  assert.equal(await page.locator('#realm-token').inputValue(), '', 'the field is cleared');
  assert.equal(await page.locator('#realm-who').innerText(), 'alice');
  // Owners: six boards, each tinted by its owner, the legend naming both.
  const boards = await page.locator('#realm-map .rboard').evaluateAll((els) => els.map((e) => `${e.dataset.board}=${e.dataset.owner}`).sort());
  assert.deepEqual(boards, ['-1,-1=alice', '-1,0=bob', '0,-1=alice', '0,0=alice', '1,-1=bob', '1,0=bob']);
  assert.deepEqual(await page.locator('#realm-legend li').allInnerTexts(), ['alice (you): 3 boards', 'bob: 3 boards']);
  const tint = (b) => page.locator(`#realm-map .rboard[data-board="${b}"] .tint`).evaluate((e) => getComputedStyle(e).backgroundColor);
  const swatch = (p) => page.locator(`#realm-legend li[data-player="${p}"] .swatch`).evaluate((e) => getComputedStyle(e).backgroundColor);
  assert.equal(await tint('0,0'), await swatch('alice'));
  assert.equal(await tint('-1,0'), await swatch('bob'));
  assert.notEqual(await swatch('alice'), await swatch('bob'));
  // Pieces: 15 each; alice's own ringed (mine), bob's not; global coordinates, negative too.
  assert.equal(await page.locator('#realm-map .rpiece').count(), 30);
  assert.equal(await page.locator('#realm-map .rpiece.mine').count(), 15);
  assert.deepEqual([...new Set(await page.locator('#realm-map .rpiece.mine').evaluateAll((els) => els.map((e) => e.dataset.owner)))], ['alice']);
  assert.equal(await rsq(-3, 2).locator('.rpiece').getAttribute('data-kind'), 'king');
  assert.equal(await rsq(-3, 2).locator('.rpiece').getAttribute('data-owner'), 'bob');
  assert.equal(await rsq(-3, -2).locator('.rpiece.mine').getAttribute('data-kind'), 'queen');
  // The city is outlined and named, though no board of it is in play yet.
  assert.equal(await page.locator('#realm-map .rcity[data-city="Caissa"] .cname').innerText(), 'Caissa');
  // The deadline counts down on the server's (manual) clock.
  const now = Math.floor((await (await fetch(`${base}/api/clock`)).json()).now_ms / 1000) + T0;
  const left = DEADLINE - now;
  const hms = `${Math.floor(left / 3600)} h ${Math.floor((left % 3600) / 60)} min ${left % 60} s`;
  assert.match(await page.locator('#realm-deadline').innerText(), new RegExp(`^Round 0 is open: deadline in ${hms} `));
  // Pan: arrow keys and dragging move the map; + zooms.
  const pan = async () => (await page.locator('#realm-map').getAttribute('data-pan')).split(',').map(Number);
  const [x0, y0] = await pan();
  await page.focus('#realm-map');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowUp');
  assert.deepEqual(await pan(), [x0 + 48, y0 + 48]);
  const box = await page.locator('#realm-map').boundingBox();
  await page.mouse.move(box.x + 60, box.y + 60);
  await page.mouse.down();
  await page.mouse.move(box.x + 160, box.y + 110, { steps: 5 });
  await page.mouse.up();
  assert.deepEqual(await pan(), [x0 + 148, y0 + 98]);
  await page.keyboard.press('+');
  assert.equal(await page.locator('#realm-map').getAttribute('data-zoom'), '1.250');
  await page.keyboard.press('-');
  assert.equal(await page.locator('#realm-map').getAttribute('data-zoom'), '1.000');
  await page.click('#realm-home');
  // bob orders through the API: his knight [-3, 1] leaps away to [-1, 2].
  const b = await realmCall('PUT', '/realm/orders', bob, { orders: [{ type: 'move', from: [-3, 1], to: [-1, 2] }] });
  assert.equal(b.status, 200);
  // alice picks her queen [-3, -2]: up the file to bob's king [-3, 2] is a target; bob's
  // queen [-3, 3] beyond is refused (his bishop [-2, 2] guards it), with the reason.
  await rsq(-3, -2).click();
  await page.waitForSelector('#realm-map .rsq[data-x="-3"][data-y="2"].target', WAIT);
  assert.ok(await rsq(-3, -2).evaluate((e) => e.classList.contains('picked')));
  assert.ok(await rsq(-3, 3).evaluate((e) => e.classList.contains('refused')));
  assert.match(await rsq(-3, 3).getAttribute('title'), /refused: the queen on \[-3, 3\] is guarded by bob's bishop on \[-2, 2\]/);
  await rsq(-3, 2).click();
  await page.waitForSelector('#realm-orders-svg line.order-arrow[data-from="-3,-2"][data-to="-3,2"]', DRAWN);
  assert.deepEqual(await page.locator('#realm-orders li').allInnerTexts(), ['queen [-3, -2] → [-3, 2] ×']);
  const stored = await realmCall('GET', '/realm/orders', alice);
  assert.deepEqual(stored.body.orders, [{ type: 'move', from: [-3, -2], to: [-3, 2] }]);
  // bob's view never holds alice's order (nor her vault).
  const bv = await realmCall('GET', '/realm/world', bob);
  assert.deepEqual(bv.body.orders, [{ type: 'move', from: [-3, 1], to: [-1, 2] }]);
  // A refused order: the rook [1, 2] onto bob's bishop [-2, 2], guarded by his queen.
  await rsq(1, 2).click();
  await page.waitForSelector('#realm-map .rsq[data-x="-2"][data-y="2"].refused', WAIT);
  await rsq(-2, 2).click();
  await page.waitForFunction(() => document.querySelector('#realm-note').classList.contains('refused'), null, WAIT);
  assert.equal(await realmNote(), "Refused — rook [1, 2] → [-2, 2]: the bishop on [-2, 2] is guarded by bob's queen on [-3, 3]. Your stored orders are unchanged.");
  assert.equal(await page.locator('#realm-orders li').count(), 1);
  assert.deepEqual((await realmCall('GET', '/realm/orders', alice)).body.orders, stored.body.orders);
  // The deadline passes on the manual clock: the round resolves; the page moves on.
  const wait = await fetch(`${base}/api/clock/wait`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ms: left * 1000 }) });
  assert.equal(wait.status, 200);
  await page.waitForFunction(() => /^Round 1 is open: deadline in 6 h 0 min 0 s /.test(document.querySelector('#realm-deadline').textContent), null, WAIT);
  assert.deepEqual(await page.locator('#realm-rounds button').allInnerTexts(), ['Round 0']);
  assert.equal(await boardOwner('-1,0'), 'alice', 'the king taken, the board conquered');
  assert.equal(await rsq(-3, 2).locator('.rpiece.mine').getAttribute('data-kind'), 'queen');
  assert.deepEqual(await page.locator('#realm-legend li').allInnerTexts(), ['alice (you): 4 boards', 'bob: 2 boards']);
  assert.deepEqual(await page.locator('#realm-vault .vault-kind').evaluateAll((els) => els.map((e) => e.dataset.kind)), ['B', 'N', 'Q', 'R']);
  assert.deepEqual(await page.locator('#realm-pending .place-king').allInnerTexts(), ['Place your king on board [-1, 0]']);
  assert.equal(await page.locator('#realm-orders-svg line').count(), 0, 'the new round has no orders yet');
  // The round replayed from its events, micro-step by micro-step.
  const live = await page.locator('#realm-map .rpiece').evaluateAll((els) => els.map((e) => `${e.parentElement.dataset.x},${e.parentElement.dataset.y}:${e.dataset.owner}:${e.dataset.kind}`).sort());
  await page.click('#realm-rounds button[data-round="0"]');
  await page.waitForSelector('#realm-replay:not([hidden])', WAIT);
  assert.equal(await page.locator('#realm-replay-head').innerText(), 'Replay of round 0: the start (2 micro-steps with events)');
  assert.equal(await boardOwner('-1,0'), 'bob');
  assert.equal(await rsq(-3, 2).locator('.rpiece').getAttribute('data-owner'), 'bob');
  assert.equal(await rsq(-3, -2).locator('.rpiece').getAttribute('data-kind'), 'queen');
  assert.equal(await page.locator('#realm-map .rpiece').count(), 30);
  await page.click('#realm-replay-next');
  assert.equal(await page.locator('#realm-replay-head').innerText(), 'Replay of round 0: step 1 of 2 — leaps 1');
  assert.deepEqual(await page.locator('#realm-replay-events li').allInnerTexts(), ["leaps 1: bob's knight [-3, 1]-[-1, 2]"]);
  assert.equal(await rsq(-1, 2).locator('.rpiece').getAttribute('data-kind'), 'knight');
  assert.equal(await rsq(-3, 1).locator('.rpiece').count(), 0);
  assert.equal(await page.locator('#realm-orders-svg line.replay-arrow[data-from="-3,1"][data-to="-1,2"]').count(), 1);
  await page.click('#realm-replay-next');
  assert.equal(await page.locator('#realm-replay-head').innerText(), 'Replay of round 0: step 2 of 2 — slides 5');
  assert.deepEqual(await page.locator('#realm-replay-events li').allInnerTexts(), [
    "slides 5: bob's king on [-3, 2] captured, destroyed",
    "slides 5: alice's queen [-3, -2]-[-3, 2]",
    'slides 5: board [-1, 0] conquered by alice from bob',
    "slides 5: bob's rook on [-4, 2] taken with its board, into alice's vault",
    "slides 5: bob's bishop on [-2, 2] taken with its board, into alice's vault",
    "slides 5: bob's knight on [-1, 2] taken with its board, into alice's vault",
    "slides 5: bob's queen on [-3, 3] taken with its board, into alice's vault",
    'slides 5: alice must place a king on board [-1, 0]',
  ]);
  assert.equal(await boardOwner('-1,0'), 'alice');
  assert.ok(await page.locator('#realm-map .rboard[data-board="-1,0"]').evaluate((e) => e.classList.contains('conquered')));
  assert.ok(await rsq(-4, 2).evaluate((e) => e.classList.contains('hit')), 'a banked piece\'s square is marked');
  const end = await page.locator('#realm-map .rpiece').evaluateAll((els) => els.map((e) => `${e.parentElement.dataset.x},${e.parentElement.dataset.y}:${e.dataset.owner}:${e.dataset.kind}`).sort());
  assert.deepEqual(end, live, 'the last step is the live map');
  assert.ok(await page.locator('#realm-replay-next').isDisabled());
  await page.click('#realm-replay-prev');
  assert.equal(await rsq(-3, 2).locator('.rpiece').getAttribute('data-owner'), 'bob');
  await page.click('#realm-replay-end');
  assert.equal(await boardOwner('-1,0'), 'alice');
  // Place the king on the conquered board, drop a queen from the vault, pass a board.
  await page.click('#realm-pending .place-king');
  await rsq(-5, 0).click();
  await page.waitForSelector('#realm-orders-svg circle.place[data-at="-5,0"]', DRAWN);
  await page.click('#realm-vault .vault-kind[data-kind="Q"]');
  await rsq(0, 0).click();
  await page.waitForSelector('#realm-orders-svg circle.drop[data-at="0,0"]', DRAWN);
  await rsq(2, -4).click();
  await page.waitForSelector('#realm-map .rsq.target', WAIT);
  await page.click('#realm-pass');
  await page.waitForSelector('#realm-orders-svg circle.pass[data-at="2,-3"]', DRAWN);
  assert.deepEqual((await realmCall('GET', '/realm/orders', alice)).body.orders, [
    { type: 'place_king', board: [-1, 0], to: [-5, 0] },
    { type: 'drop', kind: 'Q', to: [0, 0] },
    { type: 'pass', board: [0, -1] },
  ]);
  assert.deepEqual(await page.locator('#realm-orders li').allInnerTexts(), [
    'place the king of board [-1, 0] on [-5, 0] ×',
    'drop a queen on [0, 0] ×',
    'pass on board [0, -1] ×',
  ]);
  // A withdrawn order is gone from the server too.
  await page.click('#realm-orders li[data-index="2"] .remove');
  await page.waitForFunction(() => document.querySelectorAll('#realm-orders li').length === 2, null, WAIT);
  assert.equal((await realmCall('GET', '/realm/orders', alice)).body.orders.length, 2);
  // Signing out forgets the token.
  await page.click('#realm-signout');
  assert.equal(await page.evaluate(() => sessionStorage.getItem('varia-realm-token')), null);
  assert.ok(await page.locator('#realm-signin').isVisible());
  // Joining with a name: three boards, the next free ones ring by ring ([-1, 1] [0, 1]
  // [1, 1]); the token is shown once and kept for this tab only.
  await page.fill('#realm-name', 'dave');
  await page.click('#realm-join button');
  await page.waitForSelector('#realm-new-token:not([hidden])', WAIT);
  const shown = await page.locator('#realm-token-shown').innerText();
  assert.match(shown, /^dave:[0-9a-f]+$/);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('varia-realm-token')), shown);
  assert.ok(!page.url().includes(shown.split(':')[1]));
  await page.waitForFunction(() => document.querySelector('#realm-who').textContent === 'dave', null, WAIT);
  assert.deepEqual(await page.locator('#realm-legend li').allInnerTexts(), ['alice: 4 boards', 'bob: 2 boards', 'dave (you): 3 boards']);
  for (const b of ['-1,1', '0,1', '1,1']) assert.equal(await boardOwner(b), 'dave', b);
  assert.equal(await page.locator('#realm-map .rpiece.mine').count(), 15);
  // The same name again: refused with the realm's reason, nobody signed in.
  await page.click('#realm-signout');
  assert.ok(await page.locator('#realm-new-token').isHidden(), 'the token is shown only once');
  await page.fill('#realm-name', 'dave');
  await page.click('#realm-join button');
  await page.waitForFunction(() => /`dave` is already a player of this realm/.test(document.querySelector('#realm-note').textContent), null, WAIT);
  assert.equal(await page.evaluate(() => sessionStorage.getItem('varia-realm-token')), null);
});

// README's screenshots: every variant the server plays, a few plies in, with the log.
// They go to PLAYGROUND_SHOTS when it is set (docs/screenshots/, by
// playground/e2e/screenshots.sh), else to a scratch folder; each must be a real PNG.
test('every playable variant renders, and is photographed', async () => {
  const shots = process.env.PLAYGROUND_SHOTS || mkdtempSync(join(tmpdir(), 'varia-shots-'));
  const variants = await (await fetch(`${base}/api/variants`)).json();
  const playable = variants.filter((v) => v.playable);
  assert.ok(playable.length >= 3, `the server plays several variants: ${playable.map((v) => v.name)}`);
  await page.setViewportSize({ width: 1280, height: 860 });
  for (const v of playable) {
    // A variant that deals its setups (Chess960) from setup 0, which is not chess's own.
    await open(`?variant=${v.name}${v.deals ? '&deal=0' : ''}`);
    if (v.turns === 'solo') await page.waitForSelector('#board.forge .square', WAIT);
    assert.equal(await page.locator('#board .square').count(), v.files * v.ranks, v.name);
    // Chessception after an attack that leaves damage to show (the test above);
    // every other variant two plies in: a middle piece of each side that can move, to
    // its last target.
    if (v.name === 'chessception') {
      for (const [f, t] of [['e2', 'e4'], ['g8', 'f6'], ['e4', 'e5'], ['f6', 'd5'], ['c2', 'c4'], ['d7', 'd6'], ['c4', 'd5']]) {
        await click(f, t);
      }
    }
    // A solo board: a few strikes, each on the middle gold target.
    for (let k = 0; k < 6 && v.turns === 'solo'; k++) {
      await page.waitForSelector('#board.forge .square', WAIT);
      const gold = await page.locator('#board .square.gold').evaluateAll((els) => els.map((e) => e.dataset.square));
      if (gold.length === 0) break;
      const n = await page.locator('#log > li').count();
      await square(gold[Math.floor(gold.length / 2)]).click();
      await page.waitForFunction((c) => document.querySelectorAll('#log > li').length > c, n, WAIT);
    }
    for (let ply = 0; ply < 2 && v.name !== 'chessception' && v.turns !== 'solo'; ply++) {
      const movable = await page.locator('#board .square.movable').evaluateAll((els) => els.map((e) => e.dataset.square));
      if (movable.length === 0) break;
      const from = movable[Math.floor(movable.length / 2)];
      await square(from).click();
      await page.waitForSelector('#board .target', WAIT);
      const targets = await page.locator('#board .target').evaluateAll((els) => els.map((e) => e.dataset.square));
      const plies = await page.locator('#log > li').count();
      await square(targets[targets.length - 1]).click();
      const chooser = page.locator('#chooser:not([hidden]) .choice');
      if (await chooser.count()) await chooser.first().click();
      await page.waitForFunction((n) => document.querySelectorAll('#log > li').length > n, plies, WAIT);
    }
    await page.evaluate(() => window.scrollTo(0, 0));
    // The board at rest: every effect of the last action finished.
    await page.evaluate(() => document.getAnimations().forEach((a) => a.finish()));
    const file = join(shots, `${v.name}.png`);
    await page.screenshot({ path: file });
    const png = readFileSync(file);
    assert.ok(png.length > 10000, `${v.name}: a screenshot of the page (${png.length} bytes)`);
    assert.equal(png.subarray(1, 4).toString(), 'PNG', v.name);
  }
  // The realm, when the server has one and the test a token (REALM_ALICE): alice signed
  // in, her queen on [-3, 2] (the board she conquered in round 0) picked with its targets.
  const realmInfo = await (await fetch(`${base}/api/realm`)).json();
  if (realmInfo.open && process.env.REALM_ALICE) {
    await open('?realm');
    await page.evaluate((t) => sessionStorage.setItem('varia-realm-token', t), process.env.REALM_ALICE);
    await open('?realm');
    await page.waitForSelector('#realm-map .rboard', WAIT);
    await rsq(-3, 2).click();
    await page.waitForSelector('#realm-map .rsq.target', WAIT);
    // Four steps to the east: the city beside bob's boards (screenshots.sh) comes in.
    for (let k = 0; k < 4; k++) await page.keyboard.press('ArrowRight');
    await page.evaluate(() => window.scrollTo(0, 0));
    const file = join(shots, `${realmInfo.variant}.png`);
    await page.screenshot({ path: file });
    const png = readFileSync(file);
    assert.ok(png.length > 10000, `the realm: a screenshot of the page (${png.length} bytes)`);
    assert.equal(png.subarray(1, 4).toString(), 'PNG');
  }
});
