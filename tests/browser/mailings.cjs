// Mailings, as an owner and a participant meet them: the owner chooses anonymity on a draft
// and changes their mind, is asked it again on publishing, then opens the participants' chart,
// writes the invitation and previews it, sends it to three participants (one address bounces)
// and watches it go out; a participant opens the opt-out link from their letter on a phone
// without JavaScript and stops the mail; the owner reads that participant's history. Every
// page audited by axe-core, none scrolling sideways on a phone.
// Usage: node mailings.cjs <base-url> <screenshot-dir>. Exits non-zero with a reason on failure.
const { check, scriptless } = require("./audit.cjs");
const { launch, apiWith, expect, shooter } = require("./walk.cjs");

const [base, shots] = process.argv.slice(2);
const shoot = shooter(shots);

async function main() {
  const browser = await launch();
  try {
    const phone = { viewport: { width: 390, height: 844 } };
    const owner = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const ownerPhone = await (await browser.newContext(phone)).newPage();
    await owner.goto(`${base}/tenant/sign-up`);
    await owner.fill("#name", "Harbour Clinic");
    await owner.fill("#email", "owner@clinic.test");
    await owner.fill("#password", "a long enough password");
    await owner.press("#password", "Enter");
    await owner.waitForURL(`${base}/tenant`);
    await ownerPhone.context().addCookies(await owner.context().cookies());
    await owner.goto(`${base}/tenant/api-keys`);
    await owner.fill("#label", "Walk");
    await owner.click("text=Create key");
    const key = (await owner.textContent("code.secret")).trim();
    const api = apiWith(base, key);
    const created = await api("POST", "/surveys", {
      title: "Your appointment", access: "invitation",
      questions: [{ id: "care", text: "How was your care?", type: "five_stars", required: true }],
    });
    // A draft may choose anonymity and change its mind.
    const participants = `${base}/tenant/surveys/${created.slug}/participants`;
    await owner.goto(participants);
    await owner.check("input[name=anonymous]");
    await owner.click("text=Save who may answer");
    await owner.waitForSelector("text=Answers are anonymous.");
    expect(await owner.isChecked("input[name=anonymous]"), "the choice kept");
    await shoot(owner, "participants-anonymous-draft");
    await ownerPhone.goto(participants);
    await shoot(ownerPhone, "participants-anonymous-draft-phone");
    await owner.uncheck("input[name=anonymous]");
    await owner.click("text=Save who may answer");
    await owner.waitForSelector("text=Answers are not anonymous.");
    // Publishing a survey for known people asks the question first, on a page of its own.
    await owner.goto(`${base}/tenant/surveys/${created.slug}`);
    await owner.click("form[action$='/publish'] button");
    await owner.waitForSelector("text=Are the answers to");
    expect(await owner.isChecked("input[name=anonymous][value=no]"), "the current choice is picked");
    await shoot(owner, "publish-anonymity");
    await ownerPhone.goto(`${base}/tenant/surveys/${created.slug}`);
    await ownerPhone.click("form[action$='/publish'] button");
    await ownerPhone.waitForSelector("text=Are the answers to");
    await shoot(ownerPhone, "publish-anonymity-phone");
    await owner.check("input[name=anonymous][value=no]");
    await owner.click("form[action$='/publish'] button[type=submit]");
    await owner.waitForURL(`${base}/tenant/surveys/${created.slug}`);
    const published = await api("GET", `/surveys/${created.slug}`);
    expect(published.published && published.anonymous === false, "published, not anonymous");
    // Until the first answer the choice stays open on the participants' page.
    await owner.goto(participants);
    expect((await owner.locator("input[name=anonymous]").count()) === 1, "still a choice");
    await api("POST", `/surveys/${created.slug}/participants`, { participants: [
      { email: "ann@clinic.test", first_name: "Ann", last_name: "Okafor" },
      { email: "bob@clinic.test", first_name: "Bob" },
      { email: "refused-cy@clinic.test", first_name: "Cy" }] });
    const mailings = `${base}/tenant/surveys/${created.slug}/mailings`;

    // The participants' chart leads to the mailings page.
    await owner.goto(`${base}/tenant/surveys/${created.slug}/participants`);
    await owner.click("text=Email invitations and reminders");
    await owner.waitForURL(mailings);
    await shoot(owner, "mailings");
    await ownerPhone.goto(mailings);
    await shoot(ownerPhone, "mailings-phone");

    // The invitation written and previewed, then saved.
    await owner.fill("#invitation-subject", "{{first_name}}, how was your appointment?");
    await owner.fill("#invitation-body",
      "Dear {{name}},\n\nThank you for visiting **Harbour Clinic**. Would you tell us how it went? " +
      "It takes two minutes.\n\n[Answer the survey]({{link}})\n\nThe Harbour Clinic team");
    await owner.click("#invitation-heading ~ p.downloads >> text=Preview");
    await owner.waitForSelector(".letter");
    expect(await owner.isVisible(".letter >> text=Ann, how was your appointment?"), "the preview fills in the first participant");
    await shoot(owner, "mailings-preview");
    await owner.click("#invitation-heading ~ p.downloads >> text=Save");
    await owner.waitForSelector("text=The template was saved.");

    // Sent: the page refreshes itself until the mailing is done.
    await owner.click("text=Send the invitation to everyone not invited yet");
    await owner.waitForSelector("text=The invitations are being sent");
    for (let tries = 0; ; tries++) {
      expect(tries < 60, "the mailing finished within a minute");
      const rows = await owner.textContent("table.mailings tbody");
      if (rows.includes("Done")) break;
      await owner.waitForTimeout(1000);
      await owner.goto(mailings);
    }
    const row = await owner.textContent("table.mailings tbody tr");
    expect(row.includes("Invitation") && row.includes("Done"), `the mailing is done: ${row}`);
    await shoot(owner, "mailings-sent");
    await ownerPhone.goto(mailings);
    await shoot(ownerPhone, "mailings-sent-phone");

    // Ann opts out from her letter's link, on a phone without JavaScript.
    const listed = await api("GET", `/surveys/${created.slug}/participants`);
    const ann = listed.participants.find((p) => p.email === "ann@clinic.test");
    expect(ann.status === "invited", `Ann is invited: ${ann.status}`);
    const bounced = listed.participants.find((p) => p.email === "refused-cy@clinic.test");
    expect(bounced.status === "bounced", `Cy's address bounced: ${bounced.status}`);
    const reader = scriptless(await (await browser.newContext({ ...phone, javaScriptEnabled: false })).newPage());
    await reader.goto(`${ann.link}/opt-out`);
    await reader.waitForSelector("text=No more email from Harbour Clinic?");
    await shoot(reader, "opt-out-no-js");
    await reader.click("text=Stop the email");
    await reader.waitForSelector("text=You will get no more email from Harbour Clinic");
    await shoot(reader, "opted-out-no-js");

    // Her history on the owner's site.
    await owner.goto(`${base}/tenant/surveys/${created.slug}/participants/${ann.id}`);
    await owner.waitForSelector("text=Asked for no more email");
    expect(await owner.isVisible("text=Invited by email"), "her invitation is in her history");
    await shoot(owner, "participant-history");
    await ownerPhone.goto(owner.url());
    await shoot(ownerPhone, "participant-history-phone");
  } finally {
    await browser.close();
  }
  check();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
