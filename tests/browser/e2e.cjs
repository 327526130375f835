// End-to-end in headless Chromium, as people use Canvass: an owner signs up, designs a survey
// with every question type, publishes it; a respondent answers it; the owner sees it counted,
// its statistics, and every value of the response. A screenshot of every page visited goes to
// the screenshot folder (the test checks each one is there).
// Usage: node e2e.cjs <base-url> <screenshot-dir>. Exits non-zero with a reason on failure.
const { chromium } = require("playwright-core");
const fs = require("fs");
const path = require("path");

const [base, shots] = process.argv.slice(2);
const questions = [
  ["How was it overall?", "five_stars", ""],
  ["What did you order?", "single_choice", "Espresso\nTea"],
  ["What did you like?", "multiple_choice", "Taste\nService\nPrice"],
  ["How many minutes did you wait?", "numeric", ""],
  ["Your name", "short_text", ""],
  ["Anything else?", "long_text", ""],
];

async function shoot(page, name) {
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
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
    await shoot(owner, "sign-up");
    await owner.fill("#name", "Browser Bistro");
    await owner.fill("#email", "owner@bistro.test");
    await owner.fill("#password", "a long enough password");
    await owner.click("button[type=submit]");
    await owner.waitForURL(`${base}/tenant`);
    await shoot(owner, "dashboard");

    await owner.click("text=New survey");
    await owner.fill("#title", "Lunch feedback");
    for (let i = 0; i < questions.length; i++) {
      if (i > 0) {
        await owner.click("button[value=add]");
      }
      const [text, type, options] = questions[i];
      await owner.fill(`#q${i}-text`, text);
      await owner.selectOption(`#q${i}-type`, type);
      if (options) await owner.fill(`#q${i}-options`, options);
    }
    await owner.check("input[name='q1.required']");
    await owner.fill("#q3-min", "0");
    await owner.fill("#q3-max", "120");
    await owner.click("button[value=save]");
    await owner.waitForURL(/saved=1/);
    await owner.click("form[action$='/publish'] button");
    await owner.waitForSelector(".badge.live");
    await shoot(owner, "designer");
    const slug = new URL(owner.url()).pathname.split("/").pop();

    const respondent = await (await browser.newContext({ viewport: { width: 420, height: 900 } })).newPage();
    await respondent.goto(`${base}/s/browser-bistro/${slug}`);
    await shoot(respondent, "form");
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
    const stars = (await pairs(owner, "facts")).slice(0, 4);
    expectEqual(stars, [["Mean", "4"], ["Standard deviation", "0"], ["Lowest", "4"], ["Highest", "4"]],
      "the star rating's statistics");
    const starBars = await owner.$eval(".question-summary", (first) =>
      [...first.querySelectorAll(".chart .value")].map((v) => v.textContent.trim()));
    expectEqual(starBars, ["0 (0%)", "0 (0%)", "0 (0%)", "1 (100%)", "0 (0%)"],
      "the star rating's chart: one 4-star answer");

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
      ["What did you like?", "Taste, Price"],
      ["How many minutes did you wait?", "7"],
      ["Your name", "Ada"],
      ["Anything else?", "Lovely soup, friendly staff."],
    ], "the response as the owner reads it");
    console.log("browser end-to-end: ok");
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  console.error(`browser end-to-end failed: ${error.stack || error}`);
  process.exit(1);
});
