// Which PostgreSQL errors in a batch's COMMIT query rerun the batch with a savepoint per write
// (src/service/pg_pipeline.hpp, refused_before_commit): those raised while its statements ran,
// never one after which the COMMIT's outcome is uncertain (a rerun could deal twice). The
// path itself runs end to end in e2e_postgres_test.py (a CHECK constraint). And which rerun the
// whole batch (rerun_whole_batch): never one whose outcome is uncertain either.
#include <gtest/gtest.h>

#include <stdexcept>

#include "pg_batch.hpp"
#include "pg_pipeline.hpp"

namespace {

using fairdeck::service::pg_db::refused_before_commit;
using fairdeck::service::pg_db::rerun_whole_batch;
using fairdeck::service::pg_db::throw_sql_error;

bool refused(const char* sqlstate) { return refused_before_commit(pqxx::sql_error("error", "COMMIT", sqlstate)); }

TEST(PgRefused, ErrorsRaisedByTheStatementsAreRefusals) {
  EXPECT_TRUE(refused_before_commit(pqxx::integrity_constraint_violation("check", "q", "23514")));
  EXPECT_TRUE(refused_before_commit(pqxx::data_exception("bad array", "q", "22P02")));
  EXPECT_TRUE(refused_before_commit(pqxx::disk_full("no space", "q", "53100")));
  EXPECT_TRUE(refused("25006"));  // read-only transaction: a standby
  EXPECT_TRUE(refused("42501"));  // privilege
  EXPECT_TRUE(refused("0A000"));
  EXPECT_TRUE(refused("P0001"));  // a trigger's RAISE
}

TEST(PgRefused, UncertainOutcomesAreNot) {
  EXPECT_FALSE(refused("57P01"));  // admin shutdown
  EXPECT_FALSE(refused("57014"));  // query canceled
  EXPECT_FALSE(refused("58030"));  // I/O error
  EXPECT_FALSE(refused("XX000"));  // internal error
  EXPECT_FALSE(refused("08006"));  // connection failure
  EXPECT_FALSE(refused(nullptr));  // no SQLSTATE
  EXPECT_FALSE(refused("2"));
  EXPECT_FALSE(refused_before_commit(pqxx::broken_connection("gone")));
  EXPECT_FALSE(refused_before_commit(pqxx::serialization_failure("could not serialize")));  // retried, not isolated
  EXPECT_FALSE(refused_before_commit(fairdeck::service::store_unavailable("connection lost during COMMIT")));
  EXPECT_FALSE(refused_before_commit(std::runtime_error("23514")));
  EXPECT_FALSE(refused_before_commit(fairdeck::service::commit_outcome_unknown("connection lost during COMMIT")));
  EXPECT_FALSE(refused_before_commit(fairdeck::service::pg_db::failed_after_commit("ERROR:  division by zero")));
}

TEST(PgRerun, DeadlocksSerializationAndLostConnectionsRerunTheBatch) {
  EXPECT_TRUE(rerun_whole_batch(pqxx::deadlock_detected("deadlock")));
  EXPECT_TRUE(rerun_whole_batch(pqxx::serialization_failure("could not serialize")));
  EXPECT_TRUE(rerun_whole_batch(pqxx::broken_connection("gone")));
}

TEST(PgRerun, UnknownOutcomesAndRefusalsDoNot) {
  EXPECT_FALSE(rerun_whole_batch(pqxx::statement_completion_unknown("unknown")));
  EXPECT_FALSE(rerun_whole_batch(fairdeck::service::store_unavailable("connection lost during COMMIT")));
  EXPECT_FALSE(rerun_whole_batch(pqxx::integrity_constraint_violation("check", "q", "23514")));
  EXPECT_FALSE(rerun_whole_batch(std::runtime_error("40001")));
  EXPECT_FALSE(rerun_whole_batch(fairdeck::service::commit_outcome_unknown("connection lost during COMMIT")));
  EXPECT_FALSE(rerun_whole_batch(fairdeck::service::pg_db::failed_after_commit("ERROR:  division by zero")));
}

// The writer's pipeline (pg_pipeline.cpp) turns a statement's error into the exception pqxx
// would have thrown, so both predicates above decide on it as on pqxx's own.
struct decided {
  bool refused, rerun;
  std::string what;
};
decided pipeline_error(const char* sqlstate) {
  try {
    throw_sql_error(sqlstate, "ERROR:  the message", "append_many");
  } catch (const std::exception& e) {
    return {refused_before_commit(e), rerun_whole_batch(e), e.what()};
  }
  return {false, false, "nothing thrown"};
}

TEST(PgPipeline, ErrorsAreDecidedAsPqxxErrors) {
  for (const char* refusal : {"23514", "23505", "22P02", "53100", "25006", "42501", "0A000", "P0001"}) {
    const auto d = pipeline_error(refusal);
    EXPECT_TRUE(d.refused) << refusal;
    EXPECT_FALSE(d.rerun) << refusal;
    EXPECT_EQ(d.what, "ERROR:  the message") << refusal;
  }
  for (const char* rerun : {"40001", "40P01", "40002", "08006", "08003"}) {
    const auto d = pipeline_error(rerun);
    EXPECT_TRUE(d.rerun) << rerun;
    EXPECT_FALSE(d.refused) << rerun;
  }
  for (const char* uncertain : {"40003", "57P01", "57014", "58030", "XX000", ""}) {
    const auto d = pipeline_error(uncertain);
    EXPECT_FALSE(d.rerun) << uncertain;
    EXPECT_FALSE(d.refused) << uncertain;
  }
}

TEST(PgPipeline, AnErrorNamesItsStatementNotItsValues) {
  try {
    throw_sql_error("23514", "ERROR:  violates check constraint", "append_many");
    FAIL() << "nothing thrown";
  } catch (const pqxx::sql_error& e) {
    EXPECT_EQ(e.query(), "append_many");
    EXPECT_EQ(e.sqlstate(), "23514");
  }
}

}  // namespace
