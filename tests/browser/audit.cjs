// What every page visited by the browser tests must pass: axe-core's rules, run inside the
// page (every rule axe runs by default: WCAG 2.x A and AA and its best practices), with no
// violation at any impact level, minor included; and, at phone width, no sideways scrolling
// and every control of a respondent's form a target of at least 24 by 24 CSS pixels (WCAG 2.2
// target size, without its exception for spaced targets). Findings are collected so that one
// run names all of them; `check()` fails with the list.
const fs = require("fs");

const axeSource = fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const problems = [];

// Pages of contexts made with JavaScript off, where axe cannot run: each is audited as a twin,
// the same document served at the same address in a page where only axe runs.
const withoutScripts = new WeakSet();
function scriptless(page) {
  withoutScripts.add(page);
  return page;
}

async function axeResult(page) {
  // Evaluated through the browser's debugging protocol, so the page's CSP does not block it.
  // (Evaluation has no time limit of its own: a page that never answers fails after 60 s.)
  const run = page.evaluate(axeSource).then(() => page.evaluate(() => window.axe.run(document)));
  let timer;
  const late = new Promise((_, fail) => {
    timer = setTimeout(() => fail(new Error(`axe did not finish on ${page.url()} within 60 s`)), 60000);
  });
  try {
    return await Promise.race([run, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function twinResult(page) {
  const address = page.url().split("#")[0];
  const html = await page.content();
  const twin = await page.context().browser().newPage({ viewport: page.viewportSize() });
  try {
    await twin.route("**/*", (route) => {
      const url = route.request().url();
      if (url === address) return route.fulfill({ status: 200, contentType: "text/html", body: html });
      if (url.endsWith(".js")) return route.abort();
      return route.continue();
    });
    await twin.goto(address);
    return await axeResult(twin);
  } finally {
    await twin.close();
  }
}

async function audit(page, name) {
  const result = withoutScripts.has(page) ? await twinResult(page) : await axeResult(page);
  for (const violation of result.violations) {
    const where = violation.nodes.slice(0, 3).map((node) => node.target.join(" ")).join("; ");
    problems.push(`${name}: ${violation.impact} ${violation.id} (${violation.help}) at ${where}`);
  }
  // A star rating is one clean row: each star one pill, its word for screen readers only.
  const pills = await page.$$eval(".star", (stars) => stars.map((star) =>
    [star, ...star.querySelectorAll("*")].filter((el) => {
      const style = getComputedStyle(el);
      return parseFloat(style.borderTopWidth) > 0 && el.getBoundingClientRect().width > 1;
    }).length));
  const words = await page.$$eval(".star .star-word", (all) => all.map((w) => w.getBoundingClientRect().width));
  if (pills.some((n) => n !== 1)) problems.push(`${name}: a star shows ${Math.max(...pills)} pills, not one`);
  if (words.some((w) => w > 1)) problems.push(`${name}: a star's word is shown (it is for screen readers only)`);
  // Nothing runs out of its card (a long link, a select): it would be cut or overlap.
  const spills = await page.$$eval(".panel", (panels) => panels.flatMap((panel) => {
    const edge = panel.getBoundingClientRect().right;
    // Inside a scrolling box (a wide table of responses) content may be wider: it scrolls.
    const scrolls = (el) => {
      for (let up = el.parentElement; up && up !== panel.parentElement; up = up.parentElement) {
        if (["auto", "scroll"].includes(getComputedStyle(up).overflowX)) return true;
      }
      return false;
    };
    return [...panel.querySelectorAll("*")]
      .filter((el) => el.getBoundingClientRect().width > 1 && el.getBoundingClientRect().right > edge + 1)
      .filter((el) => !scrolls(el))
      .map((el) => `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}${el.className ? "." + String(el.className).split(" ")[0] : ""}`);
  }));
  if (spills.length > 0) problems.push(`${name}: runs out of its card: ${[...new Set(spills)].slice(0, 5).join(", ")}`);
  const width = page.viewportSize().width;
  if (width < 500) {
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    if (wide > width) problems.push(`${name}: ${wide} px wide at a ${width} px phone: it scrolls sideways`);
    // A radio or checkbox inside its label is activated by the whole label: that is its target.
    const small = await page.$$eval("form.survey input:not([type=hidden]), form.survey select, form.survey textarea, form.survey button, form.survey a",
      (controls) => controls.flatMap((control) => {
        const target = /^(radio|checkbox)$/.test(control.type) ? (control.closest("label") || control) : control;
        const box = target.getBoundingClientRect();
        if (box.width === 0 && box.height === 0) return [];
        if (box.width >= 24 && box.height >= 24) return [];
        const id = control.id || control.name || control.textContent.trim().slice(0, 20);
        return [`${control.tagName.toLowerCase()} ${id} (${Math.round(box.width)}x${Math.round(box.height)})`];
      }));
    if (small.length > 0) problems.push(`${name}: targets smaller than 24 by 24 px: ${small.slice(0, 6).join(", ")}`);
  }
}

function check() {
  if (problems.length > 0) {
    throw new Error(`accessibility or layout problems:\n  ${problems.join("\n  ")}`);
  }
}

module.exports = { audit, check, scriptless };
