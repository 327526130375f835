// A survey in English, German and Arabic, answered in Arabic on a phone: with JavaScript
// (the page chosen by the browser's language, a condition shown as it is answered) and without
// (the hint in Arabic, the switcher's buttons keeping what was typed). Every page right to
// left, audited by axe-core, with no sideways scrolling; both answers pool with the English
// labels. The survey is made through the JSON API with the key given.
// Usage: node languages.cjs <base-url> <api-key> <screenshot-dir>. Exits non-zero on failure.
const { check, scriptless } = require("./audit.cjs");
const { launch, apiWith, counted, expect, shooter } = require("./walk.cjs");

const [base, key, shots] = process.argv.slice(2);
const api = apiWith(base, key);
const shoot = shooter(shots);
const survey = {
  title: { en: "Your stay", de: "Ihr Aufenthalt", ar: "إقامتك" },
  description: { en: "Two short pages.", ar: "صفحتان قصيرتان." },
  languages: ["en", "de", "ar"],
  pages: [
    { title: { en: "The room", ar: "الغرفة" }, questions: [
      { id: "stars", text: { en: "How was the room?", ar: "كيف كانت الغرفة؟" }, type: "five_stars", required: true },
      { id: "clean", text: { en: "Was it clean?", ar: "هل كانت نظيفة؟" }, type: "single_choice", required: true,
        options: [{ en: "Yes", ar: "نعم" }, { en: "No", ar: "لا" }] },
      { id: "why", text: { en: "What was not clean?", ar: "ما الذي لم يكن نظيفًا؟" }, type: "long_text", required: true,
        show_if: { question: "clean", equals: "No" } }] },
    { title: { en: "The rest", ar: "الباقي" }, questions: [
      { id: "agree", text: { en: "The staff were friendly.", ar: "كان الموظفون ودودين." }, type: "scale", points: 5,
        min_label: { en: "Strongly disagree", ar: "أعارض بشدة" }, max_label: { en: "Strongly agree", ar: "أوافق بشدة" } },
      { id: "grid", text: { en: "How was each?", ar: "كيف كان كل منها؟" }, type: "matrix",
        rows: [{ en: "Breakfast", ar: "الفطور" }, { en: "Dinner", ar: "العشاء" }],
        columns: [{ en: "Poor", ar: "ضعيف" }, { en: "Good", ar: "جيد" }] },
      { id: "nights", text: { en: "Nights", ar: "عدد الليالي" }, type: "numeric", min: 1, max: 1000, integer: true }] },
  ],
  thank_you: { en: "See you soon!", ar: "نراك قريبًا!" },
};

async function rightToLeft(page) {
  const [lang, dir] = await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir]);
  expect(lang === "ar" && dir === "rtl", `an Arabic page right to left, not ${lang} ${dir} at ${page.url()}`);
}

async function main() {
  const created = await api("POST", "/surveys", survey);
  await api("POST", `/surveys/${created.slug}/publish`);
  const url = `${base}/s/${created.tenant}/${created.slug}`;
  const browser = await launch();
  try {
    const phone = { viewport: { width: 390, height: 844 }, locale: "ar", extraHTTPHeaders: { "accept-language": "ar, en;q=0.5" } };

    // With JavaScript: Arabic from the browser's languages.
    const js = await (await browser.newContext(phone)).newPage();
    await js.goto(url);
    await rightToLeft(js);
    expect(await js.isVisible("text=إقامتك"), "the Arabic title");
    expect(await js.isVisible("text=الصفحة 1 من 2"), "the page counter in Arabic");
    expect(!(await js.isVisible("#q-why")), "the conditional question starts hidden");
    await js.check("input[name=q-stars][value='4']");
    await js.check("text=لا");
    expect(await js.isVisible("#q-why"), "shown once the answer is No");
    await js.fill("#q-why", "الحمام");
    await shoot(js, "arabic-js-page-1");
    await js.click("button[value=next]");
    await js.waitForSelector("text=الصفحة 2 من 2");
    await rightToLeft(js);
    await js.check("input[name=q-agree][value='4']");
    await js.check("input[name='q-grid.0'][value=Good]");
    const range = (await js.textContent("#q-nights-range")).trim();
    expect(range === "عدد صحيح من 1 إلى 1,000.", `the range in Arabic: ${range}`);
    await js.fill("#q-nights", "3");
    await shoot(js, "arabic-js-page-2");
    await js.click("button[value=next]");
    await js.waitForSelector(".reference");
    await rightToLeft(js);
    expect(await js.isVisible("text=نراك قريبًا!"), "the thank-you message in Arabic");
    await shoot(js, "arabic-thanks");

    // Without JavaScript, starting in English: the hint stands in for the script, and the
    // switcher turns the page to Arabic with what was typed kept.
    const plain = scriptless(await (await browser.newContext({ ...phone, locale: "en-US", javaScriptEnabled: false, extraHTTPHeaders: {} })).newPage());
    await plain.goto(url);
    expect(await plain.evaluate(() => document.documentElement.lang) === "en", "English first");
    await plain.check("input[name=q-stars][value='5']");
    await plain.click("button[lang=ar]");
    await plain.waitForSelector("text=الصفحة 1 من 2");
    await rightToLeft(plain);
    expect(await plain.isChecked("input[name=q-stars][value='5']"), "the rating is kept");
    expect(await plain.isVisible("text=أجب عن هذا السؤال إذا"), "the condition's hint in Arabic");
    await shoot(plain, "arabic-no-js-page-1");
    await plain.check("text=نعم");
    await plain.click("button[value=next]");
    await plain.waitForSelector("text=الصفحة 2 من 2");
    await shoot(plain, "arabic-no-js-page-2");
    await plain.click("button[value=next]");
    await plain.waitForSelector(".reference");

    // Both answers in the default language's labels, each with its language.
    const listed = await counted(api, created.slug, 2);
    const got = listed.responses.map((r) => JSON.stringify([r.language, r.values])).sort();
    const want = [
      JSON.stringify(["ar", { agree: { point: 4 }, clean: { choice: "No" }, grid: { matrix: { Breakfast: "Good" } },
        nights: { number: 3 }, stars: { stars: 4 }, why: { text: "الحمام" } }]),
      JSON.stringify(["ar", { clean: { choice: "Yes" }, stars: { stars: 5 } }]),
    ].sort();
    expect(JSON.stringify(got) === JSON.stringify(want), `responses: ${JSON.stringify(got)} instead of ${JSON.stringify(want)}`);
    check();
    console.log("browser languages walk: ok");
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  console.error(`browser languages walk failed: ${error.stack || error}`);
  process.exit(1);
});
