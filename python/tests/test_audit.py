"""fairdeck.audit on arrays and iterators: the CLI's verdicts, p-values, JSON and HTML."""

import json

import numpy as np
import pytest

import fairdeck


def fair_decks(rows, n=52, seed=1):
    # numpy's own shuffles: an outside shuffler, as an operator would audit one
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((rows, n)), axis=1).astype(np.int16)


def biased_decks(rows, n=52, seed=2):
    d = fair_decks(rows, n, seed)
    # one deck in 10: card 0 moved to the top
    for row in d[::10]:
        i = int(np.nonzero(row == 0)[0][0])
        row[0], row[i] = row[i], row[0]
    return d


def write_indices(path, decks):
    path.write_text("".join(" ".join(map(str, row)) + "\n" for row in decks))


@pytest.mark.parametrize("make,verdict", [(fair_decks, "fair"), (biased_decks, "biased")])
def test_array_audit_equals_cli(cli, tmp_path, make, verdict):
    decks = make(20_000)
    path = tmp_path / "decks.txt"
    write_indices(path, decks)
    want = cli.json("audit", "--input", path, ok_codes=(0, 3))
    got = fairdeck.audit(decks, label=str(path))
    assert got.verdict == verdict == want["verdict"]
    assert json.loads(got.to_json()) == want  # every key, every p-value
    assert got.as_dict() == want
    assert got.p_values == {t["name"]: t["p_value"] for t in want["audits"][0]["tests"]}
    assert got.trials == 20_000 and got.n == 52 and got.biased == (verdict == "biased")
    assert got.position_card.sum() == 20_000 * 52
    assert got.summary == want["audits"][0]["summary"]


def test_iterables_of_decks(cli, tmp_path):
    decks = fair_decks(3000, n=10, seed=4)
    path = tmp_path / "decks.txt"
    write_indices(path, decks)
    want = cli.json("audit", "--input", path)
    as_lines = fairdeck.audit(path.read_text().splitlines(), label=str(path))
    as_lists = fairdeck.audit((row.tolist() for row in decks), label=str(path))
    as_array = fairdeck.audit(decks.astype(np.uint64), label=str(path))
    assert as_lines.as_dict() == as_lists.as_dict() == as_array.as_dict() == want
    names = [[fairdeck.card_name(c) for c in row] for row in decks]
    assert fairdeck.audit(names).verdict == "fair"


def test_text_decks_equal_cli(cli, tmp_path):
    lines = []
    e = fairdeck.Engine("pcg64", seed=3)
    for _ in range(2000):
        lines.append(str(fairdeck.Deck().shuffle(e)))
    path = tmp_path / "text.txt"
    path.write_text("\n".join(lines) + "\n")
    want = cli.json("audit", "--input", path)
    assert fairdeck.audit(lines, label=str(path)).as_dict() == want


def test_bad_decks_raise_the_cli_message(cli, tmp_path):
    decks = fair_decks(5, n=8)
    decks[2, 3] = decks[2, 4]  # a repeated card on line 3
    path = tmp_path / "bad.txt"
    write_indices(path, decks)
    proc = cli.run("audit", "--input", path, check=False)
    assert proc.returncode == 1
    with pytest.raises(ValueError) as err:
        fairdeck.audit(decks)
    assert "line 3" in str(err.value) and str(err.value) in proc.stderr
    with pytest.raises(ValueError, match="integers"):
        fairdeck.audit(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="2-D"):
        fairdeck.audit(np.arange(5))
    with pytest.raises(ValueError, match="no decks"):
        fairdeck.audit([])
    with pytest.raises(ValueError, match="alpha"):
        fairdeck.audit(decks, alpha=2)
    with pytest.raises(ValueError):
        fairdeck.audit(["Ac 2c", "Ac Zz"])
    with pytest.raises(TypeError):
        fairdeck.audit("Ac 2c 3c")

    def exploding():
        yield [0, 1, 2]
        raise RuntimeError("the source failed")

    with pytest.raises(RuntimeError, match="the source failed"):
        fairdeck.audit(exploding())


def test_html_report(tmp_path):
    result = fairdeck.audit(biased_decks(5000))
    out = tmp_path / "report.html"
    result.html(str(out))
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "BIASED" in page
    with pytest.raises(OSError):
        result.html(str(tmp_path / "missing-dir" / "r.html"))


def test_audit_shuffle_equals_cli(cli):
    for algorithm, verdict in (("fisher-yates", "fair"), ("naive", "biased")):
        got = fairdeck.audit_shuffle(algorithm, fairdeck.Engine("chacha20", seed=5), trials=50_000, threads=2)
        want = cli.json("audit", "--algorithm", algorithm, "--engine", "chacha20", "--seed", 5, "--trials", 50_000,
                        ok_codes=(0, 3))
        assert got.verdict == verdict
        assert got.as_dict() == want
