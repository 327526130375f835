// A newcomer builds the survey the owners' walk measured before: 9 questions on 2 pages, a
// skip rule and a recalled answer, in the designer at desktop size with JavaScript, counting
// every click (a select's choice counts as one) and every field typed into. Enter in a
// question's text adds the next one; "@" opens the recall picker; the rule's answer is picked
// from the question's options. Then the published form is walked both ways: "No" skips to the
// end, "Yes" sees the recalled rating on page 2. The figure is printed for docs/tenants.md.
// Usage: node builder.cjs <base-url> <screenshot-dir>. Exits non-zero with a reason on failure.
const { check } = require("./audit.cjs");
const { launch, expect, shooter } = require("./walk.cjs");

const [base, shots] = process.argv.slice(2);
const shoot = shooter(shots);

async function main() {
  const browser = await launch();
  try {
    const owner = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await owner.goto(`${base}/tenant/sign-up`);
    await owner.fill("#name", "Builder Talks");
    await owner.fill("#email", "owner@builder.test");
    await owner.fill("#password", "a long enough password");
    await owner.press("#password", "Enter");
    await owner.waitForURL(`${base}/tenant`);

    let clicks = 0;
    let typed = 0;
    const click = async (selector) => { clicks += 1; await owner.click(selector); };
    const choose = async (selector, value) => { clicks += 1; await owner.selectOption(selector, value); };
    const type = async (selector, text) => { typed += 1; await owner.fill(selector, text); };
    // Enter in question N's text: question N + 1 is added below and focused.
    const next = async (n) => {
      await owner.press(`#q${n}-text`, "Enter");
      await owner.waitForFunction((id) => document.activeElement && document.activeElement.id === id, `q${n + 1}-text`);
    };

    await click("text=New survey");
    await owner.waitForURL(`${base}/tenant/surveys/new`);
    await type("#title", "Talk feedback");
    await type("#q0-text", "Your name");
    await next(0);
    await type("#q1-text", "Which session did you attend?");
    await next(1);
    await choose("#q1-type", "single_choice");
    await type("#q1-options", "Morning\nAfternoon\nEvening");
    await type("#q2-text", "How would you rate it?");
    await next(2);
    await choose("#q2-type", "five_stars");
    await type("#q3-text", "Would you come again?");
    await next(3);
    await choose("#q3-type", "single_choice");
    await type("#q3-options", "Yes\nNo");
    await type("#q4-text", "Any comments?");
    await next(4);
    await choose("#q4-type", "long_text");
    // Page 2 starts with a question that recalls the rating: "@" opens the picker.
    await click("#q5-page-break");
    typed += 1;
    await owner.focus("#q5-text");
    await owner.keyboard.type("You gave it @");
    await owner.waitForSelector("#q5-recall[open]");
    await shoot(owner, "designer-recall-picker");
    await click("#q5-recall button[data-recall]:has-text('How would you rate it?')");
    await owner.keyboard.type(" stars: what would make it five?");
    const recalled = await owner.inputValue("#q5-text");
    expect(/^You gave it \{\{q:[a-z0-9]+\}\} stars: what would make it five\?$/.test(recalled), `the recall at the caret: ${recalled}`);
    await next(5);
    await choose("#q5-type", "long_text");
    await type("#q6-text", "How likely are you to recommend us?");
    await next(6);
    await choose("#q6-type", "nps");
    await type("#q7-text", "Your email");
    await next(7);
    await type("#q8-text", "Anything else?");
    await choose("#q8-type", "long_text");
    // The skip rule, on page 1's first card: if "Would you come again?" is "No", go to the end.
    await choose("#q0-jump-question", { label: "4. Would you come again?" });
    await choose("select[name='q0.jump_pick']", { label: "No" });
    expectEqual(await owner.inputValue("#q0-jump-to"), "end", "the end is the first place a rule goes");
    await shoot(owner, "designer-built");
    await click("#save");
    await owner.waitForURL(/\/tenant\/surveys\/talk-feedback\?saved=1/);
    const sentences = await owner.$$eval(".logic-sentences li", (items) => items.map((i) => i.textContent.trim()));
    expect(sentences.includes("After this page: if \u201cWould you come again?\u201d is \u201cNo\u201d, go to the end"),
      `the rule reads as a sentence: ${sentences}`);
    expect((await owner.textContent("#q5-reads")).includes("You gave it [How would you rate it?] stars"),
      "the recall reads as its question's label");
    await click("form[action$='/publish'] button");
    await owner.waitForSelector(".badge.live");
    await shoot(owner, "designer-built-published");
    console.log(`newcomer walk: 9 questions, 2 pages, a skip rule and a recall: ${clicks} clicks and ${typed} typed fields`);
    expect(clicks < 15, `under 15 clicks: ${clicks}`);
    const blocks = await owner.$$eval("input[name$='.text'][id$='-text']", (inputs) => inputs.length);
    expect(blocks === 9, `nine questions saved: ${blocks}`);

    // Scoring: points for the sessions, a calculation and an ending chosen by it, set in the
    // designer without leaving the page.
    await owner.click("#q1-card > summary");
    await owner.fill("#q1-scores", "1, 2, 3");
    await owner.click("#panel-calculations > summary");
    await owner.fill("#variables", "interest = score * 10.0");
    await owner.fill("#ending0-id", "evening");
    await owner.fill("#ending0-if", "v.interest >= 30.0");
    await owner.fill("#ending0-text", "See you tonight!");
    await shoot(owner, "designer-calculations");
    await owner.click("#save");
    await owner.waitForURL(/\/tenant\/surveys\/talk-feedback\?saved=1/);
    expectEqual(await owner.inputValue("#ending0-if"), "v.interest >= 30.0", "the ending is saved");
    expectEqual(await owner.inputValue("#q1-scores"), "1, 2, 3", "the points are saved");

    // The survey as an XLSForm, read back in as a new draft through the import page, at
    // phone size: what it holds is shown before anything is made.
    const fs = require("fs");
    const path = require("path");
    const xlsform = await owner.request.get(`${base}/tenant/surveys/talk-feedback/xlsform`);
    expect(xlsform.ok(), `the XLSForm downloads: ${xlsform.status()}`);
    const file = path.join(shots, "talk-feedback-xlsform.xlsx");
    fs.writeFileSync(file, await xlsform.body());
    await owner.setViewportSize({ width: 390, height: 844 });
    await owner.goto(`${base}/tenant/surveys/import`);
    await owner.setInputFiles("#sheet", file);
    await owner.click("text=Read the form");
    await owner.waitForSelector("text=Everything comes along.");
    expect((await owner.textContent("#preview-title")).includes("9 questions on 2 pages"),
      `the preview counts the questions: ${await owner.textContent("#preview-title")}`);
    await shoot(owner, "import-preview");
    await owner.click("text=Create the draft");
    await owner.waitForURL(/\/tenant\/surveys\/talk-feedback-[a-z0-9-]+\?saved=1/);
    await owner.setViewportSize({ width: 1280, height: 900 });
    await owner.goto(`${base}/tenant/surveys/talk-feedback`);

    // The form: "No" ends it after page 1; "Yes" reaches page 2 with the rating recalled.
    const respondent = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    const url = `${base}/s/builder-talks/talk-feedback`;
    await respondent.goto(url);
    await respondent.check("label.choice:has(span:text-is('Morning')) input");
    await respondent.click("label.star:has(input[value='4'])");
    await respondent.check("label.choice:has(span:text-is('No')) input");
    await respondent.click("button[value=next]");
    await respondent.waitForURL(/thanks/);
    await respondent.goto(url);
    await respondent.click("label.star:has(input[value='5'])");
    await respondent.check("label.choice:has(span:text-is('Yes')) input");
    await respondent.click("button[value=next]");
    await respondent.waitForSelector("text=You gave it 5 stars: what would make it five?");
    await shoot(respondent, "builder-form-page-2");
    // "Evening" is worth 3 points: the ending chosen by the calculation thanks them.
    await respondent.goto(url);
    await respondent.check("label.choice:has(span:text-is('Evening')) input");
    await respondent.check("label.choice:has(span:text-is('No')) input");
    await respondent.click("button[value=next]");
    await respondent.waitForSelector("text=See you tonight!");
  } finally {
    await browser.close();
  }
  check();
}

function expectEqual(actual, wanted, what) {
  if (JSON.stringify(actual) !== JSON.stringify(wanted)) {
    throw new Error(`${what}: ${JSON.stringify(actual)}, not ${JSON.stringify(wanted)}`);
  }
}

main().catch((error) => {
  console.error(error.stack || String(error));
  process.exit(1);
});
