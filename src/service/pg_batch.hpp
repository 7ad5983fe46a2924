// The PostgreSQL store's writer connections (pg_batch.cpp), used by pg_store.cpp. Internal to
// src/service.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <pqxx/pqxx>

#include "fairdeck/service/store.hpp"

namespace fairdeck::service::pg_db {

// A connection to `uri`; store_unavailable (password scrubbed) when it cannot be made.
[[nodiscard]] std::unique_ptr<pqxx::connection> connect(const std::string& uri);
// The table state of the first row of `r` (the columns the writer's "load" selects), nullopt
// when `r` is empty.
[[nodiscard]] std::optional<table_state> read_table(const pqxx::result& r, std::string_view id);
// One writer connection for the group committer (connects lazily, in begin()).
[[nodiscard]] std::unique_ptr<batch_backend> make_pg_backend(std::string uri);

}  // namespace fairdeck::service::pg_db
