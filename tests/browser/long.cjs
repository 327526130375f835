// A long survey, as people meet it: a respondent on a phone with JavaScript uploads a photo,
// sees their rating recalled on page 2, saves and gets a link; on another phone without
// JavaScript the link brings their answers back and they send; a second respondent without
// JavaScript is ended politely by a full quota; the owner reads where respondents stop and the
// quotas on the summary (desktop and phone), keeps quotas on their tab, sees the file
// question's fields in the designer on a phone, and downloads the photo; then imports
// participants from a spreadsheet, makes the survey by invitation with each team a segment,
// and a participant answers through their personal link, once. Every page audited by
// axe-core, none scrolling sideways on a phone.
// Usage: node long.cjs <base-url> <screenshot-dir>. Exits non-zero with a reason on failure.
const { check, scriptless } = require("./audit.cjs");
const { launch, apiWith, counted, expect, shooter, logoPng } = require("./walk.cjs");

const [base, shots] = process.argv.slice(2);
const shoot = shooter(shots);
const survey = {
  title: "Your visit",
  save_and_resume: true,
  pages: [
    { title: "The visit", questions: [
      { id: "stars", text: "How was your visit?", type: "five_stars", required: true },
      { id: "photo", text: "A photo of your table", type: "file", accept: ["image"],
        help: "A phone picture is fine; at most 2 MB.", max_bytes: 2097152 }] },
    { title: "A little more", questions: [
      { id: "why", type: "long_text", text: "You gave us {{q:stars}} stars: what would make it five?",
        help: "Anything at all: the food, the wait, the music." },
      { id: "drink", text: "What did you drink?", type: "single_choice", required: true,
        options: ["Tea", "Coffee"] }] },
  ],
  quotas: [{ id: "tea", name: "Tea drinkers", limit: 1, when: { question: "drink", equals: "Tea" },
             message: "We have heard from **enough** tea drinkers: thank you for your time!" }],
};

async function main() {
  const browser = await launch();
  try {
    const phone = { viewport: { width: 390, height: 844 } };
    // An owner signs up and makes a key, as in the tenant site.
    const owner = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await owner.goto(`${base}/tenant/sign-up`);
    await owner.fill("#name", "Long Visits");
    await owner.fill("#email", "owner@visits.test");
    await owner.fill("#password", "a long enough password");
    await owner.press("#password", "Enter");
    await owner.waitForURL(`${base}/tenant`);
    await owner.goto(`${base}/tenant/api-keys`);
    await owner.fill("#label", "Walk");
    await owner.click("text=Create key");
    const key = (await owner.textContent("code.secret")).trim();
    const api = apiWith(base, key);
    const created = await api("POST", "/surveys", survey);
    await api("POST", `/surveys/${created.slug}/publish`);
    const url = `${base}/s/${created.tenant}/${created.slug}`;

    // With JavaScript on a phone: a photo, the rating recalled, then saved for later.
    const js = await (await browser.newContext(phone)).newPage();
    await js.goto(url);
    await js.check("input[name=q-stars][value='4']");
    await js.setInputFiles("#q-photo", { name: "table.png", mimeType: "image/png", buffer: logoPng() });
    await shoot(js, "long-js-page-1");
    await js.click("button[value=next]");
    await js.waitForSelector("text=Page 2 of 2");
    expect(await js.isVisible("text=You gave us 4 stars: what would make it five?"), "the rating recalled");
    await js.fill("#q-why", "Warmer soup.");
    await shoot(js, "long-js-page-2");
    await js.click("button[value=save]");
    await js.waitForSelector("text=Your answers are saved");
    await shoot(js, "long-saved-phone");
    const link = (await js.textContent(".resume-link a")).trim();
    expect(link.includes("/resume/"), `a resume link: ${link}`);

    // Another phone, without JavaScript: the link brings everything back; they send.
    const plain = scriptless(await (await browser.newContext({ ...phone, javaScriptEnabled: false })).newPage());
    await plain.goto(link);
    await plain.waitForSelector("text=Page 2 of 2");
    expect((await plain.inputValue("#q-why")) === "Warmer soup.", "the typed answer restored");
    expect(await plain.isVisible("text=You gave us 4 stars"), "the recall restored");
    await shoot(plain, "long-resumed-no-js");
    await plain.check("text=Tea");
    await plain.click("button[value=next]");
    await plain.waitForSelector(".reference");
    await shoot(plain, "long-thanks-no-js");
    await plain.goto(link);
    expect(await plain.isVisible("text=This link no longer works"), "the link ends with the send");

    // A second tea drinker, without JavaScript: the quota is full, they are ended politely.
    const second = scriptless(await (await browser.newContext({ ...phone, javaScriptEnabled: false })).newPage());
    await second.goto(url);
    await second.check("input[name=q-stars][value='2']");
    await second.setInputFiles("#q-photo", { name: "mine.png", mimeType: "image/png", buffer: logoPng() });
    await second.click("button[value=next]");
    await second.waitForSelector("text=Page 2 of 2");
    await second.check("text=Tea");
    await second.click("button[value=next]");
    await second.waitForSelector("text=Thank you for your time");
    expect(await second.isVisible("text=enough"), "the quota's message");
    await shoot(second, "long-quota-ended-no-js");
    // A refused file is said beside its question, without JavaScript.
    await second.goto(url);
    await second.check("input[name=q-stars][value='5']");
    await second.setInputFiles("#q-photo", { name: "notes.png", mimeType: "image/png", buffer: Buffer.from("just text") });
    await second.click("button[value=next]");
    await second.waitForSelector("text=This kind of file is not taken here");
    await shoot(second, "long-file-refused-no-js");

    // The owner: where respondents stop, the quotas, the file.
    const listed = await counted(api, created.slug, 1);
    await owner.goto(`${base}/tenant/surveys/${created.slug}/summary`);
    expect(await owner.isVisible("text=Where respondents stop"), "the drop-off");
    expect(await owner.isVisible("text=Reached page 2"), "a step per page");
    expect(await owner.isVisible("text=Tea drinkers: 1 of 1 places taken"), "the quota's places");
    await shoot(owner, "long-summary");
    const ownerPhone = await (await browser.newContext(phone)).newPage();
    await ownerPhone.context().addCookies(await owner.context().cookies());
    await ownerPhone.goto(`${base}/tenant/surveys/${created.slug}/summary`);
    await shoot(ownerPhone, "long-summary-phone");
    await ownerPhone.goto(`${base}/tenant/surveys/${created.slug}/quotas`);
    await shoot(ownerPhone, "long-quotas-phone");
    await owner.goto(`${base}/tenant/surveys/${created.slug}/quotas`);
    await shoot(owner, "long-quotas");
    await ownerPhone.goto(`${base}/tenant/surveys/${created.slug}`);
    await shoot(ownerPhone, "long-designer-phone");
    // The file question's own fields, close up (the whole designer is long on a phone),
    // its card unfolded first (saved cards are folded to one line).
    await ownerPhone.click("details.card-fold:has(div.row:not([hidden]) input[id$='-max-mb']) > summary");
    const fileBlock = ownerPhone
      .locator("div.row:not([hidden])", { has: ownerPhone.locator("input[id$='-max-mb']") })
      .first();
    await fileBlock.screenshot({ path: require("path").join(shots, "long-designer-file-phone.png") });
    const reference = listed.responses[0].reference;
    await owner.goto(`${base}/tenant/surveys/${created.slug}/responses/ref/${reference}`);
    await shoot(owner, "long-response");
    await ownerPhone.goto(`${base}/tenant/surveys/${created.slug}/responses/ref/${reference}`);
    await shoot(ownerPhone, "long-response-phone");
    const [download] = await Promise.all([
      owner.waitForEvent("download"),
      owner.click("text=Download table.png"),
    ]);
    expect(download.suggestedFilename() === "table.png", `the file's name: ${download.suggestedFilename()}`);
    const stream = await download.createReadStream();
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(logoPng()), "the photo, as uploaded");

    // Participants: a spreadsheet previewed and added, the survey by invitation only, and a
    // personal link answered on a phone without JavaScript, once.
    const people = "Email,First name,Team\nann@visits.test,Ann,Kitchen\nbob@visits.test,Bob,Floor\n";
    await owner.goto(`${base}/tenant/surveys/${created.slug}/participants`);
    await owner.setInputFiles("#sheet", { name: "people.csv", mimeType: "text/csv", buffer: Buffer.from(people) });
    await owner.click("text=Check the file");
    await owner.waitForSelector("text=Add 2 participants?");
    await shoot(owner, "long-participants-preview");
    await owner.click("text=Add all 2");
    await owner.waitForSelector("text=Added 2 participants.");
    await owner.check("input[name=access][value=invitation]");
    await owner.click("text=Save who may answer");
    await owner.waitForSelector("text=Only participants may answer now");
    expect(await owner.isVisible("text=Answers are not anonymous"), "anonymity, fixed once published");
    // Each team a segment of the results.
    await owner.check("input[name=segment][value=team]");
    await owner.click("text=Save the segments");
    await owner.waitForSelector("text=Each value of team is a segment");
    await shoot(owner, "long-participants");
    await ownerPhone.goto(`${base}/tenant/surveys/${created.slug}/participants`);
    await shoot(ownerPhone, "long-participants-phone");
    await owner.click("text=ann@visits.test");
    await owner.waitForSelector("text=Change their names and language");
    await shoot(owner, "long-participant");
    await ownerPhone.goto(owner.url());
    await shoot(ownerPhone, "long-participant-phone");
    await owner.goto(`${base}/tenant/surveys/${created.slug}/participants`);
    const personal = await owner.inputValue("input[aria-label='The personal link of ann@visits.test']");
    const invited = scriptless(await (await browser.newContext({ ...phone, javaScriptEnabled: false })).newPage());
    await invited.goto(url);
    expect(await invited.isVisible("text=This survey is by invitation"), "the public address refused");
    await shoot(invited, "long-by-invitation-no-js");
    await invited.goto(personal);
    await invited.check("input[name=q-stars][value='5']");
    await invited.click("button[value=next]");
    await invited.waitForSelector("text=Page 2 of 2");
    await invited.check("text=Coffee");
    await invited.click("button[value=next]");
    await invited.waitForSelector(".reference");
    await invited.goto(personal);
    expect(await invited.isVisible("text=You have answered already"), "one answer a link");
    await shoot(invited, "long-link-answered-no-js");
  } finally {
    await browser.close();
  }
  check();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
