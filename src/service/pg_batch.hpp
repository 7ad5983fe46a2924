// The PostgreSQL store's writer connections (pg_batch.cpp), used by pg_store.cpp. Internal to
// src/service.
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <pqxx/pqxx>

#include "fairdeck/service/store.hpp"
#include "pg_pipeline.hpp"

namespace fairdeck::service::pg_db {

// A connection to `uri`; store_unavailable (password scrubbed) when it cannot be made.
[[nodiscard]] std::unique_ptr<pqxx::connection> connect(const std::string& uri);
// The same for a writer (its statements go in pipelines, pg_pipeline.hpp).
[[nodiscard]] std::unique_ptr<writer_connection> connect_writer(const std::string& uri);
// The table state of the first row of `r` (the columns the writer's "load" selects), nullopt
// when `r` is empty.
[[nodiscard]] std::optional<table_state> read_table(const pqxx::result& r, std::string_view id);
// One writer connection for the group committer (connects lazily, in begin()).
[[nodiscard]] std::unique_ptr<batch_backend> make_pg_backend(std::string uri);
// The writer's batch_backend::refused: refused_before_commit (pg_pipeline.hpp).
// The writer's batch_backend::retryable: a failure after which nothing was committed and a
// rerun of the whole batch may succeed — a deadlock or serialization failure (class 40), a
// connection lost before COMMIT was sent (commit() turns one lost during COMMIT into
// commit_outcome_unknown), kept rows found stale. Not 40003 (statement completion unknown): the
// outcome is uncertain there, and a rerun could deal twice.
[[nodiscard]] bool rerun_whole_batch(const std::exception& e) noexcept;

}  // namespace fairdeck::service::pg_db
