#include "harness/report/peers_merge.h"

#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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

// Sets the row's production_speedup and says it in the detail: "; production 27.30x faster
// (cold-l2 medians: 636.0 us in the peers file, 23.3 us in this run)".
void note_speedup(const CaseResult& c, ExecutorResult* peer) {
  const std::optional<double> peer_ms = cold_median_ms(*peer);
  if (!peer_ms) return;
  const ExecutorResult* production = find_executor(c, "production");
  const std::optional<double> production_ms = production ? cold_median_ms(*production) : std::nullopt;
  if (!production_ms) {
    peer->detail += "; no speedup: production has no cold-l2 time in this run (run with --time)";
    return;
  }
  peer->production_speedup = *peer_ms / *production_ms;
  peer->detail += fmt::format("; production {:.2f}x faster (cold-l2 medians: {:.1f} us in the peers file, {:.1f} us in "
                              "this run)", *peer->production_speedup, *peer_ms * 1e3, *production_ms * 1e3);
}

}  // namespace

PeerRows read_peer_rows(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot be read");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::ordered_json doc;
  try {
    doc = nlohmann::ordered_json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(fmt::format("{}: not JSON ({})", path, e.what()));
  }
  const std::string format = doc.is_object() ? doc.value("format", "") : "";
  if (format != "verifybench-peers/1") {
    throw std::runtime_error(fmt::format("{}: format '{}'; expected verifybench-peers/1 (python -m verifybench.peers "
                                         "--out FILE writes it)", path, format));
  }
  PeerRows rows;
  rows.path = path;
  try {
    for (const auto& c : doc.at("cases")) {
      std::vector<ExecutorResult> executors;
      for (const auto& e : c.at("executors")) executors.push_back(executor_result_from_json(e));
      rows.cases.emplace_back(c.at("case").get<std::string>(), std::move(executors));
    }
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: a malformed case or row ({})", path, e.what()));
  }
  return rows;
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
      note_speedup(*target, &row);
      target->executors.push_back(std::move(row));
      ++summary.rows_merged;
    }
  }
  return summary;
}

}  // namespace vb
