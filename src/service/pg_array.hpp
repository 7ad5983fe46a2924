// PostgreSQL array literals ("{a,b,c}"), as the PostgreSQL store sends a batch's rows: each
// statement unnests arrays sent as text, one literal per column (the records' bodies: one text
// joined by 0x1E, below), so a batch of any size is one statement (pg_batch.cpp, pg_tree.cpp). Syntax: PostgreSQL 15 documentation, section 8.15.6
// "Array Input and Output Syntax". No libpqxx here (the unit test needs none). Internal to
// src/service.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

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

// What the two builders below share: the text so far and how many elements it holds.
class element_text {
 public:
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  void clear() noexcept {
    text_.clear();
    size_ = 0;
  }

 protected:
  // Starts the next element: `first` before the first one (0: nothing), `separator` before the others.
  void next(char first, char separator) {
    if (size_++ > 0)
      text_ += separator;
    else if (first != 0)
      text_ += first;
  }
  // The text so far; the builder is empty again.
  std::string take_text() {
    std::string out = std::move(text_);
    clear();
    return out;
  }
  std::string text_;

 private:
  std::size_t size_ = 0;
};

// A PostgreSQL array literal ("{a,b,c}") built one element at a time: the one way the store
// writes the arrays a batch's statements unnest (records, table rows, tree nodes and heads).
class array_builder : public element_text {
 public:
  void quoted(std::string_view v) {
    next('{', ',');
    quoted_element(text_, v);
  }
  void number(std::int64_t v) {
    next('{', ',');
    text_ += std::to_string(v);
  }
  // An element written as is: NULL, or a hex string (no characters to escape).
  void bare(std::string_view v) {
    next('{', ',');
    text_ += v;
  }
  // The literal ("{}" when empty); the builder is empty again.
  [[nodiscard]] std::string take() {
    std::string out = empty() ? std::string("{") : take_text();
    out += '}';
    return out;
  }
};

// Texts joined by 0x1E (ASCII's record separator), which the statement splits again with
// string_to_array($n, chr(30)): how the records' canonical bodies travel, as one text and not
// an array literal, which PostgreSQL's array_in reads a character at a time through its quoting
// rules, where string_to_array only looks for the separator. Under 256-connection deals
// array_in's share of PostgreSQL's CPU fell from 15.1 to 10.3 % (string_to_array's: 0.65 %;
// docs/service.md, 2026-11-29).
// No element may contain 0x1E: a record's canonical text has no control character but its
// newlines (docs/log-format.md), so add() refuses one rather than split it into two rows.
class joined_texts : public element_text {
 public:
  static constexpr char separator = '\x1e';
  void add(std::string_view v) {
    if (v.find(separator) != std::string_view::npos)
      throw std::invalid_argument("a record body contains the byte 0x1E, which no canonical text has");
    next(0, separator);
    text_ += v;
  }
  // The joined text ("" when empty); the builder is empty again.
  [[nodiscard]] std::string take() { return take_text(); }
};

}  // namespace fairdeck::service::pg_db
