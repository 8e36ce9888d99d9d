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

test('a Decachess board is 10 by 10', async () => {
  await open('?variant=decachess');
  assert.equal(await page.locator('#board .square').count(), 100);
  assert.equal(await page.locator('#board').getAttribute('data-files'), '10');
  assert.equal(await page.locator('#board .square').first().getAttribute('data-square'), 'a10');
});

test('a Chessception attack changes hit points and the log explains it', async () => {
  await open('?variant=chessception');
  assert.equal(await square('g8').locator('.hp').innerText(), '4/4');
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
    await open(`?variant=${v.name}`);
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
});
