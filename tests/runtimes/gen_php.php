<?php
// Golden vectors from PHP: mt_srand(S); shuffle($a). Usage: php gen_php.php cases.txt
// Output format: tests/runtimes/cases.txt.
foreach (file($argv[1], FILE_IGNORE_NEW_LINES) as $line) {
    if (trim($line) === '' || $line[0] === '#') continue;
    [$s, $n, $shuffles] = preg_split('/\s+/', trim($line));
    // PHP ints stop at PHP_INT_MAX; a larger literal would become a float.
    if (strlen($s) > 19 || (strlen($s) === 19 && strcmp($s, '9223372036854775807') > 0)) continue;
    mt_srand((int)$s);
    for ($k = 1; $k <= (int)$shuffles; $k++) {
        $a = $n > 0 ? range(0, (int)$n - 1) : [];
        shuffle($a);
        $body = $n > 1000 ? 'fnv1a64=' . hash('fnv1a64', pack('V*', ...$a)) : implode(' ', $a);
        echo rtrim("$s $n $k $body"), "\n";
    }
}
