// Teams in headless Chromium: an owner signs up, invites an editor from the members page and
// copies the link shown; the editor opens it on a phone, chooses a password and lands on the
// dashboard, signed in, with an editor's navigation (no members, no settings). Then, with a
// reset link made in the shell (`canvass member reset-link`, passed in), the editor follows
// "Forgot your password?", sets a new password on the phone, and signs in with it on a desktop;
// before that, the single sign-on page refuses an organisation that has not set it up.
// Every page passes the accessibility audit (audit.cjs); screenshots go to the screenshot folder.
// Usage: node members.cjs invite <base-url> <screenshot-dir>   (prints the editor's address)
//        node members.cjs reset <base-url> <screenshot-dir> <reset-link>
const { chromium } = require("playwright-core");
const fs = require("fs");
const path = require("path");
const { audit, check } = require("./audit.cjs");

const [step, base, shots, resetLink] = process.argv.slice(2);
const editor = "editor@teamtea.test";
const phone = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

async function shoot(page, name) {
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  await audit(page, name);
}

function expect(condition, what) {
  if (!condition) throw new Error(what);
}

async function invite(browser) {
  const owner = await (await browser.newContext({ viewport: { width: 1100, height: 900 } })).newPage();
  await owner.goto(`${base}/tenant/sign-up`);
  await owner.fill("#name", "Team Tea");
  await owner.waitForFunction(() => document.querySelector("#slug").value === "team-tea");
  await owner.fill("#email", "owner@teamtea.test");
  await owner.fill("#password", "a long enough password");
  await owner.press("#password", "Enter");
  await owner.waitForURL(`${base}/tenant`);
  await owner.click("nav >> text=Members");
  await owner.waitForURL(`${base}/tenant/members`);
  await shoot(owner, "members");
  await owner.fill("#email", editor);
  await owner.selectOption("#role", "editor");
  await owner.click("button:has-text('Invite')");
  await owner.waitForSelector("#invitation-link");
  const link = (await owner.textContent("#invitation-link")).trim();
  expect(link.startsWith(`${base}/tenant/join/`), `the link shown is an invitation: ${link}`);
  expect((await owner.textContent("#waiting-title")).includes("Invitations waiting"), "the invitation waits");
  await shoot(owner, "members-invited");

  // The editor, on a phone, opens the link.
  const invited = await (await browser.newContext(phone)).newPage();
  await invited.goto(link);
  expect((await invited.textContent("h1")).includes("Join Team Tea"), "the page names the tenant");
  expect((await invited.inputValue("#email")) === editor, "the page names the address");
  await shoot(invited, "join-phone");
  await invited.fill("#password", "password");
  await invited.click("button:has-text('Join Team Tea')");
  await invited.waitForSelector(".alert");
  expect((await invited.textContent(".alert")).includes("common"), "a common password is refused");
  await invited.fill("#password", "my own editor password");
  await invited.click("button:has-text('Join Team Tea')");
  await invited.waitForURL(`${base}/tenant`);
  expect((await invited.textContent(".notice")).includes("you are an editor here"), "a welcome names the role");
  const nav = await invited.textContent("nav");
  expect(nav.includes("Webhooks") && !nav.includes("Members") && !nav.includes("Settings"),
    `an editor's navigation: ${nav}`);
  await shoot(invited, "joined-phone");

  // The owner sees the new member, and the link no longer works.
  await owner.goto(`${base}/tenant/members`);
  expect((await owner.textContent("#members-title + .table-wrap")).includes(editor), "the editor is listed");
  await shoot(owner, "members-after-join");
  // Removing asks first; keeping them changes nothing.
  await owner.click(`a:has-text('Remove ${editor}')`);
  await owner.waitForSelector("text=signed out at once");
  await shoot(owner, "remove-member-confirm");
  await owner.click("text=Keep them");
  await owner.waitForURL(`${base}/tenant/members`);
  expect((await owner.textContent("#members-title + .table-wrap")).includes(editor), "kept after Keep them");
  const again = await (await browser.newContext(phone)).newPage();
  const used = await again.goto(link);
  expect(used.status() === 410, `a used invitation answers 410, not ${used.status()}`);
  await shoot(again, "join-used-phone");
  console.log(editor);
}

async function reset(browser) {
  const forgetful = await (await browser.newContext(phone)).newPage();
  // The single sign-on page, reached from the sign-in page, refuses an organisation without it.
  await forgetful.goto(`${base}/tenant/sign-in`);
  await forgetful.click("text=Sign in with single sign-on");
  await forgetful.waitForURL(`${base}/tenant/sso`);
  await shoot(forgetful, "sso-phone");
  await forgetful.fill("#organisation", "team-tea");
  await forgetful.click("button:has-text('Continue')");
  await forgetful.waitForSelector(".alert");
  expect((await forgetful.textContent(".alert")).includes("single sign-on"), "the page says why");
  expect((await forgetful.inputValue("#organisation")) === "team-tea", "the address is kept");
  await shoot(forgetful, "sso-refused-phone");
  await forgetful.goto(`${base}/tenant/sign-in`);
  await forgetful.click("text=Forgot your password?");
  await forgetful.waitForURL(`${base}/tenant/forgot-password`);
  await shoot(forgetful, "forgot-password-phone");
  await forgetful.goto(resetLink);
  expect((await forgetful.inputValue("#email")) === editor, "the reset page names the address");
  await shoot(forgetful, "reset-password-phone");
  await forgetful.fill("#password", "a fresh start password");
  await forgetful.click("button:has-text('Set the password')");
  await forgetful.waitForURL(`${base}/tenant`);
  expect((await forgetful.textContent(".notice")).includes("every other session"), "the notice says what happened");
  await shoot(forgetful, "reset-done-phone");

  const desktop = await (await browser.newContext({ viewport: { width: 1100, height: 900 } })).newPage();
  await desktop.goto(`${base}/tenant/sign-in`);
  await desktop.fill("#email", editor);
  await desktop.fill("#password", "a fresh start password");
  await desktop.press("#password", "Enter");
  await desktop.waitForURL(`${base}/tenant`);
  await desktop.goto(`${base}/tenant/account`);
  await shoot(desktop, "account");
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
    if (step === "invite") await invite(browser);
    else if (step === "reset") await reset(browser);
    else throw new Error(`no step ${step}`);
    check();
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  console.error(`browser members test failed: ${error.stack || error}`);
  process.exit(1);
});
