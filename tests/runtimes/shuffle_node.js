// Golden vectors from Node.js (V8 Math.random): run as
//   node --random_seed=SIGNED shuffle_node.js fy|sort S
// (SIGNED: S as the int32 V8's flag holds). One Math.random stream shuffles fresh arrays of
// the lengths below in turn with the Fisher-Yates idiom or a.sort(() => Math.random() - 0.5);
// output as ShuffleJava.java (tests/runtimes/cases.txt).
'use strict';
const [mode, seed] = process.argv.slice(2);
const lengths = [52, 52, 52, 1, 2, 10, 1000];
let out = '';
lengths.forEach((n, k) => {
  let a = Array.from({length: n}, (_, i) => i);
  if (mode === 'sort') {
    a.sort(() => Math.random() - 0.5);
  } else {
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      const t = a[i]; a[i] = a[j]; a[j] = t;
    }
  }
  out += `${seed} ${n} ${k + 1}${n ? ' ' : ''}${a.join(' ')}\n`;
});
process.stdout.write(out);
