// Browser tests of the player's verifier (web/verify.html, docs/verify-page.md) in Debian's
// Chromium, driven headless by playwright-core (no browser download). Every case loads the page
// that `fairdeck fair page -o` writes, from file://, and reads the verdict element.
//
//   node verify_page_test.mjs --fairdeck BIN --source DIR [--out DIR] [--shots DIR]
//   env CHROMIUM (default /usr/bin/chromium); FAIRDECKD=path/to/fairdeckd adds the live-service case.
//
// Checked in every case: the verdict, its reason, no console error or page error, and no request
// other than the page's own file (all requests are observed; anything else fails the run).
// The verdict's data-result ends as "verified", "failed" or "unrevealed" (a deal whose server
// seed is still secret: neutral, never "NOT verified"). phone_width.mjs checks that this page
// and the audit HTML (`fairdeck audit --html`) fit a 390-px-wide phone screen.
import crypto from "node:crypto";
import { chromium } from "playwright-core";
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

// ------------------------------------------------------------------ set-up
const opt = { chromium: process.env.CHROMIUM || "/usr/bin/chromium" };
for (let i = 2; i < process.argv.length; i += 2) opt[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
if (!opt.fairdeck || !opt.source) { console.error("usage: verify_page_test.mjs --fairdeck BIN --source DIR [--out DIR] [--shots DIR]"); process.exit(2); }
for (const k of ["fairdeck", "source", "out", "shots"]) if (opt[k]) opt[k] = path.resolve(opt[k]);
const work = fs.mkdtempSync(path.join(os.tmpdir(), "fairdeck-verify-page-"));
const out = opt.out || work;
fs.mkdirSync(out, { recursive: true });
const pageFile = path.join(out, "verify.html");
const pageUrl = pathToFileURL(pageFile).href;
const localFiles = new Set([pageUrl]);  // files the pages may load: this page, and the audit HTML written below

const fairdeck = (...args) => execFileSync(opt.fairdeck, args, { cwd: work, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const genLog = (spec) => JSON.parse(execFileSync("python3", [path.join(opt.source, "tests/browser/gen_log.py"), JSON.stringify(spec)], { encoding: "utf8" }));
const b64url = (obj) => Buffer.from(typeof obj === "string" ? obj : JSON.stringify(obj), "utf8").toString("base64url");
const clone = (o) => JSON.parse(JSON.stringify(o));

// The page the CLI embeds must be byte-identical to the source file.
fairdeck("fair", "page", "-o", pageFile);
if (!fs.readFileSync(pageFile).equals(fs.readFileSync(path.join(opt.source, "web/verify.html"))))
  throw new Error("fairdeck fair page -o wrote a page that differs from web/verify.html");

const userDataDir = path.join(work, "profile");
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: opt.chromium, headless: true, viewport: { width: 1000, height: 900 },
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"],
});
const foreignRequests = [];
let pageLoads = 0, pagesOpened = 0;  // the observer must see every load of the page itself
context.on("request", (r) => { if (localFiles.has(r.url().split("#")[0])) pageLoads++; else foreignRequests.push(r.url()); });
context.on("page", () => pagesOpened++);
await context.route(/^(?!file:)/, (route) => { foreignRequests.push(route.request().url()); return route.abort(); });

let failures = 0, passes = 0;
function report(ok, name, detail) {
  if (ok) passes++; else failures++;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok ? "" : `\n     ${detail}`}`);
}

// Opens the page (optionally with a fragment), lets `act` drive it, waits for the verdict.
// reason: a pattern the verdict and the details must show; headline: one the verdict itself must
// show; notHeadline: one it must not show; check(page): more problems, as a list of strings.
async function runCase(name, { hash = "", act, expect, reason, headline, notHeadline, check, shot }) {
  const page = await context.newPage();
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(e.message));
  try {
    await page.goto(pageUrl + hash);
    if (act) await act(page);
    await page.waitForFunction(() => ["verified", "failed", "unrevealed"].includes(document.getElementById("verdict").dataset.result), null, { timeout: 120000 });
    const result = await page.getAttribute("#verdict", "data-result");
    const verdict = await page.textContent("#verdict");
    const text = verdict + "\n" + (await page.textContent("#checks"));
    if (shot) await page.screenshot({ path: shot, fullPage: false });
    const problems = [];
    if (result !== expect) problems.push(`verdict ${result}, expected ${expect}`);
    if (reason && !reason.test(text)) problems.push(`reason does not match ${reason}`);
    if (headline && !headline.test(verdict)) problems.push(`the verdict does not match ${headline}`);
    if (notHeadline && notHeadline.test(verdict)) problems.push(`the verdict matches ${notHeadline}`);
    if (check) problems.push(...await check(page));
    if (errors.length) problems.push(`console errors: ${errors.join(" | ")}`);
    report(problems.length === 0, name, `${problems.join("; ")}\n     page said: ${text.replace(/\n/g, " / ").slice(0, 600)}`);
  } catch (e) {
    report(false, name, e.message.split("\n")[0]);
  } finally {
    await page.close();
  }
}
const dealCase = (name, deal, expect, reason, shot, more = {}) => runCase(name, { hash: `#deal=${b64url(deal)}`, expect, reason, shot, ...more });
const logCase = (name, log, expect, reason, more = {}) => runCase(name, { hash: `#log=${b64url(log)}`, expect, reason, ...more });

// ------------------------------------------------------------------ 1. the page's own test vectors
{
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  const t0 = Date.now();
  await page.goto(pageUrl);
  await page.waitForFunction(() => document.getElementById("vectors").dataset.result !== "pending", null, { timeout: 120000 });
  const seconds = (Date.now() - t0) / 1000;
  const result = await page.getAttribute("#vectors", "data-result");
  const rows = await page.$$eval("#vector-rows tr", (trs) => trs.map((tr) => [tr.cells[0].textContent, tr.cells[1].textContent]));
  const failed = rows.filter(([, r]) => r !== "pass");
  report(result === "verified" && rows.length === 17 && failed.length === 0 && errors.length === 0,
    `test vectors panel: ${rows.length - failed.length}/${rows.length} pass in ${seconds.toFixed(1)} s (incl. vector 3, 53000 cards)`,
    `result ${result}; failing: ${JSON.stringify(failed)}; errors: ${errors.join(" | ")}`);
  await page.close();
}

// ------------------------------------------------------------------ 2. deals from the real CLI
function cliDeal(seedFile, seats, nonce, extra = []) {
  const seatArgs = seats.flatMap((s) => ["--client-seed", s]);
  let deal, viaCli = true;
  try {
    deal = JSON.parse(fairdeck("fair", "deal", "--server-seed-file", seedFile, ...seatArgs, "--nonce", nonce, "--json", ...extra));
  } catch (e) {
    if (seats.length < 2) throw e;
    // This fairdeck takes one --client-seed: deal with the hand's seed derived by Python instead.
    viaCli = false;
    const derived = execFileSync("python3", ["-c", `import hashlib,sys; s=sys.argv[1:]; print(hashlib.sha256(b"fairdeck-seats-v1:"+b"".join(b"%d:%s,"%(len(x.encode()),x.encode()) for x in s)).hexdigest())`, ...seats], { encoding: "utf8" }).trim();
    deal = JSON.parse(fairdeck("fair", "deal", "--server-seed-file", seedFile, "--client-seed", derived, "--nonce", nonce, "--json", ...extra));
  }
  const { server_seed } = JSON.parse(fairdeck("fair", "reveal", "--server-seed-file", seedFile, "--json"));
  return { deal: { ...deal, server_seed, ...(seats.length > 1 ? { seat_seeds: seats } : {}) }, viaCli };
}

const seedFile = path.join(work, "table.seed");
const { commitment } = JSON.parse(fairdeck("fair", "commit", "--out", seedFile, "--json"));
const single = cliDeal(seedFile, ["player one ♠"], "0").deal;
const holdem = cliDeal(seedFile, ["p"], "18446744073709551615", ["--game", "holdem", "--players", "6", "--decks", "2", "--jokers", "3"]).deal;
const multiRun = cliDeal(seedFile, ["alice", "Bob ♠", "a:b,c"], "7");
const multi = multiRun.deal;
if (single.commitment !== commitment) throw new Error("fair deal reported another commitment than fair commit");

await dealCase("CLI deal, one seat", single, "verified", /All 52 cards are exactly/);
await dealCase("CLI deal, hold'em 6 players, 2 decks + 3 jokers, nonce 2^64-1", holdem, "verified", /hold'em hands and the board/);
await dealCase("CLI deal, --unicode suits, a joker, 4 hands of 5 round the table",
  cliDeal(seedFile, ["u"], "3", ["--unicode", "--jokers", "1", "--hands", "4", "--cards", "5"]).deal, "verified", /4 hands are dealt round the table/);
await dealCase(`CLI deal, three seats (${multiRun.viaCli ? "fair deal --client-seed x3" : "hand seed derived in Python; this fairdeck takes one --client-seed"})`,
  multi, "verified", /derived from the 3 seats/);

// Each tampered field is rejected, with the reason named.
const flipHex = (h) => (h[0] === "0" ? "1" : "0") + h.slice(1);
const tamper = (name, base, edit, reason, shot) => { const d = clone(base); edit(d); return dealCase(`tampered deal rejected: ${name}`, d, "failed", reason, shot); };
await tamper("server seed", single, (d) => { d.server_seed = flipHex(d.server_seed); }, /not the one committed to/);
await tamper("commitment", single, (d) => { d.commitment = flipHex(d.commitment); }, /not the one committed to/);
await tamper("client seed", single, (d) => { d.client_seed += "x"; delete d.seat_seeds; }, /Position \d+ \(card \d+ dealt\): the spec deals/);
await tamper("client seed against its seat seed", single, (d) => { d.client_seed += "x"; }, /hand's client seed is .*, not the published/);
await tamper("nonce", single, (d) => { d.nonce = "1"; }, /Position \d+ \(card \d+ dealt\): the spec deals/);
await tamper("nonce with a leading zero", single, (d) => { d.nonce = "00"; }, /not a canonical decimal integer/);
await tamper("one card", single, (d) => { d.cards[17] = d.cards[17] === "Ah" ? "Kh" : "Ah"; }, /Position 17 \(card 18 dealt\): the spec deals/);
// Positions count from 0, as in the CLI (`fair verify`: "position 2 (card 3 dealt)") and the docs.
await dealCase("card tiles numbered from position 0, as the CLI and docs", (() => { const d = clone(single); d.cards[17] = d.cards[17] === "Ah" ? "Kh" : "Ah"; return d; })(),
  "failed", null, null, { check: async (page) => {
    const tiles = await page.$$eval("#cards li", (lis) => lis.map((li) => [li.querySelector(".pos").textContent, li.getAttribute("aria-label"), li.className]));
    const label = await page.getAttribute("#cards", "aria-label");
    const problems = [];
    if (tiles.length !== 52) problems.push(`${tiles.length} tiles`);
    else {
      if (tiles[0][0] !== "0" || !tiles[0][1].startsWith("position 0:") || tiles[51][0] !== "51") problems.push(`first/last tile ${JSON.stringify([tiles[0], tiles[51]])}`);
      if (tiles[17][2] !== "bad" || !tiles[17][1].startsWith("position 17:")) problems.push(`the wrong card is not tile 17: ${JSON.stringify(tiles[17])}`);
    }
    if (!/position 0 dealt first/.test(label)) problems.push(`the deck's label is "${label}"`);
    return problems;
  } });
await tamper("two cards swapped", single, (d) => { [d.cards[0], d.cards[51]] = [d.cards[51], d.cards[0]]; }, /Position 0 \(card 1 dealt\): .*2 positions differ/s);
await tamper("a card missing", single, (d) => { d.cards.pop(); }, /holds 52 cards, the claim has 51/);
await tamper("decks", single, (d) => { d.decks = 2; }, /holds 104 cards/);
await tamper("a hold'em hole card", holdem, (d) => { d.seats[2][1] = d.seats[2][1] === "Ah" ? "Kh" : "Ah"; }, /hold'em hands or board shown do not match/);
await tamper("one seat's seed", multi, (d) => { d.seat_seeds[1] = "Bob"; }, /hand's client seed is [0-9a-f]{64}, not the published/);
await tamper("seat order", multi, (d) => { d.seat_seeds.reverse(); }, /not the published/);
// Before the reveal nothing is wrong yet: a neutral "not revealed yet", never a red "NOT verified";
// what can be checked already (the hand's client seed from its seats) still is.
await dealCase("deal before the seed is revealed: neutral, not failed", { ...single, server_seed: undefined }, "unrevealed",
  /client seed[\s\S]*cards cannot be checked until/, null,
  { headline: /^Not revealed yet: .*check again after the server seed is rotated and revealed/i, notHeadline: /NOT verified|fail/i });
await dealCase("deal before the seed is revealed, three seats", { ...multi, server_seed: undefined }, "unrevealed", /derived from the 3 seats/, null,
  { headline: /^Not revealed yet/ });
await tamper("seat order, before the seed is revealed", { ...multi, server_seed: undefined }, (d) => { d.seat_seeds.reverse(); }, /not the published/);
await runCase("typed form without the server seed: neutral", {
  expect: "unrevealed", headline: /^Not revealed yet/,
  act: async (page) => {
    await page.fill("#f-commit", single.commitment);
    await page.fill("#f-seats", single.client_seed);
    await page.fill("#f-nonce", single.nonce);
    await page.fill("#f-cards", single.cards.join(" "));
    await page.click("#deal-form button[type=submit]");
  },
});

// ------------------------------------------------------------------ 3. the typed form, the pasted JSON and a dropped file
await runCase("typed into the form (keyboard only), cards with 10 and suit symbols", {
  expect: "verified", reason: /All 52 cards/,
  act: async (page) => {
    const sym = { c: "♣", d: "♦", h: "♥\uFE0F", s: "♠" };  // a heart as an emoji, too
    await page.fill("#f-seed", single.server_seed);
    await page.fill("#f-commit", single.commitment);
    await page.fill("#f-seats", single.client_seed);
    await page.fill("#f-nonce", single.nonce);
    await page.fill("#f-cards", single.cards.map((c, i) => (i % 2 ? c.replace("T", "10") : c[0] + sym[c[1]])).join(", "));
    await page.focus("#f-cards");
    await page.keyboard.press("Tab");  // the "Check this deal" button
    await page.keyboard.press("Enter");
  },
});
await runCase("pasted JSON, one card changed in the form afterwards", {
  expect: "failed", reason: /Position 2 \(card 3 dealt\):/,
  act: async (page) => {
    await page.fill("#f-json", JSON.stringify(single));
    await page.click("#load-json");
    await page.waitForFunction(() => document.getElementById("verdict").dataset.result === "verified");
    const cards = [...single.cards]; cards[2] = cards[2] === "2c" ? "3c" : "2c";
    await page.fill("#f-cards", cards.join(" "));
    await page.click("#deal-form button[type=submit]");
  },
});
await runCase("dropped log file", {
  expect: "verified", headline: /records 0\.\.2 check out, from the table's open record/,
  act: async (page) => {
    const text = JSON.stringify(genLog({ table: "drop", seats: 1, seeds: ["11".repeat(32), "22".repeat(32)], events: ["deal", "rotate"] }));
    const dt = await page.evaluateHandle((t) => { const d = new DataTransfer(); d.items.add(new File([t], "log.json", { type: "application/json" })); return d; }, text);
    await page.dispatchEvent("#log-drop", "drop", { dataTransfer: dt });
  },
});

// ------------------------------------------------------------------ 4. logs
const docs = fs.readFileSync(path.join(opt.source, "docs/log-format.md"), "utf8");
const example = { table: "demo", records: JSON.parse(/```json\n([\s\S]*?)\n```/.exec(docs)[1]) };
await logCase("docs/log-format.md example log", example, "verified", /1 deal\(s\) re-dealt/);

const seeds = ["000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "ab".repeat(32), "cd".repeat(32), "ef".repeat(32)];
const bigSpec = { table: "t-big_1", seats: 3, decks: 2, jokers: 1, seeds,
  events: ["deal", ["deal", ["x", "y ♥", "z:1,"]], "rotate", "deal", "deal", "deal", "rotate", "deal", "rotate", "deal", "deal"] };
const big = genLog(bigSpec);
await logCase("generated log: 3 seats, 2 decks + joker, 3 rotations, 8 deals", big, "verified", /6 deal\(s\) re-dealt[\s\S]*2 deal\(s\) under the seed still in force/);
await logCase("generated log: one seat, opened only", genLog({ seats: 1, seeds, events: [] }), "verified", /No deals yet/);
await logCase("partial log (records after seq 3)", { table: big.table, records: big.records.slice(4) }, "verified", /partial log/,
  { headline: /^Verified: records 4\.\.11 check out; this is not the whole log \(it does not start at the table's open record\)/, notHeadline: /whole log checks out/ });
await logCase("first page of a log (next_after: more records follow)", { table: big.table, records: big.records.slice(0, 5), next_after: 4 }, "verified",
  /next_after/, { headline: /^Verified: records 0\.\.4 check out; this is not the whole log \(more records may follow after seq 4\)/ });
await logCase("middle page of a log", { table: big.table, records: big.records.slice(3, 7), next_after: "6" }, "verified", null,
  { headline: /records 3\.\.6 check out; this is not the whole log \(it does not start at the table's open record, and more records may follow after seq 6\)/ });
await logCase("whole log: says which records and how to know it is the latest", big, "verified",
  /last record, seq 11, has hash [0-9a-f]{64}/, { headline: /^Verified: records 0\.\.11 check out, from the table's open record/ });

const logTamper = (name, edit, reason) => { const l = clone(big); edit(l.records); return logCase(`tampered log rejected: ${name}`, l, "failed", reason); };
await logCase("tampered log rejected: the docs example with one card changed", (() => { const l = clone(example); l.records[1].cards = l.records[1].cards.replace("4s Jd", "Jd 4s"); return l; })(),
  "failed", /seq 1, deal\) fails rule 2: its hash is/);
await logTamper("one record's time edited", (r) => { r[5].time = "2026-11-23T13:00:00.000Z"; }, /seq 5, deal\) fails rule 2/);
await logTamper("one record edited and re-hashed", (r) => { r[5].time = "2026-11-23T13:00:00.000Z"; r[5].hash = "0".repeat(64); }, /seq 5, deal\) fails rule 2/);
await logTamper("two records swapped", (r) => { [r[4], r[5]] = [r[5], r[4]]; }, /records\[4\] of 12 \(seq 5, deal\) fails rule 1: seq 5 where 4 was expected/);
await logTamper("a record removed", (r) => { r.splice(6, 1); }, /fails rule 1: seq 7 where 6 was expected/);
await logTamper("a record repeated", (r) => { r.splice(6, 0, clone(r[6])); }, /fails rule 1/);
await logTamper("another table's name", (r) => { r[3].table = "other"; }, /names table "other"/);
await logTamper("record 0 not an open", (r) => { r[0].type = "rotate"; }, /record 0 is not an open record/);
const chainTamper = (name, mutate, reason) => logCase(`tampered log rejected (hash chain sound): ${name}`, genLog({ ...bigSpec, mutate }), "failed", reason);
await chainTamper("a skipped nonce", [{ seq: 5, field: "nonce", value: 4 }], /seq 5, deal\) fails rule 3: nonce 4 where 3 was expected/);
await chainTamper("a repeated nonce", [{ seq: 5, field: "nonce", value: 2 }], /fails rule 3: nonce 2 where 3 was expected \(a deal repeats a nonce\)/);
await chainTamper("a deal under a stale commitment", [{ seq: 4, field: "commitment", value: "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd" }], /seq 4, deal\) fails rule 4/);
await chainTamper("a revealed seed that is not the committed one", [{ seq: 3, field: "revealed_seed", value: "ee".repeat(32) }], /seq 3, rotate\) fails rule 4: the revealed seed hashes to/);
await chainTamper("client seed not derived from the seats", [{ seq: 2, field: "client_seed", value: "x" }], /seq 2, deal\) fails rule 5: client_seed x is not the derivation/);
{
  const good = genLog(bigSpec), cards = good.records[4].cards.split(" ");
  [cards[10], cards[11]] = [cards[11], cards[10]];
  await chainTamper("two cards swapped in a revealed deal", [{ seq: 4, field: "cards", value: cards.join(" ") }],
    new RegExp(`seq 4, deal\\) fails rule 5: position 10 \\(card 11 dealt\\) should be ${cards[11]}`));
  const one = good.records[8].cards.split(" ");
  one[0] = one[0] === "Ah" ? "Kh" : "Ah";
  await chainTamper("one card in a revealed deal", [{ seq: 8, field: "cards", value: one.join(" ") }], /seq 8, deal\) fails rule 5: position 0 \(card 1 dealt\) should be/);
}
await logCase("not a log", { records: "x" }, "failed", /not \{"table"/);
await runCase("a broken link fragment", { hash: "#log=%%%", expect: "failed", reason: /not deal=… or log=…/ });

// ------------------------------------------------------------------ 4b. a phone's width (390 px): verify.html and the audit HTML
{
  const { phoneWidthCases } = await import("./phone_width.mjs");
  const hexFail = clone(big); hexFail.records[5].time = "2026-11-23T13:00:00.000Z";  // its reason names two 64-digit hashes
  const bad = clone(single); bad.cards[4] = bad.cards[4] === "Ah" ? "Kh" : "Ah";
  await phoneWidthCases({ context, report, fairdeck: opt.fairdeck, work, pageUrl, localFiles, shots: process.env.PHONE_SHOTS, verifyCases: [
    ["empty page with the test vectors", "", "verify-empty-phone.png"],
    ["verified hold'em deal (2 decks + 3 jokers: 107 card tiles)", `#deal=${b64url(holdem)}`, "verify-holdem-phone.png"],
    ["failed deal", `#deal=${b64url(bad)}`, "verify-failed-phone.png"],
    ["deal whose seed is not revealed yet", `#deal=${b64url({ ...single, server_seed: undefined })}`, "verify-unrevealed-phone.png"],
    ["log failing on a hash (64-digit hashes in the verdict)", `#log=${b64url(hexFail)}`, "verify-log-hash-phone.png"],
    ["verified log (one line per deal)", `#log=${b64url(big)}`, "verify-log-phone.png"],
  ] });
}

// ------------------------------------------------------------------ 4b. hands with seat commitments (issue #30)
const handExample = { table: "demo", records: JSON.parse(/## Example: a hand[\s\S]*?```json\n([\s\S]*?)\n```/.exec(docs)[1]) };
await logCase("docs/log-format.md hand example", handExample, "verified", /1 hand\(s\) with seat commitments[\s\S]*1 dealt from exactly the revealed seeds/);
// An operator that rewrites the log and re-chains it (hashes recomputed here, as it would).
const HAND_FIELDS = { open: ["seats", "decks", "jokers", "commitment"], rotate: ["revealed_seed", "commitment", "next_commitment"],
  hand_open: ["hand", "nonce", "commitment", "seats"], commit: ["hand", "seat", "seat_commitment"], reveal: ["hand", "seat", "client_seed"],
  hand_deal: ["hand", "nonce", "commitment", "seat_seeds", "client_seed", "decks", "jokers", "cards"], abort: ["hand", "nonce", "uncommitted", "unrevealed"] };
const rechain = (records) => {
  let prev = "0".repeat(64);
  records.forEach((r, i) => {
    r.seq = i; r.prev_hash = prev;
    let text = `fairdeck-log-v1\nseq=${r.seq}\nprev_hash=${r.prev_hash}\ntype=${r.type}\ntable=${r.table}\ntime=${r.time}\n`;
    for (const f of HAND_FIELDS[r.type]) {
      if (f === "seat_seeds") for (const x of r.seat_seeds) text += `seat_seed=${x}\n`;
      else text += `${f}=${Array.isArray(r[f]) ? r[f].join(" ") : r[f]}\n`;
    }
    r.hash = crypto.createHash("sha256").update(text, "utf8").digest("hex");
    prev = r.hash;
  });
  return records;
};
const handTamper = (name, edit, reason) => { const l = clone(handExample); edit(l.records); rechain(l.records); return logCase(`re-chained hand log rejected: ${name}`, l, "failed", reason); };
await logCase("re-chaining alone changes nothing", { table: "demo", records: rechain(clone(handExample).records) }, "verified", /1 hand\(s\)/);
await handTamper("a reveal before every commit", (r) => { [r[3], r[4]] = [r[4], r[3]]; }, /fails rule 6: seat 1 revealed before every seat of hand 1 committed/);
await handTamper("a reveal that is not the committed seed", (r) => { r[5].client_seed = "bob2"; }, /fails rule 6: seat 2's revealed seed does not hash to its commitment/);
await handTamper("a hand dealt twice", (r) => { r.splice(7, 0, clone(r[6])); }, /fails rule 6: hand_deal for hand 1, which is not in progress/);
await handTamper("a rotation during the hand", (r) => { r.splice(3, 0, clone(r[7])); }, /fails rule 4/);  // the hand's deal then names a retired commitment
// "Is my seed the one my seat committed?", from the fragment, with the deal answer kept.
const seatCase = (name, o, expect, reason) => runCase(name, { hash: `#seat=${b64url({ log: handExample, ...o })}`, expect, reason });
const dealRec = handExample.records[6];
await seatCase("my seat: my seed, kept answer in the log", { hand: 1, seat: 2, seed: "bob", kept: `${dealRec.seq} ${dealRec.hash}` }, "verified",
  /My seed is the one seat 2 committed in hand 1[\s\S]*The deal answer I kept \(seq 6\) is in this log/);
await seatCase("my seat: another seed", { hand: 1, seat: 2, seed: "alice" }, "failed", /NOT the one seat 2 committed in hand 1/);
await seatCase("my seat: a kept answer missing from the log (rolled back)", { hand: 1, seat: 1, seed: "alice", kept: { seq: 6, hash: "ab".repeat(32) } }, "failed",
  /is NOT in this log: the hand was rolled back/);

// ------------------------------------------------------------------ 5. screenshots for docs/
if (opt.shots) {
  const shot = (n) => path.join(opt.shots, n);
  await dealCase("screenshot: verified deal", holdem, "verified", null, shot("verify-page-verified.png"));
  const bad = clone(single); bad.cards[4] = bad.cards[4] === "Ah" ? "Kh" : "Ah";
  await dealCase("screenshot: failed deal", bad, "failed", null, shot("verify-page-failed.png"));
  await dealCase("screenshot: deal not revealed yet", { ...multi, server_seed: undefined }, "unrevealed", null, shot("verify-page-unrevealed.png"));
  await runCase("screenshot: verified log", { hash: `#log=${b64url(big)}`, expect: "verified", shot: shot("verify-page-log-verified.png") });
  // A phone's screen: a log with one skipped nonce (hash chain sound), named by the page.
  const skipped = genLog({ ...bigSpec, mutate: [{ seq: 5, field: "nonce", value: 4 }] });
  const page = await context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${pageUrl}#log=${b64url(skipped)}`);
  await page.waitForFunction(() => document.getElementById("verdict").dataset.result === "failed");
  await page.screenshot({ path: shot("verify-page-log-failed-phone.png") });
  await page.close();
}

// ------------------------------------------------------------------ 6. the live service (FAIRDECKD=path/to/fairdeckd)
if (process.env.FAIRDECKD) {
  const { liveServiceCases } = await import("./live_service.mjs");
  await liveServiceCases({ fairdeckd: path.resolve(process.env.FAIRDECKD), work, source: opt.source, dealCase, logCase, report, context, localFiles });
} else {
  console.log("skip live service case: set FAIRDECKD=path/to/fairdeckd to run it");
}

// ------------------------------------------------------------------ 7. receipts and signed checkpoints (transparency_cases.mjs)
{
  const { transparencyCases } = await import("./transparency_cases.mjs");
  await transparencyCases({ source: opt.source, runCase, b64url });
}

// ------------------------------------------------------------------ the network must never have been touched
report(foreignRequests.length === 0 && pageLoads === pagesOpened && pagesOpened > 40,
  `no request other than the page's own file (${pageLoads} loads of it observed in ${pagesOpened} pages)`,
  `foreign requests: ${foreignRequests.join(", ")}; page loads ${pageLoads} of ${pagesOpened}`);
await context.close();
fs.rmSync(work, { recursive: true, force: true });
console.log(`${passes} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
