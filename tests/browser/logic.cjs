// A three-page survey with a display condition and a jump, answered in headless Chromium: on a
// phone-sized screen with JavaScript (the condition shows and hides a question as the
// respondent answers), and on a desktop-sized one without (the hint stands in; the server
// decides). The survey
// is made through the JSON API with the key given; both responses are then read back.
// Usage: node logic.cjs <base-url> <api-key> <screenshot-dir>. Exits non-zero on failure.
const { check, scriptless } = require("./audit.cjs");
const { launch, apiWith, counted, expect, shooter } = require("./walk.cjs");

const [base, key, shots] = process.argv.slice(2);
const api = apiWith(base, key);
const shoot = shooter(shots);
const survey = {
  title: "Your visit",
  pages: [
    { title: "About your visit", questions: [
      { id: "visit", text: "Is this your first visit?", type: "single_choice", required: true,
        options: ["First time", "Regular"] },
      { id: "likes", text: "Did you like it?", type: "single_choice", required: true, options: ["Yes", "No"] },
      { id: "why", text: "What went wrong?", type: "long_text", required: true,
        show_if: { all: [{ question: "likes", equals: "No" }] } }],
      jumps: [{ if: { question: "visit", equals: "First time" }, to: 2 }] },
    { title: "Regulars", questions: [
      { id: "often", text: "Visits a month?", type: "numeric", required: true, min: 1, max: 31, integer: true }] },
    { title: "Last words", questions: [
      { id: "stars", text: "Your rating", type: "five_stars", required: false },
      { id: "recommend", text: "Would you recommend us?", type: "nps", required: false },
      { id: "agree", text: "The staff were friendly.", type: "scale", required: false, points: 5,
        min_label: "Strongly disagree", max_label: "Strongly agree" },
      { id: "branch", text: "Which branch?", type: "dropdown", required: false,
        options: ["North", "South", "East", "West"] },
      { id: "day", text: "When did you visit?", type: "date", required: false },
      { id: "rank", text: "What matters most?", type: "ranking", required: false,
        options: ["Coffee", "Cake", "Music"] },
      { id: "grid", text: "How was each?", type: "matrix", required: false,
        rows: ["Coffee", "Cake"], columns: ["Poor", "Fair", "Good"] },
      { id: "heard", text: "How did you hear of us?", type: "single_choice", required: false,
        options: ["A friend", "The web"], other: true }] },
  ],
};

async function progress(page) {
  return (await page.textContent(".progress")).trim();
}

async function main() {
  const created = await api("POST", "/surveys", survey);
  await api("POST", `/surveys/${created.slug}/publish`);
  const url = `${base}/s/${created.tenant}/${created.slug}`;
  const browser = await launch();
  try {
    const phone = { viewport: { width: 390, height: 844 } };

    // With JavaScript: "What went wrong?" appears only once "No" is picked.
    const js = await (await browser.newContext(phone)).newPage();
    await js.goto(url);
    expect((await progress(js)) === "Page 1 of 3", `progress: ${await progress(js)}`);
    expect(!(await js.isVisible("#q-why")), "the conditional question starts hidden");
    await js.check("text=Regular");
    await js.check("text=Yes");
    expect(!(await js.isVisible("#q-why")), "hidden while the answer is Yes");
    await js.check("text=No");
    expect(await js.isVisible("#q-why"), "shown once the answer is No");
    await shoot(js, "logic-js-page-1");
    await js.fill("#q-why", "Cold coffee");
    await js.click("button[value=next]");
    await js.waitForSelector("text=Page 2 of 3");
    await shoot(js, "logic-js-page-2");
    await js.fill("#q-often", "12");
    await js.click("button[value=next]");
    await js.waitForSelector("text=Page 3 of 3");
    await js.click("text=5 stars");
    await js.check("input[name=q-recommend][value='9']");
    await js.check("input[name=q-agree][value='4']");
    await js.selectOption("#q-branch", "East");
    await js.fill("#q-day", "2026-06-01");
    const places = await js.$$("select[name=q-rank]");
    expect(places.length === 3, `three places to rank, not ${places.length}`);
    for (const [i, option] of ["Cake", "Coffee", "Music"].entries()) await places[i].selectOption(option);
    await js.check("input[name='q-grid.0'][value=Good]");
    await js.check("input[name='q-grid.1'][value=Fair]");
    // "Other, please specify" shows its box only while "Other" is picked.
    const otherBox = "input[name='q-heard.other']";
    expect(!(await js.isVisible(otherBox)), "the Other box starts hidden");
    await js.check("input[name=q-heard][value=Other]");
    expect(await js.isVisible(otherBox), "the Other box shows once Other is picked");
    await js.check("input[name=q-heard][value='A friend']");
    expect(!(await js.isVisible(otherBox)), "and hides again for another choice");
    await shoot(js, "logic-js-page-3");
    await js.click("text=Send my answers");
    await js.waitForSelector(".reference");

    // Without JavaScript: the question stands with its hint; the jump skips page 2; Back
    // returns to page 1 with the answers kept.
    // On a desktop-sized window, this time.
    const desktop = { viewport: { width: 1280, height: 900 } };
    const plain = scriptless(await (await browser.newContext({ ...desktop, javaScriptEnabled: false })).newPage());
    await plain.goto(url);
    expect(await plain.isVisible("#q-why"), "without the script the question is shown");
    expect(await plain.isVisible("text=Answer this if your answer to \"Did you like it?\" is \"No\"."),
      "with a hint saying when to answer it");
    await shoot(plain, "logic-no-js-page-1");
    await plain.check("text=First time");
    await plain.check("text=Yes");
    await plain.click("button[value=next]");
    await plain.waitForSelector("text=Page 3 of 3");
    await shoot(plain, "logic-no-js-page-3");
    expect(await plain.isVisible("input[name='q-heard.other']"), "without the script the Other box shows");
    await plain.click("button[value=back]");
    await plain.waitForSelector("text=Page 1 of 3");
    expect(await plain.isChecked("input[name=q-visit][value='First time']"), "the visit answer is kept");
    expect(await plain.isChecked("input[name=q-likes][value=Yes]"), "the liking answer is kept");
    await plain.click("button[value=next]");
    await plain.waitForSelector("text=Page 3 of 3");
    await plain.click("text=Send my answers");
    await plain.waitForSelector(".reference");

    // Both responses, exactly as answered (nothing from a question not shown).
    const listed = await counted(api, created.slug, 2);
    const values = listed.responses.map((r) => JSON.stringify(r.values)).sort();
    const expected = [
      JSON.stringify({ agree: { point: 4 }, branch: { choice: "East" }, day: { date: "2026-06-01" },
        grid: { matrix: { Cake: "Fair", Coffee: "Good" } }, heard: { choice: "A friend" },
        likes: { choice: "No" }, often: { number: 12 }, rank: { ranking: ["Cake", "Coffee", "Music"] },
        recommend: { point: 9 }, stars: { stars: 5 },
        visit: { choice: "Regular" }, why: { text: "Cold coffee" } }),
      JSON.stringify({ likes: { choice: "Yes" }, visit: { choice: "First time" } }),
    ].sort();
    expect(JSON.stringify(values) === JSON.stringify(expected),
      `responses: ${JSON.stringify(values)} instead of ${JSON.stringify(expected)}`);

    // A panel's survey: the link carries the respondent's id and source; a question shows
    // only for one source, another is filled in from the link, and the answer is stored
    // before the respondent goes back to the panel with their id. The panel's address is
    // answered here in the browser, so nothing leaves this machine.
    const panel = await api("POST", "/surveys", {
      title: "Panel check",
      hidden_fields: ["pid", "source"],
      redirects: { complete: "https://panel.example/done?cc=C0DE&pid={{h:pid}}" },
      pages: [
        { questions: [
          { id: "age", text: "Your age", type: "numeric", required: true },
          { id: "mailq", text: "Did our email read well?", type: "single_choice", required: false,
            options: ["Yes", "No"], show_if: { hidden: "source", equals: "mail" } }] },
        { questions: [
          { id: "note", text: "Anything else, {{h:pid|friend}}?", type: "long_text", required: false }] },
      ],
    });
    await api("POST", `/surveys/${panel.slug}/publish`);
    const panelUrl = `${base}/s/${panel.tenant}/${panel.slug}?pid=P%2042&source=mail&q.age=34`;
    const returned = [];
    for (const [name, context] of [
      ["js", await browser.newContext(phone)],
      ["no-js", await browser.newContext({ ...phone, javaScriptEnabled: false })],
    ]) {
      await context.route("https://panel.example/**", (route) => {
        returned.push(route.request().url());
        return route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>Panel</title><h1>Back at the panel</h1>" });
      });
      const page = name === "js" ? await context.newPage() : scriptless(await context.newPage());
      await page.goto(panelUrl);
      expect((await page.inputValue("#q-age")) === "34", "the age is filled in from the link");
      expect(await page.isVisible("text=Did our email read well?"), "the question for mail's respondents shows");
      await page.check("input[name=q-mailq][value=Yes]");
      await shoot(page, `panel-${name}-page-1`);
      await page.click("button[value=next]");
      await page.waitForSelector("text=Anything else, P 42?");
      await page.fill("#q-note", name);
      await shoot(page, `panel-${name}-page-2`);
      await page.click("button[value=next]");
      await page.waitForSelector("text=Back at the panel");
      await context.close();
    }
    expect(JSON.stringify(returned) === JSON.stringify(Array(2).fill("https://panel.example/done?cc=C0DE&pid=P%2042")),
      `sent back to the panel with the id: ${JSON.stringify(returned)}`);
    const stored = await counted(api, panel.slug, 2);
    for (const response of stored.responses) {
      expect(JSON.stringify(response.hidden) === JSON.stringify({ pid: "P 42", source: "mail" }),
        `stored with the link's values: ${JSON.stringify(response.hidden)}`);
      expect(response.values.age.number === 34 && response.values.mailq.choice === "Yes",
        `answered: ${JSON.stringify(response.values)}`);
    }

    // Random orders: each respondent's options come in an order of their own, "None of
    // these" last, and the order they saw is recorded with their answer.
    const drawn = await api("POST", "/surveys", {
      title: "Order check",
      questions: [{ id: "fruit", text: "Which fruit do you like best?", type: "single_choice", required: true,
        options: ["Apple", "Banana", "Cherry", "Damson", "None of these"], randomize_options: true, fixed_last: 1 }],
    });
    await api("POST", `/surveys/${drawn.slug}/publish`);
    const seen = [];
    for (const [name, context] of [
      ["js", await browser.newContext(phone)],
      ["no-js", await browser.newContext({ ...phone, javaScriptEnabled: false })],
    ]) {
      const page = name === "js" ? await context.newPage() : scriptless(await context.newPage());
      await page.goto(`${base}/s/${drawn.tenant}/${drawn.slug}`);
      const shown = await page.$$eval("input[name=q-fruit]", (inputs) => inputs.map((i) => i.value));
      expect(shown.length === 5 && shown[4] === "None of these", `options shown: ${shown}`);
      seen.push(JSON.stringify(shown));
      await shoot(page, `order-${name}`);
      await page.check("input[name=q-fruit][value=Cherry]");
      await page.click("button[value=next]");
      await page.waitForSelector(".reference");
      await context.close();
    }
    const ordered = await counted(api, drawn.slug, 2);
    const recorded = ordered.responses.map((r) => JSON.stringify(r.order.fruit)).sort();
    expect(JSON.stringify(recorded) === JSON.stringify([...seen].sort()),
      `the orders shown are recorded: ${recorded} against ${seen}`);

    // A quiz with a rule: the shares must add up to 100 (the owner's message says so, on the
    // server, with or without JavaScript), and the thank-you page shows the score and the
    // correct answer, worked out on the server.
    const quiz = await api("POST", "/surveys", {
      title: "Quick quiz",
      variables: [{ id: "total", expression: "score * 10.0" }],
      endings: [{ id: "top", if: "correct == 1.0", text: "**Well done!**" }, { id: "rest", text: "Thanks for trying." }],
      quiz: { show_score: true, show_answers: true },
      pages: [
        { questions: [
          { id: "capital", text: "The capital of France?", type: "single_choice", required: true,
            options: ["Paris", "Lyon", "Nice"], scores: [2, 0, 0], correct: ["Paris"] }] },
        { questions: [
          { id: "a", text: "Share for tea (%), after {{v:total}} points", type: "numeric", required: true },
          { id: "b", text: "Share for coffee (%)", type: "numeric", required: true,
            validate: { expression: "q.a + q.b == 100.0", message: "The two shares add up to 100." } }] },
      ],
    });
    await api("POST", `/surveys/${quiz.slug}/publish`);
    for (const [name, context] of [
      ["js", await browser.newContext(phone)],
      ["no-js", await browser.newContext({ ...phone, javaScriptEnabled: false })],
    ]) {
      const page = name === "js" ? await context.newPage() : scriptless(await context.newPage());
      await page.goto(`${base}/s/${quiz.tenant}/${quiz.slug}`);
      await page.check("input[name=q-capital][value=Paris]");
      await page.click("button[value=next]");
      await page.waitForSelector("text=after 20 points");
      await page.fill("input[name=q-a]", "60");
      await page.fill("input[name=q-b]", "30");
      await page.click("button[value=next]");
      await page.waitForSelector("text=The two shares add up to 100.");
      await shoot(page, `quiz-${name}-refused`);
      await page.fill("input[name=q-b]", "40");
      await page.click("button[value=next]");
      await page.waitForSelector(".reference");
      const thanks = await page.textContent("main");
      for (const shown of ["Well done!", "Your score: 2", "1 of 1 answers correct", "Correct answer: Paris"]) {
        expect(thanks.includes(shown), `${shown} on the thank-you page: ${thanks}`);
      }
      await shoot(page, `quiz-${name}-thanks`);
      await context.close();
    }
    const scored = await counted(api, quiz.slug, 2);
    for (const response of scored.responses) {
      expect(response.score === 2 && response.correct === 1 && response.ending === "top"
        && response.variables.total === 20, `computed and stored: ${JSON.stringify(response)}`);
    }
    // A loop: a page for each drink ticked, named by `{{loop}}`; a rule on the loop's own
    // answer, on the server, with or without JavaScript.
    const loop = await api("POST", "/surveys", {
      title: "Drinks loop",
      pages: [
        { questions: [
          { id: "drinks", text: "Which do you drink?", type: "multiple_choice", required: true,
            options: ["Tea", "Coffee", "Hot chocolate"] }] },
        { title: "About {{loop}}", loop: { over: "drinks" }, questions: [
          { id: "cups", text: "Cups of {{loop}} a day?", type: "numeric", required: true,
            validate: { expression: "q.cups < 20.0", message: "Fewer than 20 cups, surely?" } }] },
      ],
    });
    await api("POST", `/surveys/${loop.slug}/publish`);
    for (const [name, context] of [
      ["js", await browser.newContext(phone)],
      ["no-js", await browser.newContext({ ...phone, javaScriptEnabled: false })],
    ]) {
      const page = name === "js" ? await context.newPage() : scriptless(await context.newPage());
      await page.goto(`${base}/s/${loop.tenant}/${loop.slug}`);
      await page.check("input[name=q-drinks][value=Tea]");
      await page.check("input[name=q-drinks][value='Hot chocolate']");
      await page.click("button[value=next]");
      await page.waitForSelector("text=Cups of Tea a day?");
      await page.fill("input[name='q-cups[tea]']", "25");
      await page.click("button[value=next]");
      await page.waitForSelector("text=Fewer than 20 cups, surely?");
      await shoot(page, `loop-${name}-refused`);
      await page.fill("input[name='q-cups[tea]']", "3");
      await page.click("button[value=next]");
      await page.waitForSelector("text=Cups of Hot chocolate a day?");
      await shoot(page, `loop-${name}-second`);
      await page.fill("input[name='q-cups[hot_chocolate]']", "1");
      await page.click("button[value=next]");
      await page.waitForSelector(".reference");
      await context.close();
    }
    const looped = await counted(api, loop.slug, 2);
    for (const response of looped.responses) {
      expect(response.values["cups[tea]"].number === 3 && response.values["cups[hot_chocolate]"].number === 1
        && !("cups[coffee]" in response.values), `kept per item: ${JSON.stringify(response.values)}`);
    }
    check();
    console.log("browser logic walk: ok");
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  console.error(`browser logic walk failed: ${error.stack || error}`);
  process.exit(1);
});
