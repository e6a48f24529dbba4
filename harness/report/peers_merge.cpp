#include "harness/report/peers_merge.h"

#include <optional>
#include <stdexcept>
#include <unordered_set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/io/files.h"
#include "harness/report/report_json.h"

namespace vb {

namespace {

std::optional<double> cold_median_ms(const ExecutorResult& e) {
  for (const TimingRecord& t : e.timings) {
    if (t.mode == "cold-l2" && t.median_ms > 0 && t.stop_reason.rfind("error", 0) != 0) return t.median_ms;
  }
  return std::nullopt;
}

const ExecutorResult* find_executor(const CaseResult& c, const std::string& name) {
  for (const ExecutorResult& e : c.executors) {
    if (e.executor == name) return &e;
  }
  return nullptr;
}

// Sets the row's production_speedup (the peer's cold-l2 median over production's in this run);
// false when the peer row has a cold-l2 time and production has none.
bool set_speedup(const CaseResult& c, ExecutorResult* peer) {
  const std::optional<double> peer_ms = cold_median_ms(*peer);
  if (!peer_ms) return true;
  const ExecutorResult* production = find_executor(c, kProductionExecutor);
  const std::optional<double> production_ms = production ? cold_median_ms(*production) : std::nullopt;
  if (!production_ms) return false;
  peer->production_speedup = *peer_ms / *production_ms;
  return true;
}

}  // namespace

namespace {

using json = nlohmann::ordered_json;

[[noreturn]] void refuse(const std::string& path, const std::string& what) {
  throw std::runtime_error(fmt::format("{}: {}", path, what));
}

// One case's rows: each a result.json executor record in the peer namespace, each name once.
std::vector<ExecutorResult> peer_rows_of(const json& c, const std::string& path, const std::string& where) {
  if (!c.contains("executors") || !c.at("executors").is_array()) refuse(path, where + ".executors: not a list");
  std::vector<ExecutorResult> rows;
  std::unordered_set<std::string> names;
  const json& executors = c.at("executors");
  for (std::size_t i = 0; i < executors.size(); ++i) {
    ExecutorResult row;
    try {
      row = executor_result_from_json(executors[i]);
    } catch (const std::exception& e) {
      refuse(path, fmt::format("{}.executors[{}]: a malformed row ({})", where, i, e.what()));
    }
    if (!valid_peer_executor_name(row.executor)) {
      refuse(path, fmt::format("{}.executors[{}]: executor '{}'; allowed: a peer name, {}<name> of letters, digits "
                               "and ._/- (at most 64), never an executor verifybench runs",
                               where, i, printable_text(row.executor), kPeerExecutorPrefix));
    }
    if (!names.insert(row.executor).second) {
      refuse(path, fmt::format("{}.executors[{}]: executor '{}' listed twice in the case", where, i, row.executor));
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

PeerRows peer_rows_from_json(const json& doc, const std::string& path) {
  const json* format = doc.is_object() && doc.contains("format") ? &doc.at("format") : nullptr;
  const std::string format_text = format == nullptr ? "" : format->is_string() ? format->get<std::string>() : format->dump();
  if (format_text != "verifybench-peers/1") {
    throw std::runtime_error(fmt::format("{}: format '{}'; expected verifybench-peers/1 (python -m verifybench.peers "
                                         "--out FILE writes it)", path, printable_text(format_text)));
  }
  if (!doc.contains("cases") || !doc.at("cases").is_array()) refuse(path, "cases: not a list");
  PeerRows rows;
  rows.path = path;
  std::unordered_set<std::string> case_names;
  const json& cases = doc.at("cases");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string where = fmt::format("cases[{}]", i);
    const json& c = cases[i];
    if (!c.is_object() || !c.contains("case") || !c.at("case").is_string()) {
      refuse(path, where + ": a malformed case (an object with a string \"case\" and a list \"executors\")");
    }
    const std::string name = c.at("case").get<std::string>();
    if (!case_names.insert(name).second) {
      refuse(path, fmt::format("{}: case '{}' listed twice", where, printable_text(name)));
    }
    rows.cases.emplace_back(name, peer_rows_of(c, path, where));
  }
  return rows;
}

PeerRows read_peer_rows(const std::string& path) {
  const std::string what = "a verifybench-peers/1 file (python -m verifybench.peers --out FILE)";
  return peer_rows_from_json(
      parse_json_within(read_input_file(path, kMaxPeersFileBytes, what), path, kMaxResultDocumentBytes, what), path);
}

PeerMergeSummary merge_peer_rows(const PeerRows& peers, std::vector<CaseResult>* results) {
  PeerMergeSummary summary;
  for (const auto& [name, rows] : peers.cases) {
    CaseResult* target = nullptr;
    for (CaseResult& c : *results) {
      if (c.case_name == name) target = &c;
    }
    if (target == nullptr) {
      summary.cases_not_in_run.push_back(name);
      continue;
    }
    for (ExecutorResult row : rows) {
      if (!set_speedup(*target, &row)) ++summary.rows_without_speedup;
      target->executors.push_back(std::move(row));
      ++summary.rows_merged;
    }
  }
  return summary;
}

}  // namespace vb
