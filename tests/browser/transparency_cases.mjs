// The page's transparency-log checks (web/verify.html, block 4b) in Chromium: receipts and signed
// checkpoints from docs/examples/transparency/ (written by the library:
// tests/service/transparency_example_test.cpp), and the attacks of issue #29 on them. Called
// from verify_page_test.mjs.
import fs from "node:fs";
import path from "node:path";

export async function transparencyCases({ source, runCase, b64url }) {
  const dir = path.join(source, "docs/examples/transparency");
  const read = (n) => fs.readFileSync(path.join(dir, n), "utf8");
  const key = read("log.vkey").trim();
  const log = JSON.parse(read("log.json"));
  const link = ({ receipt, log: l, checkpoints = [] }) =>
    "#" + [`key=${b64url(key)}`, receipt && `receipt=${b64url(receipt)}`, l && `log=${b64url(l)}`,
           ...checkpoints.map((c) => `checkpoint=${b64url(c)}`)].filter(Boolean).join("&");
  const cp6 = read("checkpoint-6.note"), cp10 = read("checkpoint-10.note"), forkedCp = read("checkpoint-10-rewritten.note");
  const deal3 = read("deal-3.json"), deal8 = read("deal-8.json");

  await runCase("transparency: receipt + whole log + two checkpoints, seed revealed", {
    hash: link({ receipt: deal3, log, checkpoints: [cp6, cp10] }), expect: "verified",
    reason: /record 3, is in the log the operator signed at size 4/, headline: /^Verified/ });
  await runCase("transparency: receipt alone, seed not revealed: waiting, never NOT verified", {
    hash: link({ receipt: deal3 }), expect: "unrevealed", headline: /waiting for the reveal/, notHeadline: /NOT/ });
  await runCase("transparency: receipt + whole log, its seed still in force", {
    hash: link({ receipt: deal8, log, checkpoints: [cp10] }), expect: "unrevealed", headline: /waiting for the reveal/, notHeadline: /NOT/ });
  await runCase("transparency attack: deal rewritten after the reveal, caught by the receipt", {
    hash: link({ receipt: deal3, log: JSON.parse(read("log-rewritten.json")) }), expect: "failed",
    headline: /not the one your receipt proves/ });
  await runCase("transparency attack: deal rewritten after the reveal, caught by an earlier checkpoint", {
    hash: link({ log: JSON.parse(read("log-rewritten.json")), checkpoints: [cp6] }), expect: "failed",
    headline: /rewritten or forked/ });
  await runCase("transparency attack: tail cut, caught by a later checkpoint", {
    hash: link({ log: { ...log, records: log.records.slice(0, 7) }, checkpoints: [cp10] }), expect: "failed",
    headline: /tail was cut/ });
  await runCase("transparency attack: tail cut, caught by the receipt", {
    hash: link({ receipt: deal8, log: { ...log, records: log.records.slice(0, 8) } }), expect: "failed",
    headline: /not in the log/ });
  await runCase("transparency attack: dropped prefix is partial, never whole", {
    hash: link({ log: JSON.parse(read("log-after-3.json")), checkpoints: [cp10] }), expect: "verified",
    headline: /partial log/, notHeadline: /whole/ });
  await runCase("transparency attack: two signed checkpoints of one size conflict (fork)", {
    hash: link({ receipt: deal8, checkpoints: [cp10, forkedCp] }), expect: "failed", headline: /different roots: the log forked/ });
  const handsLog = JSON.parse(read("hands-log.json")), handDeal = read("hands-deal-6.json");
  await runCase("transparency: a hand's deal receipt + whole log (seat commitments), seed revealed", {
    hash: link({ receipt: handDeal, log: handsLog }), expect: "verified", headline: /^Verified/ });
  await runCase("transparency: a hand's deal receipt alone", {
    hash: link({ receipt: handDeal }), expect: "unrevealed", headline: /waiting for the reveal/, notHeadline: /NOT/ });
  await runCase("transparency attack: a hand re-dealt from another shoe after its seeds were public", {
    hash: link({ log: JSON.parse(read("hands-log-other-shoe.json")) }), expect: "failed",
    headline: /shoe \(2 decks, 2 jokers\) is not the table's/ });
  await runCase("transparency: a checkpoint edited after signing", {
    hash: link({ log, checkpoints: [cp6.replace("\n6\n", "\n5\n")] }), expect: "failed", headline: /signature does not verify/ });
  await runCase("transparency: another log's key", {
    hash: "#" + [`key=${b64url("other.example+00000000+AQ" + "A".repeat(42) + "=")}`, `receipt=${b64url(deal3)}`].join("&"),
    expect: "failed", headline: /NOT verified/ });
  await runCase("transparency: the form (key, receipt, checkpoints typed in)", {
    act: async (page) => {
      await page.fill("#f-tkey", key);
      await page.fill("#f-treceipt", deal3);
      await page.fill("#f-tcp", cp6 + cp10);
      await page.fill("#f-log", JSON.stringify(log));
      await page.click("#check-tlog");
    },
    expect: "verified", headline: /^Verified/,
    check: async (page) => ((await page.textContent("#ed25519-support")).includes("verifies Ed25519") ? [] : ["the page says it cannot check Ed25519"]) });
}
