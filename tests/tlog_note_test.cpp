// C2SP signed notes, checkpoints and cosignatures (include/fairdeck/tlog/note.hpp), against
// the test vectors of Go's golang.org/x/mod/sumdb/note (the reference implementation).
#include <gtest/gtest.h>

#include <string>

#include "fairdeck/tlog/note.hpp"

namespace {

using namespace fairdeck::tlog;

const std::string peter_vkey = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
const std::string peter_skey = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
const std::string enoch_vkey = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop";
const std::string go_text =
    "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const std::string peter_sig =
    "\xE2\x80\x94 PeterNeumann "
    "x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n";
const std::string enoch_sig =
    "\xE2\x80\x94 EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n";

TEST(TlogNote, SignsExactlyAsGosNotePackage) {
  const note_signer signer = note_signer::parse(peter_skey);
  EXPECT_EQ(signer.verifier().text(), peter_vkey);
  EXPECT_EQ(signer.verifier().key_id(), 0xc74f20a3u);
  std::string secret = signer.secret_text();
  EXPECT_EQ(secret, peter_skey);
  EXPECT_EQ(sign_note(note{go_text, {}}, signer), go_text + "\n" + peter_sig);
  // An earlier signature by the same key is replaced, others kept.
  const note with_enoch = parse_note(go_text + "\n" + enoch_sig);
  EXPECT_EQ(sign_note(with_enoch, signer), go_text + "\n" + peter_sig + enoch_sig);
}

TEST(TlogNote, OpensGoNotesAndVerifiesOnlyKnownKeys) {
  const std::vector<note_verifier> peter{note_verifier::parse(peter_vkey)};
  const auto both = std::vector<note_verifier>{note_verifier::parse(peter_vkey), note_verifier::parse(enoch_vkey)};
  const std::string msg = go_text + "\n" + peter_sig + enoch_sig;
  opened_note n = open_note(msg, peter);
  EXPECT_EQ(n.text, go_text);
  ASSERT_EQ(n.verified.size(), 1u);
  EXPECT_EQ(n.verified[0].name, "PeterNeumann");
  ASSERT_EQ(n.unverified.size(), 1u);
  EXPECT_EQ(n.unverified[0].key_id, 0xaf0cfe78u);
  n = open_note(msg, both);
  EXPECT_EQ(n.verified.size(), 2u);
  EXPECT_TRUE(open_note(msg, {}).verified.empty());
  EXPECT_EQ(format_note(parse_note(msg)), msg);
  // A signature by a known key that does not verify is an error, not "unverified".
  std::string forged = msg;
  forged[go_text.size() + 1 + 60] ^= 1;  // inside Peter's base64
  EXPECT_ANY_THROW((void)open_note(forged, peter));
  std::string changed = msg;
  changed[3] = 'X';
  EXPECT_THROW((void)open_note(changed, peter), std::runtime_error);
  // The same key twice in the list is ambiguous.
  const auto twice = std::vector<note_verifier>{note_verifier::parse(enoch_vkey), note_verifier::parse(enoch_vkey)};
  EXPECT_THROW((void)open_note(go_text + "\n" + enoch_sig, twice), std::runtime_error);
}

TEST(TlogNote, RefusesMalformedNotesAsGoDoes) {
  const std::vector<note_verifier> peter{note_verifier::parse(peter_vkey)};
  const std::string bad_name_sig =
      "\xE2\x80\x94 Bad Name x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=";
  std::string many;
  for (int i = 0; i < 101; ++i) many += peter_sig;
  for (const std::string& bad :
       std::vector<std::string>{go_text, go_text + "\n", go_text + "\n" + peter_sig.substr(0, peter_sig.size() - 1),
                                "\x01" + go_text + "\n" + peter_sig, "\xff" + go_text + "\n" + peter_sig,
                                go_text + "\n" + bad_name_sig, go_text + "\n" + peter_sig + "Unexpected line.\n",
                                go_text + "\n" + many})
    EXPECT_THROW((void)open_note(bad, peter), malformed) << bad;
}

TEST(TlogNote, RefusesMangledVerifierKeys) {
  EXPECT_NO_THROW((void)note_verifier::parse(peter_vkey));
  for (std::size_t i = 0; i < peter_vkey.size(); ++i) {
    std::string k = peter_vkey;
    ++k[i];
    EXPECT_THROW((void)note_verifier::parse(k), malformed) << k;
    EXPECT_THROW((void)note_verifier::parse(peter_vkey.substr(0, i)), malformed);
  }
  EXPECT_THROW((void)note_verifier::parse("PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY=="),
               malformed);
  EXPECT_THROW((void)note_verifier::parse("PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"),
               malformed);
  // A mangled signer key is refused without echoing it.
  std::string k = peter_skey;
  k.back() = 'A';
  try {
    (void)note_signer::parse(k);
    ADD_FAILURE() << "accepted";
  } catch (const malformed& e) {
    EXPECT_EQ(std::string(e.what()).find("AYEK"), std::string::npos);
  }
}

TEST(TlogNote, CheckpointsRoundTripAndRefuseDamage) {
  checkpoint c{"example.com/behind-the-sofa", 20852163, {}, {}};
  const auto root = from_base64("CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=");
  ASSERT_TRUE(root && root->size() == 32);
  std::copy(root->begin(), root->end(), c.root.begin());
  const std::string text = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";
  EXPECT_EQ(checkpoint_text(c), text);
  EXPECT_EQ(parse_checkpoint(text), c);
  c.extensions = {"fairdeck table t1"};
  EXPECT_EQ(parse_checkpoint(checkpoint_text(c)), c);
  for (const std::string& bad :
       std::vector<std::string>{std::string{}, text.substr(0, text.size() - 1), "o\n01\n" + text.substr(text.find('C')),
                                "o\n-1\n" + text.substr(text.find('C')), "\n1\n" + text.substr(text.find('C')),
                                "o\n1\nAAAA\n", text + "\n", "o\n99999999999999999999\n" + text.substr(text.find('C'))})
    EXPECT_THROW((void)parse_checkpoint(bad), malformed) << bad;
}

TEST(TlogNote, CosignaturesFollowTlogCosignatureV1) {
  const note_signer log = note_signer::generate("log.example/t1");
  const note_signer witness = note_signer::generate("witness.example/w1", key_type::cosignature_v1);
  EXPECT_EQ(witness.verifier().text().find("witness.example/w1+"), 0u);
  const std::string body = "log.example/t1\n5\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";
  note n{body, {log.sign(body), witness.cosign(body, 1679315147)}};
  ASSERT_EQ(n.signatures[1].signature.size(), 72u);  // u64 timestamp + Ed25519
  EXPECT_EQ(n.signatures[1].signature[7], static_cast<std::uint8_t>(1679315147 & 0xff));
  const std::string msg = format_note(n);
  const std::vector<note_verifier> keys{log.verifier(), witness.verifier()};
  const opened_note o = open_note(msg, keys);
  ASSERT_EQ(o.verified.size(), 2u);
  EXPECT_EQ(o.cosigned_at[1], 1679315147u);
  // The key ID uses type 0x04: the same public key as an Ed25519 note key has another ID.
  EXPECT_NE(witness.verifier().key_id(),
            note_verifier(witness.verifier().name(), key_type::ed25519, witness.verifier().public_key()).key_id());
  // A cosignature does not verify for another checkpoint or another time.
  const std::string other = "log.example/t1\n6\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n";
  EXPECT_FALSE(witness.verifier().verify_cosignature(other, n.signatures[1].signature));
  auto moved = n.signatures[1].signature;
  moved[7] ^= 1;
  EXPECT_FALSE(witness.verifier().verify_cosignature(body, moved));
  // Keys round-trip through their text forms.
  std::string s = witness.secret_text();
  const note_signer again = note_signer::parse(s);
  EXPECT_EQ(again.verifier().text(), witness.verifier().text());
  EXPECT_EQ(note_verifier::parse(witness.verifier().text()).key_id(), witness.verifier().key_id());
}

TEST(TlogNote, Base64IsCanonicalOnly) {
  EXPECT_EQ(base64(std::vector<std::uint8_t>{'h', 'i'}), "aGk=");
  EXPECT_TRUE(from_base64("aGk="));
  EXPECT_FALSE(from_base64("aGk"));
  EXPECT_FALSE(from_base64("aGl="));  // stray bits
  EXPECT_FALSE(from_base64("aG k="));
  EXPECT_FALSE(from_base64("aGk=\n"));
}

}  // namespace
