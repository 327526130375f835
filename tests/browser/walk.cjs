// What the API-driven browser walks share: Chromium launched as the tests run it, the JSON
// API with a key, a check that throws, and a screenshot that is also audited.
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

module.exports = { launch, apiWith, expect, shooter };
