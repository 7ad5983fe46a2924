// An independent verifier of fairdeck mental-poker transcripts, written from the papers and
// docs/mental-poker.md, not from the C++: @noble/curves' ristretto255 (RFC 9496) and Node's
// SHA-512. Terelius–Wikström, "Proofs of Restricted Shuffles" (AFRICACRYPT 2010) in the
// notation of Haenni et al., "Pseudo-Code Algorithms for Verifiable Re-Encryption Mix-Nets"
// (FC 2017), Algorithm 8.5 (CheckProof), written additively; Chaum–Pedersen for decryptions;
// Schnorr for keys.
//   node reference.mjs --kat              known answers of the card encoding and generators
//   node reference.mjs TRANSCRIPT.json    verify; prints {"verified":…,"transcript_hash":…,"public_cards":…}
// Exit 0 verified (or the known answers match), 1 not, 2 unreadable.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ristretto255, ristretto255_hasher } from '@noble/curves/ed25519.js';

const Point = ristretto255.Point;
const G = Point.BASE;
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const enc = new TextEncoder();

const u64le = (n) => { const b = new Uint8Array(8); new DataView(b.buffer).setBigUint64(0, BigInt(n), true); return b; };
const u32le = (n) => { const b = new Uint8Array(4); new DataView(b.buffer).setUint32(0, n, true); return b; };
const cat = (...xs) => { const out = new Uint8Array(xs.reduce((s, x) => s + x.length, 0)); let at = 0; for (const x of xs) { out.set(x, at); at += x.length; } return out; };
const hexToBytes = (h) => { if (!/^[0-9a-f]*$/.test(h) || h.length % 2) throw new Error('bad hex'); return Uint8Array.from(Buffer.from(h, 'hex')); };
const toHex = (b) => Buffer.from(b).toString('hex');
const leToBig = (b) => { let n = 0n; for (let i = b.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(b[i]); return n; };
const bigToLe32 = (n) => { const b = new Uint8Array(32); for (let i = 0; i < 32; i++) { b[i] = Number(n & 255n); n >>= 8n; } return b; };
const mod = (n) => ((n % L) + L) % L;

// H(label; x1..xk) = SHA-512(u64le|label| ‖ label ‖ u64le|x1| ‖ x1 ‖ …) (spec §1).
function H(label, ...items) {
  const h = createHash('sha512');
  for (const x of [enc.encode(label), ...items]) { h.update(u64le(x.length)); h.update(x); }
  return new Uint8Array(h.digest());
}
const reduce = (d) => mod(leToBig(d));
const scalarBytes = (n) => bigToLe32(n);
// P(label, i) = RFC 9496 element derivation of SHA-512(label ‖ u32le(i)).
function P(label, i) {
  const d = createHash('sha512').update(enc.encode(label)).update(u32le(i)).digest();
  return ristretto255_hasher.deriveToCurve(new Uint8Array(d));
}
const pt = (hex) => Point.fromHex(hex);            // throws for a non-canonical encoding
const ptb = (p) => p.toBytes();
// Scalar multiplication as the protocol allows it: a zero product is refused (libsodium's rule).
function mul(P_, k) {
  k = mod(k);
  if (k === 0n) throw new Error('identity product');
  const r = P_.multiply(k);
  if (r.is0()) throw new Error('identity product');
  return r;
}
function scalarFrom(b) { const n = leToBig(b); if (n >= L) throw new Error('scalar not below the group order'); return n; }

const cardLabel = 'fairdeck/mental/v1/card', genLabel = 'fairdeck/mental/v1/generator';
const V = 'fairdeck/mental/v1/';

function kat() {
  // The pinned values of tests/mental_test.cpp (MentalCards.KnownAnswers), computed here anew.
  const want = {
    card0: '7a74db10637cbdce2f89903342c542f0b1c7d71299a4288fea028c193decd820',
    card1: 'b875186f763dc40ca3bcaaba028f930f2213021e4215defdc222a7864823f505',
    card12: '0a3ea9b848e3903eab2f38d9f977a76678a7e9dbe648d151f15521506316b235',
    card13: 'a0200426b086ae41e4eff450938d4800b5e14319331d834fd99de5aa608b8212',
    card51: '72af43ef7e36c16e3681d3f4fd8da3b0399bc3a4e7aba52b4749d0ddbb916720',
    card52: '3434447b806f02e52d109c78544118b86d4e5e1e18b4c0032265b40fdb044c69',
    gen0: '86a8b6892fd5d95deb953f9664c7783814fdce50cf2f69b34e87a1502d4cdc2a',
    gen1: 'a466928d8fa57bf930df32df5bce3a7a9ed6bf12965bbf6d19dc738bbde75f2f',
  };
  let ok = true;
  for (const [name, hex] of Object.entries(want)) {
    const got = toHex(name.startsWith('card') ? ptb(P(cardLabel, +name.slice(4))) : ptb(P(genLabel, +name.slice(3))));
    if (got !== hex) { ok = false; console.log(`${name}: reference ${got}, pinned ${hex}`); }
  }
  console.log(ok ? 'known answers: match' : 'known answers: MISMATCH');
  return ok ? 0 : 1;
}

function schnorrOk(ctx, Y, proofHex) {
  const b = hexToBytes(proofHex);
  const c = scalarFrom(b.slice(0, 32)), s = scalarFrom(b.slice(32));
  const T = mul(G, s).subtract(mul(Y, c));
  return reduce(H(V + 'schnorr', ctx, ptb(Y), ptb(T))) === c;
}

function dleqOk(ctx, Y, B, D, proofHex) {
  const b = hexToBytes(proofHex);
  const c = scalarFrom(b.slice(0, 32)), s = scalarFrom(b.slice(32));
  const T1 = mul(G, s).subtract(mul(Y, c));
  const T2 = mul(B, s).subtract(mul(D, c));
  return reduce(H(V + 'dleq', ctx, ptb(Y), ptb(B), ptb(D), ptb(T1), ptb(T2))) === c;
}

// TW CheckProof (Haenni et al. Alg. 8.5), additive: e input, e2 output (arrays of {a, b}).
function shuffleOk(ctx, Y, e, e2, proofBytes) {
  const N = e.length;
  if (proofBytes.length !== 128 * N + 160) return false;
  let at = 0;
  const nextPoint = () => { const p = Point.fromBytes(proofBytes.slice(at, at + 32)); at += 32; return p; };
  const nextScalar = () => { const s = scalarFrom(proofBytes.slice(at, at + 32)); at += 32; return s; };
  const c = Array.from({ length: N }, nextPoint);
  const ch = Array.from({ length: N }, nextPoint);
  const chi = nextScalar(), s1 = nextScalar(), s2 = nextScalar(), s3 = nextScalar(), s4 = nextScalar();
  const sh = Array.from({ length: N }, nextScalar);
  const sp = Array.from({ length: N }, nextScalar);
  // Re-encryption, not only permutation: no output b equals an input b.
  const inB = new Set(e.map((x) => toHex(ptb(x.b))));
  if (e2.some((x) => inB.has(toHex(ptb(x.b))) || x.b.is0() || x.a.is0())) return false;
  const h = Array.from({ length: N + 1 }, (_, i) => P(genLabel, i));  // h[0] = H_0, h[i] = H_i
  const items = [ctx, ptb(Y)];
  for (const x of e) items.push(ptb(x.a), ptb(x.b));
  for (const x of e2) items.push(ptb(x.a), ptb(x.b));
  for (const x of c) items.push(ptb(x));
  const seed = H(V + 'shuffle/seed', ...items);
  const u = Array.from({ length: N }, (_, j) => reduce(H(V + 'shuffle/u', seed, u32le(j))));
  let cbar = Point.ZERO, ctil = Point.ZERO, atil = Point.ZERO, btil = Point.ZERO, uprod = 1n;
  for (let j = 0; j < N; j++) {
    cbar = cbar.add(c[j]).subtract(h[j + 1]);
    uprod = mod(uprod * u[j]);
    ctil = ctil.add(mul(c[j], u[j]));
    atil = atil.add(mul(e[j].a, u[j]));
    btil = btil.add(mul(e[j].b, u[j]));
  }
  const chat = ch[N - 1].subtract(mul(h[0], uprod));
  const t1 = mul(cbar, chi).add(mul(G, s1));
  const t2 = mul(chat, chi).add(mul(G, s2));
  let t3 = mul(ctil, chi).add(mul(G, s3));
  let t4a = mul(atil, chi).subtract(mul(Y, s4));
  let t4b = mul(btil, chi).subtract(mul(G, s4));
  const that = [];
  for (let i = 0; i < N; i++) {
    t3 = t3.add(mul(h[i + 1], sp[i]));
    t4a = t4a.add(mul(e2[i].a, sp[i]));
    t4b = t4b.add(mul(e2[i].b, sp[i]));
    that.push(mul(ch[i], chi).add(mul(G, sh[i])).add(mul(i ? ch[i - 1] : h[0], sp[i])));
  }
  const chi2 = reduce(H(V + 'shuffle/challenge', seed, ...ch.map(ptb), ptb(t1), ptb(t2), ptb(t3), ptb(t4a), ptb(t4b),
    ...that.map(ptb)));
  return chi2 === chi;
}

function verify(t) {
  const n = t.players.length, N = 52 * t.decks + t.jokers;
  const pubs = t.players.map((p) => pt(p.public));
  pubs.forEach((Y, i) => { if (!schnorrOk(enc.encode('keygen'), Y, t.players[i].proof)) throw new Error(`header: player ${i + 1}'s key proof`); });
  if (new Set(t.players.map((p) => p.public)).size !== n) throw new Error('header: a repeated key');
  const Y = pubs.reduce((s, p) => s.add(p), Point.ZERO);
  const hdr = [enc.encode('fairdeck-mental/v1'), enc.encode(t.table), enc.encode(t.hand), u32le(t.decks), u32le(t.jokers), u32le(n)];
  t.players.forEach((p, i) => hdr.push(ptb(pubs[i]), hexToBytes(p.proof)));
  let head = H(V + 'hand', ...hdr);
  const M = Array.from({ length: N }, (_, i) => P(cardLabel, i));
  let deck = M.map((m, i) => { const r = reduce(H(V + 'initial', head, u32le(i))); return { a: m.add(mul(Y, r)), b: mul(G, r) }; });
  const toAll = new Map();
  t.steps.forEach((s, k) => {
    const ctx = cat(head, u32le(k), u32le(s.player));
    const stepItems = [head];
    if (s.type === 'shuffle') {
      if (k >= n || s.player !== k + 1) throw new Error(`step ${k}: out of turn`);
      if (!schnorrOk(ctx, pubs[s.player - 1], s.key_proof)) throw new Error(`step ${k}: key proof`);
      const out = s.deck.map((x) => ({ a: pt(x.slice(0, 64)), b: pt(x.slice(64)) }));
      if (out.length !== N || !shuffleOk(ctx, Y, deck, out, hexToBytes(s.proof))) throw new Error(`step ${k}: shuffle proof`);
      deck = out;
      stepItems.push(enc.encode('shuffle'), u32le(s.player));
      for (const x of out) stepItems.push(ptb(x.a), ptb(x.b));
      stepItems.push(hexToBytes(s.proof), hexToBytes(s.key_proof));
    } else if (s.type === 'reveal') {
      if (k < n) throw new Error(`step ${k}: reveal before the shuffles`);
      const to = s.to === 'all' ? 0 : s.to;
      if (to === s.player || to > n || s.player < 1 || s.player > n) throw new Error(`step ${k}: bad recipient`);
      stepItems.push(enc.encode('reveal'), u32le(s.player), u32le(to), u32le(s.positions.length));
      if (new Set(s.positions).size !== s.positions.length) throw new Error(`step ${k}: repeated position`);
      s.positions.forEach((p, i) => {
        if (p >= N) throw new Error(`step ${k}: position ${p}`);
        const D = pt(s.shares[i]);
        if (!dleqOk(cat(ctx, u32le(to), u32le(p)), pubs[s.player - 1], deck[p].b, D, s.proofs[i]))
          throw new Error(`step ${k}: partial decryption of position ${p}`);
        if (to === 0) { if (!toAll.has(p)) toAll.set(p, new Map()); toAll.get(p).set(s.player, D); }
        stepItems.push(u32le(p), ptb(D), hexToBytes(s.proofs[i]));
      });
    } else throw new Error(`step ${k}: type`);
    head = H(V + 'step', ...stepItems);
  });
  const suits = 'cdhs', ranks = ['A', '2', '3', '4', '5', '6', '7', '8', '9', 'T', 'J', 'Q', 'K'];
  const publicCards = {};
  for (const [p, by] of [...toAll.entries()].sort((x, y) => x[0] - y[0])) {
    if (by.size !== n) continue;
    let m = deck[p].a;
    for (const D of by.values()) m = m.subtract(D);
    const idx = M.findIndex((x) => x.equals(m));
    if (idx < 0) throw new Error(`position ${p} is not a card`);
    publicCards[String(p)] = idx >= 52 * t.decks ? `X${idx - 52 * t.decks + 1}` : ranks[idx % 13] + suits[Math.floor((idx % 52) / 13)];
  }
  return { head: toHex(head), publicCards };
}

const arg = process.argv[2];
if (arg === '--kat') process.exit(kat());
let t;
try { t = JSON.parse(readFileSync(arg, 'utf8')); } catch (e) { console.error(`reference: unreadable: ${e.message}`); process.exit(2); }
try {
  const r = verify(t);
  console.log(JSON.stringify({ verified: true, transcript_hash: r.head, public_cards: r.publicCards }));
  process.exit(0);
} catch (e) {
  console.log(JSON.stringify({ verified: false, problem: e.message }));
  process.exit(1);
}
