// Creating and opening stores (store.hpp): the key file, the key check, connection strings
// kept out of messages, and token ids.
#include <algorithm>

#include <fmt/format.h>

#include "fairdeck/service/store.hpp"

namespace fairdeck::service {
namespace {

constexpr std::string_view key_check_name = "key_check";

int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex_digit(s[i + 1]) >= 0 && hex_digit(s[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(s[i + 1]) * 16 + hex_digit(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// [begin, end) of every password in a postgresql:// URI: the userinfo's after ':' and each
// query parameter `password=`.
std::vector<std::pair<std::size_t, std::size_t>> password_spans(std::string_view db) {
  std::vector<std::pair<std::size_t, std::size_t>> spans;
  if (!is_postgres_uri(db)) return spans;
  const std::size_t start = db.find("://") + 3;
  const std::size_t query = db.find('?', start);
  const std::size_t auth_end = std::min(db.find('/', start), query);
  const std::size_t at = db.rfind('@', auth_end == std::string_view::npos ? db.size() : auth_end);
  if (at != std::string_view::npos && at >= start) {
    const std::size_t colon = db.find(':', start);
    if (colon != std::string_view::npos && colon < at) spans.emplace_back(colon + 1, at);
  }
  for (std::size_t p = query; p != std::string_view::npos && p < db.size();) {
    const std::size_t next = db.find('&', p + 1);
    const std::string_view param = db.substr(p + 1, next == std::string_view::npos ? std::string_view::npos : next - p - 1);
    if (param.starts_with("password=")) spans.emplace_back(p + 1 + 9, p + 1 + param.size());
    p = next;
  }
  return spans;
}

}  // namespace

bool is_postgres_uri(std::string_view db) noexcept {
  return db.starts_with("postgresql://") || db.starts_with("postgres://");
}

std::vector<std::string> uri_passwords(std::string_view db) {
  std::vector<std::string> out;
  for (const auto& [b, e] : password_spans(db))
    if (e > b) out.emplace_back(db.substr(b, e - b));
  return out;
}

std::string redact_db(std::string_view db) {
  std::string out(db);
  const auto spans = password_spans(db);
  for (auto it = spans.rbegin(); it != spans.rend(); ++it) out.replace(it->first, it->second - it->first, "***");
  return out;
}

std::string scrub_password(std::string message, std::string_view db) {
  for (const auto& raw : uri_passwords(db)) {
    std::vector<std::string> forms{raw};
    if (auto decoded = percent_decode(raw); decoded != raw && !decoded.empty()) forms.push_back(std::move(decoded));
    for (const std::string& secret : forms) {
      for (std::size_t p = message.find(secret); p != std::string::npos; p = message.find(secret, p + 3))
        message.replace(p, secret.size(), "***");
    }
  }
  return message;
}

std::filesystem::path key_path(const store_options& o) {
  if (!o.key_file.empty()) return o.key_file;
  if (is_postgres_uri(o.db))
    throw std::runtime_error("a PostgreSQL store needs an explicit key file: there is no database file to put it next to");
  return default_key_path(o.db);
}

void init_store(const store_options& o) {
  const auto kp = key_path(o);
  const bool pg = is_postgres_uri(o.db);
  if (!pg && std::filesystem::exists(o.db))
    throw std::runtime_error(fmt::format("{} already exists: a store is created once (add_token_hash adds tokens to it)", o.db));
  const std::string log_name = o.log_name.empty() ? default_log_name() : o.log_name;
  if (!tlog::valid_key_name(log_name))
    throw std::runtime_error(fmt::format("the log name '{}' is not a note key name (no spaces, '+' or control characters)", log_name));
  const auto key = create_key_file(kp);  // O_EXCL: never replaces a key that sealed live seeds
  try {
    if (pg) create_pg_store(o, key_check_value(key));
    else create_sqlite_store(o, key_check_value(key));
    // The log key (docs/log-format.md): its seed sealed with the store's key.
    open_store_for_tokens(o)->set_meta_once(log_key_meta, seal_log_key(tlog::note_signer::generate(log_name), key));
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove(kp, ec);
    throw;
  }
}

void check_key(store& s, const secret_key& key, const std::filesystem::path& key_file) {
  const std::string mine = key_check_value(key);
  const auto refuse = [&](std::string_view why) {
    throw wrong_key(fmt::format("key file {} is not this store's key ({}); start with the key file `fairdeckd init` "
                                "created for this store",
                                key_file.string(), why));
  };
  auto stored = s.meta(key_check_name);
  if (!stored) {
    // A store from before the key check: the key must open a secret sealed in it first.
    if (const auto log_key = s.meta(log_key_meta)) {
      try {
        (void)open_log_key(*log_key, key);
      } catch (const seal_error&) {
        refuse("it does not open the store's log key");
      }
    }
    if (const auto id = s.first_table_id()) {
      const auto t = s.table(*id);
      if (!t) refuse("table vanished while checking");
      try {
        (void)open_seed(t->sealed_seed, key, t->id, t->commitment);
      } catch (const seal_error&) {
        refuse(fmt::format("it does not open the sealed seed of table '{}'", t->id));
      }
    }
    stored = s.set_meta_once(key_check_name, mine);
  }
  if (!equal_constant_time(*stored, mine)) refuse("its key-check value differs");
}

std::unique_ptr<store> open_store(const store_options& o) {
  const auto kp = key_path(o);
  auto key = read_key_file(kp);
  auto s = is_postgres_uri(o.db) ? open_pg_store(o, key) : open_sqlite_store(o, key);
  check_key(*s, key, kp);
  // A store from before the log gets its key here (the first writer wins), and its trees.
  auto log_key = s->meta(log_key_meta);
  if (!log_key)
    log_key = s->set_meta_once(log_key_meta, seal_log_key(tlog::note_signer::generate(default_log_name()), key));
  s->start_log(std::make_shared<const tlog::note_signer>(open_log_key(*log_key, key)));
  return s;
}

std::unique_ptr<store> open_store_for_tokens(const store_options& o) {
  return is_postgres_uri(o.db) ? open_pg_store(o, std::nullopt) : open_sqlite_store(o, std::nullopt);
}

std::vector<std::string> token_ids(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::vector<std::string> ids;
  ids.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::size_t len = 8;
    for (std::size_t j = 0; j < rows.size(); ++j) {
      if (i == j) continue;
      const auto& a = rows[i].first;
      const auto& b = rows[j].first;
      std::size_t common = 0;
      while (common < a.size() && common < b.size() && a[common] == b[common]) ++common;
      len = std::max(len, common + 1);
    }
    ids.push_back(rows[i].first.substr(0, std::min(len, rows[i].first.size())));
  }
  return ids;
}

}  // namespace fairdeck::service
