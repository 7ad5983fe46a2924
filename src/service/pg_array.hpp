// PostgreSQL array literals ("{a,b,c}"), as the PostgreSQL store sends a batch's rows: each
// statement unnests arrays sent as text, one literal per column, so a batch of any size is one
// statement (pg_batch.cpp, pg_tree.cpp). Syntax: PostgreSQL 15 documentation, section 8.15.6
// "Array Input and Output Syntax". No libpqxx here (the unit test needs none). Internal to
// src/service.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fairdeck::service::pg_db {

// One element of an array literal as a quoted string: \ and " escaped (any text but NUL).
// One pass over the bytes, appending the runs between escapes whole (string_view's
// find_first_of calls memchr once per byte: 4 % of fairdeckd's CPU on PostgreSQL deals).
inline void quoted_element(std::string& out, std::string_view v) {
  out += '"';
  std::size_t run = 0;  // start of the bytes not yet appended
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] != '"' && v[i] != '\\') continue;
    out.append(v.data() + run, i - run);
    out += '\\';
    run = i;  // the escaped byte begins the next run
  }
  out.append(v.data() + run, v.size() - run);
  out += '"';
}

// A PostgreSQL array literal ("{a,b,c}") built one element at a time: the one way the store
// writes the arrays a batch's statements unnest (records, table rows, tree nodes and heads).
class array_builder {
 public:
  void quoted(std::string_view v) {
    next();
    quoted_element(text_, v);
  }
  void number(std::int64_t v) {
    next();
    text_ += std::to_string(v);
  }
  // An element written as is: NULL, or a hex string (no characters to escape).
  void bare(std::string_view v) {
    next();
    text_ += v;
  }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  // The literal ("{}" when empty); the builder is empty again.
  [[nodiscard]] std::string take() {
    std::string out = size_ == 0 ? std::string("{") : std::move(text_);
    out += '}';
    clear();
    return out;
  }
  void clear() noexcept {
    text_.clear();
    size_ = 0;
  }

 private:
  void next() { text_ += size_++ == 0 ? '{' : ','; }
  std::string text_;
  std::size_t size_ = 0;
};

}  // namespace fairdeck::service::pg_db
