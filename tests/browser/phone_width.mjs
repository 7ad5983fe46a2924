// Phone-width cases of the browser tests (issue #27, item 19): at 390 CSS px wide (an iPhone
// 12-15 in portrait) nothing may stick out sideways, neither on the player's verifier
// (web/verify.html) nor on the audit HTML (`fairdeck audit --html`, the same page fairdeckd
// serves at /v1/tables/{t}/audit?format=html). Run by verify_page_test.mjs.
//
// "Nothing overflows": the document is no wider than the viewport (scrollWidth <= 390), and
// every visible element's box lies within 0..390 unless it sits inside a container that
// scrolls sideways by itself (overflow-x auto/scroll, e.g. a wide table's wrapper), which must
// then fit. Inside an <svg> only the <svg> box counts (it clips its own drawing).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

export const PHONE = { width: 390, height: 844 };

// Runs in the page: a list of what sticks out (empty when everything fits).
function overflowsInPage() {
  const vw = document.documentElement.clientWidth, found = [];
  const name = (el) => el.tagName.toLowerCase() + (el.id ? `#${el.id}` : "") + (el.classList.length ? `.${[...el.classList].join(".")}` : "");
  if (document.documentElement.scrollWidth > vw) found.push(`the document is ${document.documentElement.scrollWidth} px wide in a ${vw} px viewport`);
  const scrollsOrClips = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      if (p instanceof SVGElement) return true;
      if (["auto", "scroll"].includes(getComputedStyle(p).overflowX)) return true;
    }
    return false;
  };
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || scrollsOrClips(el)) continue;
    if (r.left < -0.5 || r.right > vw + 0.5)
      found.push(`${name(el)} spans x = ${r.left.toFixed(0)}..${r.right.toFixed(0)} ("${(el.textContent || "").trim().slice(0, 50)}")`);
  }
  return found;
}

// Loads url at phone width, waits for ready (a function run in the page), checks the overflow.
async function phoneCase(context, report, name, url, ready, shot) {
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  try {
    await page.setViewportSize(PHONE);
    await page.goto(url);
    if (ready) await page.waitForFunction(ready, null, { timeout: 120000 });
    // Open every folded <details> so what is inside is measured, too.
    await page.evaluate(() => document.querySelectorAll("details").forEach((d) => { d.open = true; }));
    const found = await page.evaluate(overflowsInPage);
    const viewport = await page.evaluate(() => document.querySelector('meta[name="viewport"]')?.content ?? "");
    if (shot) await page.screenshot({ path: shot });
    const problems = [...found.slice(0, 8), ...errors];
    if (!/width=device-width/.test(viewport)) problems.unshift(`no <meta name="viewport" content="width=device-width…"> (got "${viewport}")`);
    report(problems.length === 0, `${name} fits a ${PHONE.width}-px-wide phone screen`, problems.join("\n     "));
  } catch (e) {
    report(false, `${name} at ${PHONE.width} px`, e.message.split("\n")[0]);
  } finally {
    await page.close();
  }
}

// Decks as indices (docs/cli-audit.md "Input format"), from a seeded Fisher-Yates: n cards, count decks.
function indexDecks(n, count) {
  let x = 12345;
  const next = () => { x = (x * 1103515245 + 12345) % 2147483648; return x; };
  const lines = [];
  for (let d = 0; d < count; d++) {
    const deck = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) { const j = next() % (i + 1); [deck[i], deck[j]] = [deck[j], deck[i]]; }
    lines.push(deck.join(" "));
  }
  return lines.join("\n") + "\n";
}

// verifyCases: [name, fragment] of verify.html states to measure (a verified deal with its cards,
// a failed log whose reason holds 64-digit hashes, ...). localFiles: URLs the observer allows.
// shots: a folder for a screenshot of each case (PHONE_SHOTS=DIR), to look at them.
export async function phoneWidthCases({ context, report, fairdeck, work, pageUrl, localFiles, verifyCases, shots }) {
  const settled = () => ["verified", "failed", "unrevealed"].includes(document.getElementById("verdict").dataset.result)
    && document.getElementById("vectors").dataset.result !== "pending";
  for (const [name, hash, shot] of verifyCases)
    await phoneCase(context, report, `verify.html: ${name}`, pageUrl + hash, hash ? settled : () => document.getElementById("vectors").dataset.result !== "pending",
      shot && shots ? path.join(shots, shot) : null);

  // The audit HTML: a simulated audit of two algorithms (several pairs: contents, folded pairs),
  // and decks from input as fairdeckd audits a table (a 2-deck shoe: the heat map in blocks).
  const reports = [
    ["audit HTML, two algorithms", ["audit", "--algorithm", "fisher-yates", "--algorithm", "naive", "--trials", "3000", "--seed", "3"]],
    ["audit HTML, decks from input (2-deck shoe)", ["audit", "--input", "decks.txt", "--format", "indices"]],
  ];
  fs.writeFileSync(path.join(work, "decks.txt"), indexDecks(104, 400));
  for (const [i, [name, args]] of reports.entries()) {
    const file = path.join(work, `audit-${i}.html`);
    try {
      execFileSync(fairdeck, [...args, "--html", file], { cwd: work, stdio: ["ignore", "ignore", "pipe"] });
    } catch (e) {
      if (!fs.existsSync(file)) { report(false, name, `fairdeck ${args.join(" ")} wrote no HTML: ${String(e.stderr).trim()}`); continue; }
    }
    const url = pathToFileURL(file).href;
    localFiles.add(url);
    await phoneCase(context, report, name, url, null, shots ? path.join(shots, `audit-${i}-phone.png`) : null);
  }
}

// The same check for HTML fetched from a live fairdeckd (its /audit?format=html): written to a file first.
export async function phoneWidthOfHtml({ context, report, work, localFiles, name, html }) {
  const file = path.join(work, `${name.replace(/[^A-Za-z0-9]+/g, "-")}.html`);
  fs.writeFileSync(file, html);
  const url = pathToFileURL(file).href;
  localFiles.add(url);
  await phoneCase(context, report, name, url, null, null);
}
