// A writer's statements in one round trip, values apart from text (pg_pipeline.hpp).
#include "pg_pipeline.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string_view>

#include "fairdeck/service/store.hpp"

namespace fairdeck::service::pg_db {

writer_connection::writer_connection(const std::string& uri) : connection_base(policy_), uri_(uri), policy_(uri_) {
  init();
}

writer_connection::~writer_connection() noexcept { close(); }

void require_durable_commits(pqxx::connection_base& c) {
  const std::string level = c.get_variable("synchronous_commit");
  if (level == "off" || level == "local" || level == "remote_write") c.set_variable("synchronous_commit", "on");
}

namespace {

using result_ptr = std::unique_ptr<PGresult, decltype(&PQclear)>;

// The connection's own message, first line (libpq's end with a newline).
std::string connection_error(PGconn* c, std::string_view what) {
  std::string m = PQerrorMessage(c);
  m = m.substr(0, m.find('\n'));
  return std::string(what) + (m.empty() ? "" : ": " + m);
}

[[noreturn]] void lost(PGconn* c, std::string_view what) { throw pqxx::broken_connection(connection_error(c, what)); }

// The first error of a pipeline's statements, and its statement's place.
struct failure {
  std::string sqlstate, message, statement;
  std::size_t index = 0;
};

}  // namespace

void throw_sql_error(const std::string& sqlstate, const std::string& message, const std::string& statement) {
  const char* state = sqlstate.empty() ? nullptr : sqlstate.c_str();
  if (sqlstate == "40001") throw pqxx::serialization_failure(message);
  if (sqlstate == "40P01") throw pqxx::deadlock_detected(message);
  if (sqlstate == "40003") throw pqxx::statement_completion_unknown(message);
  if (sqlstate.starts_with("40")) throw pqxx::transaction_rollback(message);
  if (sqlstate.starts_with("08")) throw pqxx::broken_connection(message);
  throw pqxx::sql_error(message, statement, state);
}

bool refused_before_commit(const std::exception& e) noexcept {
  const auto* error = dynamic_cast<const pqxx::sql_error*>(&e);
  if (error == nullptr || error->sqlstate().size() != 5) return false;
  const std::string_view cls = std::string_view(error->sqlstate()).substr(0, 2);
  constexpr std::array<std::string_view, 7> refusals{"22", "23", "25", "42", "53", "0A", "P0"};
  return std::find(refusals.begin(), refusals.end(), cls) != refusals.end();
}

std::optional<std::string> statement_pipeline::run(writer_connection& conn) {
  const auto steps = std::move(steps_);
  steps_.clear();
  commit_failed_ = false;
  // Registered at connect; after a reconnection libpqxx registers them again here, before the
  // pipeline (no-op when they are).
  for (const auto& s : steps)
    if (!s.name.empty()) conn.prepare_now(s.name);
  PGconn* c = conn.handle();
  if (c == nullptr || PQstatus(c) != CONNECTION_OK) throw pqxx::broken_connection("no connection to PostgreSQL");
  const auto commit_at = static_cast<std::size_t>(
      std::find_if(steps.begin(), steps.end(), [](const step& s) { return s.commit; }) - steps.begin());
  std::size_t sent = 0;    // statements handed to libpq (maybe sent)
  bool committed = false;  // the COMMIT answered success
  std::optional<failure> first;
  // The connection is gone: what that leaves of the COMMIT (run() above).
  const auto gone = [&](std::string_view what) {
    if (committed) throw failed_after_commit(connection_error(c, what));
    if (sent > commit_at && !(first && first->index < commit_at))
      throw commit_outcome_unknown(connection_error(c, "connection lost during COMMIT: " + std::string(what)));
    lost(c, what);
  };
  if (PQenterPipelineMode(c) != 1) lost(c, "cannot enter pipeline mode");
  for (const auto& s : steps) {
    int queued = 0;
    if (s.name.empty()) {
      queued = PQsendQueryParams(c, s.sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0);
    } else {
      std::vector<const char*> values;
      values.reserve(s.params.size());
      for (const auto& p : s.params) values.push_back(p.c_str());
      queued = PQsendQueryPrepared(c, s.name.c_str(), static_cast<int>(values.size()), values.data(), nullptr, nullptr,
                                   0);
    }
    if (queued != 1) gone("cannot send a statement");
    ++sent;
  }
  if (PQpipelineSync(c) != 1) gone("cannot send the statements");

  std::optional<std::string> last;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    // One statement's answer: a result, then nullptr.
    for (int n = 0;; ++n) {
      const result_ptr r(PQgetResult(c), &PQclear);
      if (!r) break;
      if (PQstatus(c) == CONNECTION_BAD) gone("connection lost");
      if (n > 0) continue;  // a statement has one result (COPY aside: none here)
      switch (PQresultStatus(r.get())) {
        case PGRES_COMMAND_OK:
        case PGRES_TUPLES_OK:
          if (i == commit_at) committed = true;
          if (i + 1 == steps.size()) {
            last.reset();
            if (PQntuples(r.get()) > 0 && PQnfields(r.get()) > 0 && PQgetisnull(r.get(), 0, 0) == 0)
              last = PQgetvalue(r.get(), 0, 0);
          }
          break;
        case PGRES_PIPELINE_ABORTED: break;  // after the first failure: not run
        default:
          if (!first) {
            const char* state = PQresultErrorField(r.get(), PG_DIAG_SQLSTATE);
            first = failure{state != nullptr ? state : "", PQresultErrorMessage(r.get()),
                            steps[i].name.empty() ? steps[i].sql : steps[i].name, i};
          }
      }
    }
    if (PQstatus(c) == CONNECTION_BAD) gone("connection lost");
  }
  const result_ptr sync(PQgetResult(c), &PQclear);
  if (!sync || PQresultStatus(sync.get()) != PGRES_PIPELINE_SYNC) gone("no end of the statements' answers");
  if (PQexitPipelineMode(c) != 1) gone("cannot leave pipeline mode");
  if (!first) return last;
  if (committed) throw failed_after_commit(first->message.substr(0, first->message.find('\n')));
  commit_failed_ = first->index == commit_at;
  throw_sql_error(first->sqlstate, first->message, first->statement);
}

}  // namespace fairdeck::service::pg_db
