// The writer's pipeline (src/service/pg_pipeline.hpp) on a live PostgreSQL 15: what a failure
// around the pipeline's COMMIT says about whether the transaction committed. Run by
// tests/service/pg_commit_test.py (scenario pipeline), which starts a cluster and names it in
// FAIRDECK_TEST_PG_URI; skipped without it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "pg_batch.hpp"
#include "pg_pipeline.hpp"

namespace {

using namespace fairdeck::service::pg_db;

// A connection to the test's cluster; nullptr: skipped.
std::unique_ptr<writer_connection> connect_live() {
  const char* uri = std::getenv("FAIRDECK_TEST_PG_URI");
  return uri == nullptr ? nullptr : std::make_unique<writer_connection>(uri);
}

// The same, with an empty table fd_live(v int).
std::unique_ptr<writer_connection> live() {
  auto c = connect_live();
  if (c) pqxx::nontransaction(*c).exec0("DROP TABLE IF EXISTS fd_live; CREATE TABLE fd_live(v int)");
  return c;
}

int rows(writer_connection& c, int v) {
  pqxx::nontransaction n(c);
  return n.exec_params1("SELECT count(*) FROM fd_live WHERE v = $1", v)[0].as<int>();
}

// A statement after a COMMIT that succeeded fails: the transaction committed. Taken for a
// refusal (SQLSTATE 22012, class 22) the committer would rerun the batch with a savepoint per
// write and deal again; taken for a rerun, the same.
TEST(PgLive, AFailureAfterACommitThatSucceededIsNeitherARefusalNorARerun) {
  auto c = live();
  if (!c) GTEST_SKIP() << "FAIRDECK_TEST_PG_URI is not set (tests/service/pg_commit_test.py pipeline sets it)";
  statement_pipeline p;
  p.plain("BEGIN");
  p.plain("INSERT INTO fd_live VALUES (7)");
  p.commit();
  p.plain("SELECT 1/0");
  try {
    (void)p.run(*c);
    FAIL() << "nothing thrown";
  } catch (const std::exception& e) {
    EXPECT_FALSE(refused_before_commit(e)) << e.what();
    EXPECT_FALSE(rerun_whole_batch(e)) << e.what();
    EXPECT_NE(dynamic_cast<const failed_after_commit*>(&e), nullptr) << e.what();
  }
  EXPECT_EQ(rows(*c, 7), 1);
}

// The same when the connection is lost after the COMMIT's answer: the session ends itself.
TEST(PgLive, AConnectionLostAfterACommitThatSucceededLeavesItCommitted) {
  auto c = live();
  if (!c) GTEST_SKIP() << "FAIRDECK_TEST_PG_URI is not set";
  statement_pipeline p;
  p.plain("BEGIN");
  p.plain("INSERT INTO fd_live VALUES (8)");
  p.commit();
  p.plain("SELECT pg_terminate_backend(pg_backend_pid())");
  EXPECT_THROW((void)p.run(*c), failed_after_commit);
  EXPECT_EQ(rows(*connect_live(), 8), 1);
}

// A statement before the COMMIT fails: the COMMIT never ran, nothing is stored, and the error
// is the refusal it always was.
TEST(PgLive, AFailureBeforeTheCommitIsARefusalAndStoresNothing) {
  auto c = live();
  if (!c) GTEST_SKIP() << "FAIRDECK_TEST_PG_URI is not set";
  statement_pipeline p;
  p.plain("BEGIN");
  p.plain("INSERT INTO fd_live VALUES (9)");
  p.plain("SELECT 1/0");
  p.commit();
  try {
    (void)p.run(*c);
    FAIL() << "nothing thrown";
  } catch (const std::exception& e) {
    EXPECT_TRUE(refused_before_commit(e)) << e.what();
    EXPECT_EQ(dynamic_cast<const failed_after_commit*>(&e), nullptr) << e.what();
  }
  pqxx::nontransaction(*c).exec0("ROLLBACK");  // the failed transaction, still open
  EXPECT_EQ(rows(*c, 9), 0);
}

}  // namespace
