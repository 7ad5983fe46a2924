// Direct SQL on a test's SQLite store: what an attacker with write access to the database (or
// an older fairdeckd) leaves in it.
#pragma once

#include <stdexcept>
#include <string>

#include <sqlite3.h>

namespace fairdeck::service {

// Runs `sql` (statements separated by ';') on the database file; throws on error.
inline void run_sql(const std::string& db, const std::string& sql) {
  sqlite3* c = nullptr;
  if (sqlite3_open(db.c_str(), &c) != SQLITE_OK) {
    sqlite3_close(c);
    throw std::runtime_error("cannot open " + db);
  }
  sqlite3_busy_timeout(c, 5000);
  char* err = nullptr;
  const int rc = sqlite3_exec(c, sql.c_str(), nullptr, nullptr, &err);
  const std::string why = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(c);
  if (rc != SQLITE_OK) throw std::runtime_error("sql: " + why);
}

// The first column of the first row, as text ("" when there is none).
inline std::string query_sql(const std::string& db, const std::string& sql) {
  sqlite3* c = nullptr;
  sqlite3_open(db.c_str(), &c);
  sqlite3_stmt* st = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(c, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
      sqlite3_column_text(st, 0) != nullptr)
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(c);
  return out;
}

}  // namespace fairdeck::service
