"""Engines, Deck, deal: the same streams and cards as the CLI for the same seeds."""

import numpy as np
import pytest

import fairdeck


def test_engine_properties():
    e = fairdeck.Engine("xoshiro256pp", seed=42)
    assert (e.name, e.seed, e.secure, e.reproducible, e.legacy) == ("xoshiro256pp", 42, False, True, False)
    s = fairdeck.SecureEngine()
    assert isinstance(s, fairdeck.Engine)
    assert (s.name, s.seed, s.secure, s.reproducible) == ("secure", None, True, False)
    fresh = fairdeck.Engine("pcg64")  # no seed: a fresh one from OS entropy, shown
    assert isinstance(fresh.seed, int)
    keyed = fairdeck.Engine("chacha20", key="11" * 32)
    assert keyed.secure and keyed.seed is None and "secret" in repr(keyed)
    assert {e["name"] for e in fairdeck.engines()} >= {"secure", "chacha20", "xoshiro256pp", "pcg64", "java"}


def test_engine_errors_carry_the_library_messages(cli):
    with pytest.raises(ValueError) as err:
        fairdeck.Engine("nope", seed=1)
    proc = cli.run("random", "--engine", "nope", "--seed", "1", check=False)
    assert proc.returncode == 2 and str(err.value) in proc.stderr
    with pytest.raises(ValueError) as err:
        fairdeck.Engine("glibc-rand", seed=2**32)
    assert str(err.value) in cli.run("random", "--engine", "glibc-rand", "--seed", 2**32, check=False).stderr
    with pytest.raises(ValueError, match="takes no seed"):
        fairdeck.Engine("secure", seed=1)
    with pytest.raises(ValueError, match="0..2\\^64-1"):
        fairdeck.Engine("pcg64", seed=-1)
    with pytest.raises(ValueError):
        fairdeck.Engine("pcg64", seed=2**64)
    with pytest.raises(TypeError):
        fairdeck.Engine("pcg64", seed=1.5)


@pytest.mark.parametrize("name", ["xoshiro256pp", "pcg64", "chacha20", "mt19937_64", "java", "glibc-rand"])
def test_random_equals_cli(cli, name):
    got = fairdeck.Engine(name, seed=7).random(20)
    want = cli.json("random", "--engine", name, "--seed", 7, "--count", 20)["values"]
    assert got.dtype == np.uint64 and got.tolist() == want
    got = fairdeck.Engine(name, seed=7).random(50, below=52)
    want = cli.json("random", "--engine", name, "--seed", 7, "--count", 50, "--below", 52)["values"]
    assert got.tolist() == want


def test_engine_uses_are_fresh_and_replayable():
    e = fairdeck.Engine("xoshiro256pp", seed=1)
    first, second = e.random(4), e.random(4)
    assert e.calls == 2 and first.tolist() != second.tolist()
    e.calls = 0
    assert e.random(4).tolist() == first.tolist()
    # use 1 is not use 0's stream 1 (derived seeds have their own hash)
    assert fairdeck.Engine("xoshiro256pp", seed=1).random(4).tolist() == first.tolist()


@pytest.mark.parametrize("name,decks,jokers", [("xoshiro256pp", 1, 0), ("pcg64", 2, 3), ("chacha20", 1, 2), ("java", 1, 0)])
def test_deck_shuffle_equals_cli(cli, name, decks, jokers):
    d = fairdeck.Deck(decks=decks, jokers=jokers).shuffle(fairdeck.Engine(name, seed=42))
    want = cli.json("shuffle", "--engine", name, "--seed", 42, "--decks", decks, "--jokers", jokers)
    assert d.cards.tolist() == want["indices"]
    assert d.names() == want["cards"] and len(d) == want["n"]
    assert str(d) == " ".join(want["cards"])


def test_deck_basics():
    d = fairdeck.Deck()
    assert len(d) == 52 and d[0] == "Ac" and d[-1] == "Ks" and list(d)[:2] == ["Ac", "2c"]
    assert d.names(unicode=True)[0] == "A\u2663"
    with pytest.raises(ValueError, match="at least 1 deck"):
        fairdeck.Deck(decks=0)
    with pytest.raises(ValueError):
        fairdeck.Deck().shuffle(algorithm="nope")
    with pytest.warns(UserWarning):
        fairdeck.Deck().shuffle(fairdeck.Engine("chacha20", seed=1), algorithm="naive")
    assert fairdeck.card_name(51) == "Ks" and fairdeck.parse_cards("Ac 10h K\u2660").tolist() == [0, 35, 51]
    with pytest.raises(ValueError, match="Zz"):
        fairdeck.parse_cards("Ac Zz")


def test_deal_equals_cli(cli):
    got = fairdeck.deal(7, fairdeck.Engine("xoshiro256pp", seed=9))
    want = cli.json("deal", "--hands", 1, "--cards", 7, "--engine", "xoshiro256pp", "--seed", 9)
    assert [fairdeck.card_name(c) for c in got] == want["hands"][0]
    got = fairdeck.deal(5, fairdeck.Engine("pcg64", seed=3), hands=4, decks=2)
    want = cli.json("deal", "--hands", 4, "--cards", 5, "--engine", "pcg64", "--seed", 3, "--decks", 2)
    assert got.shape == (4, 5)
    assert [[fairdeck.card_name(c, decks=2) for c in h] for h in got] == want["hands"]
    d = fairdeck.Deck().shuffle(fairdeck.Engine("pcg64", seed=5))
    want = cli.json("deal", "holdem", "--players", 6, "--engine", "pcg64", "--seed", 5)
    assert d.holdem(6) == {k: want[k] for k in ("seats", "burns", "flop", "turn", "river")}


def test_deal_errors():
    with pytest.raises(ValueError, match="53 cards"):
        fairdeck.deal(53)
    with pytest.raises(ValueError):
        fairdeck.deal(0)
    with pytest.raises(TypeError):
        fairdeck.deal(5, engine="xoshiro256pp")
