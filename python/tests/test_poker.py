"""evaluate (vectorised), equity and odds against the library's enumerations and the CLI."""

import itertools

import numpy as np
import pytest

import fairdeck


def test_single_hands():
    royal = fairdeck.evaluate("AhKhQhJhTh")
    assert fairdeck.category(royal) == "straight_flush"
    assert fairdeck.evaluate(["Ah", "Kh", "Qh", "Jh", "Th", "2c", "3d"]) == royal
    wheel = fairdeck.evaluate("Ac 2d 3h 4s 5c")
    six_high = fairdeck.evaluate("2d 3h 4s 5c 6c")
    assert fairdeck.category(wheel) == "straight" and six_high > wheel
    assert fairdeck.CATEGORIES[0] == "high_card" and len(fairdeck.CATEGORIES) == 9


def test_every_5_card_hand_matches_the_library_enumeration():
    hands = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(52), 5)), dtype=np.uint8).reshape(-1, 5)
    assert hands.shape[0] == 2_598_960
    strengths = fairdeck.evaluate(hands)
    assert strengths.dtype == np.uint16 and strengths.shape == (2_598_960,)
    counts = np.bincount(fairdeck.category(strengths), minlength=9)
    exact = fairdeck.odds(cards=5, exact=True)
    assert [exact["categories"][c]["count"] for c in fairdeck.CATEGORIES] == counts.tolist()
    assert counts[8] == 40 and counts[7] == 624 and len(np.unique(strengths)) == 7462


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64])
def test_dtypes_and_shapes(dtype):
    rng = np.random.default_rng(1)
    hands = np.argsort(rng.random((1000, 52)), axis=1)[:, :7]
    want = np.array([fairdeck.evaluate([fairdeck.card_name(c) for c in h]) for h in hands])
    assert np.array_equal(fairdeck.evaluate(hands.astype(dtype)), want)
    assert np.array_equal(fairdeck.evaluate(hands.astype(dtype).reshape(10, 100, 7)), want.reshape(10, 100))
    assert np.array_equal(fairdeck.evaluate(np.asfortranarray(hands.astype(dtype))), want)  # copied, not misread
    assert fairdeck.evaluate(hands[0].astype(dtype)) == want[0]


@pytest.mark.parametrize("k", [5, 6, 7])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint64])
def test_first_bad_row_across_blocks_and_threads(k, dtype):
    # Rows are checked 1,024 at a time (and split between threads from 65,536 rows): the
    # error names the first bad row wherever it falls, and a good array still evaluates.
    rng = np.random.default_rng(3)
    hands = np.argsort(rng.random((70_000, 52)), axis=1)[:, :k].astype(dtype)
    want = fairdeck.evaluate(hands.astype(np.int64), threads=1)
    assert np.array_equal(fairdeck.evaluate(hands, threads=2), want)
    for row in (1023, 1024, 2049, 69_999):
        bad = hands.copy()
        bad[row, k - 1] = bad[row, 0]  # a repeated card
        if row + 1 < len(bad):
            bad[row + 1, 1] = 52  # a later bad row too
        for threads in (1, 2):
            with pytest.raises(ValueError, match=f"hand {row}: evaluate: card index {int(bad[row, 0])} appears twice"):
                fairdeck.evaluate(bad, threads=threads)
    if np.issubdtype(dtype, np.signedinteger):
        bad = hands.copy()
        bad[40_000, 3] = -1
        with pytest.raises(ValueError, match="hand 40000: .*-1"):
            fairdeck.evaluate(bad, threads=2)


def test_multithreaded_equals_single():
    rng = np.random.default_rng(2)
    hands = np.argsort(rng.random((200_000, 52)), axis=1)[:, :7].astype(np.uint8)
    assert np.array_equal(fairdeck.evaluate(hands, threads=1), fairdeck.evaluate(hands, threads=2))


def test_bad_hands():
    hands = np.tile(np.arange(7, dtype=np.int64), (5, 1))
    hands[3, 2] = hands[3, 1]
    with pytest.raises(ValueError, match="hand 3: evaluate: card index 1 appears twice"):
        fairdeck.evaluate(hands)
    hands[3, 2] = 52
    with pytest.raises(ValueError, match="hand 3: .*52"):
        fairdeck.evaluate(hands)
    hands[3, 2] = -1
    with pytest.raises(ValueError, match="-1"):
        fairdeck.evaluate(hands)
    with pytest.raises(ValueError, match="5 to 7 cards, got 4"):
        fairdeck.evaluate(np.zeros((3, 4), dtype=np.int8))
    with pytest.raises(TypeError):
        fairdeck.evaluate(np.zeros((3, 5)))
    with pytest.raises(ValueError):
        fairdeck.evaluate("Ah Kh")


def subset(cli_json, py):
    # Python's dicts carry the CLI's keys
    assert set(py) <= set(cli_json)
    for k, v in py.items():
        if k == "players":
            for p, q in zip(cli_json[k], v):
                assert {kk: p[kk] for kk in q} == q
        else:
            assert cli_json[k] == v, k


def test_equity_exact_equals_cli(cli):
    got = fairdeck.equity(["AhKh", "QsQd"])
    subset(cli.json("equity", "AhKh", "QsQd"), got)
    assert got["method"] == "exact" and abs(sum(p["equity"] for p in got["players"]) - 1) < 1e-12
    got = fairdeck.equity(["AKs", "QQ+", "random"], board="7c 8d 9h")
    subset(cli.json("equity", "AKs", "QQ+", "random", "--board", "7c 8d 9h"), got)


def test_equity_monte_carlo_equals_cli(cli):
    got = fairdeck.equity(["AhKh", "22+"], trials=50_000, engine=fairdeck.Engine("xoshiro256pp", seed=4))
    want = cli.json("equity", "AhKh", "22+", "--trials", 50_000, "--engine", "xoshiro256pp", "--seed", 4)
    subset(want, got)
    assert got["method"] == "monte_carlo" and got["engine"]["seed"] == 4
    for p, q in zip(want["players"], got["players"]):
        assert q["equity_ci_low"] == p["equity_ci_low"] and q["equity_ci_high"] == p["equity_ci_high"]
        assert 0 <= q["equity_ci_low"] < q["equity"] < q["equity_ci_high"] <= 1
    got = fairdeck.equity(["AhKhQd2c", "JsTs9s8s"], game="omaha", exact=True, board="2h 7h Jd")
    subset(cli.json("equity", "AhKhQd2c", "JsTs9s8s", "--game", "omaha", "--exact", "--board", "2h 7h Jd"), got)


def test_equity_errors(cli):
    with pytest.raises(ValueError, match="2 to 10 hands"):
        fairdeck.equity(["AhKh"])
    with pytest.raises(ValueError) as err:
        fairdeck.equity(["AhKh", "QQ++"])
    assert str(err.value).startswith("player 2: ")
    assert str(err.value) in cli.run("equity", "AhKh", "QQ++", check=False).stderr
    with pytest.raises(ValueError, match="board"):
        fairdeck.equity(["AhKh", "QsQd"], board="Ah 2c 3c")
    with pytest.raises(ValueError, match="exclude"):
        fairdeck.equity(["AhKh", "QsQd"], exact=True, trials=10)


def test_odds_equal_cli(cli):
    got = fairdeck.odds(cards=7, trials=200_000, engine=fairdeck.Engine("pcg64", seed=6))
    want = cli.json("odds", "--cards", 7, "--trials", 200_000, "--engine", "pcg64", "--seed", 6)
    assert got == want
    assert fairdeck.odds(cards=6, exact=True) == cli.json("odds", "--cards", 6, "--exact")
    with pytest.raises(ValueError, match="5, 6 or 7"):
        fairdeck.odds(cards=8)
    with pytest.raises(ValueError, match="do not apply"):
        fairdeck.odds(exact=True, trials=5)
