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

module.exports = { launch, apiWith, counted, expect, shooter };
