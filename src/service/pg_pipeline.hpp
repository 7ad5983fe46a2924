// A writer's statements in one round trip with their values apart from their text: libpq's
// pipeline mode (PostgreSQL 15 documentation, section 34.5 "Pipeline Mode"), each statement a
// prepared one bound to text parameters (the extended query protocol), then one Sync.
//
// Why not one multi-statement text, as the writer sent before: PostgreSQL logs a failed
// statement's text (log_min_error_statement, default `error`), and a multi-statement query's
// text is all of it — a batch's signed checkpoints included, over trees that never committed
// (a refused row, a full disk): a checkpoint no consistency proof connects to the real log,
// false evidence of a fork (docs/transparency.md). With parameters the log keeps the prepared
// statement's text ($1, $2, …) and, unless an operator asks for them, no values
// (log_parameter_max_length_on_error, default 0, which the writer also sets for its sessions).
// Internal to src/service.
#pragma once

#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <pqxx/pqxx>

namespace fairdeck::service::pg_db {

// pqxx's connection, whose libpq handle the pipeline needs (libpqxx 6.4 hands it out through
// its connection policy only: the policy below keeps the handle of each (re)connection).
class writer_connection final : public pqxx::connection_base {
 public:
  explicit writer_connection(const std::string& uri);
  ~writer_connection() noexcept;
  writer_connection(const writer_connection&) = delete;
  writer_connection& operator=(const writer_connection&) = delete;
  // The libpq connection (nullptr when there is none).
  [[nodiscard]] pqxx::internal::pq::PGconn* handle() const noexcept { return policy_.current(); }

 private:
  class keeping_policy final : public pqxx::connect_direct {
   public:
    explicit keeping_policy(const std::string& uri) : connect_direct(uri) {}
    handle do_startconnect(handle h) override { return keep(connect_direct::do_startconnect(h)); }
    handle do_completeconnect(handle h) override { return keep(connect_direct::do_completeconnect(h)); }
    handle do_dropconnect(handle h) noexcept override { return keep(connect_direct::do_dropconnect(h)); }
    handle do_disconnect(handle h) noexcept override { return keep(connect_direct::do_disconnect(h)); }
    [[nodiscard]] handle current() const noexcept { return current_; }

   private:
    handle keep(handle h) noexcept { return current_ = h; }
    handle current_ = nullptr;
  };
  std::string uri_;  // before policy_, which keeps a reference
  keeping_policy policy_;
};

// Makes `c`'s commits wait for their WAL flush, and a synchronous standby's when there is one
// (store.hpp: an acknowledged write is durable): a synchronous_commit of off, local or
// remote_write — the server's, the database's or the role's default — becomes on for the
// session (kept across libpqxx's reconnections); on and remote_apply are kept. One round trip.
void require_durable_commits(pqxx::connection_base& c);

// A pipeline's COMMIT (statement_pipeline::commit) succeeded, and a statement after it failed
// or the connection was lost after its answer: the transaction committed. Neither a refusal nor
// a reason to run the batch again (either would write it twice).
class failed_after_commit : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Statements sent together: each a statement prepared on the connection (by name) with its
// parameters as text, or a statement without parameters (BEGIN, COMMIT).
class statement_pipeline {
 public:
  void prepared(std::string name, std::vector<std::string> params) {
    steps_.push_back(step{std::move(name), {}, std::move(params)});
  }
  void plain(std::string sql) { steps_.push_back(step{{}, std::move(sql), {}}); }
  // The transaction's COMMIT, whose outcome run() then tells apart (below).
  void commit() { steps_.push_back(step{{}, "COMMIT", {}, true}); }
  // `sql` (no parameters) in front of the others.
  void plain_first(std::string sql) { steps_.insert(steps_.begin(), step{{}, std::move(sql), {}}); }
  [[nodiscard]] bool empty() const noexcept { return steps_.empty(); }
  // Sends every statement and a Sync, reads every answer, and returns the last statement's
  // first value (nullopt: NULL or no row). The first statement that failed throws, as pqxx
  // would (sql_error with its SQLSTATE, transaction_rollback for class 40), after the
  // answers are read and the connection has left pipeline mode; the statements after it did
  // not run. A lost connection throws broken_connection. The statements are forgotten.
  // With a COMMIT (commit()) the failure's place decides what it says: after the COMMIT
  // answered success (a statement that failed, a lost connection), failed_after_commit; a
  // connection lost once the COMMIT was sent and before its answer, unless a statement before
  // it had failed (it then did not run), commit_outcome_unknown (store.hpp); the COMMIT's own
  // error throws as above, and commit_failed() is then true.
  std::optional<std::string> run(writer_connection& c);
  // Did the last run() throw the COMMIT's own error?
  [[nodiscard]] bool commit_failed() const noexcept { return commit_failed_; }

 private:
  struct step {
    std::string name, sql;
    std::vector<std::string> params;
    bool commit = false;
  };
  std::vector<step> steps_;
  bool commit_failed_ = false;
};

// The writer's batch_backend::refused (pg_batch.cpp): an error PostgreSQL raised running the
// batch's statements, before its COMMIT could take effect (SQLSTATE classes 22 bad data, 23 a
// constraint, 25 a read-only server, 42 a statement or privilege, 53 a full disk or memory,
// 0A, P0 a trigger): nothing committed. Not a lost connection, an operator's intervention
// (57: shutdown, cancel), a system or internal error (58, XX): there the COMMIT's outcome is
// not certain, and rerunning the batch could deal twice. Not failed_after_commit either.
[[nodiscard]] bool refused_before_commit(const std::exception& e) noexcept;

// The exception pqxx would throw for an error with `sqlstate` (5 characters, or empty):
// transaction_rollback and its kinds for class 40, broken_connection for class 08, else
// sql_error; `statement` names the statement (never its values).
[[noreturn]] void throw_sql_error(const std::string& sqlstate, const std::string& message,
                                  const std::string& statement);

}  // namespace fairdeck::service::pg_db
