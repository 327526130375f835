// End-to-end in headless Chromium, as people use Canvass: an owner signs up, designs a survey
// (adding, reordering, duplicating and removing questions in place, and again without
// JavaScript, landing on the question acted on), fixes a failed save, previews and publishes
// it; a respondent answers it; the owner sees it counted, its statistics, and every value of
// the response. A screenshot of every page visited goes to the screenshot folder (the test
// checks each one is there), and each page passes the accessibility audit (audit.cjs).
// Usage: node e2e.cjs <base-url> <screenshot-dir>. Exits non-zero with a reason on failure.
const { chromium } = require("playwright-core");
const fs = require("fs");
const path = require("path");
const { audit, check, scriptless } = require("./audit.cjs");
const { logoPng } = require("./walk.cjs");

const [base, shots] = process.argv.slice(2);
const questions = [
  ["How was it overall?", "five_stars", ""],
  ["What did you order?", "single_choice", "Espresso\nTea"],
  ["What did you like?", "multiple_choice", "Taste\nService\nPrice"],
  ["How many minutes did you wait?", "numeric", ""],
  ["Your name", "short_text", ""],
  ["Anything else?", "long_text", ""],
];

// What the README shows: the window as a person sees it, not the whole page; scripts/docs
// copies these into docs/images/.
async function frame(page, name) {
  await page.screenshot({ path: path.join(shots, `readme-${name}.png`) });
}

async function shoot(page, name) {
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  await audit(page, name);
}

// The id (or, for a button, the value) of the focused element.
async function focused(page) {
  return page.evaluate(() => document.activeElement.id || document.activeElement.value || "");
}

// Whether the element is at least partly on the screen.
async function onScreen(page, selector) {
  return page.$eval(selector, (el) => {
    const box = el.getBoundingClientRect();
    return box.bottom > 0 && box.top < window.innerHeight;
  });
}

function expectEqual(actual, expected, what) {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

// The definition list of a page (`dl.<name>`) as [term, description] pairs.
async function pairs(page, list) {
  return page.$$eval(`dl.${list} dt`, (terms) =>
    terms.map((term) => [term.textContent.trim(), term.nextElementSibling.textContent.trim()]));
}

async function main() {
  fs.mkdirSync(shots, { recursive: true });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
  try {
    const owner = await (await browser.newContext({ viewport: { width: 1100, height: 900 } })).newPage();
    await owner.goto(`${base}/tenant/sign-up`);
    // The address is made from the name as it is typed, and shown before the account is made.
    await owner.fill("#name", "Browser Bistró");
    await owner.waitForFunction(() => document.querySelector("#slug").value === "browser-bistro");
    expectEqual(await owner.textContent("#slug-shown"), "browser-bistro", "the address shown");
    await shoot(owner, "sign-up");
    await owner.fill("#email", "owner@bistro.test");
    await owner.fill("#password", "a long enough password");
    await owner.press("#password", "Enter");
    await owner.waitForURL(`${base}/tenant`);
    await shoot(owner, "dashboard");

    await owner.click("text=New survey");
    await owner.fill("#title", "Lunch feedback");
    // In place (no reload), each new question takes focus.
    await owner.evaluate(() => { window.stillHere = true; });
    for (let i = 0; i < questions.length; i++) {
      if (i > 0) {
        await owner.click("#add");
        await owner.waitForSelector(`#q${i}-text`);
        expectEqual(await focused(owner), `q${i}-text`, "focus after adding a question");
      }
      const [text, type, options] = questions[i];
      await owner.fill(`#q${i}-text`, text);
      await owner.selectOption(`#q${i}-type`, type);
      if (options) await owner.fill(`#q${i}-options`, options);
    }
    expectEqual(await owner.evaluate(() => window.stillHere === true), true,
      "the questions were added without reloading the page");
    // Each type shows only its own fields.
    expectEqual([await owner.isVisible("#q0-options"), await owner.isVisible("#q1-options"),
      await owner.isVisible("#q3-min"), await owner.isVisible("#q3-options"),
      await owner.isVisible(".apply-type")], [false, true, true, false, false],
      "fields shown for stars, choice and number questions");
    await owner.check("input[name='q1.required']");

    // Reorder in place: the moved question keeps focus on the button pressed.
    await owner.click("button[value=up-2]");
    await owner.waitForFunction(() => document.querySelector("#q1-text").value === "What did you like?");
    expectEqual(await focused(owner), "q1-up", "focus after moving a question up");
    await owner.click("button[value=down-1]");
    await owner.waitForFunction(() => document.querySelector("#q2-text").value === "What did you like?");
    expectEqual(await focused(owner), "q2-down", "focus after moving it back down");
    expectEqual(await owner.inputValue("#q1-options"), "Espresso\nTea", "options move with their question");
    // Duplicate, then remove the copy.
    await owner.click("button[value=duplicate-4]");
    await owner.waitForSelector("#q6-text");
    expectEqual([await owner.inputValue("#q5-text"), await focused(owner)], ["Your name", "q5-text"],
      "the copy follows its question and takes focus");
    await owner.click("button[value=remove-5]");
    await owner.waitForSelector("#q5-undo");
    expectEqual(await focused(owner), "q5-undo", "after removing, its Undo takes focus");
    expectEqual(await owner.isVisible("#q5-text"), false, "a removed question is folded away");
    await shoot(owner, "designer-removed");
    await owner.click("#q5-undo");
    await owner.waitForSelector("#q5-text", { state: "visible" });
    expectEqual([await owner.inputValue("#q5-text"), await focused(owner)], ["Your name", "q5-text"],
      "Undo takes the question back");
    await owner.click("button[value=remove-5]");
    await owner.waitForSelector("#q5-undo");
    expectEqual(await owner.evaluate(() => window.stillHere === true), true, "all of it without a reload");

    // A failed save lists each wrong question by number and text, linked to its field.
    await owner.fill("#q3-min", "lots");
    await owner.click("#save");
    await owner.waitForSelector(".alert a[href='#q3-min']");
    const listed = await owner.textContent(".alert li");
    if (!listed.includes("Question 4, \u201cHow many minutes did you wait?\u201d") || !listed.includes("Enter a number")) {
      throw new Error(`the failed save does not name the question: ${listed}`);
    }
    expectEqual(await focused(owner), "problems", "the list of problems takes focus");
    await shoot(owner, "designer-errors");
    await owner.click(".alert a[href='#q3-min']");
    expectEqual(await focused(owner), "q3-min", "the problem's link leads to its field");
    await owner.fill("#q3-min", "0");
    await owner.fill("#q3-max", "120");
    // The drink ordered segments the results; a number cannot.
    expectEqual([await owner.isVisible("#q1-segment"), await owner.isVisible("#q3-segment")], [true, false],
      "only choice-type questions offer to segment");
    await owner.check("#q1-segment");
    await owner.click("#save");
    await owner.waitForURL(/saved=1/);
    const designer = owner.url().replace(/\?.*$/, "");
    // Saved, each card folds to one line; a click unfolds it, and Fold folds it again.
    expectEqual(await owner.$$eval("details.card-fold", (cards) => cards.filter((c) => c.open).length), 0,
      "saved cards are folded");
    expectEqual(await owner.isVisible("#q1-text"), false, "a folded card hides its fields");
    const line = await owner.textContent("#q1-card > summary");
    if (!line.includes("What did you order?") || !line.includes("Single choice") || !line.includes("Required")) {
      throw new Error(`the folded line says the question, its type and that it is required: ${line}`);
    }
    await shoot(owner, "designer-folded");
    await owner.click("#q1-card > summary");
    await owner.waitForSelector("#q1-text", { state: "visible" });
    await owner.click("#q1-card > summary");
    await owner.waitForSelector("#q1-text", { state: "hidden" });

    // A draft saves itself a moment after the owner stops typing, and says so; a reload shows it.
    await owner.fill("#description", "Tell us about **lunch** today.");
    await owner.waitForFunction(() => /Unsaved changes/.test(document.querySelector("#designer-status").textContent));
    await owner.waitForFunction(() => /Saved at/.test(document.querySelector("#designer-status").textContent),
      null, { timeout: 15000 });
    await owner.goto(designer);
    expectEqual(await owner.inputValue("#description"), "Tell us about **lunch** today.", "the draft saved itself");
    // Leaving a new survey with unsaved changes asks first.
    const leaving = await owner.context().newPage();
    await leaving.goto(`${base}/tenant/surveys/new`);
    await leaving.fill("#title", "Half-made");
    const asked = new Promise((resolve) => leaving.once("dialog", (dialog) => {
      resolve(dialog.type());
      dialog.accept();
    }));
    await leaving.close({ runBeforeUnload: true });
    expectEqual(await asked, "beforeunload", "leaving with unsaved changes asks first");

    // Without JavaScript, the same buttons reload the page at the question acted on.
    const plain = scriptless(await (await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1100, height: 700 } })).newPage());
    await plain.context().addCookies(await owner.context().cookies());
    await plain.goto(designer);
    // Folded cards open without a script too (a <details>).
    await plain.click("#q3-card > summary");
    await plain.click("button[value=down-3]");
    await plain.waitForURL(/#q4-down$/);
    const unsaved = await plain.textContent("#unsaved");
    if (!unsaved.includes("question 4 (moved)") || !unsaved.includes("question 5 (moved)")) {
      throw new Error(`without JavaScript the page names what is not saved: ${unsaved}`);
    }
    expectEqual([await plain.inputValue("#q4-text"), await focused(plain), await onScreen(plain, "#q4")],
      ["How many minutes did you wait?", "q4-down", true], "without JavaScript, back at the moved question");
    await plain.selectOption("#q4-type", "scale");
    await plain.click("button[value=type-4]");
    await plain.waitForSelector("#q4-points", { state: "visible" });
    expectEqual(await plain.isVisible("#q4-min"), false, "a new type's fields replace the old ones");
    await shoot(plain, "designer-no-js");
    await plain.context().close();

    // Preview the draft as a respondent would see it.
    await owner.click("nav.tabs >> text=Preview");
    await owner.waitForSelector(".notice.preview");
    await shoot(owner, "preview");
    await owner.goto(designer);
    await owner.click("form[action$='/publish'] button");
    await owner.waitForSelector(".badge.live");
    await shoot(owner, "designer");
    // The README shows the question cards, not the share panel above them.
    await owner.$eval("#insert-0", (place) => place.scrollIntoView());
    await frame(owner, "designer");
    await owner.evaluate(() => window.scrollTo(0, 0));
    const slug = new URL(owner.url()).pathname.split("/").pop();

    const respondent = await (await browser.newContext({ viewport: { width: 420, height: 900 } })).newPage();
    await respondent.goto(`${base}/s/browser-bistro/${slug}`);
    await shoot(respondent, "form");
    await frame(respondent, "form-phone");
    await respondent.click("text=4 stars");
    await respondent.check("text=Tea");
    await respondent.check("text=Taste");
    await respondent.check("text=Price");
    await respondent.fill("input[type=number]", "7");
    await respondent.fill("input[type=text]", "Ada");
    await respondent.fill("textarea", "Lovely soup, friendly staff.");
    await respondent.click("button[type=submit]");
    await respondent.waitForSelector(".reference");
    await shoot(respondent, "thanks");

    const deadline = Date.now() + 30000;
    for (;;) {
      await owner.goto(`${base}/tenant/surveys/${slug}/summary`);
      const total = await owner.textContent(".stats .big");
      if (total.trim() === "1") break;
      if (Date.now() > deadline) throw new Error(`the summary still counts ${total} after 30 s`);
      await owner.waitForTimeout(300);
    }
    await shoot(owner, "summary");
    // The README shows the charts, not the header cards above them.
    await owner.$eval(".question-summary", (first) => first.scrollIntoView());
    await frame(owner, "summary");
    await owner.evaluate(() => window.scrollTo(0, 0));
    const stars = (await pairs(owner, "facts")).slice(0, 5);
    expectEqual(stars, [["Mean", "4"], ["Median", "4"], ["Standard deviation", "0"], ["Lowest", "4"], ["Highest", "4"]],
      "the star rating's statistics");
    const starBars = await owner.$eval(".question-summary", (first) =>
      [...first.querySelectorAll(".chart .value")].map((v) => v.textContent.trim()));
    expectEqual(starBars, ["0 (0.0%)", "0 (0.0%)", "0 (0.0%)", "1 (100.0%)", "0 (0.0%)"],
      "the star rating's chart: one 4-star answer");
    // What respondents wrote is read in the summary, and leads to their response.
    const latest = await owner.$$eval("ol.latest blockquote", (quotes) => quotes.map((q) => q.textContent.trim()));
    expectEqual(latest, ["Ada", "Lovely soup, friendly staff."], "the latest text answers");
    // The spreadsheet downloads.
    for (const [button, extension] of [["Download Excel (XLSX)", ".xlsx"], ["Download CSV", ".csv"]]) {
      const [download] = await Promise.all([owner.waitForEvent("download"), owner.click(`text=${button}`)]);
      if (!download.suggestedFilename().endsWith(extension)) {
        throw new Error(`${button} gave ${download.suggestedFilename()}`);
      }
      if (await download.failure()) throw new Error(`${button} failed: ${await download.failure()}`);
    }
    await owner.click("ol.latest >> text=Response");
    await owner.waitForURL(/responses\/ref\/\d+$/);
    await owner.waitForSelector("text=Lovely soup, friendly staff.");
    await shoot(owner, "response-by-reference");

    // One segment: everyone who ordered tea.
    await owner.goto(`${base}/tenant/surveys/${slug}/summary`);
    await owner.selectOption("#segment", { label: "Tea (1)" });
    await owner.click("form.filters button");
    await owner.waitForSelector("#segment-shown");
    const segmentShown = await owner.textContent("#segment-shown");
    if (!segmentShown.includes("\u201cTea\u201d") || !segmentShown.includes(": 1")) {
      throw new Error(`the segment is not named: ${segmentShown}`);
    }
    expectEqual(await owner.textContent(".stats .big"), "1", "the segment's count");
    await shoot(owner, "summary-segment");
    const segmentQuery = new URL(owner.url()).search;

    await owner.goto(`${base}/tenant/surveys/${slug}/responses`);
    await shoot(owner, "responses");
    const row = await owner.textContent("tbody tr");
    if (!row.includes("Tea")) throw new Error(`the responses page does not show the answer: ${row}`);
    await owner.click("tbody tr a");
    await owner.waitForURL(/responses\/1$/);
    await shoot(owner, "response");
    expectEqual(await pairs(owner, "answers"), [
      ["How was it overall?", "4 of 5 stars"],
      ["What did you order?", "Tea"],
      ["What did you like?", "Taste; Price"],
      ["How many minutes did you wait?", "7"],
      ["Your name", "Ada"],
      ["Anything else?", "Lovely soup, friendly staff."],
    ], "the response as the owner reads it");

    // Branding: an accent colour and a logo, shown on the public pages.
    await owner.goto(`${base}/tenant/settings`);
    await owner.fill("#accent", "#1a5fb4");
    await owner.setInputFiles("#logo", { name: "logo.png", mimeType: "image/png", buffer: logoPng() });
    await owner.click("text=Save the look");
    await owner.waitForURL(/saved=1/);
    await shoot(owner, "settings");

    // Close by limit: one response is counted, a limit of one closes the survey (410).
    await owner.goto(`${base}/tenant/surveys/${slug}`);
    await owner.fill("#response_limit", "1");
    await owner.fill("#closed_message", "Thanks to **everyone** who answered!");
    await owner.click("#save");
    await owner.waitForURL(/saved=1/);
    await owner.waitForSelector(".share img[src$='qr.svg']");
    await shoot(owner, "designer-share");
    const phoneOwner = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await phoneOwner.context().addCookies(await owner.context().cookies());
    await phoneOwner.goto(`${base}/tenant`);
    await shoot(phoneOwner, "dashboard-phone");
    const state = await phoneOwner.textContent("tbody tr");
    if (!state.includes("Closed")) throw new Error(`the dashboard does not show the survey closed: ${state}`);
    const closed = await respondent.goto(`${base}/s/browser-bistro/${slug}`);
    if (closed.status() !== 410) throw new Error(`a survey at its limit answers ${closed.status()}`);
    await respondent.waitForSelector(".tenant-brand img.logo");
    const logoShown = await respondent.$eval(".tenant-brand img.logo", (img) => img.naturalWidth);
    if (logoShown !== 120) throw new Error(`the logo is not shown on the public page (${logoShown})`);
    const accent = await respondent.$eval(".closed p:last-child a", (a) => getComputedStyle(a).color);
    if (accent !== "rgb(26, 95, 180)") throw new Error(`the accent colour is not applied: ${accent}`);
    await shoot(respondent, "closed");

    // Every tenant page on a phone: stacked tables, readable charts, no sideways scrolling.
    for (const [page, name] of [[`/tenant/surveys/${slug}`, "designer-phone"],
      [`/tenant/surveys/${slug}/summary`, "summary-phone"], [`/tenant/surveys/${slug}/responses`, "responses-phone"],
      [`/tenant/surveys/${slug}/responses/1`, "response-phone"], ["/tenant/settings", "settings-phone"],
      [`/tenant/surveys/${slug}/summary${segmentQuery}`, "summary-segment-phone"],
      [`/tenant/surveys/${slug}/responses${segmentQuery}`, "responses-segment-phone"],
      ["/tenant/api-keys", "api-keys-phone"]]) {
      await phoneOwner.goto(`${base}${page}`);
      await shoot(phoneOwner, name);
    }
    await phoneOwner.goto(`${base}/tenant/surveys/${slug}/summary`);
    const smallest = await phoneOwner.$$eval(".chart th, .chart td.value", (cells) =>
      Math.min(...cells.map((cell) => parseFloat(getComputedStyle(cell).fontSize))));
    if (!(smallest >= 12)) throw new Error(`chart labels shrink to ${smallest} px on a phone`);

    // An API key: made, then revoked after a confirmation.
    await owner.goto(`${base}/tenant/api-keys`);
    await owner.fill("#label", "Reporting");
    await owner.click("text=Create key");
    await owner.waitForSelector("code.secret");
    await shoot(owner, "api-keys");
    const apiKey = (await owner.textContent("code.secret")).trim();

    // The designer of a saved survey with pages, conditions and a jump, on a phone, with
    // JavaScript and without: nothing scrolls sideways (the audit checks each).
    const made = await fetch(`${base}/api/v1/surveys`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ title: "Branching visit to one of our cafés in the north of the country", pages: [
        { title: "About your visit", questions: [
          { id: "visit", text: "Is this your first visit to one of our cafés?", type: "single_choice",
            required: true, options: ["First time", "Regular customer for many years"] },
          { id: "stars", text: "Your rating", type: "five_stars" },
          { id: "why", text: "What went wrong?", type: "long_text",
            show_if: { any: [{ question: "visit", equals: "First time" }, { question: "stars", less_than: 3 }] } }],
          jumps: [{ if: { question: "visit", equals: "First time" }, to: 2 }] },
        { title: "Regulars", questions: [
          { id: "often", text: "Visits a month?", type: "numeric", min: 1, max: 31, integer: true }] },
        { title: "Last words", questions: [
          { id: "grid", text: "How was each?", type: "matrix", rows: ["Coffee", "Cake"],
            columns: ["Poor", "Fair", "Good"] }] }] }),
    });
    if (made.status !== 201) throw new Error(`the survey of pages: ${made.status} ${await made.text()}`);
    const branching = (await made.json()).slug;
    await phoneOwner.goto(`${base}/tenant/surveys/${branching}`);
    await shoot(phoneOwner, "designer-logic-phone");
    const plainPhone = scriptless(await (await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } })).newPage());
    await plainPhone.context().addCookies(await owner.context().cookies());
    await plainPhone.goto(`${base}/tenant/surveys/${branching}`);
    await shoot(plainPhone, "designer-logic-phone-no-js");
    // Its languages and translations on a phone: three languages set, an Arabic text typed
    // beside the English one (right to left), what is missing counted; then on a desktop.
    await phoneOwner.goto(`${base}/tenant/surveys/${branching}/translations`);
    await phoneOwner.fill("#languages", "en, de, ar");
    await phoneOwner.click("text=Save languages");
    await phoneOwner.waitForSelector("text=Saved: offered in English (en), Deutsch (de), العربية (ar).");
    await phoneOwner.click("nav[aria-label='Language to translate'] >> text=العربية");
    await phoneOwner.waitForSelector("textarea[name='t:title'][dir=rtl]");
    await phoneOwner.fill("textarea[name='t:title']", "زيارة إلى أحد مقاهينا");
    await phoneOwner.click("button:has-text('Save the')");
    await phoneOwner.waitForSelector("text=Saved العربية (ar)");
    const tab = await phoneOwner.textContent("nav[aria-label='Language to translate'] a[aria-current=page]");
    if (!/\(ar\): \d+ of \d+ missing/.test(tab)) throw new Error(`the Arabic tab counts what is missing: ${tab}`);
    await shoot(phoneOwner, "translations-phone");
    const desk = await owner.context().newPage();
    await desk.goto(`${base}/tenant/surveys/${branching}/translations?lang=de`);
    await shoot(desk, "translations");
    await desk.close();
    // Published, its long public link stays inside the dashboard's card at 1280 px and on a phone.
    const published = await fetch(`${base}/api/v1/surveys/${branching}/publish`, {
      method: "POST", headers: { authorization: `Bearer ${apiKey}` } });
    if (published.status !== 200) throw new Error(`publishing: ${published.status} ${await published.text()}`);
    const wide = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await wide.context().addCookies(await owner.context().cookies());
    await wide.goto(`${base}/tenant`);
    await shoot(wide, "dashboard-wide");
    const table = await wide.$eval(".table-wrap", (box) => [box.scrollWidth, box.clientWidth]);
    if (table[0] > table[1]) throw new Error(`the dashboard's table is cut at 1280 px: ${table}`);
    // Lines of text in each State cell: a state and its reason, not a word a line.
    const states = await wide.$$eval("td[data-label=State]", (cells) => cells.map((cell) => {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      const lines = new Set();
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const rect of range.getClientRects()) if (rect.width > 0) lines.add(Math.round(rect.bottom / 8));
      }
      return lines.size;
    }));
    if (Math.max(...states) > 3) throw new Error(`the State column wraps a word a line: ${states} lines`);
    await phoneOwner.goto(`${base}/tenant`);
    await shoot(phoneOwner, "dashboard-phone-published");
    await owner.click("text=Revoke");
    await shoot(owner, "revoke-confirm");

    // The public site's other pages, and the sign-in page.
    const visitor = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    for (const [page, name] of [["/", "home"], ["/s/browser-bistro", "tenant-surveys"],
      ["/tenant/sign-in", "sign-in"], ["/no/such/page", "not-found"]]) {
      await visitor.goto(`${base}${page}`);
      await shoot(visitor, name);
    }

    // A webhook endpoint: refused over plain http, added over https with its secret shown
    // once, then removed (before any response could be sent to it: tests reach no other host).
    await owner.goto(`${base}/tenant/webhooks`);
    await owner.fill("#url", "http://hooks.example.com/canvass");
    await owner.click("text=Add endpoint");
    await owner.waitForSelector("#url-error");
    await owner.fill("#url", "https://hooks.example.com/canvass");
    await owner.click("text=Add endpoint");
    await owner.waitForSelector("#webhook-secret");
    if (!(await owner.textContent("#webhook-secret")).startsWith("whsec_")) throw new Error("no webhook secret shown");
    await shoot(owner, "webhooks");
    await owner.click("button:has-text('Remove')");
    await owner.waitForSelector("text=Webhook removed");

    // A whole survey duplicated: a new draft of its own, opened in the designer.
    await owner.goto(`${base}/tenant/surveys/${slug}`);
    await owner.click("text=Duplicate survey");
    await owner.waitForSelector("#designer-status.notice");
    const copied = await owner.textContent("#designer-status");
    if (!copied.includes("Copy of Lunch feedback")) throw new Error(`no notice of the copy: ${copied}`);
    expectEqual(await owner.inputValue("#q3-text"), "How many minutes did you wait?", "the copy's questions");

    // Filtered by submission day: today has the response, a day long past has none.
    const today = new Date().toISOString().slice(0, 10);
    await phoneOwner.goto(`${base}/tenant/surveys/${slug}/responses`);
    await phoneOwner.fill("#from", today);
    await phoneOwner.fill("#to", today);
    await phoneOwner.click("form.filters button");
    await phoneOwner.waitForSelector("#count");
    const counted = await phoneOwner.textContent("#count");
    if (!counted.startsWith("1 response matching these filters")) throw new Error(`today's filter: ${counted}`);
    await shoot(phoneOwner, "responses-filtered");
    await phoneOwner.fill("#from", "2020-01-01");
    await phoneOwner.fill("#to", "2020-01-31");
    await phoneOwner.click("form.filters button");
    await phoneOwner.waitForSelector("text=No responses match these filters.");
    await phoneOwner.click("text=Show all");
    await phoneOwner.waitForSelector("#count");

    // A response deleted: ticked in the list, confirmed on a page that shows it, then gone.
    await phoneOwner.goto(`${base}/tenant/surveys/${slug}/responses`);
    await phoneOwner.check("tbody input[type=checkbox]");
    await phoneOwner.click("#delete-selected");
    await phoneOwner.waitForSelector("#delete-title");
    expectEqual((await phoneOwner.textContent("#delete-title")).trim(), "Delete this response?", "the confirmation names what goes");
    await shoot(phoneOwner, "delete-responses-confirm");
    await phoneOwner.click("#delete-responses");
    await phoneOwner.waitForSelector(".notice");
    const deletedNotice = await phoneOwner.textContent(".notice");
    if (!deletedNotice.includes("deleted")) throw new Error(`no notice of the deletion: ${deletedNotice}`);
    const gone = Date.now() + 30000;
    for (;;) {
      await phoneOwner.goto(`${base}/tenant/surveys/${slug}/responses`);
      if (await phoneOwner.isVisible("text=No responses yet.")) break;
      if (Date.now() > gone) throw new Error("the deleted response is still listed after 30 s");
      await phoneOwner.waitForTimeout(300);
    }
    await shoot(phoneOwner, "responses-after-delete");

    // Deleting asks first, naming what will be lost.
    await phoneOwner.goto(`${base}/tenant/surveys/${slug}/delete`);
    await shoot(phoneOwner, "delete-confirm");
    await phoneOwner.fill("#confirm", "Lunch feedback");
    await phoneOwner.click("text=Delete for ever");
    await phoneOwner.waitForSelector(".notice");
    await shoot(phoneOwner, "deleted-notice");
    check();
    console.log("browser end-to-end: ok");
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  console.error(`browser end-to-end failed: ${error.stack || error}`);
  process.exit(1);
});
