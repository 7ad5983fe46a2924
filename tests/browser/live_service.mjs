// The live-service case of the browser tests: a real fairdeckd (API of issue 13, docs/service.md)
// opens a table, deals and rotates; the page must verify the deals and the log exactly as the
// service serves them, and reject a tampered copy. Run by verify_page_test.mjs when
// FAIRDECKD=path/to/fairdeckd is set.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

// Starts `fairdeckd serve` on a free port; resolves to its base URL once it prints its address.
function startServer(fairdeckd, db) {
  const server = spawn(fairdeckd, ["serve", "--db", db, "--listen", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "pipe"] });
  const ready = new Promise((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`fairdeckd printed no address within 30 s: ${seen}`)), 30000);
    const look = (chunk) => {
      seen += chunk;
      const m = /(127\.0\.0\.1:[1-9][0-9]*)/.exec(seen);
      if (m) { clearTimeout(timer); resolve(`http://${m[1]}`); }
    };
    server.stdout.on("data", look);
    server.stderr.on("data", look);
    server.on("exit", (code) => { clearTimeout(timer); reject(new Error(`fairdeckd exited (${code}) before listening: ${seen}`)); });
  });
  return { server, ready };
}

export async function liveServiceCases({ fairdeckd, work, source, dealCase, logCase, report, context, localFiles }) {
  const db = path.join(work, "live.db");
  let server;
  try {
    const { token } = JSON.parse(execFileSync(fairdeckd, ["init", "--db", db, "--json"], { encoding: "utf8" }));
    const started = startServer(fairdeckd, db);
    server = started.server;
    const base = await started.ready;
    // One request; returns the body as text (kept exact for the page) and parsed.
    const api = async (method, url, body) => {
      const res = await fetch(base + url, {
        method, headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${url}: HTTP ${res.status} ${text}`);
      return { text, json: text ? JSON.parse(text) : null };
    };

    const seats = ["alice ♠", "bob"];
    const { table } = (await api("POST", "/v1/tables", { seats: 2 })).json;
    for (const [i, s] of seats.entries()) await api("PUT", `/v1/tables/${table}/seats/${i + 1}/client-seed`, { client_seed: s });
    const deals = [];
    for (const body of [{}, {}, { game: "holdem" }]) deals.push((await api("POST", `/v1/tables/${table}/deals`, body)).json);

    const before = await api("GET", `/v1/tables/${table}/log`);
    await logCase("live service: log before the reveal (deals pending)", before.text, "verified", /3 deal\(s\) under the seed still in force/);

    // A deal response as served before the reveal: waiting, not failed.
    await dealCase("live service: deal 1 before the reveal is 'not revealed yet'", { ...deals[0], seat_seeds: seats }, "unrevealed",
      /derived from the 2 seats/, null, { headline: /^Not revealed yet/ });

    const { revealed_seed } = (await api("POST", `/v1/tables/${table}/rotate`, {})).json;
    const exposed = [before.text, ...deals.map((d) => JSON.stringify(d))].some((t) => t.includes(revealed_seed));
    report(!exposed, "live service: the seed never appeared before its rotation", "the seed was in a deal response or the log before rotate");

    const after = await api("GET", `/v1/tables/${table}/log`);
    await logCase("live service: whole log after the reveal", after.text, "verified", /3 deal\(s\) re-dealt/);
    for (const [i, d] of deals.entries())
      await dealCase(`live service: deal ${i + 1} (nonce ${d.nonce})`, { ...d, server_seed: revealed_seed, seat_seeds: seats }, "verified", /exactly the deck/);

    const tampered = JSON.parse(after.text);
    const rec = tampered.records.find((r) => r.type === "deal");
    rec.cards = rec.cards.split(" ").reverse().join(" ");
    await logCase("live service: log with one deal's cards reversed rejected", tampered, "failed", /fails rule 2/);

    // Paging: the first page of the log (?limit=2) is headlined as not the whole log.
    const page1 = await api("GET", `/v1/tables/${table}/log?limit=2`);
    await logCase("live service: first page of the log (?limit=2)", page1.text, "verified", null,
      { headline: /records 0\.\.1 check out; this is not the whole log \(more records may follow after seq 1\)/ });
    const rest = await api("GET", `/v1/tables/${table}/log?after=1`);
    await logCase("live service: the log after seq 1 (?after=1)", rest.text, "verified", null,
      { headline: /^Verified: records 2\.\.\d+ check out; this is not the whole log \(it does not start at the table's open record\)/ });

    // The public audit page (fairdeck audit --html's page) fits a phone.
    const audit = await fetch(`${base}/v1/tables/${table}/audit?format=html`);
    if (audit.status !== 200) report(false, "live service: /audit?format=html", `HTTP ${audit.status}`);
    else {
      const { phoneWidthOfHtml } = await import("./phone_width.mjs");
      await phoneWidthOfHtml({ context, report, work, localFiles, name: "live service: /audit?format=html", html: await audit.text() });
    }

    const served = Buffer.from(await (await fetch(`${base}/verify`)).arrayBuffer());
    report(served.equals(fs.readFileSync(path.join(source, "web/verify.html"))), "live service: GET /verify is byte-identical to web/verify.html",
      `served ${served.length} bytes`);
  } catch (e) {
    report(false, "live service", e.message);
  } finally {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill("SIGTERM");
      const timer = setTimeout(() => { report(false, "live service: fairdeckd stops on SIGTERM", "still running after 15 s"); server.kill("SIGKILL"); }, 15000);
      await exited;
      clearTimeout(timer);
    }
  }
}
