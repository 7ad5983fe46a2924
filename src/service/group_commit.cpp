// The group committer (store.hpp): one writer thread, one transaction per batch of writes.
// SQLite's advice for write throughput is exactly this: one writer, few large transactions.
#include <algorithm>
#include <chrono>
#include <future>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "fairdeck/service/store.hpp"
#include "fairdeck/util/parallel.hpp"

namespace fairdeck::service {
namespace {
// A write threw in a batch run without savepoints: rerun the batch with them.
struct write_failed {};

// First line only: database messages can run to several lines of detail.
std::string one_line(std::string_view s) {
  const auto nl = s.find('\n');
  return std::string(s.substr(0, nl));
}
}  // namespace

group_committer::group_committer(std::unique_ptr<batch_backend> backend, secret_key key, std::size_t max_batch,
                                 std::size_t max_queue)
    : backend_(std::move(backend)), key_(key), max_batch_(max_batch), max_queue_(max_queue) {
  if (backend_->deferred_sync())
    syncer_ = std::thread([this] {
      name_this_thread("fd-syncer");
      sync_loop();
    });
  thread_ = std::thread([this] {
    name_this_thread("fd-writer");
    run();
  });
}

group_committer::~group_committer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();  // the writer drains the queue first
  if (syncer_.joinable()) {
    {
      std::lock_guard lock(mutex_);
      stop_sync_ = true;
    }
    sync_cv_.notify_all();
    syncer_.join();  // then the syncer answers what is left
  }
}

void group_committer::submit(write_request req, done_fn done) {
  {
    std::unique_lock lock(mutex_);
    if (!sync_error_.empty()) {
      std::string error = fmt::format("store unavailable: {}", sync_error_);
      lock.unlock();
      done(failure(outcome::unavailable, std::move(error)));
      return;
    }
    if (queue_.size() >= max_queue_ || stopping_) {
      lock.unlock();
      done(failure(outcome::overloaded, "too many writes queued; retry later"));
      return;
    }
    queue_.push_back(item{std::move(req), std::move(done)});
  }
  cv_.notify_one();
}

commit_stats group_committer::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void group_committer::flush() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return queue_.empty() && !busy_ && to_sync_.empty() && !syncing_; });
}

void group_committer::await_durable() {
  std::unique_lock lock(mutex_);
  const std::uint64_t target = commit_gen_;
  synced_cv_.wait(lock, [&] { return synced_gen_ >= target || !sync_error_.empty(); });
  if (!sync_error_.empty()) throw store_unavailable(sync_error_);
}

void group_committer::set_log(std::shared_ptr<const tlog::note_signer> signer) {
  std::lock_guard lock(mutex_);
  log_signer_ = std::move(signer);
}

void group_committer::check_sync() const {
  std::lock_guard lock(mutex_);
  if (!sync_error_.empty()) throw store_unavailable(sync_error_);
}

void group_committer::answer(std::vector<item>& items, std::vector<write_result>& results, const std::string& error) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!error.empty()) results[i] = failure(outcome::unavailable, fmt::format("store unavailable: {}", error));
    items[i].done(std::move(results[i]));
  }
}

// The syncer: takes every batch committed so far, makes them durable with one sync, then
// answers them. While it waits on the disk, the writer commits the next batch.
void group_committer::sync_loop() {
  for (;;) {
    std::deque<committed> work;
    std::uint64_t gen = 0;
    std::string error;
    {
      std::unique_lock lock(mutex_);
      sync_cv_.wait(lock, [&] { return stop_sync_ || !to_sync_.empty(); });
      if (to_sync_.empty()) return;  // stopping and drained
      work.swap(to_sync_);
      // What this sync makes durable: the batches taken, not commit_gen_, which may already
      // count a batch the writer has begun but not committed (its COMMIT could land after the
      // fdatasync starts, and a reader would be told it is durable).
      gen = work.back().gen;
      syncing_ = true;
      error = sync_error_;
    }
    if (error.empty()) {
      try {
        backend_->sync();
      } catch (const std::exception& e) {
        error = one_line(e.what());
        if (error.empty()) error = "sync failed";
      }
    }
    {
      std::lock_guard lock(mutex_);
      if (!error.empty() && sync_error_.empty()) sync_error_ = error;
      if (sync_error_.empty()) synced_gen_ = gen;
      if (!error.empty()) stats_.failed_batches += work.size();
    }
    synced_cv_.notify_all();
    for (auto& c : work) answer(c.items, c.results, error);
    {
      std::lock_guard lock(mutex_);
      syncing_ = false;
    }
    idle_.notify_all();
  }
}

void group_committer::run() {
  std::vector<item> batch;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      busy_ = false;
      if (queue_.empty()) idle_.notify_all();
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      busy_ = true;
      while (!queue_.empty() && batch.size() < max_batch_) {
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    run_batch(batch);
    batch.clear();
  }
}

namespace {


// The batch's view of the tables: each row loaded once (locked by the store), updated in
// memory, written back once just before COMMIT. What one write changed in this view is
// undone with it when its savepoint is rolled back — including rows it loaded: PostgreSQL
// releases the row locks taken after a savepoint that is rolled back, so the next write on
// that table loads (and locks) the row again.
class batch_tx final : public transaction {
 public:
  // `log`: the tree kept with the records (log_tree.hpp), or null. `undoable`: a write can be
  // undone alone (a savepoint per write); else a failed write fails the whole batch, which is
  // then run again undoable, and the rows' before-images need not be kept (a copy per write).
  batch_tx(transaction& inner, log_writer* log, tree_storage* trees, bool undoable)
      : inner_(inner), log_(log), trees_(trees), undoable_(undoable) {}
  std::optional<table_state> load(std::string_view id) override {
    if (auto it = cache_.find(std::string(id)); it != cache_.end()) return it->second;
    auto t = inner_.load(id);
    if (t) {
      remember(t->id);
      cache_.emplace(t->id, *t);
    }
    return t;
  }
  void insert(const table_state& t) override {
    inner_.insert(t);
    remember(t.id);
    cache_[t.id] = t;
  }
  void update(const table_state& t) override {
    remember(t.id);
    cache_[t.id] = t;
    dirty_.insert(t.id);
  }
  void append(const record& r) override {
    inner_.append(r);
    if (log_) log_->append(*trees_, r);  // every record is a leaf, in the record's transaction
  }
  std::optional<idempotent_deal> find_idempotency(std::string_view table, std::string_view key) override {
    return inner_.find_idempotency(table, key);
  }
  void store_idempotency(std::string_view table, std::string_view key, const idempotent_deal& d) override {
    inner_.store_idempotency(table, key, d);
  }
  std::optional<record> record_at(std::string_view table, std::uint64_t seq) override { return inner_.record_at(table, seq); }
  void keep() {  // the write succeeded
    undo_.clear();
    if (log_) log_->keep();
  }
  void undo() {  // the write was rolled back (only a transaction run undoable kept what to restore)
    if (!undoable_) throw std::logic_error("batch_tx::undo: this batch keeps no before-images");
    if (log_) log_->undo();
    for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) {
      if (it->before) cache_[it->id] = *it->before;
      else cache_.erase(it->id);
      if (it->dirty) dirty_.insert(it->id);
      else dirty_.erase(it->id);
    }
    undo_.clear();
  }
  void write_back() {
    for (const auto& id : dirty_) inner_.update(cache_.at(id));
  }

 private:
  struct saved {
    std::string id;
    std::optional<table_state> before;
    bool dirty = false;
  };
  void remember(const std::string& id) {
    if (!undoable_) return;
    const auto it = cache_.find(id);
    undo_.push_back(saved{id, it == cache_.end() ? std::nullopt : std::optional(it->second), dirty_.contains(id)});
  }
  transaction& inner_;
  log_writer* log_;
  tree_storage* trees_;
  bool undoable_;
  std::map<std::string, table_state> cache_;
  std::set<std::string> dirty_;
  std::vector<saved> undo_;
};

}  // namespace

void group_committer::run_batch(std::vector<item>& batch) {
  // Tables are locked in id order (a stable sort keeps each table's writes in arrival
  // order): two writers, in one process or two, then never wait on each other in a cycle.
  std::vector<std::size_t> order(batch.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return table_of(batch[a].req) < table_of(batch[b].req); });
  std::vector<std::string> tables;  // distinct, ascending: what the backend may prefetch
  for (const std::size_t i : order)
    if (const auto& t = table_of(batch[i].req); !t.empty() && (tables.empty() || tables.back() != t)) tables.push_back(t);
  std::vector<write_result> results(batch.size());
  std::string error;
  const bool deferred = backend_->deferred_sync();
  bool refused = false;
  std::optional<log_writer> log;
  tree_storage* trees = nullptr;
  std::map<std::string, std::shared_ptr<const tree_batch>> trees_after;
  std::uint64_t gen = 0;
  {
    std::lock_guard lock(mutex_);
    if (log_signer_ && (trees = backend_->trees()) != nullptr) log.emplace(log_signer_);
    refused = !sync_error_.empty();  // after a failed sync nothing more is written
    if (refused) error = sync_error_;
    if (deferred) gen = ++commit_gen_;  // before COMMIT: a reader that sees this batch waits for its sync
  }
  // First run without savepoints (a savepoint costs two more statements per write: +60 %
  // deal time on PostgreSQL). If a write throws, the batch is rolled back and run again with
  // a SAVEPOINT per write, so that write answers its own error and the rest commits.
  bool isolate = false, backoff = false, optimistic = false;
  bool unknown = false;  // the COMMIT may have taken effect (commit_outcome_unknown): never rerun
  std::uint64_t retried = 0;
  batch_keys keys(key_);  // seeds opened by this batch's deals, wiped when it ends
  constexpr int attempts = 5;
  for (int attempt = 0; attempt < attempts && !refused; ++attempt) {
    error.clear();
    if (backoff) std::this_thread::sleep_for(std::chrono::milliseconds(5 << attempt));
    backoff = false;
    try {
      backend_->begin();
      if (log) log->begin();
      backend_->prefetch(tables, log.has_value());
      batch_tx tx(backend_->tx(), log ? &*log : nullptr, trees, isolate);
      for (const std::size_t i : order) {
        if (isolate) backend_->savepoint();
        try {
          results[i] = apply(batch[i].req, tx, keys);
          if (isolate) backend_->flush_writes();  // inside the savepoint: a failing row is this write's
        } catch (const std::exception& e) {
          if (backend_->retryable(e)) throw;  // the transaction is doomed: retry the batch
          if (!isolate) throw write_failed();
          tx.undo();
          backend_->rollback_to_savepoint();  // throws if the transaction is lost
          std::string why = one_line(e.what());
          results[i] = failure(outcome::unavailable, fmt::format("store unavailable: {}", why.empty() ? "database error" : why));
          continue;
        }
        tx.keep();
        if (isolate) backend_->release();
      }
      tx.write_back();
      if (log) trees_after = log->finish(*trees);  // one signed checkpoint per table, in this transaction
      try {
        backend_->commit();  // with the rows the writes above buffered
      } catch (const std::exception& e) {
        if (dynamic_cast<const commit_outcome_unknown*>(&e) || backend_->retryable(e) || isolate ||
            !backend_->refused(e))
          throw;
        throw write_failed();  // a row was refused: rerun with a savepoint per write to find whose
      }
      optimistic = backend_->optimistic();
      break;
    } catch (const write_failed&) {
      backend_->rollback();
      isolate = true;
    } catch (const std::exception& e) {
      backend_->rollback();
      error = one_line(e.what());
      if (error.empty()) error = "database error";
      // It may have committed: a rerun would write the batch twice (two deals for one request).
      unknown = dynamic_cast<const commit_outcome_unknown*>(&e) != nullptr;
      if (unknown || !backend_->retryable(e)) break;
      backoff = true;
      if (attempt + 1 < attempts) ++retried;
    }
  }
  if (unknown)
    for (auto& r : results)
      r = failure(outcome::unknown, fmt::format("store unavailable, commit outcome unknown: {}", error));
  else if (!error.empty())
    for (auto& r : results) r = failure(outcome::unavailable, fmt::format("store unavailable: {}", error));
  else
    for (auto& r : results)
      if (r.rec && !r.replayed)  // a replayed deal is not a leaf of this batch: its receipt comes from the store
        if (const auto it = trees_after.find(r.rec->table); it != trees_after.end()) r.log = it->second;
  {
    std::lock_guard lock(mutex_);
    ++stats_.batches;
    stats_.writes += batch.size();
    if (!error.empty()) ++stats_.failed_batches;
    if (isolate) ++stats_.isolated_batches;
    stats_.retried_batches += retried;
    if (optimistic) ++stats_.optimistic_batches;
    if (deferred) {  // answered by the syncer, after the sync that covers this commit
      to_sync_.push_back(committed{std::move(batch), std::move(results), gen});
    }
  }
  if (deferred) {
    sync_cv_.notify_one();
    batch.clear();  // moved from
    return;
  }
  answer(batch, results, {});
}

write_result store::execute(write_request req) {
  std::promise<write_result> p;
  auto f = p.get_future();
  submit(std::move(req), [&p](write_result r) { p.set_value(std::move(r)); });
  return f.get();
}

}  // namespace fairdeck::service
