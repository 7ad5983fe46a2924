// PostgreSQL array literals as the PostgreSQL store writes them (src/service/pg_array.hpp).
// PostgreSQL's own parsing of them is checked end to end by e2e_test.py's postgres scenario
// (a client seed with a quote, a backslash and a non-ASCII letter).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "pg_array.hpp"

namespace {

using fairdeck::service::pg_db::array_builder;
using fairdeck::service::pg_db::joined_texts;

TEST(PgArray, EmptyIsEmptyBraces) {
  array_builder a;
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(a.take(), "{}");
}

TEST(PgArray, ElementsAreCommaSeparatedAndCounted) {
  array_builder a;
  a.number(7);
  a.number(-9223372036854775807 - 1);
  a.bare("NULL");
  a.bare("00ff");
  a.quoted("");
  EXPECT_EQ(a.size(), 5U);
  EXPECT_EQ(a.take(), R"({7,-9223372036854775808,NULL,00ff,""})");
}

// Every element quoted: a comma, a brace, a space or the word NULL inside quotes is data.
TEST(PgArray, QuotedElementsEscapeOnlyQuoteAndBackslash) {
  array_builder a;
  a.quoted("plain");
  a.quoted(R"(a"b\c)");
  a.quoted(R"(\\"")");
  a.quoted("NULL");
  a.quoted("{x, y}");
  a.quoted("caf\xc3\xa9");
  EXPECT_EQ(a.take(), R"({"plain","a\"b\\c","\\\\\"\"","NULL","{x, y}","café"})");
}

TEST(PgArray, TakeEmptiesTheBuilderAndClearForgets) {
  array_builder a;
  a.quoted("x");
  EXPECT_EQ(a.take(), R"({"x"})");
  EXPECT_TRUE(a.empty());
  a.number(1);
  EXPECT_EQ(a.take(), "{1}");
  a.number(2);
  a.clear();
  a.number(3);
  EXPECT_EQ(a.take(), "{3}");
}

// The records' bodies: joined by 0x1E as they are (quotes, backslashes, newlines are data),
// split again by string_to_array($n, chr(30)) in the statement (e2e_test.py's postgres
// scenario checks PostgreSQL's side, with a seed holding a quote and a backslash).
TEST(PgJoinedTexts, JoinsByTheRecordSeparatorAndTakeEmpties) {
  joined_texts j;
  EXPECT_TRUE(j.empty());
  EXPECT_EQ(j.take(), "");
  j.add("fairdeck-log-v1\nseq=1\n");
  j.add(R"(a"b\c)");
  j.add("caf\xc3\xa9");
  EXPECT_EQ(j.size(), 3U);
  EXPECT_EQ(j.take(),
            "fairdeck-log-v1\nseq=1\n\x1e"
            R"(a"b\c)"
            "\x1e"
            "caf\xc3\xa9");
  EXPECT_TRUE(j.empty());
  j.add("x");
  j.clear();
  j.add("y");
  EXPECT_EQ(j.take(), "y");
}

// A text holding the separator would come back as two rows: refused, and nothing is added.
TEST(PgJoinedTexts, RefusesTheSeparatorInsideAText) {
  joined_texts j;
  j.add("first");
  EXPECT_THROW(j.add("two\x1ehalves"), std::invalid_argument);
  EXPECT_EQ(j.size(), 1U);
  EXPECT_EQ(j.take(), "first");
}

}  // namespace
