"""fairdeck.fair: the decks and verdicts of `fairdeck fair` for the same seeds."""

import hashlib
import json
import os

import pytest

import fairdeck

SEED = "0f" * 32


@pytest.fixture()
def seed_file(tmp_path):
    path = tmp_path / "seed.key"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, (SEED + "\n").encode())
    os.close(fd)
    return path


def without_indices(d):
    return {k: v for k, v in d.items() if k != "indices"}


def test_deal_equals_cli(cli, seed_file):
    got = fairdeck.fair.deal(SEED, "player-chosen", 3)
    want = cli.json("fair", "deal", "--server-seed-file", seed_file, "--client-seed", "player-chosen", "--nonce", 3)
    assert without_indices(got) == want
    assert [fairdeck.card_name(c) for c in got["indices"]] == want["cards"]
    got = fairdeck.fair.deal(bytes.fromhex(SEED), ["alice", "bob"], "18446744073709551615", players=6, decks=2)
    want = cli.json("fair", "deal", "--server-seed-file", seed_file, "--client-seed", "alice", "--client-seed", "bob",
                    "--nonce", "18446744073709551615", "--game", "holdem", "--players", 6, "--decks", 2)
    assert without_indices(got) == want
    got = fairdeck.fair.deal(SEED, "c", 0, hands=4, cards=5)
    want = cli.json("fair", "deal", "--server-seed-file", seed_file, "--client-seed", "c", "--nonce", 0,
                    "--hands", 4, "--cards", 5)
    assert without_indices(got) == want


def test_commitment_and_new_seed():
    assert fairdeck.fair.commitment(SEED) == fairdeck.fair.deal(SEED, "x", 1)["commitment"]
    s = fairdeck.fair.new_seed()
    assert len(s) == 64 and s != fairdeck.fair.new_seed()


def test_verify_equals_cli(cli):
    deal = fairdeck.fair.deal(SEED, "c", 7)
    commitment = deal["commitment"]
    ok = fairdeck.fair.verify(SEED, commitment, "c", 7, " ".join(deal["cards"]))
    want = cli.json("fair", "verify", "--server-seed", SEED, "--commitment", commitment, "--client-seed", "c",
                    "--nonce", 7, "--deck", " ".join(deal["cards"]))
    assert ok == want and ok["verified"]
    assert fairdeck.fair.verify(SEED, commitment, "c", 7, deal["cards"])["verified"]
    assert fairdeck.fair.verify(SEED, commitment, "c", 7, deal["indices"].tolist())["verified"]
    tampered = list(deal["cards"])
    tampered[4], tampered[9] = tampered[9], tampered[4]
    bad = fairdeck.fair.verify(SEED, commitment, "c", 7, tampered)
    want = cli.json("fair", "verify", "--server-seed", SEED, "--commitment", commitment, "--client-seed", "c",
                    "--nonce", 7, "--deck", " ".join(tampered), ok_codes=(1,))
    assert bad == want and not bad["verified"] and bad["first_difference"]["position"] == 4
    wrong = fairdeck.fair.verify(SEED, "00" * 32, "c", 7, deal["cards"])
    assert not wrong["commitment_matches"] and wrong["problems"]


def test_bad_input_raises_the_cli_messages(cli, seed_file):
    for kwargs, args in (
        (dict(nonce="007"), ("--nonce", "007")),
        (dict(client_seed=""), ("--client-seed", "")),
        (dict(client_seed="a\nb"), ("--client-seed", "a\nb")),
    ):
        call = dict(server_seed=SEED, client_seed="c", nonce=1) | kwargs
        with pytest.raises(ValueError) as err:
            fairdeck.fair.deal(**call)
        cli_args = {"--client-seed": "c", "--nonce": "1"} | dict([args])
        flat = [x for kv in cli_args.items() for x in kv]
        proc = cli.run("fair", "deal", "--server-seed-file", seed_file, *flat, check=False)
        assert proc.returncode != 0 and str(err.value) in proc.stderr
    with pytest.raises(ValueError, match="64 hex"):
        fairdeck.fair.deal("abc", "c", 1)
    with pytest.raises(ValueError):
        fairdeck.fair.deal(b"short", "c", 1)
    with pytest.raises(ValueError):
        fairdeck.fair.deal(SEED, "c", -1)
    with pytest.raises(TypeError):
        fairdeck.fair.deal(SEED, "c", 1.0)
    with pytest.raises(ValueError):
        fairdeck.fair.verify(SEED, "zz", "c", 1, "Ah")
    with pytest.raises(ValueError, match="Qx"):
        fairdeck.fair.verify(SEED, "00" * 32, "c", 1, "Ah Qx")


def test_hand_client_side_equals_cli(cli, tmp_path):
    """The player's side of a fairdeckd hand: a fresh seed, its commitment, the check of a deal
    answer -- the same verdicts as `fairdeck fair verify --hand`."""
    mine = fairdeck.fair.fresh_seat_seed()
    assert len(mine) == 64 and mine != fairdeck.fair.fresh_seat_seed()
    c = fairdeck.fair.seat_commitment(mine)
    assert c == hashlib.sha256(mine.encode()).hexdigest()
    assert fairdeck.fair.seed_matches_commitment(mine, c.upper())
    assert not fairdeck.fair.seed_matches_commitment(mine + "x", c)
    assert not fairdeck.fair.seed_matches_commitment(mine, "zz")
    with pytest.raises(ValueError):
        fairdeck.fair.seat_commitment("")
    seeds = ["house", mine, "bot"]
    d = fairdeck.fair.deal(SEED, seeds, 41)
    answer = {"hand": 3, "seat_seeds": seeds, "client_seed": d["client_seed"], "nonce": 41,
              "commitment": d["commitment"], "cards": " ".join(d["cards"]), "decks": 1, "jokers": 0}
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(answer))
    base = ["fair", "verify", "--hand", path, "--server-seed", SEED, "--commitment", d["commitment"]]
    ok = fairdeck.fair.check_hand(answer, 2, mine, SEED, my_commitment=c)
    want = cli.json(*base, "--seat", 2, "--my-seed", mine, "--my-commitment", c)
    assert ok["verified"] and want["verified"] and ok["problems"] == want["problems"] == []
    for seat, commitment in ((1, ""), (2, fairdeck.fair.seat_commitment("other"))):
        bad = fairdeck.fair.check_hand(answer, seat, mine, SEED, my_commitment=commitment)
        extra = ["--my-commitment", commitment] if commitment else []
        want = cli.json(*base, "--seat", seat, "--my-seed", mine, *extra, ok_codes=(1,))
        assert not bad["verified"] and bad["problems"] == want["problems"]
    swapped = dict(answer, cards=" ".join(d["cards"][1:2] + d["cards"][0:1] + d["cards"][2:]))
    assert fairdeck.fair.check_hand(swapped, 2, mine, SEED)["problems"][0].startswith("deck differs at position 0")
