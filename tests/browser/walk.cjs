// What the API-driven browser walks share: Chromium launched as the tests run it, the JSON
// API with a key, waiting for responses to be counted, a check that throws, and a screenshot
// that is also audited.
const { chromium } = require("playwright-core");
const path = require("path");
const { audit } = require("./audit.cjs");

function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

// `api(method, route, body)`: the JSON API at `base` with `key`; throws on a refusal.
function apiWith(base, key) {
  return async function api(method, route, body) {
    const response = await fetch(`${base}/api/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body && JSON.stringify(body),
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
}

// The survey's responses once `total` are counted (a worker counts them within seconds);
// fails after 30 s.
async function counted(api, slug, total) {
  const deadline = Date.now() + 30000;
  for (;;) {
    const listed = await api("GET", `/surveys/${slug}/responses`);
    if (listed.total === total) return listed;
    if (Date.now() > deadline) throw new Error(`still ${listed.total} responses after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

function expect(condition, what) {
  if (!condition) throw new Error(what);
}

// `shoot(page, name)`: a full-page screenshot in `shots`, and the page's audit.
function shooter(shots) {
  return async function shoot(page, name) {
    await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
    await audit(page, name);
  };
}

// A real 120 × 40 PNG of one colour, made with Node's zlib (no image library needed).
function logoPng() {
  const zlib = require("zlib");
  const crcTable = [...Array(256).keys()].map((n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes) => {
    let c = 0xffffffff;
    for (const b of bytes) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const out = Buffer.alloc(8 + data.length + 4);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const [width, height] = [120, 40];
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array(width).fill([26, 95, 180]).flat())]);
  const pixels = zlib.deflateSync(Buffer.concat(Array(height).fill(row)));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header), chunk("IDAT", pixels), chunk("IEND", Buffer.alloc(0))]);
}

module.exports = { launch, apiWith, counted, expect, shooter, logoPng };
