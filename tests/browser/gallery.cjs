// Templates and one question per screen, as a new owner meets them: the gallery at desktop and
// phone sizes (in English and German), a template previewed and made a draft, switched to one
// question per screen and published; a respondent on a phone answers it with the keys (a
// number picks the stars, letters tick options, Enter goes on) and another on a desktop
// without JavaScript, step by step; the owner reads the summary's shares and the responses
// table, which scrolls sideways inside its box on a phone with its first column fixed. Every
// page audited; the clicks and typed fields from the dashboard to a published survey counted.
// Usage: node gallery.cjs <base-url> <screenshot-dir>. Exits non-zero with a reason on failure.
const { check, scriptless } = require("./audit.cjs");
const { launch, expect, shooter } = require("./walk.cjs");

const [base, shots] = process.argv.slice(2);
const shoot = shooter(shots);

async function main() {
  const browser = await launch();
  try {
    const phone = { viewport: { width: 390, height: 844 } };
    const owner = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await owner.goto(`${base}/tenant/sign-up`);
    await owner.fill("#name", "Gallery Events");
    await owner.fill("#email", "owner@gallery.test");
    await owner.fill("#password", "a long enough password");
    await owner.press("#password", "Enter");
    await owner.waitForURL(`${base}/tenant`);

    // From the dashboard to a published survey: every click and typed field counted.
    let clicks = 0;
    let typed = 0;
    const click = async (page, selector) => { clicks += 1; await page.click(selector); };
    await click(owner, "text=Start from a template");
    await owner.waitForURL(`${base}/tenant/templates`);
    expect((await owner.$$(".gallery .card")).length === 13, "twelve templates and a blank card");
    await shoot(owner, "templates");
    await click(owner, "#t-event-feedback ~ form >> text=Preview");
    await owner.waitForSelector("#preview-heading");
    expect((await owner.textContent("h1")).trim() === "Event feedback", "the preview's title");
    const choices = await owner.$$eval(".preview-choices li", (items) => items.map((i) => i.textContent));
    expect(choices.includes("Meeting people"), `the options are previewed: ${choices}`);
    await shoot(owner, "template-preview");
    await owner.fill("#title", "Summer party");
    typed += 1;
    await click(owner, "text=Make a draft from it");
    await owner.waitForURL(/\/tenant\/surveys\/summer-party$/);
    expect((await owner.textContent(".notice")).includes("Made from the template"), "the designer says where it came from");
    await click(owner, "input[name=layout][value=one_per_screen]");
    await click(owner, "#save");
    await owner.waitForURL(/saved=1/);
    await click(owner, "form[action$='/publish'] button");
    await owner.waitForSelector(".share");
    console.log(`from the dashboard to a published survey from a template: ${clicks} clicks, ${typed} typed field`);
    // Its embed code, on another site's page: the frame takes its content's height.
    const embed = await owner.inputValue("#embed-code");
    expect(embed.includes("data-canvass") && embed.includes("/static/embed."), `the embed code: ${embed}`);
    const host = await (await browser.newContext({ viewport: { width: 1000, height: 800 } })).newPage();
    // The club's page, from a server of the test's own on another local port (another origin).
    const club = require("http").createServer((_, answer) => {
      answer.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      answer.end(`<!doctype html><html lang="en"><head><title>A club's page</title></head><body><main><h1>Our summer party</h1>${embed}<p>Thank you!</p></main></body></html>`);
    });
    await new Promise((resolve) => club.listen(0, "127.0.0.1", resolve));
    await host.goto(`http://127.0.0.1:${club.address().port}/`);
    await host.waitForFunction(() => document.querySelector("iframe").height !== "700", null, { timeout: 15000 });
    const fitted = await host.$eval("iframe", (frame) => Number(frame.height));
    const inner = await (await (await host.$("iframe")).contentFrame()).evaluate(() => document.body.getBoundingClientRect().height);
    expect(Math.abs(fitted - inner) <= 2 && fitted < 700, `the frame fits its content: ${fitted} for ${inner}`);
    await host.screenshot({ path: `${shots}/embedded.png`, fullPage: true });
    await host.context().close();
    club.close();
    expect(clicks <= 6, `at most 6 clicks: ${clicks}`);

    // The gallery on a phone, in German.
    const phoneOwner = await (await browser.newContext(phone)).newPage();
    await phoneOwner.context().addCookies(await owner.context().cookies());
    await phoneOwner.goto(`${base}/tenant/templates?language=de`);
    expect((await phoneOwner.textContent("#t-course-evaluation")).trim() === "Kursbewertung", "the gallery in German");
    await shoot(phoneOwner, "templates-phone-de");
    await phoneOwner.goto(`${base}/tenant/templates/research-questionnaire?language=ar`);
    await shoot(phoneOwner, "template-preview-phone-ar");

    // A respondent on a phone, with the keys.
    const url = `${base}/s/gallery-events/summer-party`;
    const respondent = await (await browser.newContext(phone)).newPage();
    await respondent.goto(url);
    await respondent.waitForSelector("form.one-per-screen");
    expect((await respondent.textContent(".progress")).trim() === "Question 1 of 3", "progress on step 1");
    expect(await respondent.isVisible(".keys-hint"), "the keys are explained once the script runs");
    await shoot(respondent, "one-per-screen-phone");
    await respondent.keyboard.press("4");
    expect(await respondent.isChecked("input[name='q-overall'][value='4']"), "4 picks four stars");
    await respondent.keyboard.press("Enter");
    await respondent.waitForSelector("text=Question 2 of 3");
    expect((await respondent.$$("kbd.key")).length === 5, "each option shows its letter");
    await respondent.keyboard.press("a");
    await respondent.keyboard.press("c");
    expect(await respondent.isChecked("input[value='Talks']"), "A ticks the first option");
    expect(await respondent.isChecked("input[value='Meeting people']"), "C ticks the third");
    await shoot(respondent, "one-per-screen-phone-choices");
    await respondent.keyboard.press("Enter");
    await respondent.waitForSelector("text=Question 3 of 3");
    await respondent.fill("textarea", "More shade, please.");
    await respondent.click("button[value=next]");
    await respondent.waitForURL(/thanks/);

    // Another on a desktop without JavaScript: the same steps, server-rendered.
    const plain = scriptless(await (await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1100, height: 800 } })).newPage());
    await plain.goto(url);
    expect(!(await plain.isVisible(".keys-hint")), "no keys are promised without the script");
    await plain.click("label.star:has(input[value='5'])");
    await shoot(plain, "one-per-screen-no-js");
    await plain.click("button[value=next]");
    await plain.waitForSelector("text=Question 2 of 3");
    await plain.click("text=Food");
    await plain.click("button[value=next]");
    await plain.waitForSelector("text=Question 3 of 3");
    await plain.click("button[value=back]");
    await plain.waitForSelector("text=Question 2 of 3");
    expect(await plain.isChecked("input[value='Food']"), "Back keeps the answer");
    await plain.click("button[value=next]");
    await plain.click("button[value=next]");
    await plain.waitForURL(/thanks/);

    // The owner's results: shares with one decimal, the responses as a table.
    const deadline = Date.now() + 30000;
    for (;;) {
      await owner.goto(`${base}/tenant/surveys/summer-party/summary`);
      if ((await owner.textContent(".stats .big")).trim() === "2") break;
      if (Date.now() > deadline) throw new Error("the two responses were not counted within 30 s");
      await owner.waitForTimeout(300);
    }
    const shares = await owner.$$eval(".question-summary .chart .value", (cells) => cells.map((c) => c.textContent.trim()));
    expect(shares.includes("1 (50.0%)"), `shares with one decimal: ${shares}`);
    await shoot(owner, "summary-template");
    await phoneOwner.goto(`${base}/tenant/surveys/summer-party/responses`);
    const box = await phoneOwner.$eval(".table-scroll", (el) => ({ scroll: el.scrollWidth, shown: el.clientWidth }));
    expect(box.scroll > box.shown, `the table is wider than its box and scrolls inside it: ${JSON.stringify(box)}`);
    await phoneOwner.$eval(".table-scroll", (el) => { el.scrollLeft = 400; });
    const fixed = await phoneOwner.$eval("tbody th.fixed", (cell) => cell.getBoundingClientRect().left);
    expect(fixed < 40, `the first column stays in view: ${fixed}`);
    expect((await phoneOwner.textContent("thead")).includes("Which parts did you enjoy?"), "questions as column headers");
    await shoot(phoneOwner, "responses-table-phone");
    await owner.goto(`${base}/tenant/surveys/summer-party/responses`);
    await shoot(owner, "responses-table");
  } finally {
    await browser.close();
  }
  check();
}

main().catch((error) => {
  console.error(error.stack || String(error));
  process.exit(1);
});
