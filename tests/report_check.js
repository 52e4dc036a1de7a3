// report_check.js — loads a `tine report` page in headless Chromium and checks it as a
// reader's browser sees it, through the Chrome DevTools Protocol (a WebSocket client of
// its own below: no npm package).
//
//   node report_check.js CHROMIUM PAGE.html SHOT.png
//
// Fails (exit 1, saying why) when a link to "#x" has no element of id x, when the page
// logs an error or throws, when it loads anything (the page is self-contained: no
// network, no fonts, no files), or when following a link into a closed section does not
// open it. Writes a 1280x2000 screenshot to SHOT.png.
'use strict';
const { spawn } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');

const [chromium, page, shot] = process.argv.slice(2);
if (!shot) {
  console.error('usage: node report_check.js CHROMIUM PAGE.html SHOT.png');
  process.exit(2);
}

function fail(msg) {
  console.error('report_check: ' + msg);
  process.exit(1);
}

// A WebSocket client, text frames only (RFC 6455): the client masks what it sends; the
// server's frames are unmasked and may be fragmented.
function connect(url) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const sock = net.connect(Number(u.port), u.hostname);
    const key = crypto.randomBytes(16).toString('base64');
    let buf = Buffer.alloc(0), open = false, parts = [];
    const ws = { onmessage: null };
    ws.send = (text) => {
      const data = Buffer.from(text), mask = crypto.randomBytes(4);
      const n = data.length;
      const head = n < 126 ? Buffer.from([0x81, 0x80 | n])
        : n < 65536 ? Buffer.from([0x81, 0x80 | 126, n >> 8, n & 255])
        : Buffer.concat([Buffer.from([0x81, 0x80 | 127]), (() => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(n)); return b; })()]);
      for (let i = 0; i < n; i++) data[i] ^= mask[i & 3];
      sock.write(Buffer.concat([head, mask, data]));
    };
    ws.close = () => sock.destroy();
    sock.on('error', reject);
    sock.on('connect', () => sock.write(`GET ${u.pathname} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\n` +
      `Connection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`));
    sock.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (!open) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        if (!/^HTTP\/1\.1 101/.test(buf.slice(0, end).toString())) return reject(new Error('no WebSocket upgrade'));
        buf = buf.slice(end + 4);
        open = true;
        resolve(ws);
      }
      for (;;) {
        if (buf.length < 2) return;
        let len = buf[1] & 127, off = 2;
        if (len === 126) { if (buf.length < 4) return; len = buf.readUInt16BE(2); off = 4; }
        else if (len === 127) { if (buf.length < 10) return; len = Number(buf.readBigUInt64BE(2)); off = 10; }
        if (buf.length < off + len) return;
        const fin = buf[0] & 0x80, op = buf[0] & 15;
        const payload = buf.slice(off, off + len);
        buf = buf.slice(off + len);
        if (op === 1 || op === 0) {
          parts.push(payload);
          if (fin) { const text = Buffer.concat(parts).toString(); parts = []; if (ws.onmessage) ws.onmessage(text); }
        }
      }
    });
  });
}

async function main() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'tine-report-chromium-'));
  const browser = spawn(chromium, ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'],
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true }); // its own process group: killed whole
  const exited = new Promise((resolve) => browser.on('exit', resolve));
  // the profile is removed once the browser has exited (it writes there until then)
  // (and by its helper processes, which outlive it for a moment: the removal is retried,
  // and a profile that will not go is left in the temporary directory, not a failure)
  const cleanup = async () => {
    try { process.kill(-browser.pid, 'SIGKILL'); } catch (e) { browser.kill('SIGKILL'); }
    await exited;
    for (let i = 0; i < 20; i++) {
      try {
        fs.rmSync(profile, { recursive: true, force: true });
        return;
      } catch (e) {
        await new Promise((r) => setTimeout(r, 250));
      }
    }
  };
  const timer = setTimeout(() => cleanup().then(() => fail('timed out after 60 s')), 60000);
  const wsUrl = await new Promise((resolve, reject) => {
    let err = '';
    browser.stderr.on('data', (d) => {
      err += d;
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
    browser.on('exit', (code) => reject(new Error(`${chromium} exited (${code}) before listening: ${err.slice(-500)}`)));
  });
  const ws = await connect(wsUrl);
  let next = 1;
  const pending = new Map(), waiters = [], problems = [];
  ws.onmessage = (text) => {
    const m = JSON.parse(text);
    if (m.id && pending.has(m.id)) {
      const { resolve, reject } = pending.get(m.id);
      pending.delete(m.id);
      return m.error ? reject(new Error(JSON.stringify(m.error))) : resolve(m.result);
    }
    const p = m.params || {};
    if (m.method === 'Runtime.consoleAPICalled' && (p.type === 'error' || p.type === 'assert'))
      problems.push('console.error: ' + p.args.map((a) => a.value !== undefined ? a.value : a.description).join(' '));
    if (m.method === 'Runtime.exceptionThrown')
      problems.push('exception: ' + (p.exceptionDetails.exception ? p.exceptionDetails.exception.description : p.exceptionDetails.text));
    if (m.method === 'Log.entryAdded' && p.entry.level === 'error') problems.push('log: ' + p.entry.text + ' ' + (p.entry.url || ''));
    for (const w of waiters.splice(0)) if (w.method === m.method) w.resolve(p); else waiters.push(w);
  };
  const send = (method, params, sessionId) => new Promise((resolve, reject) => {
    const id = next++;
    pending.set(id, { resolve, reject });
    ws.send(JSON.stringify({ id, method, params: params || {}, sessionId }));
  });
  const event = (method) => new Promise((resolve) => waiters.push({ method, resolve }));

  const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
  const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
  const s = (method, params) => send(method, params, sessionId);
  await s('Runtime.enable');
  await s('Log.enable');
  await s('Page.enable');
  await s('Emulation.setDeviceMetricsOverride', { width: 1280, height: 2000, deviceScaleFactor: 1, mobile: false });
  const loaded = event('Page.loadEventFired');
  await s('Page.navigate', { url: 'file://' + path.resolve(page) });
  await loaded;
  const evaluate = async (expr) => (await s('Runtime.evaluate', { expression: expr, returnByValue: true, awaitPromise: true })).result.value;

  const links = await evaluate(`(() => {
    const a = [...document.querySelectorAll('a[href]')];
    const bad = a.filter((x) => !x.getAttribute('href').startsWith('#') ||
                                !document.getElementById(decodeURIComponent(x.getAttribute('href').slice(1))));
    return { total: a.length, bad: bad.slice(0, 10).map((x) => x.getAttribute('href')), nbad: bad.length,
             loaded: performance.getEntriesByType('resource').map((e) => e.name),
             sections: ['source', 'stages', 'steps', 'selection', 'assembly'].filter((id) => !document.getElementById(id)) };
  })()`);
  if (links.nbad) problems.push(`${links.nbad} of ${links.total} links lead to no anchor of the page: ${links.bad.join(' ')}`);
  if (links.total < 10) problems.push(`only ${links.total} links`);
  if (links.loaded.length) problems.push('the page loaded other resources: ' + links.loaded.join(' '));
  if (links.sections.length) problems.push('sections missing: ' + links.sections.join(' '));

  // a link into a closed step listing opens it (the page's script)
  const opened = await evaluate(`(() => {
    const a = document.querySelector('a[href^="#step-"]');
    if (!a) return 'no link into a step listing';
    const t = document.getElementById(a.getAttribute('href').slice(1));
    const d = t.closest('details');
    if (!d || d.open) return 'the listing is not a closed section';
    location.hash = a.getAttribute('href');
    return new Promise((r) => setTimeout(() => r(d.open ? '' : 'following ' + a.getAttribute('href') + ' left its section closed'), 100));
  })()`);
  if (opened) problems.push(opened);
  await evaluate(`location.hash = ''; window.scrollTo(0, 0)`);

  const png = await s('Page.captureScreenshot', { format: 'png' });
  fs.writeFileSync(shot, Buffer.from(png.data, 'base64'));
  await send('Browser.close').catch(() => {});
  clearTimeout(timer);
  ws.close();
  await cleanup();
  if (problems.length) fail(path.basename(page) + ':\n  ' + problems.join('\n  '));
  console.log(`report_check: ${path.basename(page)}: ${links.total} links resolve, no errors, screenshot ${shot}`);
}

main().catch((e) => fail(e.stack || String(e)));
